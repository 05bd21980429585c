#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Comparing runs of a real-shaped MPI solver with the readers' default
# options: the CG solvers of this folder (C with its solver in a shared
# library of its own, and Fortran; a main loop over iterations calling
# compute and exchange routines, root-only I/O, collectives, non-blocking
# point-to-point) on 4 ranks under MPICH and Open MPI, each run traced by
# the tool, with a fault chosen by argument on rank 2 in iteration 8:
# none, an extra call (rescale_z inside that iteration's conj_grad), a
# skipped call (norm_check), a swapped pair (axpy before scale_vector).
#
# The oracle is the fault itself, injected by the program's arguments.
# With default options:
#   - parlot-diff GOOD GOOD2 (two correct runs): identical, exit 0;
#   - parlot-diff GOOD BAD: exit 1, and in the first 25 lines rank 2 (and
#     no other rank), the function of the fault and its iteration: the
#     hunk header "conj_grad #8" (extra, swap) or the line
#     "norm_check #8" (skip);
#   - parlot-diff --within BAD: rank 2's pair comes first, against a rank
#     other than 0, and shows the fault;
#   - parlot-annotate BAD names rank 2 as the one outlier for extra and
#     skip, never rank 0 (the root, which alone writes the report); for
#     none it names none.  A swap changes no call count, so the report
#     cannot see it (parlot-diff does).
# check.sh also checks one run per implementation against the program's
# own call counts.
#
# A hung job: with fault hang, rank 2 posts an extra MPI_Recv nobody sends
# in iteration 8 (inside conj_grad's matvec of inner iteration 3), and the
# job is ended as users end it: SIGTERM to the ranks, SIGINT to mpirun
# (Ctrl-C; Open MPI's mpirun passes it on as SIGTERM), SIGKILL to the
# ranks (run.sh END_WITH).  Then parlot-decode --stacks must say how each
# process ended (by the signal; MPICH's launcher, and Open MPI's mpirun
# after Ctrl-C, SIGKILL the ranks left once one has died, so a rank may be
# cut short instead -- not all where the ranks are signalled) and
# put rank 2 alone, least progressed, at
# "conj_grad #8 > matvec #3 > exchange > MPI_Recv" and the others in that
# iteration's next collective ("dot #6 > MPI_Allreduce": conj_grad's
# first dot product, then two per inner iteration); --progress (checked
# on the SIGINT runs) the same without the tree; parlot-annotate's header
# the same place on its "Least progressed" line; parlot-diff GOOD HUNG
# leads with HUNG's progress (rank 2 least progressed), says each
# process ended differently, and shows rank 2's last calls (the extra
# MPI_Recv) before a few of what the good run went on to do.
#
# Environment: VALGRIND (vg-in-place or valgrind), PARLOT_DIFF,
# PARLOT_ANNOTATE, PARLOT_DECODE; SOLVER_IMPLS (default "mpich openmpi"),
# SOLVER_PROGS (default "cg_c cg_f"), SOLVER_KEEP=1 to keep the work
# folder.  An MPI that is not installed is a SKIP; exit 77 if nothing ran.
set -u
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
: "${VALGRIND:?VALGRIND must name vg-in-place or valgrind}"
: "${PARLOT_DIFF:?PARLOT_DIFF must name parlot-diff}"
: "${PARLOT_ANNOTATE:?PARLOT_ANNOTATE must name parlot-annotate}"
: "${PARLOT_DECODE:?PARLOT_DECODE must name parlot-decode}"
export VALGRIND PARLOT_DECODE
NP=4 RANK=2 ITER=8 NITER=15
HANG_INNER=3        # CG_FAULT_INNER in cgsolver.h, FAULT_INNER in cg.f90

work=$(mktemp -d "${TMPDIR:-/tmp}/parlot-solver.XXXXXX")
if [ "${SOLVER_KEEP:-}" = 1 ]; then
    echo "work folder: $work"
