/* SPDX-License-Identifier: MIT */
/* The calling-context tree of --paths and --folded (path_tree.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path_tree.h"

void *path_tree_create(const pl_decode_opts *o)
{
   path_tree *s = calloc(1, sizeof *s);
   (void)o;
   if (!s)
      return NULL;
   s->cct = pl_cct_new();
   if (!s->cct) {
      free(s);
      return NULL;
   }
   return s;
}

void path_tree_visitor(void *state, pl_visitor *v)
{
   pl_cct_visitor(((path_tree *)state)->cct, v);
}

void path_tree_destroy(void *state)
{
   path_tree *s = state;
   pl_cct_free(s->cct);
   free(s->path);
   free(s);
}

int path_tree_pack(void *state, unsigned char **buf, size_t *len)
{
   return pl_cct_pack(((path_tree *)state)->cct, buf, len);
}

int path_tree_merge(void *state, const unsigned char *buf, size_t len,
                    const uint32_t *map, uint32_t nmap)
{
   return pl_cct_merge(((path_tree *)state)->cct, buf, len, map, nmap);
}

int path_tree_check_weight(const path_tree *s, const pl_decode_opts *o)
{
   if (!o->weight_insns || pl_cct_has_costs(s->cct))
      return 0;
   fprintf(stderr, "%s: --weight=insns: the traces have no instruction "
           "counts (record them with valgrind --tool=parlot "
           "--collect-insns=yes)\n", o->prog);
   return -1;
}

long path_tree_path(path_tree *s, uint32_t node)
{
   uint32_t d = pl_cct_depth(s->cct, node);
   if (d > s->path_cap) {
      size_t cap = d + 64;
      uint32_t *np = realloc(s->path, cap * sizeof *np);
      if (!np)
         return -1;
      s->path = np;
      s->path_cap = cap;
   }
   return (long)pl_cct_path(s->cct, node, s->path);
}

static int u64_order(const void *a, const void *b)
{
   uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
   return x < y ? -1 : x > y;
}

int path_tree_order(const pl_cct *c, const path_labels *l, uint32_t **out)
{
   const pl_cct_node *nd = pl_cct_nodes(c);
   size_t n = pl_cct_size(c), i, k, sp = 0, stack_cap = 64;
   uint32_t *first = calloc(n + 1, sizeof *first);
   uint32_t *kids = malloc(n * sizeof *kids);
   uint32_t *order = malloc(n * sizeof *order);
   uint32_t *st_node = malloc(stack_cap * sizeof *st_node);
   uint32_t *st_next = malloc(stack_cap * sizeof *st_next);
   uint64_t *tmp = NULL;
   size_t tmp_cap = 0;
   int ret = -1;

   if (!first || !kids || !order || !st_node || !st_next)
      goto out;
   /* children lists (CSR): first[p] .. first[p+1] in kids */
   for (i = 1; i < n; i++)
      first[nd[i].parent + 1]++;
   for (i = 1; i <= n; i++)
      first[i] += first[i - 1];
   for (i = 1; i < n; i++)
      kids[first[nd[i].parent]++] = (uint32_t)i;
   for (i = n; i > 0; i--)
      first[i] = first[i - 1];
   first[0] = 0;
   /* each list by label rank: insertion sort for the many short lists,
      packed (rank, node) keys and qsort for long ones */
   for (i = 0; i < n; i++) {
      uint32_t a = first[i], b = first[i + 1];
      if (b - a <= 16) {
         uint32_t x, y;
         for (x = a + 1; x < b; x++) {
            uint32_t v = kids[x], rv = l->rank[nd[v].fn];
            for (y = x; y > a && l->rank[nd[kids[y - 1]].fn] > rv; y--)
               kids[y] = kids[y - 1];
            kids[y] = v;
         }
      } else {
         if (b - a > tmp_cap) {
            uint64_t *t = realloc(tmp, (b - a) * sizeof *t);
            if (!t)
               goto out;
            tmp = t;
            tmp_cap = b - a;
         }
         for (k = a; k < b; k++)
            tmp[k - a] = (uint64_t)l->rank[nd[kids[k]].fn] << 32 | kids[k];
         qsort(tmp, b - a, sizeof *tmp, u64_order);
         for (k = a; k < b; k++)
            kids[k] = (uint32_t)tmp[k - a];
      }
   }
   /* preorder */
   k = 0;
   order[k++] = 0;
   st_node[0] = 0;
   st_next[0] = first[0];
   for (;;) {
      uint32_t v = st_node[sp];
      if (st_next[sp] < first[v + 1]) {
         uint32_t w = kids[st_next[sp]++];
         order[k++] = w;
         if (++sp == stack_cap) {
            uint32_t *a2 = realloc(st_node, 2 * stack_cap * sizeof *a2);
            uint32_t *b2;
            if (!a2)
               goto out;
            st_node = a2;
            b2 = realloc(st_next, 2 * stack_cap * sizeof *b2);
            if (!b2)
               goto out;
            st_next = b2;
            stack_cap *= 2;
         }
         st_node[sp] = w;
         st_next[sp] = first[w];
      } else if (sp == 0) {
         break;
      } else {
         sp--;
      }
   }
   *out = order;
   order = NULL;
   ret = 0;
out:
   free(first);
   free(kids);
   free(order);
   free(st_node);
   free(st_next);
   free(tmp);
   return ret;
}
