#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of the ordered views: parlot-decode --replay (with and without
# --loops, with the filters), --stacks, and parlot-diff.
#
#   decoder/tests/test_replay.sh [-q]
#
# Uses $PARLOT_DECODE, $PARLOT_DIFF and $SCRIPT_TRACE if set, else builds
# them.  Needs python3.
#
# The oracle is an independent Python model of a solver: a main thread
# that calls init, then N iterations of {exchange {MPI_Send, MPI_Recv},
# smooth, apply_boundary}, one iteration possibly with an extra call, then
# finalize; and a worker thread.  The model writes the script_trace
# script (so every event and its number is known) and computes what each
# view must show:
#  - --replay: every call, in order, with its event number and depth,
#    byte for byte; with --images=main, --only, --hide, --depth: the same
#    rules applied by the model (a hidden call's callees one level up);
#  - --replay --loops: fold_props.py's random nests (true counts and
#    variant indices, loops of loops for periodic bodies);
#  - --replay --loops: the lines, once loops and variant iterations are
#    expanded again, are exactly the unfolded calls (folding loses
#    nothing), and the folding is real: the main loop is one "N × {" line
#    and the iteration with the extra call is a variant at its number;
#  - --stacks on a killed run: each thread's stack where the trace ends,
#    the tree's thread sets and the classes; how each process ended (the
#    model's exit status 0, the killed run cut short); the progress view
#    numbers the killed main thread's call as the model's iteration
#    (ITERS + 1);
#  - parlot-diff: identical runs (other pids) exit 0 without differences;
#    an extra call in one iteration is one hunk at the model's event
#    numbers, with the call path, and the summary's call counts; with
#    --loops the hunk is the variant; a loop that ran once less is one
#    line with both counts, and --ignore-loop-counts drops it; threads
#    only one run has are reported; bad input exits 2; a call inserted
#    into a loop of one call is one insertion; an inline loop's pass is
#    named by the program's call before the difference, also one the
#    context begins inside of;
#  - parlot-diff --xml validates against docs/parlot-diff.rng (xmllint) and
#    holds the same facts (read back with Python's XML parser).
# Exit status: 0 if all passed, 1 otherwise.

. "$(dirname "$0")/testlib.sh"

command -v python3 >/dev/null 2>&1 || { echo "# python3 is needed"; exit 1; }

need_tool parlot-decode parlot-diff script_trace

cat >"$tmp/model.py" <<'EOF'
"""The solver model of test_replay.sh.

model.py script OUT PID ITERS EXTRA [kill]
    writes the script_trace script to OUT and the expected calls to
    OUT.calls: per thread, lines "THREAD NUMBER DEPTH OBJECT NAME".
model.py replay CALLS THREAD FILTER...
    prints the expected --replay lines of thread THREAD (after the two
    header lines), FILTER as parlot-decode's options.
model.py unfold REPLAY
    prints the calls of a --replay --loops output with loops expanded:
    "DEPTH NAME" per line, headers left out.
"""
import fnmatch
import re
import sys

MAIN = "/opt/app/solver"
LIB = "/usr/lib/libmpi.so.12"
# a library of the system directories that no rule knows: the program's
# where the program calls it, a library internal where libmpi does
SYS = "/usr/lib/x86_64-linux-gnu/libsys.so.1"


def script(out, pid, iters, extra, kill):
    fns = [("main", MAIN), ("init", MAIN), ("exchange", MAIN),
           ("smooth", MAIN), ("apply_boundary", MAIN), ("extra", MAIN),
           ("finalize", MAIN), ("worker", MAIN), ("MPI_Send", LIB),
           ("MPI_Recv", LIB), ("MPIDI_progress", LIB),
           ("sys_helper", SYS)]
    lines = ["process pid=%d exe=%s arg0=solver" % (pid, MAIN),
             "object " + MAIN, "object " + LIB, "object " + SYS]
    lines += ["function %s %s" % f for f in fns]
    obj = dict(fns)
    calls = []          # (thread, number, depth, object, name)
    count = {1: 0, 2: 0}
    depth = {1: 0, 2: 0}

    def call(t, *names):
        for n in names:
            count[t] += 1
            depth[t] += 1
            calls.append((t, count[t], depth[t], obj[n], n))
        lines.append("call %d %s" % (t, " ".join(names)))

    def ret(t, k=1):
        count[t] += k
        depth[t] -= k
        lines.append("return %d %d" % (t, k))

    lines.append("thread 1")
    call(1, "main")
    call(1, "init")
    ret(1)
    lines.append("thread 2")
    call(2, "worker")
    for i in range(1, iters + 1):
        call(1, "exchange", "MPI_Send", "MPIDI_progress", "sys_helper")
        ret(1, 3)
        call(1, "MPI_Recv")
        ret(1, 2)
        call(1, "smooth", "sys_helper")
        ret(1, 2)
        if i == extra:
            call(1, "extra")
            ret(1)
        call(1, "apply_boundary")
        ret(1)
        if i % 10 == 0:
            call(2, "MPI_Recv")
            ret(2)
    if kill:
        # rank killed while waiting: thread 1 in MPI_Recv under exchange,
        # thread 2 in worker
        call(1, "exchange", "MPI_Recv")
        lines += ["sync", "kill"]
    else:
        call(1, "finalize")
        ret(1)
        lines += ["exit 2", "end"]
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(out + ".calls", "w") as f:
        for c in calls:
            f.write("%d %d %d %s %s\n" % c)


def indent(level):
    """--replay's indentation: two spaces per level, at most 100 levels;
    deeper, "[LEVEL] " after them."""
    if level <= 100:
        return "  " * level
    return "  " * 100 + "[%d] " % level


