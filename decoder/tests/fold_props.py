# SPDX-License-Identifier: MIT
"""Property test of loop folding (parlot-decode --replay --loops).

    fold_props.py SCRIPT_TRACE PARLOT_DECODE WORKDIR [CASES] [SEED]

Generates random loop nests, writes each as a trace (script_trace),
folds it with parlot-decode --replay --loops and checks the folded text
against what the generator knows:

  - one loop of N iterations of a body of k calls (each with a few
    callees of its own), one iteration i changed: a call added or removed
    inside the body, a call replaced by another, or a call whose callees
    differ.  The text must hold the loop with its true count N and a
    single variant with its true index i ("N x {", "iteration i instead");
  - the same loop nested in an outer loop of M iterations, the change in
    inner iteration i of outer iteration j: the outer loop M x {...} with
    variant j, inside it the inner loop with variant i;
  - a periodic body: an outer loop of M periods, each P iterations of the
    body then an extra call (and, every other period, a reduction): the
    text must be loops of loops with the generator's counts, no variant,
    and at most a constant number of lines more than the nest's size;
  - in every case, expanding the loops gives back exactly the calls.

The changes that cannot be told apart from another reading by the calls
alone are not generated: a call added at the very start or end of an
iteration (is it the end of iteration i or the start of i+1?), and a
single-call body replaced by another call (an iteration replaced, or a
call added and an iteration missing?).  Exit status 0 if every case
passed; the first failures are printed."""

import random
import re
import subprocess
import sys

OBJ = "/opt/app/nest"


class Nest:
    """A call tree being written as a script_trace script."""

    def __init__(self):
        self.fns = {}
        self.lines = []
        self.calls = []          # (depth, name), in order

    def fn(self, name):
        self.fns.setdefault(name, len(self.fns))
        return name

    def call(self, tree, depth):
        """tree: (name, [subtrees])."""
        name, kids = tree
        self.fn(name)
        self.calls.append((depth, name))
        self.lines.append("call 1 %s" % name)
        for k in kids:
            self.call(k, depth + 1)
        self.lines.append("return 1")

    def script(self):
        head = ["process pid=700 exe=%s" % OBJ, "object " + OBJ]
        head += ["function %s %s" % (f, OBJ) for f in self.fns]
        return "\n".join(head + ["thread 1"] + self.lines
                         + ["exit 1", "end"]) + "\n"


def body(rng, k, tag):
    """k calls, each with 0-2 leaf callees."""
    out = []
    for c in range(k):
        kids = [("%s_leaf%d_%d" % (tag, c, x), [])
                for x in range(rng.randint(0, 2))]
        out.append(("%s_f%d" % (tag, c), kids))
    return out


def change(rng, b, kind, tag):
    """The body b changed by kind (a copy)."""
    b = [(n, list(kids)) for n, kids in b]
    k = len(b)
    if kind == "callee":
        p = rng.randrange(k)
        b[p] = (b[p][0], b[p][1] + [("%s_deep" % tag, [])])
    elif kind == "insert":
        b.insert(rng.randint(1, k - 1), ("%s_new" % tag, []))
    elif kind == "delete":
        del b[rng.randint(1, k - 2)]
    elif kind == "replace":
        b[rng.randrange(k)] = ("%s_other" % tag, [])
    return b


def kinds_for(k):
    out = ["callee"]
    if k >= 2:
        out += ["insert", "replace"]
    if k >= 3:
        out.append("delete")
    return out


# ---- reading the folded text ------------------------------------------------

LINE = re.compile(r"^ {0,10}(\d*) +(\d+)  ( *)(.*)$")


