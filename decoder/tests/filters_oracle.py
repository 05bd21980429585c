#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Oracle of decoder/tests/test_filters.sh: the filters (--images, with
the program's view --images=program, --only, --hide, --only-object,
--hide-object, --max-depth or --depth, --range) as
documented, applied by this model to events
it generated itself, and what every mode must then write.

  filters_oracle.py gen DIR SEED
      Write DIR/a.script (a process of three threads making random nested
      calls among functions of the program, an MPI library and libc, one
      of them a C++ name, one recursive) and DIR/b.script (its forked
      child, whose thread starts with 3 inherited calls), and DIR/model,
      every event of every thread.
  filters_oracle.py expect DIR OUTDIR FILTER...
      From DIR/model and the filter options, write what the modes must
      show: OUTDIR/events (parlot-decode --events, both traces),
      OUTDIR/folded (--folded, sorted), OUTDIR/graph (per thread: events,
      calls, max depth, and calls per caller -> callee edge), OUTDIR/totals
      ("EVENTS CALLS RETURNS INHERITED" of all threads).
  filters_oracle.py graph XML
      The same per-thread graph lines, read from a parlot-decode --xml
      document.
"""
import fnmatch
import os
import random
import sys
import xml.etree.ElementTree as ET

MAIN = "/opt/app/sim"
MPI = "/usr/lib/libmpi.so.40"
LIBC = "/lib/x86_64-linux-gnu/libc.so.6"
# (name as recorded, as shown, object); the mangled name's demangled form
# is the C++ ABI's (c++filt), not the decoder's
FUNCS = [("main", "main", MAIN), ("solve", "solve", MAIN),
         ("_ZN3sim4stepEi", "sim::step(int)", MAIN),
         ("kernel", "kernel", MAIN), ("halo", "halo", MAIN),
         ("recurse", "recurse", MAIN),
         ("MPI_Send", "MPI_Send", MPI), ("MPI_Recv", "MPI_Recv", MPI),
         ("MPIDI_poll", "MPIDI_poll", MPI),
         ("memcpy", "memcpy", LIBC), ("malloc", "malloc", LIBC)]
SHOWN = {f[0]: f[1] for f in FUNCS}
# other names of the same functions (ALIASES chunks, format 1.4), which
# filters match too
ALIASES = {"MPI_Send": ["PMPI_Send"], "MPI_Recv": ["PMPI_Recv"],
           "memcpy": ["memmove", "__GI_memcpy"]}
OBJ = {f[0]: f[2] for f in FUNCS}


def walk(rng, t, n, stack, lines, events):
    """n random events of thread t on top of stack, then back to it."""
    base = len(stack)
    for _ in range(n):
        if len(stack) > base and (len(stack) >= base + 10
                                  or rng.random() < 0.45):
            lines.append("return %d" % t)
            events.append((t, "return", stack.pop()))
            continue
        top = stack[-1] if stack else None
        f = "recurse" if top == "recurse" and rng.random() < 0.6 \
            else rng.choice([f[0] for f in FUNCS[1:]])
        lines.append("call %d %s" % (t, f))
        events.append((t, "call", f))
        stack.append(f)
    while len(stack) > base:
        lines.append("return %d" % t)
        events.append((t, "return", stack.pop()))


def header(pid, ppid):
    lines = ["process pid=%d ppid=%d exe=%s arg0=./sim" % (pid, ppid, MAIN)]
    lines += ["object " + o for o in (MAIN, MPI, LIBC)]
    lines += ["function %s %s" % (f[0], f[2]) for f in FUNCS]
    lines += ["alias %s %s" % (f, " ".join(a)) for f, a in ALIASES.items()]
    return lines


def gen(d, seed):
    rng = random.Random(seed)
    model = []
    # the parent: three threads, interleaved in chunks
    lines = header(200, 1)
    ev = []
    stacks = {1: ["main"], 2: [], 3: []}
    lines += ["thread 1", "call 1 main"]
    ev.append((1, "call", "main"))
    # thread 3 waits in MPI_Recv under everything it does, longer than
    # a reader's batch of events (4,096): views that show nothing inside
    # a library call go past such stretches whole
    lines += ["thread 2", "thread 3", "call 3 MPI_Recv"]
    ev.append((3, "call", "MPI_Recv"))
    stacks[3].append("MPI_Recv")
    for rnd in range(6):
        for t in (1, 2, 3):
            n = rng.randint(1500, 2500) if t == 3 else rng.randint(150, 400)
            walk(rng, t, n, stacks[t], lines, ev)
            lines.append("sync %d" % t)
    lines += ["return 1", "return 3", "exit 2", "exit 3", "end"]
    ev.append((1, "return", "main"))
    ev.append((3, "return", "MPI_Recv"))
    model += [("200", t, k, f, 0) for t, k, f in ev]
    with open(os.path.join(d, "a.script"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    # the forked child: main solve sim::step inherited
    lines = header(201, 200)
    ev = []
    lines += ["thread 1 inherited=3", "call 1 main solve _ZN3sim4stepEi"]
    for f in ("main", "solve", "_ZN3sim4stepEi"):
        ev.append((1, "call", f))
    stack = ["main", "solve", "_ZN3sim4stepEi"]
    walk(rng, 1, 900, stack, lines, ev)
    lines += ["return 1 3", "end"]
    for f in reversed(stack):
        ev.append((1, "return", f))
    model += [("201", t, k, f, 3) for t, k, f in ev]
    with open(os.path.join(d, "b.script"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    with open(os.path.join(d, "model"), "w") as fh:
        for pid, t, k, f, inh in model:
            fh.write("%s %d %s %s %d\n" % (pid, t, k, f, inh))


def parse_filters(args):
    f = {"main": False, "program": False, "only": [], "hide": [],
         "depth": 0,
         "objs": [], "hide_objs": [], "first": 1, "last": None}
    for a in args:
        key, _, val = a.lstrip("-").partition("=")
        if key == "images":
            f["main"] = val == "main"
            f["program"] = val == "program"
        elif key in ("only", "hide"):
            f[key].append(val)
        elif key == "only-object":
            f["objs"].append(val)
        elif key == "hide-object":
            f["hide_objs"].append(val)
        elif key in ("depth", "max-depth"):
            f["depth"] = int(val)
        elif key == "range":
            lo, _, hi = val.partition("-")
            f["first"] = int(lo) if lo else 1
            f["last"] = int(hi) if hi else None
    return f


def keep(f, name):
    names = [name, SHOWN[name]] + ALIASES.get(name, [])
    match = lambda pats: any(fnmatch.fnmatchcase(n, p)
                             for p in pats for n in names)
    obj = OBJ[name]
    in_objs = lambda pats: any(fnmatch.fnmatchcase(o, p) for p in pats
                               for o in (obj, os.path.basename(obj)))
    if f["main"] and obj != MAIN:
        return False
    if f["objs"] and not in_objs(f["objs"]):
        return False
    if in_objs(f["hide_objs"]):
        return False
    if f["only"] and not match(f["only"]):
        return False
    return not match(f["hide"])


def program_frame(name, caller_own):
    """(shown, own) of a call in the program's view: the program's own
    functions are shown, and a library's (the MPI library and the C
    library are runtimes) where the program's own code calls it, as one
    opaque call whose callees are hidden but for the program's."""
    own = OBJ[name] == MAIN
    return own or caller_own, own


