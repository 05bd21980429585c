/* SPDX-License-Identifier: MIT */
/* The binary range coder with carry propagation that codes a whole buffer
   at once: the packed tables (pl_table_pack.c, docs/table-pack.md) and the
   per-event costs (pl_cost_codec.c, docs/codec.md 12).  32-bit range,
   12-bit probabilities of a 1 bit, a 1 taking the low part of the range;
   the coded bytes start with a 0 byte and end with the 4 bytes of low.
   Freestanding, as pl_codec.h. */
#ifndef PL_RC_CARRY_H
#define PL_RC_CARRY_H

#include <stddef.h>
#include <stdint.h>

#define PL_RCC_PROB_BITS 12
#define PL_RCC_TOP       (1u << 24)

typedef struct {
   uint64_t low;
   uint32_t range;
   uint8_t  cache;
   uint64_t pending;    /* the cache byte and the 0xFF bytes after it */
   uint8_t *out;
   size_t   len;        /* bytes written at out */
} pl_rcc_enc;

static inline void pl_rcc_enc_init(pl_rcc_enc *e, uint8_t *out)
{
   e->low = 0;
   e->range = 0xFFFFFFFFu;
   e->cache = 0;
   e->pending = 1;
   e->out = out;
   e->len = 0;
}

static inline void pl_rcc_shift_low(pl_rcc_enc *e)
{
   if ((uint32_t)e->low < 0xFF000000u || (e->low >> 32) != 0) {
      uint8_t carry = (uint8_t)(e->low >> 32), b = e->cache;
      do {
         e->out[e->len++] = (uint8_t)(b + carry);
         b = 0xFF;
      } while (--e->pending != 0);
      e->cache = (uint8_t)(e->low >> 24);
   }
   e->pending++;
   e->low = (e->low & 0x00FFFFFFu) << 8;
}

/* One bit whose P(bit = 1) is p1 / 4096, 1 <= p1 <= 4095. */
static inline void pl_rcc_enc_bit(pl_rcc_enc *e, uint32_t p1, unsigned bit)
{
   uint32_t bound = (e->range >> PL_RCC_PROB_BITS) * p1;
   if (bit) {
      e->range = bound;
   } else {
      e->low += bound;
      e->range -= bound;
   }
   while (e->range < PL_RCC_TOP) {
      e->range <<= 8;
      pl_rcc_shift_low(e);
   }
}

/* The last bytes; returns the number of bytes coded in all.  The bytes
   still pending when it is called may be up to 5 plus the run of 0xFF
   bytes a carry could reach. */
static inline size_t pl_rcc_enc_finish(pl_rcc_enc *e)
{
   int k;
   for (k = 0; k < 5; k++)
      pl_rcc_shift_low(e);
   return e->len;
}

typedef struct {
   uint32_t range, code;
   const uint8_t *in;
   size_t   n, used;
   int      short_input;  /* a bit needed a byte past in[n): read as 0 */
} pl_rcc_dec;

/* Start decoding in[0..n): NULL, or what is wrong with its start. */
static inline const char *pl_rcc_dec_init(pl_rcc_dec *d, const uint8_t *in,
                                          size_t n)
{
   d->range = 0xFFFFFFFFu;
   d->code = 0;
   d->in = in;
   d->n = n;
   d->short_input = 0;
   if (n < 5)
      return "fewer than 5 coded bytes";
   if (in[0] != 0)
      return "the first coded byte is not 0";
   for (d->used = 1; d->used < 5; d->used++)
      d->code = d->code << 8 | in[d->used];
   return NULL;
}

/* The next bit, P(bit = 1) = p1 / 4096 as the encoder had it.  Past the
   end of the input it sets short_input and goes on with zero bytes, so
   the caller may check once per symbol. */
static inline unsigned pl_rcc_dec_bit(pl_rcc_dec *d, uint32_t p1)
{
   uint32_t bound = (d->range >> PL_RCC_PROB_BITS) * p1;
   unsigned bit;
   if (d->code < bound) {
      d->range = bound;
      bit = 1;
   } else {
      d->code -= bound;
      d->range -= bound;
      bit = 0;
   }
   while (d->range < PL_RCC_TOP) {
      uint8_t b = 0;
      if (d->used < d->n)
         b = d->in[d->used++];
      else
         d->short_input = 1;
      d->range <<= 8;
      d->code = d->code << 8 | b;
   }
   return bit;
}

/* Whether every coded byte was read, and none was missing. */
static inline int pl_rcc_dec_exact(const pl_rcc_dec *d)
{
   return !d->short_input && d->used == d->n;
}

#endif
