#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of the program-level report across ranks (decoder/pl_outliers.c):
# parlot-annotate's Ranks section and parlot-decode --xml's <ranks>.
#
#   decoder/tests/test_outliers.sh [-q]
#
# Uses $PARLOT_DECODE, $PARLOT_ANNOTATE, $SCRIPT_TRACE, $MAKE_TRACE and
# $XMLLINT if set (make check sets them), else builds the tools from the
# source tree into a temporary directory and takes xmllint from $PATH.
#
# What is checked:
#  - "ranks" written by script_trace (5 processes, mpi_rank 0..4) running
#    the same loop, where one rank deliberately differs: it calls a
#    function the others do not; it skips one they call; it calls one of
#    theirs more often (same shape: classes by call counts); it calls a
#    function of theirs from another caller (an edge only it takes).  The
#    report and the XML name exactly that rank as the one outlier, with
#    exactly the expected differences (kind, function, counts), ranked;
#    the XML validates against docs/parlot-callgraph.rng;
#  - a 1-D stencil of 64 ranks whose two ends have one neighbour and
#    whose rank 0 alone writes reports: no outlier; with one rank adding
#    or skipping a call, or swapping two, that rank alone;
#  - identical ranks: no outlier; a 2-2 tie: no majority, the ranks
#    unlike the medoid (the first, here) listed against it;
#  - the root's role: rank 0 gathering what the others send is a class
#    of its own; with another rank's extra call that rank comes first,
#    the root last as "the root", and no medoid (parlot-diff --within
#    compares the odd rank first, the run given as its directory or as
#    its trace files);
#    processes without ranks (named by pid), a launcher (role=launcher)
#    left out; one process: no Ranks section, no <ranks>, unless
#    --ranks=yes; --ranks=no; a bad --ranks value (exit 2);
#  - random make_trace traces (2 to 7 processes, some with MPI ranks via
#    xml_oracle.py rewrite): per function, min / median / max / processes
#    in <ranks> and in the annotate table equal what a Python oracle
#    computes from make_trace's own event listings.
# Exit status: 0 if all passed, 1 otherwise.

. "$(dirname "$0")/testlib.sh"
need_tool parlot-decode parlot-annotate parlot-diff script_trace make_trace
XMLLINT=${XMLLINT:-xmllint}
RNG=$top/docs/parlot-callgraph.rng
PY=python3
command -v $PY >/dev/null 2>&1 || { echo "python3 is needed"; exit 1; }

# ---- the ranks ----------------------------------------------------------------

# rank_script RANK PID VARIANT [KEY=VALUE...]: a process that runs
#   main: init; 4 x (compute; exchange); finalize
# VARIANT (for this rank only): same, slow (compute calls slow_path once,
# on the 2nd iteration), nofin (no finalize), more (6 iterations),
# edge (init calls exchange once)
rank_script() {
   rs_r=$1 rs_pid=$2 rs_var=$3
   shift 3
   echo "process pid=$rs_pid ppid=1 exe=/bin/app arg0=./app $*${rs_r:+ mpi_rank=$rs_r}"
   echo "object /bin/app"
   for f in main init compute exchange slow_path finalize; do
      echo "function $f /bin/app"
   done
   echo "thread 1"
   echo "call 1 main init"
   [ "$rs_var" = edge ] && { echo "call 1 exchange"; echo "return 1"; }
   echo "return 1"
   n=4
   [ "$rs_var" = more ] && n=6
   i=1
   while [ $i -le $n ]; do
      echo "call 1 compute"
      if [ "$rs_var" = slow ] && [ $i = 2 ]; then
         echo "call 1 slow_path"; echo "return 1"
      fi
      echo "return 1"
      echo "call 1 exchange"; echo "return 1"
      i=$((i + 1))
   done
   [ "$rs_var" = nofin ] || { echo "call 1 finalize"; echo "return 1"; }
   echo "end"
}

