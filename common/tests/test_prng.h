/* SPDX-License-Identifier: MIT */
/* SplitMix64: the small deterministic generator the codec and reader
   tests and fuzzers share, so a seed means the same stream everywhere. */
#ifndef TEST_PRNG_H
#define TEST_PRNG_H

#include <stdint.h>

typedef struct { uint64_t s; } prng;

static inline uint64_t prng_next64(prng *r)
{
   uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
   z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
   return z ^ (z >> 31);
}

static inline uint32_t prng_next(prng *r)
{
   return (uint32_t)prng_next64(r);
}

/* Uniform enough below n (0 when n is 0). */
static inline uint64_t prng_below(prng *r, uint64_t n)
{
   return n ? prng_next64(r) % n : 0;
}

#endif
