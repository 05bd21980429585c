# SPDX-License-Identifier: MIT
"""libparlot through ctypes: the library, its structures and prototypes.

Internal to the parlot package.  The structures mirror libparlot's
installed headers (pl_trace.h, pl_view.h, pl_ending.h, pl_archive.h,
pl_program.h) and must change with them; the library is found as _config.LIBDIR says (the
prefix it was installed to), else through $PARLOT_LIBRARY or the
system's search path.
"""

import ctypes
import ctypes.util
import os

from . import _config

c_u32, c_u64, c_size, c_char_p = (ctypes.c_uint32, ctypes.c_uint64,
                                  ctypes.c_size_t, ctypes.c_char_p)


class Error(ctypes.Structure):          # pl_error
    _fields_ = [("offset", c_u64), ("msg", ctypes.c_char * 240)]


class Name(ctypes.Structure):           # pl_name
    _fields_ = [("str", ctypes.c_void_p), ("len", c_size)]


class Function(ctypes.Structure):       # pl_function
    _fields_ = [("name", Name), ("obj", c_u32), ("addr", c_u64)]


class ThreadInfo(ctypes.Structure):     # pl_thread_info
    _fields_ = [("number", c_u32), ("parent", c_u32), ("vg_tid", c_u32),
                ("codec", c_u32), ("inherited_depth", c_u32),
                ("ended", ctypes.c_int), ("end_reason", c_u32),
                ("lwp", c_u32), ("events", c_u64), ("words", c_u64),
                ("raw_bytes", c_u64), ("encoded_bytes", c_u64),
                ("max_depth", c_u64), ("end_signal", c_u32),
                ("handler_depth", c_u32)]


class VEvent(ctypes.Structure):         # pl_vevent
    _fields_ = [("fn", c_u32), ("depth", c_u32), ("kind", c_u32),
                ("number", c_u64), ("flags", c_u32)]


class TimeStamp(ctypes.Structure):      # pl_time_stamp
    _fields_ = [("position", c_u64), ("ns", ctypes.c_int64)]


class Ending(ctypes.Structure):         # pl_ending
    _fields_ = [("kind", ctypes.c_int), ("status", ctypes.c_int),
                ("signal", ctypes.c_int), ("signal_name", ctypes.c_char * 24),
                ("signal_thread", c_u32), ("end_lost", ctypes.c_int)]


class Input(ctypes.Structure):          # pl_input
    _fields_ = [("path", c_char_p), ("offset", c_u64), ("size", c_u64),
                ("name", c_char_p), ("member", c_char_p)]


class Inputs(ctypes.Structure):         # pl_inputs
    _fields_ = [("v", ctypes.POINTER(Input)), ("n", c_size), ("cap", c_size)]


class GFunc(ctypes.Structure):          # pl_gfunc
    _fields_ = [("object", c_char_p), ("name", c_char_p),
                ("shown", c_char_p), ("label", c_char_p), ("dup", c_u32),
                ("ident", c_u64)]


class Edge(ctypes.Structure):           # pl_edge
    _fields_ = [("caller", c_u32), ("callee", c_u32), ("calls", c_u64),
                ("incl_calls", c_u64), ("incl_events", c_u64),
                ("outer_calls", c_u64), ("outer_events", c_u64),
                ("incl_cost", c_u64), ("outer_cost", c_u64)]


class FStat(ctypes.Structure):          # pl_fstat
    _fields_ = [("fn", c_u32), ("calls", c_u64), ("incl_events", c_u64),
                ("self_cost", c_u64), ("incl_cost", c_u64)]


class Graph(ctypes.Structure):          # pl_graph
    _fields_ = [("events", c_u64), ("calls", c_u64), ("max_depth", c_u64),
                ("fns", ctypes.POINTER(FStat)), ("nfns", c_size),
                ("edges", ctypes.POINTER(Edge)), ("nedges", c_size),
                ("costs", ctypes.c_int), ("cost", c_u64)]


class PThread(ctypes.Structure):        # pl_thread (pl_program.h)
    _fields_ = [("proc", c_size), ("number", c_u32), ("parent", c_u32),
                ("inherited", c_u32), ("complete", ctypes.c_int),
                ("order", c_u64), ("g", Graph)]


