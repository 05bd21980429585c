#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Post-test checker of the ParLoT regression tests (run by vg_regtest as a
'post:' command, from the test directory).

It compares ParLoT traces, decoded with `$PARLOT_DECODE --events`, against
oracles that do not depend on ParLoT:

  oracle    The ground truth logged by the program itself: every test
            program is compiled with -finstrument-functions and linked
            with oracle_hooks.c, which logs each entry/exit with the entry
            SP of the frame.  For every thread of every process, the
            decoded events of the instrumented functions (main image,
            functions whose debug info points into a test source) must be
            the oracle's sequence, event for event.  The only events the
            oracle cannot log are the exits of frames that never return
            (longjmp, exceptions without cleanups, pthread_exit, exit,
            crash).  The documented ParLoT semantics, call-stack correction
            by SP, gives them: a frame is dead as soon as an event happens
            at an entry SP at or above its own; its exit is due right
            there.  Frames still open when a thread ends may, but need not,
            get exits at the very end.  A forked child's stream must begin
            with calls recreating the stack of the forking thread.
            Options add Callgrind as a peer (per caller->callee edge call
            counts), a second ParLoT run with other options (--images,
            --compress), and specific checks (depth, thread numbering,
            distinct function count, fork stacks).

  tailcall  The tail-call program (no instrumentation possible): the
            decoded order must follow the documented semantics derived
            from the program's structure, which is verified in the binary
            with objdump.

  keepplt   --keep-plt=yes: the PLT stub main calls printf through (seen
            with objdump) must show up as a function of its own.

Every decoded stream is also checked for consistency: a call's depth is
the stack height + 1, a return matches the innermost open call (function,
object and depth), thread numbers are 1..N per process.

