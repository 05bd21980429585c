#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of parlot-decode on synthetic traces written by make_trace.
#
#   decoder/tests/test_decoder.sh [-q]
#
# Uses $PARLOT_DECODE and $MAKE_TRACE if set, else builds both (with $CC,
# default cc) from the source tree into a temporary directory.  Unless
# NO_SANITIZE=1, it also builds an ASan+UBSan decoder for the damage and
# fuzz tests, and runs some cases under valgrind memcheck if valgrind is
# installed (NO_VALGRIND=1 skips that).
#
# What is checked:
#  - valid traces (several seeds, codecs, chunk sizes, >65,535 functions,
#    a forked thread, an empty thread, deep recursion, long loops, streams
#    synced at random points, names needing escapes, mangled C++ names,
#    fields and chunks a reader must skip, failed execs, a trace ending
#    with a successful exec and frames still open): the output is byte for
#    byte make_trace's own listing of the events it encoded, with C++ names
#    demangled, or as recorded with --no-demangle;
#  - each damage variant of make_trace: exit 1, exactly one stderr line
#    (a crafted 2^40-word match in a killed process's trace: at once)
#    "parlot-decode: FILE: offset N: ..." with the expected message and
#    offset, and stdout equal to (or, per thread, a prefix of) the listing;
#    a process killed between its last STREAM chunk and THREAD_END, with
#    its streams synced, decodes exactly, every event;
#  - traces cut at every byte offset (one with failed execs: a cut right
#    after an EXEC chunk is a complete trace, exit 0), and with random
#    bytes flipped: never a crash, hang or sanitizer report; exit 0 or 1;
#    one error line; what is printed is, per thread, a prefix of the true
#    events;
#  - a trace and a copy of its first quarter read by one reader, in both
#    orders, -j1 and -j2 (the second takes the first's decoded tables):
#    each reads as it does alone;
#  - empty, nonexistent, directory, bad-magic, short-header and
#    unknown-major-version inputs: exit 1, one line naming file and offset;
#  - the command line: --help, --version, usage errors (exit 2), -o,
#    several files, write errors (/dev/full);
#  - memory does not grow with the trace length (a long trace under a
#    small address-space limit).
# Exit status: 0 if all passed, 1 otherwise.

TEST_TIMEOUT=${TEST_TIMEOUT:-60}    # per decoder run
. "$(dirname "$0")/testlib.sh"
need_tool parlot-decode parlot-diff make_trace

# The decoder for damaged input: sanitized if the compiler can.
san_builds parlot-decode

# Per thread, the lines of ACTUAL are a prefix of those of LISTING, and
# threads come in increasing order.
prefix_of() {
   awk -F'\t' '
      NR == FNR { n[$2]++; want[$2, n[$2]] = $0; next }
      {
         if ($2 + 0 < last) { print "thread " $2 " after thread " last; exit 1 }
         last = $2 + 0
         m[$2]++
         if (!(($2, m[$2]) in want) || want[$2, m[$2]] != $0) {
            print "line " FNR " is not the next event of thread " $2 ": " $0
            exit 1
         }
      }' "$2" "$1"
}

status_ok() { # rc allowed...
   r=$1
   shift
   for a in "$@"; do [ "$r" = "$a" ] && return 0; done
   return 1
}

# ---- Valid traces -----------------------------------------------------------

valid() { # name make_trace-options...
   name=$1
   shift
   t=$tmp/$name
   if ! "$MAKE_TRACE" "$@" "$t.trace" "$t.list" "$t.exp"; then
      fail "$name: make_trace failed"
      return
   fi
   case " $* " in
   *" --raw-names 1 "*) run "$PARLOT_DECODE" "$t.out" "$t.err" --no-demangle \
                           --events "$t.trace" ;;
   *) run "$PARLOT_DECODE" "$t.out" "$t.err" --events "$t.trace" ;;
   esac
   if [ $rc -ne 0 ] || [ -s "$t.err" ]; then
      fail "$name: exit $rc" "$(head -c 300 "$t.err")"
   elif ! cmp -s "$t.out" "$t.list"; then
      fail "$name: output differs from the listing" \
         "$(diff "$t.list" "$t.out" | head -5)"
   else
      pass "$name: $(wc -l <"$t.list") events as encoded"
   fi
}

