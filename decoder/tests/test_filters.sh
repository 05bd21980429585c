#!/bin/sh
# SPDX-License-Identifier: MIT
# The filters (--images, the program's view --images=program among them,
# --only, --hide, --only-object, --hide-object, --max-depth or --depth,
# --range) in every mode,
# patterns matching any of a function's names (aliases included):
# parlot-decode --events, --folded, --paths, --xml, --callgrind and
# parlot-annotate.
#
#   decoder/tests/test_filters.sh [-q]
#
# Uses $PARLOT_DECODE, $PARLOT_ANNOTATE and $SCRIPT_TRACE if set, else
# builds them.  Needs python3.
#
# The oracle (filters_oracle.py) generates a random program of three
# threads and its forked child (whose stream starts with inherited calls),
# writes it as script_trace scripts, and applies the filters' documented
# rules to the events it generated (a hidden call's callees one level up,
# depths among shown frames, event numbers per thread; in the program's
# view a library call made by the program's code one opaque call).  One
# thread waits in MPI_Recv under all it does, longer than a reader's
# batch, which views that show nothing inside it go past.  For each filter:
#  - --events is exactly the model's shown events;
#  - --folded is the model's call counts per shown call path;
#  - --paths has the "# filter:" line and the same counts per path;
#  - --xml validates against docs/parlot-callgraph.rng, carries the
#    filter, and per thread its events, calls, maximum depth and calls per
#    edge are the model's (inherited calls are events, not calls), with
#    -j1 and -j3 alike;
#  - --callgrind says the filter and its summary is the model's calls;
#  - parlot-annotate's header says the filter and counts the model's
#    events, calls, returns and inherited entries; -j1 and -j3 alike.
# Bad filter arguments: one line and exit 2, in each program.
# Exit status: 0 if all passed, 1 otherwise.

. "$(dirname "$0")/testlib.sh"

command -v python3 >/dev/null 2>&1 || { echo "# python3 is needed"; exit 1; }

need_tool parlot-decode parlot-annotate script_trace

ORACLE="python3 $here/filters_oracle.py"
RNG=$here/../../docs/parlot-callgraph.rng
XMLLINT=
command -v xmllint >/dev/null 2>&1 && XMLLINT=xmllint

$ORACLE gen "$tmp" 7 || { fail "oracle generates the program"; finish; }
for s in a b; do
   "$SCRIPT_TRACE" "$tmp/$s.script" "$tmp/$s.trace" >"$tmp/st.err" 2>&1 ||
      { fail "script_trace $s" "$(cat "$tmp/st.err")"; finish; }
done
T="$tmp/a.trace $tmp/b.trace"