def replay(calls_path, thread, filters):
    """The shown calls.  images=program (the default without --images and
    --only): the functions of every object but LIB and SYS, of SYS where
    one of the shown functions of the program called it, and of LIB where
    one of those called it (one opaque call: LIB's callees are not
    shown)."""
    only, hide, images, max_depth = [], [], None, 0
    for a in filters:
        k, v = a[2:].split("=", 1)
        if k == "only":
            only.append(v)
        elif k == "hide":
            hide.append(v)
        elif k == "images":
            images = v
        elif k == "depth":
            max_depth = int(v)
    if images is None:
        images = "all" if only else "program"
    shown = []          # per raw depth: shown?
    own = []            # per raw depth: the program's own code?
    counts = []         # per shown depth: calls by name under its caller
    for line in open(calls_path):
        t, num, d, o, name = line.split()
        if int(t) != thread:
            continue
        d = int(d)
        del shown[d - 1:]
        del own[d - 1:]
        m_only = any(fnmatch.fnmatchcase(name, p) for p in only)
        hidden = any(fnmatch.fnmatchcase(name, p) for p in hide)
        caller_own = own[-1] if own else False
        if images == "program":
            if m_only or o not in (LIB, SYS):
                mine = not hidden
            else:
                mine = not hidden and o == SYS and caller_own
            keep = mine or (not hidden and o == LIB and caller_own)
        else:
            in_images = images == "all" or o == MAIN
            if images != "all" and only:
                keep = in_images or m_only
            else:
                keep = in_images and (not only or m_only)
            keep = keep and not hidden
            mine = False
        vd = sum(shown) + 1
        if keep and max_depth and vd > max_depth:
            keep = False
        shown.append(keep)
        own.append(mine)
        if keep:
            # its number among the calls of name by the shown caller
            del counts[vd:]
            while len(counts) < vd:
                counts.append({})
            counts[vd - 1][name] = counts[vd - 1].get(name, 0) + 1
            n = counts[vd - 1][name]
            print("%10d %5d  %s%s%s" % (int(num), vd, indent(vd - 1), name,
                                        " #%d" % n if n > 1 else ""))


def unfold(path):
    """Expand loops: a LOOP's body repeats count times, a VARIANT replaces
    iteration N of its loop."""
    rows = []
    for line in open(path):
        if line.startswith("==") or line.startswith("#"):
            continue
        depth = int(line[11:16])
        rows.append((depth, line[18:].rstrip("\n")))

    def block(i, indent):
        """Items at this indent from i: returns (calls, next index)."""
        out = []
        while i < len(rows):
            d, text = rows[i]
            ind = (len(text) - len(text.lstrip(" "))) // 2
            body = text.strip()
            m = re.match(r"\[(\d+)\] (.*)", body)
            if m:
                ind, body = int(m.group(1)), m.group(2)
            if ind < indent or body == "}" or (
                    body.startswith("iteration ")
                    and body.endswith(" instead: {")):
                return out, i
            if body.endswith("\u00d7 {"):
                n = int(body.split()[0])
                inner, i = block(i + 1, ind + 1)
                variants = {}
                while rows[i][1].strip().startswith("iteration"):
                    it = int(rows[i][1].split()[1])
                    v, i = block(i + 1, ind + 2)
                    variants[it] = v
                    i += 1          # the variant's "}"
                for k in range(1, n + 1):
                    out += variants.get(k, inner)
                i += 1              # the loop's "}"
            else:
                out.append((d, body))
                i += 1
        return out, i

    calls, _ = block(0, 0)
    for d, name in calls:
        print("%d %s" % (d, name))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "script":
        script(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
               int(sys.argv[5]), len(sys.argv) > 6)
    elif cmd == "replay":
        replay(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
    elif cmd == "unfold":
        unfold(sys.argv[2])
EOF

model() { python3 "$tmp/model.py" "$@"; }

# trace NAME PID ITERS EXTRA [kill]: the model's script, written as a trace
trace() {
   model script "$tmp/$1.script" "$2" "$3" "$4" ${5:+kill} &&
   "$SCRIPT_TRACE" "$tmp/$1.script" "$tmp/$1.trace" 2>"$tmp/st.err" ||
      { fail "script_trace $1" "$(head -c 300 "$tmp/st.err")"; return 1; }
}

trace a 100 100 0
trace a2 200 100 0
trace b 300 100 57
trace c 400 99 0
trace k 500 30 0 kill

# ---- --replay ----------------------------------------------------------------

# replay_case NAME THREAD FILTER...: --replay against the model
replay_case() {
   name=$1 th=$2
   shift 2
   run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" --replay --select="*:$th" \
      "$@" "$tmp/b.trace"
   model replay "$tmp/b.script.calls" "$th" "$@" >"$tmp/want"
   tail -n +3 "$tmp/out" >"$tmp/got"
   if [ $rc -ne 0 ] || [ -s "$tmp/err" ]; then
      fail "replay $name: exit $rc" "$(head -c 300 "$tmp/err")"
   elif ! cmp -s "$tmp/got" "$tmp/want"; then
      fail "replay $name" "$(diff "$tmp/want" "$tmp/got" | head -5)"
   else
      pass "replay $name ($(wc -l <"$tmp/want") lines)"
   fi
}

replay_case all 1 --images=all
replay_case worker 2 --images=all
replay_case program 1
replay_case program-worker 2
replay_case images-main 1 --images=main
replay_case only-mpi 1 --only='MPI_*'
replay_case images-and-only 1 --images=main --only='MPI_Recv'
replay_case hide 1 --images=all --hide=exchange --hide='MPIDI_*'
replay_case program-hide 1 --hide=exchange
replay_case depth 1 --images=all --depth=2
replay_case only-and-hide 1 --only='*e*' --hide=smooth

# a recursion 250 deep: past 100 levels the lines keep 100 levels of
# indentation and say their level, as the model does; --loops lines unfold
# back to the calls all the same
{
   echo "process pid=600 exe=/opt/app/deep"
   echo "object /opt/app/deep"
   echo "function main /opt/app/deep"
   echo "function rec /opt/app/deep"
   echo "thread 1"
   echo "call 1 main"
   for i in $(seq 250); do echo "call 1 rec"; done
   printf 'return 1 251\nend\n'
} >"$tmp/deep.script"
awk 'BEGIN { print "1 1 1 /opt/app/deep main"
             for (i = 2; i <= 251; i++) print "1", i, i, "/opt/app/deep rec" }' \
   >"$tmp/deep.calls"
