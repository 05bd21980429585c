/* SPDX-License-Identifier: MIT */
/* parlot-annotate's whole report, part after part (report.h). */
#define _XOPEN_SOURCE 700

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* What pl_groups_free frees of one group. */
static void free_group(pl_group *g)
{
   free(g->name);
   free(g->members);
   pl_graph_free(&g->g);
}

int report_write(outbuf *o, const pl_program *p, const report_opts *opt,
                 const read_info *ri, char *why, size_t whylen)
{
   pl_graph total;
   pl_ranks ranks;
   rank_costs rc;
   int have_ranks = 0;
   pl_group *gs = NULL;
   size_t ngroups = 0, i;
   report r;
   uint32_t *cycle = NULL;
   char label[64];
   int ret = -1;

   memset(&r, 0, sizeof r);
   memset(&total, 0, sizeof total);
   memset(&rc, 0, sizeof rc);
   if (pl_program_total(p, &total) < 0)
      return -1;
   if (opt->group_by >= 0) {
      size_t k = 0;
      if (pl_program_group(p, opt->group_by, &gs, &ngroups) < 0)
         goto out;
      /* a process without selected threads is no group */
      for (i = 0; i < ngroups; i++) {
         if (gs[i].nmembers > 0)
            gs[k++] = gs[i];
         else
            free_group(&gs[i]);
      }
      ngroups = k;
   }
   if (opt->group > ngroups) {
      snprintf(why, whylen, "--group=%" PRIu64 ": there %s only %zu "
               "group%s by %s", opt->group, ngroups == 1 ? "is" : "are",
               ngroups, ngroups == 1 ? "" : "s",
               report_group_kind_name(opt->group_by));
      ret = 2;
      goto out;
   }
   r.p = p;
   r.opt = opt;
   r.g = opt->group ? &gs[opt->group - 1].g : &total;
   if (opt->group)
      snprintf(label, sizeof label, "GROUP %" PRIu64 " TOTALS", opt->group);
   else
      snprintf(label, sizeof label, "PROGRAM TOTALS");

   r.nfns = r.g->nfns;
   r.fns = malloc((r.nfns ? r.nfns : 1) * sizeof *r.fns);
   r.callers = malloc((r.g->nedges ? r.g->nedges : 1) * sizeof *r.callers);
   if (!r.fns || !r.callers)
      goto out;
   for (i = 0; i < r.nfns; i++)
      r.fns[i] = &r.g->fns[i];
   for (i = 0; i < r.g->nedges; i++)
      r.callers[i] = &r.g->edges[i];
   qsort(r.callers, r.g->nedges, sizeof *r.callers, report_by_callee);
   if (!(r.cycle = cycle = report_call_cycles(r.g, p->nfns)))
      goto out;
   /* the program across its ranks: for the whole program only, and by
      default where there are several */
   if (!opt->group && opt->ranks != RANKS_NO) {
      if (pl_ranks_analyse(p, &ranks) < 0)
         goto out;
      have_ranks = 1;
      if (opt->ranks == RANKS_AUTO && ranks.nprocs < 2) {
         pl_ranks_free(&ranks);
         have_ranks = 0;
      }
      if (have_ranks && report_rank_costs(p, &ranks, &rc) < 0)
         goto out;
   }
   if (report_write_header(o, p, opt, ri, ngroups,
                    opt->group ? &gs[opt->group - 1] : NULL,
                    have_ranks ? &ranks : NULL, &rc) < 0)
      goto out;
   if (opt->group_by >= 0)
      report_write_groups(o, p, &total, gs, ngroups);
   report_write_totals(o, r.g, label);
   if (report_write_objects(&r, o) < 0
       || (r.g->costs && report_write_list(&r, o, LIST_IR) < 0)
       || report_write_list(&r, o, LIST_CALLS) < 0
       || report_write_list(&r, o, LIST_INCL) < 0)
      goto out;
   if (have_ranks && report_write_ranks(o, p, opt, &ranks, &rc) < 0)
      goto out;
   ret = 0;
out:
   if (have_ranks)
      pl_ranks_free(&ranks);
   report_rank_costs_free(&rc);
   free(r.fns);
   free(r.callers);
   free(cycle);
   pl_groups_free(gs, ngroups);
   pl_graph_free(&total);
   return ret;
}
