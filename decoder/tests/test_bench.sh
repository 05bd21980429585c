#!/bin/sh
# SPDX-License-Identifier: MIT
# Test of the benchmark driver bench/run: keeps the script working.
#
#   decoder/tests/test_bench.sh [-q]
#
# Uses $VALGRIND (make check passes the Valgrind it built; default: the
# valgrind in $PATH) and needs zstd, xz, lz4, gzip and gnuplot, as
# bench/run does; skipped (exit 77) without a Valgrind that has ParLoT.
#
# What is checked, on `bench/run --quick --workload fib` (fib(27), one run
# of each configuration):
#  - exit 0, a Targets section with a MET or NOT MET line per target;
#  - results.csv: one row per configuration (native, none, parlot-main,
#    parlot-all, parlot-nc, parlot-insns, parlot-inline, callgrind),
#    positive times, /none
#    of none = 1,
#    the fastest run's time no more than the median, its ratio to none's
#    fastest;
#    the parlot rows have events > 0, the same events under --images=all,
#    --compress=no and --collect-insns (fib is deterministic; the costs
#    add bytes), ratio = raw / stream bytes,
#    1 without compression, bytes per million events = trace / events;
#  - compressors.csv: ParLoT, ParLoT's LZZE codec alone, zstd -19, xz -9,
#    lz4 -9, gzip -9, each ratio
#    equal to the raw and compressed sizes it reports; the compressors' raw
#    input is the --compress=no run's uncompressed streams, 2 bytes per
#    event (fib's IDs are all short); ParLoT's row is the --images=all run;
#  - codec.csv: the codec alone saw the same events and bytes;
#  - files.csv: ParLoT's files are the --images=all run's, the raw files the
#    --compress=no --pack-tables=no run's (exit summaries), zstd -19 and
#    xz -9 make them smaller;
#  - startup.csv: the empty program native, under none and under ParLoT;
#    the fib target line also gives the ratio without start-up (fib(27)
#    is too short for one: "-");
#  - memory.csv: KiB per traced thread of each codec without the
#    encoder thread's batch: raw's (no model) below CCM's and LZRC's,
#    whose models are 220 and 260 KiB larger here, and LZZE's (144 KiB
#    of model) not below raw's; CCM's below its model's full size (about
#    1,200 KiB, docs/codec.md 11.8: its tables grow with the thread's
#    stream, 11.9); CCM's with the batch no less.  Each within 64 KiB,
#    128 with the batch: the peak moves by tens of KiB a thread with the
#    order the threads start and end in (beside other tests, lzze 189 and
#    raw 194 KiB were seen);
#  - slowdown.png, compression.png, bytes_per_mevent.png are PNG files;
#  - bad input: an unknown workload, --runs 0, a missing valgrind: exit
#    non-zero with one line on stderr naming the problem.
# Exit status: 0 if all passed, 1 otherwise, 77 if skipped.

. "$(dirname "$0")/testlib.sh"
BENCH=$top/bench/run
VALGRIND=${VALGRIND:-valgrind}
vg=$(command -v "$VALGRIND" 2>/dev/null)
if [ -z "$vg" ] || ! "$vg" --tool=parlot --help >/dev/null 2>&1; then
   echo "# skipped: no Valgrind with ParLoT (VALGRIND=$VALGRIND)"
   exit 77
fi
command -v python3 >/dev/null 2>&1 || { echo "python3 is needed"; exit 1; }

# ---- one quick run ----------------------------------------------------------

out=$tmp/out
TEST_TIMEOUT=${TEST_TIMEOUT:-170}
TIMEOUT=
command -v timeout >/dev/null 2>&1 && TIMEOUT="timeout $TEST_TIMEOUT"
run "$BENCH" "$tmp/stdout" "$tmp/stderr" --quick --workload fib --out "$out" \
   --valgrind "$vg"
if [ "$rc" -eq 0 ]; then
   pass "bench/run --quick --workload fib exits 0"
else
   fail "bench/run --quick --workload fib exits 0" "exit $rc" \
      "$(tail -3 "$tmp/stderr")"
   finish
fi

# fib alone: its slowdown (the benchmark's bound and issue 16's),
# Callgrind's, --collect-insns' time and bytes, zstd, latency, lz4, gzip,
# the two whole-run targets, run time
n=$(grep -cE '^  (MET|NOT MET) +' "$tmp/stdout")
if grep -q '^Targets$' "$tmp/stdout" && [ "$n" -eq 14 ]; then
   pass "the Targets section has a MET / NOT MET line per target"
else
   fail "the Targets section has a MET / NOT MET line per target" \
      "$n target lines"
fi

