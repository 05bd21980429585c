# SPDX-License-Identifier: MIT
"""Read ParLoT traces (valgrind --tool=parlot) from Python, over libparlot.

    import parlot
    with parlot.open("run/") as run:           # a trace, an archive or a
        for th in run.threads:                 # directory of them
            print(th.label, th.trace.ending, th.nevents)
            for ev in th.events(images="main"):
                print(ev.kind, ev.depth, ev.function)

open() reads each trace's index and metadata; the events are decoded
when asked for, each iterator with the trace it reads open.  Functions are named as
parlot-decode names them (C++ demangled, MPI's Fortran bindings as the
standard's names, libc's variants as the function called).  The filters
are the programs' (images=, only=, hide=, only_object=, hide_object=,
max_depth=, from_mark=, to_mark=, range=; see parlot-decode(1)).
Thread.arrays() returns the events as NumPy arrays, decoded in bulk, when
NumPy is installed.  Errors are ParlotError, with libparlot's message,
the file and the offset in it.
"""

import ctypes
import os as _os
import warnings
from collections import namedtuple

from . import _libparlot as _c

__all__ = ["open", "Run", "Trace", "Thread", "Event", "ParlotError",
           "library_version"]

_TRACE_MAGIC = b"\x89PARLOT\n"
_ARCHIVE_MAGIC = b"\x89PLARCH\n"
_FILTERS = ("images", "program_objects", "library_objects", "only", "hide",
            "only_object", "hide_object", "max_depth", "range", "from_mark",
            "to_mark")

Event = namedtuple("Event", "kind depth function object index")
Event.__doc__ = """One call or return of a thread, as its view shows it.

kind: "call" or "return"; depth: 1 for the outermost frame shown (a
return has its call's depth); function and object: names; index: the
event's number in the thread's stream, from 1 (unfiltered)."""


class ParlotError(Exception):
    """A trace that cannot be read: path, offset (in the file, 0 if none)
    and libparlot's message."""

    def __init__(self, path, offset, message):
        super().__init__(path, offset, message)
        self.path, self.offset, self.message = path, offset, message

    def __str__(self):
        if self.offset:
            return "%s: offset %d: %s" % (self.path, self.offset,
                                          self.message)
        return "%s: %s" % (self.path, self.message)


def _error(path, err):
    return ParlotError(path, err.offset,
                       err.msg.decode("utf-8", "replace"))


def _text(ptr, n=None):
    """The bytes at a C pointer as str; frees nothing."""
    raw = ctypes.string_at(ptr, n) if n is not None else ctypes.string_at(ptr)
    return raw.decode("utf-8", "surrogateescape")


def library_version():
    """libparlot's version, as a string."""
    return _c.lib.pl_lib_version().decode()


def _looks_like_trace(path):
    try:
        with _os.fdopen(_os.open(path, _os.O_RDONLY), "rb") as f:
            head = f.read(8)
    except OSError:
        return False
    return head in (_TRACE_MAGIC, _ARCHIVE_MAGIC)


def _expand(path):
    """The files path stands for: itself, or a directory's traces and
    archives by name (as the programs take a directory)."""
    if not _os.path.isdir(path):
        return [path]
    try:
        names = sorted(_os.listdir(path))
    except OSError as e:
        raise ParlotError(path, 0, e.strerror) from None
    files = [_os.path.join(path, n) for n in names if not n.startswith(".")]
    files = [f for f in files if _os.path.isfile(f) and _looks_like_trace(f)]
    if not files:
        raise ParlotError(path, 0, "no trace or archive in this directory")
    return files


class _Select:
    """--select: which processes and threads are read (pl_select.h)."""

    class _C(ctypes.Structure):
        _fields_ = [("items", ctypes.c_void_p), ("n", ctypes.c_size_t)]

    _c.lib.pl_select_parse.argtypes = [ctypes.POINTER(_C), ctypes.c_char_p,
                                       ctypes.c_char_p, ctypes.c_size_t]
    _c.lib.pl_select_match.argtypes = [ctypes.POINTER(_C), ctypes.c_char_p,
                                       ctypes.c_uint32]
    _c.lib.pl_select_free.argtypes = [ctypes.POINTER(_C)]

    def __init__(self, spec):
        self.c = self._C()
        specs = [spec] if isinstance(spec, str) else list(spec or [])
        for s in specs:
            why = ctypes.create_string_buffer(256)
            if _c.lib.pl_select_parse(ctypes.byref(self.c), s.encode(), why,
                                      256) < 0:
                self.free()
                raise ValueError("select: " + why.value.decode())

    def match(self, pid, number):
        return bool(_c.lib.pl_select_match(ctypes.byref(self.c),
                                           pid.encode(), number))

    def free(self):
        _c.lib.pl_select_free(ctypes.byref(self.c))


