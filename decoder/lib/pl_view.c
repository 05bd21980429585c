/* SPDX-License-Identifier: MIT */
/* A thread's events through a filter (pl_view.h). */

#define _XOPEN_SOURCE 700

#include <stdlib.h>
#include <string.h>

#include "pl_alloc.h"
#include "pl_frames.h"
#include "pl_view.h"

struct pl_view {
   pl_events      *it;
   const pl_filter *f;
   const uint8_t  *keep;
   uint8_t        *stop;       /* [fn]: a call of fn may be shown where the
                                  frame on top is not the program's own
                                  (pl_events_skip) */
   pl_frames       frames;     /* which open frames are shown */
   uint32_t        depth;      /* shown frames open */
   uint32_t        call_depth; /* shown frames open after the last call */
   uint64_t        number;     /* events read */
   pl_vevent      *out;
   size_t          out_cap;
   size_t          out_n;      /* pl_view_next()'s last batch: out[0..n) */
   pl_event       *plain;      /* the same as pl_event */
   size_t          plain_cap;
   const uint64_t *costs;      /* the last batch's costs, NULL if none */
   uint64_t       *cost_out;   /* a filtered batch's: hidden events' costs
                                  go to the next shown one */
   size_t          cost_cap;
   uint64_t        cost_acc;   /* costs of hidden events since the last
                                  shown one */
   uint64_t        first, last;   /* the thread's range (pl_filter.h) */
   const pl_tracing *tr;       /* recording changes of the thread */
   size_t          ntr, next_tr;
   uint64_t        rec_from, rec_to;  /* events (rec_from, rec_to] re-create
                                         open frames (TRACING chunk) */
   int             done;
};

/* Move to the next TRACING chunk that re-creates frames. */
static void next_recreation(pl_view *v)
{
   v->rec_from = v->rec_to = UINT64_MAX;
   while (v->next_tr < v->ntr) {
      const pl_tracing *g = &v->tr[v->next_tr++];
      if (g->recreated) {
         v->rec_from = g->position;
         v->rec_to = g->position + g->recreated;
         return;
      }
   }
}

/* PL_VEV_RECREATED for event number num (from 1), if it re-creates a
   frame. */
static inline uint32_t flags_of(pl_view *v, uint64_t num)
{
   while (num > v->rec_to)
      next_recreation(v);
   return num > v->rec_from && num <= v->rec_to ? PL_VEV_RECREATED : 0;
}

pl_view *pl_view_open(const pl_trace *t, size_t index, const pl_filter *f,
                      const uint8_t *keep, pl_error *err)
{
   pl_view *v = calloc(1, sizeof *v);
   if (!v) {
      pl_error_set(err, 0, "out of memory");
      return NULL;
   }
   /* a filter that drops nothing is no filter: events pass unchanged */
   v->f = pl_filter_active(f) ? f : NULL;
   v->keep = keep;
   v->it = pl_events_open(t, index, err);
   if (!v->it) {
      free(v);
      return NULL;
   }
   v->first = 1;
   v->last = UINT64_MAX;
   if (v->f) {
      pl_filter_thread_range(v->f, t, index, &v->first, &v->last);
      if (!(v->stop = pl_frames_stops(keep, pl_trace_nfunctions(t)))) {
         pl_view_close(v);
         pl_error_set(err, 0, "out of memory");
         return NULL;
      }
   }
   v->tr = pl_trace_tracing(t, index, &v->ntr);
   next_recreation(v);
   return v;
}

void pl_view_close(pl_view *v)
{
   if (!v)
      return;
   pl_events_close(v->it);
   free(v->stop);
   free(v->frames.st);
   free(v->out);
   free(v->plain);
   free(v->cost_out);
   free(v);
}

/* Without a filter: the stream's batch as it is, numbered. */
static long next_unfiltered(pl_view *v, const pl_vevent **ev, pl_error *err)
{
   const pl_event *e;
   long n = pl_events_next(v->it, &e, err), i;

   if (n <= 0)
      return n;
   if (pl_grow(&v->out, &v->out_cap, (size_t)n, sizeof *v->out) < 0) {
      pl_error_set(err, 0, "out of memory");
      return -1;
   }
   for (i = 0; i < n; i++) {
      v->out[i].fn = e[i].fn;
      v->out[i].depth = e[i].depth;
      v->out[i].kind = e[i].kind;
      v->out[i].number = ++v->number;
      v->out[i].flags = flags_of(v, v->number);
      if (e[i].kind == PL_EV_CALL)
         v->call_depth = e[i].depth;
   }
   v->out_n = (size_t)n;
   v->costs = pl_events_costs(v->it);
   *ev = v->out;
   return n;
}

/* Go past the events inside the frame on top if it is not the program's
   own, without their being made: in a hung MPI program, a library's
   polling loop is nearly all of a thread's events. */
static void skip_inside(pl_view *v)
{
   size_t raw;
   uint64_t cost, k;
   int called;

   pl_events_stack(v->it, &raw);
   if (pl_frames_own(&v->frames, (uint32_t)raw))
      return;
   k = pl_events_skip(v->it, (uint32_t)raw, v->stop,
                      v->last == UINT64_MAX ? UINT64_MAX
                                            : v->last - v->number,
                      &cost, &called);
   v->number += k;
   v->cost_acc += cost;
   if (called)
      v->call_depth = v->depth;
}