On success, prints one fixed verdict line per check (compared by
vg_regtest with the test's .post.exp).  On failure, prints what differs,
precisely, and exits 0 so that vg_regtest shows the difference in the
.post.diff file.  Set-up errors (PARLOT_DECODE unset, a missing file)
print a message and exit 2.

Environment:
  PARLOT_DECODE    path of parlot-decode (required)
  PARLOT_VALGRIND  valgrind launcher for the peer runs (default:
                   ../../vg-in-place, i.e. the tree vg_regtest runs)
"""

import argparse
import collections
import glob
import os
import re
import shlex
import struct
import subprocess
import sys


class SetupError(Exception):
    pass


class CheckFailed(Exception):
    pass


# --------------------------------------------------------------------------
# Environment
# --------------------------------------------------------------------------

def decoder_path():
    dec = os.environ.get("PARLOT_DECODE")
    if not dec:
        raise SetupError("PARLOT_DECODE is not set: export PARLOT_DECODE="
                         "/path/to/parlot-decode before running the tests")
    if not (os.path.isfile(dec) and os.access(dec, os.X_OK)):
        raise SetupError("PARLOT_DECODE=%s is not an executable file" % dec)
    return dec


def valgrind_cmd():
    vg = os.environ.get("PARLOT_VALGRIND")
    if vg:
        return shlex.split(vg)
    for cand in ("../../vg-in-place",):
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return [os.path.abspath(cand)]
    raise SetupError("no valgrind for the peer run: ../../vg-in-place not "
                     "found (set PARLOT_VALGRIND)")


# --------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------

Event = collections.namedtuple("Event", "pid thread kind depth obj fn")


def run_decoder(path, timeout=60):
    try:
        proc = subprocess.run([decoder_path(), "--events", "--no-demangle", path],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CheckFailed("parlot-decode --events %s hangs (no exit after "
                          "%d s)" % (path, timeout))
    if proc.returncode < 0:
        raise CheckFailed("parlot-decode --events %s crashed (signal %d)"
                          % (path, -proc.returncode))
    return (proc.returncode, proc.stdout.decode("utf-8", "replace"),
            proc.stderr.decode("utf-8", "replace"))


def check_error_line(path, err):
    """A decoding error is one line on stderr that names the file."""
    lines = err.splitlines()
    if len(lines) != 1 or path not in lines[0]:
        raise CheckFailed("parlot-decode on %s: the error must be one line "
                          "naming the file, got %r" % (path, err[:500]))


def parse_events(path, text):
    events = []
    for n, line in enumerate(text.splitlines(), 1):
        f = line.split("\t", 5)
        try:
            if len(f) != 6 or f[2] not in ("call", "return"):
                raise ValueError
            events.append(Event(int(f[0]), int(f[1]), f[2], int(f[3]),
                                f[4], f[5]))
        except ValueError:
            raise CheckFailed("%s: malformed decoder output line %d: %r"
                              % (path, n, line))
    return events


def decode(path, allow_truncated=False):
    """Decode one trace file; returns the list of events.  With
    allow_truncated (a killed process), the decoder may report an error,
    in one line, after printing what precedes it."""
    if not os.path.isfile(path):
        raise CheckFailed("trace file %s does not exist" % path)
    rc, out, err = run_decoder(path)
    if rc != 0:
        if not allow_truncated:
            raise CheckFailed("parlot-decode --events %s failed (exit %d): "
                              "%s" % (path, rc, err.strip() or "no message"))
        check_error_line(path, err)
    elif err.strip():
        raise CheckFailed("parlot-decode --events %s wrote on stderr: %s"
                          % (path, err.strip().splitlines()[0]))
    return parse_events(path, out)


def check_damaged(path):
    """Cut the trace at many offsets and flip bytes in copies of it."""
    import random
    with open(path, "rb") as f:
        data = f.read()
    rc, full, err = run_decoder(path)
    if rc != 0:
        raise CheckFailed("%s does not decode: %s" % (path, err.strip()))
    full_lines = full.splitlines()
    size = len(data)
    cuts = sorted({c for c in [0, 1, 2, 4, 8, 16, 32, 64, 100, 256]
                   + [size * k // 29 for k in range(1, 29)]
                   + [size - 1, size - 2, size - 9] if 0 <= c < size})
    damaged = path + ".cut"
    problems = []
    try:
        for cut in cuts:
            with open(damaged, "wb") as f:
                f.write(data[:cut])
            try:
                rc, out, err = run_decoder(damaged, timeout=30)
                if rc == 0:
                    problems.append("cut at %d of %d bytes: exit 0, the "
                                    "truncation is not reported"
                                    % (cut, size))
                    continue
                check_error_line(damaged, err)
                if "offset" not in err.lower():
                    problems.append("cut at %d: the error does not give the "
                                    "offset: %s" % (cut, err.strip()))
                lines = out.splitlines()
                if lines != full_lines[:len(lines)]:
                    n = common_prefix(lines, full_lines)
                    problems.append("cut at %d: output is not a prefix of "
                                    "the complete decode (line %d: %r vs "
                                    "%r)" % (cut, n + 1, lines[n:n + 1],
                                             full_lines[n:n + 1]))
            except CheckFailed as e:
                problems.append("cut at %d: %s" % (cut, e))
        rnd = random.Random(12345)
        for i in range(40):
            buf = bytearray(data)
            for _ in range(1 + i % 4):
                pos = rnd.randrange(size)
                buf[pos] ^= 1 << rnd.randrange(8)
            with open(damaged, "wb") as f:
                f.write(bytes(buf))
            try:
                rc, out, err = run_decoder(damaged, timeout=30)
                if rc != 0:
                    check_error_line(damaged, err)
            except CheckFailed as e:
                problems.append("bytes flipped (copy %d): %s" % (i, e))
    finally:
        if os.path.exists(damaged):
            os.unlink(damaged)
    if problems:
        raise CheckFailed("damaged traces:\n  " + "\n  ".join(problems[:15]))


def streams_of(events):
    """(pid, thread) -> list of events, in decoder order."""
    out = collections.OrderedDict()
    for e in events:
        out.setdefault((e.pid, e.thread), []).append(e)
    return out


def check_consistency(path, events, contiguous_threads):
    """Replaying every stream must give a valid stack."""
    errors = []
    streams = streams_of(events)
    for (pid, thr), evs in streams.items():
        stack = []
        for i, e in enumerate(evs):
            where = "%s pid %d thread %d event #%d" % (path, pid, thr, i)
            if e.kind == "call":
                if e.depth != len(stack) + 1:
                    errors.append("%s: call of %s at depth %d, but %d frames "
                                  "are open" % (where, e.fn, e.depth,
                                                len(stack)))
                stack.append((e.obj, e.fn))
            else:
                if not stack:
                    errors.append("%s: return from %s with an empty stack"
                                  % (where, e.fn))
                    continue
                if (e.obj, e.fn) != stack[-1] or e.depth != len(stack):
                    errors.append("%s: return from %s (%s) at depth %d, but "
                                  "the open frame is %s (%s) at depth %d"
                                  % (where, e.fn, e.obj, e.depth,
                                     stack[-1][1], stack[-1][0], len(stack)))
                stack.pop()
            if errors and errors[-1].startswith(where):
                break       # the rest of this stream would only cascade
    pids = collections.defaultdict(set)
    for (pid, thr) in streams:
        pids[pid].add(thr)
    for pid, thrs in pids.items():
        if 1 not in thrs:
            errors.append("%s pid %d: no thread 1 (initial thread)"
                          % (path, pid))
        if contiguous_threads and thrs != set(range(1, max(thrs) + 1)):
            missing = sorted(set(range(1, max(thrs) + 1)) - thrs)
            errors.append("%s pid %d: thread numbers not contiguous, "
                          "missing %s" % (path, pid, missing[:10]))
    if errors:
        raise CheckFailed("inconsistent stream:\n  " + "\n  ".join(errors))


# --------------------------------------------------------------------------
# Symbols of the main executable
# --------------------------------------------------------------------------

def demangle(names):
    names = list(names)
    mangled = [n for n in names if n.startswith("_Z")]
    if not mangled:
        return {n: n for n in names}
    proc = subprocess.run(["c++filt"], input="\n".join(mangled) + "\n",
                          stdout=subprocess.PIPE, universal_newlines=True,
                          check=True)
    out = dict(zip(mangled, proc.stdout.splitlines()))
    return {n: out.get(n, n) for n in names}


class Symbols:
    """Text symbols of the test executable.  Instrumented functions are
    those whose debug info points into a source other than oracle_hooks.c
    (the CRT functions, _start, _init, frame_dummy, ... have no debug info
    and are not instrumented; libc_nonshared functions neither)."""

    def __init__(self, prog, uninstrumented=()):
        self.prog = prog
        self.real = os.path.realpath(prog)
        self._main_cache = {}
        self._key_cache = {}
        if not os.path.isfile(prog):
            raise SetupError("test program %s not found: run 'make check' "
                             "in parlot/tests first" % prog)
        out = subprocess.run(["nm", "--defined-only", "-l", prog],
                             stdout=subprocess.PIPE, universal_newlines=True,
                             check=True).stdout
        raw = []
        for line in out.splitlines():
            parts = line.split("\t")
            f = parts[0].split()
            if len(f) != 3 or f[1] not in "tTwWiI":
                continue
            addr = int(f[0], 16)
            loc = parts[1] if len(parts) > 1 else ""
            raw.append((addr, f[2], loc))
        dem = demangle(n for _, n, _ in raw)
        self.names = collections.defaultdict(list)   # addr -> names
        self.addr_of = collections.defaultdict(set)  # name -> addrs
        self.instrumented = set()
        for addr, name, loc in raw:
            d = dem[name]
            self.names[addr].append(d)
            self.addr_of[name].add(addr)
            self.addr_of[d].add(addr)
            src = os.path.basename(loc.rsplit(":", 1)[0]) if loc else ""
            if src and src != "oracle_hooks.c" and \
                    src not in uninstrumented:
                self.instrumented.add(addr)

    def is_main(self, obj):
        r = self._main_cache.get(obj)
        if r is None:
            r = (obj == self.prog or os.path.realpath(obj) == self.real or
                 os.path.basename(obj) == os.path.basename(self.real))
            self._main_cache[obj] = r
        return r

    def key(self, obj, fn):
        """Address of an instrumented main-image function, else None."""
        try:
            return self._key_cache[(obj, fn)]
        except KeyError:
            k = self._key(obj, fn)
            self._key_cache[(obj, fn)] = k
            return k

    def _key(self, obj, fn):
        if not self.is_main(obj):
            return None
        fn = re.sub(r"'\d+$", "", fn)
        addrs = self.addr_of.get(fn)
        if addrs is None and fn.startswith("_Z"):
            addrs = self.addr_of.get(demangle([fn])[fn])
        if not addrs:
            return None
        inst = [a for a in addrs if a in self.instrumented]
        if inst and len(addrs) > 1:
            raise CheckFailed("function name %r is ambiguous in %s"
                              % (fn, self.prog))
        return inst[0] if inst else None

    def name(self, addr):
        if addr in self.names:
            return self.names[addr][0]
        return "0x%x" % addr


# --------------------------------------------------------------------------
# The oracle
# --------------------------------------------------------------------------

class OracleProcess:
    def __init__(self, path):
        self.path = path
        self.pid = self.ppid = None
        self.fork_seq = 0
        self.threads = collections.OrderedDict()  # thread -> [(k, addr, sp)]
        self.fork_marks = {}                      # seq -> (thread, sp, index)
        with open(path) as f:
            lines = f.read().splitlines()
        if not lines or not lines[0].startswith("P "):
            raise CheckFailed("oracle log %s has no header" % path)
        h = lines[0].split()
        self.pid, self.ppid = int(h[1]), int(h[2])
        self.fork_seq = int(h[3]) if len(h) > 3 else 0
        for n, line in enumerate(lines[1:], 2):
            f = line.split()
            if len(f) == 4 and f[0] in ("E", "X"):
                self.threads.setdefault(int(f[1]), []).append(
                    (f[0], int(f[2], 16), int(f[3], 16)))
            elif len(f) == 4 and f[0] == "F":
                t = int(f[1])
                ev = self.threads.setdefault(t, [])
                self.fork_marks[int(f[2])] = (t, int(f[3], 16), len(ev))
                ev.append(("F", int(f[2]), int(f[3], 16)))
            elif n == len(lines) and line:
                pass        # a torn last line (crash while writing): ignore
            else:
                raise CheckFailed("%s:%d: malformed oracle line %r"
                                  % (path, n, line))
        self.models = {}        # thread -> Model
        self.inherited = ()     # frames inherited at fork (thread 1)


class Model:
    """The expected filtered ParLoT stream of one thread.

    With by_sp (tests where frames are skipped: longjmp, exceptions,
    pthread_exit, exit), a frame is dead as soon as an event happens at an
    entry SP at or above its own (the stack grows down), and its exit is
    due right there.  Without it the oracle's sequence is taken as it is:
    every exit must close the innermost open frame (a signal handler on an
    alternate stack above the interrupted frames does not end them)."""

    def __init__(self, events, inherited=(), by_sp=True):
        self.seq = [("call", a) for a, _ in inherited]
        stack = list(inherited)
        self.synthetic = 0
        self.fork_stacks = {}

        def pop_dead(sp, inclusive):
            while by_sp and stack and (stack[-1][1] <= sp if inclusive
                                       else stack[-1][1] < sp):
                self.seq.append(("return", stack.pop()[0]))
                self.synthetic += 1

        for kind, addr, sp in events:
            if kind == "E":
                pop_dead(sp, True)
                stack.append((addr, sp))
                self.seq.append(("call", addr))
            elif kind == "X":
                pop_dead(sp, False)
                if not stack or stack[-1] != (addr, sp):
                    raise CheckFailed("oracle inconsistent: exit of 0x%x "
                                      "(sp 0x%x) does not match the open "
                                      "frame %s" % (addr, sp,
                                                    stack[-1:] or "none"))
                stack.pop()
                self.seq.append(("return", addr))
            else:       # fork mark: addr is the fork sequence number
                pop_dead(sp, True)
                self.fork_stacks[addr] = (tuple(stack), len(self.seq))
        self.open = tuple(stack)


def load_oracle(prefix, by_sp=True):
    paths = sorted(glob.glob(glob.escape(prefix) + ".*"),
                   key=lambda p: [int(x) if x.isdigit() else x
                                  for x in p[len(prefix):].split(".")])
    paths = [p for p in paths if re.match(r"^\.\d+\.\d+$", p[len(prefix):])]
    if not paths:
        raise SetupError("no oracle log %s.<pid>.<n>: did the program run "
                         "with PARLOT_ORACLE_LOG=%s?" % (prefix, prefix))
    procs = [OracleProcess(p) for p in paths]
    # Build the models, parents before children (fork sequence tree).
    done = set()
    pending = list(procs)
    while pending:
        progress = False
        for op in list(pending):
            parent = None
            if op.fork_seq:
                cands = [p for p in procs if p.pid == op.ppid
                         and op.fork_seq in p.fork_marks]
                if not cands:
                    raise CheckFailed("oracle: no parent log for forked "
                                      "child %s" % op.path)
                parent = cands[-1]
                if id(parent) not in done:
                    continue
            for thr, evs in op.threads.items():
                inh = ()
                if parent is not None and thr == 1:
                    pthr = parent.fork_marks[op.fork_seq][0]
                    inh = parent.models[pthr].fork_stacks[op.fork_seq][0]
                    op.inherited = inh
                op.models[thr] = Model(evs, inh, by_sp)
            if parent is not None and 1 not in op.models:
                pthr = parent.fork_marks[op.fork_seq][0]
                op.inherited = parent.models[pthr].fork_stacks[op.fork_seq][0]
                op.models[1] = Model([], op.inherited, by_sp)
            done.add(id(op))
            pending.remove(op)
            progress = True
        if not progress:
            raise CheckFailed("oracle: cyclic fork relation in logs")
    return procs


# --------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------

def filtered(evs, syms):
    out = []
    for e in evs:
        k = syms.key(e.obj, e.fn)
        if k is not None:
            out.append((e.kind, k))
    return out


def agrees(model, seq):
    """seq (filtered ParLoT) equals the model, possibly followed by
    returns that close frames the model leaves open, innermost first."""
    n = len(model.seq)
    if seq[:n] != model.seq:
        return False
    tail = seq[n:]
    open_frames = [a for a, _ in model.open]
    if len(tail) > len(open_frames):
        return False
    for i, (kind, k) in enumerate(tail):
        if kind != "return" or k != open_frames[-1 - i]:
            return False
    return True


def describe(ev, syms):
    return "%-6s %s" % (ev[0], syms.name(ev[1]))


def first_diff(model, seq, syms, label):
    n = 0
    lim = min(len(model.seq), len(seq))
    while n < lim and model.seq[n] == seq[n]:
        n += 1
    lines = ["%s: first difference at event #%d (oracle %d events, "
             "ParLoT %d events)" % (label, n, len(model.seq), len(seq))]
    lo = max(0, n - 3)
    lines.append("    oracle:  " + " | ".join(
        describe(e, syms) for e in model.seq[lo:n + 4]))
    lines.append("    parlot:  " + " | ".join(
        describe(e, syms) for e in seq[lo:n + 4]))
    if model.open:
        lines.append("    (frames open at the end in the oracle: %s)" %
                     ", ".join(syms.name(a) for a, _ in model.open[-5:]))
    return "\n".join(lines)


def common_prefix(a, b):
    n = 0
    lim = min(len(a), len(b))
    while n < lim and a[n] == b[n]:
        n += 1
    return n


def is_prefix(model, seq):
    return len(seq) <= len(model.seq) and model.seq[:len(seq)] == seq


def match_process(op, trace_events, syms, prefix_ok=False):
    """Match every oracle thread of op with a ParLoT thread of the same pid
    in one trace; returns {oracle thread: parlot thread}."""
    streams = streams_of(e for e in trace_events if e.pid == op.pid)
    fseq = {thr: filtered(evs, syms) for (pid, thr), evs in streams.items()}
    by_seq = collections.defaultdict(list)
    for thr, s in fseq.items():
        by_seq[tuple(s)].append(thr)
    used = set()
    mapping = {}
    problems = []
    reported = set()
    for othr, model in op.models.items():
        found = None
        for thr in by_seq.get(tuple(model.seq), []):
            if thr not in used:
                found = thr
                break
        if found is None and (model.open or prefix_ok):
            for thr, s in fseq.items():
                if thr not in used and (agrees(model, s) or
                                        (prefix_ok and is_prefix(model, s))):
                    found = thr
                    break
        if found is None:
            best = max((t for t in fseq if t not in used),
                       key=lambda t: common_prefix(model.seq, fseq[t]),
                       default=None)
            if best is None:
                problems.append("oracle thread %d of pid %d (%d events): no "
                                "ParLoT thread left to match"
                                % (othr, op.pid, len(model.seq)))
            else:
                reported.add(best)
                problems.append(first_diff(
                    model, fseq[best], syms,
                    "pid %d oracle thread %d vs closest ParLoT thread %d"
                    % (op.pid, othr, best)))
            continue
        used.add(found)
        mapping[othr] = found
    for thr, s in fseq.items():
        if thr not in used and thr not in reported and s:
            problems.append("pid %d ParLoT thread %d has %d events of "
                            "instrumented functions that no oracle thread "
                            "logged (first: %s)"
                            % (op.pid, thr, len(s), describe(s[0], syms)))
    if problems:
        raise CheckFailed("\n".join(problems))
    return mapping


# --------------------------------------------------------------------------
# Callgrind as a peer
# --------------------------------------------------------------------------

CG_NAME = re.compile(r"^(ob|cob|fl|fi|fe|cfi|cfl|fn|cfn)=(.*)$")
CG_COMPRESSED = re.compile(r"^\((\d+)\)(?: (.*))?$")
CG_CALLS = re.compile(r"^calls=(\d+)")


def parse_callgrind(path):
    """Returns {(caller ob, caller fn, callee ob, callee fn): calls}."""
    tables = {"ob": {}, "fl": {}, "fn": {}}
    kind_of = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl",
               "cfi": "fl", "cfl": "fl", "fn": "fn", "cfn": "fn"}
    cur = {"ob": "", "fn": ""}
    call = {"ob": None, "fn": None}
    edges = collections.Counter()
    pending_calls = None
    with open(path, errors="replace") as f:
        for line in f:
            if line[0] in "0123456789+-*":      # cost lines, most of them
                continue
            line = line.rstrip("\n")
            m = CG_NAME.match(line)
            if m:
                key, val = m.group(1), m.group(2)
                mm = CG_COMPRESSED.match(val)
                if mm:
                    tab = tables[kind_of[key]]
                    if mm.group(2) is not None:
                        tab[mm.group(1)] = mm.group(2)
                    val = tab.get(mm.group(1), val)
                if key == "ob":
                    cur["ob"] = val
                elif key == "fn":
                    cur["fn"] = val
                    call = {"ob": None, "fn": None}
                elif key == "cob":
                    call["ob"] = val
                elif key == "cfn":
                    call["fn"] = val
                continue
            m = CG_CALLS.match(line)
            if m:
                pending_calls = int(m.group(1))
                callee_ob = call["ob"] if call["ob"] is not None else cur["ob"]
                edges[(cur["ob"], cur["fn"], callee_ob, call["fn"])] += \
                    pending_calls
                call = {"ob": None, "fn": None}
    return edges


def edges_from_callgrind(path, syms):
    out = collections.Counter()
    for (ob, fn, cob, cfn), n in parse_callgrind(path).items():
        callee = syms.key(cob, cfn)
        if callee is None:
            continue
        caller = syms.key(ob, fn)
        out[(caller if caller is not None else "<other>", callee)] += n
    return out


def call_edges(events, node):
    """{(caller, callee): calls} of the decoded events, each function named
    node(event); calls from outside any frame come from "<other>"."""
    out = collections.Counter()
    for _, evs in streams_of(events).items():
        stack = []
        for e in evs:
            if e.kind == "call":
                k = node(e)
                out[(stack[-1] if stack else "<other>", k)] += 1
                stack.append(k)
            elif stack:
                stack.pop()
    return out


def edges_from_parlot(events, syms):
    out = collections.Counter()
    for (caller, callee), n in call_edges(
            events, lambda e: syms.key(e.obj, e.fn)).items():
        if callee is not None:
            out[(caller if caller is not None else "<other>", callee)] += n
    return out


def compare_edges(pe, ce, syms, skip=()):
    """Callgrind starts a signal handler on a call stack of its own and
    records no edge into it: edges into the functions in skip (the
    handlers) are left out on both sides."""
    skip_keys = set()
    for name in skip:
        skip_keys |= syms.addr_of.get(name, set())
    pe = {e: n for e, n in pe.items() if e[1] not in skip_keys}
    ce = {e: n for e, n in ce.items() if e[1] not in skip_keys}

    def nm(k):
        return k if isinstance(k, str) else syms.name(k)
    diffs = []
    for edge in sorted(set(pe) | set(ce), key=lambda e: (nm(e[0]), nm(e[1]))):
        if pe.get(edge, 0) != ce.get(edge, 0):
            diffs.append("  %s -> %s: ParLoT %d, Callgrind %d"
                         % (nm(edge[0]), nm(edge[1]), pe.get(edge, 0),
                            ce.get(edge, 0)))
    if diffs:
        raise CheckFailed("per-edge call counts differ from Callgrind's "
                          "(%d edges):\n%s" % (len(diffs), "\n".join(diffs[:40])))


# Valgrind shows these as "(below main)" (VG_(get_fnname)); the trace has
# the symbol names.
BELOW_MAIN = {"_start", "__libc_start_call_main", "__libc_start_main",
              "generic_start_main", "(below main)"}


def named_edges(edges, objects):
    """{(caller, callee): calls} named object:function for the functions of
    the given object basenames.  Code without a symbol (a PLT stub, which
    Callgrind shows as a function of its own named by its address) is
    folded into its caller when it reaches one function only."""
    def node(ob, fn):
        fn = re.sub(r"'\d+$", "", fn)
        if fn.startswith("0x") or fn == "???":
            return None
        return "%s:%s" % (os.path.basename(ob),
                          "(below main)" if fn in BELOW_MAIN else fn)
    out, anon_in, anon_out = collections.Counter(), {}, {}
    for (ob, fn, cob, cfn), n in edges.items():
        a, b = node(ob, fn), node(cob, cfn)
        if b is None:
            anon_in.setdefault((cob, cfn), []).append((a, n))
        elif a is None:
            anon_out.setdefault((ob, fn), set()).add(b)
        else:
            out[(a, b)] += n
    for anon, callers in anon_in.items():
        targets = anon_out.get(anon, set())
        if len(targets) == 1:
            for a, n in callers:
                if a is not None:
                    out[(a, next(iter(targets)))] += n
    keep = tuple(objects)
    return collections.Counter({
        (a, b): n for (a, b), n in out.items()
        if a.split(":", 1)[0] in keep and b.split(":", 1)[0] in keep
        and "(below main)" not in (a.split(":", 1)[1], b.split(":", 1)[1])})


def callgrind_profile(prog, prog_args, out, env=None):
    """Runs prog under Callgrind, writing its profile to out.  The
    program's stdout goes to a file, as vg_regtest runs it (libc asks
    isatty only of a character device, which changes libc's calls)."""
    cmd = valgrind_cmd() + ["--tool=callgrind", "--command-line-only=yes",
                            "--callgrind-out-file=" + out,
                            os.path.abspath(prog)] + prog_args
    with open(out + ".stdout", "w") as so:
        proc = subprocess.run(cmd, stdout=so, stderr=subprocess.PIPE, env=env)
    os.unlink(out + ".stdout")
    if not os.path.exists(out):
        raise CheckFailed("callgrind run failed (exit %d): %s" % (
            proc.returncode, proc.stderr.decode(errors="replace")[-2000:]))


def run_callgrind(args, prog_args, files, events, syms, name):
    out = "%s.callgrind.out" % name
    oracle = "%s.callgrind.oracle" % name
    env = dict(os.environ)
    env["PARLOT_ORACLE_LOG"] = oracle
    try:
        callgrind_profile(args.prog, prog_args, out, env)
        skip = [n for n in (args.callgrind_skip or "").split(",") if n]
        compare_edges(edges_from_parlot(events, syms),
                      edges_from_callgrind(out, syms), syms, skip)
        check_callgrind_export(files, out, syms, skip, name)
    finally:
        for p in [out] + glob.glob(glob.escape(oracle) + ".*"):
            try:
                os.unlink(p)
            except OSError:
                pass


def compare_named_edges(args, prog_args, events, libs):
    """Every caller->callee count among the main image's and libs'
    functions equals Callgrind's on the same run."""
    out = "%s.named.callgrind.out" % os.path.basename(args.prog)
    try:
        callgrind_profile(args.prog, prog_args, out)
        raw = collections.Counter()
        for (caller, callee), n in call_edges(
                events, lambda e: (e.obj, e.fn)).items():
            raw[(("", "???") if caller == "<other>" else caller)
                + callee] += n
        objs = [os.path.basename(args.prog)] + libs
        pe, ce = named_edges(raw, objs), named_edges(parse_callgrind(out), objs)
    finally:
        if os.path.exists(out):
            os.unlink(out)
    diffs = ["  %s -> %s: ParLoT %d, Callgrind %d" % (a, b, pe.get((a, b), 0),
                                                     ce.get((a, b), 0))
             for (a, b) in sorted(set(pe) | set(ce))
             if pe.get((a, b), 0) != ce.get((a, b), 0)]
    if diffs:
        raise CheckFailed("per-edge call counts differ from Callgrind's "
                          "(%d edges):\n%s" % (len(diffs), "\n".join(diffs[:40])))
    if not any(b.startswith("libc.so.6:") and a.startswith("libc.so.6:")
               for a, b in pe):
        raise CheckFailed("no edge inside libc was compared")


# --------------------------------------------------------------------------
# A second ParLoT run of the same program with other options
# --------------------------------------------------------------------------

def folded_insns(path, threads):
    """Per ParLoT thread number, parlot-decode --folded --weight=insns of
    that thread alone: the instructions run on every call path."""
    out = {}
    for t in threads:
        text, _ = run_tool([decoder_path(), "--folded", "--weight=insns",
                            "--select=*:%d" % t, path],
                           "parlot-decode --folded --weight=insns")
        out[t] = text.decode("utf-8", "replace")
    return out


def run_peer(args, prog_args, name):
    """The peer run's events, trace size and (--peer-costs) its
    instructions per call path of those threads."""
    trace = "%s.peer.trace" % name
    oracle = "%s.peer.oracle" % name
    env = dict(os.environ)
    env["PARLOT_ORACLE_LOG"] = oracle
    cmd = valgrind_cmd() + ["--tool=parlot", "--command-line-only=yes"] + \
        shlex.split(args.peer_run) + ["--parlot-out-file=" + trace,
                                      os.path.abspath(args.prog)] + prog_args
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, env=env)
    try:
        if not os.path.exists(trace):
            raise CheckFailed("peer run %s wrote no trace (exit %d): %s" % (
                " ".join(cmd), proc.returncode,
                proc.stderr.decode(errors="replace")[-2000:]))
        size = os.path.getsize(trace)
        events = decode(trace)
        costs = folded_insns(trace, args.peer_costs)
    finally:
        for p in [trace] + glob.glob(glob.escape(oracle) + ".*"):
            try:
                os.unlink(p)
            except OSError:
                pass
    return events, size, costs