class Run:
    """The traces given to open(): .traces, and .threads of them all.
    A context manager; close() frees the open trace."""

    def __init__(self, paths, select=None, strict=True):
        if isinstance(paths, (str, bytes, _os.PathLike)):
            paths = [paths]
        self.traces = []
        self._open = None            # (trace, handle): the trace whose
                                     # function table is read
        self._select = select
        sel = _Select(select) if select else None
        try:
            for p in paths:
                for f in _expand(_os.fsdecode(p)):
                    self._add(f, sel, strict)
        except BaseException:
            self.close()
            raise
        finally:
            if sel:
                sel.free()
        self.threads = [th for t in self.traces for th in t.threads]

    def _add(self, path, sel, strict):
        inputs = _c.Inputs()
        err = _c.Error()
        r = _c.lib.pl_inputs_add(ctypes.byref(inputs), _os.fsencode(path),
                                 ctypes.byref(err))
        try:
            if r < 0:
                raise MemoryError("parlot: out of memory")
            if r > 0:
                # a damaged archive: the members recovered are read
                if strict:
                    raise _error(path, err)
                warnings.warn(str(_error(path, err)))
            for i in range(inputs.n):
                self.traces.append(Trace(self, inputs.v[i], sel, strict))
        finally:
            _c.lib.pl_inputs_free(ctypes.byref(inputs))

    def _handle(self, trace):
        """trace's libparlot handle, opening it (and closing the last)."""
        if self._open and self._open[0] is trace:
            return self._open[1]
        self.close()
        h = trace._open_handle()
        self._open = (trace, h)
        return h

    def call_graph(self, demangle=True, **filters):
        """The call graphs libparlot builds for the reports (parlot-decode
        --xml, parlot-annotate), through the filters, as plain dicts:
        {"threads": {Thread: graph}, "program": graph}.  A graph
        is {"events", "calls", "max_depth",
            "functions": {name: {"calls", "inclusive_events"}},
            "edges": {(caller, callee): {"calls", "inclusive_calls",
                                          "inclusive_events"}}}
        with caller None for a thread's outermost calls.  A trace made
        with --collect-insns adds "insns" (the graph's instructions),
        per function "self_insns" and "inclusive_insns", per edge
        "inclusive_insns" (Callgrind's Ir; docs/costs.md).  Functions are
        named as the reports label them; where two objects define one name
        (strcmp in ld.so and in libc) their counts add up."""
        prog = _c.Program()
        _c.lib.pl_program_init(ctypes.byref(prog), int(demangle))
        f = _filter(filters)
        sel = _Select(self._select)      # empty: every thread
        try:
            if f and _c.lib.pl_program_set_filter(ctypes.byref(prog), f) < 0:
                raise MemoryError("parlot: out of memory")
            for t in self.traces:
                path, off, size, name, member = t._input
                inp = _c.Input(path, off, size, name, member)
                err = _c.Error()
                r = _c.lib.pl_program_read_input(
                    ctypes.byref(prog), ctypes.byref(inp),
                    ctypes.byref(sel.c), None, ctypes.byref(err))
                if r < 0 or (r > 0 and t.damage is None):
                    raise _error(t.name, err)
            names = [None] + [prog.fns[i].label.decode("utf-8",
                                                       "surrogateescape")
                              for i in range(1, prog.nfns + 1)]
            # one process per trace, in order
            threads = {}
            for i in range(prog.nthreads):
                th = prog.threads[i]
                mine = [x for x in self.traces[th.proc].threads
                        if x.number == th.number]
                threads[mine[0]] = _graph(th.g, names)
            total = _c.Graph()
            if _c.lib.pl_program_total(ctypes.byref(prog),
                                       ctypes.byref(total)) < 0:
                raise MemoryError("parlot: out of memory")
            try:
                program = _graph(total, names)
            finally:
                _c.lib.pl_graph_free(ctypes.byref(total))
            return {"threads": threads, "program": program}
        finally:
            sel.free()
            _c.lib.pl_program_free(ctypes.byref(prog))
            if f:
                _c.lib.pl_filter_free(f)

    def close(self):
        if self._open:
            self._open[0]._labels = None
            _c.lib.pl_trace_close(self._open[1])
            self._open = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        if getattr(self, "_open", None):
            self.close()

    def __repr__(self):
        return "<parlot.Run: %d traces, %d threads>" % (len(self.traces),
                                                        len(self.threads))


