#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of parlot-decode --callgrind on synthetic traces written by
# make_trace.
#
#   decoder/tests/test_callgrind.sh [-q]
#
# Uses $PARLOT_DECODE and $MAKE_TRACE if set, else builds both (with $CC,
# default cc) from the source tree into a temporary directory; runs
# $CALLGRIND_ANNOTATE if set, else callgrind_annotate from PATH (those
# checks are skipped, and said so, if there is none).  Needs python3.
#
# The oracle is an independent Python model: it replays make_trace's own
# listing of the events it encoded (with function IDs, --ids 1; names
# from its --table) and counts, per caller -> callee edge, the calls and
# the calls in those calls' subtrees (them included), and per function the
# times it was called; a forked thread's inherited frames are callers but
# not calls.
#
# What is checked, for several seeds, codecs, a forked thread, a deep
# recursion, two functions with the same object and name ("f #2"), names
# needing escapes, names as recorded (--no-demangle), two traces read
# together and a trace without calls:
#  - the export parses as the Callgrind format: "# callgrind format" and
#    "version: 1" first, a creator, pid: only for a single process, cmd:,
#    events: Calls last in the header, summary: and totals: equal to the
#    calls; every line is a known kind; name compression resolves
#    ("(id) name" once, then "(id)"), ob=/cob=/fn=/cfn= give each call
#    its caller and callee (object, name);
#  - per function, the self cost is the model's call count; per edge, the
#    calls= count and the inclusive cost are the model's;
#  - callgrind_annotate exits 0 without warnings, with and without
#    --inclusive=yes and --tree=both; its PROGRAM TOTALS is the number of
#    calls; every function line (--threshold=100) shows the model's
#    number: self calls, or with --inclusive=yes what callgrind_annotate
#    computes from the calls lines (the inclusive cost of the calls to the
#    function, or for a function nobody calls, its self cost plus its
#    calls' inclusive costs), functions of the same name in different
#    objects being one for it, as for callgrind's own profiles.
# Exit status: 0 if all passed, 1 otherwise.

. "$(dirname "$0")/testlib.sh"

command -v python3 >/dev/null 2>&1 || { echo "# python3 is needed"; exit 1; }

need_tool parlot-decode make_trace
ANNOTATE=${CALLGRIND_ANNOTATE:-$(command -v callgrind_annotate 2>/dev/null)}
if [ -n "$ANNOTATE" ] && [ ! -x "$ANNOTATE" ]; then
   ANNOTATE="perl $ANNOTATE"      # e.g. a Valgrind build tree's, not +x
fi
[ -n "$ANNOTATE" ] || echo "# no callgrind_annotate: its checks are skipped"


cat >"$tmp/model.py" <<'EOF'
"""Check a --callgrind export against make_trace listings.

usage: model.py EXPORT DEMANGLE NPROCS TABLE LISTING FORK [...]
           [--annotate SELF_OUT INCL_OUT]
Prints what differs and exits 1, or exits 0.  With --annotate, also
checks callgrind_annotate's function lines (self, then --inclusive=yes)."""
import re
import sys
from collections import defaultdict


