/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Function and object tables: which guest addresses are function entries,
   their IDs, and the definitions written to the trace before use. */
#ifndef PL_FUNCTIONS_H
#define PL_FUNCTIONS_H

#include "pub_tool_basics.h"

/* Functions no symbol names, named from the unwind table (--unwind-names,
   pl_unwind.h): in no object, the main executable, or every object. */
enum pl_unwind_names { PL_UNWIND_NO, PL_UNWIND_MAIN, PL_UNWIND_ALL };

void pl_fn_init(Bool main_image_only, Bool keep_plt, Int unwind_names);

/* What is recorded of a function (--only, --hide, --only-object,
   --hide-object) and whether it toggles tracing (--toggle-trace).  Set
   before the first translation; patterns are Callgrind's globs (pl_glob.h)
   on the symbol name as recorded or demangled, and on the object's path
   or its file name. */
typedef struct {
   const HChar **only, **hide, **only_obj, **hide_obj, **toggle;
   UInt n_only, n_hide, n_only_obj, n_hide_obj, n_toggle;
} pl_fn_patterns;
void pl_fn_set_patterns(const pl_fn_patterns *p);

/* Per function ID: PL_FN_RECORD if its calls are recorded, PL_FN_TOGGLE if
   it is a --toggle-trace function, PL_FN_ENDS_JOB if it is MPI_Abort (by
   any of its names).  Without patterns every function is PL_FN_RECORD. */
enum { PL_FN_RECORD = 1, PL_FN_TOGGLE = 2, PL_FN_ENDS_JOB = 4 };
extern UChar *pl_fn_flags;
/* Per function ID: its ID in the trace, which numbers only the recorded
   functions (1, 2, ... as they are first translated: the same ID when
   every function is recorded), 0 if it is never recorded. */
extern UInt  *pl_fn_trace_id;

/* At translation time: the function ID if 'a' is the first instruction of
   a traced function, else 0.  Assigns IDs (from 1, in order of first
   translation) and queues their definitions. */
UInt pl_fn_entry_id(Addr a);

/* Whether a is a function's first instruction (of any object, without
   defining the function). */
Bool pl_fn_is_entry(Addr a);

/* a is a signal handler the program installed (sigaction): a function's
   first instruction even where no symbol or read unwind table says so (a
   library's static handler: an MPI library's backtrace printer), named
   like a stripped function (libopen-pal.so.40+0x5b1c0) when it has no
   symbol, so that what it calls is its own and not the interrupted
   function's.  pl_fn_is_handler: whether a is one. */
void pl_fn_add_handler(Addr a);
Bool pl_fn_is_handler(Addr a);

/* Where no function starts: no address strictly between *lo and *hi is a
   function's first instruction.  pl_fn_known_range answers only from the
   ranges found so far (a lies strictly between), without a debug-info
   search; pl_fn_range searches an object's symbols (a not in a known
   range): the text symbol holding a (*lo its entry) or the gap between
   two symbols holding a.  False if neither knows. */
Bool pl_fn_known_range(Addr a, Addr *lo, Addr *hi);
Bool pl_fn_range(Addr a, Addr *lo, Addr *hi);

/* The ID of the traced function whose code holds address a (as
   pl_fn_entry_id of its entry), 0 if none: for frames found by unwinding
   the stack. */
UInt pl_fn_containing(Addr a);

/* Write queued OBJECTS and FUNCTIONS chunks.  Called before any STREAM
   chunk, so definitions always precede their first use in the file. */
void pl_fn_flush_defs(void);

/* Queue every definition again (a forked child's new file). */
void pl_fn_requeue_all(void);

/* Functions defined in the trace (those recorded). */
UInt pl_fn_count(void);

#endif
