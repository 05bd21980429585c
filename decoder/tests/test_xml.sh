#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of parlot-decode --xml on synthetic traces written by make_trace.
#
#   decoder/tests/test_xml.sh [-q]
#
# Uses $PARLOT_DECODE, $MAKE_TRACE and $XMLLINT if set (make check sets
# them), else builds the first two (with $CC, default cc, and pkg-config's
# libxml-2.0 flags) from the source tree into a temporary directory and
# takes xmllint from $PATH.  Unless NO_SANITIZE=1 it also builds an
# ASan+UBSan decoder, in the background while the first tests run, for the
# damaged, truncated and badly named inputs.  The oracles are in
# xml_oracle.py (python3).
#
# What is checked:
#  - every document validates against docs/parlot-callgraph.rng;
#  - valid traces (seeds, thread counts, codecs, chunk sizes, a forked
#    thread, >65,535 functions, mangled C++ names, --no-demangle, fields a
#    reader must skip, execs): per thread, events, calls, max-depth,
#    functions, per-function calls and inclusive events and per-edge calls,
#    inclusive calls and inclusive events equal what xml_oracle.py
#    computes from make_trace's own event listing; thread numbers, parents
#    and counts match the trace's THREAD_BEGIN chunks; the function table's
#    dup numbers and idents are right; groups and the program are the sums
#    of their threads;
#  - several traces (one given twice as two files, one with another pid
#    and an MPI rank; the same file given twice is read once, said in one
#    line): --group-by process (default), graph, shape and none; --group
#    NAME=SPEC in order; --select; shape classes that graph classes split;
#  - damaged traces (make_trace's variants): exit 1, exactly one stderr line
#    "parlot-decode: FILE: offset N: ..." with the expected message, and a
#    valid document whose threads are each the graph of a prefix of their
#    events; several bad files give one line each; traces cut at sampled
#    offsets give valid documents;
#  - names, objects, exe, command and file names that are not UTF-8 or
#    hold control characters: well-formed and valid, each ill-formed
#    sequence and each character XML forbids replaced by U+FFFD, the rest
#    (CR, LF, tab, markup characters) kept exactly;
#  - -o FILE, write errors (/dev/full), bad --group-by and --group values.
# Exit status: 0 if all passed, 1 otherwise.

TEST_TIMEOUT=${TEST_TIMEOUT:-60}    # per decoder run
. "$(dirname "$0")/testlib.sh"

PYTHON=${PYTHON3:-python3}
ORACLE=$here/xml_oracle.py
RNG=$top/docs/parlot-callgraph.rng
XMLLINT=${XMLLINT:-xmllint}
if ! command -v "$XMLLINT" >/dev/null 2>&1 \
   || ! command -v "$PYTHON" >/dev/null 2>&1; then
   echo "not ok 1 - xmllint ($XMLLINT) and python3 are needed"
   exit 1
fi

need_tool parlot-decode make_trace

# The decoder for damaged input: sanitized if the compiler can.
san_builds parlot-decode

# valid_doc XML: prints why not, if the document does not validate.
valid_doc() {
   if ! "$XMLLINT" --noout --relaxng "$RNG" "$1" >"$tmp/lint" 2>&1; then
      echo "invalid document: $(grep -v 'fails to validate' "$tmp/lint" | head -c 300)"
      return 1
   fi
}

# check_doc XML ORACLE-ARGS...: valid, and as the oracle computes.  Sets
# $why on failure, $summary on success.
check_doc() {
   x=$1
   shift
   why=$(valid_doc "$x") || return 1
   summary=$("$PYTHON" "$ORACLE" check "$x" "$@") || { why=$summary; return 1; }
}

# ---- Valid traces, one at a time ------------------------------------------------

# valid NAME END [--no-demangle] MAKE_TRACE-OPTIONS...
valid() {
   name=$1 end=$2
   shift 2
   dopts= oopts=
   if [ "${1:-}" = "--no-demangle" ]; then
      dopts=--no-demangle oopts=--raw
      shift
   fi
   t=$tmp/$name
   if ! "$MAKE_TRACE" "$@" "$t.trace" "$t.list" "$t.exp" 2>"$t.err"; then
      fail "$name: make_trace failed" "$(head -c 300 "$t.err")"
      return
   fi
   run "$PARLOT_DECODE" "$t.xml" "$t.err" --xml $dopts "$t.trace"
   if [ $rc -ne 0 ] || [ -s "$t.err" ]; then
      fail "$name: exit $rc" "$(head -c 300 "$t.err")"
   elif ! check_doc "$t.xml" $oopts --proc "trace=$t.trace,listing=$t.list,mode=exact,pid=4242,end=$end,plain=1,file=$t.trace"; then
      fail "$name" "$why"
   else
      pass "$name: $summary"
   fi
}

