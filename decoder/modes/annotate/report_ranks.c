/* SPDX-License-Identifier: MIT */
/* parlot-annotate's view across ranks: calls per rank (min / median /
   max) and the outlier ranks with what differs (pl_outliers.h). */
#define _XOPEN_SOURCE 700

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* ---- Ranks: the program across its processes ----------------------------- */

/* By median, then max, then min (all descending), then label. */
static int by_median(const void *a, const void *b)
{
   const pl_rank_fn *x = *(const pl_rank_fn *const *)a;
   const pl_rank_fn *y = *(const pl_rank_fn *const *)b;
   int c = report_cmp_u64_desc(x->median, y->median);
   if (c == 0)
      c = report_cmp_u64_desc(x->max, y->max);
   if (c == 0)
      c = report_cmp_u64_desc(x->min, y->min);
   return c ? c : report_cmp_fn_ids(x->fn, y->fn);
}

static const char *const reason_names[] = {
   "only here: ", "missing here: ", "only here: ", "missing here: ",
   "calls differ: ", "order differs: "
};

/* fn with its object, or its name alone. */
static void put_reason_fn(outbuf *o, const pl_program *p, uint32_t fn,
                          int objects)
{
   if (objects)
      report_put_fn(o, p, fn, 0);
   else
      report_put_fn_name(o, p, fn);
}

static void put_reason(outbuf *o, const pl_program *p, const pl_reason *r,
                       int objects)
{
   outbuf_str(o, reason_names[r->kind]);
   if (r->kind == PL_REASON_ORDER) {
      outbuf_str(o, "the same calls in another order (parlot-diff --within "
                 "shows where)");
      return;
   }
   if (r->kind == PL_REASON_ONLY_EDGE || r->kind == PL_REASON_MISSING_EDGE) {
      put_reason_fn(o, p, r->caller, objects);
      outbuf_str(o, " > ");
   }
   put_reason_fn(o, p, r->fn, objects);
}

/* Whether outlier ol is explained against the majority class (its
   column says "Majority", else "Median": the median of another class). */
static int ref_is_majority(const pl_ranks *r, const pl_outlier *ol)
{
   size_t j;
   for (j = 0; j < r->nprocs; j++)
      if (r->procs[j] == ol->ref)
         return !r->by_medoid && r->has_majority && r->cls[j] == r->majority;
   return 0;
}

/* The Ranks section (docs/parlot-annotate.1): per function min / median /
   max calls per process, then each outlier with its reasons.  0, or -1 if
   out of memory. */
