/* SPDX-License-Identifier: MIT */
/* The LZZE codec (pl_codec_lzze.h): the encoder's slow parts and the
   decoder, a resumable state machine that can stop after any byte of input
   or any value of output.  Freestanding: no libc, no allocation. */
#include "pl_codec_lzze.h"

static const char err_varint[] = "match length longer than 64 bits";
static const char err_long[] = "match longer than 65535 words";

/* Only the table needs clearing (0 = empty).  The history is left as it
   is: no entry is ever read before it was written.  Context reads need
   words >= 3; a table entry j is a position whose own context had been
   written, and the distance check keeps j-3..j inside the last
   PL_LZ_WINDOW-4 positions; a copy reads at a fixed distance behind the
   write position.  (Checked under MemorySanitizer by
   common/tests/test_codec_msan.sh.) */
void pl_lzze_init(pl_lz_state *lz)
{
   uint32_t k;
   for (k = 0; k < PL_LZ_HASH_SIZE; k++)
      lz->table[k] = 0;
   lz->pos = 0;
}

/* Match length: 15 bits per word, least significant group first, bit 15
   set on every word but the last.  At most 2 words, as len <= PL_MAX_MATCH
   (the format allows 5, for a 64-bit length). */
void pl_lzze_emit_len(pl_encoder *e, uint64_t len)
{
   while (len >= 0x8000u) {
      ze_word(e, (uint32_t)(len & 0x7FFFu) | 0x8000u);
      len >>= 15;
   }
   ze_word(e, (uint32_t)len);
}

void pl_lzze_sync(pl_encoder *e)
{
   if (e->match_len) {
      pl_lzze_emit_len(e, e->match_len);
      e->match_len = 0;
   }
   /* The open group's missing bytes are zeros: their bitmap bits are
      already 0 and zero bytes are not stored, so closing is just this. */
   e->group_fill = 0;
}

/* Byte-at-a-time ZE path: returns 1 and the next word in *w, or 0 if the
   input (or the raw limit) ends first; a half word is kept in have_low. */
static int ze_word_slow(ze_in *z, uint32_t *w)
{
   for (;;) {
      unsigned b;
      if (z->raw_left == 0)
         return 0;
      if (z->bits_left == 0) {
         if (z->p == z->end)
            return 0;
         z->bitmap = *z->p++;
         z->bits_left = 8;
      }
      if (z->bitmap & 1u) {
         if (z->p == z->end)
            return 0;
         b = *z->p++;
      } else {
         b = 0;
      }
      z->bitmap >>= 1;
      z->bits_left--;
      z->raw_left--;
      if (pair_byte(z, b, w))
         return 1;
   }
}

/* Value layer for an LZ output word that is PL_WORD_ESCAPE or part of an
   escaped ID (plain words are handled inline by the callers).  Jumps to
   fail on an escaped ID that should have been a plain word. */
#define VALUE_SLOW(w)                                                   \
   do {                                                                 \
      if (esc == 0) {                                                   \
         esc = 2; acc = 0;             /* w is PL_WORD_ESCAPE */        \
      } else {                                                          \
         acc = (acc << 16) | (w);                                       \
         if (--esc == 0) {                                              \
            if (acc <= PL_MAX_SHORT_ID) { err = pl_codec_err_escape; goto fail; } \
            values[out++] = acc;                                        \
         }                                                              \
      }                                                                 \
   } while (0)

