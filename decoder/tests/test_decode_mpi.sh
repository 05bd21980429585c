#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of parlot-decode-mpi and parlot-annotate-mpi
# (decoder/programs/pl_mpi_read.c): under MPICH's and Open MPI's mpirun, on
# 1, 2, 3 and 4 ranks, their output, messages (but for the program's name)
# and exit status are those of the serial programs on the same command
# line.
#
#   decoder/tests/test_decode_mpi.sh [-q]
#
# Uses $PARLOT_DECODE, $PARLOT_MERGE, $MAKE_TRACE and $CHECK_WIRE if set,
# and the MPI builds $PARLOT_DECODE_MPICH, $PARLOT_DECODE_OPENMPI,
# $PARLOT_ANNOTATE_MPICH and $PARLOT_ANNOTATE_OPENMPI (make check sets
# those that configure could build); an unset one is built here with
# mpicc.mpich / mpicc.openmpi.  An MPI that is not installed is
# skipped (said on stdout).
#
# First, MPI or not: check_wire (decoder/tests/check_wire.c) on the
# traces below.  Then, over 30 make_trace traces (different seeds, pids,
# thread counts, codecs and function tables, so that function IDs depend
# on the order the programs are merged in; some with MPI ranks), a
# truncated and a corrupt trace, a missing file, and an archive of 8
# members one of which is damaged, in one command line:
#  - --xml (per --group-by, with a --group, a --select and filters),
#    --callgrind (with --no-demangle and -j2 threads per rank), --paths,
#    --path-of and --folded (with filters and a range), and
#    parlot-annotate (default, --tree=both with every function and the
#    ranks table, --group-by=graph, --group with --select and --only):
#    stdout
#    byte-identical, stderr identical once "parlot-decode-mpi" reads
#    "parlot-decode" (the same for annotate), the same exit status (1:
#    damaged input);
#  - the damaged member is reported once, as ARCHIVE:MEMBER;
#  - 4 ranks read the 42 inputs with at most 64 open files (ulimit -n);
#  - a mode the MPI program does not have (--events) is a usage error
#    (exit 2) printed once, not once per rank; so are a bad option or
#    value and a missing trace list.
# Exit status: 0 if all passed, 1 otherwise.

. "$(dirname "$0")/testlib.sh"
need_tool parlot-decode parlot-annotate parlot-merge make_trace
PY=
command -v python3 >/dev/null 2>&1 && PY=python3

# Open MPI refuses root without these, needs --oversubscribe for 4 ranks
# on fewer cores, and its rsh launcher wants an agent even for local ranks;
# --quiet keeps its own notice of a non-zero exit off our stderr.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_plm_rsh_agent=false HWLOC_COMPONENTS=-x86

# mpi_build TOOL IMPL: TOOL-mpi (TOOL: parlot-decode or parlot-annotate)
# built against IMPL, or nothing
mpi_build() {
   var=$(echo "$1-$2" | sed 's/^parlot-//' | tr a-z- A-Z_)
   eval "b=\${PARLOT_$var:-}"
   if [ -n "$b" ] && [ -x "$b" ]; then
      echo "$b"
      return
   fi
   command -v "mpicc.$2" >/dev/null 2>&1 || return
   command -v "mpirun.$2" >/dev/null 2>&1 || return
   # the serial program's version, which the outputs name
   v=$("$PARLOT_DECODE" --version | sed -n 's/^[^ ]* (ParLoT) \([^,]*\),.*/\1/p')
   # shellcheck disable=SC2046
   # the program with the MPI back-end instead of the serial one
   CC="mpicc.$2" cc_build "$tmp/$1-$2" -DPROG="\"$1-mpi\"" \
      -DPACKAGE_VERSION="\"$v\"" \
      $(tool_sources "$1" | sed 's/pl_backend_serial\.c/pl_backend_mpi.c/') \
      "$top/decoder/programs/pl_mpi_read.c" \
      >"$tmp/build-$1-$2.log" 2>&1 && echo "$tmp/$1-$2"
}

launcher() {
   case $1 in
   mpich) echo "mpirun.mpich" ;;
   openmpi) echo "mpirun.openmpi --oversubscribe --quiet" ;;
   esac
}

# ---- the traces ----------------------------------------------------------------

codecs="ccm lzrc lzze raw mixed"
k=1
while [ $k -le 38 ]; do
   set -- $codecs
   shift $((k % 5))
   codec=${1:-ccm}
   "$MAKE_TRACE" --seed $((k * 11)) --threads $((k % 4 + 1)) \
      --events $((150 + 17 * k)) --functions $((25 + 9 * k)) \
      --codec "$codec" --pid $((3000 + k)) --deep $((k % 7 == 0 ? 200 : 0)) \
      "$tmp/t$k.trace0" none "$tmp/t$k.exp" >/dev/null 2>&1 \
      || { echo "make_trace failed"; exit 1; }
   if [ -n "$PY" ] && [ $((k % 3)) = 0 ]; then
      $PY "$here/xml_oracle.py" rewrite "$tmp/t$k.trace0" "$tmp/t$k.trace" \
         rank=$((k / 3))
   else
      mv "$tmp/t$k.trace0" "$tmp/t$k.trace"
   fi
   k=$((k + 1))
