#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of parlot-annotate.
#
#   decoder/tests/test_annotate.sh [-q]
#
# Uses $PARLOT_ANNOTATE, $SCRIPT_TRACE and $MAKE_TRACE if set (make check
# sets them), else builds them (with $CC, default cc) from the source tree
# into a temporary directory.  Unless NO_SANITIZE=1 it also builds an
# ASan+UBSan parlot-annotate, which runs the golden reports again and every
# damaged input; with valgrind installed (NO_VALGRIND=1 skips it), a few
# runs go under memcheck too.
#
# What is checked:
#  - golden reports: traces written by script_trace from the scripts in
#    decoder/tests/annotate/*.script, whose comments derive every number of
#    the expected reports (annotate/*.exp, and annotate/*.err for stderr)
#    from the script's events: default options, --tree=both,
#    --threshold/--top cuts, three processes with --group-by=graph, shape
#    and process, --group, --select, a forked child that ends by exec with
#    frames open (inherited entries, a C++ name, a tab in a name,
#    --no-demangle), and a killed process (exit 1, one error line);
#  - an oracle (annotate/oracle.py) on random make_trace traces: from its
#    listing of the exact events encoded, the header's event counts, the
#    program totals, each object's calls, calls from outside and functions,
#    each function's calls and inclusive events, each caller and callee
#    line (--tree) and the length of each list under --threshold and --top
#    are recomputed and compared cell by cell, percentages included; with
#    several threads and codecs, a forked child, open frames (exec),
#    unmangled names, --select, and --group-by=process --group=N over two
#    traces;
#  - damaged traces (make_trace's variants) and unreadable files: exit 1,
#    exactly one line "parlot-annotate: FILE: offset N: ..." with the
#    message parlot-decode gives, and the report of what was read (none
#    when nothing could be); a process killed after a sync is reported
#    exactly (oracle);
#  - runs that did not finish: the Least progressed line names the rank
#    behind, or where every rank stopped when all stopped at one point;
#    where no rank is behind another (a master and its workers in their
#    own loops), the Stopped at line lists the positions; the least
#    progressed rank's other threads in the program's code (an OpenMP
#    worker waiting for a lock, its main thread at the region's end)
#    are named with it; ranks at one
#    point as one (a rank that skipped a reduction the others wait in,
#    the root with more prints among those); a rank that
#    ended the job (an error stop exiting with status 1, MPI_Abort killed
#    there or exiting with status 3) is named, with where it ended, by
#    an Exited early or Aborted line, and the ranks its launcher then
#    killed get no Least progressed line (one of them seemingly behind);
#    parlot-decode --progress places the rank where it exited; a crash
#    that a signal handler took (and died in) is named where the signal
#    came, the handler beside it, with no least progressed line;
#  - the command line: usage errors (exit 2, one line, no output), --help,
#    --version, -o, -o naming an input, write errors;
#  - the manual page renders without a warning (groff -ww), and documents
#    every option of --help.
# Exit status: 0 if all passed, 1 otherwise.

. "$(dirname "$0")/testlib.sh"
data=$here/annotate
need_tool parlot-annotate parlot-decode script_trace make_trace

# The sanitized build, for golden reports again and damaged inputs.
san_builds parlot-annotate || SAN_ANNOTATE=
DAMAGE_ANNOTATE=${SAN_ANNOTATE:-$PARLOT_ANNOTATE}

PYTHON=
for p in python3 python; do
   if command -v $p >/dev/null 2>&1 \
      && $p -c 'import sys; sys.exit(sys.version_info < (3, 6))' 2>/dev/null
   then
      PYTHON=$p
      break
   fi
done

ERR_PROG=parlot-annotate     # for err_is

# A whole report: header, totals, objects, both lists.
is_report() {
   grep -q '^Trace files: ' "$1" && grep -q '  PROGRAM TOTALS$' "$1" \
      && grep -q '  object$' "$1" \
      && grep -q '^Calls  *Inclusive events  *function \[object\]$' "$1" \
      && grep -q '^Inclusive events  *Calls  *function \[object\]$' "$1"
}

