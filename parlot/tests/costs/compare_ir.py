#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare the instruction counts of a ParLoT trace made with
--collect-insns (its parlot-decode --callgrind export) with a Callgrind
profile of the same program.

usage: compare_ir.py [--tolerance PCT] [--no-inclusive]
                     [--no-inclusive-of FN[,FN...]] PARLOT_EXPORT OBJECTS
                     CALLGRIND_OUT...

OBJECTS: comma-separated basenames of the objects whose functions are
compared (the program's own).  Several Callgrind profiles (one per MPI
rank) add up, as the export adds up its traces.  --no-inclusive-of leaves
out the inclusive figures of the functions named (a main that creates
and joins threads: what waiting costs inside the C library depends on
the scheduling).

Per function of those objects, by name:
  - self Ir: the "fn=" cost lines;
  - inclusive Ir: the calls into it from outside its call cycle (the
    "calls=" lines' costs; a call from within the cycle is already inside
    an outer call), for functions that are not part of a cycle of
    several functions.
Where the rules differ, the Callgrind side is brought to ParLoT's (see
docs/costs.md): a PLT stub, which Callgrind counts as a function of its
own ("0x..." or "*@plt"), is the caller's code for ParLoT, so each stub's
self Ir goes to its callers in proportion to their calls to it; Callgrind
shows the functions around main as "(below main)".
Prints one line per function compared and exits 1 if a self or inclusive
figure differs by more than PCT percent (default 1) or a function is
missing on one side; 0 otherwise."""

import collections
import os
import re
import sys

BELOW_MAIN = {"_start", "__libc_start_call_main", "__libc_start_main",
              "(below main)"}


def parse(path):
    """(self {(ob, fn): Ir}, calls {(ob, fn, cob, cfn): [calls, Ir]})."""
    names = {"ob": {}, "fl": {}, "fn": {}}
    kind = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl",
            "cfi": "fl", "cfl": "fl", "fn": "fn", "cfn": "fn"}
    ob = fn = ""
    cob = cfn = None
    ir_col = None
    npos = 1            # position columns before the costs
    pending = None
    selfc = collections.Counter()
    calls = collections.defaultdict(lambda: [0, 0])
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("positions:"):
                npos = len(line.split()[1:])
                continue
            if line.startswith("events:"):
                ev = line.split()[1:]
                ir_col = ev.index("Ir") if "Ir" in ev else None
                continue
            m = re.match(r"^(ob|cob|fl|fi|fe|cfi|cfl|fn|cfn)=(.*)$", line)
            if m:
                key, val = m.group(1), m.group(2)
                mm = re.match(r"^\((\d+)\)(?: (.*))?$", val)
                if mm:
                    tab = names[kind[key]]
                    if mm.group(2) is not None:
                        tab[mm.group(1)] = mm.group(2)
                    val = tab.get(mm.group(1), val)
                val = re.sub(r"'\d+$", "", val)   # callgrind's recursion levels
                if key == "ob":
                    ob = os.path.basename(val)
                elif key == "fn":
                    fn, cob, cfn = val, None, None
                elif key == "cob":
                    cob = os.path.basename(val)
                elif key == "cfn":
                    cfn = val
                continue
            m = re.match(r"^calls=(\d+)", line)
            if m:
                pending = (int(m.group(1)), (ob, fn, cob or ob, cfn))
                cob = cfn = None
                continue
            if ir_col is None or not line or not (line[0].isdigit()
                                                  or line[0] in "+-*"):
                continue
            nums = line.split()[npos:]
            ir = int(nums[ir_col]) if ir_col < len(nums) else 0
            if pending:
                n, key = pending
                calls[key][0] += n
                calls[key][1] += ir
                pending = None
            else:
                selfc[(ob, fn)] += ir
    if ir_col is None:
        sys.exit("compare_ir: %s has no Ir event" % path)
    return selfc, calls


def node(ob, fn):
    return ("", "(below main)") if fn in BELOW_MAIN else (ob, fn)


def is_stub(ob, fn):
    return fn.startswith("0x") or fn.endswith("@plt") or fn == "???"


def normalise(selfc, calls, fold_stubs):
    """Names as both sides share them; with fold_stubs, PLT stubs' own Ir
    goes to their callers (ParLoT's rule)."""
    s = collections.Counter()
    c = collections.defaultdict(lambda: [0, 0])
    for (ob, fn), v in selfc.items():
        s[node(ob, fn)] += v
    for (ob, fn, cob, cfn), (n, ir) in calls.items():
        e = c[node(ob, fn) + node(cob, cfn)]
        e[0] += n
        e[1] += ir
    if fold_stubs:
        for stub in [k for k in s if is_stub(*k)]:
            into = {k: v for k, v in c.items() if k[2:] == stub}
            total = sum(v[0] for v in into.values())
            cost = s.pop(stub)
            for k, v in into.items():
                if total:
                    s[k[:2]] += cost * v[0] // total
                # ParLoT has no stub between the caller and its callee:
                # the caller's edge to the stub's callee costs the same
                del c[k]
            for k, v in list(c.items()):
                if k[:2] == stub:
                    del c[k]
                    for ck, cv in into.items():
                        if total:
                            share = c[ck[:2] + k[2:]]
                            share[0] += v[0] * cv[0] // total
                            share[1] += v[1] * cv[0] // total
    return s, c


def cycles(c):
    """Per node, the set of nodes in its strongly connected component."""
    succ = collections.defaultdict(set)
    for k in c:
        succ[k[:2]].add(k[2:])
    index, low, stack, on, comp, n = {}, {}, [], set(), {}, [0]
    sys.setrecursionlimit(100000)

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            members = set()
            while True:
                w = stack.pop()
                on.discard(w)
                members.add(w)
                if w == v:
                    break
            for w in members:
                comp[w] = members
    for v in list(succ):
        if v not in index:
            visit(v)
    return comp


def inclusive(s, c):
    comp = cycles(c)
    out = {}
    for f in s:
        scc = comp.get(f, {f})
        if len(scc) > 1:
            continue            # mutual recursion: calls nest in calls
        out[f] = sum(v[1] for k, v in c.items()
                     if k[2:] == f and k[:2] not in scc)
    return out


def main():
    args = sys.argv[1:]
    tol, incl_too, no_incl = 1.0, True, set()
    while args and args[0].startswith("--"):
        if args[0] == "--tolerance":
            tol = float(args[1])
            args = args[2:]
        elif args[0] == "--no-inclusive":
            incl_too = False
            args = args[1:]
        elif args[0] == "--no-inclusive-of":
            no_incl = set(args[1].split(","))
            args = args[2:]
        else:
            sys.exit(__doc__)
    if len(args) < 3:
        sys.exit(__doc__)
    objs = set(args[1].split(","))
    ps, pc = normalise(*parse(args[0]), fold_stubs=False)
    cs = collections.Counter()
    cc = collections.defaultdict(lambda: [0, 0])
    for path in args[2:]:
        s, c = parse(path)
        for k, v in s.items():
            cs[k] += v
        for k, v in c.items():
            cc[k][0] += v[0]
            cc[k][1] += v[1]
    cs, cc = normalise(cs, cc, fold_stubs=True)
    pi, ci = inclusive(ps, pc), inclusive(cs, cc)

    bad = exact = compared = 0
    for f in sorted(set(k for k in set(ps) | set(cs) if k[0] in objs)):
        rows = [("self", ps.get(f), cs.get(f))]
        if incl_too and f in pi and f in ci and f[1] not in no_incl:
            rows.append(("inclusive", pi[f], ci[f]))
        for what, p, c in rows:
            compared += 1
            if p is None or c is None:
                print("MISSING %s %s:%s: ParLoT %s, Callgrind %s"
                      % (what, f[0], f[1], p, c))
                bad += 1
                continue
            diff = abs(p - c)
            off = 100.0 * diff / max(c, 1)
            ok = off <= tol
            exact += diff == 0
            bad += not ok
            print("%s %s %s:%s: ParLoT %d, Callgrind %d (%.3f%%)"
                  % ("ok  " if ok else "DIFF", what, f[0], f[1], p, c, off))
    print("compared %d figures of %d functions: %d exact, %d beyond %.2f%%"
          % (compared, len([f for f in ps if f[0] in objs]), exact, bad, tol))
    return 1 if bad or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
