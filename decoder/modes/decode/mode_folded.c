/* SPDX-License-Identifier: MIT */
/* parlot-decode --folded: "f1;f2;...;fn COUNT" per call path called at
   least once, by path (path_labels.h), of all the threads: the input of
   flamegraph.pl.  With --weight=insns, COUNT is the instructions run while
   the path was the stack (a trace recorded with --collect-insns), for a
   flame graph of where the time went; paths of none are left out. */
#include <stdlib.h>
#include <string.h>

#include "path_labels.h"
#include "path_tree.h"

static int folded_write(void *state, const pl_program *p, outbuf *o,
                        const pl_decode_opts *opts)
{
   path_tree *s = state;
   const pl_cct_node *nd = pl_cct_nodes(s->cct);
   size_t n = pl_cct_size(s->cct), i, sp = 0, stack_cap = 64, cap = 4096;
   uint32_t *order = NULL, *st_node = malloc(stack_cap * sizeof *st_node);
   size_t *st_len = malloc(stack_cap * sizeof *st_len);
   char *buf = malloc(cap);
   path_labels l;
   int ret = -1;

   memset(&l, 0, sizeof l);
   if (path_tree_check_weight(s, opts) < 0) {
      ret = 1;
      goto out;
   }
   if (!st_node || !st_len || !buf || path_labels_build(&l, p) < 0
       || path_tree_order(s->cct, &l, &order) < 0)
      goto out;
   /* the stack of the walk: node and the length of its path in buf */
   st_node[0] = 0;
   st_len[0] = 0;
   for (i = 1; i < n; i++) {
      uint32_t v = order[i], fn = nd[v].fn;
      size_t len, ll = l.at[fn + 1] - l.at[fn];
      uint64_t weight;
      while (st_node[sp] != nd[v].parent)
         sp--;
      len = st_len[sp];
      if (len + ll + 1 > cap) {
         char *nb;
         while (len + ll + 1 > cap)
            cap *= 2;
         if (!(nb = realloc(buf, cap)))
            goto out;
         buf = nb;
      }
      if (sp)
         buf[len++] = ';';
      memcpy(buf + len, l.arena + l.at[fn], ll);
      len += ll;
      if (++sp == stack_cap) {
         uint32_t *a2 = realloc(st_node, 2 * stack_cap * sizeof *a2);
         size_t *b2;
         if (!a2)
            goto out;
         st_node = a2;
         if (!(b2 = realloc(st_len, 2 * stack_cap * sizeof *b2)))
            goto out;
         st_len = b2;
         stack_cap *= 2;
      }
      st_node[sp] = v;
      st_len[sp] = len;
      weight = opts->weight_insns ? nd[v].cost : nd[v].calls;
      if (weight) {
         outbuf_write(o, buf, len);
         outbuf_write(o, " ", 1);
         outbuf_u64(o, weight);
         outbuf_write(o, "\n", 1);
      }
   }
   ret = 0;
out:
   free(order);
   free(st_node);
   free(st_len);
   free(buf);
   path_labels_free(&l);
   return ret;
}

const pl_program_mode pl_mode_folded = {
   path_tree_create, path_tree_visitor, folded_write, path_tree_destroy,
   path_tree_pack, path_tree_merge
};
