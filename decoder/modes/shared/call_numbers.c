/* SPDX-License-Identifier: MIT */
/* Call numbers (call_numbers.h). */

#include <stdlib.h>
#include <string.h>

#include "call_numbers.h"
#include "pl_alloc.h"
#include "pl_hash.h"

static call_counter *counter_of(call_numbers *c, uint64_t key)
{
   size_t i, mask;
   if (2 * (c->n + 1) > c->cap) {
      size_t cap = c->cap ? 2 * c->cap : 256, j;
      call_counter *v = calloc(cap, sizeof *v);
      if (!v)
         return NULL;
      for (j = 0; j < c->cap; j++)
         if (c->v[j].key) {
            size_t s = (size_t)(c->v[j].key * PL_GOLDEN64) & (cap - 1);
            while (v[s].key)
               s = (s + 1) & (cap - 1);
            v[s] = c->v[j];
         }
      free(c->v);
      c->v = v;
      c->cap = cap;
   }
   mask = c->cap - 1;
   for (i = (size_t)(key * PL_GOLDEN64) & mask; c->v[i].key;
        i = (i + 1) & mask)
      if (c->v[i].key == key)
         return &c->v[i];
   c->v[i].key = key;
   c->v[i].stamp = UINT64_MAX;
   c->n++;
   return &c->v[i];
}

uint64_t call_numbers_call(call_numbers *c, uint32_t depth, uint32_t fn)
{
   size_t old = c->open_cap;
   call_counter *k;

   if (c->broken || depth == 0)
      return 0;
   if (pl_grow(&c->open, &c->open_cap, (size_t)depth + 1, sizeof *c->open) < 0
       || !(k = counter_of(c, ((uint64_t)depth << 32 | fn) + 1))) {
      c->broken = 1;
      return 0;
   }
   if (c->open_cap > old)
      memset(c->open + old, 0, (c->open_cap - old) * sizeof *c->open);
   if (k->stamp != c->open[depth - 1].serial) {
      k->stamp = c->open[depth - 1].serial;
      k->count = 0;
   }
   c->open[depth].num = ++k->count;
   c->open[depth].serial = ++c->next_serial;
   return c->open[depth].num;
}

void call_numbers_free(call_numbers *c)
{
   free(c->v);
   free(c->open);
   memset(c, 0, sizeof *c);
}