# ranks NAME ODD VARIANT: 5 ranks, rank ODD runs VARIANT; traces
# $tmp/NAME.r0.trace ...
ranks() {
   name=$1 odd=$2 var=$3
   for r in 0 1 2 3 4; do
      v=same
      [ "$r" = "$odd" ] && v=$var
      rank_script $r $((700 + r)) $v >"$tmp/$name.r$r.script"
      "$SCRIPT_TRACE" "$tmp/$name.r$r.script" "$tmp/$name.r$r.trace" \
         || return 1
   done
}

# check_xml XML "EXPECTED": EXPECTED is the outliers, one per line:
# "PID: kind function calls majority; kind function calls majority..."
# (edges: "kind caller>callee ..."), or empty for none.
check_xml() {
   $PY - "$1" "$2" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
P = {p.get('id'): p.get('pid') for p in root if p.tag == 'process'}
F = {f.get('id'): f.get('name') for f in root if f.tag == 'function'}
R = [k for k in root if k.tag == 'ranks']
if len(R) != 1:
    print('%d ranks elements' % len(R)); sys.exit(1)
got = []
for o in R[0]:
    if o.tag != 'outlier':
        continue
    rs = []
    for r in o:
        fn = F[r.get('ref')]
        if r.get('kind') in ('only-edge', 'missing-edge'):
            fn = (F[r.get('caller')] if r.get('caller') else '-') + '>' + fn
        rs.append('%s %s %s %s' % (r.get('kind'), fn, r.get('calls'), r.get('majority')))
    got.append('%s: %s' % (P[o.get('process')], '; '.join(rs)))
want = [l for l in sys.argv[2].split('\n') if l]
if got != want:
    print('outliers %r, expected %r' % (got, want)); sys.exit(1)
if int(R[0].get('outliers')) != len(want):
    print('outliers= %s' % R[0].get('outliers')); sys.exit(1)
PY
}

valid() {
   "$XMLLINT" --noout --relaxng "$RNG" "$1" >"$tmp/lint.out" 2>&1
}

# scenario NAME ODD VARIANT "XML EXPECTED" ANNOTATE-LINE...: the outlier
# report of 5 ranks; each ANNOTATE-LINE must be a line of the report
scenario() {
   name=$1 odd=$2 var=$3 want=$4
   shift 4
   if ! ranks "$name" "$odd" "$var"; then
      fail "$name: script_trace failed"; return
   fi
   traces=$(ls "$tmp/$name".r*.trace)
   # shellcheck disable=SC2086
   "$PARLOT_DECODE" --xml $traces >"$tmp/$name.xml" 2>"$tmp/$name.err"
   rc=$?
   # shellcheck disable=SC2086
   "$PARLOT_ANNOTATE" $traces >"$tmp/$name.ann" 2>>"$tmp/$name.err"
   rc2=$?
   if [ $rc -ne 0 ] || [ $rc2 -ne 0 ] || [ -s "$tmp/$name.err" ]; then
      fail "$name: exit $rc/$rc2" "$(head -c 300 "$tmp/$name.err")"; return
   fi
   if ! valid "$tmp/$name.xml"; then
      fail "$name: invalid XML" "$(head -c 300 "$tmp/lint.out")"; return
   fi
   if ! why=$(check_xml "$tmp/$name.xml" "$want"); then
      fail "$name: XML" "$why"; return
   fi
   for line in "$@"; do
      if ! grep -qxF -- "$line" "$tmp/$name.ann"; then
         fail "$name: report lacks '$line'" \
            "$(sed -n '/^Ranks:/,$p' "$tmp/$name.ann" | head -30)"
         return
      fi
   done
   if [ -n "$want" ]; then
      pass "$name: rank $odd, and only it, named with its differences"
   else
      pass "$name: identical ranks, no outlier"
   fi
}

