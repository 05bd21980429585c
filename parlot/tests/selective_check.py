#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Post-test checker of the selective-tracing regression tests (run by
vg_regtest as a 'post:' command, from the test directory).

The test program (selective.c) is compiled with -finstrument-functions and
linked with oracle_hooks.c, which logs every entry and exit of its
functions whatever ParLoT records.  This checker applies ParLoT's
documented recording rules to that ground truth and requires the decoded
trace (`parlot-decode --events`, marks included) to be exactly the result,
per thread:

  * the program's requests happen inside functions named for them:
    ctl_start / ctl_stop (the whole process), ctl_thread_start /
    ctl_thread_stop (the calling thread), mark_<label> (PARLOT_MARK of
    <label>); each acts after its function's entry;
  * a call is recorded if its thread records at its entry, its function
    passes --only / --hide (globs on the name), and fewer than --max-depth
    recorded frames are open; its return is recorded if its call was;
  * a thread records while its own state (thread requests) or else the
    process's (--trace-at-start, process requests, which also reset the
    threads' own states) says so, and, with --toggle-trace, while one of
    its open frames is a toggle function's (that frame's entry comes after
    the toggle turns on, its exit before it turns off);
  * when a thread starts recording, the open frames above its topmost
    recorded one that pass the rules are recorded first, outermost first
    (re-created entries);
  * a mark is listed at its place in the stream, with its occurrence
    number among the thread's marks of that label.

