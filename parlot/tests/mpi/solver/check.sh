#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check.sh OUTDIR NP FAULT [FAULT_RANK FAULT_ITER] [NITER]
# Check a run made by run.sh (same arguments as there, after PROG): the
# traces against the program's own counts and the fault it was told to
# inject.  Per rank:
#   - exactly one trace labelled with each rank 0..NP-1 (the PROCESS chunk,
#     read by ../trace_process.py, which shares no code with the decoder);
#   - it decodes completely (parlot-decode --events exits 0);
#   - the calls of every routine of the program (functions of the
#     executable or of libcgsolver.so; Fortran module names demangled:
#     cg_mod::dot (or __cg_mod_MOD_dot, as recorded) is dot,
#     print_counts.0 is print_counts) equal the
#     program's "rank R calls F N" lines, and every such routine in the
#     trace has a line (_start, main and MAIN__ aside);
#   - the MPI calls those routines make (calls into an object named
#     libmpi*; names compared in lower case, without trailing underscores
#     or a profiling P) equal its "mpi" and "main-mpi" lines;
#   - the structure: rescale_z, norm_check and write_report are called as
#     often as the program's loop says, and the calls made directly by
#     conj_grad call number FAULT_ITER are the same on every rank except
#     FAULT_RANK under extra and swap, where they are those of the others
#     with rescale_z added, or with an axpy and scale_vector swapped.
# Prints per rank the counts of the routines that the faults touch, and
# PASS or FAIL lines; exit 1 on a failure.
# Environment: PARLOT_DECODE (default: the installed parlot-decode).
set -u
set -o pipefail

