#!/bin/sh
# costs_peer_check.sh TRACE PROG THREAD...: runs PROG again under ParLoT
# with --collect-insns=yes --encoder-thread=no (every part and its costs
# coded on the client's thread as it fills), and checks that each THREAD
# (a ParLoT thread number) has the same instructions on every call path
# in TRACE as in that run (parlot-decode --folded --weight=insns).
set -u
trace=$1 prog=$2
shift 2
peer=$trace.peer
trap 'rm -f "$peer" "$trace".folded.*' EXIT
../../vg-in-place --tool=parlot --collect-insns=yes --encoder-thread=no \
    --parlot-out-file="$peer" "./$prog" >/dev/null 2>&1 ||
    { echo "peer run of $prog failed"; exit 1; }
for t in "$@"; do
    for f in "$trace" "$peer"; do
        "$PARLOT_DECODE" --folded --weight=insns --select="*:$t" "$f" \
            >"$trace.folded.$t.${f##*.}" || exit 1
    done
    a=$trace.folded.$t.${trace##*.} b=$trace.folded.$t.peer
    if ! grep -q compare_ints "$a"; then
        echo "thread $t: no costs of the comparator's calls"
    elif cmp -s "$a" "$b"; then
        echo "thread $t: costs match"
    else
        echo "thread $t: costs differ from the peer run's"
    fi
done
