/* SPDX-License-Identifier: MIT */
/* parlot-annotate's header (files, command, processes, threads, events,
   selection, options), groups and totals. */
#define _XOPEN_SOURCE 700

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* "Recorded:" when traces leave calls out by design (selective
   recording): the first such process's description, and how many do. */
static void report_put_recording(outbuf *o, const pl_program *p)
{
   const char *first = NULL;
   size_t i, n = 0, same = 0;

   for (i = 0; i < p->nprocs; i++) {
      const char *r = pl_program_recording(p, i);
      if (!r)
         continue;
      if (!first)
         first = r;
      n++;
      same += strcmp(r, first) == 0;
   }
   if (!first)
      return;
   report_head_key(o, "Recorded:");
   outbuf_str(o, first);
   if (n != p->nprocs || same != n)
      outbuf_printf(o, " (%zu of %zu processes record selectively%s)", n,
                    p->nprocs, same != n ? ", not all alike" : "");
   outbuf_str(o, "\n");
}

/* ---- Header ------------------------------------------------------------- */

void report_head_key(outbuf *o, const char *key)
{
   outbuf_str(o, key);
   report_put_spaces(o, HEAD_WIDTH - strlen(key));
}

/* ", " between items, "..." after LIST_MAX of them. */
static int list_item(outbuf *o, size_t i)
{
   if (i == LIST_MAX) {
      outbuf_str(o, ", ...");
      return 0;
   }
   if (i > 0)
      outbuf_str(o, ", ");
   return i < LIST_MAX;
}

void report_put_u64(outbuf *o, uint64_t v)
{
   char num[CELL_MAX];
   report_put_commas(num, v);
   outbuf_str(o, num);
}

