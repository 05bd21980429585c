#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --collect-insns against Callgrind, the independent oracle: the same
# program run under both tools, every function of the program's own
# objects compared (compare_ir.py: self Ir, and inclusive Ir outside call
# cycles; Callgrind's PLT stubs folded into their callers, ParLoT's rule).
#   - iterate.c: a solver-shaped serial C program (main loop, compute,
#     exchange, output every 4th iteration, recursion, mutual recursion,
#     a qsort callback, calls through a pointer);
#   - workers.c: four threads sorting, hashing, searching, a mutex;
#   - unwind.cpp: frames ended by C++ exceptions (destructors on the way,
#     a rethrow) and by longjmp, which ParLoT ends at the jump to the
#     landing, as Callgrind does;
#   - the CG solvers of parlot/tests/mpi/solver, C (with its shared
#     library) and Fortran, 2 ranks under MPICH and under Open MPI: self
#     Ir only (the MPI libraries poll, so what a call into them costs
#     depends on timing; the program's own code does not);
#   - iterate again with --encoder-thread=no (events and costs coded by
#     the client side);
#   - the events do not change: --events --images=main of iterate with
#     and without --collect-insns are the same;
#   - parlot-annotate's Ir list and totals, and --folded --weight=insns,
#     agree with the export; the XML carries the costs and validates
#     ($XMLLINT, docs/parlot-callgraph.rng);
#   - parlot-diff of two runs (12 and 16 iterations): the functions whose
#     Ir changed most (self, then inclusive), each run's self Ir as in its export; of a
#     CG run against one with an extra call injected in rank 1's 4th
#     iteration (MPICH): that call first among the calls whose own
#     instructions changed most, the same report with -j1 (nothing run
#     beside the comparison), and the XML valid; the faulty run --within
#     (a rank against its reference): rank 1's slower call first, what it
#     did more there than in its other iterations one rescale_z call as
#     Callgrind counts it, and that XML valid; of a CG run against its
#     hang (rank 1 in its 4th iteration, SIGTERM): the good run counted
#     only up to where each rank stopped, so that no function both called
#     alike before the hang (axpy, dot_product), nor exit, changed;
#   - a load imbalance (imbalance.c, 3 ranks, each MPI): its timeline
#     (--chrome) of the program's view, each rank's time in relax in the
#     ratio of its sweeps; parlot-annotate
#     names the slow rank and function at the ratio of the program's own
#     count of sweeps, and parlot-diff --within lists that function first
#     and no MPI function;
#   - ranks whose own functions differ by the same instructions
#     (even_ranks.c): the tie in name order, no crash;
#   - damage: a flipped byte in a COSTS chunk, a trace cut inside one, and
#     (CRC made valid, rewrite_chunk.py) garbage coded bytes or a count
#     the stream lacks give a one-line error and exit 1, not a crash.
# Also prints the bytes the costs take beside the rest of each trace.
# Environment: VALGRIND (vg-in-place or valgrind), PARLOT_DECODE,
# PARLOT_ANNOTATE, XMLLINT (optional), CC (default cc).  Exit status: 0 if
# all passed, 77 if Callgrind or python3 is missing.
set -u

