/* SPDX-License-Identifier: MIT */
/* One thread's events as a filter (pl_filter.h) shows them, in order,
   with their depths among shown frames and their numbers in the thread's
   stream.  The iterator keeps one byte per open frame: memory follows
   the call depth, never the trace length.  (Since libparlot 0.2.) */
#ifndef PL_VIEW_H
#define PL_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "pl_filter.h"
#include "pl_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
   uint32_t fn;        /* trace function ID */
   uint32_t depth;     /* among shown frames: 1 = outermost shown */
   uint32_t kind;      /* enum pl_event_kind */
   uint64_t number;    /* event number in the thread's stream, from 1 */
   uint32_t flags;     /* PL_VEV_RECREATED */
} pl_vevent;

/* The entry records a frame that was already open when the thread's
   recording started (a TRACING chunk, pl_trace.h): not a call made here.
   (A forked child's inherited entries are counted by pl_thread_info's
   inherited_depth instead.) */
#define PL_VEV_RECREATED 1u

typedef struct pl_view pl_view;

/* Iterate thread `index` of t through f; keep is pl_filter_functions()'s
   array for t.  f and keep must outlive the view.  f NULL (or a filter
   that drops nothing; keep may then be NULL): every event, unchanged. */
pl_view *pl_view_open(const pl_trace *t, size_t index, const pl_filter *f,
                      const uint8_t *keep, pl_error *err);
void     pl_view_close(pl_view *v);
/* Next batch of shown events, as pl_events_next(): the count at *ev, 0 at
   the end of the thread (or of the range), -1 with *err filled. */
long     pl_view_next(pl_view *v, const pl_vevent **ev, pl_error *err);
/* The same batch as pl_event (depths among shown frames), for code written
   for pl_events_next(); unfiltered, the stream's own batch, not copied.
   Use one of the two functions on a view, not both. */
long     pl_view_next_events(pl_view *v, const pl_event **ev, pl_error *err);
/* The batch pl_view_next() returned last, as pl_event (valid until the
   view's next call); for code that wants both forms.  NULL if out of
   memory. */
const pl_event *pl_view_batch_events(pl_view *v);
/* The costs of the last batch's events (pl_events_costs()), in the same
   order: the instructions since the previous shown event, so the events
   a filter hides count for the next one shown.  NULL if the thread has
   no costs.  (Since libparlot 0.9.) */
const uint64_t *pl_view_costs(const pl_view *v);
/* Do not decode the thread's costs (pl_events_skip_costs()): call it
   before the first pl_view_next().  (Since libparlot 0.11.) */
void pl_view_skip_costs(pl_view *v);
/* The thread's whole call stack (trace function IDs, outermost first)
   after the events read so far, unfiltered. */
const uint32_t *pl_view_stack(const pl_view *v, size_t *depth);
/* The shown frames that were open right after the last call pl_view_next
   has read (shown or not): where the thread was when it made its last call.  At
   the end of a thread whose frames the tool closed when its process
   exited, that is where it was when the process exited (the frames a
   return has closed since keep their place in a position). */
uint32_t pl_view_last_call_depth(const pl_view *v);
/* Events of the thread read so far (shown or not). */
uint64_t pl_view_events(const pl_view *v);
/* Stream bytes decoded so far, as pl_events_position(). */
uint64_t pl_view_position(const pl_view *v);

#ifdef __cplusplus
}
#endif

#endif