static int by_string(const void *a, const void *b)
{
   return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Thread members "PID:N-M, PID:N, ..." (runs of consecutive numbers of a
   process joined). */
static void put_members(outbuf *o, const pl_program *p, const size_t *m,
                        size_t n)
{
   size_t i = 0, items = 0;
   while (i < n) {
      const pl_thread *a = &p->threads[m[i]];
      size_t j = i + 1;
      while (j < n && p->threads[m[j]].proc == a->proc
             && p->threads[m[j]].number == p->threads[m[j - 1]].number + 1)
         j++;
      if (!list_item(o, items++))
         return;
      report_put_name(o, p->procs[a->proc].pid);
      outbuf_printf(o, ":%" PRIu32, a->number);
      if (j - i > 1)
         outbuf_printf(o, "-%" PRIu32, p->threads[m[j - 1]].number);
      i = j;
   }
}


static const struct {
   const char *name;
   int         kind;
} group_kinds[] = {
   { "process", PL_GROUP_PROCESS }, { "graph", PL_GROUP_GRAPH },
   { "shape", PL_GROUP_SHAPE }, { "none", -1 },
};
#define NGROUP_KINDS (sizeof group_kinds / sizeof group_kinds[0])

const char *report_group_kind_name(int kind)
{
   size_t i;
   for (i = 0; i < NGROUP_KINDS; i++)
      if (group_kinds[i].kind == kind)
         return group_kinds[i].name;
   return "?";
}

/* --group-by=KIND: 0, or -1 for an unknown kind. */
int report_parse_group_by(const char *s, int *kind)
{
   size_t i;
   for (i = 0; i < NGROUP_KINDS; i++)
      if (strcmp(s, group_kinds[i].name) == 0) {
         *kind = group_kinds[i].kind;
         return 0;
      }
   return -1;
}

/* Whether the header names process i: all of them, or with --select
   those with a thread selected. */
static int shown_process(const pl_program *p, const report_opts *opt, size_t i)
{
   return opt->select.n == 0 || p->procs[i].nthreads > 0;
}

/* How the shown processes ended: each ending with its count, in the order
   first seen; the processes of every ending but the most common one are
   named ("3 exit status 0; 1 killed by SIGSEGV (signal 11): rank 2"). */
static int put_endings(outbuf *o, const pl_program *p, const report_opts *opt)
{
   size_t *count = calloc(p->nprocs + 1, sizeof *count);
   pl_ending *e = malloc((p->nprocs + 1) * sizeof *e);
   size_t i, j, most = 0, groups = 0;
   char text[128];

   if (!count || !e) {
      free(count);
      free(e);
      return -1;
   }
   for (i = 0; i < p->nprocs; i++) {       /* count[first of its kind] */
      pl_program_ending(p, i, &e[i]);
      e[i].signal_thread = 0;              /* which thread: no matter */
      if (!shown_process(p, opt, i))
         continue;
      for (j = 0; j < i; j++)
         if (count[j] && pl_ending_same(&e[j], &e[i]))
            break;
      count[j]++;
   }
   for (i = 0; i < p->nprocs; i++)
      if (count[i] > count[most])
         most = i;
   report_head_key(o, "Endings:");
   for (i = 0; i < p->nprocs; i++) {
      size_t item = 0;
      if (!count[i])
         continue;
      pl_ending_text(&e[i], text, sizeof text);
      outbuf_str(o, groups++ ? "; " : "");
      report_put_u64(o, count[i]);
      outbuf_str(o, " ");
      outbuf_str(o, text);
      if (i == most)
         continue;
      outbuf_str(o, ": ");
      for (j = i; j < p->nprocs; j++) {
         const pl_process *pr = &p->procs[j];
         if (!shown_process(p, opt, j) || !pl_ending_same(&e[i], &e[j]))
            continue;
         if (!list_item(o, item++))
            break;
         outbuf_str(o, pr->rank ? "rank " : "pid ");
         report_put_name(o, pr->rank ? pr->rank : pr->pid);
      }
   }
   outbuf_str(o, groups ? "\n" : "(none)\n");
   free(count);
   free(e);
   return 0;
}

int report_write_header(outbuf *o, const pl_program *p, const report_opts *opt,
                        const read_info *ri, size_t ngroups,
                        const pl_group *chosen, const pl_ranks *ranks,
                        const rank_costs *rc)
{
   uint64_t events = 0, calls = 0, all_threads = 0, cut_short = 0;
   size_t i, nranks = 0, others = 0, nshown = 0;
   int k;
   char **cmds;

   outbuf_str(o, RULE);
   report_head_key(o, "Trace files:");
   outbuf_printf(o, "%d (", ri->nfiles);
   for (i = 0; i < (size_t)ri->nnames; i++)
      if (list_item(o, i))
         report_put_name(o, ri->files[i]);
      else
         break;
   outbuf_str(o, ")");
   if (ri->unreadable)
      outbuf_printf(o, ", %d unreadable", ri->unreadable);
   if (ri->damaged)
      outbuf_printf(o, ", %d damaged or truncated", ri->damaged);
   outbuf_str(o, "\n");

   /* the first process's command, and how many others there were */
   report_head_key(o, "Command:");
   cmds = malloc((p->nprocs ? p->nprocs : 1) * sizeof *cmds);
   if (!cmds)
      return -1;
   for (i = 0; i < p->nprocs; i++)
      if (shown_process(p, opt, i))
         cmds[nshown++] = p->procs[i].cmd[0] ? p->procs[i].cmd
                                             : p->procs[i].exe;
   if (nshown == 0) {
      outbuf_str(o, "(none)");
   } else {
      report_put_name(o, cmds[0][0] ? cmds[0] : "(unknown)");
      qsort(cmds, nshown, sizeof *cmds, by_string);
      for (i = 1; i < nshown; i++)
         others += strcmp(cmds[i], cmds[i - 1]) != 0;
      if (others)
         outbuf_printf(o, " (and %zu other command%s)", others,
                       others == 1 ? "" : "s");
   }
   free(cmds);
   outbuf_str(o, "\n");

   /* with a selection, the processes some of whose threads it selects */
   report_head_key(o, "Processes:");
   for (i = 0; i < p->nprocs; i++)
      if (shown_process(p, opt, i))
         nranks += p->procs[i].rank != NULL;
   report_put_u64(o, nshown);
   if (nshown != p->nprocs) {
      outbuf_str(o, " of ");
      report_put_u64(o, p->nprocs);
      outbuf_str(o, " selected");
   }
   for (k = 0; k < 2 && nshown; k++) {
      size_t item = 0;
      if (k == 1 && !nranks)
         break;
      outbuf_str(o, k == 0 ? (nshown == 1 ? " (pid " : " (pids ")
                           : (nshown == 1 ? "; rank " : "; ranks "));
      for (i = 0; i < p->nprocs; i++) {
         const pl_process *pr = &p->procs[i];
         size_t images = 1;
         if (!shown_process(p, opt, i))
            continue;
         /* an exec chain: one pid, a trace per program image */
         while (k == 0 && i + images < p->nprocs
                && shown_process(p, opt, i + images)
                && pr->pid && p->procs[i + images].pid
                && strcmp(p->procs[i + images].pid, pr->pid) == 0)
            images++;
         if (!list_item(o, item++))
            break;
         report_put_name(o, k == 0 ? pr->pid : pr->rank ? pr->rank : "?");
         if (images > 1)
            outbuf_printf(o, " (%zu images: exec)", images);
         i += images - 1;
      }
   }
   if (nshown)
      outbuf_str(o, ")");
   outbuf_str(o, "\n");
   if (put_endings(o, p, opt) < 0)
      return -1;
   if (ri->crash_site) {
      report_head_key(o, "Crashed:");
      outbuf_str(o, ri->crash_site);
      outbuf_str(o, "\n");
   }
   if (ri->exit_site) {
      report_head_key(o, ri->aborted ? "Aborted:" : "Exited early:");
      outbuf_str(o, ri->exit_site);
      outbuf_str(o, "\n");
   }
   if (ri->least_progressed) {
      report_head_key(o, ri->stopped_at ? "Stopped at:" : "Least progressed:");
      outbuf_str(o, ri->least_progressed);
      outbuf_str(o, "\n");
   }
   if (ranks) {
      report_write_ranks_headline(o, p, ranks);
      report_write_costliest(o, p, ranks, rc);
   }

   for (i = 0; i < p->nprocs; i++)
      all_threads += p->procs[i].nthreads_all;
   for (i = 0; i < p->nthreads; i++) {
      events += p->threads[i].g.events;
      calls += p->threads[i].g.calls;
      cut_short += !p->threads[i].complete;
   }
   report_head_key(o, "Threads:");
   report_put_u64(o, p->nthreads);
   if (p->nthreads != all_threads) {
      outbuf_str(o, " of ");
      report_put_u64(o, all_threads);
      outbuf_str(o, opt->select.n ? " selected" : " read");
   }
   if (cut_short) {
      outbuf_str(o, ", ");
      report_put_u64(o, cut_short);
      outbuf_str(o, " cut short by damage");
   }
   outbuf_str(o, "\n");

   report_head_key(o, "Events:");
   report_put_u64(o, events);
   outbuf_str(o, " (");
   report_put_u64(o, calls);
   outbuf_str(o, " calls, ");
   report_put_u64(o, ri->returns);
   outbuf_str(o, " returns");
   if (events > calls + ri->returns) {
      outbuf_str(o, ", ");
      report_put_u64(o, events - calls - ri->returns);
      outbuf_str(o, " inherited entries");
   }
   outbuf_str(o, ")\n");

   report_head_key(o, "Selection:");
   outbuf_str(o, opt->select_text ? opt->select_text : "all");
   outbuf_str(o, "\n");
   report_put_recording(o, p);
   if (pl_program_filter(p)) {
      /* every figure below counts only what the filter shows */
      report_head_key(o, "Filter:");
      outbuf_str(o, pl_filter_describe(pl_program_filter(p)));
      outbuf_str(o, "\n");
   }
   if (opt->group_by >= 0) {
      report_head_key(o, "Groups:");
      outbuf_printf(o, "%zu, by %s\n", ngroups,
                    report_group_kind_name(opt->group_by));
   }
   if (chosen) {
      report_head_key(o, "Reported group:");
      outbuf_printf(o, "%" PRIu64 " (", opt->group);
      report_put_u64(o, chosen->nmembers);
      outbuf_str(o, chosen->nmembers == 1 ? " thread: " : " threads: ");
      put_members(o, p, chosen->members, chosen->nmembers);
      outbuf_str(o, ")\n");
   }
   report_head_key(o, "Threshold:");
   if (opt->threshold % 100 == 0)
      outbuf_printf(o, "%u%%\n", opt->threshold / 100);
   else if (opt->threshold % 10 == 0)
      outbuf_printf(o, "%u.%u%%\n", opt->threshold / 100,
                    opt->threshold % 100 / 10);
   else
      outbuf_printf(o, "%u.%02u%%\n", opt->threshold / 100,
                    opt->threshold % 100);
   if (opt->top) {
      report_head_key(o, "Top:");
      outbuf_printf(o, "%" PRIu64 "\n", opt->top);
   }
   if (opt->tree) {
      static const char *const trees[] = { "", "caller", "calling", "both" };
      report_head_key(o, "Tree:");
      outbuf_printf(o, "%s\n", trees[opt->tree]);
   }
   return 0;
}

/* Groups: events, calls and threads of each, with its members. */
void report_write_groups(outbuf *o, const pl_program *p, const pl_graph *all,
                         const pl_group *gs, size_t n)
{
   table t;
   size_t i;
   int k;

   report_table_init(&t, 3);
   report_table_col(&t, 0, "Events", 1, all->events);
   report_table_col(&t, 1, "Calls", 1, all->calls);
   report_table_col(&t, 2, "Threads", 0, 0);
   for (k = 0; k < 2; k++) {
      if (k == 1)
         report_table_head(o, &t, "group: threads (PID:N)");
      for (i = 0; i < n; i++) {
         uint64_t v[3] = { gs[i].g.events, gs[i].g.calls, gs[i].nmembers };
         if (k == 0) {
            report_table_measure(&t, v);
            continue;
         }
         report_table_cells(o, &t, v);
         outbuf_printf(o, "%zu: ", i + 1);
         put_members(o, p, gs[i].members, gs[i].nmembers);
         outbuf_str(o, "\n");
      }
   }
   outbuf_str(o, "\n");
}

void report_write_totals(outbuf *o, const pl_graph *g, const char *label)
{
   table t;
   uint64_t v[3] = { g->calls, g->events, report_self_ir(g) };
   report_table_init(&t, g->costs ? 3 : 2);
   report_table_col(&t, 0, "Calls", 1, g->calls);
   report_table_col(&t, 1, "Events", 1, g->events);
   if (g->costs)
      report_table_col(&t, 2, "Ir", 1, v[2]);
   report_table_measure(&t, v);
   report_table_head(o, &t, NULL);
   report_table_cells(o, &t, v);
   outbuf_str(o, label);
   outbuf_str(o, "\n\n");
}
