#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Oracle for parlot-annotate reports (decoder/tests/test_annotate.sh).

usage: oracle.py REPORT LISTING... [--inherited PID:THREAD:K]...
                 [--select PID:THREAD]... [--threshold PCT] [--top N]
                 [--tree none|caller|calling|both] [--group N]
(the options of the parlot-annotate run that wrote REPORT; with --group,
the listings are those of group N's threads, and the header, which
describes all the traces read, is not checked)

The listings are make_trace's: the exact events it encoded, one per line,
PID THREAD call|return DEPTH OBJECT FUNCTION (parlot-decode --events
format).  From them alone this recomputes what the report must say -- the
header's event counts, the program totals, each object's calls, calls from
outside and functions, each function's calls and inclusive events, each
call edge's calls, inclusive calls and inclusive events, and how long each
list is under the threshold and --top -- and compares with the report,
cell for cell (numbers with separators and percentages as printed).

Definitions (docs/parlot-annotate.1), computed here by replaying each
thread's events on a stack, independently of the decoder's code:
  - a call of a thread's first K entries (--inherited) re-creates a forked
    child's stack: an event, not a call, and no edge;
  - inclusive events of a function: the events from its outermost call
    to that call's return, both included (a frame still open at the end
    of the stream counts up to the end);
  - an edge caller > callee (caller "(no caller)" at depth 1): its calls,
    the calls made within them (them included), the events from each
    call to its return -- the last two for the edge's outermost calls
    only, not again for the calls of the same edge nested in them
    (recursion).
Function names must be unique per object (make_trace --functions 33 or
fewer), since the listing cannot tell apart two functions of the same
object and name.