def parse(text):
    """The folded lines as a tree: ("call", name, kids) | ("loop", n, body,
    variants {i: body})."""
    rows = []
    for line in text.splitlines():
        if line.startswith("==") or line.startswith("#"):
            continue
        m = LINE.match(line)
        if not m:
            raise ValueError("unreadable line %r" % line)
        rows.append((len(m.group(3)) // 2, m.group(4)))
    pos = [0]

    def items(indent):
        out = []
        while pos[0] < len(rows):
            ind, t = rows[pos[0]]
            if ind < indent or t == "}" or t.startswith("iteration "):
                return out
            pos[0] += 1
            m = re.match(r"(\d+) \u00d7 \{$", t)
            if m:
                lp = ["loop", int(m.group(1)), items(ind + 1), {}]
                while pos[0] < len(rows) and rows[pos[0]][1].startswith(
                        "iteration "):
                    it = int(re.match(r"iteration (\d+) instead",
                                      rows[pos[0]][1]).group(1))
                    pos[0] += 1
                    lp[3][it] = items(ind + 2)
                    pos[0] += 1              # its "}"
                pos[0] += 1                  # the loop's "}"
                out.append(lp)
            else:
                out.append(["call", t, items(ind + 1)])
        return out

    return items(0)


def expand(items, depth=1):
    out = []
    for it in items:
        if it[0] == "call":
            out.append((depth, it[1]))
            out += expand(it[2], depth + 1)
        else:
            for i in range(1, it[1] + 1):
                out += expand(it[3].get(i, it[2]), depth)
    return out


def loops_of(items):
    """Every loop, depth first, as (count, variant indices)."""
    out = []
    for it in items:
        if it[0] == "loop":
            out.append((it[1], sorted(it[3])))
            out += loops_of(it[2])
            for v in it[3].values():
                out += loops_of(v)
        else:
            out += loops_of(it[2])
    return out


def lines_of(text):
    return sum(1 for l in text.splitlines()
               if not l.startswith("==") and not l.startswith("#"))


# ---- the cases ----------------------------------------------------------------

def case_single(rng, tag):
    k = rng.randint(1, 5)
    n = rng.randint(6, 40)
    i = rng.randint(3, n - 2)
    kind = rng.choice(kinds_for(k))
    b = body(rng, k, tag)
    v = change(rng, b, kind, tag)
    tree = ("main", [("outer", [c for it in range(1, n + 1)
                                for c in (v if it == i else b)])])
    want = [(n, [i])]
    return tree, want, "%d x body of %d, %s at iteration %d" % (n, k, kind, i)


def case_nested(rng, tag):
    k = rng.randint(2, 4)
    n = rng.randint(6, 12)
    m = rng.randint(6, 10)
    i = rng.randint(3, n - 2)
    j = rng.randint(3, m - 2)
    kind = rng.choice(kinds_for(k))
    b = body(rng, k, tag)
    v = change(rng, b, kind, tag)
    pre = ("%s_pre" % tag, [])
    outer = []
    for jt in range(1, m + 1):
        outer.append(pre)
        for it in range(1, n + 1):
            outer += v if (jt, it) == (j, i) else b
    tree = ("main", [("outer", outer)])
    # the outer loop with variant j; the inner loop, in its body and in the
    # variant, n x with variant i in the variant only
    want = [(m, [j]), (n, []), (n, [i])]
    return tree, want, "%d x { pre; %d x body of %d }, %s at %d.%d" % (
        m, n, k, kind, j, i)


def case_periodic(rng, tag):
    k = rng.randint(1, 3)
    p = rng.randint(2, 6)
    m = rng.randint(3, 12)
    b = body(rng, k, tag)
    extra = ("%s_extra" % tag, [])
    red = ("%s_reduce" % tag, [])
    seq = []
    for period in range(1, 2 * m + 1):
        for it in range(p):
            seq += b
        seq.append(extra)
        if period % 2 == 0:
            seq.append(red)
    tree = ("main", [("outer", seq)])
    want = [(m, []), (2, []), (p, [])]
    # main, outer, three loops (open and close), the body, extra, reduce
    size = 2 + 6 + k + sum(len(c[1]) for c in b) + 2
    return tree, want, "%d x { 2 x { %d x body of %d; extra }; reduce }" % (
        m, p, k), size


def run_case(script_trace, decode, work, n, rng):
    kind = n % 3
    tag = "c%d" % n
    if kind == 0:
        tree, want, what = case_single(rng, tag)
        size = None
    elif kind == 1:
        tree, want, what = case_nested(rng, tag)
        size = None
    else:
        tree, want, what, size = case_periodic(rng, tag)
    nest = Nest()
    nest.call(tree, 1)
    sp, tp = "%s/n%d.script" % (work, n), "%s/n%d.trace" % (work, n)
    with open(sp, "w") as f:
        f.write(nest.script())
    r = subprocess.run([script_trace, sp, tp], capture_output=True, text=True)
    if r.returncode:
        return "%s: script_trace: %s" % (what, r.stderr.strip())
    r = subprocess.run([decode, "--replay", "--loops", "--images=all", tp],
                       capture_output=True, text=True)
    if r.returncode:
        return "%s: parlot-decode exit %d: %s" % (what, r.returncode,
                                                   r.stderr.strip())
    items = parse(r.stdout)
    if expand(items) != nest.calls:
        return "%s: the folded text does not expand to the calls" % what
    got = loops_of(items)
    if got != want:
        return "%s: loops %r, expected %r\n%s" % (what, got, want,
                                                  r.stdout[:1500])
    if size is not None and lines_of(r.stdout) > size:
        return "%s: %d lines for a nest of size %d\n%s" % (
            what, lines_of(r.stdout), size, r.stdout[:1500])
    return None


def main():
    script_trace, decode, work = sys.argv[1:4]
    cases = int(sys.argv[4]) if len(sys.argv) > 4 else 150
    rng = random.Random(int(sys.argv[5]) if len(sys.argv) > 5 else 1)
    bad = []
    for n in range(cases):
        why = run_case(script_trace, decode, work, n, rng)
        if why:
            bad.append(why)
    for why in bad[:3]:
        print(why)
    print("%d of %d folding cases as generated" % (cases - len(bad), cases))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
