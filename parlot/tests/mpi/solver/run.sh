#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh IMPL PROG OUTDIR NP FAULT [FAULT_RANK FAULT_ITER] [NITER]
# Run a CG solver test program (cg_c or cg_f, built by build.sh with the
# same IMPL, mpich or openmpi) on NP ranks, each rank under ParLoT:
#   mpirun -np NP $VALGRIND --tool=parlot \
#       --parlot-out-file=OUTDIR/parlot.out.%p PROG NITER FAULT FAULT_RANK FAULT_ITER
# FAULT is none, extra, skip, swap or hang; FAULT_RANK and FAULT_ITER
# default to 2 and 8, NITER to 15.  The job runs in OUTDIR (rank 0 writes its report
# there), whose old traces are removed first; afterwards OUTDIR holds one
# trace per rank, the program's standard output in OUTDIR/stdout (also
# shown; its "rank R calls F N" lines are the oracle) and its standard
# error in OUTDIR/stderr.
# Environment: VALGRIND (required: the installed valgrind or vg-in-place),
# PARLOT_OPTS (more options for the tool, e.g. --images=main),
# RUN_TIMEOUT (seconds, default 300), END_WITH: how a hung job (fault
# hang) is ended once the faulty rank says it waits and HANG_SETTLE
# seconds (default 3) have let the others reach their next collective:
#   term  SIGTERM to every rank (as timeout(1) or a batch scheduler does)
#   int   SIGINT to mpirun (Ctrl-C)
#   kill  SIGKILL to every rank
# Exit status: mpirun's.
set -u

if [ $# -lt 5 ] || [ $# -gt 8 ] || [ $# -eq 6 ]; then
    echo "usage: $0 mpich|openmpi PROG OUTDIR NP none|extra|skip|swap|hang [FAULT_RANK FAULT_ITER] [NITER]" >&2
    exit 2
fi
: "${VALGRIND:?VALGRIND must name vg-in-place or valgrind}"
impl=$1 prog=$2 out=$3 np=$4 fault=$5
frank=${6:-2} fiter=${7:-8} niter=${8:-15}
case $fault in
    none | extra | skip | swap | hang) ;;
    *) echo "$0: FAULT must be none, extra, skip, swap or hang, not '$fault'" >&2; exit 2 ;;
esac
end_with=${END_WITH:-}
case $end_with in
    '' | term | int | kill) ;;
    *) echo "$0: END_WITH must be term, int or kill, not '$end_with'" >&2; exit 2 ;;
esac

# Open MPI: refuses root without these; more ranks than cores need
# --oversubscribe; hwloc's x86 backend cannot run under Valgrind, so it is
# turned off; its rsh launcher wants an agent on PATH even for a local job.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export HWLOC_COMPONENTS=-x86
export OMPI_MCA_plm_rsh_agent=false
case $impl in
    mpich)   mpirun=(mpirun.mpich) ;;
    openmpi) mpirun=(mpirun.openmpi --oversubscribe) ;;
    *) echo "$0: IMPL must be mpich or openmpi, not '$impl'" >&2; exit 2 ;;
esac

case $prog in
    */*) prog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog") ;;
    *)   prog=$(command -v "$prog") || { echo "$0: $2 not found" >&2; exit 2; } ;;
esac
[ -x "$prog" ] || { echo "$0: $prog is not an executable" >&2; exit 2; }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
# an old stderr would end a hung job before this one waits
rm -f "$out"/parlot.out.* "$out/stdout" "$out/stderr"

# The ranks: the tool's processes (Valgrind names them after the tool)
# whose command line names this run's trace files -- not timeout and
# mpirun, whose command lines name them too.
rank_pids() {
    local pid
    for pid in $(pgrep -f -- "--parlot-out-file=$out/parlot.out"); do
        case $(ps -o comm= -p "$pid" 2> /dev/null) in
            parlot-*) echo "$pid" ;;
        esac
    done
}

# The hung job's end: signal `how` once rank FAULT_RANK says it waits.
# mpirun is timeout's child.
end_hung_job() {
    local tpid=$1 waited=0 mpid
    until grep -q "waits for a message nobody sends" "$out/stderr" 2> /dev/null; do
        kill -0 "$tpid" 2> /dev/null || return
        sleep 1
        waited=$((waited + 1))
        [ $waited -lt "${RUN_TIMEOUT:-300}" ] || return
    done
    sleep "${HANG_SETTLE:-3}"
    case $end_with in
        term) kill -TERM $(rank_pids) ;;
        kill) kill -KILL $(rank_pids) ;;
        int)  mpid=$(pgrep -P "$tpid" | head -1)
              [ -n "$mpid" ] && kill -INT "$mpid" ;;
    esac
    # what is left a minute later (a launcher that does not pass the
    # signal on) is killed, so that the test ends
    for waited in $(seq 60); do
        kill -0 "$tpid" 2> /dev/null || return
        sleep 1
    done
    echo "run.sh: the job outlived END_WITH=$end_with by 60 s; killing it" >&2
    pkill -KILL -f -- "--parlot-out-file=$out/parlot.out"
    kill -KILL "$tpid" 2> /dev/null
}

t0=$(date +%s.%N)
(cd "$out" && exec timeout "${RUN_TIMEOUT:-300}" "${mpirun[@]}" -np "$np" \
    "$VALGRIND" --tool=parlot -q ${PARLOT_OPTS:-} \
    --parlot-out-file="$out/parlot.out.%p" \
    "$prog" "$niter" "$fault" "$frank" "$fiter") \
    > "$out/stdout" 2> "$out/stderr" &
tpid=$!
[ -z "$end_with" ] || end_hung_job $tpid
wait $tpid
rc=$?
t1=$(date +%s.%N)
cat "$out/stdout"
if [ -s "$out/stderr" ]; then
    sed 's/^/stderr: /' "$out/stderr" | tail -20 >&2
fi
printf 'run.sh: %s %s np=%s fault=%s rank=%s iteration=%s niter=%s: exit %d in %.1f s, %d traces in %s\n' \
    "$impl" "$(basename "$prog")" "$np" "$fault" "$frank" "$fiter" "$niter" \
    $rc "$(echo "$t1 - $t0" | bc)" "$(ls "$out"/parlot.out.* 2> /dev/null | wc -l)" \
    "$out" >&2
exit $rc