# rank 3 against rank 1: rank 0 is as near, but the root is chosen only
# when no other rank is
scenario slow 3 slow "703: only-function slow_path 1 0" \
   "Outliers:         1 (rank 3)" \
   "Outlier rank 3 (pid 703, class 2): 1 difference from rank 1's class" \
   "    1         0  only here: slow_path [/bin/app]" \
   "  0       0    1      1  slow_path [/bin/app]"
scenario nofin 0 nofin "700: missing-function finalize 0 1" \
   "Outliers:         1 (rank 0)" \
   "    0         1  missing here: finalize [/bin/app]" \
   "  0       1    1      4  finalize [/bin/app]"
scenario more 1 more "701: calls compute 6 4; calls exchange 6 4" \
   "Classes:          2, by call graph; majority: class 1, 4 ranks" \
   "Outliers:         1 (rank 1)" \
   "    6         4  calls differ: compute [/bin/app]" \
   "  4       4    6      5  compute [/bin/app]"
scenario edge 4 edge "704: only-edge init>exchange 1 0; calls exchange 5 4" \
   "Outliers:         1 (rank 4)" \
   "    1         0  only here: init [/bin/app] > exchange [/bin/app]" \
   "    5         4  calls differ: exchange [/bin/app]"
scenario same 9 same "" "Outliers:         0" \
   "Classes:          1, by call graph"

# a 2-2 tie (and a fifth process without a rank, left out)
for r in 0 1 2 3; do
   v=same
   [ $r -ge 2 ] && v=slow
   rank_script $r $((800 + r)) $v >"$tmp/tie.$r.script"
   "$SCRIPT_TRACE" "$tmp/tie.$r.script" "$tmp/tie.$r.trace"
done
rank_script "" 899 nofin >"$tmp/tie.x.script"
"$SCRIPT_TRACE" "$tmp/tie.x.script" "$tmp/tie.x.trace"
"$PARLOT_DECODE" --xml "$tmp"/tie.*.trace >"$tmp/tie.xml" 2>&1
"$PARLOT_ANNOTATE" "$tmp"/tie.*.trace >"$tmp/tie.ann" 2>&1
tie_want="802: only-function slow_path 1 0
803: only-function slow_path 1 0"
if valid "$tmp/tie.xml" && why=$(check_xml "$tmp/tie.xml" "$tie_want") \
   && grep -q '<ranks by="mpi-rank" processes="4" classes-by="shape" classes="2" outliers="2" medoid="p1">' "$tmp/tie.xml" \
   && grep -qx "Classes:          2, by call-graph shape; no majority" "$tmp/tie.ann" \
   && grep -q "^Medoid:           rank 0 " "$tmp/tie.ann" \
   && grep -qx "Unlike it:        2 (rank 2, rank 3)" "$tmp/tie.ann" \
   && grep -qx "Ranks:            4 (processes with an MPI rank)" "$tmp/tie.ann"
then
   pass "a 2-2 tie: no majority, the ranks unlike the medoid listed against it; the process without a rank left out"
else
   fail "a 2-2 tie" "${why:-}" "$(grep -A3 '^Ranks' "$tmp/tie.ann")"
fi