valid basic --seed 1
valid lzze-tiny-chunks --seed 2 --codec lzze --chunk 1
valid raw-odd-chunks --seed 3 --codec raw --chunk 7
valid six-threads --seed 4 --threads 6 --events 30000
valid one-thread --seed 5 --threads 1
valid forked --seed 6 --fork 40
valid big-ids --seed 7 --functions 70000 --events 40000
valid big-ids-raw --seed 8 --functions 140000 --codec raw
valid extras --seed 9 --variant extras --threads 5
valid no-events --seed 10 --threads 1 --events 0
valid no-demangle --seed 1 --raw-names 1
valid lzrc --seed 18 --codec lzrc
valid lzrc-exec --seed 19 --codec lzrc --variant exec --threads 5
valid ccm --seed 20 --codec ccm
valid ccm-exec-forked --seed 21 --codec ccm --variant exec --fork 30 --threads 5
valid ccm-big-ids --seed 22 --codec ccm --functions 70000 --events 40000
# CCM's fifth revision, the default of formats 1.11 and 2.10 (old traces)
valid ccm5 --seed 33 --codec ccm5
valid ccm5-exec-forked --seed 34 --codec ccm5 --variant exec --fork 30 --threads 5
# CCM's fourth revision, the default of formats 1.10, 2.8 and 2.9 (old traces)
valid ccm4 --seed 29 --codec ccm4
valid ccm4-exec-forked --seed 30 --codec ccm4 --variant exec --fork 30 --threads 5
# CCM's third revision, the default of formats 1.9 and 2.7 (old traces)
valid ccm3 --seed 27 --codec ccm3
valid ccm3-exec-forked --seed 28 --codec ccm3 --variant exec --fork 30 --threads 5
# CCM's second revision, the default of formats 1.6 to 2.6 (old traces)
valid ccm2 --seed 25 --codec ccm2
valid ccm2-exec-forked --seed 26 --codec ccm2 --variant exec --fork 30 --threads 5
# CCM's first revision, the default of format 2.1 and 1.5 (old traces)
valid ccm1 --seed 23 --codec ccm1
valid ccm1-exec-forked --seed 24 --codec ccm1 --variant exec --fork 30 --threads 5
valid exec --seed 41 --variant exec
valid exec-lzze --seed 42 --variant exec --codec lzze --threads 5
valid exec-raw-chunks --seed 43 --variant exec --codec raw --chunk 3
valid exec-forked --seed 44 --variant exec --fork 30 --threads 2
valid exec-failed --seed 45 --variant exec-failed
valid exec-failed-tiny --seed 46 --variant exec-failed --codec lzze --chunk 1

# ---- Damage variants of make_trace ----------------------------------------

variant() { # variant seed [options...]
   v=$1 seed=$2
   shift 2
   t=$tmp/v-$v-$seed
   if ! "$MAKE_TRACE" --seed "$seed" --threads 4 --fork 6 --variant "$v" \
         "$@" "$t.trace" "$t.list" "$t.exp"; then
      fail "variant $v: make_trace failed"
      return
   fi
   mode=$(sed -n 1p "$t.exp")
   re=$(sed -n 2p "$t.exp")
   run "$SAN_DECODE" "$t.out" "$t.err" --events "$t.trace"
   if [ $rc -ne 1 ]; then
      fail "variant $v (seed $seed): exit $rc, expected 1" \
         "$(head -c 300 "$t.err")"
      return
   fi
   if ! why=$(err_is "$t.err" "$t.trace" "$re"); then
      fail "variant $v (seed $seed): $why"
      return
   fi
   if [ "$mode" = exact ]; then
      if ! cmp -s "$t.out" "$t.list"; then
         fail "variant $v (seed $seed): output is not exactly the events" \
            "before the damage" "$(diff "$t.list" "$t.out" | head -5)"
         return
      fi
   elif ! why=$(prefix_of "$t.out" "$t.list"); then
      fail "variant $v (seed $seed): $why"
      return
   fi
   pass "variant $v (seed $seed): $(cat "$t.err" | cut -c1-110)"
}