"$SCRIPT_TRACE" "$tmp/deep.script" "$tmp/deep.trace" 2>"$tmp/err" ||
   fail "script_trace deep" "$(cat "$tmp/err")"
run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" --replay "$tmp/deep.trace"
model replay "$tmp/deep.calls" 1 >"$tmp/want"
tail -n +3 "$tmp/out" >"$tmp/got"
if [ $rc -eq 0 ] && cmp -s "$tmp/got" "$tmp/want" &&
   [ "$(awk '{ if (length > m) m = length } END { print m }' "$tmp/got")" -lt 240 ]; then
   pass "replay 251 deep: indentation capped at 100 levels, [LEVEL] beyond"
else
   fail "replay 251 deep: exit $rc" "$(diff "$tmp/want" "$tmp/got" | head -5)"
fi
run "$PARLOT_DECODE" "$tmp/loops" "$tmp/err" --replay --loops "$tmp/deep.trace"
model unfold "$tmp/loops" >"$tmp/unfolded"
awk '{ print $3, $5 }' "$tmp/deep.calls" >"$tmp/want"
if [ $rc -eq 0 ] && cmp -s "$tmp/unfolded" "$tmp/want"; then
   pass "replay --loops 251 deep: unfolds to the calls"
else
   fail "replay --loops 251 deep: exit $rc" "$(diff "$tmp/want" "$tmp/unfolded" | head -5)"
fi

# the header names the thread and the filter
run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" --replay --images=main \
   "$tmp/b.trace"
if head -1 "$tmp/out" | grep -q '^== pid 300 thread 1 of /opt/app/solver: .* events \[images=main\]$' \
   && grep -q '^== pid 300 thread 2 of' "$tmp/out"; then
   pass "replay headers"
else
   fail "replay headers" "$(grep '^==' "$tmp/out" | head -3)"
fi

# --range: the events of a range only, depths counted within it
run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" --replay --select='*:1' \
   --range=20-40 "$tmp/b.trace"
nums=$(tail -n +3 "$tmp/out" | awk '{print $1}' | tr '\n' ' ')
if [ $rc -eq 0 ] && [ -n "$nums" ] && \
   tail -n +3 "$tmp/out" | awk '$1 < 20 || $1 > 40 { bad = 1 } END { exit bad }'
then
   pass "replay --range=20-40 ($nums)"
else
   fail "replay --range" "exit $rc: $nums"
fi

# A stripped executable (LAMMPS's lmp): main is never seen, its calls come
# from the C library's __libc_start_call_main; the program's view shows
# them (a system library's code called from there is the program's: here
# libapp.so.0), not what __libc_start_main does before.
{
   echo "process pid=610 exe=/usr/bin/app"
   echo "object /usr/bin/app"
   echo "object /usr/lib/x86_64-linux-gnu/libc.so.6"
   echo "object /usr/lib/x86_64-linux-gnu/libapp.so.0"
   echo "object /usr/lib/x86_64-linux-gnu/libmpi.so.40"
   echo "function __libc_start_main@@GLIBC_2.34 /usr/lib/x86_64-linux-gnu/libc.so.6"
   echo "function __libc_start_call_main /usr/lib/x86_64-linux-gnu/libc.so.6"
   echo "function __cxa_atexit /usr/lib/x86_64-linux-gnu/libc.so.6"
   echo "function malloc /usr/lib/x86_64-linux-gnu/libc.so.6"
   echo "function exit /usr/lib/x86_64-linux-gnu/libc.so.6"
   echo "function solve /usr/lib/x86_64-linux-gnu/libapp.so.0"
   echo "function step /usr/lib/x86_64-linux-gnu/libapp.so.0"
   echo "function MPI_Init /usr/lib/x86_64-linux-gnu/libmpi.so.40"
   echo "function mpi_internal /usr/lib/x86_64-linux-gnu/libmpi.so.40"
   echo "thread 1"
   echo "call 1 __libc_start_main@@GLIBC_2.34 __cxa_atexit"
   echo "return 1"
   echo "call 1 __libc_start_call_main MPI_Init mpi_internal step"
   echo "return 1 3"
   echo "call 1 solve step malloc"
   echo "return 1 3"
   echo "call 1 exit"
   echo "end"
} >"$tmp/stripped.script"
"$SCRIPT_TRACE" "$tmp/stripped.script" "$tmp/stripped.trace" ||
   fail "script_trace: stripped"
run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" --replay "$tmp/stripped.trace"
got=$(tail -n +3 "$tmp/out" | awk '{ printf "%s:%s ", $2, $3 }')
if [ $rc -eq 0 ] && [ "$got" = "1:MPI_Init 1:solve 2:step 3:malloc 1:exit " ]; then
   pass "replay: a stripped main's calls, from the C library's start-up ($got)"
else
   fail "replay: a stripped main" "exit $rc: '$got'"
fi

# ---- --replay --loops --------------------------------------------------------

for n in a b c; do
   run "$PARLOT_DECODE" "$tmp/loops" "$tmp/err" --replay --loops \
      --images=all --select='*:1' "$tmp/$n.trace"
   model unfold "$tmp/loops" >"$tmp/unfolded"
   awk '$1 == 1 { print $3, $5 }' "$tmp/$n.script.calls" >"$tmp/want"
   lines=$(wc -l <"$tmp/loops")
   if [ $rc -ne 0 ]; then
      fail "loops $n: exit $rc" "$(head -c 300 "$tmp/err")"
   elif ! cmp -s "$tmp/unfolded" "$tmp/want"; then
      fail "loops $n: unfolded lines are not the calls" \
         "$(diff "$tmp/want" "$tmp/unfolded" | head -5)"
   elif [ "$lines" -gt 30 ]; then
      fail "loops $n: $lines lines, the loop is not folded"
   else
      pass "loops $n: $lines lines, exactly the $(wc -l <"$tmp/want") calls"
   fi
