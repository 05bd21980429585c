#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of parallel reading (decoder/pl_parallel.c): parlot-decode and
# parlot-annotate with -j/--jobs give byte-identical output, messages and
# exit status whatever the number of jobs.
#
#   decoder/tests/test_parallel.sh [-q]
#
# Uses $PARLOT_DECODE, $PARLOT_ANNOTATE and $MAKE_TRACE if set (make check
# sets them), else builds them from the source tree into a temporary
# directory.
#
# What is checked, over 48 make_trace traces (different seeds, pids,
# thread counts, codecs and function tables, so that function IDs depend
# on the order the traces are merged in; some with MPI ranks), plus
# damaged traces and a missing file among them:
#  - every mode of parlot-decode (--events, --xml with each --group-by and
#    a --group, --callgrind, --paths, --path-of, --folded, --stacks,
#    --stacks --dot, --progress, which read in worker threads and merge in
#    order too) and
#    parlot-annotate (default, --tree=both --threshold=100,
#    --group-by=graph, --group=3, --select): stdout, stderr and exit status
#    with -j2, -j4, -j7 and --jobs=0 (all cores) equal those of -j1;
#  - the same with at most 16 open files (ulimit -n 16) and -j8;
#  - --replay and --replay --loops, which decode each thread in a second
#    thread with more than one job: the same;
#  - one trace at a time (decoded in a second thread while its graphs are
#    built): --xml, --callgrind, annotate and --replay of a good trace, one
#    with a recursion 300 deep, a killed one and one with a bad CRC, with
#    -j1 and -j2: the same;
#  - parlot-diff, whose sides decode in threads of their own with more
#    than one job, of two directories of traces whose threads differ
#    (and a damaged trace on each side), text and --xml: the same output,
#    messages and exit status with -j1, -j2 and --jobs=0;
#  - -j without a number, -j-1, -jx: usage errors (exit 2).
# Exit status: 0 if all passed, 1 otherwise.

. "$(dirname "$0")/testlib.sh"
need_tool parlot-decode parlot-annotate parlot-diff make_trace
PY=
command -v python3 >/dev/null 2>&1 && PY=python3

# ---- the traces ----------------------------------------------------------------

codecs="lzze raw mixed"
k=1
while [ $k -le 48 ]; do
   set -- $codecs
   shift $((k % 3))
   codec=${1:-lzze}
   "$MAKE_TRACE" --seed $((k * 7)) --threads $((k % 4 + 1)) \
      --events $((100 + 13 * k)) --functions $((30 + 11 * k)) \
      --codec "$codec" --pid $((2000 + k)) --deep $((k % 5 == 0 ? 300 : 0)) \
      "$tmp/t$k.trace0" none "$tmp/t$k.exp" >/dev/null 2>&1 \
      || { echo "make_trace failed"; exit 1; }
   if [ -n "$PY" ] && [ $((k % 4)) = 0 ]; then
      $PY "$here/xml_oracle.py" rewrite "$tmp/t$k.trace0" "$tmp/t$k.trace" \
         rank=$((k / 4))
   else
      mv "$tmp/t$k.trace0" "$tmp/t$k.trace"
   fi
   k=$((k + 1))
done
"$MAKE_TRACE" --seed 5 --variant killed "$tmp/bad1.trace" none "$tmp/bad1.exp" \
   >/dev/null 2>&1
"$MAKE_TRACE" --seed 6 --variant crc "$tmp/bad2.trace" none "$tmp/bad2.exp" \
   >/dev/null 2>&1
# in command-line order: good ones, a damaged one, a missing file, more
traces=
k=1
while [ $k -le 48 ]; do
   traces="$traces $tmp/t$k.trace"
   [ $k = 10 ] && traces="$traces $tmp/bad1.trace $tmp/missing.trace"
   [ $k = 30 ] && traces="$traces $tmp/bad2.trace"
   k=$((k + 1))
done
tag=$("$PARLOT_DECODE" --paths "$tmp/t3.trace" 2>/dev/null | sed -n 2p | cut -f2)

