/* SPDX-License-Identifier: MIT */
/* The RAW codec's decoder (pl_codec_raw.h): words from pairs of bytes,
   escaped IDs joined.  Freestanding, resumable after any byte. */
#include "pl_codec_raw.h"

/* RAW kind: the same byte source without ZE. */
static int raw_word_slow(ze_in *z, uint32_t *w)
{
   for (;;) {
      unsigned b;
      if (z->raw_left == 0 || z->p == z->end)
         return 0;
      b = *z->p++;
      z->raw_left--;
      if (pair_byte(z, b, w))
         return 1;
   }
}

static long run(pl_decoder *d, ze_in *z, uint32_t *values, size_t cap)
{
   size_t out = 0;
   int esc = d->esc_words;
   uint32_t acc = d->esc_acc;
   const char *err = 0;

   while (out < cap) {
      uint32_t w;
      if (PL_LIKELY(!z->have_low && z->end - z->p >= 2 && z->raw_left >= 2)) {
         w = (uint32_t)z->p[0] | ((uint32_t)z->p[1] << 8);
         z->p += 2;
         z->raw_left -= 2;
      } else if (!raw_word_slow(z, &w)) {
         if (trailing_garbage(z, PL_CODEC_RAW))
            err = pl_codec_err_trailer;
         break;
      }
      d->words++;
      if (PL_LIKELY(esc == 0)) {
         if (PL_LIKELY(w != PL_WORD_ESCAPE))
            values[out++] = w;
         else {
            esc = 2;
            acc = 0;
         }
      } else {
         acc = (acc << 16) | w;
         if (--esc == 0) {
            if (acc <= PL_MAX_SHORT_ID) { err = pl_codec_err_escape; break; }
            values[out++] = acc;
         }
      }
   }
   d->esc_words = esc;
   d->esc_acc = acc;
   if (err) {
      d->error = err;
      return out ? (long)out : PL_DEC_CORRUPT;
   }
   return (long)out;
}

long pl_raw_run(pl_decoder *d, const uint8_t **in, const uint8_t *in_end,
                uint32_t *values, size_t cap)
{
   ze_in z;
   uint64_t raw_start;
   long ret;

   ze_in_load(&z, d, *in, in_end);
   raw_start = z.raw_left;
   ret = run(d, &z, values, cap);
   ze_in_save(&z, d, in, raw_start);
   return ret;
}
