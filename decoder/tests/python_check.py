# SPDX-License-Identifier: MIT
"""The parlot Python package against parlot-decode (test_python.sh).

    python_check.py PARLOT_DECODE CASE...

Each CASE is KIND:PATH[:ARG]:
  events:PATH    every thread's events, unfiltered and through filters
                 (images=main, only=, hide=), as parlot-decode --events
                 lines, equal to its output; arrays() equal to the
                 iterator (when NumPy is installed); call_counts() equal
                 to the "call" lines per thread
  exit:PATH:N,M  the processes exited with statuses N, M... (what the
                 program does)
  damaged:PATH   open() raises ParlotError with parlot-decode's offset and
                 message; with strict=False the events read are
                 parlot-decode --events' output
  missing:PATH   open() raises ParlotError naming PATH
  select:PATH    select="PID:1" keeps only thread 1 of that process
  graph:PATH     Run.call_graph() against the call lines replayed
  example:PATH:FUNCTION:SCRIPT   the example rank_calls.py's counts of
                 FUNCTION per rank = parlot-decode's call lines
  costs:PATH     traces with --collect-insns and --collect-time: arrays()'
                 insns and call_graph()'s against parlot-decode --xml's
                 instructions; times() ordered (needs NumPy)
Prints TAP lines; exit 1 if any failed.
"""

import functools
import re
import subprocess
import sys

import parlot

count = failures = 0


def ok(cond, name, detail=""):
    global count, failures
    count += 1
    if cond:
        print("ok %d - %s" % (count, name))
    else:
        failures += 1
        print("not ok %d - %s" % (count, name))
        for line in str(detail).splitlines()[:12]:
            print("#   " + line)


@functools.lru_cache(maxsize=None)
def escaped(s):
    """A name as the line-oriented outputs write it (pl_names.h): control
    characters and the backslash as C escapes, other bytes as they are."""
    out = bytearray()
    for ch in s.encode("utf-8", "surrogateescape"):
        if ch == 0x5C:
            out += b"\\\\"
        elif ch == 9:
            out += b"\\t"
        elif ch == 10:
            out += b"\\n"
        elif ch < 0x20 or ch == 0x7F:
            out += b"\\x%02x" % ch
        else:
            out.append(ch)
    return out.decode("utf-8", "surrogateescape")