done
run "$PARLOT_DECODE" "$tmp/loops" "$tmp/err" --replay --loops \
   --select='*:1' "$tmp/b.trace"
want_it=$(awk '$1 == 1 && $5 == "extra" { print $2 }' "$tmp/b.script.calls")
if grep -Eq '^ +[0-9]+ +2    100 × \{$' "$tmp/loops" &&
   grep -Eq '^ +[0-9]+ +2      iteration 57 instead: \{$' "$tmp/loops" &&
   grep -Eq "^ +$want_it +2 +extra$" "$tmp/loops"; then
   pass "loops: 100 iterations, iteration 57 a variant with extra (event $want_it)"
else
   fail "loops: no '100 × {' with a variant at iteration 57" \
      "$(head -12 "$tmp/loops")"
fi

# Folding loses nothing whatever the window: random programs of nested
# loops with odd iterations, recursion and noise (random_prog.py), folded
# with windows from 1 (held calls written early) to 256, expand to exactly
# their calls.
fold_bad=0 fold_runs=0 fold_calls=0
for seed in 1 2 3 4 5 6 7 8; do
   python3 "$here/random_prog.py" $seed "$tmp/r.script" &&
   "$SCRIPT_TRACE" "$tmp/r.script" "$tmp/r.trace" 2>"$tmp/st.err" ||
      { fail "random program $seed" "$(head -c 300 "$tmp/st.err")"; continue; }
   awk '{ print $3, $5 }' "$tmp/r.script.calls" >"$tmp/want"
   fold_calls=$((fold_calls + $(wc -l <"$tmp/want")))
   for w in 1 2 3 8 256; do
      fold_runs=$((fold_runs + 1))
      run "$PARLOT_DECODE" "$tmp/loops" "$tmp/err" --replay --loops \
         --images=all --window=$w "$tmp/r.trace"
      model unfold "$tmp/loops" >"$tmp/unfolded"
      if [ $rc -ne 0 ] || ! cmp -s "$tmp/unfolded" "$tmp/want"; then
         fold_bad=$((fold_bad + 1))
         [ $fold_bad -le 3 ] && echo "# seed $seed window $w: exit $rc," \
            "$(diff "$tmp/want" "$tmp/unfolded" | head -3 | tr '\n' ' ')"
      fi
   done
done
if [ $fold_bad -eq 0 ]; then
   pass "loops: $fold_runs random folds ($fold_calls calls) unfold exactly"
else
   fail "loops: $fold_bad of $fold_runs random folds do not unfold to the calls"
fi

# Folding tells the truth (fold_props.py): random loops and loop nests
# with one iteration changed (a call added, removed or replaced inside it,
# or its callees changed) keep their true counts and the changed
# iteration's true index; periodic bodies fold as loops of loops no longer
# than the nest; everything expands back to its calls.
mkdir -p "$tmp/props"
if out=$(python3 "$here/fold_props.py" "$SCRIPT_TRACE" "$PARLOT_DECODE" \
         "$tmp/props" 300 1 2>&1); then
   pass "loops: $(echo "$out" | tail -1)"
else
   fail "loops: fold properties" "$(echo "$out" | head -20)"
fi

# ---- --stacks ----------------------------------------------------------------

run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" --stacks "$tmp/k.trace" "$tmp/a.trace"
if [ $rc -eq 1 ] && grep -q 'k.trace: .*truncated' "$tmp/err" &&
   grep -q '^== call stacks at the end of 4 threads of 2 traces \[images=program\]$' "$tmp/out" &&
   grep -q '^main  1:\[p500\]$' "$tmp/out" &&
   grep -q '^  exchange  1:\[p500\]$' "$tmp/out" &&
   grep -q '^    MPI_Recv  1:\[p500\]$' "$tmp/out" &&
   grep -q '^worker  1:\[p500.2\]$' "$tmp/out" &&
   grep -q '^== 3 classes' "$tmp/out" &&
   grep -q '^1: 2:\[p100,p100.2\]  (no call open)$' "$tmp/out" &&
   grep -q '^[23]: 1:\[p500\]  main > exchange > MPI_Recv$' "$tmp/out" &&
   grep -q '^[23]: 1:\[p500.2\]  worker$' "$tmp/out"; then
   pass "stacks: the killed run's stacks, tree and classes"
else
   fail "stacks: the killed run" "$(cat "$tmp/out")"
fi
if grep -q '^1:\[p100\]  exit status 0$' "$tmp/out" &&
   grep -q '^1:\[p500\]  trace cut short$' "$tmp/out" &&
   grep -Eq '^[0-9]+: 1:\[p500\]  main > exchange #31 > MPI_Recv  \(as of its last flush: trace cut short\)( |$)' "$tmp/out" &&
   ! grep -Eq '^[0-9]+: [0-9]+:\[p100.*last flush' "$tmp/out"; then
   pass "stacks: endings (exit status 0, cut short) and the killed thread's position (exchange #31), as of its last flush"
else
   fail "stacks" "exit $rc" "$(cat "$tmp/out" "$tmp/err" | head -20)"
fi
run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" --stacks --dot --only='MPI_*' \
   "$tmp/k.trace"
if grep -q '^digraph stacks {$' "$tmp/out" &&
   grep -q 'label="MPI_Recv\\n1:\[p500\]"' "$tmp/out" &&
   ! grep -q 'exchange' "$tmp/out" && tail -1 "$tmp/out" | grep -q '^}$'; then
   pass "stacks --dot --only"
else
   fail "stacks --dot --only" "$(head -12 "$tmp/out")"