long pl_view_next(pl_view *v, const pl_vevent **ev, pl_error *err)
{
   const pl_filter *f = v->f;
   uint64_t first = v->first, last = v->last;
   uint32_t max_depth;

   if (!f)
      return next_unfiltered(v, ev, err);
   max_depth = pl_filter_max_depth(f);
   if (first > last)
      v->done = 1;
   while (!v->done) {
      const pl_event *e;
      long n, i;
      size_t k = 0;
      const uint64_t *c;

      skip_inside(v);
      if (v->number >= last) {
         v->done = 1;
         break;
      }
      n = pl_events_next(v->it, &e, err);
      if (n < 0)
         return -1;
      if (n == 0)
         break;
      c = pl_events_costs(v->it);
      if (pl_grow(&v->out, &v->out_cap, (size_t)n, sizeof *v->out) < 0
          || (c && pl_grow(&v->cost_out, &v->cost_cap, (size_t)n,
                           sizeof *v->cost_out) < 0)) {
         pl_error_set(err, 0, "out of memory");
         return -1;
      }
      for (i = 0; i < n; i++) {
         uint64_t num = ++v->number;
         uint32_t d = e[i].depth;
         int show;

         if (c)
            v->cost_acc += c[i];
         if (e[i].kind == PL_EV_CALL) {
            if ((show = pl_frames_call(&v->frames, v->keep, e[i].fn, d)) < 0) {
               pl_error_set(err, 0, "out of memory");
               return -1;
            }
            if (show && (num < first || num > last
                         || (max_depth && v->depth >= max_depth))) {
               pl_frames_hide(&v->frames, d);
               show = 0;
            }
            if (show)
               v->depth++;
            v->call_depth = v->depth;
         } else {
            /* a return ends the frame its call opened (d <= depth seen) */
            int was = pl_frames_return(&v->frames, d);
            show = was && num <= last;
            if (was)
               v->depth--;
         }
         if (show) {
            pl_vevent *o = &v->out[k++];
            o->fn = e[i].fn;
            o->kind = e[i].kind;
            o->depth = e[i].kind == PL_EV_CALL ? v->depth : v->depth + 1;
            o->number = num;
            o->flags = flags_of(v, num);
            if (c) {
               v->cost_out[k - 1] = v->cost_acc;
               v->cost_acc = 0;
            }
         }
         /* the rest of the batch inside a frame that shows nothing, as
            skip_inside goes past the next batches' */
         d -= e[i].kind != PL_EV_CALL;          /* the frame on top */
         if (!pl_frames_own(&v->frames, d)) {
            long j = i + 1, end;
            end = j + (long)pl_frames_inside(e + j, (size_t)(n - j), d,
                                             v->stop);
            for (; j < end; j++) {
               if (c)
                  v->cost_acc += c[j];
               if (e[j].kind == PL_EV_CALL)
                  v->call_depth = v->depth;
            }
            v->number += (uint64_t)(end - i - 1);
            i = end - 1;
         }
      }
      if (v->number >= last)
         v->done = 1;
      if (k) {
         v->out_n = k;
         v->costs = c ? v->cost_out : NULL;
         *ev = v->out;
         return (long)k;
      }
   }
   return 0;
}

const pl_event *pl_view_batch_events(pl_view *v)
{
   size_t i;
   if (pl_grow(&v->plain, &v->plain_cap, v->out_n ? v->out_n : 1,
               sizeof *v->plain) < 0)
      return NULL;
   for (i = 0; i < v->out_n; i++) {
      v->plain[i].fn = v->out[i].fn;
      v->plain[i].depth = v->out[i].depth;
      v->plain[i].kind = v->out[i].kind;
   }
   return v->plain;
}

long pl_view_next_events(pl_view *v, const pl_event **ev, pl_error *err)
{
   const pl_vevent *ve;
   long n;

   if (!v->f) {                /* no copy */
      n = pl_events_next(v->it, ev, err);
      if (n > 0)
         v->number += (uint64_t)n;
      v->costs = pl_events_costs(v->it);
      return n;
   }
   if ((n = pl_view_next(v, &ve, err)) <= 0)
      return n;
   if (!(*ev = pl_view_batch_events(v))) {
      pl_error_set(err, 0, "out of memory");
      return -1;
   }
   return n;
}

const uint64_t *pl_view_costs(const pl_view *v)
{
   return v->costs;
}

void pl_view_skip_costs(pl_view *v)
{
   pl_events_skip_costs(v->it);
}

const uint32_t *pl_view_stack(const pl_view *v, size_t *depth)
{
   return pl_events_stack(v->it, depth);
}

uint32_t pl_view_last_call_depth(const pl_view *v)
{
   return v->call_depth;
}

uint64_t pl_view_events(const pl_view *v)
{
   return v->number;
}

uint64_t pl_view_position(const pl_view *v)
{
   return pl_events_position(v->it);
}
