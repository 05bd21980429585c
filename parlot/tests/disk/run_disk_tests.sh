#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Traces that cannot be written while the program runs:
#   - the output directory disappears (gone.c removes it, then forks): the
#     child's trace cannot be created; the child runs on untraced (its
#     output, its exit status seen by the parent), the tool says so once,
#     naming the file and the reason;
#   - a full disk: the trace goes to a 64 KiB tmpfs and a program writing
#     more than that is traced (--codec=raw: 2 bytes per event).  The
#     program must run to its end with its own output and exit status; the
#     tool must say once, naming the file and the reason, that the trace is
#     incomplete, and its summary must say so too; the trace written so
#     far must decode (up to the truncation, reported in one line), with
#     events.  Needs root (mount); skipped with a message otherwise.
# Environment: VALGRIND, PARLOT_DECODE, CC.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${VALGRIND:?VALGRIND must name vg-in-place or valgrind}"
: "${PARLOT_DECODE:?PARLOT_DECODE must name parlot-decode}"
CC=${CC:-cc}

work=$(mktemp -d "${TMPDIR:-/tmp}/parlot-disk.XXXXXX")
mnt=$work/small
mkdir -p "$mnt"
trap 'umount "$mnt" 2>/dev/null; rm -rf "$work"' EXIT

. "$here/../e2e_lib.sh"

# ---- the directory disappears ------------------------------------------------
"$CC" -O0 -g -o "$work/gone" "$here/gone.c" || { echo "FAIL: build gone"; exit 1; }
mkdir -p "$work/out"
"$VALGRIND" --tool=parlot --parlot-out-file="$work/out/t.trace" "$work/gone" \
   "$work/out/t.trace" "$work/out" >"$work/g.out" 2>"$work/g.err"
rc=$?
n=$(grep -c "ParLoT: error: cannot create trace file '$work/out/t.trace' (No such file or directory); this process runs untraced" "$work/g.err")
if [ $rc -eq 0 ] && grep -qx "child runs" "$work/g.out" &&
   grep -qx "parent sees 3" "$work/g.out" && [ "$n" -eq 1 ]; then
   pass "a forked child whose trace cannot be created runs on, untraced (one line)"
else
   fail "child without a trace" "exit $rc, $n error lines" \
      "$(cat "$work/g.out")" "$(grep ParLoT "$work/g.err" | head -4)"
fi

# ---- a full disk ---------------------------------------------------------------
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
   echo "# skipped: cannot mount a small tmpfs (needs root): the full-disk test did not run"
   echo "$passed passed, $failed failed"
   [ $failed -eq 0 ]
   exit
fi

"$CC" -O2 -g -o "$work/fib" "$here/../../../bench/workloads/fib.c" ||
   { echo "FAIL: build fib"; exit 1; }
"$VALGRIND" --tool=parlot --codec=raw --parlot-out-file="$mnt/full.trace" \
   "$work/fib" 25 >"$work/out" 2>"$work/err"
rc=$?
[ $rc -eq 0 ] && [ "$(cat "$work/out")" = "fib(25) = 75025" ] &&
   pass "the program runs to its end (exit 0, its output)" ||
   fail "the program runs to its end" "exit $rc, output: $(cat "$work/out")"
n=$(grep -c "ParLoT: error: writing trace file '$mnt/full.trace' failed (No space left on device)" "$work/err")
[ "$n" -eq 1 ] && grep -q "full.trace (INCOMPLETE: a write failed)" "$work/err" &&
   pass "the tool says once which trace is incomplete and why" ||
   fail "one error line" "$n lines: $(grep ParLoT "$work/err" | head -3)"
"$PARLOT_DECODE" --events "$mnt/full.trace" >"$work/events" 2>"$work/derr"
drc=$?
events=$(wc -l <"$work/events")
[ $drc -eq 1 ] && [ "$(wc -l <"$work/derr")" -eq 1 ] && [ "$events" -gt 0 ] &&
   grep -q "truncated" "$work/derr" &&
   pass "what was written decodes: $events events, the truncation in one line" ||
   fail "the written part decodes" "exit $drc, $events events: $(head -2 "$work/derr")"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
