/* SPDX-License-Identifier: MIT */
/* Call cycles of a graph (report.h): the strongly connected components
   of its caller -> callee edges (Tarjan's algorithm, without recursion so
   that any depth of call chains is fine). */

#include <stdlib.h>
#include <string.h>

#include "report.h"

uint32_t *report_call_cycles(const pl_graph *g, uint32_t nfns)
{
   size_t n = (size_t)nfns + 1, e, k;
   size_t *first = calloc(n + 1, sizeof *first);     /* CSR by caller */
   uint32_t *to = malloc((g->nedges ? g->nedges : 1) * sizeof *to);
   uint32_t *index = calloc(n, sizeof *index), *low = calloc(n, sizeof *low);
   uint32_t *comp = calloc(n, sizeof *comp), *stack = malloc(n * sizeof *stack);
   uint32_t *call = malloc(n * sizeof *call);         /* DFS: node */
   size_t *next = malloc(n * sizeof *next);           /* DFS: next edge */
   uint8_t *on = calloc(n, 1), *self = calloc(n, 1);
   uint32_t counter = 0, ncomp = 0, sp = 0;
   uint32_t *out = NULL;

   if (!first || !to || !index || !low || !comp || !stack || !call || !next
       || !on || !self)
      goto done;
   for (e = 0; e < g->nedges; e++)
      if (g->edges[e].caller)
         first[g->edges[e].caller + 1]++;
   for (k = 1; k <= n; k++)
      first[k] += first[k - 1];
   {
      size_t *fill = calloc(n, sizeof *fill);
      if (!fill)
         goto done;
      for (e = 0; e < g->nedges; e++) {
         uint32_t c = g->edges[e].caller;
         if (!c)
            continue;
         to[first[c] + fill[c]++] = g->edges[e].callee;
         if (c == g->edges[e].callee)
            self[c] = 1;
      }
      free(fill);
   }
   for (k = 1; k < n; k++) {
      uint32_t depth = 0;
      if (index[k])
         continue;
      call[0] = (uint32_t)k;
      next[0] = first[k];
      index[k] = low[k] = ++counter;
      stack[sp++] = (uint32_t)k;
      on[k] = 1;
      for (;;) {
         uint32_t v = call[depth];
         if (next[depth] < first[v + 1]) {
            uint32_t w = to[next[depth]++];
            if (!index[w]) {
               index[w] = low[w] = ++counter;
               stack[sp++] = w;
               on[w] = 1;
               call[++depth] = w;
               next[depth] = first[w];
            } else if (on[w] && index[w] < low[v]) {
               low[v] = index[w];
            }
            continue;
         }
         if (low[v] == index[v]) {          /* v roots a component */
            uint32_t w, size = 0;
            ncomp++;
            do {
               w = stack[--sp];
               on[w] = 0;
               comp[w] = ncomp;
               size++;
            } while (w != v);
            if (size == 1 && !self[v])
               comp[v] = 0;                    /* no cycle through v */
         }
         if (depth == 0)
            break;
         depth--;
         if (low[v] < low[call[depth]])
            low[call[depth]] = low[v];
      }
   }
   out = comp;
   comp = NULL;
done:
   free(first);
   free(to);
   free(index);
   free(low);
   free(comp);
   free(stack);
   free(call);
   free(next);
   free(on);
   free(self);
   return out;
}