# same NAME PROG ARGS...: PROG ARGS with -j1 and with other job counts
same() {
   name=$1
   shift
   # shellcheck disable=SC2086
   "$@" -j1 $traces >"$tmp/o1" 2>"$tmp/e1"
   rc1=$?
   for j in -j2 -j4 -j7 --jobs=0; do
      # shellcheck disable=SC2086
      "$@" $j $traces >"$tmp/oj" 2>"$tmp/ej"
      rc=$?
      if [ $rc != $rc1 ] || ! cmp -s "$tmp/o1" "$tmp/oj" \
         || ! cmp -s "$tmp/e1" "$tmp/ej"; then
         fail "$name: $j differs from -j1 (exit $rc, -j1: $rc1)" \
            "$(cmp "$tmp/o1" "$tmp/oj")" "$(diff "$tmp/e1" "$tmp/ej" | head -4)"
         return
      fi
   done
   # at most 16 open files, 8 jobs
   # shellcheck disable=SC2086
   (ulimit -n 16 && exec "$@" -j8 $traces) >"$tmp/oj" 2>"$tmp/ej"
   rc=$?
   if [ $rc != $rc1 ] || ! cmp -s "$tmp/o1" "$tmp/oj" \
      || ! cmp -s "$tmp/e1" "$tmp/ej"; then
      fail "$name: -j8 under ulimit -n 16 differs from -j1 (exit $rc)" \
         "$(diff "$tmp/e1" "$tmp/ej" | head -4)"
      return
   fi
   if [ $rc1 != 1 ] || [ "$(grep -c ': offset [0-9]*: ' "$tmp/e1")" != 3 ]; then
      fail "$name: expected exit 1 and 3 error lines, got $rc1" \
         "$(head -c 300 "$tmp/e1")"
      return
   fi
   pass "$name: -j1 = -j2 = -j4 = -j7 = --jobs=0 = -j8 under ulimit -n 16 ($(wc -c <"$tmp/o1") bytes)"
}

same "--events" "$PARLOT_DECODE" --events
same "--xml" "$PARLOT_DECODE" --xml
same "--xml --group-by=graph --group" "$PARLOT_DECODE" --xml \
   --group-by=graph --group='odd=*:1,*:3'
same "--xml --group-by=shape --select" "$PARLOT_DECODE" --xml \
   --group-by=shape --select='*:1-2'
same "--callgrind" "$PARLOT_DECODE" --callgrind
same "--paths" "$PARLOT_DECODE" --paths --top=0
same "--path-of" "$PARLOT_DECODE" --path-of="$tag"
same "--folded" "$PARLOT_DECODE" --folded
same "--stacks" "$PARLOT_DECODE" --stacks
same "--stacks --dot --images=all" "$PARLOT_DECODE" --stacks --dot --images=all
same "--progress --select" "$PARLOT_DECODE" --progress --select='*:1-2'
same "--replay" "$PARLOT_DECODE" --replay
same "--replay --loops" "$PARLOT_DECODE" --replay --loops
same "annotate" "$PARLOT_ANNOTATE"
same "annotate --tree=both --threshold=100" "$PARLOT_ANNOTATE" --tree=both \
   --threshold=100
same "annotate --group-by=graph" "$PARLOT_ANNOTATE" --group-by=graph
same "annotate --group=3 --select" "$PARLOT_ANNOTATE" --group=3 \
   --select='*:2-3'

# one trace: the graphs are built while a second thread decodes
for t in t3 t5 bad1 bad2; do
   for args in "$PARLOT_DECODE --xml" "$PARLOT_DECODE --callgrind" \
               "$PARLOT_DECODE --replay" "$PARLOT_ANNOTATE --tree=both"; do
      # shellcheck disable=SC2086
      $args -j1 "$tmp/$t.trace" >"$tmp/o1" 2>"$tmp/e1"
      rc1=$?
      # shellcheck disable=SC2086
      $args -j2 "$tmp/$t.trace" >"$tmp/oj" 2>"$tmp/ej"
      rc=$?
      if [ $rc != $rc1 ] || ! cmp -s "$tmp/o1" "$tmp/oj" \
         || ! cmp -s "$tmp/e1" "$tmp/ej" || ! [ -s "$tmp/o1" ]; then
         fail "$(basename "${args%% *}") ${args#* } of $t alone: -j2 differs from -j1 (exit $rc, -j1: $rc1)" \
            "$(cmp "$tmp/o1" "$tmp/oj")" "$(diff "$tmp/e1" "$tmp/ej" | head -4)"
         continue 2
      fi
   done
   pass "$t alone: --xml, --callgrind, --replay, annotate: -j1 = -j2 (exit $rc1)"