for v in killed killed-synced zero-tail bad-exit bad-id bad-inherit crc \
         missing bad-len raw-long raw-short raw-stuck empty-chunk \
         exec-mid-event after-end open-frames count end-raw bad-alias \
         bad-packed; do
   variant $v 11
   variant $v 12 --codec raw --chunk 5
done
# A crafted match of 2^40 words in a thread without THREAD_END (the process
# was killed): hours of copying for a decoder that believes it.  Refused at
# once, with one line: LZZE's length is more than any encoder writes
# (PL_MAX_MATCH), LZRC's raw_end more than its chunk's bytes can express.
saved_timeout=$TIMEOUT
[ -z "$TIMEOUT" ] || TIMEOUT="timeout 10"
for c in lzze lzrc; do
   variant huge-match 11 --codec $c
   variant huge-match 17 --codec $c --threads 2 --events 4000
done
TIMEOUT=$saved_timeout
# ... but a trace of format 1.2, whose encoder wrote matches of any length,
# still decodes: a real one (tailcall 2000000 traced by the tool of commit
# aad3fdc: a 2,000,001-deep chain of tail calls, whose 2,000,005 exits are
# one match), every event its THREAD_END records.
old=$top/decoder/tests/corpus/fuzz_trace/format-1.2-long-match
run "$SAN_DECODE" "$tmp/old.out" "$tmp/old.err" --events "$old"
want=$("$PARLOT_DECODE" --info "$old" | awk '$1 == 1 && $2 == "lzrc" { gsub(",", "", $4); print $4 }')
got=$(wc -l <"$tmp/old.out")
if [ "$rc" = 0 ] && [ -n "$want" ] && [ "$got" = "$want" ] && [ ! -s "$tmp/old.err" ]; then
   pass "format 1.2 trace with a match longer than 65,535 words: $got events"
else
   fail "format 1.2 trace with a long match: exit $rc, $got events of $want" \
      "$(head -2 "$tmp/old.err")"
fi
# killed between its last STREAM chunk and THREAD_END, with more seeds and
# chunkings: every event decodes (the old format lost the last ZE group)
for seed in 13 14 15 16; do
   variant killed-synced $seed --codec lzze --chunk $((seed * 7 - 90))
done

# ---- Hand-made bad inputs ------------------------------------------------------

bad_input() { # description file regex
   run "$SAN_DECODE" "$tmp/b.out" "$tmp/b.err" --events "$2"
   if [ $rc -ne 1 ]; then
      fail "$1: exit $rc, expected 1" "$(head -c 300 "$tmp/b.err")"
   elif [ -s "$tmp/b.out" ]; then
      fail "$1: unexpected output"
   elif ! why=$(err_is "$tmp/b.err" "$2" "$3"); then
      fail "$1: $why"
   else
      pass "$1: $(cut -c1-100 "$tmp/b.err")"
   fi
}

good=$tmp/basic.trace
: >"$tmp/empty.trace"
bad_input "empty file" "$tmp/empty.trace" '^offset 0: empty file$'
bad_input "nonexistent file" "$tmp/does-not-exist" \
   '^offset 0: cannot open: No such file or directory$'
mkdir "$tmp/dir.trace"
bad_input "directory without traces" "$tmp/dir.trace" \
   '^no trace or archive in this directory$'
# a directory stands for the traces in it (other files left out)
mkdir "$tmp/run"
cp "$good" "$tmp/run/t1"
echo "not a trace" >"$tmp/run/notes.txt"
run "$SAN_DECODE" "$tmp/d.out" "$tmp/d.err" --events "$tmp/run"
run "$SAN_DECODE" "$tmp/f.out" "$tmp/f.err" --events "$good"
if [ $rc -eq 0 ] && [ ! -s "$tmp/d.err" ] && cmp -s "$tmp/d.out" "$tmp/f.out"
then
   pass "a directory: its trace decoded, the other file left out"
