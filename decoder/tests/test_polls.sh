#!/bin/sh
# SPDX-License-Identifier: MIT
# MPI's polls (MPI_Test, MPI_Iprobe, ...: pl_runtime_mpi_poll) in the
# views that compare calls.  A rank that overlaps its exchange with work
# tests its requests as often as the timing has it, so two correct runs,
# or two ranks of one, differ in those counts and in nothing else.
#
#   decoder/tests/test_polls.sh [-q]
#
# Uses $PARLOT_DECODE, $PARLOT_ANNOTATE, $PARLOT_DIFF and $SCRIPT_TRACE if
# set (make check sets them), else builds them.
#
# The runs are written by script_trace, so every call is known: 6 ranks of
# a ring, each iteration a step that computes, posts MPI_Irecv and
# MPI_Isend, calls MPI_Test K times (K from the rank, the iteration and a
# seed: 0 to 6; opal_progress inside each, as a library polls), waits in
# MPI_Waitall and reduces in MPI_Allreduce.  Checked:
#  - outliers: the ranks of one run, with their different poll counts, are
#    one class and none is an outlier; with rank 2 making one extra call,
#    rank 2 alone, for that call;
#  - parlot-diff: two runs whose poll counts differ everywhere (another
#    seed) are the same (exit 0); with the extra call, one hunk, on rank
#    2, the extra call alone; with --images=all the polls count again;
#  - progress of a hang: rank 1 spins on MPI_Test in iteration 6 (never
#    reaching its MPI_Waitall) while the others wait in that iteration's
#    MPI_Allreduce, all killed: the least progressed is rank 1, polling
#    since its MPI_Isend of iteration 6, although it made far more calls
#    than the others (parlot-decode --progress, parlot-annotate's header,
#    parlot-diff's progress block).
#  - the names: C, profiling and Fortran bindings are polls, other MPI
#    functions that begin like one are not (parlot-decode --replay
#    --images=program keeps them all: only comparisons leave polls out).
# Exit status: 0 if all passed, 1 otherwise.

. "$(dirname "$0")/testlib.sh"
need_tool parlot-decode parlot-annotate parlot-diff script_trace

LIBMPI=/usr/lib/x86_64-linux-gnu/libmpi.so.40

# ring_script RANK SEED FAULT: FAULT none, extra (rank 2 calls extra in
# iteration 5) or hang (rank 1 polls forever in iteration 6; every rank
# is killed there, the others in MPI_Allreduce)
ring_script() {
   r=$1 seed=$2 fault=$3
   echo "process pid=$((4000 + r)) ppid=1 exe=/opt/ring/ring arg0=./ring mpi_rank=$r"
   echo "object /opt/ring/ring"
   echo "object $LIBMPI"
   for f in main step compute extra; do echo "function $f /opt/ring/ring"; done
   for f in MPI_Irecv MPI_Isend MPI_Test MPI_Waitall MPI_Allreduce opal_progress; do
      echo "function $f $LIBMPI"
   done
   echo "thread 1"
   echo "call 1 main"
   for it in 1 2 3 4 5 6 7 8; do
      echo "call 1 step compute"; echo "return 1"
      if [ "$fault" = extra ] && [ "$r" = 2 ] && [ $it = 5 ]; then
         echo "call 1 extra"; echo "return 1"
      fi
      echo "call 1 MPI_Irecv"; echo "return 1"
      echo "call 1 MPI_Isend"; echo "return 1"
      if [ "$fault" = hang ] && [ $it = 6 ]; then
         if [ "$r" = 1 ]; then
            k=0
            while [ $k -lt 40 ]; do
               echo "call 1 MPI_Test opal_progress"; echo "return 1 2"; k=$((k + 1))
            done
            echo "call 1 MPI_Test opal_progress"
         else
            echo "call 1 MPI_Waitall"; echo "return 1"
            echo "call 1 MPI_Allreduce opal_progress"
         fi
         echo "sync"
         echo "kill"
         return
      fi
      k=$(( (r * 5 + it * 3 + seed) % 7 ))
      while [ $k -gt 0 ]; do
         echo "call 1 MPI_Test opal_progress"; echo "return 1 2"; k=$((k - 1))
      done
      echo "call 1 MPI_Waitall"; echo "return 1"
      echo "call 1 MPI_Allreduce"; echo "return 1"
      echo "return 1"
   done
   echo "return 1"
   echo "end"
}

