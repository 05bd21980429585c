#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Stripped programs: the tool names the functions no symbol names from the
# object's unwind table (--unwind-names, default main: OBJECT+0xADDRESS).
#   - shapes.c (static functions, recursion, a pointer table, a qsort
#     callback, two threads) built with -g, and its copy run through
#     strip(1); also a build with -fasynchronous-unwind-tables, stripped:
#     parlot-decode --events --images=main of the stripped run must equal
#     the unstripped run's event for event (thread, call/return, depth),
#     each name OBJECT+0xA mapped back through nm(1) of the unstripped
#     build (strip changes no address); every A must start an FDE as
#     readelf(1) lists them;
#   - the stripped copy traced with --unwind-names=no: --images=main
#     leaves nothing, and parlot-decode says why (exit 1);
#   - a signal handler no symbol names (handler.c stripped, with
#     --unwind-names=no): a function since sigaction installed it, named
#     at nm's address of on_usr1, entered once per signal, its getpid one
#     level in;
#   - a stripped distribution binary (sort, when nm finds no symbols in
#     it) sorts as it does natively, and its own object shows calls, every
#     one to an FDE start.
# Environment: VALGRIND (vg-in-place or valgrind), PARLOT_DECODE, CC
# (default cc).  Exit status: 0 if all passed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${VALGRIND:?VALGRIND must name vg-in-place or valgrind}"
: "${PARLOT_DECODE:?PARLOT_DECODE must name parlot-decode}"
CC=${CC:-cc}

work=$(mktemp -d "${TMPDIR:-/tmp}/parlot-stripped.XXXXXX")
trap 'rm -rf "$work"' EXIT

. "$here/../e2e_lib.sh"

for t in nm readelf strip; do
   command -v $t > /dev/null || { echo "SKIP: $t not installed"; exit 77; }
done

# trace NAME PROG [OPTIONS...]: trace PROG into $work/NAME.trace
trace() {
   local name=$1 prog=$2
   shift 2
   "$VALGRIND" --tool=parlot -q "$@" --parlot-out-file="$work/$name.trace" \
      "$prog" > "$work/$name.out" 2> "$work/$name.err" < "${STDIN:-/dev/null}"
}

# fde_starts BINARY: the start address of every FDE, as readelf reads
# .eh_frame, one per line without leading zeros
fde_starts() {
   readelf --debug-dump=frames "$1" 2> /dev/null |
      sed -n 's/.* FDE .*pc=0*\([0-9a-f][0-9a-f]*\)\.\..*/\1/p' | sort -u
}

# events TRACE: thread, kind, depth and function of each event in the
# main executable
events() {
   "$PARLOT_DECODE" --events --images=main "$1" | awk -F'\t' '{print $2, $3, $4, $6}'
}

# same_as_unstripped LABEL FULL STRIPPED: the stripped build's events,
# names mapped through nm of the full build, equal the full build's
same_as_unstripped() {
   local label=$1 full=$2 stripped=$3 base
   base=$(basename "$stripped")
   trace "$base" "$stripped" || { fail "$label: traced run" "$(tail -3 "$work/$base.err")"; return; }
   events "$work/$(basename "$full").trace" > "$work/want.txt"
   events "$work/$base.trace" > "$work/got.raw"
   nm "$full" | awk '$2 ~ /^[tTwW]$/ { a = $1; sub(/^0+/, "", a); print a, $3 }' \
      > "$work/syms.txt"
   fde_starts "$full" > "$work/fdes.txt"
   # every unwind name is an FDE start
   bad=$(awk -v b="$base" '{ n = $4; if (index(n, b "+0x") != 1) { print n; exit }
                             a = substr(n, length(b) + 4); print a }' "$work/got.raw" |
         sort -u | grep -vxFf "$work/fdes.txt" | head -3)
   if [ -n "$bad" ]; then
      fail "$label: names that are no FDE start" "$bad"
      return
   fi
   awk -v b="$base" 'NR == FNR { name[$1] = $2; next }
        { a = substr($4, length(b) + 4); $4 = (a in name) ? name[a] : $4; print }' \
      "$work/syms.txt" "$work/got.raw" > "$work/got.txt"
   if [ ! -s "$work/want.txt" ]; then
      fail "$label: the unstripped run shows no event"
   elif cmp -s "$work/want.txt" "$work/got.txt"; then
      pass "$label: $(wc -l < "$work/got.txt") events as unstripped, $(awk '{print $4}' "$work/got.txt" | sort -u | wc -l) functions"
   else
      fail "$label: events differ from the unstripped run's" \
           "$(diff "$work/want.txt" "$work/got.txt" | head -6)"
   fi
}

