/* SPDX-License-Identifier: MIT */
/* LZRC (docs/codec.md, section 5).  Internal interface between pl_codec.c
   (the API, which dispatches on the codec kind) and pl_codec_lzrc.c; the
   encoder's per-word path is inline, as the tool calls it for every
   event. */
#ifndef PL_CODEC_LZRC_H
#define PL_CODEC_LZRC_H

#include "pl_codec_internal.h"

#define RC_MASK (PL_RC_WINDOW - 1u)

/* Append word w to the model's history. */
static inline void pl_rc_store(pl_rc_model *m, uint32_t w)
{
   m->hist[m->pos & RC_MASK] = (uint16_t)w;
   m->pos++;
   if (w != PL_WORD_ESCAPE && w > m->max_word)
      m->max_word = (uint16_t)w;
}

static inline void pl_lzrc_store(pl_encoder *e, uint32_t w)
{
   pl_rc_store(&e->rc, w);
   e->words++;
   e->raw_bytes += 2;
}

/* The same for a word a match copies: it is in the history already, so it
   cannot raise max_word. */
static inline void pl_lzrc_store_copied(pl_encoder *e, uint32_t w)
{
   pl_rc_model *m = &e->rc;
   m->hist[m->pos & RC_MASK] = (uint16_t)w;
   m->pos++;
   e->words++;
   e->raw_bytes += 2;
}

/* Words of an open match the ranks behind its leader are checked over at
   a time (pl_lzrc_check): a failing leader then costs at most this many
   comparisons per rank, well inside the per-event latency budget. */
#define PL_RC_BATCH 64u

void pl_lzrc_enc_init(pl_encoder *e);
void pl_lzrc_word_slow(pl_encoder *e, uint32_t v);
void pl_lzrc_check(pl_encoder *e);
int  pl_lzrc_promote(pl_encoder *e, uint32_t v);
void pl_lzrc_sync(pl_encoder *e);

/* One value-layer word.  Inline, the common case: the open match goes on
   with the candidates (ranks in e->alive) that predicted this word too.
   The candidates race for as long as the match lasts, and the lowest-ranked
   one still matching when it ends is coded; nothing is written until the
   match ends, at the latest when it is PL_MAX_MATCH words long.  Only that
   lowest one, the leader, is followed word by word (with the far ones,
   whose words will not wait); the others are checked PL_RC_BATCH words at
   a time (pl_lzrc_check), and up to the word at hand only if the leader
   fails (pl_lzrc_promote): the same stream as checking every candidate at
   every word, for one comparison per word and a tight loop per batch. */
static inline void pl_lzrc_word(pl_encoder *e, uint32_t v)
{
   if (e->match_len && PL_LIKELY(e->match_len < PL_MAX_MATCH)) {
      const uint16_t *h = e->rc.hist;
      uint32_t len = (uint32_t)e->match_len;   /* mod 2^32, as positions */
      unsigned lead = (unsigned)__builtin_ctz(e->alive);
      unsigned far = e->far & e->alive & ~(1u << lead);
      while (PL_UNLIKELY(far)) {
         unsigned k = (unsigned)__builtin_ctz(far);
         far &= far - 1u;
         if (h[(e->cand[k] + len) & RC_MASK] != v)
            e->alive &= ~(1u << k);
      }
      if (PL_UNLIKELY(len - e->checked >= PL_RC_BATCH))
         pl_lzrc_check(e);
      if (PL_LIKELY(h[(e->cand[lead] + len) & RC_MASK] == v)
          || pl_lzrc_promote(e, v)) {
         e->match_len++;
         pl_lzrc_store_copied(e, v);
         return;
      }
   }
   pl_lzrc_word_slow(e, v);
}

void pl_lzrc_dec_init(pl_decoder *d);
void pl_lzrc_begin_chunk(pl_decoder *d);
long pl_lzrc_run(pl_decoder *d, const uint8_t **in, const uint8_t *in_end,
                 uint32_t *values, size_t cap);
int  pl_lzrc_end_chunk(pl_decoder *d);
int  pl_lzrc_at_boundary(const pl_decoder *d);

#endif
