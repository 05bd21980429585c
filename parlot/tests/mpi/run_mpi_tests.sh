#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# MPI tests of the tool: a C and a Fortran MPI program with 4 ranks, under
# Debian's MPICH and Open MPI, in both launch forms:
#   form 1: valgrind --tool=parlot --trace-children=yes mpirun -np 4 ./app
#   form 2: mpirun -np 4 valgrind --tool=parlot ./app
# and Debian's hpcc (Open MPI) on a tiny problem in form 2.  With MPICH in
# form 2 also: diverge.c, where rank 2 deliberately takes a different path
# (the outlier report must name it), hang.c, where rank 2 waits forever and
# the job is killed (--stacks must show where each rank was), and hybrid.c,
# MPI + OpenMP (2 ranks x 3 threads).
#
# Checks, per run: exactly 4 traces of the program, labelled role=program
# with mpi_rank 0..3 (each once), mpi_size 4 and the launcher's variable as
# mpi_rank_source; in form 1 launcher traces exist and are labelled
# role=launcher, in form 2 there are none; every trace decodes completely
# (parlot-decode --events exits 0); per rank, the calls of the program's own
# functions in the trace equal the counts the program printed (its own
# counters: an oracle the tool did not compute), and so do its calls of MPI
# functions by the names it wrote (MPI_Send; Fortran's case and trailing
# underscores aside), although Valgrind prefers the profiling names
# (PMPI_Send); no function of an MPI library is shown by a profiling name PX
# or pX where the library's dynamic symbol table (nm, not Valgrind) has X at
# the same address, and at least one such pair is checked per program trace.
# One more run per implementation records with --only='PMPI_Send'
# --only='pmpi_recv*' --only='PMPI_Recv': the tool's filters match aliases,
# so the traces hold exactly the program's MPI_Send and MPI_Recv calls.
# The PROCESS chunks are read by trace_process.py, which shares no code
# with the decoder.
#
# Environment: VALGRIND (vg-in-place or valgrind), PARLOT_DECODE,
# PARLOT_DIFF (optional: the --within check),
# PARLOT_ANNOTATE, top_srcdir;
# MPI_IMPLS (default "mpich openmpi"), MPI_TESTS_HPCC=no to leave hpcc out,
# MPI_TESTS_KEEP=1 to keep the work folder.
# An MPI implementation, gfortran or hpcc that is not installed is reported
# as SKIP (scripts/setup-debian installs them all); exit 77 if nothing ran.
set -u
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../../.." && pwd)}"
: "${VALGRIND:?VALGRIND must name vg-in-place or valgrind}"
: "${PARLOT_DECODE:?PARLOT_DECODE must name parlot-decode}"
: "${PARLOT_ANNOTATE:?PARLOT_ANNOTATE must name parlot-annotate}"
PYTHON=${PYTHON:-python3}
READ_PROCESS="$PYTHON $here/trace_process.py"
NP=4

work=$(mktemp -d "${TMPDIR:-/tmp}/parlot-mpi.XXXXXX")
if [ "${MPI_TESTS_KEEP:-}" = 1 ]; then
    echo "work folder: $work"
else
    trap 'rm -rf "$work"' EXIT
fi

# Open MPI: refuses root without these; 4 ranks on 2 cores need
# --oversubscribe; hwloc's x86 backend cannot run under Valgrind (it says so
# on stderr and falls back), so it is turned off.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export HWLOC_COMPONENTS=-x86
# Its rsh launcher wants ssh on PATH even for a local job: give it a command
# that exists (it is never run for local ranks).
export OMPI_MCA_plm_rsh_agent=false
OMPI_FLAGS="--oversubscribe"

. "$here/../e2e_lib.sh"
skipped=0
skip() { echo "SKIP: $1"; skipped=$((skipped + 1)); }

# mpirun_cmd IMPL: the launcher and its options
mpirun_cmd() {
    case $1 in
        mpich)   echo "mpirun.mpich" ;;
        openmpi) echo "mpirun.openmpi $OMPI_FLAGS" ;;
    esac
}
rank_source() {
    case $1 in
        mpich)   echo PMI_RANK ;;
        openmpi) echo OMPI_COMM_WORLD_RANK ;;
    esac
}

# norm_name NAME: a routine's name as Fortran and C agree on it (MPI_SEND,
# mpi_send_ and MPI_Send are one routine)
norm_name() {
    echo "$1" | tr 'A-Z' 'a-z' | sed 's/_*$//'
}