fi

# A recursion 100,000 deep, each frame calling leaf before it recurses,
# the deepest then leaf three more times, killed in the last: the position
# numbers its leaf #4, and every down is the first of its caller's.  The
# call numbers once kept one table of every (depth, function) pair whose
# slots hashed the function alone: each call probed a chain as long as
# the recursion (45 s at 40,000 deep, minutes here, against the timeout).
deep=100000
{
   echo "process pid=77 exe=/bin/deep"
   echo "object /bin/deep"
   for f in main down leaf; do echo "function $f /bin/deep"; done
   echo "thread 1"
   echo "call 1 main"
   awk -v d=$deep 'BEGIN { for (i = 0; i < d; i++)
                              print "call 1 down\ncall 1 leaf\nreturn 1" }'
   printf 'call 1 leaf\nreturn 1\ncall 1 leaf\nreturn 1\ncall 1 leaf\nsync\nkill\n'
} >"$tmp/deep.script"
"$SCRIPT_TRACE" "$tmp/deep.script" "$tmp/deep.trace" ||
   fail "script_trace deep.script"
run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" --progress "$tmp/deep.trace"
pos=$(grep '^1: 1:\[p77\]  main > ' "$tmp/out")
if [ $rc -eq 1 ] && [ "$pos" = "1: 1:[p77]  main > down x$deep > leaf #4" ]; then
   pass "progress: a recursion $deep deep, numbered (leaf #4 in the deepest frame), its frames as one"
else
   fail "progress: a recursion $deep deep" "exit $rc" \
      "$(head -3 "$tmp/err")" "$(printf '%s\n' "$pos" | cut -c1-200)"
fi

# A mutual recursion 60 steps deep (ping > pong > ping ...), killed in
# the deepest: no step repeats the one above it, so the position keeps
# the first 4 and the last 11 of its 61 steps on one line
{
   echo "process pid=78 exe=/bin/pingpong"
   echo "object /bin/pingpong"
   for f in main ping pong; do echo "function $f /bin/pingpong"; done
   echo "thread 1"
   echo "call 1 main"
   awk 'BEGIN { for (i = 0; i < 30; i++) print "call 1 ping\ncall 1 pong" }'
   printf 'sync\nkill\n'
} >"$tmp/pingpong.script"
"$SCRIPT_TRACE" "$tmp/pingpong.script" "$tmp/pingpong.trace" ||
   fail "script_trace pingpong.script"
run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" --progress "$tmp/pingpong.trace"
pos=$(grep '^1: 1:\[p78\]  ' "$tmp/out")
want="1: 1:[p78]  main > ping > pong > ping > ... (46 more) > pong > ping > pong > ping > pong > ping > pong > ping > pong > ping > pong"
if [ $rc -eq 1 ] && [ "$pos" = "$want" ]; then
   pass "progress: a mutual recursion 60 deep, its middle left out ($(printf '%s' "$pos" | wc -c) bytes)"
else
   fail "progress: a mutual recursion 60 deep" "exit $rc" "$pos"
fi

# ---- parlot-diff -------------------------------------------------------------

# one run under MPICH, one under Open MPI: the same MPI calls from other
# libraries are the same calls (MPI's names are the standard's, and a
# Fortran binding's aliases, MPI_COMM_SIZE or mpi_comm_size, are one
# function); the libraries' own functions are not
# mpi_run LIB [EXTRA]: a process calling MPI_Init, the Fortran binding of
# MPI_Comm_size (as libmpich.so names it, else as libmpi.so does),
# MPI_Send (opaque: LIB's internal progress under it) and EXTRA (a
# function of LIB)
mpi_run() {
   size=MPI_COMM_SIZE
   case $1 in *mpich*) size=mpi_comm_size ;; esac
   echo "process pid=90 exe=/bin/app"
   echo "object /bin/app"
   echo "object $1"
   echo "function main /bin/app"
   for f in MPI_Init $size MPI_Send progress ${2:-}; do echo "function $f $1"; done
   echo "thread 1"
   echo "call 1 main MPI_Init"; echo "return 1"
   echo "call 1 $size"; echo "return 1"
   echo "call 1 MPI_Send progress"; echo "return 1 2"
   [ -n "${2:-}" ] && { echo "call 1 $2"; echo "return 1"; }
   echo "return 1"
   echo "end"
}
mpi_run /usr/lib/x86_64-linux-gnu/libmpich.so.12 >"$tmp/mpich.script"
mpi_run /usr/lib/x86_64-linux-gnu/libmpi.so.40 >"$tmp/ompi.script"
mpi_run /usr/lib/x86_64-linux-gnu/libmpi.so.40 MPIX_Query_cuda_support >"$tmp/ompi2.script"
for r in mpich ompi ompi2; do
   "$SCRIPT_TRACE" "$tmp/$r.script" "$tmp/$r.trace" || fail "script_trace $r.script"
done
run "$PARLOT_DIFF" "$tmp/out" "$tmp/err" "$tmp/mpich.trace" "$tmp/ompi.trace"
rc1=$rc
run "$PARLOT_DIFF" "$tmp/out2" "$tmp/err" "$tmp/mpich.trace" "$tmp/ompi2.trace"
if [ $rc1 -eq 0 ] && [ $rc -eq 1 ] && [ "$(grep -c '^[-+] ' "$tmp/out2")" = 1 ] &&
   grep -q '^+ .* MPIX_Query_cuda_support$' "$tmp/out2"; then
   pass "diff: MPICH's and Open MPI's MPI_Init, MPI_Send and Fortran MPI_Comm_size are the same calls (exit 0); another call is found"
else
   fail "diff: one run under each MPI" "exit $rc1 and $rc" "$(grep '^[-+@]' "$tmp/out" "$tmp/out2" | head -8)"
fi