else
   fail "a directory as input" "$(head -c 300 "$tmp/d.err")"
fi
printf 'GIF89a this is not a trace at all' >"$tmp/magic.trace"
bad_input "bad magic" "$tmp/magic.trace" '^offset 0: not a ParLoT trace'
head -c 5 "$good" >"$tmp/short.trace"
bad_input "5-byte file" "$tmp/short.trace" '^offset 5: truncated: file header'
head -c 16 "$good" >"$tmp/hdronly.trace"
bad_input "header only" "$tmp/hdronly.trace" '^offset 16: truncated: no chunks'
{ head -c 8 "$good"; printf '\003\000'; tail -c +11 "$good"; } >"$tmp/major.trace"
bad_input "major version 3" "$tmp/major.trace" \
   '^offset 8: unsupported format version 3\.[0-9]+'
{ head -c 8 "$good"; printf '\000\000'; tail -c +11 "$good"; } >"$tmp/major0.trace"
bad_input "major version 0" "$tmp/major0.trace" \
   '^offset 8: unsupported format version 0\.[0-9]+'
{ head -c 16 "$good"; printf '\002'; tail -c +18 "$good"; } >"$tmp/first.trace"
bad_input "first chunk not PROCESS" "$tmp/first.trace" \
   '^offset 16: first chunk is OBJECTS, not PROCESS$'

# ---- Truncation at every offset ------------------------------------------------

# cut_test NAME TRACE LISTING EXPECT: cut TRACE at every offset.  Exit 0
# only for the whole file and for a cut right after an EXEC chunk (a
# complete trace: the exec succeeded); otherwise exit 1 with one
# "truncated" line.  Either way each thread's output is a prefix of its
# events.
cut_test() {
   name=$1 trace=$2 list=$3 exp=$4
   size=$(wc -c <"$trace")
   complete=" $size $(sed -n 3p "$exp") "
   bad=0 cut=0 ncomplete=0
   while [ $cut -le "$size" ]; do
      head -c $cut "$trace" >"$tmp/cut.trace"
      # sanitized runs are slow to start: every other offset is enough
      dec=$PARLOT_DECODE
      [ $((cut % 2)) = 0 ] && dec=$SAN_DECODE
      run "$dec" "$tmp/cut.out" "$tmp/cut.err" --events "$tmp/cut.trace"
      case $complete in
      *" $cut "*) want=0 ncomplete=$((ncomplete + 1)) ;;
      *) want=1 ;;
      esac
      if [ $cut -eq "$size" ] && ! cmp -s "$tmp/cut.out" "$list"; then
         bad=1 why="full file: wrong output"
      elif [ $rc -ne $want ]; then
         bad=1 why="cut at $cut: exit $rc, expected $want: $(head -c 200 "$tmp/cut.err")"
      elif [ $want = 0 ] && [ -s "$tmp/cut.err" ]; then
         bad=1 why="cut at $cut: exit 0 with a message"
      elif [ $want = 1 ] && ! why=$(err_is "$tmp/cut.err" "$tmp/cut.trace" \
            '^offset [0-9]+: (truncated|empty file|not a ParLoT)'); then
         bad=1 why="cut at $cut: $why"
      elif ! why=$(prefix_of "$tmp/cut.out" "$list"); then
         bad=1 why="cut at $cut: $why"
      fi
      [ $bad = 1 ] && break
      cut=$((cut + 1))
   done
   if [ $bad = 0 ]; then
      pass "$name: cut at each of $size offsets ($ncomplete complete): per-thread prefix, one error line"
   else
      fail "$name: truncation" "$why"
   fi
}

small=$tmp/small
"$MAKE_TRACE" --seed 21 --threads 3 --events 40 --functions 12 --chunk 9 \
   --fork 3 "$small.trace" "$small.list" "$small.exp"
cut_test "small trace" "$small.trace" "$small.list" "$small.exp"
smallx=$tmp/smallx
"$MAKE_TRACE" --seed 22 --threads 3 --events 40 --functions 30 --chunk 12 \
   --variant exec-failed "$smallx.trace" "$smallx.list" "$smallx.exp"
