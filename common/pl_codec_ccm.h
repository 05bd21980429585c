/* SPDX-License-Identifier: MIT */
/* CCM, the default codec (docs/codec.md, section 11).  Internal interface
   between pl_codec.c (the API, which dispatches on the codec kind) and
   pl_codec_ccm.c; the encoder's run path is inline, as the tool calls it
   for every event. */
#ifndef PL_CODEC_CCM_H
#define PL_CODEC_CCM_H

#include "pl_codec_internal.h"

#define PL_CCM_HMASK   ((1u << PL_CCM_HIST_BITS) - 1u)
#define PL_CCM_BIG     0xFFFFu   /* hist's stand-in for an ID >= 0xFFFF */
#define PL_CCM_MAX_LEN 65535u    /* matcher lengths saturate here */
#define PL_CCM_MAX_RUN 65535u    /* the longest run */

/* frame(d) of docs/codec.md 11.2: deeper frames share the last entry. */
static inline uint32_t pl_ccm_frame_ix(uint32_t depth)
{
   return depth < PL_CCM_FRAMES ? depth : PL_CCM_FRAMES - 1u;
}

static inline pl_ccm_frame *pl_ccm_frame_at(pl_ccm_model *m, uint32_t depth)
{
   return &m->frame[pl_ccm_frame_ix(depth)];
}

/* The call stack after event x (11.6), from depth: the new depth. */
static inline uint32_t pl_ccm_stack_from(pl_ccm_model *m, uint32_t depth,
                                         uint32_t x)
{
   pl_ccm_frame *t, *n;
   if (x == 0)
      return depth ? depth - 1u : 0u;
   if (depth < PL_CCM_FRAMES - 1u) {     /* neither frame is clamped */
      t = &m->frame[depth++];
      n = t + 1;
   } else {
      t = pl_ccm_frame_at(m, depth);
      if (depth < 0xFFFFFFFFu)
         depth++;
      n = pl_ccm_frame_at(m, depth);  /* the last frame: t itself */
   }
   t->c2 = t->c1;
   t->c1 = x;
   n->fn = x;
   n->c1 = n->c2 = 0;
   return depth;
}

static inline void pl_ccm_stack(pl_ccm_model *m, uint32_t x)
{
   m->depth = pl_ccm_stack_from(m, m->depth, x);
}

/* Matcher k meets the next value's short form w: an open match goes on
   (its source predicted w) or stops. */
static inline void pl_ccm_follow(pl_ccm_model *m, unsigned k, uint32_t w)
{
   pl_ccm_matcher *mt = &m->mt[k];
   if (!mt->len)
      return;
   if (m->hist[mt->ptr & PL_CCM_HMASK] == w) {
      if (mt->len < PL_CCM_MAX_LEN)
         mt->len++;
      mt->ptr++;
   } else {
      mt->len = 0;
   }
}

/* One event of a run: the long matcher's value w (a short ID), which it
   predicted, so it goes on without a check.  The short matcher goes on or
   stops; nothing looks for sources, and the hashes are made again when
   the run ends (rehash). */
static inline void pl_ccm_run_step(pl_ccm_model *m, uint32_t w)
{
   pl_ccm_matcher *lm = &m->mt[0];
   if (lm->len < PL_CCM_MAX_LEN)
      lm->len++;
   lm->ptr++;
   pl_ccm_follow(m, 1, w);
   m->hist[m->pos & PL_CCM_HMASK] = (uint16_t)w;
   m->pos++;
   pl_ccm_stack(m, w);
}

#define PL_CCM_GOING 0xFFFFFFFFu   /* fast_stop: the short matcher goes on */

/* The encoder's common case, inline in pl_enc_enter/exit: x goes on the
   open run (and does not end it).  1 if it did; else pl_ccm_event codes
   it.  Such an event only writes the history and the call stack, and
   counts itself in fast_n: the long matcher, the short one (unless it
   stops here), pos, run_len and the encoder's word counts all move one
   on per event, which pl_ccm_settle does at once when a slower path
   needs them.  Fewer counters in memory to update per event. */
static inline int pl_ccm_run_event(pl_encoder *e, uint32_t x)
{
   pl_ccm_model *m = &e->ccm;
   uint32_t k = m->fast_n, w;
   if (!m->in_run)
      return 0;
   w = m->hist[(m->mt[0].ptr + k) & PL_CCM_HMASK];
   if (x != w || w == PL_CCM_BIG || m->run_len + k + 1u >= PL_CCM_MAX_RUN)
      return 0;
   if (m->mt[1].len && m->fast_stop == PL_CCM_GOING
       && m->hist[(m->mt[1].ptr + k) & PL_CCM_HMASK] != w)
      m->fast_stop = k;
   m->hist[(m->pos + k) & PL_CCM_HMASK] = (uint16_t)w;
   pl_ccm_stack(m, w);
   m->fast_n = k + 1u;
   return 1;
}

/* pl_ccm_run_event over x[0], x[1], ... x[n - 1] while they go on the
   run: how many did (x[result] is the first that did not, if any).  The
   model's counters stay in registers across the events. */
size_t pl_ccm_run_events(pl_encoder *e, const uint32_t *x, size_t n);

/* The length of the open run so far. */
static inline uint32_t pl_ccm_run_length(const pl_ccm_model *m)
{
   return m->run_len + m->fast_n;
}

/* The fast path's events made part of the model and the counts (see
   pl_ccm_run_event). */
void pl_ccm_settle(pl_encoder *e);

/* zeroed: e's bytes are all zero, its tables need not be written. */
void pl_ccm_enc_init(pl_encoder *e, int zeroed);
/* One event: 0 an exit, else the ID of the function entered. */
void pl_ccm_event(pl_encoder *e, uint32_t x);
void pl_ccm_sync(pl_encoder *e);

void pl_ccm_dec_init(pl_decoder *d);
void pl_ccm_begin_chunk(pl_decoder *d);
long pl_ccm_run(pl_decoder *d, const uint8_t **in, const uint8_t *in_end,
                uint32_t *values, size_t cap);
int  pl_ccm_end_chunk(pl_decoder *d);
int  pl_ccm_at_boundary(const pl_decoder *d);

#endif
