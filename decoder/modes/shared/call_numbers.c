/* SPDX-License-Identifier: MIT */
/* Call numbers (call_numbers.h). */

#include <stdlib.h>
#include <string.h>

#include "call_numbers.h"
#include "pl_alloc.h"
#include "pl_hash.h"

/* A frame with up to LINEAR callees looks them up in order; past that,
   in slots (deep recursions have a callee or two at each depth). */
#define LINEAR 8

/* Callee i of f takes the first free slot from its function's. */
static void place(open_call *f, size_t i)
{
   size_t mask = ((size_t)1 << f->bits) - 1;
   size_t s = (size_t)pl_golden_slot(f->callee[i].fn, f->bits);
   while (f->slot[s])
      s = (s + 1) & mask;
   f->slot[s] = (uint32_t)i + 1;
   f->callee[i].slot = (uint32_t)s;
}

/* Room for one more callee in f, its slots (once it has them) kept at
   most half full. */
static int callee_room(open_call *f)
{
   if (f->n == f->cap) {
      size_t cap = f->cap ? 2 * f->cap : 2;
      callee_count *v = realloc(f->callee, cap * sizeof *v);
      if (!v)
         return -1;
      f->callee = v;
      f->cap = cap;
   }
   if (f->n < LINEAR || (f->bits && 2 * (f->n + 1) <= (size_t)1 << f->bits))
      return 0;
   unsigned bits = f->bits ? f->bits + 1 : 5;
   size_t i;
   uint32_t *slot = calloc((size_t)1 << bits, sizeof *slot);
   if (!slot)
      return -1;
   free(f->slot);
   f->slot = slot;
   f->bits = bits;
   for (i = 0; i < f->n; i++)
      place(f, i);
   return 0;
}

/* fn's counter among f's callees, added if new; NULL if out of memory. */
static callee_count *callee_of(open_call *f, uint32_t fn)
{
   size_t mask, s, i;
   callee_count *k;

   if (!f->bits) {
      for (i = 0; i < f->n; i++)
         if (f->callee[i].fn == fn)
            return &f->callee[i];
   } else {
      mask = ((size_t)1 << f->bits) - 1;
      for (s = (size_t)pl_golden_slot(fn, f->bits); (i = f->slot[s]) != 0;
           s = (s + 1) & mask)
         if (f->callee[i - 1].fn == fn)
            return &f->callee[i - 1];
   }
   if (callee_room(f) < 0)
      return NULL;
   k = &f->callee[f->n];
   k->fn = fn;
   k->count = 0;
   if (f->bits)
      place(f, f->n);
   f->n++;
   return k;
}

/* A new frame opens where f was: none of its callees are counted. */
static void forget_callees(open_call *f)
{
   size_t i;
   if (f->bits)
      for (i = 0; i < f->n; i++)
         f->slot[f->callee[i].slot] = 0;
   f->n = 0;
}

uint64_t call_numbers_call(call_numbers *c, uint32_t depth, uint32_t fn)
{
   size_t old = c->open_cap;
   callee_count *k;

   if (c->broken || depth == 0)
      return 0;
   if (pl_grow(&c->open, &c->open_cap, (size_t)depth + 1, sizeof *c->open)
       < 0) {
      c->broken = 1;
      return 0;
   }
   if (c->open_cap > old)
      memset(c->open + old, 0, (c->open_cap - old) * sizeof *c->open);
   if (!(k = callee_of(&c->open[depth - 1], fn))) {
      c->broken = 1;
      return 0;
   }
   forget_callees(&c->open[depth]);
   return c->open[depth].num = ++k->count;
}

void call_numbers_free(call_numbers *c)
{
   size_t d;
   for (d = 0; d < c->open_cap; d++) {
      free(c->open[d].callee);
      free(c->open[d].slot);
   }
   free(c->open);
   memset(c, 0, sizeof *c);
}
