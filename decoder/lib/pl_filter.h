/* SPDX-License-Identifier: MIT */
/* Which events of a thread a reader shows: the filters every report and
   view shares (parlot-decode, parlot-annotate, parlot-diff).

   - images=main: only the main executable's functions;
   - only=GLOB (repeatable): only functions matching one of the patterns;
   - hide=GLOB (repeatable): never functions matching one;
   - depth=N: at most N levels of shown calls;
   - range=FIRST-LAST: only the thread's events FIRST..LAST (from 1).

   Patterns are Callgrind's globs ('*', '?') and match a function's
   demangled name or its name as recorded.  A filtered-out call is dropped
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

typedef struct pl_filter pl_filter;

/* A filter that drops nothing; NULL if out of memory. */
pl_filter *pl_filter_new(void);
void       pl_filter_free(pl_filter *f);

/* Apply one option: name without "--" ("images", "only", "hide", "depth",
   "range") and its argument.  0, or -1 with a one-line reason in why. */
int pl_filter_option(pl_filter *f, const char *name, const char *arg,
                     char *why, size_t whylen);

/* Whether f drops anything at all. */
int pl_filter_active(const pl_filter *f);
/* What a report header should say about f ("images=main only=MPI_*"), ""
   when nothing is filtered.  Owned by f, valid until its next change. */
const char *pl_filter_describe(const pl_filter *f);
/* depth=N's N, 0 if unlimited. */
uint32_t pl_filter_max_depth(const pl_filter *f);
/* Whether a range other than the whole thread is given. */
int pl_filter_ranged(const pl_filter *f);
/* Whether event number `number` (from 1) lies in the range. */
int pl_filter_in_range(const pl_filter *f, uint64_t number);
/* The last event number of the range, UINT64_MAX if open-ended. */
uint64_t pl_filter_range_end(const pl_filter *f);

/* The object ID of t's main executable: the object defining "main", else
   the object named like the process's exe; 0 if neither is found. */
uint32_t pl_main_object(const pl_trace *t);

/* Per function ID of t (1..pl_trace_nfunctions), whether f shows it: a
   malloc'ed array of nfunctions + 1 bytes, or NULL if out of memory.
   With demangle, patterns also match the demangled name. */
uint8_t *pl_filter_functions(const pl_filter *f, const pl_trace *t,
                             int demangle);

#ifdef __cplusplus
}
#endif

#endif
