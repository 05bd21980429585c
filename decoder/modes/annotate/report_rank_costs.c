/* SPDX-License-Identifier: MIT */
/* parlot-annotate's view of the ranks' instructions (a run recorded with
   --collect-insns): which rank spent most in the program's own code, and
   in which functions the ranks differ most.  The program's own functions'
   self instructions only: an MPI library's (and the libraries below it)
   are mostly polling while a rank waits, so a rank that waits for a slow
   one counts more there; the slow one's own code does not lie. */
#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_median.h"
#include "pl_runtime.h"
#include "report.h"

/* A rank whose own instructions are below this many hundredths of a
   percent above the median's is not named costliest (a balanced run). */
#define BALANCED_PCT 200u
/* Functions in the Ranks section's table of instructions. */
#define COST_ROWS 10

static int own_function(const pl_gfunc *f)
{
   return pl_object_kind(f->object) == PL_OBJECT_PROGRAM
          && !pl_runtime_function(f->name);
}

static int by_spread(const void *a, const void *b)
{
   const rank_fn_cost *x = a, *y = b;
   int c = report_cmp_u64_desc(x->max - x->median, y->max - y->median);
   return c ? c : report_cmp_fn_ids(x->fn, y->fn);
}

int report_rank_costs(const pl_program *p, const pl_ranks *r, rank_costs *c)
{
   size_t n = r->nprocs, nown = 0, i, k;
   uint32_t *slot = NULL, f;
   uint64_t *vals = NULL, *tmp = NULL;
   int costs = 0, ret = -1;

   memset(c, 0, sizeof *c);
   for (i = 0; i < p->nthreads; i++)
      costs |= p->threads[i].g.costs;
   if (!r->by_rank || n < 2 || !costs)
      return 0;
   /* the program's own functions, numbered */
   if (!(slot = calloc((size_t)p->nfns + 1, sizeof *slot)))
      return -1;
   for (f = 1; f <= p->nfns; f++)
      if (own_function(&p->fns[f]))
         slot[f] = (uint32_t)++nown;
   if (nown == 0) {
      free(slot);
      return 0;
   }
   vals = calloc(nown * n, sizeof *vals);
   tmp = malloc(n * sizeof *tmp);
   c->total = calloc(n, sizeof *c->total);
   c->fns = malloc(nown * sizeof *c->fns);
   if (!vals || !tmp || !c->total || !c->fns)
      goto out;
   /* [function k][rank i]: its threads' self instructions added up */
   for (i = 0; i < n; i++) {
      const pl_process *pr = &p->procs[r->procs[i]];
      for (size_t t = 0; t < pr->nthreads; t++) {
         const pl_graph *g = &p->threads[pr->first_thread + t].g;
         for (k = 0; k < g->nfns; k++) {
            uint32_t s = slot[g->fns[k].fn];
            if (s) {
               vals[(size_t)(s - 1) * n + i] += g->fns[k].self_cost;
               c->total[i] += g->fns[k].self_cost;
            }
         }
      }
   }
   memcpy(tmp, c->total, n * sizeof *tmp);
   c->median = pl_lower_median(tmp, n);
   for (i = 1; i < n; i++)
      if (c->total[i] > c->total[c->top])
         c->top = i;
   /* per function: min, median, max and where the max is; the top
      rank's largest excess over a median */
   for (f = 1; f <= p->nfns; f++) {
      const uint64_t *v;
      rank_fn_cost *rf;
      if (!slot[f])
         continue;
      v = vals + (size_t)(slot[f] - 1) * n;
      rf = &c->fns[c->nfns];
      rf->fn = f;
      rf->at_max = 0;
      for (i = 1; i < n; i++)
         if (v[i] > v[rf->at_max])
            rf->at_max = i;
      memcpy(tmp, v, n * sizeof *tmp);
      rf->median = pl_lower_median(tmp, n);
      rf->min = tmp[0];
      rf->max = tmp[n - 1];
      if (v[c->top] > rf->median
          && (!c->top_fn
              || v[c->top] - rf->median > c->top_value - c->top_median)) {
         c->top_fn = f;
         c->top_value = v[c->top];
         c->top_median = rf->median;
      }
      if (rf->max > rf->min)
         c->nfns++;
   }
   report_sort_context(p);          /* by_spread's ties go by name */
   qsort(c->fns, c->nfns, sizeof *c->fns, by_spread);
   c->have = 1;
   ret = 0;
out:
   free(slot);
   free(vals);
   free(tmp);
   if (ret < 0)
      report_rank_costs_free(c);
   return ret;
}