else
    trap 'rm -rf "$work"' EXIT
fi

passed=0 failed=0 skipped=0
pass() { echo "PASS: $1"; passed=$((passed + 1)); }
fail() {
    echo "FAIL: $1"
    shift
    for l in "$@"; do printf '%s\n' "$l" | sed 's/^/#   /'; done
    failed=$((failed + 1))
}
skip() { echo "SKIP: $1"; skipped=$((skipped + 1)); }

# traced IMPL PROG FAULT NAME: run PROG under IMPL into $work/NAME
traced() {
    "$here/run.sh" "$1" "$work/$1/$2" "$work/$4" $NP "$3" $RANK $ITER \
        $NITER > "$work/$4.log" 2>&1
}

# diff_case LABEL GOOD BAD PATTERN...: parlot-diff GOOD BAD exits 1, its
# first 25 lines name rank 2 and no other rank, and match each PATTERN
# (grep -E)
diff_case() {
    label=$1 good=$2 bad=$3
    shift 3
    "$PARLOT_DIFF" "$work/$good" "$work/$bad" > "$work/diff.out" 2>&1
    rc=$?
    head -25 "$work/diff.out" > "$work/diff.head"
    others=$(grep -E '^=== rank [0-9]+' "$work/diff.head" |
             grep -v "^=== rank $RANK\$")
    miss=
    for p in "$@"; do
        grep -Eq -- "$p" "$work/diff.head" || miss="$miss '$p'"
    done
    if [ $rc -ne 1 ]; then
        fail "$label: parlot-diff exit $rc, expected 1" "$(head -12 "$work/diff.out")"
    elif ! grep -qx "=== rank $RANK" "$work/diff.head"; then
        fail "$label: rank $RANK not in the first 25 lines" "$(head -12 "$work/diff.out")"
    elif [ -n "$others" ]; then
        fail "$label: other ranks differ too: $others" "$(head -12 "$work/diff.out")"
    elif [ -n "$miss" ]; then
        fail "$label: the first 25 lines lack$miss" "$(head -14 "$work/diff.out")"
    else
        pass "$label: rank $RANK, $(grep -E -m1 -- "$1" "$work/diff.head" | sed 's/^[-+ ]*[0-9]* *[0-9]* *//')"
    fi
}