# check_filter NAME FILTER...: every mode against the model
check_filter() {
   name=$1
   shift
   exp=$tmp/exp.$name
   mkdir -p "$exp"
   $ORACLE expect "$tmp" "$exp" "$@" || { fail "$name: oracle"; return; }

   # shellcheck disable=SC2086
   run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" --events "$@" $T
   if [ $rc -eq 0 ] && cmp -s "$tmp/out" "$exp/events"; then
      pass "$name: --events ($(wc -l <"$exp/events") events)"
   else
      fail "$name: --events" "exit $rc: $(head -c 300 "$tmp/err")" \
         "$(diff "$exp/events" "$tmp/out" | head -5)"
   fi

   # shellcheck disable=SC2086
   run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" --folded "$@" $T
   sort "$tmp/out" >"$tmp/out.sorted"
   if [ $rc -eq 0 ] && cmp -s "$tmp/out.sorted" "$exp/folded"; then
      pass "$name: --folded ($(wc -l <"$exp/folded") paths)"
   else
      fail "$name: --folded" "exit $rc" \
         "$(diff "$exp/folded" "$tmp/out.sorted" | head -5)"
   fi

   # --paths: the filter line, then "COUNT TAG PATH" rows (top 0 = all)
   # shellcheck disable=SC2086
   run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" --paths --top=0 "$@" $T
   # as the programs describe it: --depth is --max-depth, --only-object
   # adds to images=GLOB
   desc=$(echo "$@" | sed 's/--//g; s/\(^\| \)depth=/\1max-depth=/g; s/only-object=/images=/g')
   first=$(head -1 "$tmp/out")
   want_first="# filter: $desc"
   [ -n "$desc" ] || want_first=$(printf '# calls\ttag\tpath')
   awk -F'\t' '!/^#/ { print $3 " " $1 }' "$tmp/out" | sort >"$tmp/out.sorted"
   if [ $rc -eq 0 ] && [ "$first" = "$want_first" ] &&
      cmp -s "$tmp/out.sorted" "$exp/folded"; then
      pass "$name: --paths"
   else
      fail "$name: --paths" "exit $rc, first line '$first'" \
         "$(diff "$exp/folded" "$tmp/out.sorted" | head -5)"
   fi

   for j in 1 3; do
      # shellcheck disable=SC2086
      run "$PARLOT_DECODE" "$tmp/x$j.xml" "$tmp/err" --xml -j$j "$@" $T
   done
   $ORACLE graph "$tmp/x1.xml" >"$tmp/graph" 2>"$tmp/err2"
   why=
   [ $rc -eq 0 ] || why="exit $rc: $(head -c 300 "$tmp/err")"
   [ -z "$why" ] && ! cmp -s "$tmp/graph" "$exp/graph" &&
      why="graph: $(diff "$exp/graph" "$tmp/graph" | head -5)"
   if [ -n "$desc" ]; then
      [ -z "$why" ] && ! grep -qF "filters=\"$desc\"" "$tmp/x1.xml" &&
         why="no filters=\"$desc\" on the root"
   else
      [ -z "$why" ] && grep -q "filters=" "$tmp/x1.xml" &&
         why="a filters attribute without a filter"
   fi
   [ -z "$why" ] && ! cmp -s "$tmp/x1.xml" "$tmp/x3.xml" && why="-j3 differs"
   if [ -z "$why" ] && [ -n "$XMLLINT" ] &&
      ! $XMLLINT --noout --relaxng "$RNG" "$tmp/x1.xml" 2>"$tmp/lint"; then
      why="invalid: $(head -3 "$tmp/lint")"
   fi
   [ -z "$why" ] && pass "$name: --xml (threads' graphs; -j1 = -j3)" ||
      fail "$name: --xml" "$why"

   read -r events calls returns inherited <"$exp/totals"
   # shellcheck disable=SC2086
   run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" --callgrind "$@" $T
   if [ -n "$desc" ]; then
      grep -qFx "desc: Filter: $desc" "$tmp/out"; said=$?
   else
      ! grep -q "^desc: Filter" "$tmp/out"; said=$?
   fi
   if [ $rc -eq 0 ] && [ $said -eq 0 ] &&
      grep -qx "summary: $calls" "$tmp/out"; then
      pass "$name: --callgrind (summary $calls)"
   else
      fail "$name: --callgrind" "exit $rc: $(grep -E '^(desc|summary)' "$tmp/out")"
   fi

   for j in 1 3; do
      # shellcheck disable=SC2086
      run "$PARLOT_ANNOTATE" "$tmp/an$j" "$tmp/err" -j$j "$@" $T
   done
   line=$(grep '^Events:' "$tmp/an1")
   expect_line=$(python3 -c "
import sys
e, c, r, i = map(int, sys.argv[1:])
s = '{:,} ({:,} calls, {:,} returns'.format(e, c, r)
print(s + (', {:,} inherited entries)'.format(i) if i else ')'))
" "$events" "$calls" "$returns" "$inherited")
   if [ $rc -eq 0 ] && [ "$(echo "$line" | sed 's/^Events: *//')" = "$expect_line" ] &&
      [ "$(sed -n 's/^Filter: *//p' "$tmp/an1")" = "$desc" ] &&
      cmp -s "$tmp/an1" "$tmp/an3"; then
      pass "$name: parlot-annotate ($expect_line)"
   else
      fail "$name: parlot-annotate" "exit $rc: '$line', want '$expect_line'" \
         "$(grep '^Filter' "$tmp/an1")" \
         "$(cmp "$tmp/an1" "$tmp/an3" 2>&1)"
   fi
}

check_filter none
check_filter images-main --images=main
check_filter only-mpi '--only=MPI_*'
check_filter hide '--hide=MPIDI_*' --hide=memcpy
check_filter depth --max-depth=3
check_filter depth-alias --depth=3
check_filter hide-object '--hide-object=libmpi*'
check_filter only-object --only-object=sim '--only-object=libc*'
check_filter hide-object-path --hide-object=/lib/x86_64-linux-gnu/libc.so.6
check_filter demangled '--only=sim::*' --only=kernel
check_filter range --range=100-900
check_filter mixed --images=main --max-depth=2 --range=50-
check_filter only-hide '--only=*e*' --hide=kernel
check_filter only-alias '--only=PMPI_*' --only=malloc
check_filter hide-alias --hide=memmove
check_filter program --images=program
check_filter program-range --images=program --max-depth=3 --range=300-9000

# bad arguments: one line, exit 2, in both programs
for args in --depth=0 --max-depth=x --images=, --range=9-3 --only= --hide-object=; do
   for p in parlot-decode parlot-annotate; do
      if [ $p = parlot-decode ]; then
         run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" --xml "$args" "$tmp/a.trace"
      else
         run "$PARLOT_ANNOTATE" "$tmp/out" "$tmp/err" "$args" "$tmp/a.trace"
      fi
      n=$(wc -l <"$tmp/err")
      if [ $rc -eq 2 ] && [ "$n" -eq 1 ] && [ ! -s "$tmp/out" ]; then
         pass "$p $args: usage error"
      else
         fail "$p $args: usage error" \
            "exit $rc, $n lines: $(head -c 200 "$tmp/err")"
      fi
   done
done

finish
