/* SPDX-License-Identifier: MIT */
/* The event iterator (pl_events_*, pl_trace.h): a thread's STREAM chunks
   read through a window, decoded in batches, checked against the
   thread's THREAD_END, with the inherited stack and the frames TRACING
   chunks re-create delivered as entries. */

#define _FILE_OFFSET_BITS 64
#define _XOPEN_SOURCE 700

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include "pl_codec.h"
#include "pl_cost_codec.h"
#include "pl_format.h"
#include "pl_alloc.h"
#include "pl_trace_private.h"

/* The thread's COSTS chunks, decoded beside its events: each chunk is
   read whole, and its costs are handed out as the events come. */
typedef struct {
   pl_cost_model model;
   pl_rcc_dec dec;
   uint8_t  *buf;             /* the chunk being decoded */
   size_t    buf_cap;
   size_t    next;            /* next entry of th->costs to read */
   uint64_t  chunk_off;
   uint32_t  left;            /* its costs not yet decoded */
   uint64_t  done;            /* costs decoded */
} cost_reader;

struct pl_events {
   const pl_trace   *t;
   const thread_rec *th;
   reader    r;               /* window over the thread's chunks */
   size_t    next_chunk;      /* next entry of th->chunks to read */
   int       in_chunk;        /* a chunk is being decoded (raw limit set) */
   uint64_t  chunk_off;       /* header offset of the chunk being decoded */
   uint64_t  data_off;        /* file offset of its next unread data byte */
   uint64_t  data_left;       /* its data bytes not yet handed out */
   uint64_t  fed;             /* data bytes handed out in all */
   const uint8_t *in, *in_end;  /* data handed to the decoder */
   int       more_output;     /* last run filled the batch: run again */
   int       state;           /* 0 running, 1 done, -1 failed */
   pl_error  err;             /* the error once failed */
   uint64_t  events;          /* events returned so far */
   uint64_t  enter_end;       /* events before it must be entries: the
                                 inherited stack, or the re-created frames
                                 of a TRACING chunk */
   uint64_t  enter_from;      /* where those entries begin */
   uint64_t  seg_at;          /* position of the next TRACING chunk that
                                 re-creates frames, UINT64_MAX if none */
   size_t    next_seg;        /* its index in th->tracing */
   uint64_t  depth_limit;     /* from THREAD_END, else UINT32_MAX */
   uint32_t *stack;
   size_t    sp, stack_cap;
   pl_decoder dec;
   cost_reader *cr;           /* NULL: the thread has no costs */
   size_t    nvalues;         /* values[0..nvalues): the decoded batch */
   size_t    vpos;            /* values before it are events already */
   size_t    from;            /* the last batch returned: ev + from */
   int       overrun;         /* the stream holds values past THREAD_END's
                                 count: fail once the batch is replayed */
   uint32_t  values[BATCH];
   pl_event  ev[BATCH];
   uint64_t  costs[BATCH];
};

pl_events *pl_events_open(const pl_trace *t, size_t index, pl_error *err)
{
   pl_events *it;
   const thread_rec *th;

   if (index >= t->nthreads) {
      pl_error_set(err, 0, "no thread with index %zu", index);
      return NULL;
   }
   th = &t->threads[index];
   it = calloc(1, sizeof *it);
   if (it)
      it->r.buf = malloc(EVENTS_BUF_SIZE);
   if (!it || !it->r.buf) {
      free(it);
      pl_error_set(err, 0, "out of memory");
      return NULL;
   }
   it->t = t;
   it->th = th;
   it->r.fd = t->fd;
   it->r.origin = t->origin;
   it->r.size = t->size;
   it->r.cap = EVENTS_BUF_SIZE;
   it->enter_end = th->info.inherited_depth;
   it->seg_at = UINT64_MAX;
   while (it->next_seg < th->ntracing) {
      if (th->tracing[it->next_seg].recreated) {
         it->seg_at = th->tracing[it->next_seg].position;
         break;
      }
      it->next_seg++;
   }
   it->depth_limit = UINT32_MAX;
   if (th->info.ended && th->info.max_depth < it->depth_limit)
      it->depth_limit = th->info.max_depth;
   if (th->ncosts) {
      it->cr = calloc(1, sizeof *it->cr);
      if (!it->cr) {
         free(it->r.buf);
         free(it);
         pl_error_set(err, 0, "out of memory");
         return NULL;
      }
      pl_cost_model_init(&it->cr->model, 1, th->cost_revision);  /* calloc */
   }
   pl_dec_init(&it->dec, (int)th->info.codec);
   /* matches were bounded from format 1.3 on (pl_codec.h PL_MAX_MATCH) */
   it->dec.long_matches = t->major == 1 && t->minor < 3;
   return it;
}

