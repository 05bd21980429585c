#!/bin/sh
# SPDX-License-Identifier: MIT
# parlot-decode --info (and --info --xml) against independent oracles.
#
#   decoder/tests/test_info.sh [-q]
#
# Uses $PARLOT_DECODE, $MAKE_TRACE and $XMLLINT (validation skipped
# without it) if set, else builds them.  Needs python3.
#
# Traces from make_trace (codecs LZRC, LZZE, RAW and mixed, a forked child,
# a truncated copy): per thread, the events and the maximum depth are
# make_trace's own listing's; the codec, the stream bytes, the end reason
# and the uncompressed size (2 bytes per word THREAD_END records), the
# table bytes (OBJECTS, FUNCTIONS and ALIASES chunks with their headers;
# the extras trace has aliases, unknown chunks and a later minor) and the
# file size come from a chunk walker written here from the format
# document, not from the decoder; the totals are their sums.  The XML
# form validates against docs/parlot-info.rng and holds the same numbers
# as the text.  A truncated trace: its threads decoded as far as they go
# (events counted by decoding), the truncation reported in one line, exit
# status 1.  Filters with --info: a usage error.
. "$(dirname "$0")/testlib.sh"

command -v python3 >/dev/null 2>&1 || { echo "# python3 is needed"; exit 1; }
need_tool parlot-decode make_trace
RNG=$here/../../docs/parlot-info.rng

cat >"$tmp/oracle.py" <<'EOF'
"""oracle.py TRACE LISTING INFO_XML: compare one trace's entry of the
--info --xml document with the chunk walk and the listing."""
import os, struct, sys, collections
import xml.etree.ElementTree as ET

trace, listing, doc = sys.argv[1:4]
data = open(trace, "rb").read()
assert data[:8] == b"\x89PARLOT\n"
codecs = {1: "lzze", 2: "raw", 3: "lzrc", 4: "ccm1", 5: "ccm2", 6: "ccm3", 7: "ccm4", 8: "ccm5", 9: "ccm"}
threads = collections.OrderedDict()
tables = chunks = framing = 0
off = 16
while off + 16 <= len(data):
    typ, _, _, n, thr, _ = struct.unpack_from("<BBHIII", data, off)
    if off + 16 + n > len(data):
        break
    p = data[off + 16: off + 16 + n]
    chunks += 1
    framing += 16 + (16 if typ == 5 else 0)
    # table chunks; PACKED_TABLE (12) exists from format 2.0
    if typ in (2, 3, 11) or (typ == 12 and data[8] >= 2):
        tables += 16 + n
    elif typ == 4:
        threads[thr] = {"codec": codecs[struct.unpack_from("<I", p, 12)[0]],
                        "stream": 0, "chunks": 0, "end": "open", "raw": None}
    elif typ == 5:
        threads[thr]["stream"] += n - 16
        threads[thr]["chunks"] += 1
    elif typ == 6:
        words = struct.unpack_from("<Q", p, 8)[0]
        reason = struct.unpack_from("<I", p, 36)[0]
        threads[thr]["end"] = {1: "exit", 2: "process-exit",
                               3: "signal"}.get(reason, "other")
        threads[thr]["raw"] = 2 * words
    off += 16 + n
ev = collections.Counter()
depth = collections.Counter()
for line in open(listing):
    f = line.rstrip("\n").split("\t")
    t = int(f[1])
    ev[t] += 1
    depth[t] = max(depth[t], int(f[3]))

root = ET.parse(doc).getroot()
tr = [x for x in root.iter("trace") if x.get("file") == trace]
if len(tr) != 1:
    sys.exit("no single <trace> for %s" % trace)
tr = tr[0]
bad = []
def want(what, got, exp):
    if str(got) != str(exp):
        bad.append("%s: %s, want %s" % (what, got, exp))
want("file-bytes", tr.get("file-bytes"), os.path.getsize(trace))
want("table-bytes", tr.get("table-bytes"), tables)
want("chunks", tr.get("chunks"), chunks)
want("framing-bytes", tr.get("framing-bytes"), framing)
xt = {int(x.get("number")): x for x in tr.iter("thread")}
want("threads", sorted(xt), sorted(threads))
for n, t in threads.items():
    x = xt.get(n)
    if x is None:
        continue
    want("thread %d codec" % n, x.get("codec"), t["codec"])
    want("thread %d stream-bytes" % n, x.get("stream-bytes"), t["stream"])
    want("thread %d chunks" % n, x.get("chunks"), t["chunks"])
    want("thread %d end" % n, x.get("end"), t["end"])
    want("thread %d uncompressed" % n, x.get("uncompressed-bytes"),
         t["raw"])
    want("thread %d events" % n, x.get("events"), ev[n])
    want("thread %d max-depth" % n, x.get("max-depth"), depth[n])
if bad:
    sys.exit("; ".join(bad[:4]))
print("%d threads" % len(threads))
EOF