def decode(*args):
    p = subprocess.run([DECODE] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return (p.returncode, p.stdout.decode("utf-8", "surrogateescape"),
            p.stderr.decode("utf-8", "surrogateescape"))


def lines_of(run, **filters):
    """Every thread's events as parlot-decode --events writes them."""
    out = []
    for th in run.threads:
        prefix = "%s\t%d\t" % (th.pid, th.number)
        for ev in th.events(**filters):
            out.append("%s%s\t%d\t%s\t%s\n" % (prefix, ev.kind, ev.depth,
                                               escaped(ev.object),
                                               escaped(ev.function)))
    return "".join(out)


def first_difference(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return "line %d:\n  python: %s\n  decode: %s" % (i + 1, x, y)
    return "python %d lines, parlot-decode %d" % (len(la), len(lb))


FILTERS = [({}, []), ({"images": "main"}, ["--images=main"]),
           ({"images": "program"}, ["--images=program"]),
           ({"hide": ["*printf*", "_*"], "max_depth": 6},
            ["--hide=*printf*", "--hide=_*", "--max-depth=6"])]


def check_events(path):
    with parlot.open(path) as run:
        nthreads = len(run.threads)
        for filt, opts in FILTERS:
            rc, want, err = decode("--events", *opts, path)
            got = lines_of(run, **filt)
            ok(rc == 0 and got == want and got,
               "%s %s: %d threads' events = parlot-decode --events %s"
               % (path, filt or "unfiltered", nthreads, " ".join(opts)),
               err or first_difference(got, want))
        # iterators over threads of two traces, interleaved, and one
        # that goes on after the run is closed
        if len(run.traces) >= 2:
            ta, tb = run.traces[0].threads[0], run.traces[-1].threads[0]
            want_ab = list(zip(list(ta.events()), list(tb.events())))
            late = tb.events()
            first = next(late)
            got_ab = list(zip(ta.events(), tb.events()))
            run.close()
            rest = list(late)
            ok(got_ab == want_ab and [first] + rest == list(tb.events()),
               "%s: events() of two traces interleaved (%d pairs), and "
               "an iterator read on after close()" % (path, len(got_ab)))
    with parlot.open(path) as run:
        # call counts: the "call" lines of each thread
        rc, want, _ = decode("--events", "--images=main", path)
        per = {}
        for line in want.splitlines():
            pid, num, kind, _d, _o, fn = line.split("\t")
            if kind == "call":
                key = (pid, int(num))
                per.setdefault(key, {})
                per[key][fn] = per[key].get(fn, 0) + 1
        good = True
        for th in run.threads:
            got = {escaped(k): v for k, v in
                   th.call_counts(images="main").items()}
            good &= got == per.get((th.pid, th.number), {})
        ok(good, "%s: call_counts(images='main') = the call lines per "
           "thread" % path)
        try:
            import numpy
        except ImportError:
            print("# skipped arrays(): no NumPy")
            return
        good, detail = True, ""
        for th in run.threads:
            for filt, _ in FILTERS[:2]:
                a = th.arrays(**filt)
                evs = list(th.events(**filt))
                kinds = numpy.array([e.kind == "return" for e in evs],
                                    numpy.uint8)
                depth = numpy.array([e.depth for e in evs], numpy.uint32)
                index = numpy.array([e.index for e in evs], numpy.uint64)
                names = [a["functions"][f][0] for f in a["function"]]
                same = (numpy.array_equal(a["kind"], kinds)
                        and numpy.array_equal(a["depth"], depth)
                        and numpy.array_equal(a["index"], index)
                        and names == [e.function for e in evs])
                if not same:
                    detail = "%s %s" % (th.label, filt)
                good &= same
        ok(good, "%s: arrays() = the events, unfiltered and images=main"
           % path, detail)


def check_graph(path):
    """Run.call_graph() against the call lines of parlot-decode --events,
    replayed with a stack (unfiltered: the inherited entries are the
    first lines of a forked thread's stream): per
    thread, each function's calls and each (caller, callee) edge's; the
    program's calls, the sum of the threads'."""
    rc, text, err = decode("--events", path)
    with parlot.open(path) as run:
        graph = run.call_graph()
        # a forked child's first entries re-create its parent's stack
        inherited = {(th.pid, th.number): th.inherited for th in run.threads}
    want, stacks = {}, {}
    for line in text.splitlines():
        pid, num, kind, depth, _o, fn = line.split("\t")
        key, depth = (pid, int(num)), int(depth)
        st = stacks.setdefault(key, [])
        g = want.setdefault(key, ({}, {}))
        if kind == "call":
            del st[depth - 1:]
            caller = st[-1] if st else None
            st.append(fn)
            if inherited[key]:
                inherited[key] -= 1
                g[0].setdefault(fn, 0)
                continue
            g[0][fn] = g[0].get(fn, 0) + 1
            g[1][(caller, fn)] = g[1].get((caller, fn), 0) + 1
        else:
            del st[depth - 1:]
    # the graph's labels tell apart same-named functions of two objects
    # ("strcmp #2"); the lines do not: sum over the name
    def name(label):
        return label and escaped(re.sub(r" #[0-9]+$", "", label))
    got = {}
    for th, g in graph["threads"].items():
        key = (th.pid, th.number)
        fns, edges = {}, {}
        for n, v in g["functions"].items():
            fns[name(n)] = fns.get(name(n), 0) + v["calls"]
        for (c, e), v in g["edges"].items():
            k = (name(c), name(e))
            edges[k] = edges.get(k, 0) + v["calls"]
        if fns or edges:
            got[key] = (fns, edges)
    total = sum(v["calls"] for g in graph["threads"].values()
                for v in g["functions"].values())
    bad = [k for k in set(got) | set(want) if got.get(k) != want.get(k)]
    ok(rc == 0 and not bad and want and graph["program"]["calls"] == total,
       "%s: call_graph(): per thread the functions' and the edges' calls "
       "of parlot-decode --events; the program's calls "
       "%d" % (path, graph["program"]["calls"]),
       "%s differ: %s" % (bad[:2], [(got.get(k), want.get(k))
                                    for k in bad[:1]]) if bad else err)


def check_exit(path, statuses):
    with parlot.open(path) as run:
        got = sorted(t.exit_status for t in run.traces)
        want = sorted(int(x) for x in statuses.split(","))
        ok(got == want and all(t.ending == "exit status %d" % t.exit_status
                               for t in run.traces),
           "%s: the processes exited with %s, as the program says"
           % (path, statuses), [(t.command, t.ending) for t in run.traces])


def check_damaged(path):
    rc, want, err = decode("--events", path)
    try:
        parlot.open(path)
        ok(False, "%s: open() raises ParlotError" % path)
    except parlot.ParlotError as e:
        line = "parlot-decode: %s\n" % e
        ok(rc == 1 and err.endswith(line),
           "%s: ParlotError at offset %d, as parlot-decode says: %s"
           % (path, e.offset, e.message), "python: %sdecode: %s"
           % (line, err))
    with parlot.open(path, strict=False) as run:
        got = lines_of(run)
        ok(got == want and run.traces[0].damage is not None,
           "%s: with strict=False, the events up to the damage = "
           "parlot-decode --events" % path, first_difference(got, want))


def check_missing(path):
    try:
        parlot.open(path)
        ok(False, "%s: open() raises ParlotError" % path)
    except parlot.ParlotError as e:
        ok(e.path == path and e.message, "%s: ParlotError: %s" % (path, e))


def check_select(path):
    with parlot.open(path) as everything:
        t = everything.traces[0]
        pid = t.pid
        n = len(t.threads)
    with parlot.open(path, select=pid + ":1") as run:
        got = [(th.pid, th.number) for th in run.threads]
        ok(got == [(pid, 1)] and n >= 1,
           "%s: select='%s:1' keeps that thread alone (of %d)"
           % (path, pid, n), got)
    try:
        parlot.open(path, select="x:y")
        ok(False, "select='x:y' is refused")
    except ValueError as e:
        ok("select" in str(e), "select='x:y' is refused: %s" % e)


def check_example(path, function, script):
    """rank_calls.py: each rank's calls of function = its first thread's
    call lines of parlot-decode --events --images=program."""
    p = subprocess.run([sys.executable, script, path, function],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    rc, want, err = decode("--events", "--images=program", path)
    with parlot.open(path) as run:
        label = {t.pid: th.label for t in run.traces for th in t.threads
                 if th.number == 1}
    calls = {}
    for line in want.splitlines():
        pid, num, kind, _d, _o, fn = line.split("\t")
        if num == "1" and kind == "call" and fn == function:
            calls[label[pid]] = calls.get(label[pid], 0) + 1
    got = {}
    for line in p.stdout.splitlines()[1:]:
        if line.startswith("rank ") or line.startswith("pid "):
            name, _, n = line.rpartition(" ")
            if n.isdigit() and not line.startswith("ranks "):
                got[name.strip()] = int(n)
    ok(p.returncode == 0 and rc == 0 and got == calls and calls,
       "%s: rank_calls.py %s = the call lines of each rank (%s)"
       % (path, function, calls), p.stdout + p.stderr)


def check_costs(path):
    """--collect-insns and --collect-time: arrays()' insns add up to each
    thread's insns in parlot-decode --xml, call_graph()'s functions' self
    instructions to the program's; times() are ordered and within the
    thread's events."""
    import xml.etree.ElementTree as ET
    root = ET.fromstring(decode("--xml", "--images=all", path)[1])
    pid_of = {p.get("id"): p.get("pid") for p in root.iter("process")}
    want = {(pid_of[t.get("process")], int(t.get("number"))): int(t.get("insns"))
            for t in root.iter("thread")}
    prog = int(root.find("program").get("insns"))
    got, stamps_ok, nstamps = {}, True, 0
    with parlot.open(path) as run:
        for tr in run.traces:
            for th in tr.threads:
                a = th.arrays(images="all")
                got[(str(tr.pid), th.number)] = int(a["insns"].sum())
                st = th.times()
                nstamps += len(st)
                stamps_ok &= (len(st) >= 2 and all(
                    x[0] <= y[0] for x, y in zip(st, st[1:]))
                    and st[-1][0] <= th.nevents)
        g = run.call_graph(images="all")
    selfs = sum(f["self_insns"] for f in g["program"]["functions"].values())
    ok(got == want, "%s: arrays()' insns add up to --xml's insns of each "
       "of %d threads" % (path, len(want)), "%s vs %s" % (got, want))
    ok(selfs <= g["program"]["insns"] == prog and selfs > 0.99 * prog,
       "%s: call_graph()'s insns = --xml's (%d), its functions' self "
       "instructions add up to it" % (path, prog),
       "self %d, graph %d, xml %d" % (selfs, g["program"]["insns"], prog))
    ok(stamps_ok and nstamps > 0, "%s: times(): %d stamps, ordered, "
       "within each thread's events" % (path, nstamps))


DECODE = sys.argv[1]
for case in sys.argv[2:]:
    kind, _, rest = case.partition(":")
    if kind == "exit":
        path, _, arg = rest.rpartition(":")
        check_exit(path, arg)
    elif kind == "example":
        path, function, script = rest.split(":")
        check_example(path, function, script)
    else:
        {"events": check_events, "damaged": check_damaged,
         "graph": check_graph, "costs": check_costs,
         "missing": check_missing, "select": check_select}[kind](rest)
print("# %d tests, %d failed" % (count, failures))
sys.exit(1 if failures else 0)
