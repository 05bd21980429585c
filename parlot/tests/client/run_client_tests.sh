#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# <valgrind/parlot.h> as programs use it, end to end:
#   - the header compiles warning-free as C and as C++ (every macro used);
#   - phases.c (marks, thread stop/start around noise(), a forked child)
#     runs natively with exit 0;
#   - traced: the parent's marks are phase #1, iteration #1..#N, phase #2,
#     in that order, each iteration mark right before a call of solve;
#     noise() is never recorded; the forked child counts its marks anew
#     (iteration #1, #2) and records two solve calls;
#   - --from-mark/--to-mark: the events between iteration #2 and #3 are
#     exactly one solve with its exchange and smooth; --xml between the
#     phase marks counts N solve calls;
#   - two runs whose setup differs (2 and 5 calls of setup()): parlot-diff
#     finds the difference (exit 1), and with --from-mark=phase compares
#     the solver phase only: identical (exit 0);
#   - --align=marks: a run whose iteration 2 of N skips solve() against a
#     full one: one hunk, after the mark of iteration 2, at the event
#     number of A's second solve call (counted in A's --events listing);
#     without marks the hunk falls on the third (the iterations look
#     alike);
#   - parlot-control on a running process (phases wait): status names its
#     thread and says recording is on; stop, mark, start, flush are taken;
#     the trace then holds the mark in the thread's stream between a
#     recording stop and start, and says it was switched twice; without a
#     process, or with a bad command line, one line and exit 1 / 2;
#   - Fortran (if gfortran is installed): parlot_fortran.c's wrappers stop
#     and start recording and mark each step with the label's trailing
#     blanks dropped.
# Environment: VALGRIND (vg-in-place or an installed valgrind), top_srcdir,
# PARLOT_DECODE, PARLOT_DIFF, PARLOT_CONTROL (default: the source tree's);
# CC, CXX, FC (defaults cc, c++, gfortran).
# Exit status: 0 if all passed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${VALGRIND:?VALGRIND must name vg-in-place or valgrind}"
: "${PARLOT_DECODE:?PARLOT_DECODE must name parlot-decode}"
: "${PARLOT_DIFF:?PARLOT_DIFF must name parlot-diff}"
top=${top_srcdir:-$here/../../..}
CC=${CC:-cc} CXX=${CXX:-c++} FC=${FC:-gfortran}
N=3