# check NAME PYTHON: runs the Python check (csv rows of the three files in
# res, comp, codec); it prints why it failed, or nothing
check() {
   why=$(OUT=$out python3 - <<PYEOF 2>&1
import csv, os, sys
def rows(name):
    with open(os.path.join(os.environ["OUT"], name)) as f:
        return list(csv.DictReader(f))
res, comp, codec = rows("results.csv"), rows("compressors.csv"), rows("codec.csv")
files = rows("files.csv")
start = {r["config"]: float(r["median_s"]) for r in rows("startup.csv")}
mem = {r["codec"]: float(r["kib_per_thread"]) for r in rows("memory.csv")}
cfg = {r["config"]: r for r in res}
def close(a, b):
    return abs(a - b) <= 1e-4 * max(abs(a), abs(b))
$2
PYEOF
)
   if [ -z "$why" ]; then pass "$1"; else fail "$1" "$why"; fi
}

check "results.csv: one fib row per configuration, sane times" '
names = [r["config"] for r in res]
if names != ["native", "none", "parlot-main", "parlot-all", "parlot-nc",
             "parlot-insns", "parlot-inline", "callgrind"]:
    print("configs", names)
for r in res:
    if r["workload"] != "fib" or r["processes"] != "1" or not float(r["median_s"]) > 0:
        print("bad row", r)
    if not close(float(r["vs_none"]), float(r["median_s"]) / float(cfg["none"]["median_s"])):
        print("vs_none", r)
    if not 0 < float(r["min_s"]) <= float(r["median_s"]):
        print("min_s", r)
    if not close(float(r["vs_none_min"]), float(r["min_s"]) / float(cfg["none"]["min_s"])):
        print("vs_none_min", r)
if float(cfg["none"]["vs_none"]) != 1:
    print("none vs none", cfg["none"]["vs_none"])
'

check "results.csv: parlot events, bytes, ratio, bytes per Mevent" '
for c in ("parlot-main", "parlot-all", "parlot-nc", "parlot-insns", "parlot-inline"):
    r = cfg[c]
    ev, tb = int(r["events"]), int(r["trace_bytes"])
    raw, st = int(r["raw_stream_bytes"]), int(r["stream_bytes"])
    if ev <= 0 or tb <= st or st <= 0:
        print(c, "events", ev, "trace", tb, "streams", st)
    if not close(float(r["ratio"]), raw / st):
        print(c, "ratio", r["ratio"], raw, st)
    if not close(float(r["bytes_per_mevent"]), tb * 1e6 / ev):
        print(c, "bytes per Mevent", r["bytes_per_mevent"])
    if not close(float(r["bandwidth_Bps"]), tb / float(r["median_s"])):
        print(c, "bandwidth", r["bandwidth_Bps"])
if cfg["parlot-all"]["events"] != cfg["parlot-nc"]["events"]:
    print("events all", cfg["parlot-all"]["events"], "nc", cfg["parlot-nc"]["events"])
# the costs are beside the events: the same events, more bytes
if cfg["parlot-all"]["events"] != cfg["parlot-insns"]["events"]:
    print("events all", cfg["parlot-all"]["events"], "insns", cfg["parlot-insns"]["events"])
# the encoder thread codes the same events
if cfg["parlot-all"]["events"] != cfg["parlot-inline"]["events"]:
    print("events all", cfg["parlot-all"]["events"], "inline", cfg["parlot-inline"]["events"])
if not int(cfg["parlot-insns"]["trace_bytes"]) > int(cfg["parlot-all"]["trace_bytes"]):
    print("--collect-insns wrote no more bytes")
if cfg["parlot-nc"]["raw_stream_bytes"] != cfg["parlot-nc"]["stream_bytes"]:
    print("--compress=no compressed something")
if not int(cfg["parlot-all"]["stream_bytes"]) < int(cfg["parlot-nc"]["stream_bytes"]):
    print("--compress=yes does not compress")
for c in ("native", "none", "callgrind"):
    if cfg[c]["events"] or cfg[c]["trace_bytes"]:
        print(c, "has trace numbers")
'

check "compressors.csv: ratios recomputable from the sizes; the raw stream" '
names = [r["compressor"] for r in comp]
if names != ["parlot", "parlot lzze", "zstd -19", "xz -9", "lz4 -9", "gzip -9"]:
    print("compressors", names)
nc, al = cfg["parlot-nc"], cfg["parlot-all"]
for r in comp:
    raw, c = int(r["raw_bytes"]), int(r["compressed_bytes"])
    if c <= 0 or not close(float(r["ratio"]), raw / c) or not float(r["MB_s"]) > 0:
        print("row", r)
    want = al["raw_stream_bytes"] if r["compressor"] == "parlot" else nc["raw_stream_bytes"]
    if r["raw_bytes"] != want:
        print(r["compressor"], "raw", r["raw_bytes"], "expected", want)
if comp[0]["compressed_bytes"] != al["stream_bytes"]:
    print("parlot compressed", comp[0]["compressed_bytes"], "streams", al["stream_bytes"])
if int(nc["raw_stream_bytes"]) != 2 * int(nc["events"]):
    print("raw stream", nc["raw_stream_bytes"], "events", nc["events"])