here=$(cd "$(dirname "$0")" && pwd)
solver=$here/../mpi/solver
: "${VALGRIND:?VALGRIND must name vg-in-place or valgrind}"
: "${PARLOT_DECODE:?PARLOT_DECODE must name parlot-decode}"
: "${PARLOT_ANNOTATE:?PARLOT_ANNOTATE must name parlot-annotate}"
CC=${CC:-cc}
command -v python3 > /dev/null || { echo "SKIP: python3 not installed"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/parlot-costs.XXXXXX")
trap 'rm -rf "$work"' EXIT

. "$here/../e2e_lib.sh"

# compare LABEL EXPORT OBJECTS [--no-inclusive | --no-inclusive-of FNS]
#         CALLGRIND_OUT...
compare() {
   local label=$1 export=$2 objs=$3
   shift 3
   local opts=()
   [ "$1" = --no-inclusive ] && { opts=(--no-inclusive); shift; }
   [ "$1" = --no-inclusive-of ] && { opts=(--no-inclusive-of "$2"); shift 2; }
   if python3 "$here/compare_ir.py" "${opts[@]}" "$export" "$objs" "$@" \
         > "$work/$label.cmp" 2>&1; then
      pass "$label: Ir equals Callgrind's ($(tail -1 "$work/$label.cmp"))"
   else
      fail "$label: Ir differs from Callgrind's" \
         "$(grep -v '^ok' "$work/$label.cmp" | head -8)"
   fi
}

# sizes LABEL TRACE...: the bytes of COSTS chunks and of the rest
sizes() {
   local label=$1
   shift
   python3 - "$@" <<'EOF' | sed "s/^/# $label: /"
import struct, sys
cost = rest = 0
for p in sys.argv[1:]:
    d = open(p, "rb").read()
    off, rest = 16, rest + 16
    while off + 16 <= len(d):
        t, _, _, n, _, _ = struct.unpack("<BBHIII", d[off:off + 16])
        if t == 14:
            cost += 16 + n
        else:
            rest += 16 + n
        off += 16 + n
print("costs %d bytes, the rest %d bytes (costs/rest %.2f)"
      % (cost, rest, cost / max(rest, 1)))
EOF
}

# serial LABEL NO_INCL PROG ARGS...: trace with --collect-insns and
# profile with Callgrind, compare everything but the inclusive figures of
# the functions NO_INCL names ("" none); $parlot_opts: more options
serial() {
   local label=$1 no_incl=$2 prog=$3
   shift 3
   "$VALGRIND" --tool=parlot -q --collect-insns=yes ${parlot_opts:-} \
      --parlot-out-file="$work/$label.trace" "$prog" "$@" > "$work/$label.out" \
      2> "$work/$label.err" || { fail "$label: traced run" "$(tail -3 "$work/$label.err")"; return 1; }
   "$VALGRIND" --tool=callgrind -q --demangle=no --callgrind-out-file="$work/$label.cg" \
      "$prog" "$@" > /dev/null 2> "$work/$label.cg.err" ||
      { fail "$label: Callgrind run" "$(tail -3 "$work/$label.cg.err")"; return 1; }
   "$PARLOT_DECODE" --callgrind --no-demangle "$work/$label.trace" \
      > "$work/$label.export" 2> "$work/$label.dec.err" ||
      { fail "$label: parlot-decode --callgrind" "$(cat "$work/$label.dec.err")"; return 1; }
   local opts=()
   [ -n "$no_incl" ] && opts=(--no-inclusive-of "$no_incl")
   compare "$label" "$work/$label.export" "$(basename "$prog")" "${opts[@]}" \
      "$work/$label.cg"
   sizes "$label" "$work/$label.trace"
}

"$CC" -O1 -g -fno-inline -o "$work/iterate" "$here/iterate.c" &&
"$CC" -O1 -g -fno-inline -pthread -o "$work/workers" "$here/workers.c" ||
   { echo "FAIL: building the test programs"; exit 1; }

serial iterate "" "$work/iterate" 12
# the costs coded by the client side rather than the encoder thread
parlot_opts=--encoder-thread=no serial iterate-inline "" "$work/iterate" 12
# main creates and joins the threads: its inclusive Ir holds the C
# library's waiting, which depends on the scheduling (1.4 % apart seen)
serial workers main "$work/workers"
# frames ended by exceptions and longjmp: what runs after each landing is
# the landing frame's
if command -v "${CXX:-c++}" > /dev/null; then
   if "${CXX:-c++}" -O1 -g -o "$work/unwind" "$here/unwind.cpp"; then
      serial unwind "" "$work/unwind" 2000
   else
      fail "building unwind.cpp"
   fi
else
   echo "# no C++ compiler: unwind.cpp skipped"
fi

# the events are the same with and without costs
"$VALGRIND" --tool=parlot -q --parlot-out-file="$work/plain.trace" \
   "$work/iterate" 12 > /dev/null 2>&1
for t in plain iterate; do
   "$PARLOT_DECODE" --events --images=main "$work/$t.trace" | cut -f2- > "$work/$t.events"
done
if [ -s "$work/plain.events" ] && cmp -s "$work/plain.events" "$work/iterate.events"; then
   pass "iterate: the same $(wc -l < "$work/plain.events") events with and without --collect-insns"
else
   fail "iterate: events differ with --collect-insns" \
      "$(diff "$work/plain.events" "$work/iterate.events" | head -5)"
fi

# parlot-annotate: the Ir list's figures are the export's
"$PARLOT_ANNOTATE" --threshold=100 "$work/iterate.trace" > "$work/annotate.txt" 2>&1
want=$(awk '/^fn=\([0-9]+\) compute$/ { getline; print $2; exit }' "$work/iterate.export")
got=$(awk '/^Ir  +Inclusive Ir/ { inlist = 1 } inlist && / compute \[/ { gsub(",", "", $1); print $1; exit }' \
   "$work/annotate.txt")
total=$(awk '/^summary:/ { print $2 }' "$work/iterate.export")
gtotal=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $5); print $5 }' "$work/annotate.txt")
if [ -n "$want" ] && [ "$want" = "$got" ] && [ "$total" = "$gtotal" ]; then
   pass "parlot-annotate: compute's Ir ($got) and the total Ir ($gtotal) are the export's"
