#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debugging with traces, end to end: faults.c (a threaded solver whose
# faults are chosen on its command line, so that every run uses the same
# binary) is traced with the tool, and parlot-diff / parlot-decode --stacks
# must find each fault where the command line put it:
#   - two fault-free runs: parlot-diff exits 0, no difference;
#   - extra:T:I (worker T calls extra() in iteration I): exactly worker T's
#     thread (thread T+1) differs; with --loops, its loop shows iteration
#     I+1 as a variant holding compute, exchange, extra; the summary counts
#     one extra call more in B;
#   - swap:T:I: thread T+1 differs by one hunk, compute exchange against
#     exchange compute; call counts are the same;
#   - branch:T: thread T+1 calls alt_compute ITERS times instead of compute
#     (summary counts), and the hunk shows compute replaced by alt_compute;
#   - hang:T:I: the run is killed with SIGKILL after a while; --stacks puts
#     worker T's thread alone in the class worker > wait_forever, the main
#     thread in main (waiting to join it), and the other workers, which
#     finished, in "(no call open)"; parlot-diff against a good run shows
#     thread T+1's loop ran I times instead of ITERS, and exits 2 (the
#     killed trace is truncated).
# Environment: VALGRIND (vg-in-place or valgrind), PARLOT_DECODE,
# PARLOT_DIFF, CC (default cc).  Exit status: 0 if all passed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${VALGRIND:?VALGRIND must name vg-in-place or valgrind}"
: "${PARLOT_DECODE:?PARLOT_DECODE must name parlot-decode}"
: "${PARLOT_DIFF:?PARLOT_DIFF must name parlot-diff}"
CC=${CC:-cc}
W=4 N=40 T=2 I=17        # workers, iterations, the faulty worker and iteration

work=$(mktemp -d "${TMPDIR:-/tmp}/parlot-debug.XXXXXX")
trap 'rm -rf "$work"' EXIT

. "$here/../e2e_lib.sh"

if ! $CC -O0 -g -pthread -o "$work/faults" "$here/faults.c" 2>"$work/cc.err"
then
   fail "build faults.c" "$(head -3 "$work/cc.err")"
   exit 1
fi

# trace NAME FAULT [KILL_AFTER]: trace one run into $work/NAME.trace
trace() {
   local name=$1 fault=$2 kill=${3:-}
   if [ -n "$kill" ]; then
      timeout -s KILL "$kill" "$VALGRIND" --tool=parlot \
         --parlot-out-file="$work/$name.trace" "$work/faults" $W $N "$fault" \
         >/dev/null 2>"$work/$name.err"
   else
      "$VALGRIND" --tool=parlot --parlot-out-file="$work/$name.trace" \
         "$work/faults" $W $N "$fault" >/dev/null 2>"$work/$name.err"
   fi
   [ -s "$work/$name.trace" ] || { fail "trace $name" "$(tail -3 "$work/$name.err")"; return 1; }
}

trace good none && trace good2 none && trace extra extra:$T:$I &&
trace swap swap:$T:$I && trace branch branch:$T && trace hang hang:$T:$I 20 ||
   { echo "debug: $passed passed, $failed failed"; exit 1; }
pid_good=$(sed -n 's/^==\([0-9]*\)== Command:.*/\1/p' "$work/good.err" | head -1)
th=$((T + 1))

# diff_case NAME EXPECT_RC ARGS...: run parlot-diff into $work/NAME.out
diff_case() {
   local name=$1 want=$2
   shift 2
   "$PARLOT_DIFF" --images=main "$@" >"$work/$name.out" 2>"$work/$name.derr"
   rc=$?
   [ $rc -eq "$want" ] || { fail "$name: exit $rc, not $want" "$(head -3 "$work/$name.derr")"; return 1; }
}
has() { grep -Eq -- "$1" "$2"; }

diff_case same 0 "$work/good.trace" "$work/good2.trace" &&
   has '^== summary: 5 thread pairs compared, 5 identical, 0 different' "$work/same.out" &&
   ! has '^@@' "$work/same.out" && pass "two good runs are alike" ||
   fail "two good runs" "$(head -5 "$work/same.out")"