class Process(ctypes.Structure):        # pl_process
    _fields_ = [("path", c_char_p), ("pid", c_char_p), ("ppid", c_char_p),
                ("exe", c_char_p), ("cmd", c_char_p), ("rank", c_char_p),
                ("role", c_char_p), ("end", ctypes.c_int),
                ("first_thread", c_size), ("nthreads", c_size),
                ("nthreads_all", c_size)]


class Program(ctypes.Structure):        # struct pl_program
    _fields_ = [("fns", ctypes.POINTER(GFunc)), ("nfns", c_u32),
                ("procs", ctypes.POINTER(Process)), ("nprocs", c_size),
                ("threads", ctypes.POINTER(PThread)), ("nthreads", c_size),
                ("demangle", ctypes.c_int), ("fns_cap", c_size),
                ("procs_cap", c_size), ("threads_cap", c_size),
                ("internal", ctypes.c_void_p), ("progress", ctypes.c_void_p)]


def _load():
    names = []
    if os.environ.get("PARLOT_LIBRARY"):
        names.append(os.environ["PARLOT_LIBRARY"])
    if _config.LIBDIR:
        names.append(os.path.join(_config.LIBDIR, "libparlot.so." +
                                  _config.SOVERSION))
    found = ctypes.util.find_library("parlot")
    if found:
        names.append(found)
    tried = []
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            tried.append(str(e))
    raise ImportError("parlot: cannot load libparlot (set PARLOT_LIBRARY "
                      "to its path): " + ("; ".join(tried) or "not found"))


lib = _load()
libc = ctypes.CDLL(None)
libc.free.argtypes = [ctypes.c_void_p]
libc.free.restype = None

P = ctypes.POINTER
VP = ctypes.c_void_p
_protos = {
    "pl_trace_open": (VP, [c_char_p, P(Error)]),
    "pl_input_open": (VP, [P(Input), P(Error)]),
    "pl_trace_close": (None, [VP]),
    "pl_trace_damage": (P(Error), [VP]),
    "pl_trace_nthreads": (c_size, [VP]),
    "pl_trace_thread": (P(ThreadInfo), [VP, c_size]),
    "pl_trace_nfunctions": (c_u32, [VP]),
    "pl_trace_function": (P(Function), [VP, c_u32]),
    "pl_trace_object": (P(Name), [VP, c_u32]),
    "pl_trace_process_get": (c_char_p, [VP, c_char_p]),
    "pl_trace_command": (VP, [VP]),
    "pl_trace_ending": (None, [VP, P(Ending)]),
    "pl_ending_text": (c_size, [P(Ending), ctypes.c_char_p, c_size]),
    "pl_inputs_add": (ctypes.c_int, [P(Inputs), c_char_p, P(Error)]),
    "pl_inputs_free": (None, [P(Inputs)]),
    "pl_demangle": (VP, [VP, c_size]),
    "pl_filter_new": (VP, []),
    "pl_filter_free": (None, [VP]),
    "pl_filter_option": (ctypes.c_int, [VP, c_char_p, c_char_p, c_char_p,
                                        c_size]),
    "pl_filter_functions": (VP, [VP, VP, ctypes.c_int]),
    "pl_view_open": (VP, [VP, c_size, VP, VP, P(Error)]),
    "pl_view_close": (None, [VP]),
    "pl_view_next": (ctypes.c_long, [VP, P(P(VEvent)), P(Error)]),
    "pl_view_costs": (P(c_u64), [VP]),
    "pl_trace_times": (P(TimeStamp), [VP, c_size, P(c_size)]),
    "pl_lib_version": (c_char_p, []),
    "pl_program_init": (None, [P(Program), ctypes.c_int]),
    "pl_program_free": (None, [P(Program)]),
    "pl_program_set_filter": (ctypes.c_int, [P(Program), VP]),
    "pl_program_read_input": (ctypes.c_int, [P(Program), P(Input), VP, VP,
                                             P(Error)]),
    "pl_program_total": (ctypes.c_int, [P(Program), P(Graph)]),
    "pl_graph_free": (None, [P(Graph)]),
}
for _name, (_res, _args) in _protos.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args