# hang_case LABEL RUN HOW ENDING: the hung run RUN, ended by HOW (term,
# int, kill), seen by --stacks; ENDING: a regular expression for how
# every process ended, as --stacks words it
hang_case() {
    label=$1 run=$2 how=$3 ending=$4
    if ! END_WITH=$how "$here/run.sh" "$impl" "$work/$impl/$prog" "$work/$run" \
         $NP hang $RANK $ITER $NITER > "$work/$run.log" 2>&1; then
        :   # a killed job's mpirun fails: what matters is in the traces
    fi
    if [ "$(ls "$work/$run"/parlot.out.* 2> /dev/null | wc -l)" -ne $NP ]; then
        fail "$label: $NP traces expected" "$(tail -5 "$work/$run.log")"
        return
    fi
    # --progress (the endings and progress alone) on the SIGINT runs,
    # --stacks on the others
    mode=--stacks want_class=
    cg='main( > MAIN__)? > (cg_mod::)?conj_grad'
    [ "$how" = int ] && mode=--progress
    "$PARLOT_DECODE" $mode "$work/$run" > "$work/stacks.out" 2> "$work/stacks.err"
    # (the mark where its trace was cut short and another's was not)
    stale='(  \(as of its last flush: trace cut short\))?'
    want_stuck="^1: 1:\[$RANK\]  $cg #$ITER > (cg_mod::)?matvec #$HANG_INNER > (cg_mod::)?exchange(_halo)? > MPI_Recv$stale  \(least progressed\)\$"
    want_rest="^2: $((NP - 1)):\[[-0-9,]+\]  $cg #$ITER > (cg_mod::)?dot(_product)? #$((2 * HANG_INNER)) > MPI_Allreduce$stale\$"
    [ "$how" = int ] || want_class="^[0-9]+: 1:\[$RANK\]  $cg > (cg_mod::)?matvec > (cg_mod::)?exchange(_halo)? > MPI_Recv\$"
    # every process ended by the signal, or was cut short: MPICH's
    # launcher SIGKILLs the ranks left once one has died, and so does Open
    # MPI's mpirun after Ctrl-C (its second of grace ends at the first
    # SIGCHLD); a rank still finishing its trace then has none of its end
    # (its stacks are those of its last flush).  Where the test signals
    # the ranks itself, the first rank to die has written its end.
    endings=$(sed -n '/^== how [0-9]* processes ended$/,/^$/p' "$work/stacks.out" | sed '1d;/^$/d')
    ended=$(echo "$endings" | sed -n 's/^\([0-9]*\):.*/\1/p' | paste -sd+ | bc)
    want_end="^[0-9]+:\[[-0-9,]+\]  ($ending|trace cut short)"
    if [ "${ended:-0}" -ne $NP ] ||
       echo "$endings" | grep -Evq -- "$want_end" ||
       { [ "$how" = term ] && ! echo "$endings" | grep -Eq -- "^[0-9]+:\[[-0-9,]+\]  $ending"; }; then
        fail "$label: how the processes ended" "$endings" \
            "$("$PARLOT_DECODE" --info "$work/$run" 2>&1 | grep -E '^==|ends:|^ +[0-9]+ ')"
        return
    fi
    miss=
    for p in "$want_stuck" "$want_rest" ${want_class:+"$want_class"} "$want_end"; do
        grep -Eq -- "$p" "$work/stacks.out" || miss="$miss '$p'"
    done
    # parlot-annotate's header says the same on its first screen
    "$PARLOT_ANNOTATE" "$work/$run" > "$work/ann.out" 2> /dev/null
    want_head="^Least progressed: 1:\[$RANK\]  $cg #$ITER > (cg_mod::)?matvec #$HANG_INNER > (cg_mod::)?exchange(_halo)? > MPI_Recv$stale  \($((NP - 1)) threads further on\)\$"
    head -8 "$work/ann.out" | grep -Eq -- "$want_head" ||
        miss="$miss (parlot-annotate's header) '$want_head'"
    ! grep -q '^Crashed:' "$work/ann.out" ||
        miss="$miss (no 'Crashed:' line: a hang killed from outside is no crash)"
    if [ -n "$miss" ]; then
        fail "$label: $mode lacks$miss" "$(sed -n '/^== [0-9]* class/,$p;/^== where/,$p' "$work/stacks.out")"
    else
        pass "$label: $(grep -E -m1 -- "$want_end" "$work/stacks.out"); rank $RANK least progressed in MPI_Recv, iteration $ITER (--stacks and parlot-annotate's header)"
    fi
}

# stopped_hunk REPORT: parlot-diff GOOD HUNG's section of the hung rank
# shows what it did last (its extra MPI_Recv) before the start of what
# the good run went on to do, whose rest is one line, so that the extra
# MPI_Recv is on the first screens (line 60 at most)
stopped_hunk() {
    sed -n "/^=== rank $RANK\$/,/^=== rank [0-9]* ended/p" "$1" > "$work/stopped.hunk"
    [ "$(grep -E -m1 '^[-+] ' "$work/stopped.hunk" | cut -c1)" = + ] &&
        grep -Eq '^\+ .* MPI_Recv$' "$work/stopped.hunk" &&
        grep -Eq "^-  \.\.\. [0-9]+ more lines, after B's thread was stopped\$" "$work/stopped.hunk" &&
        [ "$(grep -En -m1 '^\+ .* MPI_Recv$' "$1" | cut -d: -f1)" -le 60 ]
}