run "$PARLOT_DIFF" "$tmp/out" "$tmp/err" "$tmp/a.trace" "$tmp/a2.trace"
if [ $rc -eq 0 ] && ! grep -q '^@@' "$tmp/out" &&
   grep -q '2 thread pairs compared, 2 identical, 0 different' "$tmp/out"; then
   pass "diff: identical runs, exit 0"
else
   fail "diff: identical runs" "exit $rc" "$(head -8 "$tmp/out" "$tmp/err")"
fi

# the extra call: B's event number of it, A's event just before; main's
# loop is inline, so the header says which pass by the call before the
# difference (smooth #57: the extra call comes in iteration 57)
run "$PARLOT_DIFF" "$tmp/out" "$tmp/err" "$tmp/a.trace" "$tmp/b.trace"
eb=$(awk '$1 == 1 && $5 == "extra" { print $2 }' "$tmp/b.script.calls")
ea=$(awk -v e="$eb" '$1 == 1 && $2 < e { n = $2 } END { print n }' \
   "$tmp/a.script.calls")
if [ $rc -eq 1 ] && [ "$(grep -c '^@@' "$tmp/out")" -eq 1 ] &&
   grep -q "^@@ main (after smooth #57) @@ A after event $ea, B event $eb\$" "$tmp/out" &&
   grep -Eq "^\+ +$eb +2    extra\$" "$tmp/out" &&
   grep -Eq '^ +0 +1 +\+1  extra$' "$tmp/out" &&
   grep -q '1 identical, 1 different' "$tmp/out"; then
   pass "diff: one extra call, one hunk at A $ea / B $eb"
else
   fail "diff: extra call" "exit $rc, want A after $ea, B $eb" \
      "$(grep -A3 '^@@' "$tmp/out" | head -8)"
fi
# the context begins inside exchange (MPI_Recv), deeper than the extra
# call: the call it is inside of comes first, its number the iteration
# b's trace has the extra call in (57)
it=$(awk '/^@@/ { getline; print; exit }' "$tmp/out")
if echo "$it" | grep -Eq '^ +[0-9]+ +2    exchange #57$' &&
   awk '/^@@/ { getline; getline; print; exit }' "$tmp/out" | grep -q '^ *\.\.\.$'; then
   pass "diff: the context's enclosing call names the iteration (exchange #57)"
else
   fail "diff: the enclosing call" "$(grep -A4 '^@@' "$tmp/out" | head -6)"
fi
# two levels: main's inline loop calls step, step calls helper, helper
# three leaves; B makes an extra call after step in iteration 6.  The
# context (the three leaves) is inside helper, inside step #6
inline_loop() {   # OUT PID EXTRA_ITERATION
   {
      echo "process pid=$2 exe=/opt/app/y arg0=y"
      echo "object /opt/app/y"
      for f in main step helper leaf leafb leafc extra; do
         echo "function $f /opt/app/y"
      done
      echo "thread 1"
      echo "call 1 main"
      for i in 1 2 3 4 5 6 7 8; do
         echo "call 1 step helper leaf"
         echo "return 1 1"
         echo "call 1 leafb"
         echo "return 1 1"
         echo "call 1 leafc"
         echo "return 1 3"
         [ "$i" = "$3" ] && printf 'call 1 extra\nreturn 1 1\n'
      done
      echo "return 1 1"
      echo end
   } >"$tmp/$1.script"
   "$SCRIPT_TRACE" "$tmp/$1.script" "$tmp/$1.trace"
}
if inline_loop ila 910 0 && inline_loop ilb 911 6; then
   run "$PARLOT_DIFF" "$tmp/out" "$tmp/err" "$tmp/ila.trace" "$tmp/ilb.trace"
   # step #6 and helper (step's 1st call of it) come first, each the first
   # call of the one above: no '...' between them and the leaves
   got=$(awk '/^@@/ { for (k = 0; k < 6; k++) { getline; sub(/^[+-]? +[0-9]+ +[0-9]+ +/, ""); print } exit }' \
      "$tmp/out" | tr '\n' '|')
   if [ "$got" = "step #6|helper|leaf|leafb|leafc|extra|" ] &&
      [ "$(grep -c '^+ ' "$tmp/out")" -eq 1 ]; then
      pass "diff: the calls around the context, two levels (step #6 > helper)"
   else
      fail "diff: two levels around the context" "got '$got'" "$(grep -A7 '^@@' "$tmp/out")"
   fi
else
   fail "script_trace: the inline loop"
fi

# a loop of one call (a parallel region's cells), B checking and fixing
# one cell after the 7th: one hunk of B's two calls, nothing of A's (as
# two cells replaced, the diff then had two cells more at the loop's end)
cell_loop() {   # OUT PID EXTRA
   {
      echo "process pid=$2 exe=/opt/app/z arg0=z"
      echo "object /opt/app/z"
      for f in main region cell check fixup; do echo "function $f /opt/app/z"; done
      echo "thread 1"
      echo "call 1 main region"
      for i in $(seq 40); do
         echo "call 1 cell"; echo "return 1"
         [ "$i" = 7 ] && [ "$3" = 1 ] &&
            printf 'call 1 check\nreturn 1\ncall 1 fixup\nreturn 1\n'
      done
      echo "return 1 2"
      echo end
   } >"$tmp/$1.script"
   "$SCRIPT_TRACE" "$tmp/$1.script" "$tmp/$1.trace"
}
if cell_loop cla 920 0 && cell_loop clb 921 1; then
   run "$PARLOT_DIFF" "$tmp/out" "$tmp/err" "$tmp/cla.trace" "$tmp/clb.trace"
   if [ "$(grep -c '^@@' "$tmp/out")" -eq 1 ] &&
      [ "$(grep -c '^- ' "$tmp/out")" -eq 0 ] &&
      [ "$(grep '^+ ' "$tmp/out" | awk '{ print $4 }' | tr '\n' ' ')" = "check fixup " ] &&
      grep -B1 '^+ .* check$' "$tmp/out" | grep -Eq '^ +[0-9]+ +3 +cell #7$'; then
      pass "diff: a call inserted in a loop of one call is an insertion after its 7th pass"
   else
      fail "diff: an insertion in a loop of one call" "$(grep -A8 '^@@' "$tmp/out" | head -20)"
   fi
