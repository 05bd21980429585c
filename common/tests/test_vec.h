/* SPDX-License-Identifier: MIT */
/* Growable vectors of the codec and table tests. */
#ifndef TEST_VEC_H
#define TEST_VEC_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { uint32_t *v; size_t n, cap; } vec32;
typedef struct { uint8_t *v; size_t n, cap; } vec8;

static inline void *xrealloc(void *p, size_t n)
{
   p = realloc(p, n ? n : 1);
   if (!p) { perror("realloc"); exit(2); }
   return p;
}

static inline void v32_push(vec32 *a, uint32_t x)
{
   if (a->n == a->cap) {
      a->cap = a->cap ? a->cap * 2 : 1024;
      a->v = xrealloc(a->v, a->cap * sizeof *a->v);
   }
   a->v[a->n++] = x;
}

static inline void v8_append(vec8 *a, const uint8_t *p, size_t n)
{
   if (n == 0)
      return;
   if (a->n + n > a->cap) {
      while (a->n + n > a->cap)
         a->cap = a->cap ? a->cap * 2 : 4096;
      a->v = xrealloc(a->v, a->cap);
   }
   memcpy(a->v + a->n, p, n);
   a->n += n;
}

static inline void v32_free(vec32 *a) { free(a->v); a->v = 0; a->n = a->cap = 0; }
static inline void v8_free(vec8 *a) { free(a->v); a->v = 0; a->n = a->cap = 0; }

#endif