valid basic exit --seed 3 --events 1000
# the same in format 1.4 (plain tables), which the names test rewrites
valid basic-plain exit --seed 3 --events 1000 --pack 0
valid one-thread exit --seed 2 --threads 1 --events 3000
valid five-threads-lzze exit --seed 2 --threads 5 --events 800 --codec lzze
valid raw-chunks exit --seed 4 --codec raw --chunk 7 --events 1000
valid tiny-chunks exit --seed 5 --codec lzze --chunk 1 --events 1000
valid forked exit --seed 6 --fork 40 --threads 2 --events 1000
valid big-ids exit --seed 7 --functions 100000 --threads 1 --events 3000
valid few-functions exit --seed 8 --functions 3 --events 1000
valid no-events exit --seed 9 --threads 1 --events 0
valid extras exit --seed 10 --variant extras --threads 4 --events 800
valid exec exec --seed 41 --variant exec --events 1000
valid exec-forked exec --seed 44 --variant exec --fork 30 --threads 2 --events 1000
valid exec-failed exit --seed 45 --variant exec-failed --events 1000
valid no-demangle exit --no-demangle --seed 11 --raw-names 1 --events 1000

# C++ names: the default shows them demangled with the raw name beside
t=$tmp/basic.xml
if grep -q 'name="ns::m_[0-9]*(int)" mangled="_ZN2ns[0-9]*m_[0-9]*Ei"' "$t" \
   && ! grep -q 'mangled=' "$tmp/no-demangle.xml" \
   && grep -q 'name="_ZN2ns' "$tmp/no-demangle.xml"; then
   pass "C++ names: demangled with mangled=, as recorded with --no-demangle"
else
   fail "C++ names: no demangled name with its mangled= (or one with --no-demangle)"
fi
# the real functions table has more than 65,535 entries
n=$(grep -c '<function ' "$tmp/big-ids.xml")
if [ "$n" -gt 65535 ] && grep -q '<fn ref="f6[6-9][0-9][0-9][0-9]"' "$tmp/big-ids.xml"; then
   pass "big-ids: $n functions, IDs above 65,535 called"
else
   fail "big-ids: $n functions, or none above 65,535 called"
fi

# ---- Several traces: groups and selections -----------------------------------------

A=$tmp/basic B=$tmp/pid5000 C1=$tmp/shape1 C2=$tmp/shape2
"$MAKE_TRACE" --seed 21 --threads 4 --events 800 "$B.orig" "$B.list" "$B.exp"
"$PYTHON" "$ORACLE" rewrite "$B.orig" "$B.trace" pid=5000 rank=7
# one function only: every thread calls along the same two edges
"$MAKE_TRACE" --seed 23 --threads 3 --events 300 --functions 1 \
   "$C1.trace" "$C1.list" "$C1.exp"
"$MAKE_TRACE" --seed 24 --threads 2 --events 300 --functions 1 \
   "$C2.orig" "$C2.list" "$C2.exp"
"$PYTHON" "$ORACLE" rewrite "$C2.orig" "$C2.trace" pid=6000

pA="trace=$A.trace,listing=$A.list,mode=exact,pid=4242,end=exit,plain=1"
# a copy: the same file given twice is read once (below)
cp "$A.trace" "$A.copy.trace"
pA2="trace=$A.copy.trace,listing=$A.list,mode=exact,pid=4242,end=exit,plain=1"
pB="trace=$B.trace,listing=$B.list,mode=exact,pid=5000,end=exit,rank=7"
pC1="trace=$C1.trace,listing=$C1.list,mode=exact,pid=4242,end=exit"
pC2="trace=$C2.trace,listing=$C2.list,mode=exact,pid=6000,end=exit"