def model(demangle, runs):
    """Per function (object, label) its calls; per edge (caller, callee)
    [calls, inclusive calls]; the total of calls."""
    selfc, edges, total = defaultdict(int), {}, 0
    for table, listing, fork in runs:
        fn, seen = {}, {}
        with open(table, 'rb') as f:
            for line in f:
                fid, obj, raw, shown = line.rstrip(b'\n').split(b'\t')
                dup = seen.get((obj, raw), 0)     # the k-th by address
                seen[(obj, raw)] = dup + 1
                label = shown if demangle else raw
                if dup:
                    label += b' #%d' % (dup + 1)
                fn[int(fid)] = (obj, label)
        # per thread: frames [function, edge or None, calls before it]
        stack, thread, inherited, calls = [], None, 0, 0

        def close(frame):
            if frame[1] is not None:
                edges[frame[1]][1] += calls - frame[2]
        with open(listing, 'rb') as f:
            for line in f:
                pid, th, kind, depth, obj, name, fid = \
                    line.rstrip(b'\n').split(b'\t')
                if th != thread:
                    while stack:
                        close(stack.pop())
                    thread, calls = th, 0
                    inherited = fork if th == b'1' else 0
                key = fn[int(fid)]
                if kind == b'call':
                    assert int(depth) == len(stack) + 1
                    if inherited:
                        inherited -= 1
                        stack.append([key, None, calls])
                        continue
                    e = (stack[-1][0] if stack else None, key)
                    edges.setdefault(e, [0, 0])[0] += 1
                    selfc[key] += 1
                    stack.append([key, e, calls])
                    calls += 1
                    total += 1
                else:
                    assert int(depth) == len(stack)
                    close(stack.pop())
        while stack:
            close(stack.pop())
    return selfc, edges, total


def parse(path, nprocs, problems):
    """The export's self costs and edges, as model() gives them."""
    with open(path, 'rb') as f:
        lines = f.read().split(b'\n')
    if lines[-1] == b'':
        lines.pop()
    if lines[:2] != [b'# callgrind format', b'version: 1']:
        problems.append('does not start with the format line and version')
    if not lines[2].startswith(b'creator: parlot-decode '):
        problems.append('no creator line: %r' % lines[2])
    header, i = {}, 3
    while i < len(lines) and not lines[i].startswith(b'events:'):
        l = lines[i]
        i += 1
        if not l or l.startswith(b'#'):
            continue
        m = re.match(rb'^([a-z]+): (.*)$', l)
        if not m or m.group(1) not in (b'pid', b'cmd', b'part', b'desc',
                                        b'positions', b'event'):
            problems.append('bad header line %r' % l)
            continue
        header[m.group(1)] = m.group(2)
    if i == len(lines) or lines[i] != b'events: Calls':
        problems.append('no "events: Calls" line')
    if (b'pid' in header) != (nprocs == 1):
        problems.append('pid: present for %d processes' % nprocs)
    for k in (b'cmd', b'part', b'positions'):
        if k not in header:
            problems.append('no %s: line' % k.decode())
    if header.get(b'positions') != b'line':
        problems.append('positions: is not line')
    names = {'ob': {}, 'fn': {}}

    def resolve(kind, v):
        m = re.match(rb'^\((\d+)\)(?: (.+))?$', v)
        if not m:
            return v
        n = int(m.group(1))
        if m.group(2) is not None:
            if n in names[kind]:
                problems.append('%s (%d) named twice' % (kind, n))
            names[kind][n] = m.group(2)
        elif n not in names[kind]:
            problems.append('%s (%d) used before it was named' % (kind, n))
            return b'?'
        return names[kind][n]

    selfc, edges, seen_fn = defaultdict(int), {}, set()
    ob = cur = cob = cfn = pending = None
    summary = totals = None
    for l in lines[i + 1:]:
        if not l or l.startswith(b'#'):
            continue
        if l.startswith(b'ob='):
            ob = resolve('ob', l[3:])
        elif l.startswith(b'fl='):
            pass
        elif l.startswith(b'fn='):
            cur = (ob, resolve('fn', l[3:]))
            if cur in seen_fn:
                problems.append('fn= %r twice' % (cur,))
            seen_fn.add(cur)
        elif l.startswith(b'cob='):
            cob = resolve('ob', l[4:])
        elif l.startswith(b'cfn='):
            cfn = (cob if cob is not None else ob, resolve('fn', l[4:]))
            cob = None
        elif l.startswith(b'calls='):
            m = re.match(rb'^calls=(\d+) 0$', l)
            if not m or cfn is None:
                problems.append('bad calls line %r' % l)
                continue
            pending = (cfn, int(m.group(1)))
            cfn = None
        elif l.startswith(b'summary: '):
            summary = int(l[9:])
        elif l.startswith(b'totals: '):
            totals = int(l[8:])
        elif re.match(rb'^0 \d+$', l):
            n = int(l[2:])
            if cur is None:
                problems.append('cost line before fn=')
            elif pending:
                e = (cur, pending[0])
                if e in edges:
                    problems.append('edge %r twice' % (e,))
                edges[e] = [pending[1], n]
                pending = None
            else:
                selfc[cur] += n
        else:
            problems.append('unknown line %r' % l)
    return selfc, edges, summary, totals