work=$(mktemp -d "${TMPDIR:-/tmp}/parlot-client.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

. "$here/../e2e_lib.sh"

# valgrind.h: beside vg-in-place (a build tree) or in the prefix
vgdir=$(dirname "$VALGRIND")
if [ -f "$vgdir/include/valgrind.h" ]; then
   INC="-I$vgdir/include"
elif [ -f "$vgdir/../include/valgrind/valgrind.h" ]; then
   INC="-I$vgdir/../include/valgrind"
else
   echo "FAIL: no valgrind.h near $VALGRIND"; exit 1
fi
INC="$INC -I$top/parlot"

# ---- the header ----------------------------------------------------------
cat >"$work/all.c" <<'EOF'
#include "parlot.h"
int main(void)
{
   PARLOT_STOP_TRACE; PARLOT_START_TRACE;
   PARLOT_STOP_THREAD_TRACE; PARLOT_START_THREAD_TRACE;
   PARLOT_MARK("x"); PARLOT_FLUSH;
   return 0;
}
EOF
for lang in c c++; do
   comp=$CC; [ $lang = c++ ] && comp=$CXX
   # shellcheck disable=SC2086
   if $comp -x $lang -Wall -Wextra -Werror $INC -o "$work/all-$lang.bin" \
         "$work/all.c" 2>"$work/cc.err" && "$work/all-$lang.bin"; then
      pass "parlot.h compiles as $lang and runs natively"
   else
      fail "parlot.h as $lang" "$(head -3 "$work/cc.err")"
   fi
done

# ---- phases.c --------------------------------------------------------------
# shellcheck disable=SC2086
if ! $CC -O0 -g $INC -o "$work/phases" "$here/phases.c" 2>"$work/cc.err"; then
   fail "build phases.c" "$(head -3 "$work/cc.err")"
   echo "$passed passed, $failed failed"; exit 1
fi
if "$work/phases" 2 $N fork; then
   pass "phases runs natively"
else
   fail "phases runs natively" "exit $?"
fi

# trace NAME ARGS...: $work/NAME.<pid>.trace, one per process
trace() {
   local name=$1
   shift
   "$VALGRIND" --tool=parlot --images=main \
      --parlot-out-file="$work/$name.%p.trace" "$work/phases" "$@" \
      >/dev/null 2>"$work/$name.err" ||
      { fail "trace $name" "$(tail -3 "$work/$name.err")"; return 1; }
}

trace run 2 $N fork || { echo "$passed passed, $failed failed"; exit 1; }
# the parent's trace is the one without forked_from_pid
parent= child=
for f in "$work"/run.*.trace; do
   if "$PARLOT_DECODE" --events "$f" >"$f.events" 2>"$work/dec.err"; then :
   else fail "decode $f" "$(cat "$work/dec.err")"; fi
done
for f in "$work"/run.*.trace; do
   pid=${f#"$work"/run.}; pid=${pid%.trace}
   # the child's file is the later one (its pid was made by the parent's
   # fork); tell them apart by their marks: the child has no "phase"
   if grep -q "	mark	[0-9]*	-	phase" "$f.events"; then parent=$f; else child=$f; fi
done

marks() { awk -F'\t' '$3 == "mark" { printf "%s#%s ", $6, $4 }' "$1"; }
want="phase#1 "
for i in $(seq 1 $N); do want="${want}iteration#$i "; done
want="${want}phase#2 "
got=$(marks "$parent.events")
[ "$got" = "$want" ] && pass "parent's marks in order ($got)" ||
   fail "parent's marks" "got:  $got" "want: $want"

# every iteration mark is followed by a call of solve
bad=$(awk -F'\t' '$3 == "mark" && $6 == "iteration" { want = 1; next }
   want { if (!($3 == "call" && $6 == "solve")) print NR": "$0; want = 0 }' \
   "$parent.events")
[ -z "$bad" ] && pass "each iteration mark precedes its solve call" ||
   fail "iteration marks out of place" "$bad"

if [ -s "$parent.events" ] && [ -s "$child.events" ] &&
   ! grep -q "	noise$" "$parent.events" "$child.events"; then
   pass "noise() is never recorded (thread stop/start)"
else
   fail "noise() was recorded while the thread had stopped (or no events)"
fi

got=$(marks "$child.events")
solves=$(grep -c "	call	[0-9]*	[^	]*	solve$" "$child.events")
[ "$got" = "iteration#1 iteration#2 " ] && [ "$solves" -eq 2 ] &&
   pass "the forked child counts its marks anew ($got; $solves solve calls)" ||
   fail "forked child's marks" "got: $got, $solves solve calls"

# ---- ranges by marks ---------------------------------------------------------
"$PARLOT_DECODE" --events --from-mark='iteration#2' --to-mark='iteration#3' \
   "$parent" >"$work/range" 2>"$work/dec.err"
got=$(awk -F'\t' '$3 == "call" { printf "%s ", $6 }' "$work/range")
[ "$got" = "solve exchange smooth " ] &&
   pass "--from-mark=iteration#2 --to-mark=iteration#3: one iteration" ||
   fail "range between marks" "got: $got $(cat "$work/dec.err")"

"$PARLOT_DECODE" --xml --from-mark=phase --to-mark='phase#2' "$parent" \
   >"$work/phase.xml" 2>"$work/dec.err"
calls=$(python3 - "$work/phase.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
ids = {f.get("id") for f in r.iter("function") if f.get("name") == "solve"}
prog = r.find("program")
print(sum(int(f.get("calls")) for f in prog.iter("fn") if f.get("ref") in ids))
EOF
)
[ "$calls" = "$N" ] && pass "--xml between the phase marks: $N solve calls" ||
   fail "--xml between the phase marks" "solve calls: $calls, want $N"

# ---- comparing one phase of two runs ---------------------------------------
trace a 2 $N && trace b 5 $N && {
   "$PARLOT_DIFF" "$work"/a.*.trace "$work"/b.*.trace >"$work/diff" 2>&1
   r1=$?
   "$PARLOT_DIFF" --from-mark=phase "$work"/a.*.trace "$work"/b.*.trace \
      >"$work/diff2" 2>&1
   r2=$?
   [ $r1 -eq 1 ] && [ $r2 -eq 0 ] &&
      pass "parlot-diff: runs differ (exit 1), their solver phases do not (exit 0)" ||
      fail "parlot-diff by marks" "exits $r1 and $r2" "$(head -5 "$work/diff2")"
}

trace skip 2 $N skip 2 && {
   "$PARLOT_DIFF" --align=marks "$work"/a.*.trace "$work"/skip.*.trace \
      >"$work/align" 2>&1
   r1=$?
   "$PARLOT_DIFF" "$work"/a.*.trace "$work"/skip.*.trace >"$work/noalign" 2>&1
   # where A's solve calls are: their event numbers, counted in A's own
   # --events listing (marks are not events)
   "$PARLOT_DECODE" --events "$work"/a.*.trace >"$work/a.events"
   solves=$(awk -F'\t' '$3 == "call" || $3 == "return" { n++ }
                $3 == "call" && $6 == "solve" { printf "%d ", n }' \
            "$work/a.events")
   at2=$(echo "$solves" | awk '{ print $2 ? $2 : "none" }')
   at3=$(echo "$solves" | awk '{ print $3 ? $3 : "none" }')
   # the hunk's first removed line, and the mark line just before it
   hunks=$(grep -c '^@@' "$work/align")
   before=$(grep -B1 '^- ' "$work/align" | grep -o '# mark iteration #[0-9]*' |
            tail -1)
   first=$(grep -m1 '^- ' "$work/align" | awk '{print $4}')
   [ $r1 -eq 1 ] && [ "$hunks" -eq 1 ] && [ "$before" = "# mark iteration #2" ] &&
      [ "$first" = solve ] && grep -q "^@@ .* @@ A event $at2," "$work/align" &&
      pass "--align=marks: the skipped solve is found in iteration 2 (A event $at2)" ||
      fail "--align=marks" "exit $r1, $hunks hunks, '$before', first '$first', want A event $at2" \
         "$(head -20 "$work/align")"
   # without marks the iterations look alike: the hunk is the last one's
   grep -q "^@@ .* @@ A event $at3," "$work/noalign" &&
      pass "without --align=marks the hunk falls on iteration 3 (A event $at3)" ||
      fail "without --align=marks" "want A event $at3" \
         "$(grep -m1 '^@@' "$work/noalign")"
}

# ---- monitor commands: parlot-control -------------------------------------
CONTROL=${PARLOT_CONTROL:-$top/parlot/parlot-control}
# vgdb of this Valgrind: beside vg-in-place (coregrind/) or the valgrind
# launcher
vgdbdir=$vgdir
[ -x "$vgdir/coregrind/vgdb" ] && vgdbdir=$vgdir/coregrind
PATH=$vgdbdir:$PATH; export PATH
"$VALGRIND" --tool=parlot --images=main --vgdb=yes \
   --parlot-out-file="$work/ctl.trace" "$work/phases" wait "$work/ctl.done" \
   >/dev/null 2>"$work/ctl.err" &
bgpid=$!
# the traced process: of those vgdb lists with this run's file, the one
# that answers once the program is in its loop (main image calls
# recorded).  vgdb also lists a dead Valgrind's leftover FIFO (a run
# killed with SIGKILL) with whatever now has its pid, which can be
# vg-in-place, the script around this run's Valgrind.
vpid= ok=0
for _ in $(seq 100); do
   for p in $(vgdb -l 2>/dev/null | grep -F "$work/ctl.done" |
              sed -n 's/^use --pid=\([0-9]*\) .*/\1/p'); do
      "$CONTROL" -p "$p" status >"$work/ctl.status" 2>&1
      if grep -q "^thread 1 .* [1-9][0-9]* events, .*recording on$" \
            "$work/ctl.status"; then
         vpid=$p ok=1
         break 2
      fi
   done
   sleep 0.1
done
for c in stop "mark after stop" start flush; do
   # shellcheck disable=SC2086
   "$CONTROL" -p $vpid $c >>"$work/ctl.out" 2>&1 || ok=0
   sleep 0.2
done
touch "$work/ctl.done"
wait $bgpid
"$PARLOT_DECODE" --replay "$work/ctl.trace" >"$work/ctl.replay" 2>&1 || ok=0
notes=$(grep '^# \(mark\|recording\)' "$work/ctl.replay" | sed 's/ after event.*//')
want="# recording stops
# mark after stop #1
# recording starts"
[ $ok -eq 1 ] && [ "$notes" = "$want" ] &&
   grep -q "recording started or stopped 2 times" "$work/ctl.replay" &&
   pass "parlot-control: status, stop, mark, start, flush on a running process" ||
   fail "parlot-control" "$(head -3 "$work/ctl.status")" \
      "$(head -4 "$work/ctl.out")" "notes: $notes" "$(head -1 "$work/ctl.replay")"
"$CONTROL" -p 1 status >"$work/ctl.out1" 2>"$work/ctl.err1"; r1=$?
"$CONTROL" bogus >/dev/null 2>"$work/ctl.err2"; r2=$?
[ $r1 -eq 1 ] && [ ! -s "$work/ctl.out1" ] && grep -q "^parlot-control: pid 1: " "$work/ctl.err1" &&
   [ $r2 -eq 2 ] && [ "$(wc -l <"$work/ctl.err2")" -eq 1 ] &&
   pass "parlot-control: no such process exits 1 (said on stderr), a bad command 2 (one line)" ||
   fail "parlot-control errors" "exits $r1 and $r2" "$(cat "$work/ctl.out1" "$work/ctl.err1" "$work/ctl.err2")"
# one version for the package: parlot-control's is parlot-decode's
v_ctl=$("$CONTROL" --version | sed -n 's/^parlot-control (ParLoT) \([^ ,]*\)$/\1/p')
v_dec=$("$PARLOT_DECODE" --version | sed -n 's/^parlot-decode (ParLoT) \([^,]*\),.*/\1/p')
[ -n "$v_ctl" ] && [ "$v_ctl" = "$v_dec" ] &&
   pass "parlot-control --version: $v_ctl, as parlot-decode's" ||
   fail "parlot-control --version '$v_ctl', parlot-decode's '$v_dec'"

# ---- Fortran -----------------------------------------------------------------
if command -v "$FC" >/dev/null 2>&1; then
   # shellcheck disable=SC2086
   if $CC -c $INC -o "$work/pf.o" "$top/parlot/parlot_fortran.c" \
         2>"$work/cc.err" &&
      $FC -O0 -g -o "$work/fphases" "$here/phases.f90" "$work/pf.o" \
         2>>"$work/cc.err"; then
      "$VALGRIND" --tool=parlot --images=main \
         --parlot-out-file="$work/f.trace" "$work/fphases" 2>"$work/f.err"
      "$PARLOT_DECODE" --events "$work/f.trace" >"$work/f.events"
      got=$(marks "$work/f.events")
      vis=$(grep -c "	call	[0-9]*	[^	]*	visible_work_$" "$work/f.events")
      hid=$(grep -c "	hidden_work_$" "$work/f.events")
      [ "$got" = "step#1 step#2 step#3 " ] && [ "$vis" -eq 3 ] &&
         [ "$hid" -eq 0 ] &&
         pass "Fortran: marks $got, visible_work 3 calls, hidden_work none" ||
         fail "Fortran wrappers" "marks: $got, visible $vis, hidden $hid"
   else
      fail "build the Fortran program" "$(head -3 "$work/cc.err")"
   fi
else
   echo "# skipped: no $FC, the Fortran wrapper is not tested"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