if [ -n "$(sed -n 3p "$smallx.exp")" ]; then
   cut_test "small trace with failed execs" "$smallx.trace" "$smallx.list" \
      "$smallx.exp"
else
   fail "small trace with failed execs: make_trace wrote no EXEC chunk"
fi
# ---- One trace read after another that shares its first tables ---------------

# A reader keeps the packed tables it decoded for the next open of the
# same file (decoder/lib/pl_table_cache.h).  A trace read after a copy of
# it cut short takes the copy's tables from there, and must decode its
# later ones itself, its table model first catching up; read before the
# copy, it leaves all of the copy's.  Each must read as it does alone,
# the copy's events per thread a prefix of the true ones.
# (The first quarter of this trace holds only some of its table chunks.)
shared=$tmp/shared
"$MAKE_TRACE" --seed 23 --threads 3 --events 300 --functions 80 --chunk 40 \
   "$shared.trace" "$shared.list" "$shared.exp"
part=$(( $(wc -c <"$shared.trace") / 4 ))
head -c $part "$shared.trace" >"$tmp/shared_part.trace"
run "$PARLOT_DECODE" "$tmp/part.out" "$tmp/part.err" --events \
   "$tmp/shared_part.trace"
cat "$tmp/part.out" "$shared.list" >"$tmp/part_full.want"
cat "$shared.list" "$tmp/part.out" >"$tmp/full_part.want"
for j in 1 2; do
   run "$PARLOT_DECODE" "$tmp/hf.out" "$tmp/hf.err" --events -j$j \
      "$tmp/shared_part.trace" "$shared.trace"
   rc_hf=$rc
   run "$PARLOT_DECODE" "$tmp/fh.out" "$tmp/fh.err" --events -j$j \
      "$shared.trace" "$tmp/shared_part.trace"
   if [ $rc_hf -eq 1 ] && [ $rc -eq 1 ] && [ -s "$tmp/part.out" ] &&
      prefix_of "$tmp/part.out" "$shared.list" >/dev/null &&
      cmp -s "$tmp/hf.out" "$tmp/part_full.want" &&
      cmp -s "$tmp/fh.out" "$tmp/full_part.want" &&
      cmp -s "$tmp/hf.err" "$tmp/part.err" &&
      cmp -s "$tmp/fh.err" "$tmp/part.err"; then
      pass "a trace and its first quarter in one reader, -j$j: each as alone"
   else
      fail "a trace and its first quarter in one reader, -j$j" \
         "exit $rc_hf and $rc" "$(diff "$tmp/part_full.want" "$tmp/hf.out" | head -3)" \
         "$(diff "$tmp/full_part.want" "$tmp/fh.out" | head -3)"
   fi
done

# ---- Random corruption ----------------------------------------------------------

i=0 bad=0
while [ $i -lt 300 ]; do
   # alternately the small trace and the one with EXEC chunks
   src=$small.trace
   [ $((i % 2)) = 1 ] && src=$smallx.trace
   size=$(wc -c <"$src")
   # flip 1-3 random bytes (positions and values from awk's rand)
   awk -v seed=$i -v size="$size" 'BEGIN {
         srand(seed); n = 1 + int(rand() * 3)
         for (k = 0; k < n; k++)
            printf "%d %d\n", int(rand() * size), int(rand() * 256) }' \
      >"$tmp/flips"
   cp "$src" "$tmp/fuzz.trace"
   while read -r pos val; do
      printf "$(printf '\\%03o' "$val")" |
         dd of="$tmp/fuzz.trace" bs=1 seek="$pos" conv=notrunc 2>/dev/null
   done <"$tmp/flips"
   run "$SAN_DECODE" "$tmp/fz.out" "$tmp/fz.err" --events "$tmp/fuzz.trace"
   if ! status_ok $rc 0 1; then
      bad=1 why="flips $(tr '\n' ' ' <"$tmp/flips"): exit $rc: $(head -c 300 "$tmp/fz.err")"
   elif [ $rc = 1 ] && ! why=$(err_is "$tmp/fz.err" "$tmp/fuzz.trace" \
         '^offset [0-9]+: .'); then
      bad=1 why="flips $(tr '\n' ' ' <"$tmp/flips"): $why"
   elif [ $rc = 0 ] && [ -s "$tmp/fz.err" ]; then
      bad=1 why="exit 0 with a message"
   fi
   if [ $bad = 1 ]; then
      kept=${TMPDIR:-/tmp}/parlot-decode-fuzz-failure.trace
      cp "$tmp/fuzz.trace" "$kept"
      break
   fi
   i=$((i + 1))