done

# parlot-diff: A holds traces 1-12 but those with ranks, and a damaged
# one; B the same pids made from other seeds (so nearly every thread pair
# differs), the traces' deep recursions and a damaged one
mkdir "$tmp/A" "$tmp/B"
k=0
while [ $k -lt 12 ]; do
   k=$((k + 1))
   [ $((k % 4)) = 0 ] && continue
   cp "$tmp/t$k.trace" "$tmp/A/"
   "$MAKE_TRACE" --seed $((k * 7 + 1)) --threads $((k % 4 + 1)) \
      --events $((100 + 13 * k)) --functions $((30 + 11 * k)) \
      --pid $((2000 + k)) --deep $((k % 5 == 0 ? 300 : 0)) \
      "$tmp/B/t$k.trace" none "$tmp/B/t$k.exp" >/dev/null 2>&1 \
      || { echo "make_trace failed"; exit 1; }
   rm -f "$tmp/B/t$k.exp"
done
cp "$tmp/bad1.trace" "$tmp/A/"
cp "$tmp/bad2.trace" "$tmp/B/"
for args in "" "--xml" "--loops --max-hunks=3"; do
   # shellcheck disable=SC2086
   "$PARLOT_DIFF" $args -j1 "$tmp/A" "$tmp/B" >"$tmp/o1" 2>"$tmp/e1"
   rc1=$?
   for j in -j2 --jobs=0; do
      # shellcheck disable=SC2086
      "$PARLOT_DIFF" $args $j "$tmp/A" "$tmp/B" >"$tmp/oj" 2>"$tmp/ej"
      rc=$?
      if [ $rc != $rc1 ] || ! cmp -s "$tmp/o1" "$tmp/oj" \
         || ! cmp -s "$tmp/e1" "$tmp/ej"; then
         fail "parlot-diff $args: $j differs from -j1 (exit $rc, -j1: $rc1)" \
            "$(cmp "$tmp/o1" "$tmp/oj")" "$(diff "$tmp/e1" "$tmp/ej" | head -4)"
         continue 2
      fi
   done
   # the summary's pairs that differ (text or XML)
   differ=$(grep -o '[0-9][0-9]* different\|different="[0-9]*"' "$tmp/o1" |
            tr -dc '0-9\n' | head -1)
   if [ $rc1 != 2 ] || ! [ -s "$tmp/e1" ] || [ "${differ:-0}" -lt 12 ]; then
      fail "parlot-diff $args: expected exit 2 (damaged traces) and 12 pairs or more that differ" \
         "exit $rc1, ${differ:-no} pairs differ" "$(head -c 300 "$tmp/e1")"
      continue
   fi
   pass "parlot-diff $args: -j1 = -j2 = --jobs=0 ($differ pairs differ, $(wc -c <"$tmp/o1") bytes, exit $rc1)"
done

for bad in -j -j-1 -jx --jobs=; do
   for prog in "$PARLOT_DECODE --xml" "$PARLOT_ANNOTATE" "$PARLOT_DIFF"; do
      # shellcheck disable=SC2086
      $prog $bad "$tmp/t1.trace" >"$tmp/o" 2>"$tmp/e"
      rc=$?
      if [ $rc != 2 ] || [ -s "$tmp/o" ] || [ "$(wc -l <"$tmp/e")" != 1 ]; then
         fail "$(basename "${prog%% *}") $bad: exit $rc, expected 2" \
            "$(head -c 200 "$tmp/e")"
         continue 2
      fi
   done
done
pass "bad -j values: usage errors"

finish