else
   fail "parlot-annotate's Ir list" "compute: annotate '$got', export '$want'; totals '$gtotal', '$total'" \
      "$(grep -A4 '^Ir  ' "$work/annotate.txt" | head -5)"
fi

# --folded --weight=insns: each leaf's lines add up to its self Ir in the
# export (itself checked against Callgrind above), all of them to its total
# (both as shown: C library variants under the function called)
"$PARLOT_DECODE" --folded --weight=insns "$work/workers.trace" \
   > "$work/folded.txt" 2> "$work/folded.err"
"$PARLOT_DECODE" --callgrind "$work/workers.trace" > "$work/shown.export" 2> /dev/null
if python3 "$here/folded_check.py" "$work/folded.txt" "$work/shown.export" \
      > "$work/folded.cmp" 2>&1; then
   pass "--folded --weight=insns: $(cat "$work/folded.cmp")"
else
   fail "--folded --weight=insns disagrees with the export" "$(head -3 "$work/folded.cmp")"
fi

# parlot-diff of two runs with costs: the functions whose Ir changed most
# (self, then inclusive), with each run's self Ir as its export has it
if "$VALGRIND" --tool=parlot -q --collect-insns=yes \
      --parlot-out-file="$work/iterate16.trace" "$work/iterate" 16 > /dev/null 2>&1 &&
   "$PARLOT_DECODE" --callgrind --no-demangle "$work/iterate16.trace" > "$work/iterate16.export"; then
   "${PARLOT_DIFF:-$(dirname "$PARLOT_DECODE")/parlot-diff}" --no-demangle --images=all \
      "$work/iterate.trace" "$work/iterate16.trace" > "$work/diff.txt" 2> "$work/diff.err"
   if HERE=$here python3 - "$work/diff.txt" "$work/iterate.export" "$work/iterate16.export" \
         > "$work/diff.cmp" 2>&1 <<'PY'
import os, sys, collections
sys.path.insert(0, os.environ.get("HERE", "."))
import compare_ir
rows, on = {}, False
for line in open(sys.argv[1]):
    if line.startswith("== instructions"):
        on = True
        continue
    f = line.split()
    if on and len(f) == 6 and f[0].isdigit():
        rows[f[5]] = (int(f[0]), int(f[1]), int(f[3]), int(f[4]))
selfs = []
for path in sys.argv[2:]:
    c = collections.Counter()
    for (_, fn), ir in compare_ir.parse(path)[0].items():
        c[fn] += ir
    selfs.append(c)
bad = [fn for fn, r in rows.items() if (r[2], r[3]) != (selfs[0][fn], selfs[1][fn])]
same = [fn for fn, r in rows.items() if r[0] == r[1]]
print("%d functions listed, %d whose self Ir is not the exports'%s, %d unchanged"
      % (len(rows), len(bad), ": " + ", ".join(bad) if bad else "", len(same)))
sys.exit(1 if bad or same or "compute" not in rows else 0)
PY
   then
      pass "parlot-diff with costs: $(cat "$work/diff.cmp")"
   else
      fail "parlot-diff with costs" "$(cat "$work/diff.cmp")" "$(grep -A4 '^== instructions' "$work/diff.txt")"
   fi
else
   fail "parlot-diff with costs: tracing iterate 16"
fi
# a run against itself: no function changed
"${PARLOT_DIFF:-$(dirname "$PARLOT_DECODE")/parlot-diff}" "$work/iterate.trace" \
   "$work/iterate.trace" > "$work/diff-self.txt" 2>&1
if grep -q "^== instructions (--collect-insns): A \([0-9]*\), B \1 .*; no function's inclusive instructions changed$" \
      "$work/diff-self.txt"; then
   pass "parlot-diff with costs: a run against itself lists no function"
else
   fail "parlot-diff with costs: a run against itself" "$(grep -A3 '^== instructions' "$work/diff-self.txt")"
fi

# XML: costs, valid
"$PARLOT_DECODE" --xml "$work/workers.trace" > "$work/workers.xml" 2> /dev/null
if grep -q 'self-insns=' "$work/workers.xml" && grep -q ' insns=' "$work/workers.xml"; then
   if [ -n "${XMLLINT:-}" ] && ! $XMLLINT --noout --relaxng "$here/../../../docs/parlot-callgraph.rng" \
         "$work/workers.xml" > "$work/xmllint.out" 2>&1; then
      fail "--xml with costs is invalid" "$(head -3 "$work/xmllint.out")"
   else
      pass "--xml carries insns, self-insns and inclusive-insns${XMLLINT:+, and validates}"
   fi
