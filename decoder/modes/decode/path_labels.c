/* SPDX-License-Identifier: MIT */
/* Call paths as parlot-decode writes them (path_labels.h). */
#include <stdlib.h>
#include <string.h>

#include "path_labels.h"
#include "pl_names.h"

void path_labels_free(path_labels *l)
{
   free(l->arena);
   free(l->at);
   free(l->rank);
   memset(l, 0, sizeof *l);
}

static const path_labels *sort_labels;   /* qsort's context */

static int by_label(const void *a, const void *b)
{
   uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
   const path_labels *l = sort_labels;
   size_t lx = l->at[x + 1] - l->at[x], ly = l->at[y + 1] - l->at[y];
   int c = memcmp(l->arena + l->at[x], l->arena + l->at[y],
                  lx < ly ? lx : ly);
   if (c)
      return c;
   if (lx != ly)
      return lx < ly ? -1 : 1;
   return x < y ? -1 : x > y;
}

int path_labels_build(path_labels *l, const pl_program *p)
{
   uint32_t n = p->nfns, f, *order;
   size_t total = 0;
   char *q;

   memset(l, 0, sizeof *l);
   l->nfns = n;
   l->at = malloc(((size_t)n + 2) * sizeof *l->at);
   l->rank = malloc(((size_t)n + 1) * sizeof *l->rank);
   order = malloc(((size_t)n + 1) * sizeof *order);
   if (!l->at || !l->rank || !order)
      goto fail;
   for (f = 1; f <= n; f++)
      total += pl_escaped_len(p->fns[f].label, strlen(p->fns[f].label));
   l->arena = malloc(total + 1);
   if (!l->arena)
      goto fail;
   q = l->arena;
   l->at[0] = l->at[1] = 0;
   for (f = 1; f <= n; f++) {
      char *s = q, *e;
      e = pl_put_escaped(q, p->fns[f].label, strlen(p->fns[f].label));
      for (; s < e; s++)
         if (*s == ';')
            *s = ':';
      q = e;
      l->at[f + 1] = (size_t)(q - l->arena);
   }
   for (f = 0; f < n; f++)
      order[f] = f + 1;
   sort_labels = l;
   qsort(order, n, sizeof *order, by_label);
   l->rank[0] = 0;
   for (f = 0; f < n; f++)
      l->rank[order[f]] = f + 1;
   free(order);
   return 0;
fail:
   free(order);
   path_labels_free(l);
   return -1;
}

static void put_label(outbuf *o, const path_labels *l, uint32_t fn)
{
   outbuf_write(o, l->arena + l->at[fn], l->at[fn + 1] - l->at[fn]);
}

static void put_path(outbuf *o, const path_labels *l, const uint32_t *fns,
                     uint32_t depth)
{
   uint32_t k;
   for (k = 0; k < depth; k++) {
      if (k)
         outbuf_write(o, ";", 1);
      put_label(o, l, fns[k]);
   }
}

void path_put_header(outbuf *o, const pl_program *p, int insns)
{
   if (pl_program_filter(p)) {
      outbuf_str(o, "# filter: ");
      outbuf_str_escaped(o, pl_filter_describe(pl_program_filter(p)));
      outbuf_str(o, "\n");
   }
   outbuf_str(o, insns ? "# calls\tinsns\ttag\tpath\n"
                       : "# calls\ttag\tpath\n");
}

void path_put_tag(outbuf *o, uint64_t tag)
{
   static const char hex[] = "0123456789abcdef";
   char b[18];
   int i;
   b[0] = '0';
   b[1] = 'x';
   for (i = 0; i < 16; i++)
      b[2 + i] = hex[(tag >> (60 - 4 * i)) & 15];
   outbuf_write(o, b, sizeof b);
}

void path_put_row(outbuf *o, const path_labels *l, uint64_t calls,
                  uint64_t insns, uint64_t tag, int comment,
                  const uint32_t *fns, uint32_t depth)
{
   if (comment)
      outbuf_write(o, "#\t", 2);
   outbuf_u64(o, calls);
   outbuf_write(o, "\t", 1);
   if (!comment && insns != PATH_NO_INSNS) {
      outbuf_u64(o, insns);
      outbuf_write(o, "\t", 1);
   }
   if (!comment) {
      path_put_tag(o, tag);
      outbuf_write(o, "\t", 1);
   }
   put_path(o, l, fns, depth);
   outbuf_write(o, "\n", 1);
}
