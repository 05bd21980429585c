/* SPDX-License-Identifier: MIT */
/* Which events of a thread a reader shows: the filters every report and
   view shares (parlot-decode, parlot-annotate, parlot-diff).

   - images=program: the program's view.  The program's own code
     (pl_runtime.h says which objects and functions that is; the
     repeatable program-objects=GLOB and library-objects=GLOB move objects
     to one side or the other) and each call it makes into a library,
     opaque: what runs below a library entry is not shown, except the
     program's own code called back from there (a comparator, a thread's
     start routine, main under the C library's start-up).  The default of
     the ordered views (pl_filter_default_program);
   - images=main: only the main executable's functions;
   - images=GLOB[,GLOB]...: only the functions of objects whose file name
     (or path) matches one of the patterns;
   - only=GLOB (repeatable): only functions matching one of the patterns;
     with images= given as well, the functions of both (images=main
     only='MPI_*': the main executable and its MPI calls);
   - hide=GLOB (repeatable): never functions matching one;
   - only-object=GLOB, hide-object=GLOB (repeatable; the tool's names,
     since 0.8): only-object= adds to images=GLOB; hide-object= never
     shows the functions of objects matching one;
   - max-depth=N (depth=N before 0.8, still read): at most N levels of
     shown calls;
   - range=FIRST-LAST: only the thread's events FIRST..LAST (from 1);
   - from-mark=LABEL[#N], to-mark=LABEL[#N]: only the events after the N-th
     (default first) mark LABEL of the thread and before the other; a
     thread without the from-mark shows nothing, one without the to-mark
     shows all that follows.

   Patterns are Callgrind's globs ('*', '?') and match any of a function's
   names — the one shown and its aliases (pl_trace_function_alias: PMPI_Send
   for MPI_Send) — as recorded or demangled.  A filtered-out call is dropped
   with its return; its callees stay, one level up, under the nearest
   shown caller.  Depths count shown frames only, so two runs filtered
   alike compare alike.  pl_view.h iterates a thread through a filter;
   pl_program_set_filter() builds call graphs through one.  (Since
   libparlot 0.2.) */
#ifndef PL_FILTER_H
#define PL_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "pl_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every function below takes NULL as the filter that drops nothing. */
typedef struct pl_filter pl_filter;

/* A filter that drops nothing; NULL if out of memory. */
pl_filter *pl_filter_new(void);
void       pl_filter_free(pl_filter *f);

/* Apply one option: name without "--" ("images", "program-objects",
   "library-objects", "only", "hide", "only-object", "hide-object",
   "max-depth", "depth", "range", "from-mark", "to-mark") and its
   argument.  0, or -1 with a one-line reason in why. */
int pl_filter_option(pl_filter *f, const char *name, const char *arg,
                     char *why, size_t whylen);
/* Make images=program the default: it applies unless images= or only=
   is given.  (Since libparlot 0.7.) */
void pl_filter_default_program(pl_filter *f);
/* Whether f shows the program's view (images=program in force). */
int pl_filter_program_view(const pl_filter *f);

/* Whether f drops anything at all. */
int pl_filter_active(const pl_filter *f);
/* What a report header should say about f ("images=main only=MPI_*"), ""
   when nothing is filtered.  Owned by f, valid until its next change. */
const char *pl_filter_describe(const pl_filter *f);
/* depth=N's N, 0 if unlimited. */
uint32_t pl_filter_max_depth(const pl_filter *f);
/* Thread `index` of t's range: event numbers *first..*last (*last
   UINT64_MAX: to the end; nothing if *first > *last), from range= and the
   thread's marks. */
void pl_filter_thread_range(const pl_filter *f, const pl_trace *t,
                            size_t index, uint64_t *first, uint64_t *last);
/* Whether a range other than the whole thread is given. */
int pl_filter_ranged(const pl_filter *f);

/* The object ID of t's main executable: the object defining "main", else
   the object named like the process's exe; 0 if neither is found. */
uint32_t pl_main_object(const pl_trace *t);

/* Per function ID of t (1..pl_trace_nfunctions), whether f shows it: a
   malloc'ed array of nfunctions + 1 bytes, or NULL if out of memory.
   With demangle, patterns also match the demangled name.  Values:
   PL_KEEP_NO and PL_KEEP_YES, and in the program's view
   - PL_KEEP_ENTRY: a library function, shown (as one opaque call) where
     the program's own code called it;
   - PL_KEEP_CALLED: a function of a library that is no known runtime but
     sits in a system library directory (the program's own library
     installed there, or another system library): the program's own code
     where the program's own code called it, else a library internal;
   - PL_KEEP_CALLS_MAIN: the C library's code that calls main
     (pl_runtime_calls_main), not shown, but what it calls is called by
     the program (main; in a stripped executable, main's own calls).
   pl_keep_frame applies these rules frame by frame. */
enum { PL_KEEP_NO = 0, PL_KEEP_YES = 1, PL_KEEP_ENTRY = 2,
       PL_KEEP_CALLED = 3, PL_KEEP_CALLS_MAIN = 4 };
uint8_t *pl_filter_functions(const pl_filter *f, const pl_trace *t,
                             int demangle);

/* Whether a frame of function fn is shown, by keep, when the frame that
   called it is the program's own code (caller_own; 0 for a thread's
   outermost frame); *own says whether this frame is. */
static inline int pl_keep_frame(const uint8_t *keep, uint32_t fn,
                                int caller_own, int *own)
{
   uint8_t k = keep[fn];
   if (k == PL_KEEP_CALLS_MAIN) {
      *own = 1;                  /* its callees are the program's calls */
      return 0;
   }
   *own = k == PL_KEEP_YES || (k == PL_KEEP_CALLED && caller_own);
   return *own || (k == PL_KEEP_ENTRY && caller_own);
}

#ifdef __cplusplus
}
#endif

#endif