long pl_lzze_run(pl_decoder *d, const uint8_t **in, const uint8_t *in_end,
                 uint32_t *values, size_t cap)
{
   ze_in z;
   size_t out = 0;
   long ret;
   const char *err = 0;
   uint16_t *hist = d->lz.hist;
   uint32_t pos;
   uint64_t words;
   int state, esc;
   uint32_t acc;
   uint64_t raw_start;

   ze_in_load(&z, d, *in, in_end);
   raw_start = z.raw_left;

   pos = d->lz.pos;
   words = d->words;
   state = d->lz_state;
   esc = d->esc_words;
   acc = d->esc_acc;

   for (;;) {
      uint32_t w;

      if (state == S_COPY) {
         /* Copy from history, one word at a time (source and destination
            may overlap: the distance can be as small as 1).  Each word
            yields at most one value, so n words always fit; escape words
            yield fewer, hence the outer loop. */
         uint64_t left = d->copy_left;
         uint32_t s = d->copy_src;
         for (;;) {
            uint64_t n = cap - out;
            if (n > left)
               n = left;
            if (n == 0)
               break;
            left -= n;
            words += n;
            do {
               uint32_t cw = hist[s & LZ_MASK];
               hist[pos & LZ_MASK] = (uint16_t)cw;
               s++;
               pos++;
               if (PL_LIKELY(esc == 0 && cw != PL_WORD_ESCAPE))
                  values[out++] = cw;
               else
                  VALUE_SLOW(cw);
            } while (--n);
         }
         d->copy_src = s;
         d->copy_left = left;
         if (left)
            break;              /* output full */
         state = S_NEW;
      }
      if (out >= cap)
         break;

      /* Next LZ word from ZE.  Fast path: the current group has two bits
         left (or a new group can start) and two bytes of input remain.
         An odd number of bits left (a damaged chunk whose raw_end split a
         word, the rest of it read bit by bit) is for the slow path. */
      if (PL_LIKELY(!z.have_low && !(z.bits_left & 1u) && z.raw_left >= 2
                    && z.end - z.p >= 3)) {
         unsigned m;
         if (z.bits_left == 0) {
            z.bitmap = *z.p++;
            z.bits_left = 8;
         }
         /* Branch-free: both loads are in bounds (two bytes remain), a
            byte whose bit is clear is masked to zero and not consumed. */
         m = z.bitmap;
         {
            uint32_t b0 = m & 1u, b1 = (m >> 1) & 1u;
            w = z.p[0] & (0u - b0);
            z.p += b0;
            w |= ((uint32_t)z.p[0] & (0u - b1)) << 8;
            z.p += b1;
         }
         z.bitmap = m >> 2;
         z.bits_left -= 2;
         z.raw_left -= 2;
      } else if (!ze_word_slow(&z, &w)) {
         /* Input (or the stream) ends.  Only now, with every value that
            the state allows produced, can leftovers be judged, so that the
            result does not depend on how input and output were split. */
         if (trailing_garbage(&z, PL_CODEC_LZZE)) {
            err = pl_codec_err_trailer;
            goto fail;
         }
         break;
      }

      switch (state) {
      case S_NEW:
         if (PL_LIKELY(words >= 3)) {
            uint32_t j;
            j = lz_lookup(&d->lz, pos);
            if (j) {
               d->copy_src = j;
               d->len_acc = 0;
               d->len_shift = 0;
               goto length;
            }
         }
         goto literal;
      case S_LEN:
      length:
         if (PL_UNLIKELY(d->len_shift == 60 && w > 0xFu)) {
            /* a 6th word, or bits beyond 2^64 */
            err = err_varint;
            goto fail;
         }
         d->len_acc |= (uint64_t)(w & 0x7FFFu) << d->len_shift;
         if (PL_UNLIKELY(d->len_acc > PL_MAX_MATCH) && !d->long_matches) {
            /* more than the encoder writes: a crafted length would
               otherwise copy for hours */
            err = err_long;
            goto fail;
         }
         if (w & 0x8000u) {
            d->len_shift += 15;
            state = S_LEN;
         } else if (d->len_acc == 0) {
            state = S_LIT;
         } else {
            d->copy_left = d->len_acc;
            state = S_COPY;
         }
         continue;
      default: /* S_LIT */
      literal:
         hist[pos & LZ_MASK] = (uint16_t)w;
         pos++;
         words++;
         state = S_NEW;
         if (PL_LIKELY(esc == 0 && w != PL_WORD_ESCAPE))
            values[out++] = w;
         else
            VALUE_SLOW(w);
         continue;
      }
   }

   ret = (long)out;
   goto writeback;

fail:
   d->error = err;
   ret = out ? (long)out : PL_DEC_CORRUPT;

writeback:
   d->lz.pos = pos;
   d->words = words;
   d->lz_state = state;
   d->esc_words = esc;
   d->esc_acc = acc;

   ze_in_save(&z, d, in, raw_start);
   return ret;
}