# ring NAME SEED FAULT: the 6 ranks' traces in $tmp/NAME/
ring() {
   mkdir -p "$tmp/$1"
   for r in 0 1 2 3 4 5; do
      ring_script $r "$2" "$3" >"$tmp/$1.script"
      "$SCRIPT_TRACE" "$tmp/$1.script" "$tmp/$1/r$r.trace" || return 1
   done
}

ring good 0 none && ring other 1 none && ring bad 1 extra && ring hang 0 hang ||
   { fail "script_trace failed"; finish; }

# the poll counts do differ between the ranks and between the runs
"$PARLOT_DECODE" --events "$tmp"/good/*.trace | grep -c "call.*MPI_Test$" >"$tmp/n.good"
"$PARLOT_DECODE" --events "$tmp"/other/*.trace | grep -c "call.*MPI_Test$" >"$tmp/n.other"

# ---- outliers ------------------------------------------------------------------
"$PARLOT_ANNOTATE" "$tmp/good" >"$tmp/good.ann" 2>&1
"$PARLOT_ANNOTATE" "$tmp/bad" >"$tmp/bad.ann" 2>&1
if grep -qx "Outlier ranks:    none of 6 (1 class)" "$tmp/good.ann"; then
   pass "outliers: 6 ranks polling $(cat "$tmp/n.good") times in all, differently: one class, none"
else
   fail "outliers of ranks that poll differently" "$(grep '^Outlier ranks' "$tmp/good.ann")"
fi
if grep -qx "Outlier ranks:    1 of 6: rank 2 (only here: extra); more under Ranks below" "$tmp/bad.ann" &&
   grep -qx "Outliers:         1 (rank 2)" "$tmp/bad.ann"; then
   pass "outliers: rank 2's extra call found among the polls"
else
   fail "outliers: rank 2's extra call" "$(grep '^Outlier' "$tmp/bad.ann")"
fi

# ---- parlot-diff -----------------------------------------------------------------
"$PARLOT_DIFF" "$tmp/good" "$tmp/other" >"$tmp/same.diff" 2>&1
rc=$?
if [ $rc = 0 ] && [ "$(cat "$tmp/n.good")" != "$(cat "$tmp/n.other")" ]; then
   pass "parlot-diff: two runs polling $(cat "$tmp/n.good") and $(cat "$tmp/n.other") times are the same (exit 0)"
else
   fail "parlot-diff of runs that poll differently" "exit $rc" "$(sed -n 3,8p "$tmp/same.diff")"
fi
"$PARLOT_DIFF" "$tmp/good" "$tmp/bad" >"$tmp/bad.diff" 2>&1
rc=$?
plus=$(grep -c '^+' "$tmp/bad.diff")
minus=$(grep -c '^-' "$tmp/bad.diff")
if [ $rc = 1 ] && grep -qx "== threads that differ: \[2\]" "$tmp/bad.diff" &&
   [ "$plus" = 2 ] && [ "$minus" = 1 ] && grep -q '^+ .* extra$' "$tmp/bad.diff"; then
   pass "parlot-diff: rank 2's extra call is the one difference (exit 1)"
else
   fail "parlot-diff: rank 2's extra call" "exit $rc, $plus + and $minus - lines" \
      "$(grep -v '^ ' "$tmp/bad.diff" | head -8)"
fi
"$PARLOT_DIFF" --images=all "$tmp/good" "$tmp/other" >"$tmp/all.diff" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "MPI_Test" "$tmp/all.diff"; then
   pass "parlot-diff --images=all compares the polls (exit 1)"
else
   fail "parlot-diff --images=all" "exit $rc"
fi

# ---- the progress of a hang ---------------------------------------------------------
want="1:[1]  main > step #6 > MPI_Test #41, polling since MPI_Isend  (least progressed)"
"$PARLOT_DECODE" --progress "$tmp"/hang/*.trace >"$tmp/hang.prog" 2>&1
"$PARLOT_ANNOTATE" "$tmp/hang" >"$tmp/hang.ann" 2>&1
"$PARLOT_DIFF" "$tmp/good" "$tmp/hang" >"$tmp/hang.diff" 2>&1
if grep -qxF "1: $want" "$tmp/hang.prog" &&
   grep -qxF "2: 5:[0,2-5]  main > step #6 > MPI_Allreduce" "$tmp/hang.prog" &&
   grep -qxF "Least progressed: 1:[1]  main > step #6 > MPI_Test #41, polling since MPI_Isend  (5 threads further on)" "$tmp/hang.ann" &&
   grep -qxF "1: $want" "$tmp/hang.diff"; then
   pass "a hang: rank 1, spinning on MPI_Test, is the least progressed (--progress, annotate, diff)"
else
   fail "a hang polling on MPI_Test" "$(grep -A2 '^== progress' "$tmp/hang.prog")" \
      "$(grep '^Least' "$tmp/hang.ann")"
fi

# ---- the names ---------------------------------------------------------------------
polls="MPI_Test PMPI_Testall MPI_Testany MPI_Testsome MPI_Iprobe MPI_Improbe
       MPI_Request_get_status mpi_test_ mpi_testall__ pmpi_iprobe_ MPI_TESTANY
       mpi_testsome_f08 mpi_test_f08_"
others="MPI_Test_cancelled MPI_Testing mpi_probe_ MPI_Wait MPI_Tests"
# as the readers name them (a Fortran binding by its C name)
others_shown="MPI_Probe MPI_Test_cancelled MPI_Testing MPI_Tests MPI_Wait"
# names_script TIMES: main calls each of those functions TIMES times
names_script() {
   echo "process pid=99 ppid=1 exe=/opt/ring/ring arg0=./ring"
   echo "object /opt/ring/ring"
   echo "object $LIBMPI"
   echo "function main /opt/ring/ring"
   for f in $polls $others; do echo "function $f $LIBMPI"; done
   echo "thread 1"
   echo "call 1 main"
   for f in $polls $others; do
      n=0
      while [ $n -lt "$1" ]; do echo "call 1 $f"; echo "return 1"; n=$((n + 1)); done
   done
   echo "return 1"
   echo "end"
}
mkdir -p "$tmp/names-a" "$tmp/names-b"
names_script 1 >"$tmp/names1.script"
names_script 2 >"$tmp/names2.script"
"$SCRIPT_TRACE" "$tmp/names1.script" "$tmp/names-a/t" &&
"$SCRIPT_TRACE" "$tmp/names2.script" "$tmp/names-b/t" || fail "script_trace (names)"
# the functions whose calls differ: the others only
"$PARLOT_DIFF" "$tmp/names-a" "$tmp/names-b" >"$tmp/names.diff" 2>&1
got=$(sed -n 's/^ *1 *2 *+1  //p' "$tmp/names.diff" | sort | tr '\n' ' ')
want_others=$(for f in $others_shown; do echo "$f"; done | sort | tr '\n' ' ')
"$PARLOT_DECODE" --replay "$tmp/names-a/t" >"$tmp/names.replay" 2>&1
shown=$(grep -c "^ *[0-9]* *2 " "$tmp/names.replay")
# shellcheck disable=SC2086
if [ "$got" = "$want_others" ] && [ "$shown" = "$(echo $polls $others | wc -w)" ]; then
   pass "the names: $(echo $polls | wc -w) polls left out of parlot-diff's counts, $(echo $others | wc -w) other MPI calls kept; --replay shows all"
else
   fail "the polls' names" "counted: $got" "expected: $want_others" "replay shows $shown"
fi

finish
