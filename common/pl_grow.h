/* SPDX-License-Identifier: MIT */
/* How growing arrays grow, in the tool and the decoder: by doubling, so
   that n appends cost O(n) copying.  The caller reallocates (the tool with
   VG_(realloc), the decoder with realloc: pl_grow in decoder/lib). */
#ifndef PL_GROW_H
#define PL_GROW_H

#include <stddef.h>
#include <stdint.h>

/* The capacity, in elements of elem bytes, to grow an array of cap
   elements to so that it holds need: cap (or first if cap is 0) doubled
   until it does.  0 if that many bytes would not fit in a size_t. */
static inline size_t pl_grow_cap(size_t cap, size_t need, size_t first,
                                 size_t elem)
{
   size_t c = cap ? cap : first;
   while (c < need) {
      if (c > SIZE_MAX / 2)
         return 0;
      c *= 2;
   }
   return c > SIZE_MAX / elem ? 0 : c;
}

#endif
