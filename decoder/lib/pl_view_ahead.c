/* SPDX-License-Identifier: MIT */
/* A view's batches decoded ahead (pl_view_ahead.h).  The worker copies
   the view's batches into blocks of about BLOCK_EVENTS events (events,
   and costs when the thread has them); the reader takes a block as one
   batch. */
#include <stdlib.h>
#include <string.h>

#include "pl_alloc.h"
#include "pl_parallel.h"
#include "pl_view_ahead.h"

#define BLOCKS       4
#define BLOCK_EVENTS 16384

typedef struct {
   pl_event *ev;
   uint64_t *costs;
   int       has_costs;     /* the view gave costs (all or none of a thread) */
   size_t    n, ev_cap, cost_cap;
   uint64_t  position;      /* the view's, after the block */
   int       status;        /* 0 more follow; 1 the end; -1 error */
   pl_error  err;
} block;

struct pl_view_ahead {
   pl_view  *view;
   pl_ahead *worker;
   block     b[BLOCKS];
   int       ended, failed; /* the block taken last ended the thread */
   pl_error  err;
};

static int fill(void *ctx, size_t k, const pl_ahead *worker)
{
   pl_view_ahead *a = ctx;
   block *b = &a->b[k];

   b->n = 0;
   b->status = 0;
   b->has_costs = 0;
   while (b->n < BLOCK_EVENTS && !pl_ahead_stopping(worker)) {
      const pl_event *ev;
      const uint64_t *c;
      long n = pl_view_next_events(a->view, &ev, &b->err);
      if (n <= 0) {
         b->status = n < 0 ? -1 : 1;
         break;
      }
      c = pl_view_costs(a->view);
      if (pl_grow(&b->ev, &b->ev_cap, b->n + (size_t)n, sizeof *b->ev) < 0
          || (c && pl_grow(&b->costs, &b->cost_cap, b->n + (size_t)n,
                           sizeof *b->costs) < 0)) {
         pl_error_set(&b->err, 0, "out of memory");
         b->status = -1;
         break;
      }
      memcpy(b->ev + b->n, ev, (size_t)n * sizeof *ev);
      if (c)
         memcpy(b->costs + b->n, c, (size_t)n * sizeof *c);
      b->has_costs = c != NULL;
      b->n += (size_t)n;
   }
   b->position = pl_view_position(a->view);
   return b->status == 0;
}

pl_view_ahead *pl_view_ahead_start(pl_view *v)
{
   pl_view_ahead *a = calloc(1, sizeof *a);
   if (!a)
      return NULL;
   a->view = v;
   if (!(a->worker = pl_ahead_start(BLOCKS, fill, a))) {
      free(a);
      return NULL;
   }
   return a;
}

long pl_view_ahead_next(pl_view_ahead *a, const pl_event **ev,
                        const uint64_t **costs, uint64_t *position,
                        pl_error *err)
{
   for (;;) {
      const block *b;
      if (a->failed) {
         *err = a->err;
         return -1;
      }
      if (a->ended)
         return 0;
      b = &a->b[pl_ahead_next(a->worker)];
      if (b->status < 0) {
         a->failed = 1;
         a->err = b->err;
      } else if (b->status > 0) {
         a->ended = 1;
      }
      if (b->n > 0) {
         *ev = b->ev;
         *costs = b->has_costs ? b->costs : NULL;
         *position = b->position;
         return (long)b->n;
      }
   }
}

void pl_view_ahead_stop(pl_view_ahead *a)
{
   if (!a)
      return;
   pl_ahead_stop(a->worker);
   for (size_t i = 0; i < BLOCKS; i++) {
      free(a->b[i].ev);
      free(a->b[i].costs);
   }
   free(a);
}
