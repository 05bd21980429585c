/* SPDX-License-Identifier: MIT */
/* LZZE, the paper's codec (docs/codec.md): incremental LZ over 16-bit words
   followed by byte-level zero elimination.  Internal interface between
   pl_codec.c (the API, which dispatches on the codec kind) and
   pl_codec_lzze.c; the encoder's per-word path is inline, as the tool calls
   it for every event.  The encoder does a bounded amount of work per event
   (at most 11 LZ output words, see pl_enc_enter). */
#ifndef PL_CODEC_LZZE_H
#define PL_CODEC_LZZE_H

#include "pl_codec_internal.h"

#define LZ_MASK     (PL_LZ_WINDOW - 1u)
/* Largest distance a match may reach back: the candidate's three context
   words (at j-3..j-1) and the candidate itself must still be in history. */
#define LZ_MAX_DIST (PL_LZ_WINDOW - 4u)

/* lz_state values: what the next LZ word means. */
enum {
   S_NEW  = 0,  /* a new position: context lookup not done yet */
   S_LEN  = 1,  /* reading a match length (copy_src = candidate) */
   S_LIT  = 2,  /* a zero length was read: a literal follows */
   S_COPY = 3   /* copying copy_left words from copy_src */
};

/* An empty model (encoder and decoder). */
void pl_lzze_init(pl_lz_state *lz);

/* Context lookup for the word about to be stored at position i == lz->pos
   (callers guarantee that at least three words precede it).  Records the
   current position in the table and returns the candidate position if it is
   usable for a match, else 0 (position 0 is never a usable candidate). */
static inline uint32_t lz_lookup(pl_lz_state *lz, uint32_t i)
{
   const uint16_t *h = lz->hist;
   uint32_t a = h[(i - 3) & LZ_MASK];
   uint32_t b = h[(i - 2) & LZ_MASK];
   uint32_t c = h[(i - 1) & LZ_MASK];
   uint32_t slot = pl_ctx_hash(a, b, c);
   uint32_t j = lz->table[slot];
   lz->table[slot] = i;
   /* distance d = i - j must lie in [1, LZ_MAX_DIST]; d - 1 wraps for 0 */
   if (j == 0 || (uint32_t)(i - j - 1u) >= LZ_MAX_DIST)
      return 0;
   if (h[(j - 3) & LZ_MASK] != a || h[(j - 2) & LZ_MASK] != b
       || h[(j - 1) & LZ_MASK] != c)
      return 0;
   return j;
}

/* ZE of one LZ output word, i.e. of its two bytes, low byte first.  LZ
   output is whole words and a group holds 8 bytes, so a word never
   straddles two groups and group_fill is always even here. */
static inline void ze_word(pl_encoder *e, uint32_t w)
{
   uint8_t *o = e->out;
   size_t n = e->out_len;
   size_t g;
   unsigned f = e->group_fill;
   unsigned bits;
   uint8_t lo = (uint8_t)w, hi = (uint8_t)(w >> 8);

   if (f == 0) {
      g = n;
      o[n++] = 0;
      e->group_at = g;
   } else {
      g = e->group_at;
   }
   /* Branch-free: store each byte, keep it only if non-zero.  The extra
      store lands at most at the final out_len, inside the room the caller
      reserves (PL_ENC_MAX_EVENT_BYTES exceeds the worst case, 25). */
   o[n] = lo;
   n += lo != 0;
   o[n] = hi;
   n += hi != 0;
   bits = (unsigned)(lo != 0) | (unsigned)(hi != 0) << 1;
   o[g] = (uint8_t)(o[g] | (bits << f));
   e->out_len = n;
   e->group_fill = (f + 2u) & 7u;
   e->raw_bytes += 2;
}

/* Write a match length (closing a match). */
void pl_lzze_emit_len(pl_encoder *e, uint64_t len);

/* One value-layer word through LZ.  Output per call: nothing (match
   started or extended), or [length of the finished match (at most
   PL_MAX_MATCH words: a match that long ends there)] followed by
   either a literal or a zero length and a literal.  (A separate
   out-of-line slow path for the non-matching case measured no faster.) */
static inline void pl_lzze_word(pl_encoder *e, uint32_t v)
{
   pl_lz_state *lz = &e->lz;

   if (e->match_len) {
      if (PL_LIKELY(lz->hist[e->match_src & LZ_MASK] == v)
          && PL_LIKELY(e->match_len < PL_MAX_MATCH)) {
         e->match_len++;
         e->match_src++;
         goto store;
      }
      pl_lzze_emit_len(e, e->match_len);
      e->match_len = 0;
   }
   if (e->words >= 3) {
      uint32_t j = lz_lookup(lz, lz->pos);
      if (j) {
         if (lz->hist[j & LZ_MASK] == v) {
            e->match_len = 1;
            e->match_src = j + 1;
            goto store;
         }
         ze_word(e, 0);      /* zero length: a literal follows */
      }
   }
   ze_word(e, v);
store:
   lz->hist[lz->pos & LZ_MASK] = (uint16_t)v;
   lz->pos++;
   e->words++;
}

void pl_lzze_sync(pl_encoder *e);

/* Between two LZ tokens (the byte layer is checked by the caller). */
static inline int pl_lzze_between_tokens(const pl_decoder *d)
{
   return d->lz_state == S_NEW;
}

long pl_lzze_run(pl_decoder *d, const uint8_t **in, const uint8_t *in_end,
                 uint32_t *values, size_t cap);

#endif
