/* SPDX-License-Identifier: MIT */
/* What the codecs share (pl_codec_raw.c, pl_codec_lzze.c, pl_codec_lzrc.c,
   dispatched by pl_codec.c): branch hints, the context hash of the LZ
   models, and the byte source of the RAW and LZZE decoders.  Not
   installed, not for callers: they use pl_codec.h. */
#ifndef PL_CODEC_INTERNAL_H
#define PL_CODEC_INTERNAL_H

#include "pl_codec.h"
#include "pl_hash.h"

#if defined(__GNUC__) || defined(__clang__)
#  define PL_LIKELY(x)   __builtin_expect(!!(x), 1)
#  define PL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define PL_NOINLINE    __attribute__((noinline))
#else
#  define PL_LIKELY(x)   (x)
#  define PL_UNLIKELY(x) (x)
#  define PL_NOINLINE
#endif

/* Context hash of the three words a, b, c before a position (part of the
   LZZE and LZRC formats): the top PL_LZ_HASH_BITS bits of the 48-bit key
   a:b:c times the 64-bit golden-ratio constant. */
static inline uint32_t pl_ctx_hash(uint32_t a, uint32_t b, uint32_t c)
{
   uint64_t k = ((uint64_t)a << 32) | ((uint64_t)b << 16) | (uint64_t)c;
   return (uint32_t)pl_golden_slot(k, PL_LZ_HASH_BITS);
}

/* ---- The byte source of the RAW and LZZE decoders ------------------------ */

extern const char pl_codec_err_trailer[];   /* data past the raw limit */
/* The chunk-level errors every codec reports alike. */
extern const char pl_codec_err_short[];     /* bytes end before raw_end */
/* The range-coded codecs (LZRC, CCM), whose chunks end at syncs: */
extern const char pl_codec_err_chunk_trailer[]; /* bytes after raw_end */
extern const char pl_codec_err_idle[];      /* bytes before raw_end is set */
extern const char pl_codec_err_escape[];    /* a short ID escaped */

/* Register copies of the decoder state used by the inner loops; written
   back to the pl_decoder once per pl_dec_run call. */
typedef struct {
   const uint8_t *p, *end;
   unsigned bitmap, bits_left;
   uint64_t raw_left;           /* raw_limit - raw_bytes */
   int have_low;
   unsigned low;
} ze_in;

/* z from d's state for input *in .. in_end, and back. */
static inline void ze_in_load(ze_in *z, const pl_decoder *d,
                              const uint8_t *in, const uint8_t *in_end)
{
   z->p = in;
   z->end = in_end;
   z->bitmap = d->bitmap;
   z->bits_left = d->bits_left;
   z->raw_left = d->raw_limit > d->raw_bytes ? d->raw_limit - d->raw_bytes
                                             : 0;
   z->have_low = d->have_low;
   z->low = d->low;
}

/* raw_start: z->raw_left when loaded. */
static inline void ze_in_save(const ze_in *z, pl_decoder *d,
                              const uint8_t **in, uint64_t raw_start)
{
   *in = z->p;
   d->bitmap = z->bitmap;
   d->bits_left = z->bits_left;
   d->raw_bytes += raw_start - z->raw_left;
   d->have_low = z->have_low;
   d->low = (uint8_t)z->low;
}

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

/* After the raw limit: anything left (input bytes or set bitmap bits for
   bytes past the limit) is not part of the stream. */
static inline int trailing_garbage(const ze_in *z, int kind)
{
   if (z->raw_left != 0)
      return 0;
   if (z->p != z->end)
      return 1;
   return kind != PL_CODEC_RAW && z->bits_left != 0
          && (z->bitmap & ((1u << z->bits_left) - 1u)) != 0;
}

#endif