void pl_events_close(pl_events *it)
{
   if (!it)
      return;
   free(it->r.buf);
   free(it->stack);
   pl_events_skip_costs(it);
   free(it);
}

const uint64_t *pl_events_costs(const pl_events *it)
{
   return it->cr ? it->costs + it->from : NULL;
}

void pl_events_skip_costs(pl_events *it)
{
   if (it->cr)
      free(it->cr->buf);
   free(it->cr);
   it->cr = NULL;
}

uint64_t pl_events_position(const pl_events *it)
{
   return it->fed - (uint64_t)(it->in_end - it->in);
}

const uint32_t *pl_events_stack(const pl_events *it, size_t *depth)
{
   *depth = it->sp;
   return it->stack;
}

static long fail(pl_events *it, uint64_t off, const char *fmt, ...)
   __attribute__((format(printf, 3, 4)));

static long fail(pl_events *it, uint64_t off, const char *fmt, ...)
{
   va_list ap;
   it->state = -1;
   it->err.offset = pl_trace_restored_off(it->t, off);
   va_start(ap, fmt);
   vsnprintf(it->err.msg, sizeof it->err.msg, fmt, ap);
   va_end(ap);
   return -1;
}

/* Read the window for the current chunk's next data, taking following
   chunks of the thread along when little else lies in between. */
static int refill(pl_events *it)
{
   const thread_rec *th = it->th;
   uint64_t start = it->data_off, end;
   size_t cap = it->r.cap, j;

   if (it->data_left >= cap) {
      end = start + cap;
   } else {
      end = start + it->data_left;
      for (j = it->next_chunk; j < th->nchunks; j++) {
         uint64_t cs = th->chunks[j].off + PL_CHUNK_HEADER_SIZE
                       + PL_STREAM_PREFIX_SIZE;
         uint64_t ce = cs + th->chunks[j].len;
         if (ce - start > cap
             || (cs - end > READ_GAP_MAX && cs - end > end - start))
            break;
         end = ce;
      }
   }
   if (end > it->r.size || pl_reader_fill(&it->r, start, (size_t)(end - start)) < 0)
      return -1;
   return 0;
}

/* Hand the decoder the next piece of stream data: 1, or 0 at the end of
   the thread's data, or -1 (failed).  A new chunk starts with its raw_end
   as the decoder's raw limit: the chunk's bytes decode to exactly that. */
static int feed(pl_events *it)
{
   size_t n;
   uint64_t avail;

   if (it->data_left == 0) {
      const chunk_ref *c;
      if (it->next_chunk == it->th->nchunks)
         return 0;
      c = &it->th->chunks[it->next_chunk++];
      it->chunk_off = c->off;
      it->data_off = c->off + PL_CHUNK_HEADER_SIZE + PL_STREAM_PREFIX_SIZE;
      it->data_left = c->len;
      it->in_chunk = 1;
      pl_dec_set_raw_limit(&it->dec, c->raw_end);
   }
   if (it->data_off < it->r.base || it->data_off >= it->r.base + it->r.len) {
      if (refill(it) < 0) {
         if (it->r.err)
            return (int)fail(it, it->data_off, "read error: %s",
                             strerror(it->r.err));
         return (int)fail(it, it->data_off,
                          "truncated: the file shrank while being read");
      }
   }
   avail = it->r.base + it->r.len - it->data_off;
   n = (size_t)(avail < it->data_left ? avail : it->data_left);
   it->in = it->r.buf + (it->data_off - it->r.base);
   it->in_end = it->in + n;
   it->data_off += n;
   it->data_left -= n;
   it->fed += n;
   return 1;
}

/* A stream error found by the codec: where the decoder stopped reading. */
static long corrupt(pl_events *it)
{
   return fail(it, it->r.base + (uint64_t)(it->in - it->r.buf),
               "thread %u: corrupt stream: %s", it->th->info.number,
               it->dec.error ? it->dec.error : "?");
}