def _add(d, key, values):
    """Add values (a dict of counts) to d[key]."""
    cur = d.setdefault(key, dict.fromkeys(values, 0))
    for k, v in values.items():
        cur[k] += v


def _graph(g, names):
    """A pl_graph as plain dicts, functions by their labels (functions of
    one label in several objects, strcmp in ld.so and libc, add up)."""
    fns = {}
    for i in range(g.nfns):
        fs = g.fns[i]
        d = {"calls": fs.calls, "inclusive_events": fs.incl_events}
        if g.costs:
            d.update(self_insns=fs.self_cost, inclusive_insns=fs.incl_cost)
        _add(fns, names[fs.fn], d)
    edges = {}
    for i in range(g.nedges):
        e = g.edges[i]
        d = {"calls": e.calls, "inclusive_calls": e.incl_calls,
             "inclusive_events": e.incl_events}
        if g.costs:
            d["inclusive_insns"] = e.incl_cost
        _add(edges, (names[e.caller], names[e.callee]), d)
    out = {"events": g.events, "calls": g.calls, "max_depth": g.max_depth,
           "functions": fns, "edges": edges}
    if g.costs:
        out["insns"] = g.cost
    return out


class Trace:
    """One process's trace: name, pid, rank (None without MPI), command,
    ending (in words: "exit status 0", "killed by SIGTERM (signal 15) in
    thread 1", "trace cut short"), exit_status and signal (None when they
    do not apply), damage (a ParlotError, or None), threads."""

    def __init__(self, run, inp, sel, strict):
        self.run = run
        self.name = inp.name.decode("utf-8", "surrogateescape")
        self._input = (inp.path, inp.offset, inp.size, inp.name, inp.member)
        self._labels = None
        h = self._open_handle()
        try:
            dmg = _c.lib.pl_trace_damage(h)
            self.damage = _error(self.name, dmg.contents) if dmg else None
            if self.damage and strict:
                raise self.damage
            get = _c.lib.pl_trace_process_get
            self.pid = (get(h, b"pid") or b"").decode()
            rank = get(h, b"mpi_rank")
            self.rank = int(rank) if rank else None
            cmd = _c.lib.pl_trace_command(h)
            self.command = _text(cmd) if cmd else ""
            _c.libc.free(cmd)
            e = _c.Ending()
            _c.lib.pl_trace_ending(h, ctypes.byref(e))
            buf = ctypes.create_string_buffer(160)
            _c.lib.pl_ending_text(ctypes.byref(e), buf, 160)
            self.ending = buf.value.decode()
            self.exit_status = e.status if e.kind == 1 and e.status >= 0 \
                else None
            self.signal = e.signal if e.kind == 2 else None
            self.threads = []
            for i in range(_c.lib.pl_trace_nthreads(h)):
                info = _c.lib.pl_trace_thread(h, i).contents
                if sel is None or sel.match(self.pid, info.number):
                    self.threads.append(Thread(self, i, info))
        finally:
            _c.lib.pl_trace_close(h)

    def _open_handle(self):
        path, off, size, name, member = self._input
        inp = _c.Input(path, off, size, name, member)
        err = _c.Error()
        h = _c.lib.pl_input_open(ctypes.byref(inp), ctypes.byref(err))
        if not h:
            raise _error(self.name, err)
        return h

    def _handle(self):
        return self.run._handle(self)

    def functions(self, demangle=True):
        """The function table: index i is function ID i (0: none), each a
        (name, object) pair, names as the events give them."""
        if self._labels is None or self._labels[0] != demangle:
            h = self._handle()
            table = [(None, None)]
            objects = {}
            for fid in range(1, _c.lib.pl_trace_nfunctions(h) + 1):
                f = _c.lib.pl_trace_function(h, fid).contents
                shown = _c.lib.pl_demangle(f.name.str, f.name.len) \
                    if demangle else None
                if shown:
                    name = _text(shown)
                    _c.libc.free(shown)
                else:
                    name = _text(f.name.str, f.name.len)
                if f.obj not in objects:
                    o = _c.lib.pl_trace_object(h, f.obj).contents
                    objects[f.obj] = _text(o.str, o.len)
                table.append((name, objects[f.obj]))
            self._labels = (demangle, table)
        return self._labels[1]

    def __repr__(self):
        return "<parlot.Trace %s: pid %s%s, %d threads>" % (
            self.name, self.pid,
            "" if self.rank is None else ", rank %d" % self.rank,
            len(self.threads))


