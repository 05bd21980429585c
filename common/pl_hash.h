/* SPDX-License-Identifier: MIT */
/* The hash functions of the tool and the decoder, one of each kind:
     - FNV-1a 64-bit, for names and sequences (function identities of the
       stack tags, pl_paths.h; the decoder's tables);
     - Fibonacci hashing, the top bits of a key times 2^64 / golden ratio,
       for slots of open-addressing tables and the codecs' context hash.
   Some of the values are part of file formats or documented tags: do not
   change them. */
#ifndef PL_HASH_H
#define PL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define PL_FNV1A_INIT  0xcbf29ce484222325ull   /* FNV-1a 64 offset basis */
#define PL_FNV1A_PRIME 0x100000001b3ull
#define PL_GOLDEN64    0x9E3779B97F4A7C15ull   /* 2^64 / golden ratio */

/* h updated with one value (a byte, or a wider word folded in at once). */
static inline uint64_t pl_fnv1a_step(uint64_t h, uint64_t v)
{
   return (h ^ v) * PL_FNV1A_PRIME;
}

/* h updated with the n bytes at p. */
static inline uint64_t pl_fnv1a(uint64_t h, const void *p, size_t n)
{
   const unsigned char *s = p;
   size_t i;
   for (i = 0; i < n; i++)
      h = pl_fnv1a_step(h, s[i]);
   return h;
}

/* The top `bits` bits (1..64) of key * PL_GOLDEN64: a table slot. */
static inline uint64_t pl_golden_slot(uint64_t key, unsigned bits)
{
   return (key * PL_GOLDEN64) >> (64 - bits);
}

#endif