else
   fail "--xml without costs"
fi

# damage: a flipped byte in a COSTS chunk, a trace cut inside one
python3 - "$work/iterate.trace" "$work/flipped.trace" "$work/cut.trace" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off = 16
while off + 16 <= len(d):
    t, _, _, n, _, _ = struct.unpack("<BBHIII", d[off:off + 16])
    if t == 14 and n > 40:
        break
    off += 16 + n
f = bytearray(d)
f[off + 16 + 30] ^= 0x10
open(sys.argv[2], "wb").write(f)
open(sys.argv[3], "wb").write(d[:off + 16 + n // 2])
EOF
for t in flipped cut; do
   "$PARLOT_DECODE" --callgrind "$work/$t.trace" > /dev/null 2> "$work/$t.err"
   rc=$?
   if [ $rc -ne 0 ] && [ $rc -lt 128 ] && [ "$(wc -l < "$work/$t.err")" -le 2 ] &&
      grep -q "COSTS\|truncated" "$work/$t.err"; then
      pass "a $t COSTS chunk: exit $rc, $(head -1 "$work/$t.err" | cut -c1-100)"
   else
      fail "a $t COSTS chunk" "exit $rc" "$(head -3 "$work/$t.err")"
   fi
done

# damage the CRC does not catch: garbage coded bytes (their first byte
# still 0), and a count the stream does not have
for how in garbage count-more; do
   python3 "$here/rewrite_chunk.py" "$work/workers.trace" "$work/$how.trace" 14 "$how" > /dev/null
   "$PARLOT_ANNOTATE" "$work/$how.trace" > /dev/null 2> "$work/$how.err"
   rc=$?
   if [ $rc -eq 1 ] && [ "$(wc -l < "$work/$how.err")" -eq 1 ] && grep -q "COSTS" "$work/$how.err"; then
      pass "a COSTS chunk with $how (valid CRC): exit 1, $(cut -c1-90 "$work/$how.err")"
   else
      fail "a COSTS chunk with $how (valid CRC)" "exit $rc" "$(head -3 "$work/$how.err")"
   fi
done

# MPI: the CG solvers, 2 ranks, each MPI.  Symbols bound at start-up
# (LD_BIND_NOW), in every run, traced or profiled: else the loader binds a
# PLT slot inside the first call through it, which the program view
# hides, so that a call's own instructions would include it (640 for the
# first rescale_z from conj_grad, the call injected below)
export LD_BIND_NOW=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export HWLOC_COMPONENTS=-x86 OMPI_MCA_plm_rsh_agent=false
for impl in mpich openmpi; do
   if ! command -v "mpicc.$impl" > /dev/null || ! command -v "mpirun.$impl" > /dev/null; then
      echo "# $impl not installed: its runs are skipped"
      continue
   fi
   bash "$solver/build.sh" "$impl" "$work/$impl" > "$work/$impl.build" 2>&1 ||
      { fail "$impl: building the CG solvers" "$(tail -3 "$work/$impl.build")"; continue; }
   case $impl in
      mpich)   mpirun=(mpirun.mpich) ;;
      openmpi) mpirun=(mpirun.openmpi --oversubscribe) ;;
   esac
   for prog in cg_c cg_f; do
      label=$impl-$prog out=$work/$impl-$prog
      PARLOT_OPTS=--collect-insns=yes RUN_TIMEOUT=600 \
         bash "$solver/run.sh" "$impl" "$work/$impl/$prog" "$out" 2 none 2 8 6 \
         > "$out.run" 2>&1 || { fail "$label: traced run" "$(tail -3 "$out.run")"; continue; }
      (cd "$out" && timeout 600 "${mpirun[@]}" -np 2 "$VALGRIND" --tool=callgrind -q \
         --callgrind-out-file=cg.%p "$work/$impl/$prog" 6 none 2 8) > "$out.cg.run" 2>&1 ||
         { fail "$label: Callgrind run" "$(tail -3 "$out.cg.run")"; continue; }
      "$PARLOT_DECODE" --callgrind --no-demangle "$out"/parlot.out.* > "$out.export" 2> "$out.dec" ||
         { fail "$label: parlot-decode --callgrind" "$(head -3 "$out.dec")"; continue; }
      objs=$prog
      [ "$prog" = cg_c ] && objs=cg_c,libcgsolver.so
      compare "$label" "$out.export" "$objs" --no-inclusive "$out"/cg.*
      sizes "$label" "$out"/parlot.out.*
   done
   # parlot-diff against a run with a fault injected (an extra call of
   # rescale_z in rank 1's 4th conj_grad): the first call its per-call
   # costs list is that one, at the place the call-sequence difference's
   # header names (the same coordinates: the calls open, #N the Nth call
   # from its caller)
   [ $impl = mpich ] || continue
   extra=$work/$impl-extra
   if PARLOT_OPTS=--collect-insns=yes RUN_TIMEOUT=600 \
         bash "$solver/run.sh" "$impl" "$work/$impl/cg_c" "$extra" 2 extra 1 4 6 \
         > "$extra.run" 2>&1; then
      "${PARLOT_DIFF:-$(dirname "$PARLOT_DECODE")/parlot-diff}" "$work/$impl-cg_c" "$extra" \
         > "$extra.diff" 2> "$extra.diff.err"
      first=$(grep -A2 "^== the .* calls* whose instructions" "$extra.diff" | sed -n 3p)
      where=$(grep -m1 "^@@ " "$extra.diff" | sed 's/^@@ \(.*\) @@ .*/\1/')
      case $where in
         *"conj_grad #4") ;;
         *) where="(no header naming conj_grad #4: $where)" ;;
      esac
      if [ "${first##*rank 1: }" = "$where" ]; then
         pass "$impl: parlot-diff names the slower iteration first, where the differences are: $(echo $first)"
      else
         fail "$impl: parlot-diff's per-call costs do not name rank 1's $where first" \
            "$(grep -A5 "^== the .* whose instructions" "$extra.diff")"
      fi
      # with -j1 nothing runs beside the comparison: the same report
      "${PARLOT_DIFF:-$(dirname "$PARLOT_DECODE")/parlot-diff}" -j1 "$work/$impl-cg_c" "$extra" \
         > "$extra.diff1" 2> "$extra.diff1.err"
      if cmp -s "$extra.diff" "$extra.diff1" && cmp -s "$extra.diff.err" "$extra.diff1.err"; then
         pass "$impl: parlot-diff with costs: -j1 gives the same report"
      else
         fail "$impl: parlot-diff with costs: -j1 gives another report" "$(diff "$extra.diff" "$extra.diff1" | head -5)"
      fi
      "${PARLOT_DIFF:-$(dirname "$PARLOT_DECODE")/parlot-diff}" --xml "$work/$impl-cg_c" "$extra" \
         > "$extra.xml" 2> /dev/null
      if [ -n "${XMLLINT:-}" ] && ! $XMLLINT --noout --relaxng "$here/../../../docs/parlot-diff.rng" \
            "$extra.xml" > "$extra.xmllint" 2>&1; then
         fail "$impl: parlot-diff --xml with costs is invalid" "$(head -3 "$extra.xmllint")"
      elif grep -q "<call-cost" "$extra.xml"; then
         pass "$impl: parlot-diff --xml carries the costs${XMLLINT:+ and validates}"
      else
         fail "$impl: parlot-diff --xml has no call-cost"
      fi
      # --within the faulty run: with two ranks, each is the other's
      # reference (the medoid's).  The call its per-call costs list first
      # is rank 1's conj_grad #4, the injected iteration, and what rank 1
      # did more there than in the pair's other iterations is one
      # rescale_z call: Callgrind's self Ir per call of rescale_z in the
      # good run, within 1 % (the call site's few instructions)
      "${PARLOT_DIFF:-$(dirname "$PARLOT_DECODE")/parlot-diff}" --within "$extra" \
         > "$extra.within" 2> "$extra.within.err"
      wfirst=$(grep -A2 "^== the .* calls* whose instructions" "$extra.within" | sed -n 3p)
      if why=$(HERE=$here python3 - "$extra.within" "$where" "$work/$impl-cg_c"/cg.* <<'PY'
import os, re, sys
sys.path.insert(0, os.environ["HERE"])
from compare_ir import parse
within, where, cgs = sys.argv[1], sys.argv[2], sys.argv[3:]
rows, on = [], False
for line in open(within):
    if line.startswith("== the "):
        on = "calls whose instructions" in line
        continue
    m = re.match(r"^ *(\d+) +(\d+) +\S+ +(rank \d+) against (rank \d+): (.*)$", line)
    if on and m:
        rows.append((int(m.group(1)), int(m.group(2)), m.group(3), m.group(4), m.group(5)))
if not rows or rows[0][4] != where or "rank 1" not in rows[0][2:4]:
    sys.exit("first call: %s, not rank 1's %s" % (rows[:1], where))
a, b, thread, ref, _ = rows[0]
sign = 1 if thread == "rank 1" else -1      # rank 1's side less the other's
others = [sign * (r[1] - r[0]) for r in rows[1:]
          if r[2:4] == (thread, ref) and re.search(r" > conj_grad #\d+$", r[4])]
if not others:
    sys.exit("no other iteration of the pair to compare with")
extra = sign * (b - a) - sorted(others)[len(others) // 2]
insns = calls = 0
for cg in cgs:
    selfc, edges = parse(cg)
    insns += sum(v for (ob, fn), v in selfc.items() if fn == "rescale_z")
    calls += sum(n for (ob, fn, cob, cfn), (n, ir) in edges.items() if cfn == "rescale_z")
if not calls or abs(extra - insns / calls) > 0.01 * insns / calls:
    sys.exit("rank 1 did %d instructions more there; one rescale_z call is %s"
             % (extra, insns / calls if calls else "not in the Callgrind profile"))
print("%d more instructions, Callgrind's rescale_z call %.0f" % (extra, insns / calls))
PY
      ); then
         pass "$impl: parlot-diff --within names rank 1's slower call first, by one rescale_z call ($why): $(echo $wfirst)"
      else
         fail "$impl: parlot-diff --within's per-call costs" "$why" \
            "$(grep -A5 "^== the .* whose instructions" "$extra.within")"
      fi
      "${PARLOT_DIFF:-$(dirname "$PARLOT_DECODE")/parlot-diff}" --within --xml "$extra" \
         > "$extra.within.xml" 2> /dev/null
      if [ -n "${XMLLINT:-}" ] && ! $XMLLINT --noout --relaxng "$here/../../../docs/parlot-diff.rng" \
            "$extra.within.xml" > "$extra.within.xmllint" 2>&1; then
         fail "$impl: parlot-diff --within --xml with costs is invalid" "$(head -3 "$extra.within.xmllint")"
      elif grep -q '<call-cost thread="rank [01]" reference="rank [01]"' "$extra.within.xml"; then
         pass "$impl: parlot-diff --within --xml carries the costs${XMLLINT:+ and validates}"
      else
         fail "$impl: parlot-diff --within --xml has no call-cost of a rank against its reference"
      fi
   else
      fail "$impl: the run with an extra call" "$(tail -3 "$extra.run")"
   fi
   # parlot-diff against a hang (rank 1 waits in its 4th conj_grad for a
   # message nobody sends; SIGTERM): the good run's functions are counted
   # only up to where each rank of the hang stopped, so the functions both
   # runs called alike before it (axpy, dot_product: every iteration) did
   # not change, nor is the good run's end (exit) a change; without the
   # cut they were about a third lower in the hang
   hang=$work/$impl-hang
   # (a killed job's mpirun fails: what matters is in the traces)
   PARLOT_OPTS=--collect-insns=yes RUN_TIMEOUT=600 END_WITH=term \
      bash "$solver/run.sh" "$impl" "$work/$impl/cg_c" "$hang" 2 hang 1 4 6 \
      > "$hang.run" 2>&1
   if [ "$(ls "$hang"/parlot.out.* 2> /dev/null | wc -l)" -eq 2 ]; then
      "${PARLOT_DIFF:-$(dirname "$PARLOT_DECODE")/parlot-diff}" "$work/$impl-cg_c" "$hang" \
         > "$hang.diff" 2> "$hang.diff.err"
      changed=$(sed -n '/^== instructions/,/^== the .* calls/p' "$hang.diff" |
                awk 'NR > 2 && !/^==/ { print $NF }' | sort | tr '\n' ' ')
      head_line=$(grep "^== instructions" "$hang.diff")
      case " $changed" in
         *" axpy "* | *" dot_product "* | *" exit "*)
            fail "$impl: parlot-diff with costs against a hang compares whole runs" \
               "changed: $changed" "$head_line" ;;
         *)
            if echo "$head_line" | grep -q "2 thread pairs counted only up to" &&
               [ -n "$changed" ]; then
               pass "$impl: parlot-diff with costs against a hang counts up to where each rank stopped (changed: $changed)"
            else
               fail "$impl: parlot-diff with costs against a hang" "changed: $changed" "$head_line"
            fi ;;
      esac
   else
      fail "$impl: the hung run" "$(tail -3 "$hang.run")"
   fi