def annotate_lines(path):
    """callgrind_annotate's function lines: {file:function: cost}."""
    out = {}
    with open(path, 'rb') as f:
        text = f.read().split(b'\n')
    for i, l in enumerate(text):
        if l.startswith(b'Calls') and b'file:function' in l:
            break
    for l in text[i + 2:]:
        m = re.match(rb'^\s*([\d,]+) \(\s*[\d.]+%\)  (.*)$', l)
        if not m:
            continue
        name = m.group(2).rsplit(b' [', 1)[0]    # " [object]" follows
        out[name] = out.get(name, 0) + int(m.group(1).replace(b',', b''))
    return out


def main():
    args = sys.argv[1:]
    ann = None
    if '--annotate' in args:
        k = args.index('--annotate')
        ann = args[k + 1:k + 3]
        args = args[:k]
    export, demangle, nprocs = args[0], args[1] == '1', int(args[2])
    runs = [(args[i], args[i + 1], int(args[i + 2]))
            for i in range(3, len(args), 3)]
    want_self, want_edges, total = model(demangle, runs)
    problems = []
    got_self, got_edges, summary, totals = parse(export, nprocs, problems)
    want_edges = {e: v for e, v in want_edges.items() if e[0] is not None}
    if summary != total or totals != total:
        problems.append('summary %s, totals %s, calls %d' % (summary, totals,
                                                            total))
    got_self = {k: v for k, v in got_self.items() if v}
    if got_self != dict(want_self):
        diff = set(got_self.items()) ^ set(want_self.items())
        problems.append('self costs differ: %r' % sorted(diff)[:4])
    if got_edges != want_edges:
        diff = set((k, tuple(v)) for k, v in got_edges.items()) ^ \
            set((k, tuple(v)) for k, v in want_edges.items())
        problems.append('edges differ: %r' % sorted(diff)[:4])
    if ann:
        # callgrind_annotate knows functions as "FILE:NAME", objects apart
        a = lambda key: b'???:' + key[1]
        sc, inc, callee = defaultdict(int), defaultdict(int), set()
        for k, v in want_self.items():
            sc[a(k)] += v
            inc[a(k)] += v
        for (x, y), (c, i) in want_edges.items():
            inc[a(x)] += i
            callee.add(a(y))
        into = defaultdict(int)
        for (x, y), (c, i) in want_edges.items():
            into[a(y)] += i
        for n in callee:
            inc[n] = into[n]
        for what, path, want in (('self', ann[0], sc), ('inclusive', ann[1],
                                                         inc)):
            got = annotate_lines(path)
            want = {k: v for k, v in want.items() if v}
            if got != want:
                diff = set(got.items()) ^ set(want.items())
                problems.append('callgrind_annotate %s lines differ (%d '
                                'lines, %d expected): %r'
                                % (what, len(got), len(want),
                                   sorted(diff)[:4]))
    for p in problems[:8]:
        print(p)
    sys.exit(1 if problems else 0)


main()
EOF

