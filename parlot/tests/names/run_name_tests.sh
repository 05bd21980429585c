#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Several processes given one fixed --parlot-out-file name (no %p): none
# may overwrite a trace another process is writing or has written in the
# same run, and a file left by an earlier run is replaced.
#   - an earlier run's file, larger than the new trace, is replaced: the
#     file holds the new trace alone and decodes;
#   - two processes started apart (the ranks of an MPI job) write at the
#     same time: the second writes NAME.1 and says which process holds
#     NAME; both traces decode, each with its own pid and a normal end;
#   - a shell under --trace-children=yes runs two programs: every process
#     and every image before an exec keeps its own complete trace;
#   - names that are not regular files: /dev/null takes the trace, and a
#     FIFO hands it to a reader (parlot-decode --info) as it is written.
# The oracle: parlot-decode --info of each file (the pid it names, how it
# ends, no damage reported), the shell's own pid ($$), each run's exit.
# Environment: VALGRIND, PARLOT_DECODE, CC.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${VALGRIND:?VALGRIND must name vg-in-place or valgrind}"
: "${PARLOT_DECODE:?PARLOT_DECODE must name parlot-decode}"
CC=${CC:-cc}

work=$(mktemp -d "${TMPDIR:-/tmp}/parlot-names.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$here/../e2e_lib.sh"
"$CC" -O0 -g -o "$work/hold" "$here/hold.c" || { echo "FAIL: build hold"; exit 1; }
touch "$work/go"

# info FILE: "PID END" of a trace that decodes without a word on stderr
info() {
   local out
   out=$("$PARLOT_DECODE" --info "$1" 2>"$work/derr") && [ ! -s "$work/derr" ] ||
      { echo "damaged: $(head -c 200 "$work/derr")"; return; }
   printf '%s\n' "$out" | sed -n 's/^== .*: pid \([0-9]*\),.*/\1/p' | head -n 1 | tr '\n' ' '
   printf '%s\n' "$out" | sed -n 's/.*; ends: \([^;]*\);.*/\1/p' | head -n 1
}
wait_for() {                # wait_for FILE: until it holds bytes (2 min at most)
   local i
   for i in $(seq 2400); do [ -s "$1" ] && return 0; sleep 0.05; done
   return 1
}

# ---- an earlier run's file is replaced ------------------------------------
head -c 300000 /dev/urandom >"$work/old.trace"
"$VALGRIND" --tool=parlot --parlot-out-file="$work/old.trace" "$work/hold" \
   "$work/go" 2>"$work/old.err"
rc=$?
got=$(info "$work/old.trace")
size=$(stat -c %s "$work/old.trace")
if [ $rc -eq 0 ] && [[ $got =~ ^[0-9]+\ exit\ status\ 0$ ]] && [ "$size" -lt 300000 ] &&
   [ ! -e "$work/old.trace.1" ]; then
   pass "an earlier run's file is replaced ($size bytes left of 300000)"
else
   fail "an earlier run's file is replaced" "exit $rc; $got; $size bytes" \
      "$(ls "$work")"
fi

# ---- two processes at once --------------------------------------------------
"$VALGRIND" --tool=parlot --parlot-out-file="$work/rank.trace" "$work/hold" \
   "$work/go_a" 2>"$work/a.err" &
a=$!
wait_for "$work/rank.trace"
"$VALGRIND" --tool=parlot --parlot-out-file="$work/rank.trace" "$work/hold" \
   "$work/go_b" 2>"$work/b.err" &
b=$!
wait_for "$work/rank.trace.1"
touch "$work/go_a" "$work/go_b"
wait $a; ra=$?
wait $b; rb=$?
ga=$(info "$work/rank.trace") gb=$(info "$work/rank.trace.1")
pa=${ga%% *} pb=${gb%% *}
said=$(grep -c "ParLoT: trace file '$work/rank.trace' is being written by process $pa (give each process its own name: %p); this process writes '$work/rank.trace.1'" "$work/b.err")
if [ $ra -eq 0 ] && [ $rb -eq 0 ] && [ "$ga" = "$pa exit status 0" ] &&
   [ "$gb" = "$pb exit status 0" ] && [ "$pa" != "$pb" ] && [ "$said" -eq 1 ] &&
   ! grep -q "being written" "$work/a.err"; then
   pass "two processes at once: two whole traces, the second says where it writes"
else
   fail "two processes at once" "exits $ra $rb; $ga; $gb; said $said" \
      "$(grep ParLoT "$work/b.err" | head -3)"
fi

# ---- a shell and its children ----------------------------------------------
"$VALGRIND" --tool=parlot --trace-children=yes --parlot-out-file="$work/sh.trace" \
   /bin/sh -c "'$work/hold' '$work/go'; '$work/hold' '$work/go'; echo \$\$ >'$work/sh.pid'" \
   2>"$work/sh.err"
rc=$?
shpid=$(cat "$work/sh.pid" 2>/dev/null)
: >"$work/ends"
for f in "$work"/sh.trace*; do info "$f" >>"$work/ends"; done
n=$(wc -l <"$work/ends")
holds=$(grep -c " exit status 0$" "$work/ends")
execs=$(grep -c " exec$" "$work/ends")
if [ $rc -eq 0 ] && ! grep -q damaged "$work/ends" &&
   grep -qx "$shpid exit status 0" "$work/ends" &&
   [ "$holds" -ge 3 ] && [ "$execs" -ge 2 ] && [ "$n" -eq $((holds + execs)) ]; then
   pass "a shell and its children: $n traces, none overwritten"
else
   fail "a shell and its children" "exit $rc; shell $shpid; $n traces:" \
      "$(cat "$work/ends")"
fi
# ---- names that are not regular files ---------------------------------------
"$VALGRIND" --tool=parlot --parlot-out-file=/dev/null "$work/hold" "$work/go" \
   2>"$work/null.err"
rc=$?
if [ $rc -eq 0 ] && grep -q "ParLoT: trace file /dev/null$" "$work/null.err"; then
   pass "/dev/null as the trace file"
else
   fail "/dev/null as the trace file" "exit $rc" "$(grep ParLoT "$work/null.err" | head -3)"
fi
mkfifo "$work/fifo"
timeout 120 "$PARLOT_DECODE" --info "$work/fifo" >"$work/fifo.info" 2>&1 &
reader=$!
timeout 120 "$VALGRIND" --tool=parlot --parlot-out-file="$work/fifo" "$work/hold" \
   "$work/go" 2>"$work/fifo.err"
rc=$?
wait $reader; rrc=$?
if [ $rc -eq 0 ] && [ $rrc -eq 0 ] && grep -q "ends: exit status 0;" "$work/fifo.info"; then
   pass "a FIFO as the trace file, read as it is written"
else
   fail "a FIFO as the trace file" "exits $rc (traced), $rrc (reader)" \
      "$(head -3 "$work/fifo.info")" "$(grep ParLoT "$work/fifo.err" | head -3)"
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