else
   fail "script_trace: the loop of one call"
fi

# main's inline loop calls step (which sends and waits inside) and then
# MPI_Allreduce; B prints after the 5th reduction.  The context is
# step's MPI calls and the reduction: the pass is named by step #5, the
# program's own call the context begins inside of, not the library's
# MPI_Allreduce #5
pass_loop() {   # OUT PID EXTRA
   {
      echo "process pid=$2 exe=/opt/app/w arg0=w"
      echo "object /opt/app/w"
      echo "object /usr/lib/x86_64-linux-gnu/libmpi.so.40"
      echo "object /usr/lib/x86_64-linux-gnu/libc.so.6"
      for f in main step; do echo "function $f /opt/app/w"; done
      for f in MPI_Isend MPI_Waitall MPI_Allreduce; do
         echo "function $f /usr/lib/x86_64-linux-gnu/libmpi.so.40"
      done
      echo "function printf /usr/lib/x86_64-linux-gnu/libc.so.6"
      echo "thread 1"
      echo "call 1 main"
      for i in 1 2 3 4 5 6 7; do
         printf 'call 1 step MPI_Isend\nreturn 1\ncall 1 MPI_Waitall\nreturn 1 2\n'
         printf 'call 1 MPI_Allreduce\nreturn 1\n'
         [ "$i" = "$3" ] && printf 'call 1 printf\nreturn 1\n'
      done
      echo "return 1"
      echo end
   } >"$tmp/$1.script"
   "$SCRIPT_TRACE" "$tmp/$1.script" "$tmp/$1.trace"
}
if pass_loop pla 930 0 && pass_loop plb 931 5; then
   run "$PARLOT_DIFF" "$tmp/out" "$tmp/err" "$tmp/pla.trace" "$tmp/plb.trace"
   if grep -q '^@@ main (after step #5) @@' "$tmp/out"; then
      pass "diff: an inline loop's pass named by the program's call the context begins inside of (step #5)"
   else
      fail "diff: the pass by the enclosing call" "$(grep -A5 '^@@' "$tmp/out" | head -8)"
   fi
else
   fail "script_trace: the loop of passes"
fi

run "$PARLOT_DIFF" "$tmp/out" "$tmp/err" --loops "$tmp/a.trace" "$tmp/b.trace"
if [ $rc -eq 1 ] && [ "$(grep -c '^@@' "$tmp/out")" -eq 1 ] &&
   grep -Eq '^\+ +[0-9]+ +2      iteration 57 instead: \{$' "$tmp/out"; then
   pass "diff --loops: the variant iteration"
else
   fail "diff --loops" "exit $rc" "$(grep -A6 '^@@' "$tmp/out" | head -10)"
fi

# 99 iterations instead of 100: main's loop, and the worker's (one call
# every 10 iterations) ran once less
run "$PARLOT_DIFF" "$tmp/out" "$tmp/err" --loops "$tmp/a.trace" "$tmp/c.trace"
if [ $rc -eq 1 ] && [ "$(grep -c '^@@' "$tmp/out")" -eq 2 ] &&
   grep -q '^@@ main @@ A event 4, B event 4  (loop ran 100 times in A, 99 in B)$' "$tmp/out" &&
   grep -q '^@@ worker @@ A event 2, B event 2  (loop ran 10 times in A, 9 in B)$' "$tmp/out"; then
   pass "diff --loops: loop counts, one line each"
else
   fail "diff --loops: loop counts" "exit $rc" "$(grep -A4 '^@@' "$tmp/out")"
fi
run "$PARLOT_DIFF" "$tmp/out" "$tmp/err" --loops --ignore-loop-counts \
   "$tmp/a.trace" "$tmp/c.trace"
if [ $rc -eq 0 ] && ! grep -q '^@@' "$tmp/out"; then
   pass "diff --ignore-loop-counts"
else
   fail "diff --ignore-loop-counts" "exit $rc" "$(grep -A4 '^@@' "$tmp/out")"
fi

# a directory against a trace: processes without a rank pair in creation
# order (here by pid: 100 with 200), the killed one is only in A
mkdir "$tmp/dir"
cp "$tmp/a.trace" "$tmp/k.trace" "$tmp/dir/"
echo "not a trace" >"$tmp/dir/README"
run "$PARLOT_DIFF" "$tmp/out" "$tmp/err" "$tmp/dir" "$tmp/a2.trace"
if [ $rc -eq 2 ] && grep -q 'k.trace: .*truncated' "$tmp/err" &&
   grep -q '^=== pid 500 thread 1: only in A' "$tmp/out" &&
   grep -q '^== summary: 2 thread pairs compared, 2 identical' "$tmp/out"; then
   pass "diff: a directory, threads only in A, a killed trace (exit 2)"
else
   fail "diff: directory" "exit $rc" "$(cat "$tmp/out" "$tmp/err" | head)"
fi

# --xml: valid against docs/parlot-diff.rng, and the same facts
XMLLINT=${XMLLINT:-xmllint}
RNG=$top/docs/parlot-diff.rng
xml_case() {
   name=$1
   shift
   "$PARLOT_DIFF" --xml "$@" >"$tmp/$name.xml" 2>"$tmp/err"
   rc=$?
   if ! command -v "$XMLLINT" >/dev/null 2>&1; then
      echo "# xmllint not found: $name not validated"
   elif ! "$XMLLINT" --noout --relaxng "$RNG" "$tmp/$name.xml" 2>"$tmp/xerr"; then
      fail "diff --xml $name: not valid" "$(head -3 "$tmp/xerr")"
      return 1
   fi
}
if xml_case extra "$tmp/a.trace" "$tmp/b.trace" && [ $rc -eq 1 ] &&
   python3 - "$tmp/extra.xml" "$eb" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