Exit status 0 if the report agrees, 1 with the differences on stdout."""

import re
import sys
from collections import defaultdict

NO_CALLER = None


def commify(v):
    return f"{v:,}"


def cell(v, base):
    """A cell as parlot-annotate (and callgrind_annotate) prints it."""
    if v == 0:
        return "0" + " " * 9
    x = float(v) * 100.0 / float(base) if base else 0.0
    return commify(v) + (" (%5.2f%%)" % x if x < 99.995 else " (%5.1f%%)" % x)


class Model:
    def __init__(self):
        self.events = self.calls = self.returns = 0
        self.fn_calls = defaultdict(int)
        self.fn_incl = defaultdict(int)
        # (caller, callee) -> [calls, incl_calls, incl_events]
        self.edges = defaultdict(lambda: [0, 0, 0])

    def thread(self, evs, inherited):
        stack = []      # [fn, edge key or None, ev0, calls before it]
        onstack = defaultdict(int)
        onedge = defaultdict(int)
        ev = calls = 0

        def close(fr, span):
            fn, key, _, calls0 = fr
            if key is not None:
                onedge[key] -= 1
                if onedge[key] == 0:
                    e = self.edges[key]
                    e[1] += calls - calls0
                    e[2] += span
            onstack[fn] -= 1
            if onstack[fn] == 0:
                self.fn_incl[fn] += span

        for kind, depth, fn in evs:
            if kind == "call":
                if len(stack) + 1 != depth:
                    raise SystemExit(f"listing: bad depth {depth}")
                key = None
                if inherited > 0:
                    inherited -= 1
                else:
                    key = (stack[-1][0] if stack else NO_CALLER, fn)
                    self.edges[key][0] += 1
                    onedge[key] += 1
                    self.fn_calls[fn] += 1
                    calls += 1
                stack.append([fn, key, ev, calls - (key is not None)])
                onstack[fn] += 1
                if fn not in self.fn_incl:
                    self.fn_incl[fn] = 0
            else:
                fr = stack.pop()
                if fr[0] != fn or len(stack) + 1 != depth:
                    raise SystemExit("listing: return does not match")
                close(fr, ev - fr[2] + 1)
                self.returns += 1
            ev += 1
        while stack:
            fr = stack.pop()
            close(fr, ev - fr[2])
        self.events += ev
        self.calls += calls


def load(listings, inherited, select):
    threads = {}
    order = []
    for path in listings:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            for line in f:
                pid, th, kind, depth, obj, name = line.rstrip("\n").split("\t")
                key = (path, pid, th)
                if select and f"{pid}:{th}" not in select:
                    continue
                if key not in threads:
                    threads[key] = []
                    order.append(key)
                threads[key].append((kind, int(depth), (obj, name)))
    m = Model()
    for key in order:
        m.thread(threads[key], inherited.get(f"{key[1]}:{key[2]}", 0))
    return m


# ---- Parsing the report -------------------------------------------------

RULE = "-" * 80
NUM = r"(\d[\d,]*)"
CELL = r"(\d[\d,]*(?: \([ \d.]+%\))?)"


def sections(text):
    """{column head line: [body lines]} for each ruled table, and the
    header lines."""
    lines = text.split("\n")
    out, header = {}, []
    i = 0
    if lines and lines[0] == RULE:
        i = 1
        while i < len(lines) and lines[i] != RULE:
            header.append(lines[i])
            i += 1
    while i < len(lines):
        if lines[i] == RULE and i + 2 < len(lines) and lines[i + 2] == RULE:
            head = lines[i + 1]
            body = []
            i += 3
            while i < len(lines) and lines[i] != RULE:
                body.append(lines[i])
                i += 1
            out[" ".join(head.split())] = body
        else:
            i += 1
    return header, out


def split_cells(line, ncols):
    """The ncols cells of a row and the rest of the line."""
    m = re.match(r"^ *" + r" +".join([CELL] * ncols) + r"  (.*)$", line)
    if not m:
        return None
    return [c for c in m.groups()[:ncols]], m.group(ncols + 1)


def parse_fn(label):
    """'name [object]' -> (object, name)."""
    m = re.match(r"^(.*) \[(.*)\]$", label)
    return (m.group(2), m.group(1)) if m else None


def parse_edge(label):
    """'name (Nx) [object]' or '(no caller) (Nx)', either followed by
    ' (cycle)' -> (fn, N, on a cycle)."""
    cyc = label.endswith(" (cycle)")
    if cyc:
        label = label[:-len(" (cycle)")]
    m = re.match(r"^\(no caller\) \(" + NUM + r"x\)$", label)
    if m:
        return NO_CALLER, int(m.group(1).replace(",", "")), cyc
    m = re.match(r"^(.*) \(" + NUM + r"x\) \[(.*)\]$", label)
    if not m:
        return None
    return (m.group(3), m.group(1)), int(m.group(2).replace(",", "")), cyc


def cycle_edges(edges):
    """The edges (caller, callee) that lie on a call cycle: the caller is
    reachable from the callee (a function calling itself included)."""
    succ = {}
    for caller, callee in edges:
        if caller != NO_CALLER:
            succ.setdefault(caller, set()).add(callee)
    out = set()
    for caller, callee in edges:
        if caller == NO_CALLER:
            continue
        seen, todo = {callee}, [callee]
        while todo:
            f = todo.pop()
            if f == caller:
                out.add((caller, callee))
                break
            for g in succ.get(f, ()):
                if g not in seen:
                    seen.add(g)
                    todo.append(g)
    return out


LEGEND = ["(cycle): a caller or callee line within a call cycle (recursion); "
          "its inclusive",
          "figures count each outermost call once, not the calls nested in it "
          "again."]


def num(c):
    return int(c.split(" ")[0].replace(",", ""))


def main(argv):
    report, listings, inherited, select = None, [], {}, set()
    threshold, top, tree, group = 99.0, 0, "", 0
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--inherited", "--select", "--threshold", "--top", "--tree",
                 "--group"):
            v = argv[i + 1]
            i += 2
            if a == "--inherited":
                pid, th, k = v.split(":")
                inherited[f"{pid}:{th}"] = int(k)
            elif a == "--select":
                select.add(v)
            elif a == "--threshold":
                threshold = float(v)
            elif a == "--group":
                group = int(v)
            elif a == "--tree":
                tree = {"none": "", "caller": "<", "calling": ">",
                        "both": "<>"}[v]
            else:
                top = int(v)
            continue
        if report is None:
            report = a
        else:
            listings.append(a)
        i += 1
    m = load(listings, inherited, select)
    with open(report, encoding="utf-8", errors="surrogateescape") as f:
        header, secs = sections(f.read())
    errors = []

    def want(what, got, exp):
        if got == exp:
            return
        if isinstance(got, dict) and isinstance(exp, dict):
            keys = sorted({k for k in set(got) | set(exp)
                           if got.get(k) != exp.get(k)}, key=repr)
            got = {k: got.get(k) for k in keys[:3]}
            exp = {k: exp.get(k) for k in keys[:3]}
        elif isinstance(got, list) and isinstance(exp, list):
            k = next((i for i, (a, b) in enumerate(zip(got, exp)) if a != b),
                     min(len(got), len(exp)))
            what += f" (lengths {len(got)}, {len(exp)}; from item {k})"
            got, exp = got[k:k + 3], exp[k:k + 3]
        errors.append(f"{what}: report has {got!r}, expected {exp!r}")

    # header
    inh = m.events - m.calls - m.returns
    ev_line = (f"Events:           {commify(m.events)} ({commify(m.calls)} "
               f"calls, {commify(m.returns)} returns"
               + (f", {commify(inh)} inherited entries" if inh else "") + ")")
    if not group:
        want("header Events line",
             [h for h in header if h.startswith("Events:")], [ev_line])

    # totals
    body = secs.get("Calls Events")
    if body is None:
        errors.append("no totals table")
    else:
        want("totals", body[0], f"{cell(m.calls, m.calls)}  "
             f"{cell(m.events, m.events)}  "
             + (f"GROUP {group} TOTALS" if group else "PROGRAM TOTALS"))

    # objects
    objs = defaultdict(lambda: [0, 0, 0])
    for fn in m.fn_incl:
        objs[fn[0]][0] += m.fn_calls.get(fn, 0)
        objs[fn[0]][2] += 1
    for (caller, callee), e in m.edges.items():
        if caller is NO_CALLER or caller[0] != callee[0]:
            objs[callee[0]][1] += e[0]
    exp_rows = sorted(objs.items(), key=lambda kv: (-kv[1][0], kv[0]))
    body = secs.get("Calls From outside Functions object")
    if body is None:
        errors.append("no objects table")
    else:
        got = []
        for line in body:
            if not line:
                continue
            m2 = re.match(r"^ *" + CELL + r" +" + CELL + r" +" + NUM
                          + r"  (.*)$", line)
            if not m2:
                errors.append(f"objects: bad line {line!r}")
                continue
            got.append((m2.group(4), [num(m2.group(1)), num(m2.group(2)),
                                      int(m2.group(3).replace(",", ""))],
                        m2.group(1), m2.group(2)))
        want("objects (name, calls, from outside, functions)",
             [(g[0], g[1]) for g in got], [(k, v) for k, v in exp_rows])
        for g in got:
            want(f"object {g[0]} cells", (g[2], g[3]),
                 (cell(objs[g[0]][0], m.calls),
                  cell(objs[g[0]][1], m.calls)))

    # the two lists
    fns = {fn: (m.fn_calls.get(fn, 0), m.fn_incl[fn]) for fn in m.fn_incl}
    h = round(threshold * 100)
    for sort_incl, head in ((0, "Calls Inclusive events function [object]"),
                            (1, "Inclusive events Calls function [object]")):
        body = secs.get(head)
        if body is None:
            errors.append(f"no list '{head}'")
            continue
        name = "by inclusive events" if sort_incl else "by calls"
        vals = sorted(fns.values(), key=lambda v: (-v[sort_incl],
                                                   -v[1 - sort_incl]))
        # the threshold rule, in integers (PCT in hundredths)
        if h >= 10000:
            n = len(vals)
        elif not sort_incl:
            n, cum = 0, 0
            while n < len(vals) and cum * 10000 < h * m.calls:
                cum += vals[n][0]
                n += 1
        else:
            n = 0
            while n < len(vals) and vals[n][1] * 10000 > (10000 - h) * m.events:
                n += 1
        if top:
            n = min(n, top)
        bases = (m.events, m.calls) if sort_incl else (m.calls, m.events)
        shown, blocks, pending = [], [], []
        cycles = cycle_edges(m.edges) if tree else set()
        # the legend ends the list when a cycle exists and trees are shown
        legend = [l for l in body if l in LEGEND]
        want(f"{name}: cycle legend", legend, LEGEND if cycles else [])
        body = [l for l in body if l not in LEGEND]
        for line in body:
            if not line:
                continue
            sc = split_cells(line, 2)
            if not sc:
                errors.append(f"{name}: bad line {line!r}")
                continue
            cells, label = sc
            if label.startswith("< ") or label.startswith(">   "):
                parsed = parse_edge(label[2:].lstrip())
                if not parsed:
                    errors.append(f"{name}: bad tree line {line!r}")
                elif label[0] == "<":
                    pending.append(parsed + (cells,))
                elif not blocks:
                    errors.append(f"{name}: callee line first: {line!r}")
                else:
                    blocks[-1][">"].append(parsed + (cells,))
                continue
            if tree and not label.startswith("*  "):
                errors.append(f"{name}: no '*' on {line!r}")
            fn = parse_fn(label[3:] if tree else label)
            if fn not in fns:
                errors.append(f"{name}: unknown function {label!r}")
                pending = []
                continue
            c, e = fns[fn]
            exp = (e, c) if sort_incl else (c, e)
            want(f"{name}: cells of {fn}", cells,
                 [cell(exp[0], bases[0]), cell(exp[1], bases[1])])
            shown.append(exp)
            blocks.append({"fn": fn, "<": pending, ">": []})
            pending = []
        if pending:
            errors.append(f"{name}: caller lines without a function")
        want(f"{name}: values in order", shown,
             [(v[1], v[0]) if sort_incl else v for v in vals[:n]])
        # tree lines: every caller (<) or callee (>) edge, with its cells
        for blk in blocks:
            fn = blk["fn"]
            for kind in "<>":
                if kind not in tree:
                    want(f"{name}: '{kind}' lines of {fn}", blk[kind], [])
                    continue
                exp = {}
                for (caller, callee), e in m.edges.items():
                    if (callee if kind == "<" else caller) == fn:
                        other = caller if kind == "<" else callee
                        v = (e[2], e[1]) if sort_incl else (e[1], e[2])
                        exp[other] = (e[0], [cell(v[0], bases[0]),
                                             cell(v[1], bases[1])],
                                      (caller, callee) in cycles)
                got = {o: (x, c, cy) for o, x, cy, c in blk[kind]}
                want(f"{name}: '{kind}' lines of {fn}", got, exp)
    for e in errors[:20]:
        print(e)
    if len(errors) > 20:
        print(f"... {len(errors) - 20} more")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