'

check "codec.csv: the codec alone on the same stream" '
k = codec[0]
if len(codec) != 1 or k["workload"] != "fib":
    print("rows", codec)
if k["events"] != cfg["parlot-nc"]["events"] or k["bytes"] != cfg["parlot-nc"]["raw_stream_bytes"]:
    print("codec saw", k["events"], k["bytes"])
if not (float(k["enc_ns"]) > 0 and float(k["ratio"]) > 1
        and float(k["max_ns"]) >= float(k["p9999_ns"]) >= float(k["p50_ns"])
        and float(k["lzze_max_ns"]) > 0):
    print("numbers", k)
'

check "files.csv: the whole run, ParLoT against the raw files compressed" '
if len(files) != 1 or files[0]["workload"] != "fib" or files[0]["files"] != "1":
    print("rows", files)
f = {k: int(v) for k, v in files[0].items() if k.endswith("bytes")}
if f["parlot_bytes"] != int(cfg["parlot-all"]["trace_bytes"]):
    print("parlot bytes", f["parlot_bytes"], "summary", cfg["parlot-all"]["trace_bytes"])
if f["raw_files_bytes"] != int(cfg["parlot-nc"]["trace_bytes"]):
    print("raw files", f["raw_files_bytes"], "summary", cfg["parlot-nc"]["trace_bytes"])
if not 0 < f["parlot_stream_bytes"] < f["parlot_bytes"]:
    print("streams", f["parlot_stream_bytes"], "of", f["parlot_bytes"])
if not (0 < f["zstd19_bytes"] < f["raw_files_bytes"] and 0 < f["xz9_bytes"] < f["raw_files_bytes"]):
    print("compressed", f)
'

check "startup.csv: the empty program, native and under Valgrind" '
if sorted(start) != ["native", "none", "parlot-all"]:
    print("configs", sorted(start))
elif not (0 < start["native"] < start["none"] and start["parlot-all"] > 0):
    print("times", start)
'
# Peak RSS moves by tens of KiB per thread between runs, which is the
# size of the smaller models: only CCM's (about 1.15 MiB) stands out, and
# raw's (a buffer and a shadow stack) once measured 15 KiB below none's.
check "memory.csv: KiB per traced thread, each codec's; raw below the models, CCM below its full model; the batch adds to it" '
batched = {r["codec"]: r["kib_per_thread_batched"] for r in rows("memory.csv")}
if sorted(mem) != ["ccm", "lzrc", "lzze", "raw"]:
    print("codecs", sorted(mem))
elif not (mem["raw"] > -64 and min(mem["ccm"], mem["lzrc"], mem["lzze"]) > 0
          and mem["raw"] + 64 < mem["ccm"] < 1200
          and mem["raw"] + 64 < mem["lzrc"] and mem["lzze"] > mem["raw"] - 64):
    print("KiB per thread", mem)
elif not batched["ccm"] or float(batched["ccm"]) < mem["ccm"] - 128 \
        or any(batched[c] for c in ("lzrc", "lzze", "raw")):
    print("with the batch", batched, "without", mem)
'
if grep -qE '^  (MET|NOT MET) +parlot --images=all / none <= 1.5 on fib\(27\).*without start-up: ([0-9]|-)' \
      "$tmp/stdout"; then
   pass "the fib target line gives the ratio without start-up"
else
   fail "the fib target line gives the ratio without start-up" \
      "$(grep 'on fib' "$tmp/stdout")"
fi

for p in slowdown compression bytes_per_mevent; do
   sig=$(head -c 8 "$out/$p.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
   if [ "$sig" = 89504e470d0a1a0a ]; then
      pass "$p.png is a PNG"
   else
      fail "$p.png is a PNG" "signature '$sig'"
   fi
done

# ---- bad input -----------------------------------------------------------------

# bad NAME REGEX ARGS...: bench/run ARGS exits non-zero, one stderr line
# "bench: " matching REGEX
bad() {
   b_name=$1 b_re=$2
   shift 2
   run "$BENCH" "$tmp/bout" "$tmp/berr" "$@"
   lines=$(wc -l <"$tmp/berr")
   if [ "$rc" -ne 0 ] && [ "$lines" -eq 1 ] && grep -Eq "^bench: $b_re" "$tmp/berr"; then
      pass "$b_name"
   else
      fail "$b_name" "exit $rc, $lines lines: $(head -c 300 "$tmp/berr")"
   fi
}
bad "unknown workload: one-line error" "unknown workload 'nosuch' \(known: fib, " \
   --quick --workload nosuch --out "$tmp/bad" --valgrind "$vg"
bad "--runs 0: one-line error" "--runs must be at least 1" \
   --quick --runs 0 --workload fib --out "$tmp/bad" --valgrind "$vg"
bad "missing valgrind: one-line error" "no valgrind at $tmp/none" \
   --quick --workload fib --out "$tmp/bad" --valgrind "$tmp/none"

finish