# mpi_calls EVENTS APP: "NAME COUNT" (names normalised as norm_name) of the
# calls that functions of the program APP make to other objects' functions
mpi_calls() {
    awk -F'\t' -v app="$2" '$3 == "call" { o = $5; sub(/.*\//, "", o)
            fr[$2, $4] = o
            if ($4 > 1 && fr[$2, $4 - 1] == app && o != app) {
                n = tolower($6); sub(/_+$/, "", n); c[n]++ } }
        END { for (k in c) print k, c[k] }' "$1"
}

# public_names EVENTS: one line per MPI library function of the --events
# listing EVENTS shown by a profiling name although its library has the
# public one at the same address ("bad OBJECT PX"), and per function shown
# by a public name that has a profiling alias there ("good OBJECT X")
public_names() {
    local obj nmf
    awk -F'\t' '$3 == "call" && $5 ~ /\/libmpi[^\/]*$/ { print $5 "\t" $6 }' "$1" |
        sort -u > "$1.mpifns"
    for obj in $(cut -f1 "$1.mpifns" | sort -u); do
        nmf=$work/nm.$(basename "$obj")
        [ -s "$nmf" ] || nm -D --defined-only "$obj" |
            awk 'NF == 3 { n = $3; sub(/@.*/, "", n); print $1, n }' > "$nmf"
        awk -F'\t' -v obj="$obj" 'FILENAME != "-" { split($0, w, " "); at[w[2]] = w[1]; next }
            $1 == obj { f = $2; rest = substr(f, 2)
                if (f ~ /^[Pp]/ && (rest in at) && (f in at) && at[rest] == at[f])
                    print "bad", obj, f
                else if ((f in at) && (("P" f) in at || ("p" f) in at) &&
                         (at["P" f] == at[f] || at["p" f] == at[f]))
                    print "good", obj, f }' "$nmf" - < "$1.mpifns"
    done
    rm -f "$1.mpifns"
}