done
"$MAKE_TRACE" --seed 5 --variant killed "$tmp/bad1.trace" none "$tmp/b1.exp" \
   >/dev/null 2>&1
"$MAKE_TRACE" --seed 6 --variant crc "$tmp/bad2.trace" none "$tmp/b2.exp" \
   >/dev/null 2>&1
"$MAKE_TRACE" --seed 9 --threads 2 --variant crc "$tmp/badm.trace" none \
   "$tmp/bm.exp" >/dev/null 2>&1
# an archive: traces 31..38 with the damaged one among them (stored as
# it is: parlot-merge says so and exits 1)
( cd "$tmp" && "$PARLOT_MERGE" -o runs.ar t31.trace t32.trace t33.trace \
     badm.trace t34.trace t35.trace t36.trace t37.trace t38.trace \
     2>merge.err )
[ $? -eq 1 ] && grep -q '^parlot-merge: badm.trace: .*(stored as it is)$' "$tmp/merge.err" \
   || { echo "parlot-merge failed: $(cat "$tmp/merge.err")"; exit 1; }
tag=$("$PARLOT_DECODE" --paths "$tmp/t5.trace" 2>/dev/null | sed -n 4p | cut -f2)
[ -n "$tag" ] || { echo "no stack tag from --paths"; exit 1; }
traces=
k=1
while [ $k -le 30 ]; do
   traces="$traces $tmp/t$k.trace"
   [ $k = 8 ] && traces="$traces $tmp/bad1.trace $tmp/missing.trace"
   [ $k = 17 ] && traces="$traces $tmp/runs.ar"
   [ $k = 24 ] && traces="$traces $tmp/bad2.trace"
   k=$((k + 1))
done

# ---- programs and trees as bytes (no MPI needed) --------------------------------