done

# A load imbalance (imbalance.c, 3 ranks of a periodic exchange, rank 0
# printing): the same calls everywhere, rank 2 sweeping 3 times as often
# from iteration 6 on.  Its own count of sweeps is the oracle:
#   - parlot-annotate's header names rank 2 costliest, most in relax, at
#     the ratio of its sweeps to the median rank's (within 1 %); no
#     outlier by calls (rank 0's prints are its own work); the Ranks
#     section's table of instructions begins with relax, most on rank 2;
#   - parlot-diff --within lists relax first, rank 2 against its
#     reference (or the reference against it), and no MPI function
#     (their instructions, polling while a rank waits, are left out).
for impl in mpich openmpi; do
   command -v "mpicc.$impl" > /dev/null && command -v "mpirun.$impl" > /dev/null || continue
   case $impl in
      mpich)   mpirun=(mpirun.mpich) ;;
      openmpi) mpirun=(mpirun.openmpi --oversubscribe) ;;
   esac
   imb=$work/$impl-imbalance
   mkdir -p "$imb"
   "mpicc.$impl" -O1 -g -o "$imb/imbalance" "$here/imbalance.c" > "$imb.build" 2>&1 ||
      { fail "$impl: building imbalance.c" "$(tail -3 "$imb.build")"; continue; }
   (cd "$imb" && timeout 600 "${mpirun[@]}" -np 3 "$VALGRIND" --tool=parlot -q \
      --collect-insns=yes --parlot-out-file="$imb/parlot.out.%p" ./imbalance 12 2 6 3) \
      > "$imb.out" 2> "$imb.err" ||
      { fail "$impl: imbalance's traced run" "$(tail -3 "$imb.err")"; continue; }
   "$PARLOT_ANNOTATE" "$imb" > "$imb.ann" 2> "$imb.ann.err"
   "${PARLOT_DIFF:-$(dirname "$PARLOT_DECODE")/parlot-diff}" --within "$imb" \
      > "$imb.within" 2> "$imb.within.err"
   if why=$(python3 - "$imb.out" "$imb.ann" "$imb.within" <<'PY'
import re, sys
out, ann, within = (open(f).read() for f in sys.argv[1:4])
sweeps = {int(r): int(s) for r, s in re.findall(r"^rank (\d+) sweeps (\d+)$", out, re.M)}
if len(sweeps) != 3:
    sys.exit("the program's sweeps: %s" % sweeps)
median = sorted(sweeps.values())[1]
want = sweeps[2] / median
m = re.search(r"^Costliest rank: +rank (\d+), \S+ .*; most in (\S+) \((\d+)(?:,\d+)*, ([0-9.]+)x the median\)$",
              ann, re.M)
if not m:
    sys.exit("no 'Costliest rank' line naming a function: %s"
             % [l for l in ann.splitlines() if l.startswith("Costliest")])
if m.group(1) != "2" or m.group(2) != "relax":
    sys.exit("costliest: rank %s, most in %s" % (m.group(1), m.group(2)))
ratio = float(m.group(4))
if abs(ratio - want) > 0.01 * want + 0.005:
    sys.exit("relax on rank 2 is %.2fx the median; its sweeps are %.3fx" % (ratio, want))
if not re.search(r"^Outlier ranks: +none of 3 \(1 class\)$", ann, re.M):
    sys.exit("outliers: %s" % [l for l in ann.splitlines() if l.startswith("Outlier ranks")])
rows = re.findall(r"^ *[0-9,]+ +[0-9,]+ +[0-9,]+  (\S+) \[.*\]  \((rank \d+)\)$", ann, re.M)
if not rows or rows[0] != ("relax", "rank 2"):
    sys.exit("the Ranks section's instructions begin with %s" % rows[:1])
fns, on = [], False
for line in within.splitlines():
    if line.startswith("== "):
        on = "functions whose instructions outside MPI calls" in line
        continue
    m2 = re.match(r"^ *\d+ +\d+ +\S+ +\d+ +\d+  (rank \d+) against (rank \d+): (\S+)$", line)
    if on and m2:
        fns.append(m2.groups())
# rank 2 against its reference, or the reference of the others
if not fns or fns[0][2] != "relax" or "rank 2" not in fns[0][:2]:
    sys.exit("parlot-diff --within's functions begin with %s" % fns[:1])
mpi = [f for f in fns if re.match(r"P?MPI_", f[2])]
if mpi:
    sys.exit("parlot-diff --within lists MPI functions: %s" % mpi)
print("rank 2's relax %.2fx the median, its sweeps %.3fx; first in the Ranks table "
      "and in parlot-diff --within, %d functions there, none MPI's" % (ratio, want, len(fns)))
PY
   ); then
      pass "$impl: a load imbalance: $why"
   else
      fail "$impl: a load imbalance" "$why" "$(grep -m3 '^Costliest\|^Outlier ranks' "$imb.ann")"
   fi
   # its timeline (parlot-decode --chrome): by default the program's view,
   # each MPI call one frame (the library's polling inside is left out:
   # the names --events lists only with --images=all); each rank's time in
   # relax, on the instructions axis, in the ratio of its sweeps
   "$PARLOT_DECODE" --chrome "$imb"/parlot.out.* > "$imb.json" 2> "$imb.json.err" &&
   "$PARLOT_DECODE" --events --images=all "$imb"/parlot.out.* > "$imb.all" 2> /dev/null &&
   "$PARLOT_DECODE" --events --images=program "$imb"/parlot.out.* > "$imb.prog" 2> /dev/null
   if why=$(python3 - "$imb.json" "$imb.all" "$imb.prog" "$imb.out" <<'PY'
import collections, json, re, sys
doc = json.load(open(sys.argv[1]))
names = lambda f: {l.split("\t")[5] for l in open(f) if l.count("\t") >= 5}
inside = names(sys.argv[2]) - names(sys.argv[3])
rank = {}
for e in doc["traceEvents"]:
    if e["ph"] == "M" and e["name"] == "process_name":
        rank[e["pid"]] = int(re.match(r"rank (\d+)", e["args"]["name"]).group(1))
begun = collections.Counter(e["name"] for e in doc["traceEvents"] if e["ph"] == "B")
shown = inside & set(begun)
if doc["otherData"].get("view") != "images=program" or shown:
    sys.exit("view %s; library internals shown: %s" % (doc["otherData"].get("view"), sorted(shown)[:5]))
if not begun["MPI_Allreduce"] or not begun["relax"] or not inside:
    sys.exit("frames: %s; %d names inside the library" % (begun.most_common(5), len(inside)))
relax, stack = collections.Counter(), {}
for e in doc["traceEvents"]:
    key = (e["pid"], e.get("tid"))
    if e["ph"] == "B":
        stack.setdefault(key, []).append((e["name"], e["ts"]))
    elif e["ph"] == "E":
        name, ts = stack[key].pop()
        if name == "relax" and e["tid"] == 1:
            relax[rank[e["pid"]]] += e["ts"] - ts
sweeps = {int(r): int(s) for r, s in re.findall(r"^rank (\d+) sweeps (\d+)$", open(sys.argv[4]).read(), re.M)}
want = sweeps[2] / sorted(sweeps.values())[1]
got = relax[2] / sorted(relax.values())[1]
if abs(got - want) > 0.01 * want:
    sys.exit("rank 2's time in relax is %.3fx the median rank's; its sweeps %.3fx" % (got, want))
print("%d frames, MPI calls whole (%d library functions inside them not shown); "
      "rank 2 in relax %.3fx the median, its sweeps %.3fx" % (sum(begun.values()), len(inside), got, want))
PY
   ); then
      pass "$impl: the imbalance's timeline: $why"
   else
      fail "$impl: the imbalance's timeline" "$why" "$(head -2 "$imb.json.err")"
   fi