# multi NAME DECODER-OPTIONS -- ORACLE-OPTIONS: the traces after the
# decoder options are A B A.
multi() {
   name=$1
   shift
   d=
   while [ "$1" != -- ]; do d="$d $1"; shift; done
   shift
   set -f     # $d holds selections with '*'
   run "$PARLOT_DECODE" "$tmp/m.xml" "$tmp/m.err" --xml $d \
      "$A.trace" "$B.trace" "$A.copy.trace"
   set +f
   if [ $rc -ne 0 ] || [ -s "$tmp/m.err" ]; then
      fail "$name: exit $rc" "$(head -c 300 "$tmp/m.err")"
   elif ! check_doc "$tmp/m.xml" "$@" --proc "$pA" --proc "$pB" --proc "$pA2"; then
      fail "$name" "$why"
   else
      pass "$name: $summary"
   fi
}

multi "three traces, groups by process" --
grep -q '<group name="process 4242" kind="process" threads="3"' "$tmp/m.xml" \
   && grep -q 'rank="7"' "$tmp/m.xml" \
   && pass "process groups named by pid; rank= from mpi_rank" \
   || fail "process groups: no 'process 4242' group of 3 threads, or no rank"
multi "--group-by=graph: the trace given twice pairs up" \
   --group-by=graph -- --group-by graph
# the classes are computed by the oracle; the pairs must be there too
if grep -q 'kind="graph" threads="2"' "$tmp/m.xml" \
   && [ "$(grep -c 'kind="graph" threads="2"' "$tmp/m.xml")" = 3 ]; then
   pass "--group-by=graph: three classes of two (A's threads and their copies)"
else
   fail "--group-by=graph: expected three classes of two threads"
fi

# the same file twice: read once, said in one line (exit status 0)
run "$PARLOT_DECODE" "$tmp/t.xml" "$tmp/t.err" --xml "$A.trace" "$A.trace"
if [ $rc -eq 0 ] && stderr_line "$tmp/t.err" \
      "parlot-decode: $A.trace: given twice (as $A.trace): read once" >/dev/null &&
   [ "$(grep -c '<process ' "$tmp/t.xml")" = 1 ]; then
   pass "the same trace given twice: read once, one line"
else
   fail "the same trace given twice (exit $rc)" "$(head -3 "$tmp/t.err")" \
      "$(grep -c '<process ' "$tmp/t.xml") processes"
fi
multi "--group-by=shape" --group-by=shape -- --group-by shape
multi "--group-by=none and user groups" --group-by=none \
   --group=odd=*:1,*:3 --group=pid5000=5000 --group=nobody=99 \
   --group=A2=4242:2-3 -- --group-by none --group 'odd=*:1,*:3' \
   --group pid5000=5000 --group nobody=99 --group A2=4242:2-3
if grep -q '<group name="nobody" kind="user" threads="0" events="0"' "$tmp/m.xml" \
   && ! grep -q 'kind="process"' "$tmp/m.xml"; then
   pass "--group-by=none: no process groups; an empty user group"
else
   fail "--group-by=none: process groups written, or the empty group missing"
fi
multi "--select narrows" --select=4242:2-3,5000:1 -- --select 4242:2-3,5000:1
multi "--select with user groups by graph" --select='*:1-2' --group-by=graph \
   --group=all=*:* -- --select '*:1-2' --group-by graph --group 'all=*:*'

# shape classes that graph classes split
run "$PARLOT_DECODE" "$tmp/s.xml" "$tmp/s.err" --xml --group-by=shape \
   "$C1.trace" "$C2.trace"
ng=$(grep -c 'kind="shape"' "$tmp/s.xml")
if [ $rc -ne 0 ]; then
   fail "shape: exit $rc" "$(head -c 300 "$tmp/s.err")"
elif ! check_doc "$tmp/s.xml" --group-by shape --proc "$pC1" --proc "$pC2"; then
   fail "shape" "$why"
elif [ "$ng" -ne 1 ]; then
   fail "shape: one function's threads make $ng shape classes, expected 1"
else
   run "$PARLOT_DECODE" "$tmp/g.xml" "$tmp/g.err" --xml --group-by=graph \
      "$C1.trace" "$C2.trace"
   if check_doc "$tmp/g.xml" --group-by graph --proc "$pC1" --proc "$pC2" \
      && [ "$(grep -c 'kind="graph"' "$tmp/g.xml")" -gt 1 ]; then
      pass "shape: one class of 5 threads that --group-by=graph splits"
   else
      fail "shape: graph classes" "${why:-only one graph class}"
   fi
fi

# -o FILE writes the same document
run "$PARLOT_DECODE" "$tmp/o.out" "$tmp/o.err" --xml -o "$tmp/o.xml" \
   "$A.trace" "$B.trace"