/* All of a chunk's bytes are decoded (and every value they yield): they
   must have produced exactly its raw_end. */
static int end_chunk(pl_events *it)
{
   it->in_chunk = 0;
   if (it->dec.error)
      return (int)corrupt(it);
   if (pl_dec_end_chunk(&it->dec) < 0)
      return (int)fail(it, it->chunk_off, "thread %u: corrupt stream: %s "
                       "(STREAM chunk raw_end %llu, its bytes give %llu)",
                       it->th->info.number, it->dec.error,
                       ULL(it->dec.raw_limit), ULL(it->dec.raw_bytes));
   return 0;
}

/* All data decoded: check the stream against its THREAD_END record. */
static long finish(pl_events *it)
{
   const pl_thread_info *ti = &it->th->info;
   uint64_t off = it->th->end_off;

   if (!ti->ended) {
      /* No THREAD_END: the stream ends with its last chunk.  After a
         successful exec every stream was synced, so it must end on an
         event boundary; in a truncated trace a partial event at the end
         is dropped (pl_trace_damage() reports the truncation). */
      if (it->t->end == PL_TRACE_EXECED && !it->t->damaged
          && !pl_dec_at_boundary(&it->dec))
         return fail(it, it->th->nchunks
                     ? it->th->chunks[it->th->nchunks - 1].off : 0,
                     "thread %u: the stream ends inside an event at the "
                     "final EXEC", ti->number);
      it->state = 1;
      return 0;
   }
   if (it->dec.raw_bytes != ti->raw_bytes)
      return fail(it, off, "thread %u: the stream holds %llu raw bytes, "
                  "THREAD_END records %llu", ti->number,
                  ULL(it->dec.raw_bytes), ULL(ti->raw_bytes));
   if (!pl_dec_at_boundary(&it->dec))
      return fail(it, off, "thread %u: the stream ends inside an event",
                  ti->number);
   if (it->events != ti->events)
      return fail(it, off, "thread %u: the stream holds %llu events, "
                  "THREAD_END records %llu", ti->number,
                  ULL(it->events), ULL(ti->events));
   /* a fatal signal leaves the frames open then (2.3) */
   if (it->sp != 0 && ti->end_reason != PL_END_SIGNAL)
      return fail(it, off, "thread %u: %zu frames still open at THREAD_END",
                  ti->number, it->sp);
   it->state = 1;
   return 0;
}

static int grow_stack(pl_events *it)
{
   size_t ncap = it->stack_cap ? it->stack_cap * 2 : 256;
   uint32_t *s;
   if (ncap > it->depth_limit)
      ncap = (size_t)it->depth_limit;
   s = realloc(it->stack, ncap * sizeof *s);
   if (!s)
      return -1;
   it->stack = s;
   it->stack_cap = ncap;
   return 0;
}

/* Event number seg_at begins entries re-creating open frames: they must
   all be entries; find the next such point.  Entries that must come
   anyway (the inherited ones, in a damaged trace those of an earlier
   TRACING chunk) are not cut short by it. */
static void next_segment(pl_events *it)
{
   const thread_rec *th = it->th;
   const pl_tracing *g = &th->tracing[it->next_seg];
   if (g->position >= it->enter_end)
      it->enter_from = g->position;
   if (g->position + g->recreated > it->enter_end)
      it->enter_end = g->position + g->recreated;
   it->seg_at = UINT64_MAX;
   while (++it->next_seg < th->ntracing)
      if (th->tracing[it->next_seg].recreated) {
         it->seg_at = th->tracing[it->next_seg].position;
         break;
      }
}

/* The batch held values past THREAD_END's count: an error once those
   it does count are events. */
static void overrun_fail(pl_events *it)
{
   fail(it, it->chunk_off, "thread %u: the stream holds more than the %llu "
        "events THREAD_END records", it->th->info.number,
        ULL(it->th->info.events));
}

/* Turn the decoded values from it->vpos on (at most n) into events,
   replaying the call stack; it->vpos moves past them.  Skipping (a
   constant in each caller), the events are not written out, and the
   replay stops before the first event that is not a return of a frame
   above raw depth floor or a call of a function stop does not mark.
   Returns how many were replayed: fewer than n after an error too
   (it->state == -1). */
