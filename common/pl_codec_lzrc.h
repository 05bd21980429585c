/* SPDX-License-Identifier: MIT */
/* LZRC, the default codec (docs/codec.md, section 5).  Internal interface
   between pl_codec.c (the API, which dispatches on the codec kind) and
   pl_codec_lzrc.c; the encoder's per-word path is inline, as the tool
   calls it for every event. */
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

void pl_lzrc_enc_init(pl_encoder *e);
void pl_lzrc_word_slow(pl_encoder *e, uint32_t v);
void pl_lzrc_sync(pl_encoder *e);

/* One value-layer word.  Inline, the common case: the open match goes on
   with the candidates (ranks in e->alive) that predicted this word too.
   The candidates race for as long as the match lasts, so that the one that
   matched longest is coded; nothing is written until the match ends, at
   the latest when it is PL_MAX_MATCH words long. */
static inline void pl_lzrc_word(pl_encoder *e, uint32_t v)
{
   if (e->match_len && PL_LIKELY(e->match_len < PL_MAX_MATCH)) {
      const uint16_t *h = e->rc.hist;
      uint32_t len = (uint32_t)e->match_len;   /* mod 2^32, as positions */
      unsigned alive = e->alive, still = 0;
      do {
         unsigned k = (unsigned)__builtin_ctz(alive);
         alive &= alive - 1u;
         if (h[(e->cand[k] + len) & RC_MASK] == v)
            still |= 1u << k;
      } while (alive);
      if (still) {
         e->alive = still;
         e->match_len++;
         pl_lzrc_store(e, v);
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
