#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# parlot-decode --chrome and --speedscope, on real traces (the threaded
# and the solver-shaped programs of parlot/tests/costs, with and without
# --collect-insns), checked by timeline_check.py:
#   - --chrome against docs/chrome-trace.schema.json (the fields Perfetto
#     reads), --speedscope against the schema speedscope's npm package
#     ships (file-format-schema.json);
#   - per thread, begins and ends nest and close, times never go back, the
#     begins are parlot-decode --events' calls in order; the time axis is
#     the thread's instructions (its last time is its insns in --xml) or
#     its event numbers;
#   - the wall clock (--collect-time, phases.c): each phase's frame where
#     the program's own CLOCK_REALTIME readings put it (phases_check.py),
#     the threads on one axis;
#   - with --select, --depth and --range the documents stay valid and
#     shrink; a damaged trace (cut short; TIMES chunks damaged behind a
#     valid CRC) still gives a whole document, exit 1;
#   - in headless Chromium, speedscope's own viewer (npm package
#     speedscope, installed into $PARLOT_BUILDDIR/npm if missing) opens the
#     exported file: the page names the profile and shows "1/N" for the N
#     threads; a screenshot goes to $PARLOT_BUILDDIR/timeline-speedscope.png.
# Environment: VALGRIND, PARLOT_DECODE, PARLOT_BUILDDIR (default: a
# temporary directory), CC, PYTHON (default /usr/bin/python3, which has
# Debian's python3-jsonschema).  Exit status: 0 if all passed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
: "${VALGRIND:?VALGRIND must name vg-in-place or valgrind}"
: "${PARLOT_DECODE:?PARLOT_DECODE must name parlot-decode}"
CC=${CC:-cc}
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || PYTHON=python3

work=$(mktemp -d "${TMPDIR:-/tmp}/parlot-timeline.XXXXXX")
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
keep=${PARLOT_BUILDDIR:-$work}

. "$here/../e2e_lib.sh"

"$CC" -O1 -g -fno-inline -pthread -o "$work/workers" "$here/../costs/workers.c" &&
"$CC" -O1 -g -fno-inline -o "$work/iterate" "$here/../costs/iterate.c" ||
   { echo "FAIL: building the test programs"; exit 1; }
"$CC" -O1 -g -fno-inline -pthread -o "$work/phases" "$here/phases.c" ||
   { echo "FAIL: building phases.c"; exit 1; }
"$VALGRIND" --tool=parlot -q --collect-insns=yes --parlot-out-file="$work/workers.trace" \
   "$work/workers" > /dev/null 2>&1 &&
"$VALGRIND" --tool=parlot -q --parlot-out-file="$work/iterate.trace" \
   "$work/iterate" 8 > /dev/null 2>&1 ||
   { echo "FAIL: tracing the test programs"; exit 1; }

# check NAME FORMAT TRACE AXIS [FILTER...]: export, list the events with
# the same filters, compare (without --images, the timeline's default, the
# program's view, against --events --images=program)
check() {
   local name=$1 format=$2 trace=$3 axis=$4
   shift 4
   local oracle=("$@")
   case " $* " in *" --images="*) ;; *) oracle+=(--images=program) ;; esac
   "$PARLOT_DECODE" "--$format" "$@" "$trace" > "$work/$name.json" 2> "$work/$name.err" ||
      { fail "$name: parlot-decode --$format" "$(head -3 "$work/$name.err")"; return; }
   "$PARLOT_DECODE" --events "${oracle[@]}" "$trace" > "$work/$name.events" 2> /dev/null
   local xml=()
   if [ "$axis" = instructions ]; then
      "$PARLOT_DECODE" --xml "${oracle[@]}" "$trace" > "$work/$name.xml" 2> /dev/null
      xml=("$work/$name.xml")
   fi
   local schema=$top/docs/chrome-trace.schema.json args=("$axis")
   if [ "$format" = speedscope ]; then
      schema=$speedscope_schema
      args=()
   fi
   if "$PYTHON" "$here/timeline_check.py" "$format" "$work/$name.json" "$schema" \
         "$work/$name.events" "${args[@]}" "${xml[@]}" > "$work/$name.check" 2>&1; then
      pass "$name: $(cat "$work/$name.check")"
   else
      fail "$name" "$(head -5 "$work/$name.check")"
   fi
}

# speedscope's package: its schema and viewer
ss=$keep/npm/node_modules/speedscope/dist/release
if [ ! -f "$ss/index.html" ]; then
   mkdir -p "$keep/npm"
   npm install --no-audit --no-fund --prefix "$keep/npm" speedscope@1.25.0 \
      > "$work/npm.log" 2>&1 ||
      fail "npm install speedscope@1.25.0" "$(tail -3 "$work/npm.log")"
fi
speedscope_schema=$ss/file-format-schema.json