static inline __attribute__((always_inline))
size_t replay_values(pl_events *it, size_t n, int skipping, uint32_t floor,
                     const uint8_t *stop, int *called)
{
   const uint32_t *v = it->values + it->vpos;
   pl_event *ev = it->ev + it->vpos;
   uint32_t nfns = it->t->nfns;
   uint32_t number = it->th->info.number;
   uint32_t *stack = it->stack;
   size_t sp = it->sp, cap = it->stack_cap, i;
   int stopped = 0;

   for (i = 0; i < n; i++) {
      uint32_t x = v[i];
      if (skipping && (x == PL_WORD_EXIT ? sp <= floor
                                         : x <= nfns && stop[x])) {
         stopped = 1;
         break;
      }
      if (it->events + i == it->seg_at)
         next_segment(it);
      if (x == PL_WORD_EXIT) {
         if (sp == 0 || it->events + i < it->enter_end)
            break;
         --sp;
         if (!skipping) {
            ev[i].fn = stack[sp];
            ev[i].depth = (uint32_t)sp + 1;
            ev[i].kind = PL_EV_RETURN;
         }
      } else {
         if (x > nfns)
            break;
         if (sp == cap) {
            it->sp = sp;
            if (sp >= it->depth_limit || grow_stack(it) < 0)
               break;
            stack = it->stack;
            cap = it->stack_cap;
         }
         stack[sp++] = x;
         if (skipping) {
            *called = 1;
         } else {
            ev[i].fn = x;
            ev[i].depth = (uint32_t)sp;
            ev[i].kind = PL_EV_CALL;
         }
      }
   }
   it->sp = sp;
   if (i < n && !stopped) {
      uint64_t e = it->events + i + 1;
      uint32_t x = v[i];
      if (x == PL_WORD_EXIT && e <= it->th->info.inherited_depth)
         fail(it, it->chunk_off, "thread %u, event %llu: exit among the %u "
              "inherited entries", number, ULL(e),
              it->th->info.inherited_depth);
      else if (x == PL_WORD_EXIT && e <= it->enter_end)
         fail(it, it->chunk_off, "thread %u, event %llu: exit among the %llu "
              "entries re-creating open frames after event %llu (TRACING "
              "chunk)", number, ULL(e), ULL(it->enter_end - it->enter_from),
              ULL(it->enter_from));
      else if (x == PL_WORD_EXIT)
         fail(it, it->chunk_off, "thread %u, event %llu: exit with an empty "
              "call stack", number, ULL(e));
      else if (x > nfns)
         fail(it, it->chunk_off, "thread %u, event %llu: unknown function ID "
              "%u (%u defined)", number, ULL(e), x, nfns);
      else if (sp >= it->depth_limit)
         fail(it, it->chunk_off, "thread %u, event %llu: call depth exceeds "
              "%llu", number, ULL(e), ULL(it->depth_limit));
      else
         fail(it, it->chunk_off, "thread %u, event %llu: out of memory for a "
              "call stack of depth %zu", number, ULL(e), sp + 1);
   }
   it->events += i;
   it->vpos += i;
   if (it->state == 0 && it->overrun && it->vpos == it->nvalues)
      overrun_fail(it);
   return i;
}

/* Read the next COSTS chunk whole: 0, or -1 (failed). */
static int next_cost_chunk(pl_events *it)
{
   cost_reader *cr = it->cr;
   const cost_ref *c = &it->th->costs[cr->next++];
   uint64_t at = c->off + PL_CHUNK_HEADER_SIZE + PL_COSTS_PREFIX_SIZE;
   const char *why;
   size_t got = 0;

   if (pl_grow(&cr->buf, &cr->buf_cap, c->len ? c->len : 1, 1) < 0)
      return (int)fail(it, c->off, "out of memory");
   while (got < c->len) {
      ssize_t k = pread(it->r.fd, cr->buf + got, c->len - got,
                        (off_t)(it->r.origin + at + got));
      if (k <= 0)
         return (int)fail(it, c->off, "%s", k < 0 ? strerror(errno)
                          : "truncated: the file shrank while being read");
      got += (size_t)k;
   }
   if ((why = pl_rcc_dec_init(&cr->dec, cr->buf, c->len)) != NULL)
      return (int)fail(it, c->off, "thread %u: corrupt COSTS chunk: %s",
                       it->th->info.number, why);
   cr->chunk_off = c->off;
   cr->left = c->count;
   return 0;
}