pairs = root.findall("pair")
assert len(pairs) == 2, len(pairs)
ends = [p.find("end").get("status") for p in pairs]
assert ends == ["different", "identical"], ends
hunks = pairs[0].findall("hunk")
assert len(hunks) == 1 and hunks[0].get("b-event") == sys.argv[2], \
    [h.attrib for h in hunks]
b = [l.get("function") for l in hunks[0].findall("line") if l.get("side") == "b"]
assert b == ["extra"], b
s = root.find("summary")
assert (s.get("identical"), s.get("different")) == ("1", "1"), s.attrib
f = [(x.get("name"), x.get("a"), x.get("b")) for x in s.findall("function")]
assert f == [("extra", "0", "1")], f
PY
then
   pass "diff --xml: valid, the extra call's hunk, identical worker, summary"
else
   fail "diff --xml: extra call" "exit $rc" "$(head -c 600 "$tmp/extra.xml")"
fi
xml_case loops --loops "$tmp/a.trace" "$tmp/c.trace" &&
   grep -q 'count="99"' "$tmp/loops.xml" &&
   pass "diff --xml --loops: valid, loop counts" ||
   fail "diff --xml --loops" "$(grep -m3 '<line' "$tmp/loops.xml")"
xml_case nosync --lookahead=1 --context=0 "$tmp/a.trace" "$tmp/b.trace" &&
   grep -q 'compared="no-sync"' "$tmp/nosync.xml" &&
   pass "diff --xml --lookahead=1: valid, the pair not compared to its end" ||
   fail "diff --xml --lookahead=1" "$(grep '<end' "$tmp/nosync.xml")"
xml_case dir "$tmp/dir" "$tmp/a2.trace" &&
   [ "$(grep -c '<only side="a"' "$tmp/dir.xml")" -eq 2 ] &&
   pass "diff --xml: a directory, threads only in A" ||
   fail "diff --xml: directory" "$(grep '<only' "$tmp/dir.xml")"
# the schema is an oracle that can fail: a document with a wrong status
sed 's/status="identical"/status="same"/' "$tmp/extra.xml" >"$tmp/bad.xml"
if command -v "$XMLLINT" >/dev/null 2>&1; then
   if "$XMLLINT" --noout --relaxng "$RNG" "$tmp/bad.xml" 2>/dev/null; then
      fail "parlot-diff.rng accepts status=\"same\""
   else
      pass "parlot-diff.rng rejects a bad status"
   fi
fi

# usage and bad input
for args in "$tmp/a.trace" "--context=x $tmp/a.trace $tmp/b.trace" \
            "--window=3 $tmp/a.trace $tmp/b.trace" "$tmp/a.trace $tmp/none"; do
   # shellcheck disable=SC2086
   run "$PARLOT_DIFF" "$tmp/out" "$tmp/err" $args
   if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -ge 1 ]; then
      pass "diff: exit 2 for '$(echo "$args" | sed "s|$tmp/||g")'"
   else
      fail "diff: '$args' exits $rc" "$(head -3 "$tmp/err")"
   fi
done
run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" --events --loops "$tmp/a.trace"
[ $rc -eq 2 ] && pass "decode: --loops without --replay is refused" ||
   fail "decode: --loops with --events exits $rc"

# The program's view in parlot-diff: a thread only one run has that runs
# none of the program's code (an MPI library's progress thread) is no
# difference; with --images=all it is one.  Filters that leave nothing to
# compare are exit 2 with one line on stderr, never "identical".
{
   echo "process pid=900 exe=/opt/app/x"
   echo "object /opt/app/x"
   echo "object /usr/lib/libmpi.so.12"
   echo "function main /opt/app/x"
   echo "function work /opt/app/x"
   echo "function progress /usr/lib/libmpi.so.12"
   echo "thread 1"
   echo "call 1 main work"
   echo "return 1 2"
} >"$tmp/lt.head"
{ cat "$tmp/lt.head"; printf 'thread 2\ncall 2 progress\nreturn 2\nend\n'; } \
   >"$tmp/lta.script"
{ sed 's/pid=900/pid=901/' "$tmp/lt.head"; echo end; } >"$tmp/ltb.script"
"$SCRIPT_TRACE" "$tmp/lta.script" "$tmp/lta.trace" &&
   "$SCRIPT_TRACE" "$tmp/ltb.script" "$tmp/ltb.trace" ||
   fail "script_trace: library threads"
run "$PARLOT_DIFF" "$tmp/out" "$tmp/err" "$tmp/lta.trace" "$tmp/ltb.trace"
rc1=$rc
grep -q "^== 1 thread only one run has, running none of the program's code" \
   "$tmp/out" && lib_line=1 || lib_line=0
run "$PARLOT_DIFF" "$tmp/out" "$tmp/err" --images=all "$tmp/lta.trace" \
   "$tmp/ltb.trace"
rc2=$rc
if [ $rc1 -eq 0 ] && [ $lib_line = 1 ] && [ $rc2 -eq 1 ] &&
   grep -q "only in A" "$tmp/out"; then
   pass "diff: a library's own thread only one run has is no difference in the program's view"
else
   fail "diff: library threads" "program view exit $rc1 (line $lib_line), all exit $rc2"
fi
run "$PARLOT_DIFF" "$tmp/out" "$tmp/err" --images=nosuch "$tmp/a.trace" \
   "$tmp/b.trace"
if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
   grep -q "no calls to compare: the filters (images=nosuch) leave none" "$tmp/err" &&
   ! grep -q "identical" "$tmp/out"; then
   pass "diff: filters that leave nothing: exit 2, one line, never identical"
else
   fail "diff: filters that leave nothing" "exit $rc: $(cat "$tmp/err")" \
      "$(tail -3 "$tmp/out")"
fi

finish