def compare_costs(files, peer_costs, syms):
    """Each --peer-costs thread has the same instructions on every call
    path as in the peer run, and some on paths ending in the program."""
    if len(files) != 1:
        raise SetupError("--peer-costs needs a single-process test")
    mine = folded_insns(files[0], sorted(peer_costs))
    for t, text in mine.items():
        leaves = [line.rsplit(" ", 1) for line in text.splitlines()]
        if not any(path.split(";")[-1] in syms.addr_of and int(n) > 0
                   for path, n in leaves):
            raise CheckFailed("thread %d: no instructions on a path ending "
                              "in the program's own code" % t)
        if text != peer_costs[t]:
            raise CheckFailed("thread %d: instructions per call path differ "
                              "from the peer run's" % t)


def project(events, syms, whole):
    """Per thread, the events to compare between two runs: all of them
    (without pid), or the main-image ones without depth."""
    out = collections.OrderedDict()
    for (pid, thr), evs in streams_of(events).items():
        if whole:
            out[thr] = [(e.kind, e.depth, e.obj, e.fn) for e in evs]
        else:
            out[thr] = [(e.kind, e.fn) for e in evs if syms.is_main(e.obj)]
    return out


def compare_runs(a, b, what):
    problems = []
    for thr in sorted(set(a) | set(b)):
        sa, sb = a.get(thr, []), b.get(thr, [])
        if sa != sb:
            n = common_prefix(sa, sb)
            problems.append("thread %d: first difference at event #%d "
                            "(%d vs %d events)\n    this run: %s\n    peer:"
                            "     %s" % (thr, n, len(sa), len(sb),
                                         sa[max(0, n - 2):n + 3],
                                         sb[max(0, n - 2):n + 3]))
    if problems:
        raise CheckFailed("%s differ:\n%s" % (what, "\n".join(problems[:10])))