/* The costs of the batch's events from, from + n (their values in
   it->values) into it->costs.  Events past the last COSTS chunk (a trace
   cut short) cost 0; so do those from a damaged chunk on, the iterator
   having failed (its events so far are still returned). */
static void decode_costs(pl_events *it, size_t from, size_t n)
{
   cost_reader *cr = it->cr;
   size_t i;

   n += from;
   for (i = from; i < n; ) {
      size_t k;
      if (cr->left == 0
          && (cr->next == it->th->ncosts || it->state < 0
              || next_cost_chunk(it) < 0)) {
         it->costs[i++] = 0;
         continue;
      }
      k = pl_cost_decode_some(&cr->model, &cr->dec, it->values + i,
                              it->costs + i,
                              n - i < cr->left ? n - i : cr->left);
      i += k;
      cr->done += k;
      cr->left -= (uint32_t)k;
      if (cr->left == 0 && (pl_cost_decode_cut(&cr->model) < 0
                            || !pl_rcc_dec_exact(&cr->dec)))
         fail(it, cr->chunk_off, "thread %u: corrupt COSTS chunk: its bytes "
              "do not hold exactly its %u costs", it->th->info.number,
              it->th->costs[cr->next - 1].count);
   }
}

/* Decode the next batch of values into it->values: 1, or 0 at the end of
   the stream or after an error (it->state says which). */
static int next_values(pl_events *it)
{
   const pl_thread_info *ti = &it->th->info;

   while (it->state == 0) {
      const uint8_t *before;
      long n;
      size_t cap = BATCH;

      if (it->in == it->in_end && !it->more_output) {
         int f;
         if (it->in_chunk && it->data_left == 0 && end_chunk(it) < 0)
            break;
         f = feed(it);
         if (f < 0)
            break;
         if (f == 0) {
            finish(it);
            break;
         }
      }
      /* With a THREAD_END record, never decode more than it announces:
         a corrupt match length could otherwise run for ages. */
      if (ti->ended && ti->events - it->events < cap)
         cap = (size_t)(ti->events - it->events) + 1;
      before = it->in;
      n = pl_dec_run(&it->dec, &it->in, it->in_end, it->values, cap);
      if (n < 0) {
         corrupt(it);
         break;
      }
      it->more_output = (size_t)n == cap;
      if (n == 0) {
         if (it->in == before && it->in != it->in_end) {
            fail(it, it->r.base + (uint64_t)(it->in - it->r.buf),
                 "thread %u: corrupt stream: decoder made no progress",
                 ti->number);
            break;
         }
         continue;
      }
      it->vpos = 0;
      it->nvalues = (size_t)n;
      /* reported after the events THREAD_END does account for */
      it->overrun = ti->ended && it->events + (uint64_t)n > ti->events;
      if (it->overrun)
         it->nvalues = (size_t)(ti->events - it->events);
      if (it->nvalues == 0)
         overrun_fail(it);
      return it->state == 0;
   }
   return 0;
}

long pl_events_next(pl_events *it, const pl_event **ev, pl_error *err)
{
   while (it->state == 0) {
      size_t k;
      if (it->vpos == it->nvalues && !next_values(it))
         break;
      it->from = it->vpos;
      k = replay_values(it, it->nvalues - it->vpos, 0, 0, NULL, NULL);
      if (k > 0 && it->cr)
         decode_costs(it, it->from, k);
      if (k > 0) {
         *ev = it->ev + it->from;
         return (long)k;
      }
   }
   if (it->state < 0) {
      *err = it->err;
      return -1;
   }
   return 0;
}

uint64_t pl_events_skip(pl_events *it, uint32_t floor, const uint8_t *stop,
                        uint64_t max, uint64_t *cost, int *called)
{
   uint64_t done = 0;

   *cost = 0;
   *called = 0;
   while (it->state == 0 && done < max) {
      size_t k, left, i, from;
      if (it->vpos == it->nvalues && !next_values(it))
         break;
      from = it->vpos;
      left = it->nvalues - from;
      if (left > max - done)
         left = (size_t)(max - done);
      k = replay_values(it, left, 1, floor, stop, called);
      if (k > 0 && it->cr) {
         decode_costs(it, from, k);
         for (i = 0; i < k; i++)
            *cost += it->costs[from + i];
      }
      done += k;
      if (it->vpos < it->nvalues)
         break;                  /* an event that must be shown, or an error */
   }
   return done;
}