# The root's role: rank 0 gathers a value from each rank every iteration
# (MPI_Irecv and MPI_Waitany, three each), the others send it (MPI_Send),
# so rank 0 is a class of its own in a run without a fault.  With rank 3
# calling slow_path once (after two strcmp calls that decided it: its own
# function is named first, though the library's is called more), there
# are three classes and no class holds
# more than half, yet the odd one can be told: rank 3 is named first, the
# root last and as the root, and parlot-diff --within compares rank 3
# first (before, both were listed against the medoid, rank 0 first, and
# --within showed the root's gathers first)
root_script() {   # root_script RANK FAULT
   mpi_script_head $((700 + $1)) $1 /bin/app "main compute gather slow_path" \
      "MPI_Irecv MPI_Waitany MPI_Send" strcmp
   echo "call 1 main"
   for it in 1 2 3 4; do
      echo "call 1 compute"; echo "return 1"
      [ "$2" = slow ] && [ "$1" = 3 ] && [ $it = 2 ] &&
         { echo "call 1 strcmp"; echo "return 1"; echo "call 1 strcmp"; echo "return 1"
           echo "call 1 slow_path"; echo "return 1"; }
      echo "call 1 gather"
      if [ "$1" = 0 ]; then
         for k in 1 2 3; do echo "call 1 MPI_Irecv"; echo "return 1"; done
         for k in 1 2 3; do echo "call 1 MPI_Waitany"; echo "return 1"; done
      else
         echo "call 1 MPI_Send"; echo "return 1"
      fi
      echo "return 1"
   done
   echo "return 1"
   echo "end"
}
for fault in none slow; do
   mkdir "$tmp/root_$fault"
   for r in 0 1 2 3; do
      root_script $r $fault >"$tmp/root_$fault.$r.script"
      "$SCRIPT_TRACE" "$tmp/root_$fault.$r.script" "$tmp/root_$fault/$r.trace"
   done
   "$PARLOT_ANNOTATE" "$tmp/root_$fault" >"$tmp/root_$fault.ann" 2>&1
