/* SPDX-License-Identifier: MIT */
/* ParLoT stream codecs: the public API (pl_codec.h), the LZZE codec
   (incremental word-level LZ + byte-level zero elimination) and RAW; the
   API hands LZRC streams to pl_codec_lzrc.c.  The formats are specified in
   docs/codec.md; this file is the reference implementation of both
   directions.

   Freestanding: only <stdint.h>/<stddef.h>, no libc, no allocation.  The
   LZZE encoder does a bounded amount of work per event (at most 11 LZ
   output words, see pl_enc_enter); the decoder is a resumable state
   machine that can stop after any byte of input or any value of output. */

#include "pl_codec_lzrc.h"

#define LZ_MASK     (PL_LZ_WINDOW - 1u)
/* Largest distance a match may reach back: the candidate's three context
   words (at j-3..j-1) and the candidate itself must still be in history. */
#define LZ_MAX_DIST (PL_LZ_WINDOW - 4u)

#if defined(__GNUC__) || defined(__clang__)
#  define PL_LIKELY(x)   __builtin_expect(!!(x), 1)
#  define PL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#  define PL_LIKELY(x)   (x)
#  define PL_UNLIKELY(x) (x)
#endif

/* ---- LZ model shared by encoder and decoder ---------------------------- */

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

/* Only the table needs clearing (0 = empty).  The history is left as it
   is: no entry is ever read before it was written.  Context reads need
   words >= 3; a table entry j is a position whose own context had been
   written, and the distance check keeps j-3..j inside the last
   PL_LZ_WINDOW-4 positions; a copy reads at a fixed distance behind the
   write position.  (Checked under MemorySanitizer by
   common/tests/test_codec_msan.sh.) */
static void lz_init(pl_lz_state *lz)
{
   uint32_t k;
   for (k = 0; k < PL_LZ_HASH_SIZE; k++)
      lz->table[k] = 0;
   lz->pos = 0;
}

/* ---- Encoder ----------------------------------------------------------- */