# check_run NAME DIR APP IMPL FORM ORACLE: the checks above; ORACLE is the
# program's output ("rank R calls F N" lines), empty for no call check.
check_run() {
    local name=$1 dir=$2 app=$3 impl=$4 form=$5 oracle=$6
    local errs=() procs ranks f n_prog n_launch line
    local appbase
    appbase=$(basename "$app")

    procs=$dir/process.txt
    if ! $READ_PROCESS "$dir"/parlot.out.* > "$procs" 2> "$dir/process.err"; then
        errs+=("unreadable PROCESS chunk: $(head -3 "$dir/process.err")")
    fi
    # the program's traces: role=program and exe named like the program
    awk -F'\t' -v app="$appbase" '{
            exe = ""; role = ""
            for (i = 2; i <= NF; i++) {
                if ($i ~ /^exe=/) exe = substr($i, 5)
                if ($i ~ /^role=/) role = substr($i, 6)
            }
            sub(/.*\//, "", exe)
            if (role == "program" && exe == app) print
        }' "$procs" > "$dir/prog.txt"
    n_prog=$(wc -l < "$dir/prog.txt")
    n_launch=$(grep -c $'\trole=launcher\t' "$procs")
    [ "$n_prog" -eq $NP ] ||
        errs+=("$n_prog traces of $appbase, expected $NP")
    ranks=$(grep -o $'\tmpi_rank=[0-9]*' "$dir/prog.txt" | cut -d= -f2 |
            sort -n | tr '\n' ' ')
    [ "$ranks" = "0 1 2 3 " ] ||
        errs+=("ranks of the program traces are '$ranks', expected '0 1 2 3 '")
    [ "$(grep -c $'\tmpi_size=4\t' "$dir/prog.txt")" -eq $NP ] ||
        errs+=("not every program trace has mpi_size=4")
    [ "$(grep -c $'\tmpi_rank_source='"$(rank_source "$impl")" "$dir/prog.txt")" -eq $NP ] ||
        errs+=("mpi_rank_source is not $(rank_source "$impl") everywhere")
    # every trace says its role
    if grep -v $'\trole=' "$procs" | grep -q .; then
        errs+=("traces without role: $(grep -v $'\trole=' "$procs" | cut -f1 | tr '\n' ' ')")
    fi
    if [ "$form" = 1 ]; then
        [ "$n_launch" -ge 1 ] || errs+=("no trace labelled role=launcher")
        # the mpirun traces themselves (exe mpirun.*) must be launchers
        if awk -F'\t' '{ for (i = 2; i <= NF; i++) if ($i ~ /^exe=/) e = $i;
                         if (e ~ /^exe=(.*\/)?mpirun/ && $0 !~ /\trole=launcher\t/) bad = 1 }
                       END { exit !bad }' "$procs"; then
            errs+=("an mpirun trace is not labelled role=launcher")
        fi
    else
        [ "$n_launch" -eq 0 ] || errs+=("$n_launch launcher traces in form 2")
        [ "$(wc -l < "$procs")" -eq $NP ] ||
            errs+=("$(wc -l < "$procs") traces in form 2, expected $NP")
    fi
    # every trace decodes completely
    for f in "$dir"/parlot.out.*; do
        # names as recorded: the program's counts name gfortran's symbols
        "$PARLOT_DECODE" --events --no-demangle "$f" > "$dir/events" 2> "$dir/decode.err" ||
            { errs+=("parlot-decode --events $(basename "$f") failed: $(head -2 "$dir/decode.err")"); continue; }
        # per program rank: calls of the program's own functions
        line=$(grep -P "^\Q$f\E\t" "$dir/prog.txt") || continue
        local rank names
        rank=$(echo "$line" | grep -o $'\tmpi_rank=[0-9]*' | cut -d= -f2)
        names=$(public_names "$dir/events")
        if echo "$names" | grep -q '^bad '; then
            errs+=("rank $rank shows profiling names where the library has public ones: $(echo "$names" | grep '^bad ' | cut -d' ' -f3 | head -5 | tr '\n' ' ')")
        fi
        [ -n "$oracle" ] || continue
        # a program that counts its MPI calls makes some
        if grep -qE '^rank [0-9]+ mpi ' "$oracle" && ! echo "$names" | grep -q '^good '; then
            errs+=("rank $rank: no MPI function with a profiling alias to check the name of")
        fi
        awk -F'\t' -v app="$appbase" '$3 == "call" { o = $5; sub(/.*\//, "", o)
                if (o == app) n[$6]++ }
            END { for (k in n) print k, n[k] }' "$dir/events" > "$dir/calls.$rank"
        while read -r _ r _ fn cnt; do
            [ "$r" = "$rank" ] || continue
            got=$(awk -v fn="$fn" '$1 == fn { print $2 }' "$dir/calls.$rank")
            [ "${got:-0}" = "$cnt" ] ||
                errs+=("rank $rank: $fn called ${got:-0} times in the trace, $cnt by the program's count")
        done < <(grep -E '^rank [0-9]+ calls ' "$oracle")
        # the MPI calls of the program's own functions, by name
        mpi_calls "$dir/events" "$appbase" > "$dir/mpi.$rank"
        while read -r _ r _ fn cnt; do
            [ "$r" = "$rank" ] || continue
            got=$(awk -v fn="$(norm_name "$fn")" '$1 == fn { print $2 }' "$dir/mpi.$rank")
            [ "${got:-0}" = "$cnt" ] ||
                errs+=("rank $rank: the program's functions call $fn ${got:-0} times in the trace, $cnt by its count")
        done < <(grep -E '^rank [0-9]+ mpi ' "$oracle")
    done
    rm -f "$dir/events"
    if [ -n "$oracle" ]; then
        [ "$(grep -cE '^rank [0-9]+ calls ' "$oracle")" -ge $NP ] ||
            errs+=("the program printed no call counts")
    fi
    if [ ${#errs[@]} -eq 0 ]; then
        pass "$name"
    else
        fail "$name"
        printf '    %s\n' "${errs[@]}"
    fi
}

# run_app NAME IMPL FORM APP [VGOPT...]: run the program in a folder of its
# own, with the tool's options VGOPT; 0 if it ran and passed check_run
run_app() {
    local name=$1 impl=$2 form=$3 app=$4 dir rc t0 t1
    shift 4
    dir=$work/$name
    mkdir -p "$dir"
    t0=$(date +%s)
    if [ "$form" = 1 ]; then
        (cd "$dir" && timeout 300 "$VALGRIND" --tool=parlot -q "$@" --trace-children=yes \
            $(mpirun_cmd "$impl") -np $NP "$app") > "$dir/out" 2> "$dir/err"
    else
        (cd "$dir" && timeout 300 $(mpirun_cmd "$impl") -np $NP \
            "$VALGRIND" --tool=parlot -q "$@" "$app") > "$dir/out" 2> "$dir/err"
    fi
    rc=$?
    t1=$(date +%s)
    echo "    $name: mpirun exit $rc in $((t1 - t0)) s"
    if [ $rc -ne 0 ]; then
        fail "$name (mpirun exit $rc)"
        sed 's/^/    | /' "$dir/err" | tail -15
        return 1
    fi
    local before=$failed
    check_run "$name" "$dir" "$app" "$impl" "$form" "$dir/out"
    [ $failed -eq $before ]
}

# check_only NAME IMPL APP: form 2 with --only on the profiling names; every
# program trace holds MPI_Send and MPI_Recv calls alone, as many as the
# program made
check_only() {
    local name=$1 impl=$2 app=$3 dir errs=() f rank n
    dir=$work/$name
    mkdir -p "$dir"
    (cd "$dir" && timeout 300 $(mpirun_cmd "$impl") -np $NP "$VALGRIND" \
        --tool=parlot -q --only=PMPI_Send --only='pmpi_recv*' \
        --only=PMPI_Recv "$app") > "$dir/out" 2> "$dir/err" ||
        { fail "$name (mpirun exit $?)"; sed 's/^/    | /' "$dir/err" | tail -15; return; }
    n=0
    for f in "$dir"/parlot.out.*; do
        "$PARLOT_DECODE" --events "$f" > "$dir/events" 2> "$dir/decode.err" ||
            { errs+=("parlot-decode --events $(basename "$f") failed: $(head -2 "$dir/decode.err")"); continue; }
        rank=$($READ_PROCESS "$f" | grep -o $'\tmpi_rank=[0-9]*' | cut -d= -f2)
        [ -n "$rank" ] || { errs+=("$(basename "$f"): no rank"); continue; }
        n=$((n + 1))
        awk -F'\t' '$3 == "call" { print $6 }' "$dir/events" | sort | uniq -c |
            awk '{ print $2, $1 }' > "$dir/calls.$rank"
        local want
        want=$(grep -E "^rank $rank mpi MPI_(Send|Recv) " "$dir/out" |
               awk '{ print $4, $5 }' | sort)
        [ -n "$want" ] && [ "$(sort "$dir/calls.$rank")" = "$want" ] ||
            errs+=("rank $rank: calls recorded '$(tr '\n' ' ' < "$dir/calls.$rank")', the program's '$(echo "$want" | tr '\n' ' ')'")
    done
    [ $n -eq $NP ] || errs+=("$n traces with a rank, expected $NP")
    if [ ${#errs[@]} -eq 0 ]; then
        pass "$name"
    else
        fail "$name"
        printf '    %s\n' "${errs[@]}"
    fi
}

for impl in ${MPI_IMPLS:-mpich openmpi}; do
    if ! command -v "mpicc.$impl" > /dev/null || ! command -v "mpirun.$impl" > /dev/null; then
        skip "$impl: mpicc.$impl/mpirun.$impl not installed (scripts/setup-debian installs them)"
        continue
    fi
    bin=$work/bin-$impl
    mkdir -p "$bin"
    if ! "mpicc.$impl" -O0 -g -fno-inline -o "$bin/ring_c" "$here/ring.c" 2> "$bin/cc.err"; then
        fail "$impl: mpicc.$impl cannot build ring.c"; cat "$bin/cc.err"; continue
    fi
    apps="c"
    if command -v "mpif90.$impl" > /dev/null && command -v gfortran > /dev/null; then
        if (cd "$bin" && "mpif90.$impl" -O0 -g -o ring_f90 "$here/ring.f90") 2> "$bin/fc.err"; then
            apps="c f90"
        else
            fail "$impl: mpif90.$impl cannot build ring.f90"; cat "$bin/fc.err"
        fi
    else
        skip "$impl Fortran: mpif90.$impl or gfortran not installed"
    fi
    for lang in $apps; do
        for form in 1 2; do
            run_app "$impl-$lang-form$form" "$impl" "$form" "$bin/ring_$lang"
        done
    done
    check_only "$impl-c-only-pmpi" "$impl" "$bin/ring_c"
done

# diverge.c: 4 ranks (MPICH, form 2) that behave identically except rank 2,
# which calls recover_from_slow_neighbour.  Traced with --images=main, and
# with every image: the libraries' internals differ between ranks (rank 0
# does more in MPI_Init), and the classes, made on the program's own
# functions and the MPI interface, must name rank 2 alone all the same.  parlot-annotate --ranks=yes must name rank 2 as the one
# outlier with that function only it calls, and parlot-decode --xml must
# have the same <outlier> in <ranks>.
check_diverge() {
    local name=$1 dir=$2 all=${3:-} errs=() pid2 ann maj ndiff=1
    # with every image recorded, the program's calls into libraries count
    # too: rank 2 prints one line more (its recover_from_slow_neighbour
    # count), 5 printf calls against 4
    [ -n "$all" ] && ndiff=2
    pid2=$(grep -P "\tmpi_rank=2\t" "$dir/prog.txt" | grep -o $'\tpid=[0-9]*' | cut -d= -f2)
    ann=$dir/annotate.txt
    if ! "$PARLOT_ANNOTATE" --ranks=yes "$dir"/parlot.out.* > "$ann" 2> "$dir/annotate.err"; then
        errs+=("parlot-annotate --ranks=yes failed: $(head -2 "$dir/annotate.err")")
    else
        grep -qE '^Ranks: +4 \(processes with an MPI rank\)$' "$ann" ||
            errs+=("annotate: no 'Ranks: 4 (processes with an MPI rank)' line")
        # Classes are numbered by first member in file order (by pid), so
        # the majority is class 1 or 2 and rank 2's class the other one.
        maj=$(sed -nE 's/^Classes: +2, by call-graph shape; majority: class ([12]), 3 ranks$/\1/p' "$ann")
        [ -n "$maj" ] ||
            errs+=("annotate: classes are not 2 by shape with a majority of 3: $(grep '^Classes:' "$ann")")
        grep -qE '^Outliers: +1 \(rank 2\)$' "$ann" ||
            errs+=("annotate: outliers are not just rank 2: $(grep '^Outliers:' "$ann")")
        [ "$(grep -c '^Outlier rank [0-9]' "$ann")" -eq 1 ] ||
            errs+=("annotate: $(grep -c '^Outlier rank [0-9]' "$ann") outlier sections, expected 1")
        # the header names it, on the first screen
        head -12 "$ann" | grep -qE '^Outlier ranks: +1 of 4: rank 2 \(only here: recover_from_slow_neighbour(\)|, \.\.\.\))' ||
            errs+=("annotate: the header does not name rank 2: $(grep '^Outlier ranks:' "$ann")")
        grep -qE "^Outlier rank 2 \(pid $pid2, class $((3 - ${maj:-1}))\): $ndiff differences? from rank [0-9]+'s class$" "$ann" ||
            errs+=("annotate: no section 'Outlier rank 2 (pid $pid2, class $((3 - ${maj:-1}))): $ndiff difference(s)'")
        grep -qE '^ +4 +0 +only here: recover_from_slow_neighbour \[.*/diverge\]$' "$ann" ||
            errs+=("annotate: rank 2's difference is not 'only here: recover_from_slow_neighbour' 4 vs 0")
    fi
    if ! "$PARLOT_DECODE" --xml "$dir"/parlot.out.* > "$dir/summary.xml" 2> "$dir/xml.err"; then
        errs+=("parlot-decode --xml failed: $(head -2 "$dir/xml.err")")
    else
        local msg
        msg=$($PYTHON - "$dir/summary.xml" "$all" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
procs = {p.get("id"): p for p in root.iter("process")}
fns = {f.get("id"): f.get("name") for f in root.iter("function") if f.get("name")}
ranks = root.findall(".//ranks")
err = []
if len(ranks) != 1:
    err.append("%d <ranks> elements, expected 1" % len(ranks))
else:
    r = ranks[0]
    want = {"by": "mpi-rank", "processes": "4", "classes-by": "shape",
            "classes": "2", "majority-size": "3", "outliers": "1"}
    for k, v in want.items():
        if r.get(k) != v:
            err.append("<ranks %s=%r>, expected %r" % (k, r.get(k), v))
    if r.get("majority") not in ("1", "2"):
        err.append("<ranks majority=%r>, expected 1 or 2" % r.get("majority"))
    other = "1" if r.get("majority") == "2" else "2"
    outs = r.findall("outlier")
    if len(outs) != 1:
        err.append("%d <outlier> elements, expected 1" % len(outs))
    for o in outs:
        p = procs.get(o.get("process"))
        if p is None or p.get("rank") != "2":
            err.append("the outlier is process %s (rank %s), not rank 2" % (
                o.get("process"), None if p is None else p.get("rank")))
        if o.get("class") != other:
            err.append("the outlier's class is %s, expected %s (not the majority)"
                       % (o.get("class"), other))
        rs = [(x.get("kind"), fns.get(x.get("ref")), x.get("calls"),
               x.get("majority")) for x in o.findall("reason")]
        want = [("only-function", "recover_from_slow_neighbour", "4", "0")]
        if sys.argv[2]:
            want.append(("calls", "printf", "5", "4"))
        if rs != want:
            err.append("the outlier's reasons are %r, expected %r" % (rs, want))
print("; ".join(err))
PY
) || msg="reading the XML failed"
        [ -z "$msg" ] || errs+=("xml: $msg")
    fi
    # parlot-diff --within: every rank against its class's reference (rank
    # 2, the outlier, against its nearest ordinary rank), in order: rank 2
    # alone differs, by recover_from_slow_neighbour in its loop, 4 calls
    # more
    if [ -n "${PARLOT_DIFF:-}" ]; then
        "$PARLOT_DIFF" --within --images=main --loops "$dir" \
            > "$dir/within.txt" 2> "$dir/within.err"
        local rc=$?
        [ $rc -eq 1 ] || errs+=("parlot-diff --within exits $rc: $(head -2 "$dir/within.err")")
        grep -q '^== threads that differ: \[2\]$' "$dir/within.txt" ||
            errs+=("parlot-diff --within: not rank 2 alone: $(grep '^== threads' "$dir/within.txt")")
        grep -qE '^\+ +[0-9]+ +3 +recover_from_slow_neighbour$' "$dir/within.txt" ||
            errs+=("parlot-diff --within: no '+ recover_from_slow_neighbour' line")
        grep -qE '^ +0 +4 +\+4  recover_from_slow_neighbour$' "$dir/within.txt" ||
            errs+=("parlot-diff --within: the summary does not count 4 more calls")
    fi
    if [ ${#errs[@]} -eq 0 ]; then
        pass "$name outliers"
    else
        fail "$name outliers"
        printf '    %s\n' "${errs[@]}"
    fi
}

# hybrid.c: MPI + OpenMP (libgomp), 2 ranks x 3 OpenMP threads (MPICH, form
# 2).  Per rank: a labelled trace that decodes completely, whose threads
# include every OpenMP thread (each runs the parallel region's function
# main._omp_fn.0 once), and whose work_item calls per thread are those the
# program counted per OpenMP thread (as a multiset: the two numberings are
# not the same) and add up to its omp atomic counter.
HYB_NP=2 HYB_THREADS=3
check_hybrid() {
    local name=$1 dir=$2 app=$3 errs=() procs f line rank
    procs=$dir/process.txt
    $READ_PROCESS "$dir"/parlot.out.* > "$procs" 2> "$dir/process.err" ||
        errs+=("unreadable PROCESS chunk: $(head -3 "$dir/process.err")")
    [ "$(wc -l < "$procs")" -eq $HYB_NP ] ||
        errs+=("$(wc -l < "$procs") traces, expected $HYB_NP")
    [ "$(grep -o $'\tmpi_rank=[0-9]*' "$procs" | cut -d= -f2 | sort -n | tr '\n' ' ')" = "0 1 " ] ||
        errs+=("ranks are not 0 1: $(cut -f1,4 "$procs" | tr '\n' ' ')")
    [ "$(grep -c $'\trole=program\t.*\tmpi_size='$HYB_NP$'\t' "$procs")" -eq $HYB_NP ] ||
        errs+=("not every trace is role=program with mpi_size=$HYB_NP")
    for f in "$dir"/parlot.out.*; do
        line=$(grep -P "^\Q$f\E\t" "$procs") || continue
        rank=$(echo "$line" | grep -o $'\tmpi_rank=[0-9]*' | cut -d= -f2)
        if ! "$PARLOT_DECODE" --events "$f" > "$dir/events" 2> "$dir/decode.err"; then
            errs+=("parlot-decode --events $(basename "$f") failed: $(head -2 "$dir/decode.err")")
            continue
        fi
        local threads region per total want_threads want_per want_total
        threads=$(cut -f2 "$dir/events" | sort -un | wc -l)
        region=$(awk -F'\t' '$3 == "call" && $6 == "main._omp_fn.0" { n[$2]++ }
                 END { for (t in n) print n[t] }' "$dir/events" | sort | uniq -c |
                 awk '{ printf "%s x%s ", $1, $2 }')
        per=$(awk -F'\t' '$3 == "call" && $6 == "work_item" { n[$2]++ }
              END { for (t in n) print n[t] }' "$dir/events" | sort -n | tr '\n' ' ')
        total=$(awk -F'\t' '$3 == "call" && $6 == "work_item"' "$dir/events" | wc -l)
        want_threads=$(awk -v r="$rank" '$1 == "rank" && $2 == r && $3 == "threads" { print $4 }' "$dir/out")
        want_per=$(awk -v r="$rank" '$1 == "rank" && $2 == r && $3 == "thread" && $5 == "calls" && $7 > 0 { print $7 }' "$dir/out" |
                   sort -n | tr '\n' ' ')
        want_total=$(awk -v r="$rank" '$1 == "rank" && $2 == r && $3 == "calls" && $4 == "work_item" { print $5 }' "$dir/out")
        [ "${want_threads:-0}" -eq $HYB_THREADS ] ||
            errs+=("rank $rank: the program ran ${want_threads:-no} OpenMP threads, expected $HYB_THREADS")
        [ "$threads" -ge "${want_threads:-0}" ] ||
            errs+=("rank $rank: $threads threads in the trace, fewer than the program's ${want_threads:-?} OpenMP threads")
        [ "$region" = "$HYB_THREADS x1 " ] ||
            errs+=("rank $rank: main._omp_fn.0 calls per thread are '$region', expected once in each of $HYB_THREADS threads")
        [ -n "$want_per" ] && [ "$per" = "$want_per" ] ||
            errs+=("rank $rank: work_item calls per thread '$per' in the trace, '$want_per' by the program's count")
        [ -n "$want_total" ] && [ "$total" = "$want_total" ] ||
            errs+=("rank $rank: $total work_item calls in the trace, ${want_total:-none} by the program's omp atomic counter")
    done
    rm -f "$dir/events"
    if [ ${#errs[@]} -eq 0 ]; then
        pass "$name"
    else
        fail "$name"
        printf '    %s\n' "${errs[@]}"
    fi
}

# hang.c: 4 ranks (MPICH, form 2) in a ring; rank 2 waits for a message
# nobody sends, the others then wait for rank 2 in exchange.  The ranks are
# killed with SIGKILL after HANG_SECONDS; every rank's trace is truncated,
# and parlot-decode --stacks on the traces (recorded with --images=main;
# read in the program's view, the default, where the C runtime's _start
# is not shown) must put rank 2 alone in main > stuck and ranks 0, 1, 3
# together in main > exchange: the classes and rank sets follow from the
# program's structure alone.
HANG_SECONDS=${HANG_SECONDS:-30}
check_hang() {
    local name=$1 app=$2 dir pid errs=()
    dir=$work/$name
    mkdir -p "$dir"
    (cd "$dir" && exec mpirun.mpich -np $NP "$VALGRIND" --tool=parlot -q \
        --images=main "$app" > "$dir/out" 2> "$dir/err") &
    pid=$!
    sleep "$HANG_SECONDS"
    # Hydra starts each rank in a session of its own: kill the ranks by
    # their pids (a traced process keeps its pid: the trace's name) first
    for f in "$dir"/parlot.out.*; do
        [ -e "$f" ] && kill -KILL "${f##*.}" 2> /dev/null
    done
    kill -KILL "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
    echo "    $name: killed after $HANG_SECONDS s"
    "$PARLOT_DECODE" --stacks "$dir"/parlot.out.* > "$dir/stacks" 2> "$dir/stacks.err"
    [ "$(ls "$dir"/parlot.out.* 2> /dev/null | wc -l)" -eq $NP ] ||
        errs+=("$(ls "$dir"/parlot.out.* 2> /dev/null | wc -l) traces, expected $NP")
    [ "$(grep -c 'truncated' "$dir/stacks.err")" -eq $NP ] ||
        errs+=("not every trace is reported truncated: $(head -2 "$dir/stacks.err")")
    grep -qE '^[0-9]+: 1:\[2\]  main > stuck$' "$dir/stacks" ||
        errs+=("no class of rank 2 alone in main > stuck")
    grep -qE '^[0-9]+: 3:\[0-1,3\]  main > exchange$' "$dir/stacks" ||
        errs+=("no class of ranks [0-1,3] in main > exchange")
    grep -qE '^  stuck  1:\[2\]$' "$dir/stacks" ||
        errs+=("the tree has no node 'stuck  1:[2]'")
    grep -qE '^main  4:\[0-3\]$' "$dir/stacks" ||
        errs+=("the tree's root is not 'main  4:[0-3]'")
    if [ ${#errs[@]} -eq 0 ]; then
        pass "$name stacks"
    else
        fail "$name stacks"
        printf '    %s\n' "${errs[@]}"
        sed 's/^/    | /' "$dir/stacks" | head -20
    fi
}

case " ${MPI_IMPLS:-mpich openmpi} " in
    *" mpich "*) with_mpich=yes ;;
    *)           with_mpich=no ;;
esac
if [ $with_mpich = no ]; then
    skip "diverge, hybrid: mpich not in MPI_IMPLS"
elif ! command -v mpicc.mpich > /dev/null || ! command -v mpirun.mpich > /dev/null; then
    skip "diverge, hybrid: mpicc.mpich/mpirun.mpich not installed"
else
    bin=$work/bin-mpich
    mkdir -p "$bin"
    if ! mpicc.mpich -O0 -g -fno-inline -o "$bin/diverge" "$here/diverge.c" 2> "$bin/diverge.err"; then
        fail "mpich: mpicc.mpich cannot build diverge.c"; cat "$bin/diverge.err"
    else
        run_app mpich-diverge-form2 mpich 2 "$bin/diverge" --images=main &&
            check_diverge mpich-diverge-form2 "$work/mpich-diverge-form2"
        # every image traced: the library's internals differ between ranks,
        # the classes must still name rank 2 alone
        run_app mpich-diverge-all-form2 mpich 2 "$bin/diverge" &&
            check_diverge mpich-diverge-all-form2 "$work/mpich-diverge-all-form2" all
    fi
    if ! mpicc.mpich -O0 -g -fno-inline -o "$bin/hang" "$here/hang.c" 2> "$bin/hang.err"; then
        fail "mpich: mpicc.mpich cannot build hang.c"; cat "$bin/hang.err"
    else
        check_hang mpich-hang-form2 "$bin/hang"
    fi
    if ! mpicc.mpich -fopenmp -O0 -g -fno-inline -o "$bin/hybrid" "$here/hybrid.c" 2> "$bin/hybrid.err"; then
        fail "mpich: mpicc.mpich -fopenmp cannot build hybrid.c"; cat "$bin/hybrid.err"
    else
        name=mpich-hybrid-form2
        dir=$work/$name
        mkdir -p "$dir"
        t0=$(date +%s)
        (cd "$dir" && OMP_NUM_THREADS=$HYB_THREADS timeout 300 mpirun.mpich -np $HYB_NP \
            "$VALGRIND" --tool=parlot -q "$bin/hybrid") > "$dir/out" 2> "$dir/err"
        rc=$?
        echo "    $name: mpirun exit $rc in $(($(date +%s) - t0)) s"
        if [ $rc -ne 0 ]; then
            fail "$name (mpirun exit $rc)"
            sed 's/^/    | /' "$dir/err" | tail -15
        else
            check_hybrid "$name" "$dir" "$bin/hybrid"
        fi
    fi
fi

# Debian's hpcc (linked with the default MPI, Open MPI on Debian 12), tiny
# problem, form 2: 4 labelled rank traces that all decode.
if [ "${MPI_TESTS_HPCC:-yes}" = no ]; then
    skip "hpcc: MPI_TESTS_HPCC=no"
elif ! command -v hpcc > /dev/null || [ ! -f /usr/share/doc/hpcc/examples/_hpccinf.txt ]; then
    skip "hpcc: not installed (scripts/setup-debian installs it)"
else
    hpcc_mpi=$(ldd "$(command -v hpcc)" | grep -o 'libmpi[a-z]*\.so[.0-9]*' | head -1)
    case $hpcc_mpi in
        libmpich*) hpcc_impl=mpich ;;
        *)         hpcc_impl=openmpi ;;
    esac
    if ! command -v "mpirun.$hpcc_impl" > /dev/null; then
        skip "hpcc: mpirun.$hpcc_impl not installed"
    else
        dir=$work/hpcc
        mkdir -p "$dir"
        sed -e 's/^1000 \{9\}Ns/100          Ns/' -e 's/^80 \{11\}NBs/20           NBs/' \
            /usr/share/doc/hpcc/examples/_hpccinf.txt > "$dir/hpccinf.txt"
        t0=$(date +%s)
        (cd "$dir" && timeout 300 $(mpirun_cmd $hpcc_impl) -np $NP \
            "$VALGRIND" --tool=parlot -q hpcc) > "$dir/out" 2> "$dir/err"
        rc=$?
        echo "    hpcc-$hpcc_impl-form2: mpirun exit $rc in $(($(date +%s) - t0)) s"
        if [ $rc -ne 0 ]; then
            fail "hpcc (mpirun exit $rc)"; tail -15 "$dir/err"
        elif ! grep -q "End of HPC Challenge tests" "$dir/hpccoutf.txt" ||
             grep -q "[1-9][0-9]* tests completed and failed" "$dir/hpccoutf.txt"; then
            fail "hpcc did not complete its tests under Valgrind"
        else
            check_run "hpcc-$hpcc_impl-form2" "$dir" "$(command -v hpcc)" \
                "$hpcc_impl" 2 ""
        fi
    fi
fi

echo "mpi: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ] || exit 1
[ $passed -gt 0 ] || exit 77
exit 0
