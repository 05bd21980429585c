/* SPDX-License-Identifier: MIT */
/* What part of a thread's events the readable views show (--replay,
   --stacks, parlot-diff): the filter options they share, and an iterator
   over one thread's events that applies them.

   A filtered-out call is dropped with its return; its callees stay, one
   level up (they are shown under the nearest shown caller).  Depths in
   the view count shown frames only, so that two runs filtered alike
   compare alike.  The iterator keeps one byte per open frame: memory
   follows the call depth, never the trace length. */
#ifndef PL_VIEW_H
#define PL_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "pl_trace.h"

typedef struct {
   int       main_only;    /* --images=main: the main executable's functions */
   char    **only;         /* --only: show only functions matching one */
   size_t    nonly;
   char    **hide;         /* --hide: never show functions matching one */
   size_t    nhide;
   uint32_t  max_depth;    /* --depth: deepest shown level, 0 = all */
   uint64_t  first, last;  /* --range: event numbers (from 1) shown;
                              last 0 = to the end */
} pl_filter;

/* Apply one filter option (name without "--": "images", "only", "hide",
   "depth", "range") to f.  0, or -1 with a one-line reason in why. */
int  pl_filter_option(pl_filter *f, const char *name, const char *arg,
                      char *why, size_t whylen);
void pl_filter_free(pl_filter *f);
/* Whether f drops anything at all. */
int  pl_filter_active(const pl_filter *f);
/* What a header should say about f ("images=main only=MPI_* ..."), or ""
   when nothing is filtered; static storage, valid until the next call. */
const char *pl_filter_describe(const pl_filter *f);

/* The object ID of t's main executable: the object defining "main", else
   the object named like the process's exe; 0 if neither is found. */
uint32_t pl_main_object(const pl_trace *t);

/* Per function ID of t (1..pl_trace_nfunctions), whether f shows it: a
   malloc'ed array of nfunctions + 1 bytes, or NULL if out of memory.
   Patterns are matched against the demangled name (with demangle) and
   the name as recorded. */
uint8_t *pl_filter_functions(const pl_filter *f, const pl_trace *t,
                             int demangle);

/* ---- Shown events of one thread ---------------------------------------- */

typedef struct {
   uint32_t fn;        /* trace function ID */
   uint32_t depth;     /* among shown frames: 1 = outermost shown */
   uint32_t kind;      /* enum pl_event_kind */
   uint64_t number;    /* event number in the thread's stream, from 1 */
} pl_vevent;

typedef struct pl_view pl_view;

/* Iterate thread `index` of t through f; keep is pl_filter_functions()'s
   array for t (kept by the caller for the view's life). */
pl_view *pl_view_open(const pl_trace *t, size_t index, const pl_filter *f,
                      const uint8_t *keep, pl_error *err);
void     pl_view_close(pl_view *v);
/* Next batch of shown events, as pl_events_next(): the count at *ev, 0 at
   the end of the thread, -1 with *err filled. */
long     pl_view_next(pl_view *v, const pl_vevent **ev, pl_error *err);
/* The thread's whole call stack (trace function IDs, outermost first)
   after the events returned so far, unfiltered. */
const uint32_t *pl_view_stack(const pl_view *v, size_t *depth);
/* Events of the thread read so far (shown or not). */
uint64_t pl_view_events(const pl_view *v);

#endif