# case NAME DEMANGLE "MAKE_TRACE OPTIONS;FORK" ...
case_() {
   name=$1 demangle=$2
   shift 2
   d=$tmp/$name
   mkdir -p "$d"
   i=0 traces= margs=
   for spec in "$@"; do
      i=$((i + 1))
      opts=${spec%;*} fork=${spec##*;}
      # shellcheck disable=SC2086
      if ! "$MAKE_TRACE" $opts --fork "$fork" --ids 1 --table "$d/t$i.tab" \
            "$d/t$i.trace" "$d/t$i.list" "$d/t$i.exp"; then
         fail "$name: make_trace $opts failed"
         return
      fi
      traces="$traces $d/t$i.trace"
      margs="$margs $d/t$i.tab $d/t$i.list $fork"
   done
   nd=
   [ "$demangle" = 0 ] && nd=--no-demangle
   # shellcheck disable=SC2086
   run "$PARLOT_DECODE" "$d/cg" "$d/err" --callgrind $nd $traces
   if [ $rc -ne 0 ] || [ -s "$d/err" ]; then
      fail "$name: --callgrind: exit $rc" "$(head -c 300 "$d/err")"
      return
   fi
   # shellcheck disable=SC2086
   if python3 "$tmp/model.py" "$d/cg" "$demangle" $i $margs >"$d/why" 2>&1
   then
      pass "$name: export: format, self costs, calls and inclusive costs ($(grep -c '^calls=' "$d/cg") edges)"
   else
      fail "$name: export differs from the model" "$(head -c 600 "$d/why")"
   fi
   [ -n "$ANNOTATE" ] || return
   calls=$(sed -n 's/^totals: //p' "$d/cg")
   okann=1
   for opts in "" "--inclusive=yes" "--tree=both" \
               "--inclusive=yes --tree=both"; do
      # shellcheck disable=SC2086
      (cd "$d" && $ANNOTATE --threshold=100 $opts cg) >"$d/ann" 2>"$d/ann.err"
      arc=$?
      # (it writes a zero as ".")
      tot=$(sed -n 's/^ *\([0-9,.]*\) .*PROGRAM TOTALS.*$/\1/p' "$d/ann" \
            | tr -d , | sed 's/^\.$/0/')
      if [ $arc -ne 0 ] || [ -s "$d/ann.err" ] || [ "$tot" != "$calls" ]; then
         fail "$name: callgrind_annotate $opts: exit $arc, totals '$tot' (want $calls)" \
            "$(head -c 300 "$d/ann.err")"
         okann=0
      fi
      case $opts in
      "") cp "$d/ann" "$d/ann.self" ;;
      --inclusive=yes) cp "$d/ann" "$d/ann.incl" ;;
      esac
   done
   [ $okann = 1 ] && pass "$name: callgrind_annotate (plain, --inclusive=yes, --tree=both): exit 0, no warnings, PROGRAM TOTALS $calls"
   # shellcheck disable=SC2086
   if python3 "$tmp/model.py" "$d/cg" "$demangle" $i $margs \
         --annotate "$d/ann.self" "$d/ann.incl" >"$d/why" 2>&1; then
      pass "$name: callgrind_annotate's self and inclusive function lines"
   else
      fail "$name: callgrind_annotate's function lines" "$(head -c 600 "$d/why")"
   fi
}

case_ mixed 1 \
   "--seed 1 --threads 3 --events 3000 --functions 150 --deep 60 --twin 8;0"
case_ lzze-fork 1 \
   "--seed 2 --threads 5 --events 2000 --functions 300 --codec lzze --deep 40 \
    --twin 10;9"
case_ raw-nodemangle 0 \
   "--seed 3 --threads 4 --events 2500 --functions 200 --codec raw;0"
case_ deep-recursion 1 \
   "--seed 7 --threads 3 --events 20000 --functions 500;0"
case_ two-traces 1 \
   "--seed 5 --threads 2 --events 2500 --functions 150 --pid 100 --twin 5;0" \
   "--seed 6 --threads 3 --events 2500 --functions 150 --pid 101 --twin 5;5"
case_ no-calls 1 "--seed 8 --threads 2 --events 0;0"

finish
