/* SPDX-License-Identifier: MIT */
/* The carry-less binary range coder of the LZRC and CCM stream codecs
   (docs/codec.md 5.3): 32-bit low and range, 12-bit probabilities, every
   byte final as soon as it is written.  A stream chunk starts it afresh
   and a sync flushes it (4 bytes), so a reader can start at any chunk.
   Internal to the codecs (pl_codec_lzrc.c, pl_codec_ccm.c): the coder's
   state, its start, its end and the decoder's first steps are here, so
   that the two codecs cannot drift apart on the bytes they share. */
#ifndef PL_RC_H
#define PL_RC_H

#include "pl_codec.h"

#define PL_RC_TOP (1u << 24)
#define PL_RC_BOT (1u << 16)

/* A byte leaves once the top bytes of low and low + range agree, or once
   range is so small that it is cut back to the next multiple of
   PL_RC_BOT (a tiny loss that spares carry propagation, so every byte
   written is final).  After a decision range >= 1, and each shift
   multiplies it by 256, so one normalisation writes at most 4 bytes. */
static inline void pl_rc_enc_norm(pl_encoder *e)
{
   for (;;) {
      if ((e->rc_low ^ (e->rc_low + e->rc_range)) >= PL_RC_TOP) {
         if (e->rc_range >= PL_RC_BOT)
            return;
         e->rc_range = (0u - e->rc_low) & (PL_RC_BOT - 1u);
      }
      e->out[e->out_len++] = (uint8_t)(e->rc_low >> 24);
      e->rc_low <<= 8;
      e->rc_range <<= 8;
   }
}

/* One decision whose P(bit = 0) is p0 / 4096, 1 <= p0 <= 4095. */
static inline void pl_rc_enc_bit(pl_encoder *e, uint32_t p0, unsigned bit)
{
   uint32_t bound = (e->rc_range >> PL_RC_PROB_BITS) * p0;
   if (bit) {
      e->rc_low += bound;
      e->rc_range -= bound;
   } else {
      e->rc_range = bound;
   }
   pl_rc_enc_norm(e);
}

/* One decision of probability 1/2. */
static inline void pl_rc_enc_direct(pl_encoder *e, unsigned bit)
{
   e->rc_range >>= 1;
   if (bit)
      e->rc_low += e->rc_range;
   pl_rc_enc_norm(e);
}

/* The coder at the start of a stream and of each chunk. */
static inline void pl_rc_enc_start(pl_encoder *e)
{
   e->rc_low = 0;
   e->rc_range = 0xFFFFFFFFu;
}

/* The end of a chunk: low's 4 bytes, then a fresh coder. */
static inline void pl_rc_enc_flush(pl_encoder *e)
{
   unsigned k;
   for (k = 0; k < 4; k++) {
      e->out[e->out_len++] = (uint8_t)(e->rc_low >> 24);
      e->rc_low <<= 8;
   }
   pl_rc_enc_start(e);
}

/* The decoders' first steps (rc_step); each codec numbers its own after
   PL_RC_DEC_INIT. */
enum {
   PL_RC_DEC_IDLE = 0,  /* between chunks: input is an error */
   PL_RC_DEC_INIT = 1   /* reading the chunk's first 4 bytes into code */
};

/* The decoder starts a chunk: its first 4 bytes go into code (read by
   pl_rc_dec_fill, before the first normalisation). */
static inline void pl_rc_dec_start(pl_decoder *d)
{
   d->rc_step = PL_RC_DEC_INIT;
   d->rc_low = 0;
   d->rc_range = 0xFFFFFFFFu;
   d->rc_code = 0;
   d->rc_init_left = 4;
}

/* The decoder before its first chunk. */
static inline void pl_rc_dec_init(pl_decoder *d)
{
   pl_rc_dec_start(d);
   d->rc_step = PL_RC_DEC_IDLE;
   d->rc_init_left = 0;
}

/* Read the rest of the chunk's first 4 bytes into code: 0 if input ran
   out first (call again with more). */
static inline int pl_rc_dec_fill(pl_decoder *d, const uint8_t **p,
                                 const uint8_t *end)
{
   while (d->rc_init_left) {
      if (*p == end)
         return 0;
      d->rc_code = (d->rc_code << 8) | *(*p)++;
      d->rc_init_left--;
   }
   return 1;
}

/* The encoder's normalisation, before a decision: 0 if input ran out
   (call again with more; nothing is lost). */
static inline int pl_rc_dec_norm(pl_decoder *d, const uint8_t **p,
                                 const uint8_t *end)
{
   for (;;) {
      if ((d->rc_low ^ (d->rc_low + d->rc_range)) >= PL_RC_TOP) {
         if (d->rc_range >= PL_RC_BOT)
            return 1;
         d->rc_range = (0u - d->rc_low) & (PL_RC_BOT - 1u);
      }
      if (*p == end)
         return 0;
      d->rc_code = (d->rc_code << 8) | *(*p)++;
      d->rc_low <<= 8;
      d->rc_range <<= 8;
   }
}

static inline unsigned pl_rc_dec_bit(pl_decoder *d, uint32_t p0)
{
   uint32_t bound = (d->rc_range >> PL_RC_PROB_BITS) * p0;
   unsigned bit = d->rc_code - d->rc_low >= bound;
   if (bit) {
      d->rc_low += bound;
      d->rc_range -= bound;
   } else {
      d->rc_range = bound;
   }
   return bit;
}

static inline unsigned pl_rc_dec_direct(pl_decoder *d)
{
   d->rc_range >>= 1;
   if (d->rc_code - d->rc_low < d->rc_range)
      return 0;
   d->rc_low += d->rc_range;
   return 1;
}

/* Whether the chunk ends as flushed, after its last normalisation: the
   flush wrote low's 4 bytes, which now fill code. */
static inline int pl_rc_dec_flushed(const pl_decoder *d)
{
   return d->rc_code == d->rc_low;
}

#endif
