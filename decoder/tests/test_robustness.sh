#!/bin/sh
# SPDX-License-Identifier: MIT
# Every reader on bad input: the command-line robustness matrix.
#
#   decoder/tests/test_robustness.sh [-q]
#
# Builds parlot-decode, parlot-annotate, parlot-diff, parlot-split and
# parlot-merge with ASan+UBSan (NO_SANITIZE=1: the plain builds given as
# $PARLOT_DECODE etc., or built here) and runs each command below on each
# bad input below.  Each run must end within TEST_TIMEOUT (60 s) with exit
# status 1 or 2 (never a signal or a sanitizer finding), write to stderr
# lines that all start with "PROGRAM: ", the first of them naming the bad
# input, and, for an input with nothing to read in it (empty, a
# directory, missing, /dev/null, random bytes), write nothing to standard
# output unless a good trace was given beside it or the output is an XML
# document (an empty program, still valid); a damaged trace is read up to
# the damage, and shown so far.
#
# The inputs: an empty file, a directory without traces, an empty
# directory, a path that does not exist, /dev/null, random bytes, the
# file header alone, a trace cut at four points, three copies with bytes
# flipped, an archive with a damaged member and a truncated archive;
# stdin ("-") empty and cut short; with a good trace beside it where the
# command takes two.  (parlot-split --list reads an archive's index only:
# a damaged member's bytes are no error there.)  A valid trace without
# threads must not crash anything.  The good trace from stdin, from a
# pipe, and stdin given twice, must be read.
. "$(dirname "$0")/testlib.sh"

TIMEOUT="timeout ${TEST_TIMEOUT:-60}"
need_tool make_trace script_trace
progs="parlot-decode parlot-annotate parlot-diff parlot-split parlot-merge"
if [ "${NO_SANITIZE:-0}" != 1 ]; then
   san_builds $progs || { echo "cannot build the readers with sanitizers"; exit 1; }
   for p in $progs; do
      eval "$(tool_var "$p")=\$$(san_var "$p")"
   done
   [ $quiet = 1 ] || echo "# every reader runs under ASan+UBSan"
else
   need_tool $progs
fi

# ---- inputs --------------------------------------------------------------------

in=$tmp/in
mkdir -p "$in/emptydir" "$in/dir"
"$MAKE_TRACE" --seed 7 --threads 3 --events 400 --deep 0 "$in/good.trace" \
   none "$tmp/expect" >/dev/null || { echo "make_trace failed"; exit 1; }
echo "not a trace" >"$in/dir/notes.txt"
: >"$in/empty.trace"
head -c 4096 /dev/urandom >"$in/random.trace"
head -c 16 "$in/good.trace" >"$in/header.trace"
size=$(wc -c <"$in/good.trace")
for cut in 24 100 $((size / 2)) $((size - 1)); do
   head -c $cut "$in/good.trace" >"$in/cut$cut.trace"
done
for i in 1 2 3; do
   python3 - "$in/good.trace" "$in/flip$i.trace" $i <<'PY'
import random, sys
data = bytearray(open(sys.argv[1], "rb").read())
rnd = random.Random(int(sys.argv[3]))
for _ in range(8):
    data[rnd.randrange(16, len(data))] ^= 1 << rnd.randrange(8)
open(sys.argv[2], "wb").write(data)
PY
done
printf 'process pid=77 exe=/bin/none arg0=none\nend\n' >"$tmp/nothreads.script"
"$SCRIPT_TRACE" "$tmp/nothreads.script" "$in/nothreads.trace" ||
   { echo "script_trace failed"; exit 1; }
cp "$in/good.trace" "$in/good2.trace"
"$PARLOT_MERGE" -o "$in/good.parlot" "$in/good.trace" "$in/good2.trace" \
   2>"$tmp/merge.err" || { echo "parlot-merge: $(cat "$tmp/merge.err")"; exit 1; }
asize=$(wc -c <"$in/good.parlot")
head -c $((asize - 7)) "$in/good.parlot" >"$in/cut.parlot"
python3 - "$in/good.parlot" "$in/member.parlot" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
# a byte in the middle of the first member's streams (past its header)
at = len(data) // 4
data[at] ^= 0x40
open(sys.argv[2], "wb").write(data)
PY

nothing="empty.trace dir emptydir missing.trace /dev/null random.trace"
bad="$nothing header.trace cut24.trace cut100.trace cut$((size / 2)).trace
cut$((size - 1)).trace flip1.trace flip2.trace flip3.trace cut.parlot
member.parlot"

# ---- one run ------------------------------------------------------------------

# check LABEL PROG BADNAME STDOUT_OK ARGS...: run and judge (see top)
check() {
   label=$1 prog=$2 badname=$3 out_ok=$4
   shift 4
   # shellcheck disable=SC2086
   (cd "$in" && $TIMEOUT "$prog" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null)
   rc=$?
   name=$(basename "$prog" -san)   # as its messages name it
   why=
   if [ $rc -eq 124 ]; then
      why="no exit within ${TEST_TIMEOUT:-60} s"
   elif [ $rc -ge 86 ]; then
      why="exit $rc (a signal or a sanitizer finding)"
   elif [ $rc -ne 1 ] && [ $rc -ne 2 ]; then
      why="exit $rc, expected 1 or 2"
   elif [ ! -s "$tmp/err" ]; then
      why="nothing on stderr"
   elif grep -qv "^$name: " "$tmp/err"; then
      why="a stderr line not from $name"
   elif ! head -1 "$tmp/err" | grep -qF -- "$badname"; then
      why="the first stderr line does not name $badname"
   elif [ "$out_ok" = 0 ] && [ -s "$tmp/out" ]; then
      why="output on stdout for a bad input alone"
   fi
   if [ -n "$why" ]; then
      fail "$label" "$why" "$(head -c 600 "$tmp/err")"
      return 1
   fi
   return 0
}