run "$PARLOT_DECODE" "$tmp/o2.xml" "$tmp/o2.err" --xml "$A.trace" "$B.trace"
if [ $rc -eq 0 ] && [ ! -s "$tmp/o.out" ] && cmp -s "$tmp/o.xml" "$tmp/o2.xml"; then
   pass "-o FILE: the same document as on standard output"
else
   fail "-o FILE: output differs from standard output's"
fi

# ---- Names that are not UTF-8 ------------------------------------------------------

N=$tmp/nasty
bad_name=$(printf "$tmp/na\\377me\\001.trace")
"$PYTHON" "$ORACLE" rewrite "$tmp/basic-plain.trace" "$bad_name" nasty=1 \
   names_out="$N.names"
run "$SAN_DECODE" "$N.xml" "$N.err" --xml "$bad_name"
if [ $rc -ne 0 ] || [ -s "$N.err" ]; then
   fail "bad names: exit $rc" "$(head -c 300 "$N.err")"
elif ! why=$(valid_doc "$N.xml"); then
   fail "bad names" "$why"
elif ! why=$("$PYTHON" "$ORACLE" names "$N.xml" "$N.names" "$bad_name"); then
   fail "bad names" "$why"
else
   pass "names not UTF-8 or with control bytes: well-formed, valid, U+FFFD ($why)"
fi
# the structure does not depend on the names
if sed -n 's/.*\(<thread [^>]*>\).*/\1/p' "$N.xml" >"$tmp/th1" \
   && sed -n 's/.*\(<thread [^>]*>\).*/\1/p' "$A.xml" >"$tmp/th2" \
   && cmp -s "$tmp/th1" "$tmp/th2"; then
   pass "bad names: the same threads and totals as the original trace"
else
   fail "bad names: the threads differ from the original trace's"
fi

# ---- Damaged traces ------------------------------------------------------------------

variant() { # variant seed [options...]
   v=$1 seed=$2
   shift 2
   t=$tmp/v-$v-$seed
   if ! "$MAKE_TRACE" --seed "$seed" --threads 4 --fork 6 --events 1000 \
         --variant "$v" "$@" "$t.trace" "$t.list" "$t.exp"; then
      fail "variant $v: make_trace failed"
      return
   fi
   mode=$(sed -n 1p "$t.exp")
   re=$(sed -n 2p "$t.exp")
   run "$SAN_DECODE" "$t.xml" "$t.err" --xml "$t.trace"
   if [ $rc -ne 1 ]; then
      fail "variant $v (seed $seed): exit $rc, expected 1" "$(head -c 300 "$t.err")"
   elif ! why=$(err_is "$t.err" "$t.trace" "$re"); then
      fail "variant $v (seed $seed): $why"
   elif ! check_doc "$t.xml" --proc "trace=$t.trace,listing=$t.list,mode=prefix,pid=4242,end=any"; then
      fail "variant $v (seed $seed)" "$why"
   else
      m=$(sed "s|^parlot-decode: $t.trace: ||" "$t.err" | cut -c1-60)
      pass "variant $v (seed $seed): $m...; $summary"
   fi
}

for v in killed killed-synced zero-tail bad-exit bad-id bad-inherit crc \
         missing bad-len raw-long raw-short raw-stuck empty-chunk \
         exec-mid-event after-end open-frames count end-raw; do
   variant $v 31
done
for v in killed crc bad-id; do
   variant $v 32 --codec raw --chunk 5
done

# several files: one line per bad one, in order; the rest still decoded
K=$tmp/v-killed-31 X=$tmp/v-crc-31
run "$SAN_DECODE" "$tmp/mb.xml" "$tmp/mb.err" --xml "$K.trace" \
   "$tmp/does-not-exist" "$A.trace" "$X.trace"
if [ $rc -ne 1 ]; then
   fail "several bad files: exit $rc, expected 1" "$(head -c 300 "$tmp/mb.err")"
elif [ "$(wc -l <"$tmp/mb.err")" -ne 3 ] \
   || ! sed -n 1p "$tmp/mb.err" | grep -q "^parlot-decode: $K.trace: offset [0-9]*: " \
   || ! sed -n 2p "$tmp/mb.err" | grep -q "^parlot-decode: $tmp/does-not-exist: offset 0: cannot open" \
   || ! sed -n 3p "$tmp/mb.err" | grep -q "^parlot-decode: $X.trace: offset [0-9]*: "; then
   fail "several bad files: expected one line per bad file" "$(head -c 500 "$tmp/mb.err")"