cat >"$tmp/totals.py" <<'EOF'
"""totals.py INFO_XML: the total is the sum of the traces' threads."""
import sys
import xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
th = list(r.iter("thread"))
tot = r.find("total")
s = lambda k: sum(int(t.get(k)) for t in th)
exp = {"traces": len(list(r.iter("trace"))), "threads": len(th),
       "events": s("events"), "stream-bytes": s("stream-bytes"),
       "table-bytes": sum(int(t.get("table-bytes")) for t in r.iter("trace")),
       "chunks": sum(int(t.get("chunks")) for t in r.iter("trace")),
       "framing-bytes": sum(int(t.get("framing-bytes"))
                            for t in r.iter("trace")),
       "file-bytes": sum(int(t.get("file-bytes")) for t in r.iter("trace"))}
bad = ["%s %s != %s" % (k, tot.get(k), v) for k, v in exp.items()
       if int(tot.get(k)) != v]
sys.exit("; ".join(bad)) if bad else print("totals agree")
EOF

# ---- traces ------------------------------------------------------------------
i=0
files=
for args in "--codec ccm" "--codec ccm5" "--codec ccm4" "--codec ccm3" "--codec ccm2" "--codec ccm1" "--codec lzrc" "--codec lzze" "--codec raw" \
            "--codec mixed" "--codec ccm --fork 5" "--codec lzrc --variant extras"; do
   i=$((i + 1))
   # shellcheck disable=SC2086
   "$MAKE_TRACE" --seed $((40 + i)) --threads 3 --events 600 --deep 0 $args \
      "$tmp/t$i.trace" "$tmp/t$i.list" "$tmp/t$i.exp" 2>"$tmp/mk.err" ||
      { fail "make_trace $args" "$(cat "$tmp/mk.err")"; continue; }
   files="$files $tmp/t$i.trace"
done

# shellcheck disable=SC2086
run "$PARLOT_DECODE" "$tmp/info.xml" "$tmp/err" --info --xml $files
[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && pass "--info --xml of $i traces: exit 0" ||
   fail "--info --xml" "exit $rc: $(head -2 "$tmp/err")"
if [ -n "${XMLLINT:-}" ] || command -v xmllint >/dev/null 2>&1; then
   ${XMLLINT:-xmllint} --noout --relaxng "$RNG" "$tmp/info.xml" 2>"$tmp/lint" &&
      pass "--info --xml validates against parlot-info.rng" ||
      fail "--info --xml validates" "$(head -3 "$tmp/lint")"
fi
for k in $(seq "$i"); do
   out=$(python3 "$tmp/oracle.py" "$tmp/t$k.trace" "$tmp/t$k.list" \
         "$tmp/info.xml" 2>&1) &&
      pass "trace $k: every number is the oracle's ($out)" ||
      fail "trace $k" "$out"
done
out=$(python3 "$tmp/totals.py" "$tmp/info.xml" 2>&1) && pass "$out" ||
   fail "totals" "$out"

# the text form holds the same numbers: each thread row's events, stream
# bytes and chunks, each trace's framing, and the total line
# shellcheck disable=SC2086
run "$PARLOT_DECODE" "$tmp/info.txt" "$tmp/err" --info $files
want=$(python3 - "$tmp/info.xml" <<'EOF'
import sys
import xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
for t in r.iter("thread"):
    print("%s %s %s" % (format(int(t.get("events")), ","),
                        format(int(t.get("stream-bytes")), ","),
                        format(int(t.get("chunks")), ",")))
for t in r.iter("trace"):
    print("framing %s bytes in %s chunks" % (
        format(int(t.get("framing-bytes")), ","),
        format(int(t.get("chunks")), ",")))
EOF
)
got=$(awk '$1 ~ /^[0-9]+$/ && NF >= 7 { print $4, $6, $NF }' "$tmp/info.txt"
      sed -n 's/.*; \(framing [0-9,]* bytes in [0-9,]* chunks\);.*/\1/p' "$tmp/info.txt")
[ $rc -eq 0 ] && [ "$got" = "$want" ] &&
   grep -q "^== total: $i traces, $((3 * i)) threads" "$tmp/info.txt" &&
   pass "the text form lists the same threads and totals" ||
   fail "text form" "want: $(echo "$want" | head -3 | tr '\n' ' ')" \
      "got:  $(echo "$got" | head -3 | tr '\n' ' ')"

# ---- a truncated trace: decoded as far as it goes --------------------------
size=$(wc -c <"$tmp/t1.trace")
head -c $((size * 2 / 3)) "$tmp/t1.trace" >"$tmp/cut.trace"
run "$PARLOT_DECODE" "$tmp/cut.xml" "$tmp/err" --info --xml "$tmp/cut.trace"
n=$(wc -l <"$tmp/err")
opens=$(grep -c 'end="open"' "$tmp/cut.xml")
[ $rc -eq 1 ] && [ "$n" -eq 1 ] && grep -q 'end="truncated"' "$tmp/cut.xml" &&
   [ "$opens" -ge 1 ] &&
   pass "truncated trace: listed ($opens threads still open), one line, exit 1" ||
   fail "truncated trace" "exit $rc, $n lines, $opens open" "$(head -2 "$tmp/err")"

run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" --info --only='x*' "$tmp/t1.trace"
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
   pass "--info with a filter: usage error" ||
   fail "--info with a filter" "exit $rc: $(cat "$tmp/err")"

finish
