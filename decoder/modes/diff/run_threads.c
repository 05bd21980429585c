/* SPDX-License-Identifier: MIT */
/* A run's threads and their correspondence (run_threads.h). */

#define _XOPEN_SOURCE 700     /* strdup */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_alloc.h"
#include "pl_ending.h"
#include "run_threads.h"
#include "trace_labels.h"

typedef struct {
   uint64_t start_ms, pid;
   size_t   first, n;         /* its threads in r->t */
} proc_key;

static int by_start(const void *a, const void *b)
{
   const proc_key *x = a, *y = b;
   if (x->start_ms != y->start_ms)
      return x->start_ms < y->start_ms ? -1 : 1;
   return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Ranked threads first, by numeric rank then thread; then the others. */
static int thread_order(const void *a, const void *b)
{
   const run_thread *x = a, *y = b;
   uint64_t kx, ky;
   if (!x->rank != !y->rank)
      return x->rank ? -1 : 1;
   kx = x->rank ? strtoull(x->rank, NULL, 10) : x->order;
   ky = y->rank ? strtoull(y->rank, NULL, 10) : y->order;
   if (kx != ky)
      return kx < ky ? -1 : 1;
   if (x->rank && strcmp(x->rank, y->rank) != 0)
      return strcmp(x->rank, y->rank);
   return x->number < y->number ? -1 : x->number > y->number;
}

int run_threads_read(run_threads *r, const char *prog, const pl_inputs *in,
                     const pl_select *sel)
{
   proc_key *procs = calloc(in->n + 1, sizeof *procs);
   size_t i, j, nprocs = 0;

   memset(r, 0, sizeof *r);
   r->in = in;
   if (!procs)
      return -1;
   for (i = 0; i < in->n; i++) {
      pl_error err;
      pl_trace *t = pl_input_open(&in->v[i], &err);
      const char *pid, *rank, *start;
      pl_ending e;
      int stopped;
      size_t k;

      if (!t) {
         if (prog)
            fprintf(stderr, "%s: %s: offset %llu: %s\n", prog, in->v[i].name,
                    (unsigned long long)err.offset, err.msg);
         r->damaged = 1;
         continue;
      }
      if (pl_trace_damage(t) && prog) {
         /* read up to the damage, and said so once */
         const pl_error *d = pl_trace_damage(t);
         fprintf(stderr, "%s: %s: offset %llu: %s\n", prog, in->v[i].name,
                 (unsigned long long)d->offset, d->msg);
      }
      if (pl_trace_damage(t))
         r->damaged = 1;
      /* a trace damaged before its PROCESS chunk's pid has none */
      pid = pl_trace_process_get(t, "pid");
      if (!pid)
         pid = "";
      rank = pl_trace_process_get(t, "mpi_rank");
      start = pl_trace_process_get(t, "start_time_ms");
      procs[nprocs].start_ms = start ? strtoull(start, NULL, 10) : 0;
      procs[nprocs].pid = strtoull(pid, NULL, 10);
      procs[nprocs].first = r->n;
      for (k = 0; k < pl_trace_nthreads(t); k++) {
         uint32_t number = pl_trace_thread(t, k)->number;
         run_thread *th;
         if (!pl_select_match(sel, pid, number))
            continue;
         if (pl_grow(&r->t, &r->cap, r->n + 1, sizeof *r->t) < 0)
            goto oom;
         th = &r->t[r->n];
         memset(th, 0, sizeof *th);
         th->input = i;
         th->index = k;
         th->number = number;
         r->costs |= pl_trace_cost_events(t, k) != 0;
         th->pid = strdup(pid);
         th->rank = rank ? strdup(rank) : NULL;
         r->n++;
         if (!th->pid || (rank && !th->rank))
            goto oom;
         thread_label(th->label, sizeof th->label, pid, rank, number);
      }
      pl_trace_ending(t, &e);
      stopped = e.kind == PL_ENDING_SIGNAL || e.kind == PL_ENDING_CUT_SHORT;
      for (k = procs[nprocs].first; k < r->n; k++)
         r->t[k].stopped = stopped;
      if (pl_select_match_process(sel, pid)) {
         r->processes++;
         r->unfinished += stopped;
      }
      procs[nprocs].n = r->n - procs[nprocs].first;
      /* ranked processes are matched by rank: no order needed */
      if (!rank)
         nprocs++;
      pl_trace_close(t);
      continue;
oom:
      pl_trace_close(t);
      free(procs);
      return -1;
   }
   if (nprocs > 1)
      qsort(procs, nprocs, sizeof *procs, by_start);
   for (i = 0; i < nprocs; i++)
      for (j = 0; j < procs[i].n; j++)
         r->t[procs[i].first + j].order = i;
   free(procs);
   if (r->n > 1)
      qsort(r->t, r->n, sizeof *r->t, thread_order);
   return 0;
}

void run_threads_free(run_threads *r)
{
   size_t i;
   for (i = 0; i < r->n; i++) {
      free(r->t[i].pid);
      free(r->t[i].rank);
   }
   free(r->t);
   memset(r, 0, sizeof *r);
}

/* Same key: rank (or process order) and thread number. */
static int same_key(const run_thread *x, const run_thread *y)
{
   if (!x->rank != !y->rank || x->number != y->number)
      return 0;
   return x->rank ? strcmp(x->rank, y->rank) == 0 : x->order == y->order;
}

int run_threads_match(const run_threads *a, const run_threads *b,
                      run_pair **pairs, size_t *npairs)
{
   run_pair *p = malloc((a->n + b->n + 1) * sizeof *p);
   size_t i = 0, j = 0, n = 0;

   if (!p)
      return -1;
   /* both lists are in one order: merge them */
   while (i < a->n || j < b->n) {
      int c;
      if (i == a->n)
         c = 1;
      else if (j == b->n)
         c = -1;
      else if (same_key(&a->t[i], &b->t[j]))
         c = 0;
      else
         c = thread_order(&a->t[i], &b->t[j]) < 0 ? -1 : 1;
      p[n].ia = c <= 0 ? i++ : (size_t)-1;
      p[n].ib = c >= 0 ? j++ : (size_t)-1;
      n++;
   }
   *pairs = p;
   *npairs = n;
   return 0;
}

/* The position in rk->procs of the process with this pid, or SIZE_MAX. */
static size_t ranked_proc(const pl_program *p, const pl_ranks *rk,
                          const char *pid)
{
   size_t i;
   for (i = 0; i < rk->nprocs; i++)
      if (strcmp(p->procs[rk->procs[i]].pid, pid) == 0)
         return i;
   return SIZE_MAX;
}

/* A pair and where it goes: the outliers' in their order (a lone root
   last), then the others; within each, in thread order. */
typedef struct {
   run_pair pair;
   size_t   place;
} placed_pair;

static int by_place(const void *x, const void *y)
{
   const placed_pair *a = x, *b = y;
   if (a->place != b->place)
      return a->place < b->place ? -1 : 1;
   return a->pair.ib < b->pair.ib ? -1 : a->pair.ib > b->pair.ib;
}

int run_threads_within(const run_threads *r, const pl_program *p,
                       const pl_ranks *rk, run_pair **pairs,
                       size_t *npairs)
{
   run_pair *v = malloc((r->n + 1) * sizeof *v);
   placed_pair *pp = malloc((r->n + 1) * sizeof *pp);
   size_t *place = malloc((rk->nprocs + 1) * sizeof *place);
   size_t i, j, k, n = 0;

   if (!v || !pp || !place) {
      free(v);
      free(pp);
      free(place);
      return -1;
   }
   for (i = 0; i < rk->nprocs; i++)
      place[i] = rk->noutliers;            /* no outlier: after them */
   for (k = 0; k < rk->noutliers; k++)
      for (i = 0; i < rk->nprocs; i++)
         if (rk->outliers[k].proc == rk->procs[i])
            place[i] = k;
   for (i = 0; i < r->n; i++) {
      size_t me = ranked_proc(p, rk, r->t[i].pid), ref;
      const char *ref_pid;
      if (me == SIZE_MAX)
         continue;                        /* a launcher: not a rank */
      ref = rk->ref ? rk->ref[me] : me;
      if (ref == me)
         continue;
      ref_pid = p->procs[rk->procs[ref]].pid;
      for (j = 0, k = (size_t)-1; j < r->n && k == (size_t)-1; j++)
         if (r->t[j].number == r->t[i].number
             && strcmp(r->t[j].pid, ref_pid) == 0)
            k = j;
      pp[n].pair.ia = k;
      pp[n].pair.ib = i;
      pp[n].place = place[me];
      n++;
   }
   if (n)
      qsort(pp, n, sizeof *pp, by_place);
   for (i = 0; i < n; i++)
      v[i] = pp[i].pair;
   free(pp);
   free(place);
   *pairs = v;
   *npairs = n;
   return 0;
}