def shown_events(f, events):
    """events: [(kind, name)] of one thread -> [(number, kind, depth, name)]."""
    out, stack, depth = [], [], 0
    owns = [False]          # per open frame: the program's own code
    last = f["last"] or len(events)
    for num, (kind, name) in enumerate(events, 1):
        if num > last:
            break
        if kind == "call":
            if f["program"]:
                kept, own = program_frame(name, owns[-1])
                owns.append(own)
            else:
                kept = keep(f, name)
            show = (kept and num >= f["first"]
                    and (not f["depth"] or depth < f["depth"]))
            stack.append(show)
            if show:
                depth += 1
                out.append((num, kind, depth, name))
        else:
            if f["program"]:
                owns.pop()
            if stack.pop():
                out.append((num, kind, depth, name))
                depth -= 1
    return out


def expect(d, outdir, args):
    f = parse_filters(args)
    threads = {}
    inherited = {}
    with open(os.path.join(d, "model")) as fh:
        for line in fh:
            pid, t, kind, name, inh = line.split()
            threads.setdefault((pid, int(t)), []).append((kind, name))
            inherited[(pid, int(t))] = int(inh)
    ev_lines, folded, graph = [], {}, []
    tot = [0, 0, 0, 0]
    for key in sorted(threads):
        pid, t = key
        shown = shown_events(f, threads[key])
        inh = sum(1 for s in shown if s[0] <= inherited[key])
        path, edges, calls, maxd = [], {}, 0, 0
        for num, kind, depth, name in shown:
            ev_lines.append("%s\t%d\t%s\t%d\t%s\t%s" % (
                pid, t, kind, depth, OBJ[name], SHOWN[name]))
            if kind == "call":
                caller = SHOWN[path[-1]] if path else "-"
                path.append(name)
                maxd = max(maxd, depth)
                if num > inherited[key]:
                    calls += 1
                    e = (caller, SHOWN[name])
                    edges[e] = edges.get(e, 0) + 1
                    p = ";".join(SHOWN[n] for n in path)
                    folded[p] = folded.get(p, 0) + 1
            else:
                path.pop()
        rets = sum(1 for s in shown if s[1] == "return")
        tot = [tot[0] + len(shown), tot[1] + calls, tot[2] + rets,
               tot[3] + inh]
        graph.append("thread %s:%d events=%d calls=%d max-depth=%d"
                     % (pid, t, len(shown), calls, maxd))
        graph += ["  %s -> %s %d" % (a, b, n)
                  for (a, b), n in sorted(edges.items())]
    write(outdir, "events", ev_lines)
    write(outdir, "folded", sorted("%s %d" % kv for kv in folded.items()))
    write(outdir, "graph", graph)
    write(outdir, "totals", ["%d %d %d %d" % tuple(tot)])


def xml_graph(path):
    root = ET.parse(path).getroot()
    names = {fn.get("id"): fn.get("name") for fn in root.iter("function")}
    procs = {p.get("id"): p.get("pid") for p in root.iter("process")}
    out = []
    for th in root.iter("thread"):
        out.append("thread %s:%s events=%s calls=%s max-depth=%s" % (
            procs[th.get("process")], th.get("number"), th.get("events"),
            th.get("calls"), th.get("max-depth")))
        edges = sorted((names[e.get("caller")] if e.get("caller") else "-",
                        names[e.get("callee")], int(e.get("calls")))
                       for e in th.iter("edge"))
        out += ["  %s -> %s %d" % e for e in edges]
    print("\n".join(out))


def write(outdir, name, lines):
    with open(os.path.join(outdir, name), "w") as fh:
        fh.write("".join(l + "\n" for l in lines))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(sys.argv[2], int(sys.argv[3]))
    elif cmd == "expect":
        expect(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif cmd == "graph":
        xml_graph(sys.argv[2])
    else:
        sys.exit("unknown command " + cmd)