void pl_enc_init(pl_encoder *e, int kind, uint8_t *buf, size_t cap)
{
   e->kind = kind == PL_CODEC_RAW || kind == PL_CODEC_LZZE ? kind
             : PL_CODEC_LZRC;
   if (e->kind == PL_CODEC_LZRC)
      pl_lzrc_enc_init(e);
   else
      lz_init(&e->lz);
   e->match_src = 0;
   e->match_len = 0;
   e->group_at = 0;
   e->group_fill = 0;
   e->out = buf;
   e->out_len = 0;
   e->out_cap = cap;
   e->events = 0;
   e->words = 0;
   e->raw_bytes = 0;
   e->out_total = 0;
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

/* Match length: 15 bits per word, least significant group first, bit 15
   set on every word but the last.  At most 5 words for a 64-bit length. */
static void emit_len(pl_encoder *e, uint64_t len)
{
   while (len >= 0x8000u) {
      ze_word(e, (uint32_t)(len & 0x7FFFu) | 0x8000u);
      len >>= 15;
   }
   ze_word(e, (uint32_t)len);
}

/* One value-layer word through LZ.  Output per call: nothing (match
   started or extended), or [length of the finished match] followed by
   either a literal or a zero length and a literal.  (A separate
   out-of-line slow path for the non-matching case measured no faster.) */
static inline void lz_word(pl_encoder *e, uint32_t v)
{
   pl_lz_state *lz = &e->lz;

   if (e->match_len) {
      if (PL_LIKELY(lz->hist[e->match_src & LZ_MASK] == v)) {
         e->match_len++;
         e->match_src++;
         goto store;
      }
      emit_len(e, e->match_len);
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

static inline void put_word(pl_encoder *e, uint32_t w)
{
   if (e->kind == PL_CODEC_RAW) {
      uint8_t *o = e->out + e->out_len;
      o[0] = (uint8_t)w;
      o[1] = (uint8_t)(w >> 8);
      e->out_len += 2;
      e->raw_bytes += 2;
      e->words++;
   } else if (e->kind == PL_CODEC_LZRC) {
      pl_lzrc_word(e, w);
   } else {
      lz_word(e, w);
   }
}

/* Worst case per event (bounds PL_ENC_MAX_EVENT_BYTES): an escaped entry
   is 3 words.  The first may close a match (length: <= 5 words) and then
   need a zero length and a literal (2 words); the second and third either
   produce 2 words each, or the second opens a match (0 words) that the
   third closes (length 1 + zero length + literal = 3 words).  So at most
   5 + 2 + 4 = 11 LZ words = 22 bytes, spread over at most 3 new ZE groups
   (3 bitmap bytes): 25 bytes.  An exit or short entry: 7 words + 2 bitmaps
   = 16 bytes.  RAW: 6 bytes.  pl_enc_sync adds at most 5 words and 2
   bitmaps = 12 bytes. */
void pl_enc_enter(pl_encoder *e, uint32_t id)
{
   e->events++;
   if (PL_LIKELY(id <= PL_MAX_SHORT_ID)) {
      put_word(e, id);
   } else {
      put_word(e, PL_WORD_ESCAPE);
      put_word(e, id >> 16);
      put_word(e, id & 0xFFFFu);
   }
}

void pl_enc_exit(pl_encoder *e)
{
   e->events++;
   put_word(e, PL_WORD_EXIT);
}

size_t pl_enc_ready(const pl_encoder *e)
{
   if (e->kind == PL_CODEC_LZRC)
      return e->sync_at;
   return e->group_fill == 0 ? e->out_len : e->group_at;
}

void pl_enc_consume(pl_encoder *e, size_t n)
{
   uint8_t *o = e->out;
   size_t k, rest;

   if (n == 0)
      return;
   rest = e->out_len - n;
   for (k = 0; k < rest; k++)
      o[k] = o[n + k];
   e->out_len = rest;
   if (e->kind == PL_CODEC_LZRC)
      e->sync_at -= n;
   else if (e->group_fill != 0)
      e->group_at -= n;
   e->out_total += n;
}

uint64_t pl_enc_ready_raw(const pl_encoder *e)
{
   if (e->kind == PL_CODEC_LZRC)
      return e->sync_raw;
   return e->raw_bytes - e->group_fill;
}

void pl_enc_sync(pl_encoder *e)
{
   if (e->kind == PL_CODEC_LZRC) {
      pl_lzrc_sync(e);
      return;
   }
   if (e->kind != PL_CODEC_RAW && e->match_len) {
      emit_len(e, e->match_len);
      e->match_len = 0;
   }
   /* The open group's missing bytes are zeros: their bitmap bits are
      already 0 and zero bytes are not stored, so closing is just this. */
   e->group_fill = 0;
}

/* ---- Decoder ----------------------------------------------------------- */

/* lz_state values: what the next LZ word means. */
enum {
   S_NEW  = 0,  /* a new position: context lookup not done yet */
   S_LEN  = 1,  /* reading a match length (copy_src = candidate) */
   S_LIT  = 2,  /* a zero length was read: a literal follows */
   S_COPY = 3   /* copying copy_left words from copy_src */
};

void pl_dec_init(pl_decoder *d, int kind)
{
   d->kind = kind;
   if (kind == PL_CODEC_LZRC)
      pl_lzrc_dec_init(d);
   else
      lz_init(&d->lz);
   d->bitmap = 0;
   d->bits_left = 0;
   d->raw_bytes = 0;
   d->raw_limit = UINT64_MAX;
   d->have_low = 0;
   d->low = 0;
   d->lz_state = S_NEW;
   d->len_acc = 0;
   d->len_shift = 0;
   d->copy_src = 0;
   d->copy_left = 0;
   d->esc_words = 0;
   d->esc_acc = 0;
   d->words = 0;
   d->error = 0;
}

void pl_dec_set_raw_limit(pl_decoder *d, uint64_t raw_bytes)
{
   d->raw_limit = raw_bytes;
   if (d->kind == PL_CODEC_LZRC)
      pl_lzrc_begin_chunk(d);
}

static const char err_short_chunk[] = "chunk data ends before its raw_end";
static const char err_past_end[] = "bitmap bits set past the chunk's raw_end";

int pl_dec_end_chunk(pl_decoder *d)
{
   if (d->kind == PL_CODEC_LZRC)
      return pl_lzrc_end_chunk(d);
   if (d->error)
      return PL_DEC_CORRUPT;
   if (d->raw_bytes != d->raw_limit) {
      d->error = err_short_chunk;
      return PL_DEC_CORRUPT;
   }
   /* The bits of a short group past raw_end must be clear.  pl_dec_run
      checks them only when it is called once more after reaching the
      limit, which a caller need not do if that call filled its output. */
   if (d->bits_left != 0 && (d->bitmap & ((1u << d->bits_left) - 1u)) != 0) {
      d->error = err_past_end;
      return PL_DEC_CORRUPT;
   }
   /* The next chunk starts a new group. */
   d->bits_left = 0;
   d->bitmap = 0;
   return 0;
}

int pl_dec_at_boundary(const pl_decoder *d)
{
   if (d->kind == PL_CODEC_LZRC)
      return pl_lzrc_at_boundary(d);
   if (d->error || d->have_low || d->esc_words)
      return 0;
   return d->kind == PL_CODEC_RAW || d->lz_state == S_NEW;
}

/* Error messages (static strings, see pl_decoder.error). */
static const char err_kind[]    = "unknown codec kind";
static const char err_escape[]  = "escaped function ID below 0xFFFF";
static const char err_varint[]  = "match length longer than 64 bits";
static const char err_trailer[] = "data after the end of the stream (raw limit)";

/* Register copies of the decoder state used by the inner loops; written
   back to the pl_decoder once per pl_dec_run call. */
typedef struct {
   const uint8_t *p, *end;
   unsigned bitmap, bits_left;
   uint64_t raw_left;           /* raw_limit - raw_bytes */
   int have_low;
   unsigned low;
} ze_in;

/* Pair bytes into little-endian words: 1 and the word in *w once a
   byte completes one, 0 while a low byte waits in have_low. */
static inline int pair_byte(ze_in *z, unsigned b, uint32_t *w)
{
   if (!z->have_low) {
      z->have_low = 1;
      z->low = b;
      return 0;
   }
   z->have_low = 0;
   *w = z->low | (b << 8);
   return 1;
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

/* After the raw limit: anything left (input bytes or set bitmap bits for
   bytes past the limit) is not part of the stream. */
static int trailing_garbage(const ze_in *z, int kind)
{
   if (z->raw_left != 0)
      return 0;
   if (z->p != z->end)
      return 1;
   return kind != PL_CODEC_RAW && z->bits_left != 0
          && (z->bitmap & ((1u << z->bits_left) - 1u)) != 0;
}

static long dec_raw(pl_decoder *d, ze_in *z, uint32_t *values, size_t cap)
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
            err = err_trailer;
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
            if (acc <= PL_MAX_SHORT_ID) { err = err_escape; break; }
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
            if (acc <= PL_MAX_SHORT_ID) { err = err_escape; goto fail; } \
            values[out++] = acc;                                        \
         }                                                              \
      }                                                                 \
   } while (0)

long pl_dec_run(pl_decoder *d, const uint8_t **in, const uint8_t *in_end,
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

   if (d->error)
      return PL_DEC_CORRUPT;
   if (d->kind == PL_CODEC_LZRC)
      return pl_lzrc_run(d, in, in_end, values, cap);
   if (d->kind != PL_CODEC_LZZE && d->kind != PL_CODEC_RAW) {
      d->error = err_kind;
      return PL_DEC_CORRUPT;
   }

   z.p = *in;
   z.end = in_end;
   z.bitmap = d->bitmap;
   z.bits_left = d->bits_left;
   z.raw_left = d->raw_limit > d->raw_bytes ? d->raw_limit - d->raw_bytes : 0;
   raw_start = z.raw_left;
   z.have_low = d->have_low;
   z.low = d->low;

   if (d->kind == PL_CODEC_RAW) {
      ret = dec_raw(d, &z, values, cap);
      goto writeback_ze;
   }

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
         left (or a new group can start) and two bytes of input remain. */
      if (PL_LIKELY(!z.have_low && z.raw_left >= 2 && z.end - z.p >= 3)) {
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
            err = err_trailer;
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
   goto writeback_lz;

fail:
   d->error = err;
   ret = out ? (long)out : PL_DEC_CORRUPT;

writeback_lz:
   d->lz.pos = pos;
   d->words = words;
   d->lz_state = state;
   d->esc_words = esc;
   d->esc_acc = acc;

writeback_ze:
   *in = z.p;
   d->bitmap = z.bitmap;
   d->bits_left = z.bits_left;
   d->raw_bytes += raw_start - z.raw_left;
   d->have_low = z.have_low;
   d->low = (uint8_t)z.low;
   return ret;
}
