/* SPDX-License-Identifier: MIT */
/* The notes of a thread's stream — marks (PARLOT_MARK) and recording
   changes (pl_trace.h) — in stream order, for views that print them
   between events (--events, --replay).  A note at position P lies between
   events P and P + 1; those outside the thread's range (pl_filter.h) are
   left out. */
#ifndef THREAD_NOTES_H
#define THREAD_NOTES_H

#include <stdint.h>

#include "pl_filter.h"
#include "pl_trace.h"

typedef struct {
   const pl_mark    *marks;
   size_t            nmarks, mi;
   const pl_tracing *tracing;
   size_t            ntracing, ti;
   uint64_t          first, last;
} thread_notes;

/* One note: exactly one of mark and tracing is set. */
typedef struct {
   const pl_mark    *mark;
   const pl_tracing *tracing;
} thread_note;

/* f may be NULL (the whole thread). */
void thread_notes_open(thread_notes *s, const pl_trace *t, size_t index,
                       const pl_filter *f);
/* Whether the thread has notes at all. */
int  thread_notes_any(const thread_notes *s);
/* The position of the next note not returned yet, UINT64_MAX if none:
   events after it are after the note. */
uint64_t thread_notes_next_at(const thread_notes *s);
/* The next note that lies before event number `number` (UINT64_MAX: the
   rest), in order: 1 with *n filled, or 0. */
int  thread_notes_before(thread_notes *s, uint64_t number, thread_note *n);

#endif