void report_rank_costs_free(rank_costs *c)
{
   free(c->total);
   free(c->fns);
   memset(c, 0, sizeof *c);
}

/* "1.37x" of a against b (b > 0). */
static void put_ratio(outbuf *o, uint64_t a, uint64_t b)
{
   outbuf_printf(o, "%.2fx", (double)a / (double)b);
}

void report_write_costliest(outbuf *o, const pl_program *p, const pl_ranks *r,
                            const rank_costs *c)
{
   char name[64];
   uint64_t top;

   if (!c->have)
      return;
   top = c->total[c->top];
   report_head_key(o, "Costliest rank:");
   if (c->median == 0 || report_scaled_cmp(top - c->median, BALANCED_PCT,
                                           c->median) < 0) {
      outbuf_str(o, "none: every rank within 2% of the median's ");
      report_put_u64(o, c->median);
      outbuf_str(o, " instructions in the program's own code\n");
      return;
   }
   report_put_name(o, pl_ranks_proc_name(p, r, r->procs[c->top], name,
                                         sizeof name));
   outbuf_str(o, ", ");
   put_ratio(o, top, c->median);
   outbuf_str(o, " the median's instructions in the program's own code (");
   report_put_u64(o, top);
   outbuf_str(o, " against ");
   report_put_u64(o, c->median);
   outbuf_str(o, ")");
   if (c->top_fn) {
      outbuf_str(o, "; most in ");
      report_put_fn_name(o, p, c->top_fn);
      outbuf_str(o, " (");
      report_put_u64(o, c->top_value);
      outbuf_str(o, ", ");
      if (c->top_median)
         put_ratio(o, c->top_value, c->top_median);
      else
         outbuf_str(o, "none in");
      outbuf_str(o, " the median)");
   }
   outbuf_str(o, "\n");
}

int report_write_rank_costs(outbuf *o, const pl_program *p,
                            const report_opts *opt, const pl_ranks *r,
                            const rank_costs *c)
{
   char name[64];
   table t;
   size_t i, n = c->nfns < COST_ROWS ? c->nfns : COST_ROWS;
   int pass;

   if (!c->have)
      return 0;
   if (opt->top && n > opt->top)
      n = (size_t)opt->top;
   if (n == 0) {
      outbuf_str(o, "Instructions per rank: the same in every rank, in "
                 "each of the program's own functions\n\n");
      return 0;
   }
   report_table_init(&t, 3);
   report_table_col(&t, 0, "Min", 0, 0);
   report_table_col(&t, 1, "Median", 0, 0);
   report_table_col(&t, 2, "Max", 0, 0);
   for (pass = 0; pass < 2; pass++) {
      if (pass == 1)
         report_table_head(o, &t, "function [object]  (self instructions "
                           "per rank, the program's own functions; the "
                           "rank with the most)");
      for (i = 0; i < n; i++) {
         const rank_fn_cost *rf = &c->fns[i];
         uint64_t v[3] = { rf->min, rf->median, rf->max };
         if (pass == 0) {
            report_table_measure(&t, v);
            continue;
         }
         report_table_cells(o, &t, v);
         report_put_fn(o, p, rf->fn, 0);
         outbuf_str(o, "  (");
         report_put_name(o, pl_ranks_proc_name(p, r, r->procs[rf->at_max],
                                               name, sizeof name));
         outbuf_str(o, ")\n");
      }
   }
   outbuf_str(o, "\n");
   return 0;
}