elif ! check_doc "$tmp/mb.xml" \
      --proc "trace=$K.trace,listing=$K.list,mode=prefix,pid=4242,end=truncated" \
      --proc "$pA" --proc "trace=$X.trace,listing=$X.list,mode=prefix,pid=4242,end=any"; then
   fail "several bad files" "$why"
else
   pass "several bad files: one line each, the others decoded: $summary"
fi

# nothing readable at all: still a document
run "$SAN_DECODE" "$tmp/e.xml" "$tmp/e.err" --xml "$tmp/does-not-exist"
if [ $rc -eq 1 ] && why=$(valid_doc "$tmp/e.xml") \
   && grep -q '<program processes="0" threads="0"' "$tmp/e.xml" \
   && [ "$(wc -l <"$tmp/e.err")" -eq 1 ]; then
   pass "no readable trace: exit 1, one line, an empty program"
else
   fail "no readable trace: exit $rc" "${why:-}" "$(head -c 300 "$tmp/e.err")"
fi

# cut at sampled offsets: exit 1, one line, a valid document of each
# thread's prefix (checked all at once at the end: python and xmllint
# start slowly); every other run sanitized
S=$tmp/small
"$MAKE_TRACE" --seed 33 --threads 3 --events 40 --functions 12 --chunk 9 \
   --fork 3 "$S.trace" "$S.list" "$S.exp"
size=$(wc -c <"$S.trace")
mkdir "$tmp/cuts"
cut=0 bad= ncuts=0
while [ $cut -lt "$size" ] && [ -z "$bad" ]; do
   c=$tmp/cuts/$cut
   head -c $cut "$S.trace" >"$c.trace"
   dec=$PARLOT_DECODE
   [ $((ncuts % 2)) = 0 ] && dec=$SAN_DECODE
   run "$dec" "$c.xml" "$c.err" --xml "$c.trace"
   [ $rc -ne 1 ] && bad="cut at $cut: exit $rc: $(head -c 200 "$c.err")"
   ncuts=$((ncuts + 1))
   cut=$((cut + 17))
done
if [ -z "$bad" ]; then
   why=$("$XMLLINT" --noout --relaxng "$RNG" "$tmp"/cuts/*.xml 2>&1 \
           | grep -v ' validates$' | head -c 300)
   [ -n "$why" ] && bad="invalid: $why"
fi
if [ -z "$bad" ] && ! why=$("$PYTHON" "$ORACLE" cuts "$S.trace" "$S.list" \
      "$tmp"/cuts/*.xml); then
   bad=$why
fi
if [ -z "$bad" ]; then
   pass "a trace cut at $ncuts offsets: exit 1, one line, valid documents of each thread's prefix"
else
   fail "truncation" "$bad"
fi

# ---- Command line -------------------------------------------------------------------

run "$PARLOT_DECODE" "$tmp/c.out" "$tmp/c.err" --xml -o /dev/full "$A.trace"
if [ ! -w /dev/full ]; then
   pass "-o /dev/full # SKIP no /dev/full here"
elif [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/c.err")" -eq 1 ] \
   && grep -q '^parlot-decode: /dev/full: write error: ' "$tmp/c.err"; then
   pass "-o /dev/full: exit 1, one write error line"
else
   fail "-o /dev/full: exit $rc" "$(head -c 300 "$tmp/c.err")"
fi

usage() { # description args...
   d=$1
   shift
   run "$PARLOT_DECODE" "$tmp/c.out" "$tmp/c.err" "$@"
   if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/c.err")" -eq 1 ] && [ ! -s "$tmp/c.out" ] \
      && grep -q '^parlot-decode: ' "$tmp/c.err"; then
      pass "$d: exit 2, $(cut -c1-80 "$tmp/c.err")"
   else
      fail "$d: exit $rc, expected 2 and one line" "$(head -c 300 "$tmp/c.err")"
   fi
}
usage "--group-by=bogus" --xml --group-by=bogus "$A.trace"
usage "--group-by without a value" --xml "$A.trace" --group-by
usage "--group without =" --xml --group=name "$A.trace"
usage "--group with an empty name" --xml --group==1 "$A.trace"
usage "--group with a bad selection" --xml --group=x=1:2-1 "$A.trace"
usage "--select with a bad selection" --xml --select=abc "$A.trace"

# ---- Summary --------------------------------------------------------------------------
finish passed
