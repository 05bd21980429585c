/* SPDX-License-Identifier: MIT */
/* Context-mixing primitives shared by the packed tables (pl_table_pack.c)
   and the CCM stream codec (pl_codec_ccm.c): the logistic function and its
   inverse on 12-bit probabilities, adaptive bit counters and the weight
   update of a logistic mixer.  Integer arithmetic only, so that an encoder
   and a decoder built by different compilers agree bit for bit; the
   values are part of both formats (docs/table-pack.md, docs/codec.md). */
#ifndef PL_CM_H
#define PL_CM_H

#include <stdint.h>

/* 4096 / (1 + e^-(x/256)) at x = -2048, -1920, ..., 2048. */
static const uint16_t pl_cm_squash_knots[33] = {
   1, 2, 4, 6, 10, 17, 27, 45, 74, 120, 194, 311, 488, 747, 1102, 1546,
   2048, 2550, 2994, 3349, 3608, 3785, 3902, 3976, 4022, 4051, 4069, 4079,
   4086, 4090, 4092, 4094, 4095
};

/* The logistic function on [-2047, 2047] (x/256), 12-bit, interpolated
   between the knots; x outside is clamped. */
static inline int pl_cm_squash(int x)
{
   unsigned i, w;
   if (x > 2047)
      x = 2047;
   if (x < -2047)
      x = -2047;
   i = (unsigned)(x + 2048) >> 7;
   w = (unsigned)(x + 2048) & 127u;
   return (int)((pl_cm_squash_knots[i] * (128u - w)
                 + pl_cm_squash_knots[i + 1] * w + 64u) >> 7);
}

/* stretch = squash^-1 on 0..4095: the smallest x with squash(x) >= p
   (2047 where there is none). */
static inline void pl_cm_stretch_init(int16_t stretch[4096])
{
   int x, next = 0;
   for (x = -2047; x <= 2047; x++) {
      int v = pl_cm_squash(x);
      for (; next <= v; next++)
         stretch[next] = (int16_t)x;
   }
   for (; next < 4096; next++)
      stretch[next] = 2047;
}

/* An adaptive bit counter is one uint32_t: P(bit = 1) in its top 22 bits,
   the number of updates so far (up to a limit) in the low 10.  Its step
   is 1/(n + 1.5) of the distance to the bit, so it starts as a frequency
   count and, once n reaches the limit, follows recent bits at a fixed
   rate. */
#define PL_CM_COUNTER_INIT 0x80000000u            /* p = 1/2, n = 0 */
#define PL_CM_RATES        1024u

/* rate[n] = 131072 / (2n + 3). */
static inline void pl_cm_rate_init(uint32_t rate[PL_CM_RATES])
{
   uint32_t n;
   for (n = 0; n < PL_CM_RATES; n++)
      rate[n] = 131072u / (2u * n + 3u);
}

/* The counter's P(bit = 1), 12-bit (0..4095). */
static inline unsigned pl_cm_p12(uint32_t c)
{
   return c >> 20;
}

static inline uint32_t pl_cm_count(uint32_t c, unsigned bit, uint32_t limit,
                                   const uint32_t rate[PL_CM_RATES])
{
   uint32_t n = c & 1023u;
   int64_t p = c >> 10;
   int64_t target = bit ? (1 << 22) - 1 : 0;
   p += ((target - p) * (int64_t)rate[n]) >> 17;
   if (n < limit)
      n++;
   return (uint32_t)p << 10 | n;
}

/* A mixer weight (16.16 fixed point) after a bit: its input's stretched
   prediction st times the error, err = ((bit << 12) - p) x the learning
   rate multiplier. */
static inline int32_t pl_cm_learn(int32_t w, int st, int err)
{
   return w + (int32_t)(((int64_t)st * err) >> 10);
}

#endif