diff_case extra 1 --loops "$work/good.trace" "$work/extra.trace" &&
   has "^== threads that differ: \[p$pid_good\.$th\]\$" "$work/extra.out" &&
   has "^=== pid $pid_good thread $th \(A\)" "$work/extra.out" &&
   has "^\+ +[0-9]+ +2      iteration $((I + 1)) instead: \{\$" "$work/extra.out" &&
   [ "$(grep -A4 'iteration .* instead' "$work/extra.out" | sed -n '2,4p' | awk '{print $4}' | tr '\n' ' ')" = "compute exchange extra " ] &&
   has '^ +0 +1 +\+1  extra$' "$work/extra.out" &&
   pass "extra call: thread $th, iteration $((I + 1)), one extra call" ||
   fail "extra call" "$(grep -A8 '^@@' "$work/extra.out" | head -12)" "$(grep '^==' "$work/extra.out")"

# swapped: A's compute exchange against B's exchange compute, one hunk,
# its header naming the iteration of worker's inline loop by the step
# before it (exchange #I, then the swapped iteration I + 1)
# (event numbers differ: the fault checks call strcmp, not shown)
diff_case swap 1 "$work/good.trace" "$work/swap.trace" &&
   has "^== threads that differ: \[p$pid_good\.$th\]\$" "$work/swap.out" &&
   [ "$(grep -c '^@@' "$work/swap.out")" -eq 1 ] &&
   [ "$(grep -A20 '^@@' "$work/swap.out" | grep '^[-+] ' | awk '{print $1 $4}' | tr '\n' ' ')" = "-compute -exchange +exchange +compute " ] &&
   has "^@@ worker( #[0-9]+)? \(after exchange #$I\) @@ A event [0-9]+, B event [0-9]+\$" "$work/swap.out" &&
   has '^== calls per function: the same in A and B$' "$work/swap.out" &&
   pass "swapped calls: thread $th, one hunk, same counts" ||
   fail "swapped calls" "$(grep -A8 '^@@' "$work/swap.out" | head -12)"

diff_case branch 1 "$work/good.trace" "$work/branch.trace" &&
   has "^== threads that differ: \[p$pid_good\.$th\]\$" "$work/branch.out" &&
   has "^ +0 +$N +\+$N  alt_compute\$" "$work/branch.out" &&
   has "^ +$((W * N)) +$((W * N - N)) +-$N  compute\$" "$work/branch.out" &&
   has '^- .* compute$' "$work/branch.out" && has '^\+ .* alt_compute$' "$work/branch.out" &&
   pass "other branch: thread $th calls alt_compute $N times" ||
   fail "other branch" "$(grep '^ .*compute$' "$work/branch.out")"

# the hang: where each thread was when the run was killed
"$PARLOT_DECODE" --stacks --images=main "$work/hang.trace" >"$work/stacks.out" 2>"$work/stacks.err"
pid_hang=$(sed -n 's/^==\([0-9]*\)== Command:.*/\1/p' "$work/hang.err" | head -1)
others=$(seq 2 $((W + 1)) | grep -vx $th | tr '\n' ' ')
if grep -q 'truncated' "$work/stacks.err" &&
   has "^[0-9]+: 1:\[p$pid_hang\.$th\]  worker > wait_forever\$" "$work/stacks.out" &&
   has "^[0-9]+: 1:\[p$pid_hang\]  _start > main\$" "$work/stacks.out" &&
   has "^[0-9]+: $((W - 1)):\[.*\]  \(no call open\)\$" "$work/stacks.out"; then
   pass "hang: thread $th alone in worker > wait_forever (others: $others)"
else
   fail "hang stacks" "$(cat "$work/stacks.out" "$work/stacks.err")"
fi
diff_case hangdiff 2 --loops "$work/good.trace" "$work/hang.trace" &&
   has "\(loop ran $N times in A, $I in B\)" "$work/hangdiff.out" &&
   has "^\+ .* wait_forever$" "$work/hangdiff.out" &&
   pass "hang vs good: thread $th's loop ran $I times, then wait_forever" ||
   fail "hang vs good" "$(grep -A5 '^@@' "$work/hangdiff.out" | head -12)"

echo "debug: $passed passed, $failed failed"
[ $failed -eq 0 ]