Only the program's own (instrumented) functions are compared; the others
ParLoT records (_start, the C library, the oracle's hooks) are left out
of both sides, except that --hide=_start is expected so that --max-depth
counts the program's frames only.

Prints one fixed verdict line on success ("selective trace matches the
oracle"), the first difference otherwise (exit 0, as parlot_check.py).
"""
import argparse
import collections
import fnmatch
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parlot_check import (CheckFailed, OracleProcess, SetupError,  # noqa
                          Symbols, run_decoder)
import glob


def glob_match(pats, name):
    # Callgrind's globs: '*' and '?' only ('[' is itself)
    return any(fnmatch.fnmatchcase(name, p.replace("[", "[[]"))
               for p in pats)


class Rules:
    def __init__(self, a):
        self.only, self.hide, self.toggle = a.only, a.hide, a.toggle
        self.max_depth = a.max_depth
        self.at_start = a.trace_at_start == "yes"

    def records(self, name):
        if self.only and not glob_match(self.only, name):
            return False
        return not glob_match(self.hide, name)


class Thread:
    def __init__(self, rules, process):
        self.rules = rules
        self.process = process          # {"on": bool}
        self.user = 0                   # 1 on, -1 off, 0 as the process
        self.stack = []                 # [name, recorded]
        self.toggles = 0
        self.active = False
        self.out = []                   # ("call"|"return", name) or
                                        # ("mark", label, occurrence)
        self.marks = collections.Counter()
        self.active = self.should()

    def should(self):
        on = self.user > 0 if self.user else self.process["on"]
        return on and (not self.rules.toggle or self.toggles > 0)

    def rec_depth(self):
        return sum(1 for _, r in self.stack if r)

    def records(self, name):
        return (self.active and self.rules.records(name)
                and (not self.rules.max_depth
                     or self.rec_depth() < self.rules.max_depth))

    def update(self):
        on = self.should()
        if on and not self.active:
            self.active = True
            top = len(self.stack)
            while top > 0 and not self.stack[top - 1][1]:
                top -= 1
            for f in self.stack[top:]:
                if self.records(f[0]):
                    f[1] = True
                    self.out.append(("call", f[0]))
        self.active = on

    def enter(self, name):
        if glob_match(self.rules.toggle, name):
            self.toggles += 1
            if self.toggles == 1:
                self.update()
        rec = self.records(name)
        self.stack.append([name, rec])
        if rec:
            self.out.append(("call", name))

    def leave(self, name):
        f = self.stack.pop()
        if f[0] != name:
            raise CheckFailed("oracle inconsistent: exit of %s, %s is open"
                              % (name, f[0]))
        if f[1]:
            self.out.append(("return", name))
        if glob_match(self.rules.toggle, name):
            self.toggles -= 1
            if self.toggles == 0:
                self.update()


def model(op, syms, rules):
    """Expected output per oracle thread of process op.  The test program
    runs each worker inside spawn() (create, then join) while its main
    thread waits: a worker's log is replayed where the main thread enters
    spawn(), with the process state of that moment."""
    process = {"on": rules.at_start}
    threads = collections.OrderedDict(
        (thr, Thread(rules, process)) for thr in op.threads)
    order = list(op.threads)

    def replay(thr):
        t = threads[thr]
        t.active = t.should()
        for kind, addr, _sp in op.threads[thr]:
            name = syms.name(addr)
            if kind == "E":
                t.enter(name)
                act(name, t, threads, process)
                if name == "spawn" and order:
                    replay(order.pop(0))
            elif kind == "X":
                t.leave(name)

    replay(order.pop(0))
    while order:
        replay(order.pop(0))
    return threads


def act(name, t, threads, process):
    if name in ("ctl_start", "ctl_stop"):
        process["on"] = name == "ctl_start"
        for u in threads.values():
            u.user = 0
        t.update()
    elif name in ("ctl_thread_start", "ctl_thread_stop"):
        t.user = 1 if name == "ctl_thread_start" else -1
        t.update()
    elif name.startswith("mark_"):
        label = name[len("mark_"):]
        t.marks[label] += 1
        t.out.append(("mark", label, t.marks[label]))


def decoded(trace, syms, pid, no_objects=()):
    """Per ParLoT thread: its calls and returns of the program's functions
    and its marks, in stream order."""
    rc, out, err = run_decoder(trace)
    if rc != 0:
        raise CheckFailed("parlot-decode --events %s failed (exit %d): %s"
                          % (trace, rc, err.strip()))
    streams = collections.OrderedDict()
    for n, line in enumerate(out.splitlines(), 1):
        f = line.split("\t", 5)
        if len(f) != 6 or int(f[0]) != pid:
            raise CheckFailed("%s: unexpected line %d: %r" % (trace, n, line))
        s = streams.setdefault(int(f[1]), [])
        if f[2] == "mark":
            s.append(("mark", f[5], int(f[3])))
        elif f[2] in ("call", "return"):
            if glob_match(no_objects, os.path.basename(f[4])):
                raise CheckFailed("%s: line %d is of an object left out: %r"
                                  % (trace, n, line))
            k = syms.key(f[4], f[5])
            if k is not None:
                s.append((f[2], syms.name(k)))
        else:
            raise CheckFailed("%s: bad event kind in line %d: %r"
                              % (trace, n, line))
    return streams


def native(prog, expect):
    """The program runs natively (the requests are no-ops) and prints what
    it prints under Valgrind."""
    env = dict(os.environ, PARLOT_ORACLE_LOG="selective_native.oracle")
    p = subprocess.run([os.path.join(".", prog)], stdout=subprocess.PIPE,
                       universal_newlines=True, env=env, timeout=60)
    for f in glob.glob("selective_native.oracle.*"):
        os.unlink(f)
    with open(expect) as fh:
        want = fh.read()
    if p.returncode != 0 or p.stdout != want:
        raise CheckFailed("native run: exit %d, output %r, want %r"
                          % (p.returncode, p.stdout, want))


def show(seq, lo, hi):
    return " | ".join(" ".join(str(x) for x in e) for e in seq[lo:hi])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prog", required=True)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--hide", action="append", default=[])
    ap.add_argument("--toggle", action="append", default=[])
    ap.add_argument("--max-depth", type=int, default=0)
    ap.add_argument("--trace-at-start", choices=["yes", "no"], default="yes")
    ap.add_argument("--no-object", action="append", default=[],
                    help="no event may be of an object whose file name "
                    "matches")
    ap.add_argument("--native-expect", metavar="FILE",
                    help="run the program natively too: its output must "
                    "be FILE's")
    a = ap.parse_args()
    try:
        syms = Symbols(a.prog)
        logs = sorted(p for p in glob.glob(glob.escape(a.oracle) + ".*.*"))
        if len(logs) != 1:
            raise SetupError("want one oracle log %s.<pid>.<n>, found %d"
                             % (a.oracle, len(logs)))
        op = OracleProcess(logs[0])
        want = model(op, syms, Rules(a))
        got = decoded(a.trace, syms, op.pid, a.no_object)
        unused = list(got)
        for thr, t in want.items():
            match = [g for g in unused if got[g] == t.out]
            if not match and not t.out:
                continue        # nothing recorded: maybe no line at all
            if not match:
                g = unused[0] if unused else None
                seq = got.get(g, [])
                n = 0
                while n < min(len(seq), len(t.out)) and seq[n] == t.out[n]:
                    n += 1
                raise CheckFailed(
                    "oracle thread %d (%d events) matches no ParLoT thread; "
                    "against thread %s (%d events), first difference at #%d"
                    "\n    oracle:  %s\n    parlot:  %s"
                    % (thr, len(t.out), g, len(seq), n,
                       show(t.out, max(0, n - 2), n + 4),
                       show(seq, max(0, n - 2), n + 4)))
            unused.remove(match[0])
        extra = [g for g in unused if got[g]]
        if extra:
            raise CheckFailed("ParLoT threads %s hold program events the "
                              "oracle has no thread for" % extra)
        if a.native_expect:
            native(a.prog, a.native_expect)
        print("selective trace matches the oracle")
    except SetupError as e:
        print("setup error: %s" % e)
        return 2
    except CheckFailed as e:
        print("FAILED: %s" % e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
