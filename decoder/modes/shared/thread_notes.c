/* SPDX-License-Identifier: MIT */
/* A thread's marks and recording changes in stream order (thread_notes.h). */

#include <string.h>

#include "thread_notes.h"

void thread_notes_open(thread_notes *s, const pl_trace *t, size_t index,
                       const pl_filter *f)
{
   memset(s, 0, sizeof *s);
   s->marks = pl_trace_marks(t, index, &s->nmarks);
   s->tracing = pl_trace_tracing(t, index, &s->ntracing);
   s->first = 1;
   s->last = UINT64_MAX;
   if (f)
      pl_filter_thread_range(f, t, index, &s->first, &s->last);
}

int thread_notes_any(const thread_notes *s)
{
   return s->nmarks > 0 || s->ntracing > 0;
}

/* Whether a note at position p lies within the range's bounds. */
static int in_range(const thread_notes *s, uint64_t p)
{
   return p + 1 >= s->first && p <= s->last;
}

uint64_t thread_notes_next_at(const thread_notes *s)
{
   uint64_t m = s->mi < s->nmarks ? s->marks[s->mi].position : UINT64_MAX;
   uint64_t g = s->ti < s->ntracing ? s->tracing[s->ti].position
                                    : UINT64_MAX;
   return m < g ? m : g;
}

int thread_notes_before(thread_notes *s, uint64_t number, thread_note *n)
{
   for (;;) {
      const pl_mark *m = s->mi < s->nmarks ? &s->marks[s->mi] : NULL;
      const pl_tracing *g = s->ti < s->ntracing ? &s->tracing[s->ti] : NULL;
      uint64_t p;

      /* in stream order, then in file order */
      if (g && (!m || g->position < m->position
                || (g->position == m->position && g->seq < m->seq))) {
         m = NULL;
         p = g->position;
      } else if (m) {
         g = NULL;
         p = m->position;
      } else {
         return 0;
      }
      if (p >= number)
         return 0;
      if (m)
         s->mi++;
      else
         s->ti++;
      if (!in_range(s, p))
         continue;
      n->mark = m;
      n->tracing = g;
      return 1;
   }
}
