/* SPDX-License-Identifier: MIT */
/* parlot-annotate's calls per object. */
#define _XOPEN_SOURCE 700

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* ---- Objects ------------------------------------------------------------ */

typedef struct {
   const char *name;
   uint64_t    calls, from_outside, fns;
} obj_row;

static int by_obj_calls(const void *a, const void *b)
{
   const obj_row *x = a, *y = b;
   int c = report_cmp_u64_desc(x->calls, y->calls);
   return c ? c : strcmp(x->name, y->name);
}

static int by_obj_name(const void *a, const void *b)
{
   return strcmp(((const obj_row *)a)->name, ((const obj_row *)b)->name);
}

static const char *object_of(const pl_program *p, uint32_t fn)
{
   return p->fns[fn].object;
}

/* Per object: calls of its functions, those of them coming from another
   object (or from no caller), and its functions that ran. */
int report_write_objects(report *r, outbuf *o)
{
   const pl_program *p = r->p;
   const pl_graph *g = r->g;
   obj_row *rows = malloc((g->nfns ? g->nfns : 1) * sizeof *rows);
   size_t n = 0, i, k;
   table t;

   if (!rows)
      return -1;
   for (i = 0; i < g->nfns; i++) {
      rows[i].name = object_of(p, g->fns[i].fn);
      rows[i].calls = g->fns[i].calls;
      rows[i].from_outside = 0;
      rows[i].fns = 1;
   }
   qsort(rows, g->nfns, sizeof *rows, by_obj_name);
   for (i = 0; i < g->nfns; i++) {
      if (n > 0 && strcmp(rows[n - 1].name, rows[i].name) == 0) {
         rows[n - 1].calls += rows[i].calls;
         rows[n - 1].fns++;
      } else {
         rows[n++] = rows[i];
      }
   }
   for (i = 0; i < g->nedges; i++) {
      const pl_edge *e = &g->edges[i];
      const char *callee = object_of(p, e->callee);
      obj_row key, *row;
      if (e->caller != 0 && strcmp(object_of(p, e->caller), callee) == 0)
         continue;
      key.name = callee;
      row = bsearch(&key, rows, n, sizeof *rows, by_obj_name);
      if (row)
         row->from_outside += e->calls;
   }
   qsort(rows, n, sizeof *rows, by_obj_calls);

   report_table_init(&t, 3);
   report_table_col(&t, 0, "Calls", 1, g->calls);
   report_table_col(&t, 1, "From outside", 1, g->calls);
   report_table_col(&t, 2, "Functions", 0, 0);
   for (k = 0; k < 2; k++) {
      if (k == 1)
         report_table_head(o, &t, "object");
      for (i = 0; i < n; i++) {
         uint64_t v[3] = { rows[i].calls, rows[i].from_outside, rows[i].fns };
         if (k == 0) {
            report_table_measure(&t, v);
            continue;
         }
         report_table_cells(o, &t, v);
         report_put_name(o, rows[i].name);
         outbuf_str(o, "\n");
      }
   }
   outbuf_str(o, "\n");
   free(rows);
   return 0;
}