# ---- the matrix ---------------------------------------------------------------

# each command as PROG|ARGS, the bad input where @ is
cmds="PARLOT_DECODE|--events @
PARLOT_DECODE|--replay --loops @
PARLOT_DECODE|--stacks @
PARLOT_DECODE|--progress @
PARLOT_DECODE|--info @
PARLOT_DECODE|--info --xml @
PARLOT_DECODE|--xml @
PARLOT_DECODE|--callgrind @
PARLOT_DECODE|--paths @
PARLOT_DECODE|--folded @
PARLOT_ANNOTATE|@
PARLOT_ANNOTATE|--tree=both --group-by=graph @
PARLOT_DIFF|@ good.trace
PARLOT_DIFF|good.trace @
PARLOT_DIFF|--within @
PARLOT_SPLIT|--list @
PARLOT_MERGE|-o merged.parlot @"

ncases=0 nbad=0
while IFS='|' read -r var args; do
   eval "prog=\$$var"
   for b in $bad; do
      [ "$var $b" = "PARLOT_SPLIT member.parlot" ] && continue
      # output: allowed beside the good trace, and up to the damage
      case "$args $nothing " in
      *good.trace* | *--xml*) ok=1 ;;   # (a document stays one)
      *" $b "*) ok=0 ;;
      *) ok=1 ;;
      esac
      # shellcheck disable=SC2086
      set -- $(echo "$args" | sed "s|@|$b|")
      ncases=$((ncases + 1))
      rm -f "$in/merged.parlot"
      check "$(basename "$prog" -san) $args on $b" "$prog" "$b" $ok "$@" ||
         nbad=$((nbad + 1))
   done
done <<EOF2
$cmds
EOF2
[ $nbad -eq 0 ] &&
   pass "$ncases runs of 17 commands on $(echo $bad | wc -w) bad inputs: exit 1 or 2, no signal, the file named"

# a valid trace without threads: read, whatever it shows, without a crash
ncrash=0
while IFS='|' read -r var args; do
   eval "prog=\$$var"
   # shellcheck disable=SC2086
   set -- $(echo "$args" | sed "s|@|nothreads.trace|")
   rm -f "$in/merged.parlot"
   (cd "$in" && $TIMEOUT "$prog" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null)
   rc=$?
   if [ $rc -gt 2 ]; then
      fail "$(basename "$prog" -san) $args on a trace without threads: exit $rc" \
         "$(head -c 400 "$tmp/err")"
      ncrash=$((ncrash + 1))
   fi
done <<EOF2
$cmds
EOF2
[ $ncrash -eq 0 ] && pass "a trace without threads: every command ends with exit 0, 1 or 2"

# stdin: "-" empty, cut short, and good; a pipe; the same trace twice
spool=$tmp/spool          # the readers' temporary copies go here
mkdir "$spool"
TMPDIR=$spool; export TMPDIR
(cd "$in" && $TIMEOUT "$PARLOT_DECODE" --info - <"$in/empty.trace" >"$tmp/out" 2>"$tmp/err")
rc=$?
if [ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && err_is "$tmp/err" stdin 'empty' >/dev/null; then
   pass "--info - on an empty stdin: one line naming stdin, exit 1"
else
   fail "--info - on an empty stdin (exit $rc)" "$(cat "$tmp/err" "$tmp/out" | head -5)"
fi
$TIMEOUT "$PARLOT_DECODE" --events - <"$in/cut100.trace" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && stderr_line "$tmp/err" "parlot-decode: stdin: offset " >/dev/null; then
   pass "--events - on a trace cut short: its error names stdin"
else
   fail "--events - cut short (exit $rc)" "$(head -3 "$tmp/err")"
fi
"$PARLOT_DECODE" --events "$in/good.trace" >"$tmp/want" 2>/dev/null
cat "$in/good.trace" | $TIMEOUT "$PARLOT_DECODE" --events - >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && cmp -s "$tmp/out" "$tmp/want"; then
   pass "--events - from a pipe: the same events as from the file"
else
   fail "--events - from a pipe (exit $rc)" "$(head -3 "$tmp/err")"
fi
mkfifo "$tmp/fifo"
cat "$in/good.trace" >"$tmp/fifo" &
$TIMEOUT "$PARLOT_DECODE" --events "$tmp/fifo" >"$tmp/out" 2>"$tmp/err"
rc=$?
wait
if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && cmp -s "$tmp/out" "$tmp/want"; then
   pass "--events FIFO: the same events as from the file"
else
   fail "--events FIFO (exit $rc)" "$(head -3 "$tmp/err")"
fi
# stdin as both runs: copied once, so the run equals itself (a second
# read of the pipe would find it empty)
cat "$in/good.trace" | $TIMEOUT "$PARLOT_DIFF" - - >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] &&
   grep -Eq '^== summary: ([0-9]+) thread pairs compared, \1 identical, 0 different' "$tmp/out"; then
   pass "parlot-diff - -: stdin read once, the run identical to itself"
else
   fail "parlot-diff - - (exit $rc)" "$(head -3 "$tmp/err")" "$(grep '^==' "$tmp/out")"
fi
# every copy made in this test's own TMPDIR is gone
if [ -d "$spool" ] && [ -z "$(ls -A "$spool")" ]; then
   pass "no temporary copy of stdin or a pipe left behind"
else
   fail "temporary copies left" "$(ls -A "$spool" 2>&1)"
fi

finish
