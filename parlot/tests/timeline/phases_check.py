#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The wall-clock axis of parlot-decode --chrome against the program's own
clock: phases.c prints "PHASE NAME START_US END_US", CLOCK_REALTIME read
just before it calls NAME and just after NAME returns.

usage: phases_check.py DOC.json PHASES.txt [TOLERANCE_US]

Each phase's frame in the document (B and E of NAME, in the thread that
ran it) must begin no earlier than START - TOLERANCE and end no later than
END + TOLERANCE; the frame of work_phase, which nothing delays, must also
begin no later than START + TOLERANCE and end no earlier than END -
TOLERANCE; sleep_phase (nanosleep, 300 ms) must last at least 300 ms; the
two threads' phases overlap in time (one axis).  Default tolerance: 5 ms."""

import json
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    tol = float(sys.argv[3]) if len(sys.argv) == 4 else 5000.0
    doc = json.load(open(sys.argv[1]))
    if doc["otherData"]["time_axis"] != "wall-clock":
        print("time_axis %r, not wall-clock" % doc["otherData"]["time_axis"])
        return 1
    # the times count from a whole second, given in ns since the epoch
    origin_ns = int(doc["otherData"]["time_origin_ns"])
    if origin_ns % 1000000000:
        print("time_origin_ns %d is not a whole second" % origin_ns)
        return 1
    origin = origin_ns // 1000
    open_, spans = {}, {}
    for e in doc["traceEvents"]:
        if e["ph"] == "M":
            continue
        k = (e["pid"], e["tid"])
        if e["ph"] == "B":
            open_.setdefault(k, []).append((e["name"], e["ts"]))
        else:
            name, t0 = open_[k].pop()
            spans.setdefault(name, []).append((k, t0, e["ts"]))
    phases, bad = {}, []
    for line in open(sys.argv[2]):
        f = line.split()
        if len(f) != 4 or f[0] != "PHASE":
            continue
        name, a, b = f[1], int(f[2]) - origin, int(f[3]) - origin
        if len(spans.get(name, [])) != 1:
            bad.append("%s: %d frames" % (name, len(spans.get(name, []))))
            continue
        k, t0, t1 = spans[name][0]
        phases[name] = (k, t0, t1)
        print("%s (thread %d): begins %+.1f us, ends %+.1f us from the "
              "program's readings; %.1f ms" % (name, k[1], t0 - a, t1 - b,
                                             (t1 - t0) / 1000))
        if t0 < a - tol or t1 > b + tol:
            bad.append("%s outside the program's readings" % name)
        if name == "work_phase" and (t0 > a + tol or t1 < b - tol):
            bad.append("work_phase does not span the program's readings")
        if name == "sleep_phase" and t1 - t0 < 300000:
            bad.append("sleep_phase lasts %.1f ms" % ((t1 - t0) / 1000))
    if len(phases) == 2:
        (ka, a0, a1), (kb, b0, b1) = phases["work_phase"], phases["sleep_phase"]
        if ka == kb or a1 < b0 or b1 < a0:
            bad.append("the two threads' phases do not overlap")
    else:
        bad.append("phases found: %s" % sorted(phases))
    for b in bad:
        print("BAD: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
