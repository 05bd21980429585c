/* SPDX-License-Identifier: MIT */
/* The decoder's growing arrays (not installed). */
#ifndef PL_ALLOC_H
#define PL_ALLOC_H

#include <stdlib.h>

#include "pl_grow.h"

/* Make the array *pp (*cap elements of elem bytes) hold need elements,
   reallocating it if it is smaller (doubling, from 16).  0, or -1 if out
   of memory (the array is then unchanged). */
static inline int pl_grow(void *pp, size_t *cap, size_t need, size_t elem)
{
   void **p = pp, *q;
   size_t c;

   if (need <= *cap)
      return 0;
   c = pl_grow_cap(*cap, need, 16, elem);
   if (!c || !(q = realloc(*p, c * elem)))
      return -1;
   *p = q;
   *cap = c;
   return 0;
}

#endif