int report_write_ranks(outbuf *o, const pl_program *p, const report_opts *opt,
                       const pl_ranks *r, const rank_costs *rc)
{
   const pl_rank_fn **fs;
   const char *unit, *units;
   char name[64];
   table t;
   size_t i, n, k;
   int pass;

   unit = r->by_rank ? "rank" : "process";
   units = r->by_rank ? "ranks" : "processes";
   fs = malloc((r->nfns + 1) * sizeof *fs);
   if (!fs)
      return -1;
   for (i = 0; i < r->nfns; i++)
      fs[i] = &r->fns[i];
   report_sort_context(p);
   qsort(fs, r->nfns, sizeof *fs, by_median);
   /* as the function lists: until those shown hold THRESHOLD% of the
      medians' sum; and the functions some rank does not call, where ranks
      differ most; at most --top */
   n = r->nfns;
   if (opt->threshold < PCT_SCALE) {
      uint64_t total = 0, sum = 0;
      size_t within;
      for (i = 0; i < r->nfns; i++)
         total += fs[i]->median;
      for (within = 0; within < r->nfns
                       && report_scaled_cmp(sum, opt->threshold, total) < 0;
           within++)
         sum += fs[within]->median;
      for (i = n = within; i < r->nfns; i++)
         if (fs[i]->nprocs < r->nprocs)
            fs[n++] = fs[i];
   }
   if (opt->top && n > opt->top)
      n = (size_t)opt->top;

   outbuf_str(o, RULE);
   report_head_key(o, "Ranks:");
   report_put_u64(o, r->nprocs);
   outbuf_str(o, r->by_rank ? " (processes with an MPI rank)\n"
                           : " (processes; no MPI ranks recorded)\n");
   report_head_key(o, "Classes:");
   report_put_u64(o, r->nclasses);
   outbuf_str(o, r->class_kind == PL_CLASS_SHAPE ? ", by call-graph shape"
                                                : ", by call graph");
   if (r->has_majority)
      outbuf_printf(o, "; majority: class %zu, %zu %s\n", r->majority + 1,
                    r->majority_size, r->majority_size == 1 ? unit : units);
   else
      outbuf_str(o, r->nclasses > 1 ? "; no majority\n" : "\n");
   if (r->by_medoid) {
      report_head_key(o, "Medoid:");
      report_put_name(o, pl_ranks_proc_name(p, r, r->procs[r->medoid], name,
                                            sizeof name));
      outbuf_printf(o, " (no rule tells the odd %s: each %s of another "
                    "class is listed against it)\n", units, unit);
   }
   report_head_key(o, r->by_medoid ? "Unlike it:" : "Outliers:");
   report_put_u64(o, r->noutliers);
   for (i = 0; i < r->noutliers; i++) {
      outbuf_str(o, i ? ", " : " (");
      report_put_name(o, pl_ranks_proc_name(p, r, r->outliers[i].proc, name,
                                     sizeof name));
   }
   outbuf_str(o, r->noutliers ? ")\n" : "\n");
   /* what makes each one differ, next to the line that names it */
   for (k = 0; k < r->noutliers; k++) {
      const pl_outlier *ol = &r->outliers[k];
      const pl_process *pr = &p->procs[ol->proc];
      size_t nr = ol->nreasons;
      if (opt->top && nr > opt->top)
         nr = (size_t)opt->top;
      report_table_init(&t, 2);
      report_table_col(&t, 0, "Calls", 0, 0);
      report_table_col(&t, 1, ref_is_majority(r, ol) ? "Majority"
                                                      : "Median", 0, 0);
      for (i = 0; i < nr; i++) {
         uint64_t v[2] = { ol->reasons[i].calls, ol->reasons[i].median };
         report_table_measure(&t, v);
      }
      outbuf_str(o, r->by_medoid ? "Unlike the medoid: " : "Outlier ");
      report_put_name(o, pl_ranks_proc_name(p, r, ol->proc, name, sizeof name));
      outbuf_str(o, " (pid ");
      report_put_name(o, pr->pid);
      outbuf_printf(o, ", class %zu): %zu difference%s from ", ol->cls + 1,
                    ol->nreasons, ol->nreasons == 1 ? "" : "s");
      report_put_name(o, pl_ranks_proc_name(p, r, ol->ref, name,
                                            sizeof name));
      outbuf_str(o, r->by_medoid ? " (the medoid)" : "'s class");
      if (nr < ol->nreasons)
         outbuf_printf(o, ", %zu shown", nr);
      outbuf_str(o, "\n");
      report_table_head(o, &t, "difference: function [object]");
      for (i = 0; i < nr; i++) {
         uint64_t v[2] = { ol->reasons[i].calls, ol->reasons[i].median };
         report_table_cells(o, &t, v);
         put_reason(o, p, &ol->reasons[i], 1);
         outbuf_str(o, "\n");
      }
      outbuf_str(o, "\n");
   }

   if (report_write_rank_costs(o, p, opt, r, rc) < 0) {
      free(fs);
      return -1;
   }
   report_table_init(&t, 4);
   report_table_col(&t, 0, "Min", 0, 0);
   report_table_col(&t, 1, "Median", 0, 0);
   report_table_col(&t, 2, "Max", 0, 0);
   report_table_col(&t, 3, r->by_rank ? "Ranks" : "Procs", 0, 0);
   for (pass = 0; pass < 2; pass++) {
      if (pass == 1)
         report_table_head(o, &t, "function [object]  (calls per process)");
      for (i = 0; i < n; i++) {
         uint64_t v[4] = { fs[i]->min, fs[i]->median, fs[i]->max,
                           fs[i]->nprocs };
         if (pass == 0) {
            report_table_measure(&t, v);
            continue;
         }
         report_table_cells(o, &t, v);
         report_put_fn(o, p, fs[i]->fn, 0);
         outbuf_str(o, "\n");
      }
   }
   outbuf_str(o, "\n");

   free(fs);
   return 0;
}

/* Outliers named in the headline; the Ranks section lists them all. */
#define HEADLINE_OUTLIERS 3

void report_write_ranks_headline(outbuf *o, const pl_program *p,
                                 const pl_ranks *r)
{
   char name[64];
   size_t k;

   if (!r->by_rank)          /* processes of different programs, maybe */
      return;
   report_head_key(o, "Outlier ranks:");
   if (r->noutliers == 0) {
      outbuf_printf(o, "none of %zu (%zu class%s)\n", r->nprocs,
                    r->nclasses, r->nclasses == 1 ? "" : "es");
      return;
   }
   outbuf_printf(o, "%zu of %zu", r->noutliers, r->nprocs);
   if (r->by_medoid) {
      outbuf_str(o, " unlike the medoid, ");
      report_put_name(o, pl_ranks_proc_name(p, r, r->procs[r->medoid], name,
                                            sizeof name));
   }
   outbuf_str(o, ": ");
   for (k = 0; k < r->noutliers && k < HEADLINE_OUTLIERS; k++) {
      const pl_outlier *ol = &r->outliers[k];
      outbuf_str(o, k ? ", " : "");
      report_put_name(o, pl_ranks_proc_name(p, r, ol->proc, name,
                                            sizeof name));
      if (pl_ranks_lone_root(p, r, ol->proc))
         outbuf_str(o, ", the root");
      if (ol->nreasons) {
         outbuf_str(o, " (");
         put_reason(o, p, &ol->reasons[0], 0);
         outbuf_str(o, ol->nreasons > 1 ? ", ...)" : ")");
      }
   }
   outbuf_printf(o, "%s; more under Ranks below\n",
                 r->noutliers > HEADLINE_OUTLIERS ? ", ..." : "");
}