# outliers_case LABEL RUN EXPECTED: parlot-annotate's Outliers line
outliers_case() {
    "$PARLOT_ANNOTATE" "$work/$2" > "$work/ann.out" 2> "$work/ann.err"
    rc=$?
    line=$(grep -m1 '^Outliers:' "$work/ann.out")
    if [ $rc -ne 0 ]; then
        fail "$1: parlot-annotate exit $rc" "$(head -3 "$work/ann.err")"
    elif [ "$line" != "Outliers:         $3" ]; then
        fail "$1: '$line', expected 'Outliers:         $3'" \
            "$(sed -n '/^Ranks:/,/^Min/p' "$work/ann.out" | head -14)"
    else
        pass "$1: $line"
    fi
}

for impl in ${SOLVER_IMPLS:-mpich openmpi}; do
    if ! command -v "mpicc.$impl" > /dev/null || ! command -v "mpif90.$impl" > /dev/null; then
        skip "$impl: mpicc.$impl or mpif90.$impl not installed"
        continue
    fi
    if ! "$here/build.sh" "$impl" "$work/$impl" > "$work/build-$impl.log" 2>&1; then
        fail "$impl: build" "$(tail -5 "$work/build-$impl.log")"
        continue
    fi
    for prog in ${SOLVER_PROGS:-cg_c cg_f}; do
        tag=$impl-$prog
        ok=1
        for run in none:good none:good2 extra:extra skip:skip swap:swap; do
            if ! traced "$impl" "$prog" "${run%%:*}" "$tag-${run#*:}"; then
                fail "$tag ${run#*:}: the traced run failed" "$(tail -5 "$work/$tag-${run#*:}.log")"
                ok=0
            fi
        done
        [ $ok = 1 ] || continue

        "$PARLOT_DIFF" "$work/$tag-good" "$work/$tag-good2" > "$work/diff.out" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && grep -Eq "^== summary: ([0-9]+) thread pairs compared, \1 identical, 0 different; 0 threads only in A, 0 only in B" "$work/diff.out"; then
            pass "$tag: two correct runs are identical (exit 0)"
        else
            fail "$tag: two correct runs: exit $rc" "$(head -12 "$work/diff.out")"
        fi
        diff_case "$tag extra" "$tag-good" "$tag-extra" \
            "^\+ +[0-9]+ +[34] +(cg_mod::)?rescale_z" "^@@ main( > MAIN__)? > (cg_mod::)?conj_grad #$ITER @@"
        diff_case "$tag skip" "$tag-good" "$tag-skip" \
            "^- +[0-9]+ +[23] +(cg_mod::)?norm_check #$ITER\$"
        diff_case "$tag swap" "$tag-good" "$tag-swap" \
            "^- +[0-9]+ +[34] +(cg_mod::)?scale_vector" "^\+ +[0-9]+ +[34] +(cg_mod::)?axpy" \
            "^@@ main( > MAIN__)? > (cg_mod::)?conj_grad #$ITER @@"

        "$PARLOT_DIFF" --within "$work/$tag-skip" > "$work/within.out" 2>&1
        rc=$?
        # the outlier leads, against a rank without root-only I/O
        if [ $rc -eq 1 ] &&
           grep -m1 '^=== ' "$work/within.out" | grep -Eq "^=== rank $RANK against rank [1-9]" &&
           sed -n "/^=== rank $RANK against/,/^===/p" "$work/within.out" |
               grep -Eq "(cg_mod::)?norm_check #$ITER\$"; then
            pass "$tag skip: --within leads with rank $RANK's skipped call"
        else
            fail "$tag skip: --within (exit $rc)" "$(head -14 "$work/within.out")"
        fi

        outliers_case "$tag none: outliers" "$tag-good" "0"
        outliers_case "$tag extra: outliers" "$tag-extra" "1 (rank $RANK)"
        outliers_case "$tag skip: outliers" "$tag-skip" "1 (rank $RANK)"
        "$PARLOT_ANNOTATE" "$work/$tag-swap" > "$work/ann.out" 2>&1
        if grep -q '^Outliers: .*rank 0' "$work/ann.out"; then
            fail "$tag swap: the root named as an outlier" "$(grep -A3 '^Outliers:' "$work/ann.out")"
        else
            pass "$tag swap: the root is no outlier"
        fi
    done
    # hung jobs, ended three ways (C), one way (Fortran)
    prog=cg_c
    hang_case "$impl cg_c hang, SIGTERM to the ranks" "$impl-cg_c-hang-term" term \
        "killed by SIGTERM \(signal 15\)"
    hang_case "$impl cg_c hang, SIGINT to mpirun" "$impl-cg_c-hang-int" int \
        "killed by SIG(INT \(signal 2|TERM \(signal 15)\)"
    hang_case "$impl cg_c hang, SIGKILL to the ranks" "$impl-cg_c-hang-kill" kill \
        "trace cut short"
    if [ -d "$work/$impl-cg_c-good" ]; then
        "$PARLOT_DIFF" "$work/$impl-cg_c-good" "$work/$impl-cg_c-hang-term" > "$work/diff.out" 2>&1
        rc=$?
        # exit 2 where a trace was cut short (see hang_case): before its
        # threads' ends ("trace cut short") or after them, while writing
        # the process's end (the signal is known, "trace cut short while
        # ending"); the report's first screen (after the truncation
        # messages on stderr) leads with B's progress, rank 2 least
        # progressed
        grep -v '^parlot-diff: ' "$work/diff.out" > "$work/diff.report"
        head -6 "$work/diff.report" > "$work/diff.screen"
        stuck="^1: 1:\[$RANK\]  main > conj_grad #$ITER > matvec #$HANG_INNER > exchange_halo > MPI_Recv(  \(as of its last flush: trace cut short\))?  \(least progressed\)\$"
        sigterm='killed by SIGTERM \(signal 15\)'
        if { [ $rc -eq 1 ] ||
             { [ $rc -eq 2 ] && grep -Eq "B (trace cut short|$sigterm, trace cut short while ending)\$" "$work/diff.out"; }; } &&
           grep -Eq "^=== rank $RANK ended differently: A exit status 0, B ($sigterm|trace cut short)" "$work/diff.out" &&
           grep -q "^== $NP processes ended differently" "$work/diff.out" &&
           grep -q "^== B did not finish: $NP of its $NP processes were killed or cut short" "$work/diff.screen" &&
           grep -Eq -- "$stuck" "$work/diff.screen" &&
           stopped_hunk "$work/diff.report"; then
            pass "$impl cg_c: parlot-diff GOOD HUNG leads with rank $RANK least progressed, says how each process ended, and shows rank $RANK's last calls (MPI_Recv at line $(grep -En -m1 '^\+ .* MPI_Recv$' "$work/diff.report" | cut -d: -f1)) before what A went on to do"
        else
            fail "$impl cg_c: parlot-diff GOOD HUNG (exit $rc)" "$(grep -E '^==|^[0-9]+: ' "$work/diff.out" | head -8)"
        fi
    fi
    prog=cg_f
    hang_case "$impl cg_f hang, SIGTERM to the ranks" "$impl-cg_f-hang-term" term \
        "killed by SIGTERM \(signal 15\)"
    # the traces against the program's own counts, once per implementation
    if [ -d "$work/$impl-cg_c-extra" ]; then
        if "$here/check.sh" "$work/$impl-cg_c-extra" $NP extra $RANK $ITER $NITER \
            > "$work/check.out" 2>&1; then
            pass "$impl cg_c extra: traces match the program's own call counts"
        else
            fail "$impl cg_c extra: check.sh" "$(grep FAIL "$work/check.out" | head -5)"
        fi
    fi
done

echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ] || exit 1
[ $passed -gt 0 ] || exit 77
exit 0