# --------------------------------------------------------------------------
# The 'oracle' command
# --------------------------------------------------------------------------

# --------------------------------------------------------------------------
# Summaries: parlot-decode --xml / --callgrind, parlot-annotate
# --------------------------------------------------------------------------

def run_tool(cmd, what, allow_fail=False, timeout=120):
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CheckFailed("%s hangs (no exit after %d s)" % (what, timeout))
    err = proc.stderr.decode("utf-8", "replace")
    if proc.returncode < 0 or proc.returncode > 1 or \
            (proc.returncode == 1 and not allow_fail):
        raise CheckFailed("%s failed (exit %d): %s"
                          % (what, proc.returncode, err.strip()[-1000:]))
    return proc.stdout, err


def xml_summary(files, name, killed):
    """parlot-decode --xml of the traces, validated against the schema;
    returns the parsed document."""
    import xml.etree.ElementTree as ET
    schema = os.environ.get("PARLOT_SCHEMA")
    if not schema or not os.path.isfile(schema):
        raise SetupError("PARLOT_SCHEMA (docs/parlot-callgraph.rng) is not "
                         "set or not a file")
    out = "%s.summary.xml" % name
    run_tool([decoder_path(), "--xml", "--no-demangle", "-o", out] + files,
             "parlot-decode --xml", allow_fail=killed)
    try:
        lint = subprocess.run(["xmllint", "--noout", "--relaxng", schema, out],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if lint.returncode != 0:
            raise CheckFailed("parlot-decode --xml output is not valid: %s"
                              % lint.stderr.decode(errors="replace")[-1500:])
        return ET.parse(out).getroot()
    finally:
        os.unlink(out)


def xml_counts(root):
    """{file: {(object, name): calls}} per process, and the program's
    edges {(caller object, caller name, callee object, callee name):
    calls} per file."""
    fns = {f.get("id"): (f.get("object"), f.get("mangled") or f.get("name"))
           for f in root.iter("function")}
    procs = {p.get("id"): p.get("file") for p in root.iter("process")}
    calls = collections.defaultdict(collections.Counter)
    edges = collections.defaultdict(collections.Counter)
    for t in root.iter("thread"):
        f = procs[t.get("process")]
        for fn in t.iter("fn"):
            calls[f][fns[fn.get("ref")]] += int(fn.get("calls"))
        for e in t.iter("edge"):
            caller = fns[e.get("caller")] if e.get("caller") else (None, None)
            edges[f][caller + fns[e.get("callee")]] += int(e.get("calls"))
    return calls, edges


def edges_of_events(evs):
    out = collections.Counter()
    for _, stream in streams_of(evs).items():
        stack = []
        for e in stream:
            if e.kind == "call":
                caller = stack[-1] if stack else (None, None)
                out[caller + (e.obj, e.fn)] += 1
                stack.append((e.obj, e.fn))
            elif stack:
                stack.pop()
    return out


def check_summaries(procs, matched, traces, syms, name, killed):
    """The XML summary validates against the schema; per process its call
    counts of the instrumented functions equal the -finstrument-functions
    oracle's entries (at most, for a killed process); its edges equal
    those of the decoded events (forked children aside: their inherited
    frames are events, not calls).  parlot-annotate reads the traces."""
    files = list(traces)
    calls, edges = xml_counts(xml_summary(files, name, killed))
    for op in procs:
        f = matched[id(op)][0]
        want = collections.Counter(
            addr for evs in op.threads.values() for (k, addr, _) in evs
            if k == "E" and addr in syms.instrumented)
        got = collections.Counter()
        for (obj, fn), n in calls[f].items():
            k = syms.key(obj, fn)
            if k is not None and n:
                got[k] += n
        def wrong(a):
            g, w = got.get(a, 0), want.get(a, 0)
            return g > w if killed else g != w
        bad = [(syms.name(a), got.get(a, 0), want.get(a, 0))
               for a in sorted(set(got) | set(want), key=syms.name)
               if wrong(a)]
        if bad:
            raise CheckFailed("%s: --xml call counts differ from the "
                              "oracle's (function: xml, oracle):\n%s" % (
                                  f, "\n".join("  %s: %d, %d" % b
                                               for b in bad[:40])))
        if not op.fork_seq and not killed and edges[f] != \
                edges_of_events(traces[f]):
            raise CheckFailed("%s: --xml edges differ from the decoded "
                              "events'" % f)
    annotate = os.environ.get("PARLOT_ANNOTATE")
    if not annotate:
        raise SetupError("PARLOT_ANNOTATE is not set")
    run_tool([annotate] + files, "parlot-annotate", allow_fail=killed)


def check_callgrind_export(files, real, syms, skip, name):
    """parlot-decode --callgrind agrees with a real Callgrind run per edge,
    and callgrind_annotate reads it."""
    out = "%s.export.callgrind" % name
    run_tool([decoder_path(), "--callgrind", "-o", out] + files,
             "parlot-decode --callgrind")
    try:
        compare_edges(edges_from_callgrind(out, syms),
                      edges_from_callgrind(real, syms), syms, skip)
        ca = os.path.abspath("../../callgrind/callgrind_annotate")
        if not os.path.isfile(ca):
            raise SetupError("%s not found" % ca)
        text, _ = run_tool(["perl", ca, "--inclusive=yes", "--tree=both",
                            out], "callgrind_annotate on the export")
        m = re.search(rb"^\s*([\d,]+)(?: \([^)]*\))?\s+PROGRAM TOTALS",
                      text, re.M)
        with open(out) as f:
            total = re.search(r"^(?:summary|totals): (\d+)", f.read(), re.M)
        if not m or not total or \
                int(m.group(1).replace(b",", b"")) != int(total.group(1)):
            raise CheckFailed("callgrind_annotate's PROGRAM TOTALS (%s) is "
                              "not the export's total (%s)"
                              % (m and m.group(1), total and total.group(1)))
    finally:
        os.unlink(out)


def check_end_lost(f, want):
    """The trace f of a process killed by a signal, cut before its
    PROCESS_END (type 7) as a launcher's SIGKILL right after the signal
    leaves it: --info still names the signal (its threads' ends carry it)
    and says the end was lost, with exit status 1."""
    import xml.etree.ElementTree as ET
    with open(f, "rb") as fh:
        data = fh.read()
    ends = [off for off, ctype, _ in chunks(data) if ctype == 7]
    if not ends:
        raise CheckFailed("%s: no PROCESS_END chunk" % f)
    cut = f + ".end-lost"
    with open(cut, "wb") as fh:
        fh.write(data[:ends[-1]])
    try:
        proc = subprocess.run([decoder_path(), "--info", "--xml", cut],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    finally:
        os.unlink(cut)
    tr = ET.fromstring(proc.stdout).find("trace")
    got = {k: tr.get(k) for k in ("end", "signal", "signal-name", "end-lost")}
    expect = dict(want, **{"end-lost": "yes"})
    if proc.returncode != 1 or got != expect:
        raise CheckFailed("%s cut before its PROCESS_END: exit %d, --info "
                          "says %s, expected exit 1 and %s"
                          % (f, proc.returncode, got, expect))


def check_ending(args, procs, matched, traces, syms):
    """How the process ended, as the program was made to end (--ending:
    exit:N or signal:NAME): parlot-decode --info --xml and --stacks say
    it; after a fatal signal every frame the oracle leaves open is open at
    the end of the trace (no exits made up), and with --signal-in the
    thread the signal was delivered to is inside FN."""
    import signal as pysignal
    import xml.etree.ElementTree as ET
    kind, _, what = args.ending.partition(":")
    for op in procs:
        f, mapping = matched[id(op)]
        proc = subprocess.run([decoder_path(), "--info", "--xml", f],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if proc.returncode != 0:
            raise CheckFailed("parlot-decode --info --xml %s: exit %d: %s"
                              % (f, proc.returncode,
                                 proc.stderr.decode().strip()))
        tr = ET.fromstring(proc.stdout).find("trace")
        got = {k: tr.get(k) for k in ("end", "exit-status", "signal",
                                      "signal-name", "signal-thread")}
        if kind == "exit":
            want = {"end": "exit", "exit-status": what}
        else:
            want = {"end": "signal", "signal-name": what,
                    "signal": str(int(getattr(pysignal, what)))}
        bad = {k: got[k] for k in want if got[k] != want[k]}
        if bad:
            raise CheckFailed("%s: --info says %s, the program ended with %s"
                              % (f, got, want))
        stacks = subprocess.run([decoder_path(), "--stacks", f],
                                stdout=subprocess.PIPE).stdout.decode()
        text = ("exit status %s" % what if kind == "exit" else
                "killed by %s (signal %s)" % (what, want["signal"]))
        if not re.search(r"^1:\[p%d\]  %s" % (op.pid, re.escape(text)),
                         stacks, re.M):
            raise CheckFailed("%s: --stacks does not say '%s':\n%s"
                              % (f, text, stacks))
        if kind != "signal":
            continue
        check_end_lost(f, want)
        streams = streams_of(e for e in traces[f] if e.pid == op.pid)
        for othr, thr in mapping.items():
            seq = filtered(streams[(op.pid, thr)], syms)
            if seq != op.models[othr].seq:
                raise CheckFailed(first_diff(
                    op.models[othr], seq, syms, "pid %d thread %d (killed "
                    "by %s: no exits may be made up)" % (op.pid, thr, what)))
        if args.signal_in:
            thr = int(got["signal-thread"] or 0)
            open_fns = []
            for kind_, k in filtered(streams.get((op.pid, thr), []), syms):
                if kind_ == "call":
                    open_fns.append(k)
                else:
                    open_fns.pop()
            # with --handler, the handler's frame is innermost, entered
            # from FN's
            inner = open_fns[:-1] if args.handler else open_fns
            if args.handler and (not open_fns or
                                 syms.name(open_fns[-1]) != args.handler):
                raise CheckFailed("%s: the signal went to thread %d, whose "
                                  "innermost open frame is %s, not the "
                                  "handler %s" % (f, thr, open_fns and
                                                  syms.name(open_fns[-1]),
                                                  args.handler))
            if not inner or syms.name(inner[-1]) != args.signal_in:
                raise CheckFailed("%s: the signal went to thread %d, whose "
                                  "innermost open frame is %s, not %s"
                                  % (f, thr, inner and
                                     syms.name(inner[-1]), args.signal_in))
            if what in CRASH_SIGNALS:
                check_crash_line(f, op.pid, thr, args.signal_in, what,
                                 args.handler)


CRASH_SIGNALS = ("SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT",
                 "SIGTRAP", "SIGSYS")


def check_crash_line(f, pid, thr, fn, sig, handler=None):
    """parlot-annotate's header names a crash (the program's own fault, not
    a kill from outside) where it happened: the thread the signal went to
    and a path ending in fn (then at most the one library call fn made,
    as abort), the signal handler still running if handler (the frames
    above fn are its), and the signal."""
    annotate = os.environ.get("PARLOT_ANNOTATE")
    if not annotate:
        raise SetupError("PARLOT_ANNOTATE is not set")
    out, _ = run_tool([annotate, f], "parlot-annotate", allow_fail=True)
    line = [l for l in out.decode("utf-8", "replace").splitlines()
            if l.startswith("Crashed:")]
    who = "p%d" % pid + (".%d" % thr if thr > 1 else "")
    tail = ("; in a signal handler: %s" % re.escape(handler)) if handler else ""
    want = (r"^Crashed: +\[%s\]  .*\b%s( #\d+)?( x\d+)?( > [^ >]+( #\d+)?)?"
            r"(, after \d+ calls?)?%s  \(%s\)$"
            % (re.escape(who), re.escape(fn), tail, sig))
    if len(line) != 1 or not re.match(want, line[0]):
        raise CheckFailed("%s: parlot-annotate's crash line is %s, not "
                          "[%s] ... %s (%s)" % (f, line, who, fn, sig))


def cmd_oracle(args):
    syms = Symbols(args.prog, args.uninstrumented)
    procs = load_oracle(args.oracle, args.allow_synthetic)
    prog_args = shlex.split(args.args or "")
    name = args.name or os.path.basename(args.oracle)

    # The trace files: patterns may use {pid} (pid of the first process).
    first_pid = procs[0].pid
    files = []
    for pat in args.trace:
        pat = pat.replace("{pid}", str(first_pid))
        hits = sorted(glob.glob(pat))
        if not hits:
            raise CheckFailed("no trace file matches %s" % pat)
        files.extend(h for h in hits if h not in files)
    killed = args.killed_after is not None
    traces = collections.OrderedDict((f, decode(f, killed)) for f in files)
    for f, evs in traces.items():
        if not evs:
            raise CheckFailed("%s decodes to no event at all" % f)
        check_consistency(f, evs, args.images == "all")
        if args.images == "main":
            others = sorted({e.obj for e in evs if not syms.is_main(e.obj)})
            if others:
                raise CheckFailed("%s: --images=main trace has events of "
                                  "other objects: %s" % (f, others[:5]))

    # Each oracle process (image) must match exactly one trace file.
    matched = {}          # id(op) -> (file, mapping)
    problems = []
    for op in procs:
        cands = [f for f, evs in traces.items()
                 if f not in [m[0] for m in matched.values()]
                 and any(e.pid == op.pid for e in evs)]
        if not cands:
            problems.append("no trace holds pid %d (oracle log %s)"
                            % (op.pid, op.path))
            continue
        errs = []
        for f in cands:
            try:
                matched[id(op)] = (f, match_process(op, traces[f], syms,
                                                    killed))
                break
            except CheckFailed as e:
                errs.append("%s vs %s:\n%s" % (op.path, f, e))
        else:
            problems.extend(errs)
    for pid in sorted({op.pid for op in procs}):
        images = [op for op in procs if op.pid == pid]
        holding = [f for f, evs in traces.items()
                   if any(e.pid == pid for e in evs)]
        if problems and len(holding) < len(images):
            problems.insert(0, "pid %d: the oracle logged %d process images "
                            "(exec keeps the pid) but only %d trace file(s) "
                            "hold that pid (%s): a trace was overwritten or "
                            "never written" % (pid, len(images), len(holding),
                                               ", ".join(holding)))
    if problems:
        raise CheckFailed("\n".join(problems))
    unmatched = [f for f in traces if f not in
                 [m[0] for m in matched.values()]]
    if unmatched:
        raise CheckFailed("trace files that match no oracle log: %s"
                          % unmatched)
    # Fork: the child's stream begins with the inherited stack, identical
    # (functions, objects, depths) to the forking thread's stack in the
    # parent's trace when it called the fork handler oracle_before_fork.
    if args.fork_stacks:
        check_fork_stacks(procs, matched, traces, syms)

    if args.expect_images is not None and len(procs) != args.expect_images:
        raise CheckFailed("expected %d process images, the oracle logged %d"
                          % (args.expect_images, len(procs)))
    if args.expect_files:
        want = sorted(p.replace("{pid}", str(first_pid))
                      for p in args.expect_files)
        if sorted(traces) != want:
            raise CheckFailed("trace files are %s, expected %s"
                              % (sorted(traces), want))

    all_events = [e for evs in traces.values() for e in evs]
    if args.min_depth:
        deepest = max(e.depth for e in all_events)
        if deepest < args.min_depth:
            raise CheckFailed("deepest call at depth %d < %d"
                              % (deepest, args.min_depth))
    if args.expect_distinct is not None:
        keys = {k for (_, k) in filtered(all_events, syms)}
        if len(keys) != args.expect_distinct:
            raise CheckFailed("%d distinct instrumented functions decoded, "
                              "the generator made %d"
                              % (len(keys), args.expect_distinct))
    if args.expect_threads is not None:
        for op in procs:
            f = matched[id(op)][0]
            thrs = {e.thread for e in traces[f] if e.pid == op.pid}
            if len(thrs) != args.expect_threads:
                raise CheckFailed("pid %d: %d ParLoT threads, expected %d"
                                  % (op.pid, len(thrs), args.expect_threads))
    if args.thread_tags:
        check_thread_order(procs, matched, syms, args.thread_tags)
    if args.dlreload:
        check_dlreload(traces, syms)
    if killed:
        check_killed_prefix(procs, matched, traces, syms, args.killed_after)
    print("trace matches oracle")
    if args.ending:
        check_ending(args, procs, matched, traces, syms)
        print("ending matches")
    check_summaries(procs, matched, traces, syms, name, killed)
    print("summaries match oracle")
    if args.damage:
        check_damaged(files[0])
        print("damaged traces are handled")

    if args.stream_chunks:
        check_stream_chunks(files, args.stream_chunks)

    if args.callgrind:
        if len(traces) != 1:
            raise SetupError("--callgrind needs a single-process test")
        run_callgrind(args, prog_args, list(traces), all_events, syms, name)
        print("edges match callgrind")

    if args.peer_run is not None:
        peer, peer_size, peer_costs = run_peer(args, prog_args, name)
        whole = args.peer_compare == "all"
        compare_runs(project(all_events, syms, whole),
                     project(peer, syms, whole),
                     "decoded events" if whole else "main-image events")
        if args.peer_costs:
            compare_costs(files, peer_costs, syms)
        if args.peer_smaller:
            size = sum(os.path.getsize(f) for f in traces)
            if not peer_size < size:
                raise CheckFailed("peer trace (%s) is %d bytes, not smaller "
                                  "than this run's %d bytes"
                                  % (args.peer_run, peer_size, size))
        print("peer run matches")


def chunks(data):
    """(offset, type, thread) of each chunk, by walking the chunk headers
    (docs/trace-format.md 3: 16-byte file header, then 16-byte chunk
    headers: type u8, flags u8, reserved u16, payload_len u32, thread
    u32, crc u32), not by the decoder."""
    off = 16
    while off + 16 <= len(data):
        ctype, _, _, length, thread, _ = struct.unpack_from("<BBHIII", data,
                                                            off)
        yield off, ctype, thread
        off += 16 + length


def check_stream_chunks(files, bounds):
    """Thread 1's STREAM chunks (type 5), counted by walking the chunks."""
    lo, hi = (int(x) for x in bounds.split("-"))
    if len(files) != 1:
        raise SetupError("--stream-chunks needs a single-process test")
    with open(files[0], "rb") as f:
        data = f.read()
    n = sum(ctype == 5 and thread == 1 for _, ctype, thread in chunks(data))
    if not lo <= n <= hi:
        raise CheckFailed("thread 1 has %d STREAM chunks, expected %d to %d"
                          % (n, lo, hi))
    print("thread 1 has %d to %d STREAM chunks" % (lo, hi))


def check_killed_prefix(procs, matched, traces, syms, fn):
    """After a SIGKILL, the decoded prefix must reach the first call of fn
    (everything before it happened more than a flush interval earlier)."""
    addrs = syms.addr_of.get(fn)
    if not addrs:
        raise SetupError("function %s not found" % fn)
    for op in procs:
        f, mapping = matched[id(op)]
        for othr, model in op.models.items():
            want = next((i for i, (k, a) in enumerate(model.seq)
                         if k == "call" and a in addrs), None)
            if want is None:
                continue
            got = len(filtered([e for e in traces[f] if e.pid == op.pid
                                and e.thread == mapping[othr]], syms))
            if got < want:
                raise CheckFailed("killed process: the trace stops after %d "
                                  "of the oracle's events, before the call "
                                  "of %s (event #%d): data older than the "
                                  "flush interval was lost" % (got, fn, want))


def dlreload_model():
    """dlreload.c loads A, B, A, B, ... (8 loads); the structure of the
    libraries' code (dlreload_a.c, dlreload_b.c) gives their events."""
    seq = []
    for i in range(8):
        if i & 1:
            lib = "dlreload_b.so"
            seq += [("call", lib, "entry", 1), ("call", lib, "b_first", 2),
                    ("call", lib, "b_second", 3),
                    ("return", lib, "b_second", 3),
                    ("return", lib, "b_first", 2), ("return", lib, "entry", 1)]
        else:
            lib = "dlreload_a.so"
            seq += [("call", lib, "entry", 1), ("call", lib, "a_only", 2),
                    ("return", lib, "a_only", 2), ("return", lib, "entry", 1)]
    return seq


def check_dlreload(traces, syms):
    for f, evs in traces.items():
        depth0 = None
        got = []
        for e in evs:
            if e.thread != 1:
                continue
            if e.kind == "call" and e.fn == "call_through" and \
                    syms.is_main(e.obj):
                depth0 = e.depth
            base = os.path.basename(e.obj)
            if base.startswith("dlreload_"):
                got.append((e.kind, base, e.fn,
                            e.depth - depth0 if depth0 else e.depth))
        want = dlreload_model()
        if got != want:
            n = common_prefix(got, want)
            raise CheckFailed("library events differ at #%d (%d vs %d "
                              "events)\n    expected: %s\n    decoded:  %s"
                              % (n, len(want), len(got),
                                 want[max(0, n - 2):n + 3],
                                 got[max(0, n - 2):n + 3]))


def check_fork_stacks(procs, matched, traces, syms):
    problems = []
    for op in procs:
        if not op.fork_seq:
            continue
        parent = [p for p in procs if p.pid == op.ppid
                  and op.fork_seq in p.fork_marks][-1]
        pfile, pmap = matched[id(parent)]
        cfile, cmap = matched[id(op)]
        othr = parent.fork_marks[op.fork_seq][0]
        # which fork of that thread (k-th before_fork call)?
        nth = sorted(s for s, (t, _, _) in parent.fork_marks.items()
                     if t == othr).index(op.fork_seq)
        pevs = [e for e in traces[pfile]
                if e.pid == parent.pid and e.thread == pmap[othr]]
        stack, seen, pstack = [], 0, None
        for e in pevs:
            if e.kind == "call":
                if e.fn == "oracle_before_fork" and syms.is_main(e.obj):
                    if seen == nth:
                        pstack = list(stack)
                        break
                    seen += 1
                stack.append(e)
            else:
                stack.pop()
        if pstack is None:
            problems.append("parent pid %d: no call of before_fork #%d"
                            % (parent.pid, nth))
            continue
        # keep the frames up to the deepest instrumented one, plus one
        # (the library's fork function itself)
        deepest = max((i for i, e in enumerate(pstack)
                       if syms.key(e.obj, e.fn) is not None), default=-1)
        want = [(e.depth, e.obj, e.fn) for e in pstack[:deepest + 2]]
        cevs = [e for e in traces[cfile]
                if e.pid == op.pid and e.thread == cmap.get(1, 1)]
        got = [(e.depth, e.obj, e.fn) for e in cevs[:len(want)]
               if e.kind == "call"]
        if got != want:
            n = common_prefix(got, want)
            problems.append("child pid %d does not begin with the stack "
                            "inherited from pid %d: first difference at "
                            "frame %d: child %s, parent %s"
                            % (op.pid, parent.pid, n, got[n:n + 2],
                               want[n:n + 2]))
    if problems:
        raise CheckFailed("\n".join(problems))


def check_thread_order(procs, matched, syms, tags):
    """Workers announce their creation index with calls to tag functions
    (bit 0, bit 1, MSB first); the index i-th created thread (i >= 1) must
    be ParLoT thread i + 1."""
    bit0, bit1 = [syms.addr_of.get(t) for t in tags.split(",")]
    if not bit0 or not bit1:
        raise SetupError("tag functions %s not found" % tags)
    bit0, bit1 = next(iter(bit0)), next(iter(bit1))
    problems = []
    for op in procs:
        _, mapping = matched[id(op)]
        for othr, model in op.models.items():
            bits = [1 if a == bit1 else 0 for k, a in model.seq
                    if k == "call" and a in (bit0, bit1)]
            if not bits:
                if mapping[othr] != 1:
                    problems.append("the initial thread is ParLoT thread %d"
                                    % mapping[othr])
                continue
            idx = int("".join(map(str, bits)), 2)
            if mapping[othr] != idx + 1:
                problems.append("worker created #%d is ParLoT thread %d, "
                                "expected %d" % (idx, mapping[othr], idx + 1))
    if problems:
        raise CheckFailed("thread numbers do not follow creation order:\n  "
                          + "\n  ".join(problems[:20]))


# --------------------------------------------------------------------------
# The 'tailcall' command
# --------------------------------------------------------------------------

# The program's structure (tailcall.c): who tail-calls (jmp) whom, who calls
# whom, and main's sequence of calls.
TAIL_JUMPS = [("tc_a", "tc_b"), ("tc_b", "tc_c"), ("tc_mix", "tc_b"),
              ("tc_frame", "tc_push"), ("tc_push", "tc_c"),
              ("even_t", "odd_t"), ("odd_t", "even_t"), ("tc_lib", "puts")]
PLAIN_CALLS = [("tc_mix", "tc_c"), ("tc_frame", "tc_c"), ("tc_push", "tc_c")]
# A pop right before the jump, a push as the target's first instruction
# (whose frame chasing would record too low; tc_push's own tail call to
# tc_c shows it).
POP_THEN_PUSH = [("tc_frame", "tc_push")]


def tail_model(chain_n):
    """Expected (kind, function, depth relative to main) sequence: a tail
    call makes its target a callee of the function that jumped, and the
    whole chain returns at once (as Callgrind attributes it)."""
    seq = []

    def tail_chain(first, chain, depth=1):
        frames = [first] + chain
        for i, f in enumerate(frames):
            seq.append(("call", f, depth + i))
        for i in reversed(range(len(frames))):
            seq.append(("return", frames[i], depth + i))

    def even_odd(n):
        chain, f = [], "even_t"
        while n > 0:
            f = "odd_t" if f == "even_t" else "even_t"
            chain.append(f)
            n -= 1
        tail_chain("even_t", chain)

    for _ in range(3):                                  # tc_a(i), i < 3
        tail_chain("tc_a", ["tc_b", "tc_c"])
    seq += [("call", "tc_mix", 1), ("call", "tc_c", 2),
            ("return", "tc_c", 2)]                       # tc_mix(7)
    tail_chain("tc_b", ["tc_c"], 2)
    seq.append(("return", "tc_mix", 1))
    seq += [("call", "tc_frame", 1), ("call", "tc_c", 2),
            ("return", "tc_c", 2), ("call", "tc_push", 2),
            ("call", "tc_c", 3), ("return", "tc_c", 3)]   # tc_frame(3)
    tail_chain("tc_c", [], 3)
    seq += [("return", "tc_push", 2), ("return", "tc_frame", 1)]
    even_odd(5)                                          # even_t(5)
    seq += [("call", "tc_lib", 1), ("return", "tc_lib", 1)]
    if chain_n is not None:
        even_odd(chain_n)                                # even_t(argv[1])
    return seq


def disassembly(prog):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", prog],
                         stdout=subprocess.PIPE, universal_newlines=True,
                         check=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
        elif cur and "\t" in line:
            funcs[cur].append(line.split("\t", 1)[1].strip())
    return funcs


def cmd_tailcall(args):
    funcs = disassembly(args.prog)
    problems = []
    for f, g in TAIL_JUMPS:
        body = funcs.get(f, [])
        if not any(re.match(r"^jmp\s+\S+ <%s(@plt)?>$" % g, i) for i in body):
            problems.append("%s does not tail-jump to %s in the binary"
                            % (f, g))
        if ((f, g) not in PLAIN_CALLS
                and any(re.match(r"^call\s+\S+ <%s(@plt)?>$" % g, i)
                        for i in body)):
            problems.append("%s calls %s instead of jumping" % (f, g))
    for f, g in PLAIN_CALLS:
        if not any(re.match(r"^call\s+\S+ <%s>$" % g, i)
                   for i in funcs.get(f, [])):
            problems.append("%s does not call %s in the binary" % (f, g))
    for f, g in POP_THEN_PUSH:
        body, target = funcs.get(f, []), funcs.get(g, [""])
        jumps = [i for i, x in enumerate(body)
                 if re.match(r"^jmp\s+\S+ <%s>$" % g, x)]
        if not (jumps and jumps[0] > 0 and body[jumps[0] - 1].startswith("pop")
                and target[0].startswith("push")):
            problems.append("%s does not pop right before jumping to %s, or "
                            "%s does not start with a push" % (f, g, g))
    if problems:
        raise SetupError("the compiler did not produce the structure the "
                         "test relies on: " + "; ".join(problems))

    syms = Symbols(args.prog)
    events = decode(args.trace[0])
    check_consistency(args.trace[0], events, args.images == "all")
    if args.images == "main":
        others = sorted({e.obj for e in events if not syms.is_main(e.obj)})
        if others:
            raise CheckFailed("--images=main trace has events of other "
                              "objects: %s" % others[:5])
    main_thr = [e for e in events if e.thread == 1]
    tracked = {"tc_a", "tc_b", "tc_c", "tc_mix", "tc_frame", "tc_push",
               "even_t", "odd_t", "tc_lib"}
    main_depth = [e.depth for e in main_thr
                  if e.kind == "call" and e.fn == "main"
                  and syms.is_main(e.obj)]
    if len(main_depth) != 1:
        raise CheckFailed("expected one call of main, found %d"
                          % len(main_depth))
    got = [(e.kind, e.fn, e.depth - main_depth[0]) for e in main_thr
           if syms.is_main(e.obj) and e.fn in tracked]
    want = tail_model(args.chain)
    if got != want:
        n = common_prefix(got, want)
        raise CheckFailed("tail-call sequence differs at event #%d (%d vs "
                          "%d events)\n    expected: %s\n    decoded:  %s"
                          % (n, len(want), len(got), want[max(0, n - 2):n + 3],
                             got[max(0, n - 2):n + 3]))
    # tc_lib jumps to puts through the PLT (PLT stubs are not functions):
    # puts is tc_lib's callee, after the dynamic linker's lazy binding.
    for i, e in enumerate(main_thr if args.images == "all" else []):
        if e.kind == "call" and e.fn == "tc_lib":
            rest = [x for x in main_thr[i + 1:i + 200]
                    if "/ld-linux" not in x.obj]
            nxt = rest[0] if rest else None
            if (nxt is None or nxt.kind != "call" or syms.is_main(nxt.obj)
                    or nxt.fn not in ("puts", "_IO_puts")
                    or nxt.depth != e.depth + 1):
                raise CheckFailed("after the call of tc_lib, expected the "
                                  "call of libc's puts at depth %d, got %s"
                                  % (e.depth + 1, nxt))
            break
    print("tail calls decode as documented")
    if args.callgrind:
        prog_args = [] if args.chain is None else [str(args.chain)]
        compare_named_edges(args, prog_args, events, ["libc.so.6"])
        print("edges of the program and libc match callgrind")


def cmd_keepplt(args):
    """--keep-plt=yes: main calls printf through printf@plt (a call
    instruction to the stub, verified with objdump); the stub, a function
    of its own now, jumps to printf: by the tail-call semantics the stream
    must hold "call <stub>, [PLT0, lazy binding], call printf", printf the
    stub's callee, the stub in the main image at main's callees' depth,
    under a name that is not one of the program's own functions."""
    funcs = disassembly(args.prog)
    if not any(re.match(r"^call\s+\S+ <printf@plt>$", i)
               for i in funcs.get("main", [])):
        raise SetupError("main does not call printf@plt in %s" % args.prog)
    syms = Symbols(args.prog)
    own = set(syms.addr_of)
    events = decode(args.trace[0])
    check_consistency(args.trace[0], events, True)
    thr = [e for e in events if e.thread == 1]
    mains = [e for e in thr if e.kind == "call" and e.fn == "main"
             and syms.is_main(e.obj)]
    if len(mains) != 1:
        raise CheckFailed("expected one call of main, found %d" % len(mains))
    d = mains[0].depth + 1
    calls = [i for i, e in enumerate(thr) if e.kind == "call"
             and e.fn == "printf" and e.depth == d + 1
             and not syms.is_main(e.obj)]
    if not calls:
        raise CheckFailed("no call of printf at depth %d" % (d + 1))
    i = calls[0]
    j = i - 1
    while j > 0 and thr[j].depth > d:     # lazy binding, through PLT0
        j -= 1
    stub = thr[j]
    if not (stub.kind == "call" and stub.depth == d and
            syms.is_main(stub.obj) and stub.fn not in own):
        raise CheckFailed("with --keep-plt=yes, the call of printf at depth "
                          "%d should be made by its PLT stub (a main-image "
                          "function at depth %d, not one of the program's "
                          "own); the events before it are %s"
                          % (d + 1, d, [(e.kind, e.depth, os.path.basename(
                              e.obj), e.fn) for e in thr[max(0, i - 3):i]]))
    print("PLT stubs are functions of their own")


def cmd_aliases(args):
    """Functions with several names (nm: symbols at one address).  Each is
    shown by one of its names, never by a profiling name PX or pX when X is
    another of them; its calls, under that name, are as many as the
    program made by all its names (its counts file).  With --recorded, the
    tool ran with --only on some of the names: exactly the functions having
    those names are recorded (filters match any name)."""
    syms = Symbols(args.prog)
    counts = collections.Counter()
    try:
        with open(args.counts) as fh:
            for line in fh:
                name, n = line.split()
                if name not in syms.addr_of:
                    raise SetupError("%s is not a symbol of %s"
                                     % (name, args.prog))
                counts[min(syms.addr_of[name])] += int(n)
    except OSError as e:
        raise SetupError("cannot read the program's counts: %s" % e)
    events = decode(args.trace[0])
    check_consistency(args.trace[0], events, True)
    shown = collections.defaultdict(collections.Counter)   # addr -> names
    for e in events:
        if e.kind == "call" and syms.is_main(e.obj):
            for a in syms.addr_of.get(e.fn, ()):
                shown[a][e.fn] += 1
    recorded = None
    if args.recorded:
        recorded = {min(syms.addr_of[n]) for n in args.recorded.split(",")}
    profiling_pairs = 0
    for addr, want in sorted(counts.items()):
        names = syms.names[addr]
        if recorded is not None and addr not in recorded:
            if shown.get(addr):
                raise CheckFailed("%s was recorded, though no --only "
                                  "pattern names it" % "/".join(names))
            continue
        got = shown.get(addr, collections.Counter())
        if len(got) != 1:
            raise CheckFailed("the function named %s appears under %d names "
                              "in the trace (%s), expected 1"
                              % ("/".join(names), len(got), dict(got)))
        (name, n), = got.items()
        if name[0] in "Pp" and name[1:] in names:
            raise CheckFailed("%s is shown by its profiling name %s, not %s"
                              % ("/".join(names), name, name[1:]))
        if "P" + name in names or "p" + name in names:
            profiling_pairs += 1
        if n != want:
            raise CheckFailed("%s: %d calls in the trace, the program made "
                              "%d" % (name, n, want))
    if recorded is not None:
        extra = {e.fn for e in events if e.kind == "call" and
                 not any(a in recorded for a in syms.addr_of.get(e.fn, ()))}
        if extra:
            raise CheckFailed("recorded besides the --only functions: %s"
                              % sorted(extra)[:5])
    if not profiling_pairs:
        raise CheckFailed("no function with a profiling name was checked")
    print("functions with aliases are shown by their public names")


# --------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    o = sub.add_parser("oracle")
    o.add_argument("--prog", required=True, help="the test executable")
    o.add_argument("--args", help="its arguments (for the peer runs)")
    o.add_argument("--uninstrumented", metavar="SOURCE", action="append",
                   default=[], help="a source file of the program built "
                   "without the oracle's hooks (its functions are left out "
                   "of the comparison with the oracle)")
    o.add_argument("--oracle", required=True, help="oracle log prefix")
    o.add_argument("--trace", required=True, action="append",
                   help="trace file or glob; {pid} = pid of the oracle's "
                   "first process")
    o.add_argument("--name", help="prefix of temporary files")
    o.add_argument("--images", choices=["all", "main"], default="all")
    o.add_argument("--allow-synthetic", action="store_true",
                   help="frames may be skipped (longjmp, exceptions, ...)")
    o.add_argument("--callgrind", action="store_true",
                   help="compare per-edge call counts with Callgrind's")
    o.add_argument("--callgrind-skip", metavar="F1,F2",
                   help="leave edges into these functions (signal "
                   "handlers) out of the Callgrind comparison")
    o.add_argument("--peer-run", metavar="OPTS",
                   help="run ParLoT again with OPTS and compare")
    o.add_argument("--peer-compare", choices=["all", "main"], default="main")
    o.add_argument("--peer-costs", metavar="THREAD", type=int,
                   action="append", default=[],
                   help="this ParLoT thread's instructions per call path "
                   "(--collect-insns traces) must be the peer run's")
    o.add_argument("--peer-smaller", action="store_true",
                   help="the peer's trace must be smaller than this one")
    o.add_argument("--fork-stacks", action="store_true")
    o.add_argument("--killed-after", metavar="FN",
                   help="the process was killed: the trace may be a "
                   "truncated prefix, but must reach the first call of FN")
    o.add_argument("--ending", metavar="exit:N|signal:NAME",
                   help="how the process ended (the trace must say so; "
                   "after a signal, open frames stay open)")
    o.add_argument("--signal-in", metavar="FN",
                   help="the fatal signal went to a thread inside FN")
    o.add_argument("--handler", metavar="FN",
                   help="with --signal-in: the signal's handler FN was "
                   "running, entered from the --signal-in function")
    o.add_argument("--dlreload", action="store_true",
                   help="check the events of dlreload's libraries")
    o.add_argument("--damage", action="store_true",
                   help="also decode truncated and corrupted copies")
    o.add_argument("--expect-images", type=int)
    o.add_argument("--expect-files", action="append")
    o.add_argument("--expect-threads", type=int)
    o.add_argument("--expect-distinct", type=int)
    o.add_argument("--thread-tags", help="bit0,bit1 tag functions")
    o.add_argument("--min-depth", type=int)
    o.add_argument("--stream-chunks", metavar="LO-HI",
                   help="thread 1 of the (single) trace has LO to HI "
                   "STREAM chunks, counted from the chunk headers")
    t = sub.add_parser("tailcall")
    t.add_argument("--prog", required=True)
    t.add_argument("--trace", required=True, action="append")
    t.add_argument("--images", choices=["all", "main"], default="all")
    t.add_argument("--chain", type=int,
                   help="the program's argument: even_t(N) at the end")
    t.add_argument("--callgrind", action="store_true",
                   help="compare every edge of the program and libc")
    k = sub.add_parser("keepplt")
    k.add_argument("--prog", required=True)
    k.add_argument("--trace", required=True, action="append")
    a = sub.add_parser("aliases")
    a.add_argument("--prog", required=True)
    a.add_argument("--trace", required=True, action="append")
    a.add_argument("--counts", required=True,
                   help="the program's NAME COUNT lines")
    a.add_argument("--recorded", metavar="N1,N2",
                   help="the run recorded only the functions so named")
    args = ap.parse_args()
    try:
        if args.cmd == "oracle":
            cmd_oracle(args)
        elif args.cmd == "keepplt":
            cmd_keepplt(args)
        elif args.cmd == "aliases":
            cmd_aliases(args)
        else:
            cmd_tailcall(args)
    except SetupError as e:
        print("setup error: %s" % e)
        print("parlot_check: setup error: %s" % e, file=sys.stderr)
        return 2
    except CheckFailed as e:
        print("FAILED: %s" % e)
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