if [ -z "${CHECK_WIRE:-}" ]; then
   # shellcheck disable=SC2046
   cc_build "$tmp/check_wire" "$here/check_wire.c" $(ls "$top"/decoder/lib/*.c) \
      || { echo "cannot build check_wire"; exit 1; }
   CHECK_WIRE=$tmp/check_wire
fi
# shellcheck disable=SC2086
$TIMEOUT "$CHECK_WIRE" $traces >"$tmp/wire" 2>&1
rc=$?
if [ $rc = 0 ] && ! grep -q "^not ok" "$tmp/wire" \
   && [ "$(grep -c '^ok' "$tmp/wire")" = 7 ]; then
   pass "check_wire: programs and trees packed, merged in 1-5 runs = read at once; damaged bytes refused ($(sed -n 6p "$tmp/wire"))"
else
   fail "check_wire: exit $rc" "$(grep -v '^ok' "$tmp/wire" | head -5)"
fi

# ---- the runs -------------------------------------------------------------------

impls=0
for impl in mpich openmpi; do
   prog=$(mpi_build parlot-decode $impl)
   aprog=$(mpi_build parlot-annotate $impl)
   if [ -z "$prog" ] || [ -z "$aprog" ]; then
      [ $quiet = 1 ] || echo "# $impl: not installed (or its build failed), skipped"
      continue
   fi
   impls=$((impls + 1))
   eval "built_$impl=\$prog"
   run_mpi="$TIMEOUT $(launcher $impl)"

   # same NAME SERIAL MPI ARGS...: SERIAL ARGS TRACES, and MPI on 1..4 ranks
   same() {
      name=$1 serial=$2 mpi=$3
      shift 3
      # shellcheck disable=SC2086
      "$serial" "$@" $traces >"$tmp/o1" 2>"$tmp/e1"
      rc1=$?
      for np in 1 2 3 4; do
         # shellcheck disable=SC2086
         $run_mpi -np $np "$mpi" "$@" $traces >"$tmp/om" 2>"$tmp/em0"
         rc=$?
         sed 's/^\(parlot-[a-z]*\)-mpi: /\1: /' "$tmp/em0" >"$tmp/em"
         if [ $rc != $rc1 ] || ! cmp -s "$tmp/o1" "$tmp/om" \
            || ! cmp -s "$tmp/e1" "$tmp/em"; then
            fail "$impl: $name: $np ranks differ from parlot-decode (exit $rc, serial $rc1)" \
               "$(cmp "$tmp/o1" "$tmp/om" 2>&1)" \
               "$(diff "$tmp/e1" "$tmp/em" | head -6)"
            return
         fi
      done
      if [ $rc1 != 1 ] \
         || [ "$(grep -c ': offset [0-9]*: ' "$tmp/e1")" != 4 ] \
         || [ "$(grep -c "^parlot-[a-z]*: $tmp/runs.ar:badm.trace: offset [0-9]*: " "$tmp/em")" != 1 ] \
         || ! grep -q "^parlot-[a-z]*: $tmp/missing.trace: " "$tmp/em"; then
         fail "$impl: $name: expected exit 1, 4 error lines, the member once" \
            "exit $rc1" "$(head -c 600 "$tmp/em")"
         return
      fi
      pass "$impl: $name: 1, 2, 3 and 4 ranks = $(basename "$serial") ($(wc -c <"$tmp/o1") bytes, 4 errors)"
   }

   D() { n=$1; shift; same "$n" "$PARLOT_DECODE" "$prog" "$@"; }
   A() { n=$1; shift; same "$n" "$PARLOT_ANNOTATE" "$aprog" "$@"; }
   D "--xml" --xml
   D "--xml --group-by=graph --group" --xml --group-by=graph \
      --group='odd=*:1,*:3'
   D "--xml --group-by=shape --select --depth" --xml --group-by=shape \
      --select='*:1-2' --depth=4
   D "--callgrind" --callgrind
   D "--callgrind --no-demangle -j2 --hide" --callgrind --no-demangle -j2 \
      --hide='*long*'
   D "--paths" --paths --top=0
   D "--paths --images=main --select" --paths --top=30 --images=main \
      --select='*:1,*:3'
   D "--path-of" --path-of="$tag"
   D "--folded" --folded
   D "--folded --depth --range" --folded --depth=5 --range=20-400

   A "parlot-annotate"
   A "parlot-annotate --tree=both --threshold=100 --ranks=yes" --tree=both \
      --threshold=100 --ranks=yes
   A "parlot-annotate --group-by=graph -j2" --group-by=graph -j2
   A "parlot-annotate --group=3 --select --only" --group=3 --select='*:2-3' \
      --only='fn_*'

   # a rank opens one trace at a time: 4 ranks and 42 inputs in 64 files
   # shellcheck disable=SC2086
   "$PARLOT_DECODE" --xml $traces >"$tmp/o1" 2>/dev/null
   # shellcheck disable=SC2086
   (ulimit -n 64 && exec $run_mpi -np 4 "$prog" --xml $traces) \
      >"$tmp/om" 2>/dev/null
   rc=$?
   if [ $rc = 1 ] && cmp -s "$tmp/o1" "$tmp/om"; then
      pass "$impl: --xml on 4 ranks under ulimit -n 64 = parlot-decode"
   else
      fail "$impl: --xml on 4 ranks under ulimit -n 64 (exit $rc)" \
         "$(cmp "$tmp/o1" "$tmp/om" 2>&1)"
   fi

   # usage errors: once, not once per rank
   for args in "D --events" "D --xml --bogus" "D --xml" "A --tree=up" \
               "A"; do
      # shellcheck disable=SC2086
      set -- $args
      p=$prog
      [ "$1" = A ] && p=$aprog
      shift
      n=$(basename "$p" | sed 's/-\(mpich\|openmpi\)$//; s/$/-mpi/')
      $run_mpi -np 3 "$p" "$@" >"$tmp/o" 2>"$tmp/e"
      rc=$?
      if [ $rc = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && [ ! -s "$tmp/o" ] \
         && grep -q "^$n: .*(try '$n --help')" "$tmp/e"; then
         pass "$impl: $n $*: a usage error, printed once"
      else
         fail "$impl: $n $*: expected one usage error line and exit 2" \
            "exit $rc" "$(head -c 400 "$tmp/e")"
      fi
   done
done

[ $impls = 0 ] && echo "# neither MPICH nor Open MPI: only check_wire ran"

# started by the other MPI's launcher, a build would run as N singletons,
# each writing the whole output: refused, in one line, exit 2
if [ -n "${built_mpich:-}" ] && [ -n "${built_openmpi:-}" ]; then
   for pair in "mpich openmpi MPICH" "openmpi mpich Open MPI"; do
      set -- $pair
      launch=$1 build=$2
      shift 2
      eval "prog=\$built_$build"
      # shellcheck disable=SC2086
      $TIMEOUT $(launcher $launch) -np 3 "$prog" --info "$tmp/t1.trace" \
         >"$tmp/o" 2>"$tmp/e"
      rc=$?
      if [ $rc -eq 2 ] && [ ! -s "$tmp/o" ] && [ "$(grep -c . "$tmp/e")" -eq 1 ] &&
         grep -q "started by $*'s launcher for 3 ranks, but built with" "$tmp/e"; then
         pass "the $build build under $launch's launcher: $(cat "$tmp/e")"
      else
         fail "the $build build under $launch's launcher: exit $rc" \
            "$(head -c 400 "$tmp/e")" "$(head -c 200 "$tmp/o")"
      fi
   done
fi
finish