done
if [ $bad = 0 ]; then
   pass "300 traces with random bytes flipped: no crash, one error line"
else
   fail "random corruption (the trace is kept as $kept)" "$why"
fi

# ---- Command line -------------------------------------------------------------------

cli() { # description expected-rc args...
   d=$1 want=$2
   shift 2
   run "$PARLOT_DECODE" "$tmp/c.out" "$tmp/c.err" "$@"
   if [ $rc -ne "$want" ]; then
      fail "$d: exit $rc, expected $want" "$(head -c 300 "$tmp/c.err")"
      return 1
   fi
   return 0
}

cli "--help" 0 --help && grep -q -- '--events' "$tmp/c.out" \
   && grep -q -- '--no-demangle' "$tmp/c.out" \
   && [ ! -s "$tmp/c.err" ] && pass "--help"
cli "--version" 0 --version && grep -q 'trace format 1\.' "$tmp/c.out" \
   && pass "--version"
for args in "--bogus $good" "--events" "$good" "--events -o" \
            "--events --events=x $good" "-x --events $good"; do
   # shellcheck disable=SC2086
   cli "usage error ($args)" 2 $args && [ "$(wc -l <"$tmp/c.err")" -eq 1 ] \
      && [ ! -s "$tmp/c.out" ] && pass "usage error, one line: $args"
done
cli "-o FILE" 0 --events -o "$tmp/o.txt" "$good" && [ ! -s "$tmp/c.out" ] \
   && cmp -s "$tmp/o.txt" "$tmp/basic.list" && pass "-o FILE"
cli "--output=FILE" 0 --output="$tmp/o2.txt" --events "$good" \
   && cmp -s "$tmp/o2.txt" "$tmp/basic.list" && pass "--output=FILE"
cat "$tmp/basic.list" "$tmp/forked.list" >"$tmp/two.list"
cli "two files" 0 --events "$good" "$tmp/forked.trace" \
   && cmp -s "$tmp/c.out" "$tmp/two.list" && pass "two files, in order"
cli "a bad file among good ones" 1 --events "$good" "$tmp/magic.trace" \
      "$tmp/forked.trace" \
   && cmp -s "$tmp/c.out" "$tmp/two.list" \
   && err_is "$tmp/c.err" "$tmp/magic.trace" 'bad magic' >/dev/null \
   && pass "a bad file among good ones: the others are decoded, exit 1"
cp "$good" "$tmp/self.trace"
cli "-o naming an input" 2 --events -o "$tmp/self.trace" "$tmp/self.trace" \
   && cmp -s "$tmp/self.trace" "$good" && pass "-o naming an input is refused"
if [ -w /dev/full ]; then
   cli "write error" 1 --events -o /dev/full "$good" \
      && grep -q '^parlot-decode: /dev/full: write error: No space' "$tmp/c.err" \
      && [ "$(wc -l <"$tmp/c.err")" -eq 1 ] && pass "write error on /dev/full"
   "$PARLOT_DECODE" --events "$good" >/dev/full 2>"$tmp/c.err"
   rc=$?
   if [ $rc -eq 1 ] && grep -q 'standard output: write error' "$tmp/c.err"; then
      pass "write error on standard output"
   else
      fail "write error on standard output: exit $rc"
   fi
fi

# ---- Memory does not follow the trace length -----------------------------------------

long=$tmp/long
"$MAKE_TRACE" --seed 31 --threads 2 --events 3000000 --codec raw \
   "$long.trace" none "$long.exp"