done

# Ranks whose own functions differ by the same instructions (even_ranks.c,
# 3 "ranks" by PMI_RANK, no MPI: step_a and step_b sweep equally often):
# parlot-annotate orders the tie by name (it crashed on ties once).
ev=$work/even
mkdir -p "$ev"
if "$CC" -O1 -g -fno-inline -fno-ipa-icf -o "$ev/even_ranks" "$here/even_ranks.c"; then
   for r in 0 1 2; do
      PMI_RANK=$r PMI_SIZE=3 "$VALGRIND" --tool=parlot -q --collect-insns=yes \
         --parlot-out-file="$ev/trace.$r" "$ev/even_ranks" 4 3 > /dev/null 2>&1
   done
   "$PARLOT_ANNOTATE" "$ev"/trace.* > "$ev/ann" 2> "$ev/ann.err"
   rc=$?
   rows=$(grep -E '^ *[0-9,]+ +[0-9,]+ +[0-9,]+  step_[ab] \[.*\]  \(rank 2\)$' "$ev/ann" |
          sed -E 's/^ *([0-9,]+ +[0-9,]+ +[0-9,]+)  (step_.).*/\2 \1/')
   if [ $rc -eq 0 ] && [ "$(echo "$rows" | cut -d' ' -f1 | tr '\n' ' ')" = "step_a step_b " ] &&
      [ "$(echo "$rows" | cut -d' ' -f2- | sort -u | wc -l)" -eq 1 ] &&
      grep -q '^Costliest rank: *rank 2, ' "$ev/ann"; then
      pass "ranks tied in two functions: exit 0, rank 2 costliest, the tie in name order ($(echo "$rows" | tr '\n' ';'))"
   else
      fail "ranks tied in two functions" "exit $rc" "$(head -2 "$ev/ann.err")" "$rows"
   fi
else
   fail "building even_ranks.c"
fi

echo "# $passed passed, $failed failed"
[ "$failed" -eq 0 ]
