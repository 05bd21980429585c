#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks of parlot-decode --chrome and --speedscope documents against
independent oracles.

usage: timeline_check.py chrome DOC.json SCHEMA EVENTS.tsv AXIS [XML]
       (AXIS: wall-clock, instructions or events)
       timeline_check.py speedscope DOC.json SCHEMA EVENTS.tsv [XML]

EVENTS.tsv is parlot-decode --events of the same traces with the same
filters (PID THREAD call|return DEPTH OBJECT FUNCTION); AXIS is
"instructions" or "events"; XML, parlot-decode --xml of the same traces,
gives each thread's instructions (its "insns").  Checks:
  - the document is valid JSON and valid against SCHEMA (jsonschema; of
    its long lists of events, one of each shape: see sampled());
  - per thread, the begins and ends nest (never an end without a begin)
    and every frame is closed, times never go back;
  - per thread, the begins are the calls of EVENTS.tsv, in order, with
    their names, and the ends as many as the returns plus the frames
    left open;
  - the time axis: with events, each begin and end is at its event's
    number in the thread (the line number of the thread's events, when no
    range filter is given); with instructions, the thread's last time is
    its instructions (XML's insns), at 1000 per unit for Chrome;
  - speedscope: each frame index is in shared.frames, whose names are the
    functions called, and endValue is the profile's last time.
Prints what differs and exits 1, or exits 0."""

import collections
import json
import sys
import xml.etree.ElementTree as ET


def fail(msg):
    print(msg)
    sys.exit(1)


# Strings whose value the schemas constrain (Chrome's "ph" and the
# metadata events' "name", speedscope's event "type"); any other string
# is constrained by its type and by being empty or not.
VALUE_KEYS = {"ph", "type", "cat"}


def shape(v, key=None, metadata=False):
    """What the schemas can tell apart in v: its types, the sign of its
    numbers (minimum 0), whether its strings are empty (minLength 1), and
    the values of VALUE_KEYS and of a metadata event's name (const)."""
    if isinstance(v, dict):
        meta = v.get("ph") == "M"
        return ("d",) + tuple(sorted((k, shape(x, k, meta)) for k, x in v.items()))
    if isinstance(v, list):
        return ("l",) + tuple(sorted(set(shape(x) for x in v), key=repr))
    if isinstance(v, str):
        return ("s", v) if key in VALUE_KEYS or (metadata and key == "name") \
            else ("s", bool(v))
    if isinstance(v, bool) or v is None:
        return (type(v).__name__,)
    return (type(v).__name__, v < 0)


def sampled(v):
    """v with each long list of objects (the events) cut to one object of
    each shape: jsonschema takes about 200 us an event, and a timeline has
    hundreds of thousands, each of whose contents the checks below compare
    with the oracle anyway."""
    if isinstance(v, dict):
        return {k: sampled(x) for k, x in v.items()}
    if isinstance(v, list):
        if len(v) > 1000 and all(isinstance(x, dict) for x in v):
            seen = {}
            for x in v:
                seen.setdefault(shape(x), x)
            return [sampled(x) for x in seen.values()]
        return [sampled(x) for x in v]
    return v


def load(path, schema_path):
    try:
        doc = json.load(open(path, encoding="utf-8"))
    except ValueError as e:
        fail("not valid JSON: %s" % e)
    try:
        import jsonschema
    except ImportError:
        fail("python3-jsonschema is not installed (scripts/setup-debian)")
    schema = json.load(open(schema_path, encoding="utf-8"))
    try:
        jsonschema.validate(sampled(doc), schema)
    except jsonschema.ValidationError as e:
        fail("invalid against %s: %s at %s" % (schema_path, e.message,
                                               list(e.absolute_path)))
    return doc


def events_of(path):
    """{(pid, thread): [(kind, function)]} from --events."""
    out = collections.OrderedDict()
    for line in open(path, encoding="utf-8", errors="surrogateescape"):
        f = line.rstrip("\n").split("\t")
        if len(f) < 6 or f[2] not in ("call", "return"):
            continue
        out.setdefault((int(f[0]), int(f[1])), []).append((f[2], f[5]))
    return out


def insns_of(path):
    """{thread number: insns} per pid from --xml (one process)."""
    root = ET.parse(path).getroot()
    pid_of = {p.get("id"): int(p.get("pid")) for p in root.iter("process")}
    return {(pid_of[t.get("process")], int(t.get("number"))): int(t.get("insns"))
            for t in root.iter("thread") if t.get("insns") is not None}


def check_thread(key, evs, want, axis, insns, scale):
    """evs: [(kind 'B'|'E', name or None, time)]; want: [(call|return, fn)]."""
    depth, last = 0, 0
    calls = [fn for k, fn in want if k == "call"]
    returns = sum(1 for k, _ in want if k == "return")
    got_calls = [n for k, n, _ in evs if k == "B"]
    if got_calls != calls:
        for i, (a, b) in enumerate(zip(got_calls, calls)):
            if a != b:
                fail("%s: begin %d is %r, --events' call %d is %r"
                     % (key, i + 1, a, i + 1, b))
        fail("%s: %d begins, --events has %d calls"
             % (key, len(got_calls), len(calls)))
    ends = 0
    for k, _, t in evs:
        if t < last:
            fail("%s: time goes back from %s to %s" % (key, last, t))
        last = t
        if k == "B":
            depth += 1
        else:
            depth -= 1
            ends += 1
            if depth < 0:
                fail("%s: an end without a begin" % (key,))
    if depth != 0:
        fail("%s: %d frames left open" % (key, depth))
    open_at_end = len(calls) - returns
    if ends != returns + open_at_end:
        fail("%s: %d ends for %d returns and %d frames open at the end"
             % (key, ends, returns, open_at_end))
    if axis == "events":
        times = [t for _, _, t in evs[:len(want)]]
        if times != list(range(1, len(want) + 1)):
            fail("%s: the times are not the events' numbers" % (key,))
    elif axis == "wall-clock":
        pass              # phases_check.py holds it against the program's clock
    elif axis == "instructions" and insns is not None:
        if key not in insns:
            fail("%s: no insns in the XML" % (key,))
        if round(last * scale) != insns[key]:
            fail("%s: last time %s x %d, the XML's insns %d"
                 % (key, last, scale, insns[key]))


def chrome(args):
    doc = load(args[0], args[1])
    want = events_of(args[2])
    axis = args[3]
    insns = insns_of(args[4]) if len(args) > 4 else None
    if doc["otherData"]["time_axis"] != axis:
        fail("time_axis %r, expected %r" % (doc["otherData"]["time_axis"], axis))
    per = collections.OrderedDict()
    names = set()
    for e in doc["traceEvents"]:
        if e["ph"] == "M":
            if e["name"] == "thread_name":
                names.add((e["pid"], e["tid"]))
            continue
        per.setdefault((e["pid"], e["tid"]), []).append(
            (e["ph"], e.get("name"), e["ts"]))
    for key in want:
        if key not in names:
            fail("%s: no thread_name" % (key,))
        check_thread(key, per.get(key, []), want[key], axis, insns, 1000)
    extra = set(per) - set(want)
    if extra:
        fail("threads not in --events: %s" % sorted(extra))
    print("ok: %d threads, %d events" % (len(want), sum(map(len, per.values()))))


def speedscope(args):
    doc = load(args[0], args[1])
    want = events_of(args[2])
    insns = insns_of(args[3]) if len(args) > 3 else None
    frames = doc["shared"]["frames"]
    profiles = doc["profiles"]
    if len(profiles) != len(want):
        fail("%d profiles for %d threads" % (len(profiles), len(want)))
    called = set()
    for prof, key in zip(profiles, want):
        evs = []
        stack = []
        for e in prof["events"]:
            if not 0 <= e["frame"] < len(frames):
                fail("%s: frame %d out of %d" % (key, e["frame"], len(frames)))
            if e["type"] == "O":
                stack.append(e["frame"])
                evs.append(("B", frames[e["frame"]]["name"], e["at"]))
                called.add(frames[e["frame"]]["name"])
            else:
                if not stack or stack.pop() != e["frame"]:
                    fail("%s: a close of frame %d that is not on top"
                         % (key, e["frame"]))
                evs.append(("E", None, e["at"]))
        if evs and prof["endValue"] != evs[-1][2]:
            fail("%s: endValue %s, last time %s" % (key, prof["endValue"],
                                                    evs[-1][2]))
        axis = ("wall-clock" if prof["unit"] == "microseconds"
                else "instructions" if insns else "events")
        check_thread(key, evs, want[key], axis, insns, 1)
    unused = [f["name"] for f in frames if f["name"] not in called]
    if unused:
        fail("frames never opened: %s" % unused[:5])
    print("ok: %d profiles, %d frames" % (len(profiles), len(frames)))


if __name__ == "__main__":
    if len(sys.argv) < 5 or sys.argv[1] not in ("chrome", "speedscope"):
        sys.exit(__doc__)
    (chrome if sys.argv[1] == "chrome" else speedscope)(sys.argv[2:])