done
"$PARLOT_DIFF" --within "$tmp/root_slow" >"$tmp/root_slow.within" 2>&1
# the same run given as its trace files, as a shell's glob gives them
"$PARLOT_DIFF" --within "$tmp"/root_slow/*.trace >"$tmp/root_slow.files" 2>&1
if [ -s "$tmp/root_slow.within" ] \
   && [ "$(sed 1,4d "$tmp/root_slow.within")" = "$(sed 1,4d "$tmp/root_slow.files")" ] \
   && grep -qxF -- "--- A: the reference ranks of $tmp/root_slow/0.trace and 3 more trace files" "$tmp/root_slow.files"
then
   pass "parlot-diff --within takes a run as its trace files: the same comparison as of its directory"
else
   fail "parlot-diff --within of trace files" "$(diff "$tmp/root_slow.within" "$tmp/root_slow.files" | head -10)"
fi
# Sorting each rank's own data: the C++ standard library's templates
# compiled into the program (std::sort's __introsort_loop) recurse as the
# data has it, and call memcpy as often; the C library's qsort calls the
# program's comparator as often: a different count on every rank.  The
# templates are the library's code, not the program's, and the
# comparator's calls are qsort's doing: no rank is an outlier and
# parlot-diff --within finds no difference in the program's view (before,
# every rank was listed against the medoid by its sort's calls, and the
# comparisons made hunks), while a rank calling refine once more is still
# named, and its call is the one difference.
std_sort=_ZSt16__introsort_loopIPdlN9__gnu_cxx5__ops15_Iter_less_iterEEvT_S4_T0_T1_
sort_script() {   # sort_script RANK FAULT
   mpi_script_head $((720 + $1)) $1 /bin/pic \
      "main _ZN3pic6Domain14sort_particlesEv _ZN3pic6refineEv $std_sort cmp_ids" \
      MPI_Allreduce "memcpy qsort"
   echo "call 1 main"
   for it in 1 2 3; do
      echo "call 1 _ZN3pic6Domain14sort_particlesEv"
      echo "call 1 $std_sort"
      for k in $(seq $(( ($1 + it) % 3 + 1 ))); do
         echo "call 1 $std_sort"; echo "call 1 memcpy"; echo "return 1"
         echo "return 1"
      done
      echo "return 1"; echo "return 1"
      echo "call 1 qsort"
      for k in $(seq $(( ($1 * 2 + it) % 5 + 1 ))); do
         echo "call 1 cmp_ids"; echo "return 1"
      done
      echo "return 1"
      [ "$2" = refine ] && [ "$1" = 2 ] && [ $it = 2 ] &&
         { echo "call 1 _ZN3pic6refineEv"; echo "return 1"; }
      echo "call 1 MPI_Allreduce"; echo "return 1"
   done
   echo "return 1"
   echo "end"
}
for fault in none refine; do
   script_run sort_$fault 4 sort_script $fault
   "$PARLOT_DIFF" --within "$tmp/sort_$fault" >"$tmp/sort_$fault.within" 2>&1
done
if grep -qx "Outlier ranks:    none of 4 (1 class)" "$tmp/sort_none.ann" \
   && ! grep -q "^@@" "$tmp/sort_none.within" \
   && grep -qx "Outlier ranks:    1 of 4: rank 2 (only here: pic::refine()); more under Ranks below" "$tmp/sort_refine.ann" \
   && [ "$(grep -c '^+ .*pic::refine()$' "$tmp/sort_refine.within")" = 1 ] \
   && [ "$(grep -c '^[-+] ' "$tmp/sort_refine.within")" = 1 ]
then
   pass "sorting each rank's data: std::sort's internals compiled into the program and qsort's calls of the comparator count as the libraries' (no outlier, no difference); an extra call is still found"
else
   fail "sorting each rank's data" "$(grep -h '^Outlier ranks' "$tmp"/sort_*.ann)" \
      "$(grep -h '^@@\|^[-+] ' "$tmp"/sort_*.within | head -8)"
fi
if grep -qx "Outlier ranks:    1 of 4: rank 0, the root (only here: MPI_Irecv, ...); more under Ranks below" "$tmp/root_none.ann" \
   && grep -qx "Outlier ranks:    2 of 4: rank 3 (only here: slow_path, ...), rank 0, the root (only here: MPI_Irecv, ...); more under Ranks below" "$tmp/root_slow.ann" \
   && ! grep -q "^Medoid:" "$tmp/root_slow.ann" \
   && [ "$(grep -m1 '^=== ' "$tmp/root_slow.within")" = "=== rank 3 against rank 1" ]
then
   pass "the root's role: rank 0 alone in its class comes last, as the root; rank 3's extra call first (annotate and --within), its own function before the library's"
else
   fail "the root's role" "$(grep -h '^Outlier ranks\|^Medoid' "$tmp"/root_*.ann)" \
      "$(grep -m1 '^=== ' "$tmp/root_slow.within")"
fi

# no ranks: processes by pid; a launcher left out
rank_script "" 900 same role=launcher >"$tmp/nr.l.script"
"$SCRIPT_TRACE" "$tmp/nr.l.script" "$tmp/nr.l.trace"
for k in 1 2 3; do
   v=same
   [ $k = 2 ] && v=slow
   rank_script "" $((900 + k)) $v role=program >"$tmp/nr.$k.script"
   "$SCRIPT_TRACE" "$tmp/nr.$k.script" "$tmp/nr.$k.trace"
done
"$PARLOT_DECODE" --xml "$tmp"/nr.*.trace >"$tmp/nr.xml" 2>&1
"$PARLOT_ANNOTATE" "$tmp"/nr.*.trace >"$tmp/nr.ann" 2>&1
if valid "$tmp/nr.xml" && why=$(check_xml "$tmp/nr.xml" "902: only-function slow_path 1 0") \
   && grep -q '<ranks by="process" processes="3"' "$tmp/nr.xml" \
   && grep -qx "Outliers:         1 (pid 902)" "$tmp/nr.ann" \
   && grep -qx "Ranks:            3 (processes; no MPI ranks recorded)" "$tmp/nr.ann"
then
   pass "no MPI ranks: processes named by pid, the launcher left out"
else
   fail "no MPI ranks" "${why:-}" "$(grep -A3 '^Ranks' "$tmp/nr.ann")"
fi

# A 1-D stencil of 64 ranks: rank R exchanges with R-1 and R+1 (the two
# ends have one neighbour each: a class of their own, not outliers); rank
# 0 alone writes a report every 5th of 10 iterations (its own I/O: no
# outlier either); with FAULT, rank 2 adds a call in iteration 7 (extra),
# skips its compute in iteration 4 (skip) or makes it after the exchange
# in iteration 5 (swap: the same calls in another order).
# parlot-annotate must name rank 2 and only it, or nobody without a
# fault.  stencil_script RANK FAULT [RING]: RING (a rank count) makes the
# stencil periodic on that many ranks, so that every rank has two
# neighbours and all are one class, the root's reports included.
stencil_script() {
   st_r=$1 st_fault=$2 st_ring=${3:-0} st_n=${3:-64}
   echo "process pid=$((3000 + st_r)) ppid=1 exe=/opt/st/stencil arg0=./stencil mpi_rank=$st_r"
   echo "object /opt/st/stencil"
   echo "object /usr/lib/x86_64-linux-gnu/libmpi.so.40"
   echo "object /usr/lib/x86_64-linux-gnu/libc.so.6"
   for f in main step compute exchange report extra; do
      echo "function $f /opt/st/stencil"
   done
   for f in MPI_Irecv MPI_Isend MPI_Waitall MPI_Allreduce opal_progress; do
      echo "function $f /usr/lib/x86_64-linux-gnu/libmpi.so.40"
   done
   echo "function fopen /usr/lib/x86_64-linux-gnu/libc.so.6"
   echo "function fprintf /usr/lib/x86_64-linux-gnu/libc.so.6"
   echo "thread 1"
   echo "call 1 main"
   for it in 1 2 3 4 5 6 7 8 9 10; do
      echo "call 1 step"
      swap=0
      [ "$st_fault" = swap ] && [ "$st_r" = 2 ] && [ $it = 5 ] && swap=1
      if ! { [ "$st_fault" = skip ] && [ "$st_r" = 2 ] && [ $it = 4 ]; } &&
         [ $swap = 0 ]; then
         echo "call 1 compute"; echo "return 1"
      fi
      echo "call 1 exchange"
      for nb in $((st_r - 1)) $((st_r + 1)); do
         [ "$st_ring" != 0 ] && nb=$(( (nb + st_n) % st_n ))
         if [ $nb -ge 0 ] && [ $nb -lt "$st_n" ]; then
            echo "call 1 MPI_Irecv opal_progress"; echo "return 1 2"
            echo "call 1 MPI_Isend"; echo "return 1"
         fi
      done
      # progress polling differs from rank to rank: library internals
      echo "call 1 MPI_Waitall"
      k=$(( (st_r * 7 + it) % 5 + 1 ))
      while [ $k -gt 0 ]; do echo "call 1 opal_progress"; echo "return 1"; k=$((k - 1)); done
      echo "return 1"
      echo "return 1"
      [ $swap = 1 ] && { echo "call 1 compute"; echo "return 1"; }
      if [ "$st_fault" = extra ] && [ "$st_r" = 2 ] && [ $it = 7 ]; then
         echo "call 1 extra"; echo "return 1"
      fi
      echo "call 1 MPI_Allreduce opal_progress"; echo "return 1 2"
      echo "return 1"
      if [ "$st_r" = 0 ] && [ $((it % 5)) = 0 ]; then
         echo "call 1 report fopen"; echo "return 1"
         echo "call 1 fprintf"; echo "return 1 2"
      fi
   done
   echo "return 1"
   echo "end"
}
# stencil_annotate DIR FAULT RANKS [RING]: the stencil's traces in DIR,
# parlot-annotate's report of them in DIR.ann
stencil_annotate() {
   mkdir -p "$1"
   r=0
   while [ $r -lt "$3" ]; do
      stencil_script $r "$2" ${4:+"$4"} >"$tmp/st.script"
      "$SCRIPT_TRACE" "$tmp/st.script" "$1/r$r.trace" || break
      r=$((r + 1))
   done
   "$PARLOT_ANNOTATE" "$1" >"$1.ann" 2>&1
}
# stencil_check LABEL DIR FAULT WHY [LINE...]: the report of DIR names
# rank 2 alone (nobody without a fault), has each LINE, and for a swap
# says the order differs
stencil_check() {
   label=$1 ann=$2.ann fault=$3 why=$4 ok=yes
   shift 4
   want="Outliers:         1 (rank 2)"
   [ $fault = none ] && want="Outliers:         0"
   grep -qx "$want" "$ann" || ok=no
   for line in "$@"; do grep -qx "$line" "$ann" || ok=no; done
   [ $fault != swap ] ||
      grep -q "^ *0 *0  order differs: the same calls in another order" "$ann" || ok=no
   if [ $ok = yes ]; then
      pass "$label, $fault: '$want' ($why)"
   else
      fail "$label, $fault" "$(sed -n '/^Ranks:/,/^Min/p' "$ann" | head -12)"
   fi
}
for fault in none extra skip swap; do
   stencil_annotate "$tmp/st-$fault" $fault 64
   classes=
   [ $fault = none ] &&
      classes="Classes:          2, by call graph; majority: class 2, 62 ranks"
   stencil_check "stencil of 64 ranks" "$tmp/st-$fault" $fault \
      "the ends and the root's I/O are no outliers" \
      "Ranks:            64 (processes with an MPI rank)" ${classes:+"$classes"}
done
# periodic, 12 ranks: one class, in which the root's reports are no
# other order (they lead to no MPI call), while rank 2's swap is
for fault in none swap; do
   stencil_annotate "$tmp/ring-$fault" $fault 12 12
   stencil_check "periodic stencil of 12 ranks" "$tmp/ring-$fault" $fault \
      "the root's reports are no other order" "Classes:          1, by call graph"
done

# one process; --ranks
one=$tmp/slow.r0.trace
"$PARLOT_DECODE" --xml "$one" >"$tmp/one.xml" 2>&1
"$PARLOT_ANNOTATE" "$one" >"$tmp/one.ann" 2>&1
"$PARLOT_ANNOTATE" --ranks=yes "$one" >"$tmp/one-yes.ann" 2>&1
"$PARLOT_ANNOTATE" --ranks=no "$tmp"/slow.r*.trace >"$tmp/no.ann" 2>&1
"$PARLOT_ANNOTATE" --ranks=maybe "$one" >"$tmp/bad.ann" 2>"$tmp/bad.err"
rc=$?
if ! grep -q "<ranks" "$tmp/one.xml" && ! grep -q "^Ranks:" "$tmp/one.ann" \
   && grep -qx "Ranks:            1 (processes with an MPI rank)" "$tmp/one-yes.ann" \
   && ! grep -q "^Ranks:" "$tmp/no.ann" && [ $rc = 2 ] && [ ! -s "$tmp/bad.ann" ] \
   && grep -q "^parlot-annotate: --ranks wants auto, yes or no" "$tmp/bad.err"
then
   pass "one process: no ranks section unless --ranks=yes; --ranks=no; bad --ranks: exit 2"
else
   fail "--ranks" "$(cat "$tmp/bad.err")"
fi

# ---- random traces against an oracle -------------------------------------------

oracle() {
   $PY - "$@" <<'PY'
import sys, re, xml.etree.ElementTree as ET
xml_path, ann_path = sys.argv[1], sys.argv[2]
lists = sys.argv[3:]
calls = []                       # per process: {(obj, name): calls}
for l in lists:
    c = {}
    with open(l, encoding='utf-8', errors='surrogateescape') as f:
        for line in f:
            a = line.rstrip('\n').split('\t')
            if a[2] == 'call':
                k = (a[4], a[5])
                c[k] = c.get(k, 0) + 1
    calls.append(c)
root = ET.parse(xml_path).getroot()
F = {}
seen = {}
for f in root:
    if f.tag == 'function':
        k = (f.get('object'), f.get('name'))
        seen[k] = seen.get(k, 0) + 1
        F[f.get('id')] = k
R = [k for k in root if k.tag == 'ranks'][0]
def low_median(v):
    v = sorted(v)
    return v[(len(v) - 1) // 2]
n = checked = 0
allk = set(k for c in calls for k in c)
got = {}
for e in R:
    if e.tag != 'function':
        continue
    k = F[e.get('ref')]
    got[k] = (int(e.get('min')), int(e.get('median')), int(e.get('max')), int(e.get('processes')))
for k in sorted(allk):
    if seen.get(k, 0) != 1 or '\\' in k[0] + k[1]:
        continue              # dups (same object and name): not comparable
    v = [c.get(k, 0) for c in calls]
    want = (min(v), low_median(v), max(v), sum(1 for x in v if x))
    if got.get(k) != want:
        print('%r: got %r, expected %r' % (k, got.get(k), want)); sys.exit(1)
    checked += 1
# the annotate table: rows "min median max procs  name [object]"
rows = {}
with open(ann_path, encoding='utf-8', errors='surrogateescape') as f:
    txt = f.read()
sec = txt[txt.index('\nRanks:'):]
sec = sec[:sec.index('\nOutlier ')] if '\nOutlier ' in sec else sec
for line in sec.split('\n'):
    m = re.match(r'^ *([0-9,]+) +([0-9,]+) +([0-9,]+) +([0-9,]+)  (.*) \[(.*)\]$', line)
    if m:
        k = (m.group(6), m.group(5))
        rows.setdefault(k, []).append(tuple(int(m.group(i).replace(',', '')) for i in range(1, 5)))
ann = 0
for k, r in rows.items():
    if len(r) == 1 and seen.get(k, 0) == 1 and k in got:
        if r[0] != got[k]:
            print('annotate %r: %r, XML %r' % (k, r[0], got[k])); sys.exit(1)
        ann += 1
print('%d functions checked, %d annotate rows' % (checked, ann))
PY
}

seed=1
while [ $seed -le 6 ]; do
   np=$((seed % 6 + 2))
   args=
   k=1
   while [ $k -le $np ]; do
      b=$tmp/rnd.$seed.$k
      "$MAKE_TRACE" --seed $((seed * 10 + k)) --threads $((k % 3 + 1)) \
         --events $((200 * k)) --functions $((20 + seed * 7)) \
         --pid $((1000 + k)) --deep 0 "$b.trace0" "$b.list" "$b.exp" \
         >/dev/null 2>&1 || { fail "make_trace seed $seed"; break; }
      if [ $((seed % 2)) = 0 ]; then
         $PY "$here/xml_oracle.py" rewrite "$b.trace0" "$b.trace" rank=$((k - 1))
      else
         mv "$b.trace0" "$b.trace"
      fi
      args="$args $b.list"
      k=$((k + 1))
   done
   traces=$(ls "$tmp"/rnd.$seed.*.trace)
   # shellcheck disable=SC2086
   "$PARLOT_DECODE" --xml $traces >"$tmp/rnd.$seed.xml" 2>"$tmp/rnd.err"
   # shellcheck disable=SC2086
   "$PARLOT_ANNOTATE" --threshold=100 $traces >"$tmp/rnd.$seed.ann" 2>>"$tmp/rnd.err"
   # ls sorts the traces as the lists: rnd.S.K
   # shellcheck disable=SC2086
   if [ -s "$tmp/rnd.err" ]; then
      fail "random $seed: stderr" "$(head -c 300 "$tmp/rnd.err")"
   elif ! valid "$tmp/rnd.$seed.xml"; then
      fail "random $seed: invalid XML" "$(head -c 300 "$tmp/lint.out")"
   elif why=$(oracle "$tmp/rnd.$seed.xml" "$tmp/rnd.$seed.ann" \
                $(ls "$tmp"/rnd.$seed.*.list)); then
      pass "random $seed: $np processes$([ $((seed % 2)) = 0 ] && echo ' with ranks'): $why"
   else
      fail "random $seed" "$why"
   fi
   seed=$((seed + 1))
done

finish