build() {   # build OUT FLAGS...
   local out=$1
   shift
   $CC -O1 -g -fno-inline -pthread "$@" -o "$out" "$here/shapes.c" 2> "$work/cc.err" ||
      { fail "build $out" "$(head -3 "$work/cc.err")"; return 1; }
}

if build "$work/shapes" && build "$work/async_full" -fasynchronous-unwind-tables; then
   trace shapes "$work/shapes" || fail "unstripped run" "$(tail -3 "$work/shapes.err")"
   trace async_full "$work/async_full" || fail "unstripped run (async)" "$(tail -3 "$work/async_full.err")"
   strip -o "$work/shapes_strip" "$work/shapes"
   strip -o "$work/async_strip" "$work/async_full"
   same_as_unstripped "strip" "$work/shapes" "$work/shapes_strip"
   same_as_unstripped "strip after -fasynchronous-unwind-tables" \
      "$work/async_full" "$work/async_strip"

   # without unwind names, --images=main leaves nothing, and says why
   trace nonames "$work/shapes_strip" --unwind-names=no
   "$PARLOT_DECODE" --events --images=main "$work/nonames.trace" \
      > "$work/nonames.out" 2> "$work/nonames.txt"
   rc=$?
   if [ $rc -eq 1 ] && [ ! -s "$work/nonames.out" ] &&
      grep -q "no function of the main executable is named" "$work/nonames.txt"; then
      pass "--unwind-names=no: $(cat "$work/nonames.txt")"
   else
      fail "--unwind-names=no: exit $rc" "$(cat "$work/nonames.txt")"
   fi
fi

# A signal handler no symbol names (handler.c, stripped, traced with
# --unwind-names=no): a function all the same, since the program installed
# it with sigaction, named OBJECT+0xADDRESS at the address nm gives
# on_usr1 in the unstripped build, entered once per signal, and the
# getpid it calls is its own call, one level in
if $CC -O1 -g -fno-inline -o "$work/handler" "$here/handler.c" 2> "$work/cc.err"; then
   strip -o "$work/handler_strip" "$work/handler"
   trace handler "$work/handler_strip" --unwind-names=no ||
      fail "handler: traced run" "$(tail -3 "$work/handler.err")"
   addr=$(nm "$work/handler" | awk '$3 == "on_usr1" { a = $1; sub(/^0+/, "", a); print a }')
   "$PARLOT_DECODE" --events "$work/handler.trace" | awk -F'\t' '{print $3, $4, $6}' \
      > "$work/handler.ev"
   entries=$(grep -c "^call [0-9]* handler_strip+0x$addr\$" "$work/handler.ev")
   inside=$(awk -v h="handler_strip+0x$addr" '
      $1 == "call" && $3 == h { d = $2; next }
      $1 == "return" && $3 == h { d = 0; next }
      d && $1 == "call" && $2 == d + 1 && $3 == "getpid" { n++ }
      END { print n + 0 }' "$work/handler.ev")
   if [ -n "$addr" ] && [ "$entries" = 3 ] && [ "$inside" = 3 ] &&
      grep -qx "3 signals handled" "$work/handler.out"; then
      pass "a handler without a symbol: handler_strip+0x$addr entered 3 times, its getpid inside it"
   else
      fail "a handler without a symbol" "on_usr1 at '$addr': $entries entries, $inside getpid inside" \
         "$(grep -m3 '+0x' "$work/handler.ev")"
   fi
else
   fail "build handler.c" "$(head -3 "$work/cc.err")"
fi

# A distribution binary without symbols: its own calls appear
sort_bin=$(command -v sort)
if [ -z "$sort_bin" ] || ! nm "$sort_bin" 2>&1 | grep -q "no symbols"; then
   echo "SKIP: sort has symbols (or is missing): no stripped distribution binary"
else
   seq 500 | awk '{ print ($1 * 7919) % 500 }' > "$work/in.txt"
   sort "$work/in.txt" > "$work/sort.want"
   STDIN="$work/in.txt" trace sort "$sort_bin"
   events "$work/sort.trace" > "$work/sort.ev"
   fde_starts "$sort_bin" > "$work/sort.fdes"
   calls=$(grep -c " call " "$work/sort.ev")
   bad=$(awk '{ n = $4; if (index(n, "sort+0x") != 1) { print n; next }
               print substr(n, 8) }' "$work/sort.ev" | sort -u |
         grep -vxFf "$work/sort.fdes" | head -3)
   if ! cmp -s "$work/sort.want" "$work/sort.out"; then
      fail "sort under the tool sorts differently"
   elif [ "$calls" -lt 100 ] || [ -n "$bad" ]; then
      fail "stripped sort: $calls calls in its own object" ${bad:+"not FDE starts: $bad"}
   else
      pass "stripped $sort_bin: $calls calls in its own object, $(awk '{print $4}' "$work/sort.ev" | sort -u | wc -l) functions, each an FDE start"
   fi
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