def _filter(filters):
    """A pl_filter for the keyword filters, or None if none is given; the
    caller frees it."""
    active = {k: v for k, v in filters.items() if v is not None}
    for k in active:
        if k not in _FILTERS:
            raise TypeError("unknown filter %r (filters: %s)"
                            % (k, ", ".join(_FILTERS)))
    if not active:
        return None
    f = _c.lib.pl_filter_new()
    if not f:
        raise MemoryError("parlot: out of memory")
    why = ctypes.create_string_buffer(256)
    for k, vals in active.items():
        vals = vals if isinstance(vals, (list, tuple)) else [vals]
        for val in vals:
            if _c.lib.pl_filter_option(f, k.replace("_", "-").encode(),
                                       str(val).encode(), why, 256) < 0:
                _c.lib.pl_filter_free(f)
                raise ValueError(why.value.decode())
    return f


class _View:
    """A thread's events through the filters (pl_view.h); a context
    manager owning the trace it reads (its own: iterators may be
    interleaved, or outlive Run.close()), the filter, the keep array and
    the view."""

    def __init__(self, thread, filters, demangle):
        self.h = self.f = self.keep = self.v = None
        self.h = h = thread.trace._open_handle()
        try:
            self.f = _filter(filters)
        except BaseException:
            self.close()
            raise
        if self.f:
            self.keep = _c.lib.pl_filter_functions(self.f, h, int(demangle))
            if not self.keep:
                self.close()
                raise MemoryError("parlot: out of memory")
        err = _c.Error()
        self.v = _c.lib.pl_view_open(h, thread.index, self.f, self.keep,
                                     ctypes.byref(err))
        if not self.v:
            self.close()
            raise _error(thread.trace.name, err)
        self.name = thread.trace.name

    def batches(self):
        """Each batch: (pointer to pl_vevent[n], n)."""
        ev = ctypes.POINTER(_c.VEvent)()
        err = _c.Error()
        while True:
            n = _c.lib.pl_view_next(self.v, ctypes.byref(ev),
                                    ctypes.byref(err))
            if n < 0:
                raise _error(self.name, err)
            if n == 0:
                return
            yield ev, n

    def costs(self):
        """The last batch's costs (a uint64_t pointer), None without."""
        c = _c.lib.pl_view_costs(self.v)
        return c if c else None

    def close(self):
        if self.v:
            _c.lib.pl_view_close(self.v)
        if self.keep:
            _c.libc.free(self.keep)
        if self.f:
            _c.lib.pl_filter_free(self.f)
        if self.h:
            _c.lib.pl_trace_close(self.h)
        self.h = self.f = self.keep = self.v = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class Thread:
    """A thread of a trace: trace, index (in its trace), number (ParLoT's,
    1 = the initial thread), parent, lwp (the OS thread id, 0 unknown),
    pid and rank (its process's), label ("rank 2", "rank 2 thread 3",
    "pid 1234 thread 1"), nevents (calls and returns recorded),
    inherited (a forked child's thread: its first entries re-create the
    calls open in the parent, and are not calls of its own)."""

    def __init__(self, trace, index, info):
        self.trace, self.index = trace, index
        self.number, self.parent, self.lwp = info.number, info.parent, \
            info.lwp
        self.nevents = info.events
        self.inherited = info.inherited_depth
        self.pid, self.rank = trace.pid, trace.rank
        if self.rank is None:
            self.label = "pid %s thread %d" % (self.pid, self.number)
        elif self.number == 1:
            self.label = "rank %d" % self.rank
        else:
            self.label = "rank %d thread %d" % (self.rank, self.number)

    def events(self, demangle=True, **filters):
        """The thread's events (Event), in order, through the filters."""
        names = self.trace.functions(demangle)
        with _View(self, filters, demangle) as view:
            kinds = ("call", "return")
            for ev, n in view.batches():
                for k in range(n):
                    e = ev[k]
                    name, obj = names[e.fn]
                    yield Event(kinds[e.kind], e.depth, name, obj, e.number)

    def arrays(self, demangle=True, **filters):
        """The thread's events through the filters as NumPy arrays, decoded
        in bulk: a dict of "kind" (uint8: 0 call, 1 return), "depth"
        (uint32), "function" (uint32 function IDs) and "index" (uint64),
        and "functions", the trace's function table (Trace.functions()).
        A trace made with --collect-insns adds "insns" (uint64): the
        instructions the thread executed since the previous event shown
        (docs/costs.md).  Needs NumPy."""
        import numpy as np
        size = ctypes.sizeof(_c.VEvent)
        words = size // 4
        if _c.VEvent.number.offset != 16 or size % 8:
            raise RuntimeError("parlot: unexpected pl_vevent layout")
        cap = max(int(self.nevents), 1)
        out = {"kind": np.empty(cap, np.uint8),
               "depth": np.empty(cap, np.uint32),
               "function": np.empty(cap, np.uint32),
               "index": np.empty(cap, np.uint64)}
        n_all = 0
        batch_types = {}    # a ctypes array type per batch size: making
        with _View(self, filters, demangle) as view:   # one costs much
            for ev, n in view.batches():
                if n_all + n > cap:     # more than recorded: a damaged count
                    cap = max(2 * cap, n_all + n)
                    for k in out:
                        out[k] = np.resize(out[k], cap)
                bt = batch_types.get(n)
                if bt is None:
                    bt = batch_types[n] = ctypes.c_char * (n * size)
                buf = bt.from_address(ctypes.cast(ev, ctypes.c_void_p).value)
                # pl_vevent as 32-bit words: fn, depth, kind; the number
                # is the third 64-bit word
                w32 = np.frombuffer(buf, dtype=np.uint32).reshape(n, words)
                w64 = np.frombuffer(buf, dtype=np.uint64).reshape(n,
                                                                 words // 2)
                out["function"][n_all:n_all + n] = w32[:, 0]
                out["depth"][n_all:n_all + n] = w32[:, 1]
                out["kind"][n_all:n_all + n] = w32[:, 2]
                out["index"][n_all:n_all + n] = w64[:, 2]
                costs = view.costs()
                if costs is not None:
                    if "insns" not in out:
                        out["insns"] = np.zeros(cap, np.uint64)
                    out["insns"][n_all:n_all + n] = np.ctypeslib.as_array(
                        costs, shape=(n,))
                n_all += n
        for k in out:
            out[k] = out[k][:n_all]
        out["functions"] = self.trace.functions(demangle)
        return out

    def times(self):
        """The thread's wall-clock stamps (a trace recorded with
        --collect-time): a list of (position, ns), "after its first
        `position` events the clock (CLOCK_REALTIME) said `ns` nanoseconds
        since the Unix epoch", by position; [] if it has none."""
        h = self.trace._handle()
        n = _c.c_size(0)
        p = _c.lib.pl_trace_times(h, self.index, ctypes.byref(n))
        return [(p[i].position, p[i].ns) for i in range(n.value)]

    def call_counts(self, demangle=True, **filters):
        """{function name: calls} of the thread through the filters."""
        names = self.trace.functions(demangle)
        per_id = {}
        with _View(self, filters, demangle) as view:
            for ev, n in view.batches():
                for k in range(n):
                    e = ev[k]
                    if e.kind == 0:
                        per_id[e.fn] = per_id.get(e.fn, 0) + 1
        counts = {}
        for fid, c in per_id.items():
            name = names[fid][0]
            counts[name] = counts.get(name, 0) + c
        return counts

    def __repr__(self):
        return "<parlot.Thread %s of %s: %d events>" % (
            self.label, self.trace.name, self.nevents)


def open(path, select=None, strict=True):
    """Read the traces path stands for: a trace file, an archive (its
    members), a directory of them, or a list of such paths.  select: a
    --select SPEC (or a list of them) choosing processes and threads.
    strict: a damaged trace or archive raises ParlotError here; with
    strict=False it is read up to the damage (Trace.damage says where,
    a damaged archive gives a warning and its recovered members)."""
    return Run(path, select=select, strict=strict)
