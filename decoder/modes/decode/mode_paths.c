/* SPDX-License-Identifier: MIT */
/* parlot-decode --paths: the call paths of all the threads with their
   counts and stack tags (pl_paths.h).

   "# calls<TAB>tag<TAB>path", then one row per path called at least once,
   "COUNT<TAB>0xTAG<TAB>f1;f2;...;fn", by decreasing count, then by path
   (path_labels.h); --top=N rows (0 = all).  Traces recorded with
   --collect-insns add the instructions run while the path was the stack
   (its own, not its callees'), "COUNT<TAB>INSNS<TAB>0xTAG<TAB>path";
   --weight=insns sorts by them.  Then every tag that two or
   more paths share, as "# collision: tag 0xTAG is shared by N paths" and
   one "#<TAB>COUNT<TAB>path" line per path, with a warning on stderr (the
   exit status stays 0). */
#include <stdio.h>
#include <stdlib.h>

#include "path_labels.h"
#include "path_tree.h"

/* Sort entries: a key (calls or tag), then path order. */
typedef struct {
   uint64_t key;
   uint32_t rank;       /* position in path order */
   uint32_t node;
} entry;

static int by_calls_then_path(const void *a, const void *b)
{
   const entry *x = a, *y = b;
   if (x->key != y->key)
      return x->key > y->key ? -1 : 1;
   return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int by_tag_then_path(const void *a, const void *b)
{
   const entry *x = a, *y = b;
   if (x->key != y->key)
      return x->key < y->key ? -1 : 1;
   return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int paths_write(void *state, const pl_program *p, outbuf *o,
                       const pl_decode_opts *opts)
{
   path_tree *s = state;
   const pl_cct_node *nd = pl_cct_nodes(s->cct);
   size_t n = pl_cct_size(s->cct), i, j, k, nrows = 0, top, ncoll = 0;
   uint32_t *order = NULL, *rank = NULL;
   entry *e = NULL;
   path_labels l;
   int ret = -1, costs;

   if (path_labels_build(&l, p) < 0)
      return -1;
   if (path_tree_order(s->cct, &l, &order) < 0
       || !(rank = malloc(n * sizeof *rank))
       || !(e = malloc(n * sizeof *e)))
      goto out;
   for (i = 0; i < n; i++)
      rank[order[i]] = (uint32_t)i;
   free(order);
   order = NULL;

   if (path_tree_check_weight(s, opts) < 0) {
      ret = 1;
      goto out;
   }
   costs = pl_cct_has_costs(s->cct);
   for (i = 1; i < n; i++)
      if (nd[i].calls) {
         e[nrows].key = opts->weight_insns ? nd[i].cost : nd[i].calls;
         e[nrows].rank = rank[i];
         e[nrows].node = (uint32_t)i;
         nrows++;
      }
   qsort(e, nrows, sizeof *e, by_calls_then_path);
   top = opts->top && opts->top < nrows ? opts->top : nrows;
   path_put_header(o, p, costs);
   for (i = 0; i < top; i++) {
      uint32_t v = e[i].node;
      long d = path_tree_path(s, v);
      if (d < 0)
         goto out;
      path_put_row(o, &l, nd[v].calls, costs ? nd[v].cost : PATH_NO_INSNS,
                   nd[v].tag, 0, s->path, (uint32_t)d);
   }

   /* collisions: every tag of two or more paths, called or not */
   for (i = 1; i < n; i++) {
      e[i - 1].key = nd[i].tag;
      e[i - 1].rank = rank[i];
      e[i - 1].node = (uint32_t)i;
   }
   qsort(e, n - 1, sizeof *e, by_tag_then_path);
   for (i = 0; i + 1 < n; i = j) {
      for (j = i + 1; j + 1 < n && e[j].key == e[i].key; j++)
         ;
      if (j - i < 2)
         continue;
      ncoll++;
      outbuf_str(o, "# collision: tag ");
      path_put_tag(o, e[i].key);
      outbuf_printf(o, " is shared by %zu paths\n", j - i);
      for (k = i; k < j; k++) {
         uint32_t v = e[k].node;
         long d = path_tree_path(s, v);
         if (d < 0)
            goto out;
         path_put_row(o, &l, nd[v].calls, PATH_NO_INSNS, 0, 1, s->path,
                      (uint32_t)d);
      }
   }
   if (ncoll)
      fprintf(stderr, "%s: warning: %zu stack tag%s shared by more than one "
              "call path (listed at the end of the output)\n", opts->prog,
              ncoll, ncoll == 1 ? " is" : "s are");
   ret = 0;
out:
   free(order);
   free(rank);
   free(e);
   path_labels_free(&l);
   return ret;
}

const pl_program_mode pl_mode_paths = {
   path_tree_create, path_tree_visitor, paths_write, path_tree_destroy,
   path_tree_pack, path_tree_merge
};