# paths that stay valid in another directory
for v in PARLOT_ANNOTATE SCRIPT_TRACE MAKE_TRACE; do
   eval "p=\$$v"
   case $p in
   /*) ;;
   *) eval "$v=\$(pwd)/\$p" ;;
   esac
done

# ---- Golden reports --------------------------------------------------------

for s in "$data"/*.script; do
   name=$(basename "$s" .script)
   if ! "$SCRIPT_TRACE" "$s" "$tmp/$name.trace" 2>"$tmp/st.err"; then
      fail "script_trace $name.script" "$(head -c 300 "$tmp/st.err")"
   fi
done

# golden NAME STATUS TRACES OPTIONS...: the report, run in the directory
# of the traces (so that file names are as in the .exp), must be
# annotate/NAME.exp, stderr annotate/NAME.err (or empty), exit STATUS.
# GOLDEN_UPDATE=1 writes the reports of the unsanitized build there
# instead (after a change to the report; review the diff, the oracle
# tests below check the numbers).
golden() {
   name=$1 want=$2 traces=$3
   shift 3
   for prog in "$PARLOT_ANNOTATE" $SAN_ANNOTATE; do
      tag=
      [ "$prog" = "$SAN_ANNOTATE" ] && tag=" (ASan+UBSan)"
      # shellcheck disable=SC2086
      (cd "$tmp" && $TIMEOUT "$prog" "$@" $traces) >"$tmp/g.out" \
         2>"$tmp/g.err"
      rc=$?
      errexp=$data/$name.err
      [ -f "$errexp" ] || errexp=/dev/null
      if [ "${GOLDEN_UPDATE:-}" = 1 ] && [ -z "$tag" ] && [ $rc -eq "$want" ]; then
         cp "$tmp/g.out" "$data/$name.exp"
      fi
      if [ $rc -ne "$want" ]; then
         fail "golden $name$tag: exit $rc, expected $want" \
            "$(head -c 300 "$tmp/g.err")"
      elif ! cmp -s "$tmp/g.out" "$data/$name.exp"; then
         fail "golden $name$tag: report differs" \
            "$(diff "$data/$name.exp" "$tmp/g.out" | head -8)"
      elif ! cmp -s "$tmp/g.err" "$errexp"; then
         fail "golden $name$tag: stderr differs" "$(head -c 300 "$tmp/g.err")"
      else
         pass "golden $name$tag: $* $traces"
      fi
   done
}

mpi="rank0.trace rank1.trace rank2.trace"
golden basic 0 basic.trace
golden basic-tree 0 basic.trace --tree=both
golden basic-cut 0 basic.trace --threshold=60 --top=3
golden mpi-graph 0 "$mpi" --group-by=graph
golden mpi-shape 0 "$mpi" --group-by=shape --group=2 --tree=caller
golden mpi-select 0 "$mpi" --select='*:1' --group-by=process
golden forked 0 forked.trace --tree=both
golden forked-raw 0 forked.trace --no-demangle --threshold=100
golden killed 1 killed.trace

# ---- where an unfinished run stopped -------------------------------------------
# Three ranks of a ring killed in iteration 3's exchange: all in MPI_Send
# (a deadlock of sends: nobody is behind, the header says where all are);
# rank 1 instead still in iteration 3's compute (it is behind); rank 0
# still there, after printing a line from main in each iteration (its
# reports do not make it further on).
# stopped_rank R WHERE [print]: rank R's script, killed in WHERE (send,
# compute), printing after each exchange with print
stopped_rank() {
   echo "process pid=$((600 + $1)) ppid=1 exe=/opt/ring arg0=./ring mpi_rank=$1"
   echo "object /opt/ring"
   echo "object /usr/lib/x86_64-linux-gnu/libmpi.so.40"
   echo "object /usr/lib/x86_64-linux-gnu/libc.so.6"
   for f in main compute exchange; do echo "function $f /opt/ring"; done
   for f in MPI_Send MPI_Recv; do echo "function $f /usr/lib/x86_64-linux-gnu/libmpi.so.40"; done
   echo "function printf /usr/lib/x86_64-linux-gnu/libc.so.6"
   echo "thread 1"
   echo "call 1 main"
   for it in 1 2 3; do
      echo "call 1 compute"
      [ $it = 3 ] && [ "$2" = compute ] && break
      echo "return 1"
      echo "call 1 exchange MPI_Send"
      [ $it = 3 ] && break
      echo "return 1"
      echo "call 1 MPI_Recv"; echo "return 1 2"
      [ "${3:-}" = print ] && { echo "call 1 printf"; echo "return 1"; }
   done
   echo "sync"; echo "kill"
}
mkdir -p "$tmp/deadlock" "$tmp/behind" "$tmp/root"
for r in 0 1 2; do
   stopped_rank $r send >"$tmp/st.script" &&
   "$SCRIPT_TRACE" "$tmp/st.script" "$tmp/deadlock/r$r.trace" || fail "script_trace (deadlock)"
   w=send
   [ $r = 1 ] && w=compute
   stopped_rank $r $w >"$tmp/st.script" &&
   "$SCRIPT_TRACE" "$tmp/st.script" "$tmp/behind/r$r.trace" || fail "script_trace (behind)"
   w=send p=
   [ $r = 0 ] && w=compute p=print
   stopped_rank $r $w $p >"$tmp/st.script" &&
   "$SCRIPT_TRACE" "$tmp/st.script" "$tmp/root/r$r.trace" || fail "script_trace (root)"
done
for run in deadlock behind root; do
   "$PARLOT_ANNOTATE" "$tmp/$run" >"$tmp/$run.ann" 2>/dev/null
done
if grep -qxF "Least progressed: 3:[0-2]  main > exchange #3 > MPI_Send  (all at the same point)" "$tmp/deadlock.ann" &&
   grep -qxF "Least progressed: 1:[1]  main > compute #3; last MPI call MPI_Recv in exchange #2  (2 threads further on)" "$tmp/behind.ann" &&
   grep -qxF "Least progressed: 1:[0]  main > compute #3; last MPI call MPI_Recv in exchange #2  (2 threads further on)" "$tmp/root.ann"; then
   pass "stopped runs: all ranks in one MPI_Send (all at the same point); rank 1 behind in compute; rank 0 too, its prints aside"
else
   fail "stopped runs' Least progressed" "$(grep '^Least' "$tmp/deadlock.ann" "$tmp/behind.ann" "$tmp/root.ann")"
fi

# A master and its workers killed in a hang: rank 0 in master's receive
# loop, rank 1 in worker's (a receive nobody answers), rank 2 done and in
# MPI_Barrier.  Master and worker are other calls at the same point, so
# no rank is behind another: the header lists the positions instead.
# Rank 2's path names no pass: the MPI call before its barrier does
# (its worker's second receive)
farm_rank() {
   mpi_script_head $((650 + $1)) $1 /opt/farm "main master worker compute" \
      "MPI_Send MPI_Recv MPI_Barrier"
   echo "call 1 main"
   case $1 in
   0) echo "call 1 master"
      for t in 1 2 3; do echo "call 1 MPI_Recv"; echo "return 1"; echo "call 1 MPI_Send"; echo "return 1"; done
      echo "call 1 MPI_Recv" ;;
   1) echo "call 1 worker"
      for t in 1 2; do echo "call 1 MPI_Recv"; echo "return 1"; echo "call 1 compute"; echo "return 1"; done
      echo "call 1 MPI_Recv" ;;
   2) echo "call 1 worker"
      echo "call 1 MPI_Recv"; echo "return 1"; echo "call 1 compute"; echo "return 1"
      echo "call 1 MPI_Recv"; echo "return 1"; echo "return 1"
      echo "call 1 MPI_Barrier" ;;
   esac
   echo "sync"; echo "kill"
}
script_run farm 3 farm_rank
if grep -qxF "Stopped at:       3 positions: 1:[0]  main > master > MPI_Recv #4; 1:[1]  main > worker > MPI_Recv #3; 1:[2]  main > MPI_Barrier; previous MPI call MPI_Recv #2 in worker" "$tmp/farm.ann" &&
   ! grep -q "^Least progressed" "$tmp/farm.ann"; then
   pass "stopped master and workers: no rank behind another, the header lists where they stopped"
else
   fail "stopped master and workers" "$(grep '^Least\|^Stopped' "$tmp/farm.ann")"
fi

# OpenMP in each rank: rank 2's worker thread waits for a lock nobody
# frees in its share of the 2nd parallel region; rank 2's main thread
# waits at the region's end (in GOMP_parallel), the others in the halo
# exchange after it.  The header names rank 2, and its worker where it
# waits.
omp_rank() {
   mpi_script_head $((680 + $1)) $1 /opt/hy "main sweep exchange sweep._omp_fn.0" \
      "MPI_Waitall" "GOMP_parallel omp_set_lock"
   echo "call 1 main"
   echo "thread 2"
   for it in 1 2; do
      echo "call 1 sweep GOMP_parallel sweep._omp_fn.0"; echo "return 1"
      echo "call 2 sweep._omp_fn.0"
      if [ $1 = 2 ] && [ $it = 2 ]; then echo "call 2 omp_set_lock"; break; fi
      echo "return 2"
      echo "return 1 2"
      echo "call 1 exchange MPI_Waitall"
      [ $it = 2 ] && break
      echo "return 1 2"
   done
   echo "sync"; echo "kill"
}
script_run omp 3 omp_rank
if grep -qxF "Least progressed: 1:[2]  main > sweep #2 > GOMP_parallel, after 1 call; last MPI call MPI_Waitall in exchange; its thread [2.2]  sweep._omp_fn.0 #2 > omp_set_lock  (5 threads further on)" "$tmp/omp.ann"; then
   pass "a rank waiting at a parallel region's end: its worker thread where it waits is named too"
else
   fail "the least progressed rank's worker thread" "$(grep '^Least\|^Stopped' "$tmp/omp.ann")"
fi

# Rank 1 skips its 3rd reduction (norm) and waits in the 4th iteration's
# exchange; the others wait in the 3rd reduction, rank 0 with a print per
# iteration more.  Ranks 0, 2 and 3 are at one point, whatever order the
# comparison of the others' (other calls at one point: by the calls
# their caller made, the root's prints among them) sorts them in.
skip_rank() {
   mpi_script_head $((660 + $1)) $1 /opt/mg "main norm vcycle" \
      "MPI_Sendrecv MPI_Wait" "printf"
   echo "call 1 main"
   for it in 1 2 3 4; do
      echo "call 1 vcycle MPI_Sendrecv"
      [ $it = 4 ] && break
      echo "return 1 2"
      [ $1 = 0 ] && { echo "call 1 printf"; echo "return 1"; }
      [ $1 = 1 ] && [ $it = 3 ] && continue
      echo "call 1 norm MPI_Wait"
      [ $it = 3 ] && break
      echo "return 1 2"
   done
   echo "sync"; echo "kill"
}
script_run skip 4 skip_rank
if grep -qxF "Stopped at:       2 positions: 3:[0,2-3]  main > norm #3 > MPI_Wait; 1:[1]  main > vcycle #4 > MPI_Sendrecv" "$tmp/skip.ann"; then
   pass "a rank that skipped a reduction: the three waiting in it are one position, the skipper another"
else
   fail "a skipped reduction's positions" "$(grep '^Least\|^Stopped' "$tmp/skip.ann")"
fi

# A rank that ends the job in its 3rd iteration: a Fortran error stop
# (the runtime's call exits, status 1, and the tool closes the frames
# open then, the exiting thread's end first), or MPI_Abort, where its launcher kills it (trace cut short)
# or which exits with status 3.  The launcher kills the other ranks
# wherever they were: rank 0 in its 3rd iteration, rank 2 as of its last
# flush in its 1st, behind the others.  The header names rank 1 and where
# it ended, and no rank as least progressed.
ending_rank() {    # RANK HOW: stop, abort-killed or abort-exit
   mpi_script_head $((670 + $1)) $1 /opt/mg "main solve vcycle" \
      "MPI_Sendrecv MPI_Abort" "_gfortran_error_stop_string exit"
   echo "call 1 main"
   iters=3
   [ $1 = 2 ] && iters=1
   for it in $(seq $iters); do
      echo "call 1 solve vcycle vcycle MPI_Sendrecv"
      [ $it = $iters ] && break      # waits in MPI_Sendrecv
      echo "return 1 4"
   done
   if [ $1 = 1 ]; then
      echo "return 1"
      case $2 in
      stop) echo "call 1 _gfortran_error_stop_string exit"
            echo "exit 1"; echo "end 1" ;;    # the thread that exits first
      abort-killed) echo "call 1 MPI_Abort"; echo "sync"; echo "kill" ;;
      abort-exit) echo "call 1 MPI_Abort exit"; echo "end 3" ;;
      esac
      return
   fi
   echo "sync"; echo "kill"
}
for how in stop abort-killed abort-exit; do
   script_run $how 3 ending_rank $how
done
"$PARLOT_DECODE" --progress "$tmp/stop" >"$tmp/stop.progress" 2>/dev/null
if grep -qxF "Exited early:     [1]  main > solve #3 > vcycle x2 > _gfortran_error_stop_string; last MPI call MPI_Sendrecv in vcycle  (exit status 1)" "$tmp/stop.ann" &&
   grep -qxF "Aborted:          [1]  main > solve #3 > vcycle x2 > MPI_Abort" "$tmp/abort-killed.ann" &&
   grep -qxF "Aborted:          [1]  main > solve #3 > vcycle x2 > MPI_Abort  (exit status 3)" "$tmp/abort-exit.ann" &&
   ! grep -q "^Least progressed\|^Stopped at" "$tmp/stop.ann" "$tmp/abort-killed.ann" "$tmp/abort-exit.ann" &&
   grep -qF "1:[1]  main > solve #3 > vcycle x2 > _gfortran_error_stop_string; last MPI call MPI_Sendrecv in vcycle  (exited here: exit status 1)" "$tmp/stop.progress"; then
   pass "a rank that ended the job (error stop, MPI_Abort killed or exiting): named with where it ended, no least progressed among the ranks killed after it"
else
   fail "runs a rank ended" "$(grep -h '^Exited\|^Aborted\|^Least\|^Stopped' "$tmp"/stop.ann "$tmp"/abort-*.ann)" "$(tail -4 "$tmp/stop.progress")"
fi

# Rank 1 crashes in smooth in its 3rd iteration, and a signal handler (as
# gfortran's runtime and UCX install one) takes the signal and dies in it;
# the launcher kills the others (rank 2 as of its last flush, in its 1st
# iteration).  The crash line names smooth, the handler beside it, and no
# rank is least progressed.
crash_rank() {
   mpi_script_head $((690 + $1)) $1 /opt/mg "main solve vcycle smooth on_fault report" \
      "MPI_Sendrecv"
   echo "call 1 main"
   iters=3
   [ $1 = 2 ] && iters=1
   for it in $(seq $iters); do
      if [ $1 = 1 ] && [ $it = 3 ]; then
         echo "call 1 solve vcycle vcycle smooth"
         echo "call 1 on_fault report"
         echo "crash 11 SIGSEGV 1 handler=5"
         return
      fi
      echo "call 1 solve vcycle vcycle MPI_Sendrecv"
      [ $it = $iters ] && break
      echo "return 1 4"
   done
   echo "sync"; echo "kill"
}
script_run crash 3 crash_rank
if grep -qxF "Crashed:          [1]  main > solve #3 > vcycle x2 > smooth, after 1 call; in a signal handler: on_fault; last MPI call MPI_Sendrecv in vcycle  (SIGSEGV)" "$tmp/crash.ann" &&
   ! grep -q "^Least progressed\|^Stopped at" "$tmp/crash.ann"; then
   pass "a crash a signal handler took: the crash line names where the signal came, the handler beside it; no least progressed among the ranks killed after it"
else
   fail "a crash in a signal handler" "$(grep '^Crashed\|^Least\|^Stopped' "$tmp/crash.ann")"
fi

# ---- script_trace itself ----------------------------------------------------

# A long script: streams of several chunks (the encoder's buffer fills),
# both codecs; the reader checks the totals of THREAD_END and PROCESS_END.
awk 'BEGIN {
   print "process pid=7 exe=/bin/long"
   print "object /bin/long"
   for (f = 0; f < 300; f++) print "function f" f " /bin/long"
   print "thread 1"; print "thread 2 codec=raw"
   x = 1
   for (i = 0; i < 30000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648
      t = 1 + i % 2
      print "call " t " f" (x % 300) " f" (int(x / 300) % 300)
      print "return " t " 2"
      if (i % 7000 == 0) print "sync"
   }
   print "end" }' >"$tmp/long.script"
if ! "$SCRIPT_TRACE" "$tmp/long.script" "$tmp/long.trace" 2>"$tmp/st.err"; then
   fail "script_trace: a long script" "$(head -c 300 "$tmp/st.err")"
else
   run "$PARLOT_ANNOTATE" "$tmp/l.out" "$tmp/l.err" "$tmp/long.trace"
   if [ $rc -eq 0 ] && [ ! -s "$tmp/l.err" ] && grep -q \
         '^Events:           120,000 (60,000 calls, 60,000 returns)$' "$tmp/l.out"
   then
      size=$(wc -c <"$tmp/long.trace")
      pass "script_trace: a long script ($size bytes) is a valid trace"
   else
      fail "script_trace: a long script: exit $rc" "$(head -c 300 "$tmp/l.err")" \
         "$(grep '^Events' "$tmp/l.out")"
   fi
fi

# Scripts that would make an invalid trace are refused.
bad_script() { # description regex script-lines...
   d=$1 re=$2
   shift 2
   printf '%s\n' "$@" >"$tmp/bad.script"
   "$SCRIPT_TRACE" "$tmp/bad.script" "$tmp/bad.trace" 2>"$tmp/st.err"
   rc=$?
   if [ $rc -eq 2 ] && grep -Eq "^script_trace: .*bad.script:[0-9]+: .*$re" \
         "$tmp/st.err"; then
      pass "script_trace refuses $d"
   else
      fail "script_trace refuses $d: exit $rc" "$(head -c 300 "$tmp/st.err")"
   fi
}
hdr="process pid=1"
bad_script "a return on an empty stack" "thread 1 returns with an empty" \
   "$hdr" "thread 1" "return 1" "end"
bad_script "an undefined function" "no function 'f'" \
   "$hdr" "thread 1" "call 1 f" "end"
bad_script "threads out of order" "the next thread is number 1" \
   "$hdr" "thread 2" "end"
bad_script "a function of an undefined object" "no object '/x'" \
   "$hdr" "function f /x" "end"
bad_script "returning into inherited frames" "before its 1 inherited" \
   "$hdr" "function f" "thread 1 inherited=2" "call 1 f" "return 1" "end"
bad_script "a script without an end" "must end with end, exec, kill or crash" \
   "$hdr" "thread 1"
bad_script "commands after end" "nothing may follow" "$hdr" "end" "thread 1"

# ---- Oracle on random traces ------------------------------------------------

# oracle NAME "ANNOTATE OPTIONS" "ORACLE OPTIONS" TRACE LISTING...
oracle() {
   name=$1 aopts=$2 oopts=$3 trace=$4
   shift 4
   # shellcheck disable=SC2086
   run "$PARLOT_ANNOTATE" "$tmp/o.out" "$tmp/o.err" $aopts $trace
   if [ $rc -ne 0 ] || [ -s "$tmp/o.err" ]; then
      fail "oracle $name: exit $rc" "$(head -c 300 "$tmp/o.err")"
      return
   fi
   # shellcheck disable=SC2086
   if why=$($PYTHON "$data/oracle.py" "$tmp/o.out" "$@" $oopts 2>&1); then
      pass "oracle $name: $aopts"
   else
      fail "oracle $name: $aopts" "$(printf '%s\n' "$why" | head -5 | cut -c1-400)"
   fi
}

# make NAME make_trace-options...: $tmp/NAME.trace and .list (function
# names are unique per object with at most 33 functions)
make() {
   mk=$1
   shift
   "$MAKE_TRACE" "$@" "$tmp/$mk.trace" "$tmp/$mk.list" "$tmp/$mk.exp" \
      || fail "make_trace $mk $*"
}

if [ -n "$PYTHON" ]; then
   make r1 --seed 1 --functions 30 --events 3000 --threads 4
   make r2 --seed 2 --functions 33 --events 800 --threads 6 --codec raw
   make r3 --seed 3 --functions 12 --events 2000 --threads 1 --codec lzze
   make r4 --seed 4 --functions 25 --events 1500 --threads 3 --fork 7
   make r5 --seed 5 --functions 30 --events 2000 --variant exec
   make r6 --seed 6 --functions 30 --events 500 --threads 2 --raw-names 1
   make r7 --seed 7 --functions 20 --events 0 --threads 2
   for r in r1 r2 r3 r5 r7; do
      oracle "$r" "--tree=both --threshold=100" "--tree both --threshold 100" \
         "$tmp/$r.trace" "$tmp/$r.list"
   done
   oracle r4-forked "--tree=both --threshold=100" \
      "--tree both --threshold 100 --inherited 4242:1:7" \
      "$tmp/r4.trace" "$tmp/r4.list"
   oracle r6-raw-names "--no-demangle --tree=calling --threshold=100" \
      "--tree calling --threshold 100" "$tmp/r6.trace" "$tmp/r6.list"
   # thresholds (by calls: until PCT% of the calls; by inclusive events:
   # above (100-PCT)% of the events) and --top, on a short trace
   make c1 --seed 8 --functions 30 --events 400 --threads 3
   for t in 0 1 33.3 50 90 99 99.99 100; do
      for n in 0 3; do
         oracle "c1-cut" "--tree=caller --threshold=$t --top=$n" \
            "--tree caller --threshold $t --top $n" \
            "$tmp/c1.trace" "$tmp/c1.list"
      done
   done
   oracle "r1-default" "" "" "$tmp/r1.trace" "$tmp/r1.list"
   # selections
   oracle "r1-select" "--select=*:2 --tree=both --threshold=100" \
      "--select 4242:2 --tree both --threshold 100" \
      "$tmp/r1.trace" "$tmp/r1.list"
   oracle "r2-select" "--select=4242:1-2 --select=4242:5 --threshold=100" \
      "--select 4242:1 --select 4242:2 --select 4242:5 --threshold 100" \
      "$tmp/r2.trace" "$tmp/r2.list"
   # a group of two traces: the second
   oracle "r2-group" "--group-by=process --group=2 --tree=both --threshold=100" \
      "--group 2 --tree both --threshold 100" \
      "$tmp/r1.trace $tmp/r2.trace" "$tmp/r2.list"
   # a killed process whose streams were synced: every event is read
   make k1 --seed 11 --functions 30 --threads 4 --variant killed-synced
   run "$PARLOT_ANNOTATE" "$tmp/k.out" "$tmp/k.err" --tree=both \
      --threshold=100 "$tmp/k1.trace"
   if [ $rc -ne 1 ] || ! why=$(err_is "$tmp/k.err" "$tmp/k1.trace" \
         "$(sed -n 2p "$tmp/k1.exp")"); then
      fail "oracle killed-synced: exit $rc" "${why:-}"
   elif ! why=$($PYTHON "$data/oracle.py" "$tmp/k.out" "$tmp/k1.list" \
         --tree both --threshold 100 2>&1); then
      fail "oracle killed-synced" "$(printf '%s\n' "$why" | head -5)"
   else
      pass "oracle killed-synced: exact report of a killed process, exit 1"
   fi
else
   echo "# skipped: no python3 for the oracle tests"
fi

# ---- Damaged and unreadable traces ------------------------------------------

variant() { # variant seed [make_trace options...]
   v=$1 seed=$2
   shift 2
   t=$tmp/v-$v-$seed
   if ! "$MAKE_TRACE" --seed "$seed" --threads 4 --fork 6 --variant "$v" \
         "$@" "$t.trace" "$t.list" "$t.exp"; then
      fail "variant $v: make_trace failed"
      return
   fi
   run "$DAMAGE_ANNOTATE" "$t.out" "$t.err" --tree=both "$t.trace"
   if [ $rc -ne 1 ]; then
      fail "variant $v (seed $seed): exit $rc, expected 1" \
         "$(head -c 300 "$t.err")"
   elif ! why=$(err_is "$t.err" "$t.trace" "$(sed -n 2p "$t.exp")"); then
      fail "variant $v (seed $seed): $why"
   elif ! is_report "$t.out" \
        || ! grep -q '^Trace files:      1 (.*), 1 damaged or truncated$' "$t.out"; then
      fail "variant $v (seed $seed): no report of what was read"
   else
      pass "variant $v (seed $seed): report, then $(cut -c1-90 "$t.err")"
   fi
}

for v in killed zero-tail bad-exit bad-id bad-inherit crc missing bad-len \
         raw-long raw-short raw-stuck empty-chunk exec-mid-event after-end \
         open-frames count end-raw; do
   variant "$v" 11
   variant "$v" 12 --codec raw --chunk 5
done

bad_input() { # description file regex
   run "$DAMAGE_ANNOTATE" "$tmp/b.out" "$tmp/b.err" "$2"
   if [ $rc -ne 1 ]; then
      fail "$1: exit $rc, expected 1" "$(head -c 300 "$tmp/b.err")"
   elif ! why=$(err_is "$tmp/b.err" "$2" "$3"); then
      fail "$1: $why"
   elif [ -s "$tmp/b.out" ]; then
      fail "$1: a report of nothing read (the error line says it all)" \
         "$(head -3 "$tmp/b.out")"
   else
      pass "$1: $(cut -c1-100 "$tmp/b.err")"
   fi
}

: >"$tmp/empty.trace"
bad_input "empty file" "$tmp/empty.trace" '^offset 0: empty file$'
bad_input "nonexistent file" "$tmp/does-not-exist" \
   '^offset 0: cannot open: No such file or directory$'
printf 'GIF89a this is not a trace at all' >"$tmp/magic.trace"
bad_input "bad magic" "$tmp/magic.trace" '^offset 0: not a ParLoT trace'

# a bad file among good ones: the good ones are reported as without it
(cd "$tmp" && "$PARLOT_ANNOTATE" --group-by=process rank0.trace \
   magic.trace rank1.trace rank2.trace >m.out 2>m.err)
rc=$?
# shellcheck disable=SC2086
(cd "$tmp" && "$PARLOT_ANNOTATE" --group-by=process $mpi >m.exp 2>/dev/null)
if [ $rc -ne 1 ] || ! err_is "$tmp/m.err" magic.trace 'not a ParLoT' >/dev/null
then
   fail "a bad file among good ones: exit $rc" "$(head -c 300 "$tmp/m.err")"
elif ! grep -v '^Trace files:' "$tmp/m.exp" >"$tmp/m1" \
     || ! grep -v '^Trace files:' "$tmp/m.out" >"$tmp/m2" \
     || ! cmp -s "$tmp/m1" "$tmp/m2"; then
   fail "a bad file among good ones: the report differs beyond the file list" \
      "$(diff "$tmp/m1" "$tmp/m2" | head -6)"
elif ! grep -q "^Trace files:      4 (rank0.trace, magic.trace, rank1.trace, \
rank2.trace), 1 unreadable\$" "$tmp/m.out"; then
   fail "a bad file among good ones: bad file list" \
      "$(grep '^Trace files' "$tmp/m.out")"
else
   pass "a bad file among good ones: the others are reported, exit 1"
fi

# ---- Command line -----------------------------------------------------------

good=$tmp/basic.trace

# usage DESCRIPTION ARGS...: exit 2, one line on stderr, nothing on stdout
usage() {
   d=$1
   shift
   run "$PARLOT_ANNOTATE" "$tmp/c.out" "$tmp/c.err" "$@"
   if [ $rc -ne 2 ]; then
      fail "usage error ($d): exit $rc, expected 2" "$(head -c 300 "$tmp/c.err")"
   elif [ "$(wc -l <"$tmp/c.err")" -ne 1 ] || [ -s "$tmp/c.out" ] \
        || ! grep -q "^parlot-annotate: .*(try 'parlot-annotate --help')$" \
                "$tmp/c.err"; then
      fail "usage error ($d): not exactly one line" "$(head -c 300 "$tmp/c.err")"
   else
      pass "usage error, one line: $(cut -c18-100 "$tmp/c.err")"
   fi
}

usage "no trace"
usage "unknown option" --bogus "$good"
usage "unknown short option" -x "$good"
usage "missing argument" "$good" -o
usage "bad tree" --tree=callers "$good"
usage "threshold above 100" --threshold=100.5 "$good"
usage "threshold not a number" --threshold=abc "$good"
usage "threshold with 3 decimals" --threshold=99.125 "$good"
usage "threshold empty" --threshold= "$good"
usage "top negative" --top=-1 "$good"
usage "top not a number" --top=ten "$good"
usage "group 0" --group=0 "$good"
usage "bad group-by" --group-by=rank "$good"
usage "group without groups" --group=1 --group-by=none "$good"
usage "bad selection" --select=abc "$good"
usage "group beyond the groups" --group-by=graph --group=3 "$good"

cli_ok() { # description args...
   d=$1
   shift
   run "$PARLOT_ANNOTATE" "$tmp/c.out" "$tmp/c.err" "$@"
   if [ $rc -ne 0 ] || [ -s "$tmp/c.err" ]; then
      fail "$d: exit $rc" "$(head -c 300 "$tmp/c.err")"
      return 1
   fi
   return 0
}

cli_ok "--help" --help && grep -q -- '--threshold=PCT' "$tmp/c.out" \
   && grep -q -- '--tree=KIND' "$tmp/c.out" && pass "--help"
cli_ok "--version" --version \
   && grep -q '^parlot-annotate (ParLoT) .*, trace format 1\.' "$tmp/c.out" \
   && pass "--version"
cli_ok "threshold 99.5%" --threshold=99.5% "$good" \
   && grep -q '^Threshold:        99.5%$' "$tmp/c.out" && pass "--threshold=99.5%"
cli_ok "--group implies --group-by=process" --group=1 "$tmp/rank0.trace" \
   "$tmp/rank1.trace" && grep -q '^Groups:           2, by process$' "$tmp/c.out" \
   && grep -q '  GROUP 1 TOTALS$' "$tmp/c.out" && pass "--group alone groups by process"
cli_ok "a selection leaves processes out" --select=201 --group-by=process \
   "$tmp/rank0.trace" "$tmp/rank1.trace" "$tmp/rank2.trace" \
   && grep -q '^Processes:        1 of 3 selected (pid 201; rank 1)$' \
         "$tmp/c.out" \
   && grep -q '^Groups:           1, by process$' "$tmp/c.out" \
   && grep -q '  1: 201:1-2$' "$tmp/c.out" \
   && pass "a selection leaves processes out of the header and the groups"
run "$PARLOT_ANNOTATE" "$tmp/ref.out" "$tmp/ref.err" "$good"
cli_ok "-o FILE" -o "$tmp/o.txt" "$good" && [ ! -s "$tmp/c.out" ] \
   && cmp -s "$tmp/o.txt" "$tmp/ref.out" && pass "-o FILE"
cli_ok "--output=FILE" --output="$tmp/o2.txt" "$good" \
   && cmp -s "$tmp/o2.txt" "$tmp/ref.out" && pass "--output=FILE"
cp "$good" "$tmp/self.trace"
run "$PARLOT_ANNOTATE" "$tmp/c.out" "$tmp/c.err" -o "$tmp/self.trace" \
   "$tmp/self.trace"
if [ $rc -eq 2 ] && cmp -s "$tmp/self.trace" "$good" \
   && grep -q 'output file is also an input$' "$tmp/c.err"; then
   pass "-o naming an input is refused"
else
   fail "-o naming an input: exit $rc"
fi
if [ -w /dev/full ]; then
   run "$PARLOT_ANNOTATE" "$tmp/c.out" "$tmp/c.err" -o /dev/full "$good"
   if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/c.err")" -eq 1 ] \
      && grep -q '^parlot-annotate: /dev/full: write error: No space' "$tmp/c.err"
   then
      pass "write error on /dev/full"
   else
      fail "write error on /dev/full: exit $rc" "$(head -c 300 "$tmp/c.err")"
   fi
   "$PARLOT_ANNOTATE" "$good" >/dev/full 2>"$tmp/c.err"
   rc=$?
   if [ $rc -eq 1 ] && grep -q 'standard output: write error' "$tmp/c.err"; then
      pass "write error on standard output"
   else
      fail "write error on standard output: exit $rc"
   fi
fi

# ---- The manual page --------------------------------------------------------

man=$top/docs/parlot-annotate.1
if command -v groff >/dev/null 2>&1; then
   if groff -man -Tutf8 -ww -z "$man" >"$tmp/groff.err" 2>&1 \
      && [ ! -s "$tmp/groff.err" ]; then
      pass "parlot-annotate.1 renders without warnings (groff -ww)"
   else
      fail "parlot-annotate.1: groff warnings" "$(head -5 "$tmp/groff.err")"
   fi
else
   echo "# skipped: no groff to check the manual page"
fi
"$PARLOT_ANNOTATE" --help >"$tmp/help.txt"
missing=
# shellcheck disable=SC2013
for o in $(grep -o -- '--[a-z][a-z-]*' "$tmp/help.txt" | sort -u); do
   # options appear in the page as \-\-name
   pat=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
   grep -q -- "$pat" "$man" || missing="$missing $o"
done
if [ -z "$missing" ]; then
   pass "parlot-annotate.1 documents every option of --help"
else
   fail "parlot-annotate.1 does not document:$missing"
fi

# ---- Valgrind memcheck ------------------------------------------------------

VALGRIND=${VALGRIND:-valgrind}    # make check passes the Valgrind it built
if [ "${NO_VALGRIND:-0}" != 1 ] && command -v "$VALGRIND" >/dev/null 2>&1; then
   ranks="$tmp/rank0.trace $tmp/rank1.trace $tmp/rank2.trace"
   for args in "--tree=both $good" "--group-by=graph --group=2 --tree=both $ranks" \
               "--tree=caller $tmp/v-crc-11.trace" "$tmp/magic.trace"; do
      # shellcheck disable=SC2086
      "$VALGRIND" -q --error-exitcode=99 --leak-check=full \
         --errors-for-leak-kinds=definite,indirect \
         "$PARLOT_ANNOTATE" $args >/dev/null 2>"$tmp/vg.err"
      rc=$?
      if [ $rc = 0 ] || [ $rc = 1 ]; then
         pass "memcheck clean: $(basename "${args##* }") ${args%% *}"
      else
         fail "memcheck: $args: exit $rc" "$(head -20 "$tmp/vg.err")"
      fi
   done
fi

finish always