# ulimit -v is not POSIX, hence the probe.  The limit covers the shared
# libraries too: libxml2 brings ICU, whose data alone maps 30 MB.
# shellcheck disable=SC3045
if (ulimit -v 110000) 2>/dev/null; then
   # shellcheck disable=SC3045
   n=$( (ulimit -v 110000 && "$PARLOT_DECODE" --events "$long.trace") | wc -l)
   if [ "$n" -ge 3000000 ]; then
      pass "$n events ($(($(wc -c <"$long.trace") / 1048576)) MB raw trace) in 110 MB of address space"
   else
      fail "long trace under a 110 MB address-space limit: $n lines"
   fi
else
   echo "# skipped: this shell has no ulimit -v"
fi

# ---- Progress on a terminal ------------------------------------------------------

# script(1) gives the program a terminal; a zero delay shows the line at
# once.  tty_progress LABEL REGEX COMMAND: COMMAND exits 0 having drawn
# status lines matching REGEX, then the erase sequence ending the line.
tty_progress() {
   PARLOT_PROGRESS_DELAY_MS=0 script -qec "$3" "$tmp/p.tty" >/dev/null 2>&1
   rc=$?
   if [ $rc -eq 0 ] && grep -Eq "$2" "$tmp/p.tty" \
      && tr '\r\033' '|~' <"$tmp/p.tty" | grep -q 'M events|~\[K$'; then
      pass "$1: progress line on a terminal, erased at the end"
   else
      fail "$1: progress on a terminal (exit $rc)" "$(tr '\r\033' '|~' <"$tmp/p.tty" | head -c 300)"
   fi
}
if command -v script >/dev/null 2>&1; then
   for mode in --xml --events --replay; do
      tty_progress "$mode" \
         'parlot-decode: \[1/1\] [^:]*long.trace: thread [12]/2: [0-9]+%, [0-9]+ M events' \
         "'$PARLOT_DECODE' $mode -o '$tmp/p.out' '$long.trace'"
   done
   # parlot-diff's: the pairs are its "files"; it exits 0 (the same run)
   tty_progress parlot-diff \
      'parlot-diff: \[1/2\] pid [0-9]+ thread 1: thread 1/1: [0-9]+%, [0-9]+ M events' \
      "'$PARLOT_DIFF' --images=all -o '$tmp/p.out' '$long.trace' '$long.trace'"
   PARLOT_PROGRESS_DELAY_MS=0 "$PARLOT_DECODE" --xml -o "$tmp/p.out" \
      "$long.trace" 2>"$tmp/p.err"
   if [ $? -eq 0 ] && [ ! -s "$tmp/p.err" ]; then
      pass "no progress line when stderr is not a terminal"
   else
      fail "progress written to a non-terminal stderr" "$(head -c 200 "$tmp/p.err")"
   fi
else
   echo "# skipped: no script(1) to give the decoder a terminal"
fi

# ---- Valgrind memcheck -----------------------------------------------------------------

VALGRIND=${VALGRIND:-valgrind}    # make check passes the Valgrind it built
if [ "${NO_VALGRIND:-0}" != 1 ] && command -v "$VALGRIND" >/dev/null 2>&1; then
   for f in "$good" "$tmp/v-killed-11.trace" "$tmp/v-bad-exit-12.trace" \
            "$tmp/v-crc-11.trace" "$tmp/v-raw-long-11.trace" \
            "$tmp/exec.trace" "$tmp/v-killed-synced-11.trace" \
            "$tmp/magic.trace"; do
      "$VALGRIND" -q --error-exitcode=99 --leak-check=full \
         --errors-for-leak-kinds=definite,indirect \
         "$PARLOT_DECODE" --events "$f" >/dev/null 2>"$tmp/vg.err"
      rc=$?
      if status_ok $rc 0 1; then
         pass "memcheck clean: $(basename "$f")"
      else
         fail "memcheck on $(basename "$f"): exit $rc" "$(head -20 "$tmp/vg.err")"
      fi
   done
fi

finish always