check chrome-insns chrome "$work/workers.trace" instructions
check chrome-all chrome "$work/workers.trace" instructions --images=all
# (every call: on the events axis a time is the event's number in the
# whole thread, which is 1, 2, 3... only where none is left out)
check chrome-events chrome "$work/iterate.trace" events --images=all
check speedscope-insns speedscope "$work/workers.trace" instructions
check speedscope-events speedscope "$work/iterate.trace" events --images=all
check chrome-filtered chrome "$work/workers.trace" instructions "--select=*:2-3" --depth=4 --images=main
# the wall clock (--collect-time): each phase where the program's own
# clock says, with costs (interpolation by instructions) and without (by
# events); the axis valid as the others
for c in insns events; do
   opts=(--collect-time=yes)
   [ $c = insns ] && opts+=(--collect-insns=yes)
   "$VALGRIND" --tool=parlot -q "${opts[@]}" --parlot-out-file="$work/phases-$c.trace" \
      "$work/phases" > "$work/phases-$c.out" 2> /dev/null ||
      { fail "phases ($c): traced run"; continue; }
   check "wall-$c" chrome "$work/phases-$c.trace" wall-clock
   if "$PYTHON" "$here/phases_check.py" "$work/wall-$c.json" "$work/phases-$c.out" \
         > "$work/phases-$c.check" 2>&1; then
      pass "wall clock ($c): $(tr '\n' ';' < "$work/phases-$c.check")"
   else
      fail "wall clock ($c)" "$(cat "$work/phases-$c.check")"
   fi
done
check wall-speedscope speedscope "$work/phases-insns.trace" wall-clock

# a filtered export is smaller than the whole
if [ -s "$work/chrome-filtered.json" ] &&
   [ "$(wc -c < "$work/chrome-filtered.json")" -lt "$(wc -c < "$work/chrome-insns.json")" ]; then
   pass "--select, --depth and --images bound --chrome's output ($(wc -c < "$work/chrome-filtered.json") of $(wc -c < "$work/chrome-insns.json") bytes)"
else
   fail "--select, --depth and --images do not shrink --chrome's output"
fi

# TIMES chunks damaged behind a valid CRC (parlot/tests/costs/rewrite_chunk.py)
for how in count-huge unterminated; do
   "$PYTHON" "$here/../costs/rewrite_chunk.py" "$work/phases-insns.trace" "$work/times-$how.trace" 15 "$how" > /dev/null
   "$PARLOT_DECODE" --chrome "$work/times-$how.trace" > "$work/times-$how.json" 2> "$work/times-$how.err"
   rc=$?
   if [ $rc -eq 1 ] && grep -q "TIMES chunk" "$work/times-$how.err" &&
      "$PYTHON" -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/times-$how.json" 2> /dev/null; then
      pass "a TIMES chunk with $how: exit 1, a whole document, $(head -1 "$work/times-$how.err" | cut -c1-80)"
   else
      fail "a TIMES chunk with $how" "exit $rc" "$(head -2 "$work/times-$how.err")"
   fi
done

# a damaged trace: a whole document, the error, exit 1
head -c $(( $(wc -c < "$work/workers.trace") * 2 / 3 )) "$work/workers.trace" > "$work/cut.trace"
"$PARLOT_DECODE" --chrome "$work/cut.trace" > "$work/cut.json" 2> "$work/cut.err"
rc=$?
if [ $rc -eq 1 ] && "$PYTHON" -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/cut.json" 2> /dev/null &&
   grep -q "truncated" "$work/cut.err"; then
   pass "a trace cut short: a whole JSON document, exit 1, $(head -1 "$work/cut.err" | cut -c1-70)"
else
   fail "a trace cut short" "exit $rc" "$(head -2 "$work/cut.err")"
fi

# speedscope's viewer in headless Chromium
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ] || [ ! -f "$ss/index.html" ]; then
   fail "speedscope in headless Chromium" "chromium or speedscope's package is missing (scripts/setup-debian installs chromium)"
else
   mkdir -p "$work/www"
   cp -r "$ss" "$work/www/speedscope"
   cp "$work/speedscope-insns.json" "$work/www/profile.json"
   port=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
   (cd "$work/www" && exec "$PYTHON" -m http.server "$port" --bind 127.0.0.1) > /dev/null 2>&1 &
   server=$!
   for _ in $(seq 50); do
      "$PYTHON" -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port" 2> /dev/null && break
      sleep 0.1
   done
   url="http://127.0.0.1:$port/speedscope/index.html#profileURL=http%3A%2F%2F127.0.0.1%3A$port%2Fprofile.json"
   flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
          --disable-background-networking --disable-component-update --disable-sync
          --user-data-dir="$work/chrome-profile" --virtual-time-budget=20000
          --window-size=1400,900)
   timeout 120 "$chromium" "${flags[@]}" --dump-dom "$url" > "$work/dom.html" 2> "$work/chrome.err"
   timeout 120 "$chromium" "${flags[@]}" --screenshot="$keep/timeline-speedscope.png" "$url" \
      > /dev/null 2>&1
   nprof=$(grep -c '"type":"evented"' "$work/www/profile.json")
   first=$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["profiles"][0]["name"])' \
      "$work/www/profile.json")
   if grep -qF "$first" "$work/dom.html" && grep -qE "1/$nprof\b|1 / $nprof\b" "$work/dom.html"; then
      pass "speedscope opened the export in headless Chromium: profile '$first', 1/$nprof (screenshot: $keep/timeline-speedscope.png)"
   else
      fail "speedscope did not show the export" "profile '$first', $nprof profiles" \
         "$(sed 's/<[^>]*>/ /g' "$work/dom.html" | tr -s ' \n' ' ' | cut -c1-300)"
   fi
fi

echo "# $passed passed, $failed failed"
[ "$failed" -eq 0 ]