if [ $# -lt 3 ] || [ $# -gt 6 ] || [ $# -eq 4 ]; then
    echo "usage: $0 OUTDIR NP none|extra|skip|swap [FAULT_RANK FAULT_ITER] [NITER]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
: "${PARLOT_DECODE:=$here/../../../../build/inst/bin/parlot-decode}"
dir=$1 np=$2 fault=$3 frank=${4:-2} fiter=${5:-8} niter=${6:-15}
out=$dir/stdout
work=$(mktemp -d "${TMPDIR:-/tmp}/cg-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
errs=()

python3 "$here/../trace_process.py" "$dir"/parlot.out.* > "$work/procs" ||
    errs+=("unreadable PROCESS chunk")
ranks=$(grep -o $'\tmpi_rank=[0-9]*' "$work/procs" | cut -d= -f2 | sort -n | tr '\n' ' ')
[ "$ranks" = "$(seq 0 $((np - 1)) | tr '\n' ' ')" ] ||
    errs+=("trace ranks are '$ranks', expected 0..$((np - 1)) once each")

# own routines: ORACLE-NAME COUNT; mpi: NAME COUNT; conj_grad call fiter's
# direct callees (own routines only), one line
for f in "$dir"/parlot.out.*; do
    rank=$(grep -P "^\Q$f\E\t" "$work/procs" | grep -o $'\tmpi_rank=[0-9]*' | cut -d= -f2)
    exe=$(grep -P "^\Q$f\E\t" "$work/procs" | grep -o $'\texe=[^\t]*' | cut -d= -f2)
    [ -n "$rank" ] || { errs+=("$(basename "$f"): no rank"); continue; }
    if ! "$PARLOT_DECODE" --events "$f" > "$work/events" 2> "$work/decode.err"; then
        errs+=("rank $rank: parlot-decode --events failed: $(head -2 "$work/decode.err")")
        continue
    fi
    awk -F'\t' -v exe="$(basename "$exe")" -v fiter="$fiter" \
        -v calls="$work/calls.$rank" -v mpi="$work/mpi.$rank" \
        -v body="$work/body.$rank" '
        function own(o) { sub(/.*\//, "", o); return o == exe || o == "libcgsolver.so" }
        function name(f) { sub(/^__.*_MOD_/, "", f); sub(/^.*::/, "", f); sub(/\.[0-9]+$/, "", f); return f }
        $3 == "call" {
            t = $2; d = $4; isown[t, d] = own($5)
            if (isown[t, d]) n[name($6)]++
            o = $5; sub(/.*\//, "", o)
            if (d > 1 && isown[t, d - 1] && !isown[t, d] && o ~ /^libmpi/) {
                m = tolower($6); sub(/_+$/, "", m); sub(/^pmpi_/, "mpi_", m); c[m]++
            }
            if (inbody && t == bt && d == bd + 1 && isown[t, d]) seq = seq " " name($6)
            if (name($6) == "conj_grad" && isown[t, d] && ++cg == fiter) {
                inbody = 1; bt = t; bd = d
            }
        }
        $3 == "return" && inbody && $2 == bt && $4 == bd { inbody = 0 }
        END {
            for (k in n) print k, n[k] > calls
            for (k in c) print k, c[k] > mpi
            print substr(seq, 2) > body
        }' "$work/events" || errs+=("rank $rank: reading the events failed")
    # every own routine in the trace has an oracle line
    while read -r fn cnt; do
        case $fn in _start | main | MAIN__) continue ;; esac
        grep -qE "^rank $rank calls $fn [0-9]+\$" "$out" ||
            errs+=("rank $rank: $fn ($cnt calls) in the trace, not in the program's counts")
    done < "$work/calls.$rank"
    while read -r _ r _ fn cnt; do
        [ "$r" = "$rank" ] || continue
        got=$(awk -v fn="$fn" '$1 == fn { print $2 }' "$work/calls.$rank")
        [ "${got:-0}" = "$cnt" ] ||
            errs+=("rank $rank: $fn called ${got:-0} times in the trace, $cnt by the program's count")
    done < <(grep -E '^rank [0-9]+ calls ' "$out")
    # MPI calls: "mpi" (the library's routines) and "main-mpi" (main's,
    # before the printout) together
    awk -v r="$rank" '$1 == "rank" && $2 == r && ($3 == "mpi" || $3 == "main-mpi") {
            m = tolower($4); sub(/_+$/, "", m); c[m] += $5 }
        END { for (k in c) print k, c[k] }' "$out" > "$work/wantmpi.$rank"
    while read -r fn cnt; do
        got=$(awk -v fn="$fn" '$1 == fn { print $2 }' "$work/mpi.$rank")
        [ "${got:-0}" = "$cnt" ] ||
            errs+=("rank $rank: the program's routines call $fn ${got:-0} times in the trace, $cnt by its count")
    done < "$work/wantmpi.$rank"
    [ -s "$work/wantmpi.$rank" ] || errs+=("rank $rank: the program printed no MPI counts")
done

# the structure, from the program's loop: rescale_z every 3rd iteration,
# norm_check each, write_report on rank 0 every 5th
count() { awk -v fn="$2" '$1 == fn { print $2 }' "$work/calls.$1"; }
for ((rank = 0; rank < np; rank++)); do
    [ -f "$work/calls.$rank" ] || continue
    want_rz=$((niter / 3)) want_nc=$niter want_wr=0
    [ $rank -eq 0 ] && want_wr=$((niter / 5))
    if [ $rank -eq "$frank" ]; then
        [ "$fault" = extra ] && want_rz=$((want_rz + 1))
        [ "$fault" = skip ] && want_nc=$((want_nc - 1))
    fi
    rz=$(count $rank rescale_z) nc=$(count $rank norm_check) wr=$(count $rank write_report)
    echo "rank $rank: rescale_z ${rz:-0} norm_check ${nc:-0} write_report ${wr:-0}"
    [ "${rz:-0}" = $want_rz ] || errs+=("rank $rank: rescale_z ${rz:-0} calls, expected $want_rz")
    [ "${nc:-0}" = $want_nc ] || errs+=("rank $rank: norm_check ${nc:-0} calls, expected $want_nc")
    [ "${wr:-0}" = $want_wr ] || errs+=("rank $rank: write_report ${wr:-0} calls, expected $want_wr")
done
# conj_grad #fiter: the same calls on every rank but the faulty one
ref=
for ((rank = 0; rank < np; rank++)); do
    [ $rank -ne "$frank" ] && [ -f "$work/body.$rank" ] && { ref=$(cat "$work/body.$rank"); break; }
done
echo "conj_grad #$fiter calls (rank $rank, and every rank not shown below): $ref"
for ((rank = 0; rank < np; rank++)); do
    [ -f "$work/body.$rank" ] || continue
    b=$(cat "$work/body.$rank")
    want=$ref
    if [ $rank -eq "$frank" ]; then
        case $fault in
            # after the inner iteration's first axpy (the third one: z)
            extra) want=$(echo "$ref" | awk '{ n = 0; for (i = 1; i <= NF; i++) {
                        printf "%s%s", (i > 1 ? " " : ""), $i
                        if ($i == "axpy" && ++n == 7) printf " rescale_z" } }') ;;
            # inner iteration 3 of 5: the 3rd "scale_vector axpy" pair
            swap) want=$(echo "$ref" | awk '{ n = 0; for (i = 1; i <= NF; i++) {
                        if ($i == "scale_vector" && $(i + 1) == "axpy" && ++n == 3) {
                            $i = "axpy"; $(i + 1) = "scale_vector"; i++ } }
                        print }') ;;
        esac
    fi
    if [ "$b" != "$ref" ]; then
        echo "rank $rank: conj_grad #$fiter calls: $b"
    fi
    [ -n "$ref" ] && [ "$b" = "$want" ] ||
        errs+=("rank $rank: conj_grad #$fiter calls '$b', expected '$want'")
done

if [ ${#errs[@]} -eq 0 ]; then
    echo "PASS: $dir ($fault, rank $frank, iteration $fiter)"
else
    echo "FAIL: $dir ($fault, rank $frank, iteration $fiter)"
    printf '    %s\n' "${errs[@]}"
    exit 1
fi
