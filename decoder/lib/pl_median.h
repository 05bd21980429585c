/* SPDX-License-Identifier: MIT */
/* The lower median of counts (not installed): the outliers' figures per
   rank (pl_outliers.c) and parlot-annotate's instructions per rank. */
#ifndef PL_MEDIAN_H
#define PL_MEDIAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static inline int pl_u64_order(const void *a, const void *b)
{
   uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
   return x < y ? -1 : x > y;
}

/* The lower median of v[0..n-1], the ((n+1)/2)-th smallest (sorts v);
   0 if n is 0. */
static inline uint64_t pl_lower_median(uint64_t *v, size_t n)
{
   if (n == 0)
      return 0;
   qsort(v, n, sizeof *v, pl_u64_order);
   return v[(n - 1) / 2];
}

#endif
