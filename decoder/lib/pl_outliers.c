/* SPDX-License-Identifier: MIT */
/* The program across its processes (pl_outliers.h). */
#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_alloc.h"
#include "pl_outliers.h"

static int u64_order(const void *a, const void *b)
{
   uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
   return x < y ? -1 : x > y;
}

/* Lower median of v[0..n-1] (sorts v); 0 if n is 0. */
static uint64_t lower_median(uint64_t *v, size_t n)
{
   if (n == 0)
      return 0;
   qsort(v, n, sizeof *v, u64_order);
   return v[(n - 1) / 2];
}

static int edge_cmp(const pl_edge *x, uint32_t caller, uint32_t callee)
{
   if (x->caller != caller)
      return x->caller < caller ? -1 : 1;
   return x->callee < callee ? -1 : x->callee > callee;
}

/* The edge caller -> callee of g, NULL if none. */
static const pl_edge *find_edge(const pl_graph *g, uint32_t caller,
                                uint32_t callee)
{
   size_t lo = 0, hi = g->nedges;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      int c = edge_cmp(&g->edges[mid], caller, callee);
      if (c == 0)
         return &g->edges[mid];
      if (c < 0)
         lo = mid + 1;
      else
         hi = mid;
   }
   return NULL;
}

static int same_graph(const pl_graph *a, const pl_graph *b, int counts)
{
   size_t i;
   if (a->nedges != b->nedges || a->nfns != b->nfns)
      return 0;
   for (i = 0; i < a->nfns; i++)
      if (a->fns[i].fn != b->fns[i].fn
          || (counts && a->fns[i].calls != b->fns[i].calls))
         return 0;
   for (i = 0; i < a->nedges; i++)
      if (a->edges[i].caller != b->edges[i].caller
          || a->edges[i].callee != b->edges[i].callee
          || (counts && a->edges[i].calls != b->edges[i].calls))
         return 0;
   return 1;
}

/* cls[i] for graphs g[0..n-1]: classes numbered by first member; returns
   the number of classes, sizes in size[] (n entries). */
static size_t classify(pl_graph *g, size_t n, int counts, size_t *cls,
                       size_t *size, size_t *rep)
{
   size_t i, c, nc = 0;
   for (i = 0; i < n; i++) {
      for (c = 0; c < nc; c++)
         if (same_graph(&g[rep[c]], &g[i], counts))
            break;
      if (c == nc) {
         rep[nc] = i;
         size[nc++] = 0;
      }
      cls[i] = c;
      size[c]++;
   }
   return nc;
}

static int reason_order(const void *a, const void *b)
{
   const pl_reason *x = a, *y = b;
   uint64_t kx, ky;
   if (x->kind != y->kind)
      return x->kind < y->kind ? -1 : 1;
   switch (x->kind) {
   case PL_REASON_ONLY_FN: case PL_REASON_ONLY_EDGE:
      kx = x->calls, ky = y->calls;
      break;
   case PL_REASON_MISSING_FN: case PL_REASON_MISSING_EDGE:
      kx = x->median, ky = y->median;
      break;
   default:
      kx = x->calls > x->median ? x->calls - x->median : x->median - x->calls;
      ky = y->calls > y->median ? y->calls - y->median : y->median - y->calls;
   }
   if (kx != ky)
      return kx > ky ? -1 : 1;
   if (x->fn != y->fn)
      return x->fn < y->fn ? -1 : 1;
   return x->caller < y->caller ? -1 : x->caller > y->caller;
}

static int add_reason(pl_outlier *o, size_t *cap, int kind, uint32_t fn,
                      uint32_t caller, uint64_t calls, uint64_t median)
{
   pl_reason *r;
   if (pl_grow(&o->reasons, cap, o->nreasons + 1, sizeof *o->reasons) < 0)
      return -1;
   r = &o->reasons[o->nreasons++];
   r->kind = kind;
   r->fn = fn;
   r->caller = caller;
   r->calls = calls;
   r->median = median;
   return 0;
}

/* The reasons process graph g differs from the majority: members m
   (graphs gs[m[0..nm-1]]), rep their first (all have its shape). */
static int explain(pl_outlier *o, const pl_graph *g, pl_graph *gs,
                   const size_t *m, size_t nm, uint64_t *tmp)
{
   const pl_graph *rep = &gs[m[0]];
   size_t cap = 0, i, j;

   for (i = 0; i < g->nfns; i++) {
      const pl_fstat *f = &g->fns[i];
      const pl_fstat *r = pl_graph_fn(rep, f->fn);
      if (!r) {
         if (add_reason(o, &cap, PL_REASON_ONLY_FN, f->fn, 0, f->calls, 0) < 0)
            return -1;
         continue;
      }
      for (j = 0; j < nm; j++) {
         const pl_fstat *s = pl_graph_fn(&gs[m[j]], f->fn);
         tmp[j] = s ? s->calls : 0;
      }
      tmp[0] = lower_median(tmp, nm);
      if (tmp[0] != f->calls
          && add_reason(o, &cap, PL_REASON_CALLS, f->fn, 0, f->calls,
                        tmp[0]) < 0)
         return -1;
   }
   for (i = 0; i < rep->nfns; i++) {
      uint32_t fn = rep->fns[i].fn;
      if (pl_graph_fn(g, fn))
         continue;
      for (j = 0; j < nm; j++) {
         const pl_fstat *s = pl_graph_fn(&gs[m[j]], fn);
         tmp[j] = s ? s->calls : 0;
      }
      if (add_reason(o, &cap, PL_REASON_MISSING_FN, fn, 0, 0,
                     lower_median(tmp, nm)) < 0)
         return -1;
   }
   /* edges between functions both call */
   for (i = 0; i < g->nedges; i++) {
      const pl_edge *e = &g->edges[i];
      if (!pl_graph_fn(rep, e->callee)
          || (e->caller && !pl_graph_fn(rep, e->caller))
          || find_edge(rep, e->caller, e->callee))
         continue;
      if (add_reason(o, &cap, PL_REASON_ONLY_EDGE, e->callee, e->caller,
                     e->calls, 0) < 0)
         return -1;
   }
   for (i = 0; i < rep->nedges; i++) {
      const pl_edge *e = &rep->edges[i];
      if (!pl_graph_fn(g, e->callee)
          || (e->caller && !pl_graph_fn(g, e->caller))
          || find_edge(g, e->caller, e->callee))
         continue;
      for (j = 0; j < nm; j++) {
         const pl_edge *s = find_edge(&gs[m[j]], e->caller, e->callee);
         tmp[j] = s ? s->calls : 0;
      }
      if (add_reason(o, &cap, PL_REASON_MISSING_EDGE, e->callee, e->caller,
                     0, lower_median(tmp, nm)) < 0)
         return -1;
   }
   qsort(o->reasons, o->nreasons, sizeof *o->reasons, reason_order);
   return 0;
}

/* ---- What processes are compared on ------------------------------------ */

/* The MPI interface: the C and Fortran bindings and their profiling
   names (MPI_Send, PMPI_Send, mpi_send_, pmpi_send__), not the
   libraries' internals (MPIR_, MPIDI_, ompi_, ...). */
static int mpi_interface(const char *name)
{
   if (*name == 'P' || *name == 'p')
      name++;
   return (strncmp(name, "MPI_", 4) == 0 || strncmp(name, "mpi_", 4) == 0)
          && name[4] != '\0';
}

/* Per program function, whether classes look at it: the functions of
   the program's own executables (the objects that define "main") and the
   MPI interface.  A library's internal calls differ from rank to rank
   (rank 0 does more in MPI_Init, progress engines poll as they please) and
   would drown the program's own behaviour.  If no object defines main,
   every function counts.  NULL if out of memory. */
static uint8_t *behaviour_functions(const pl_program *p)
{
   uint8_t *keep = calloc((size_t)p->nfns + 1, 1);
   uint32_t f, g;
   int found = 0;

   if (!keep)
      return NULL;
   for (f = 1; f <= p->nfns; f++)
      if (strcmp(p->fns[f].name, "main") == 0 && strcmp(p->fns[f].object, "???"))
         for (g = 1, found = 1; g <= p->nfns; g++)
            if (strcmp(p->fns[g].object, p->fns[f].object) == 0)
               keep[g] = 1;
   for (f = 1; f <= p->nfns; f++)
      if (!found || mpi_interface(p->fns[f].name))
         keep[f] = 1;
   return keep;
}

/* g restricted to the functions keep says, and the edges between them
   (and from no caller).  0, or -1 if out of memory. */
static int behaviour_graph(const pl_graph *g, const uint8_t *keep,
                           pl_graph *out)
{
   size_t i;
   memset(out, 0, sizeof *out);
   out->fns = malloc((g->nfns + 1) * sizeof *out->fns);
   out->edges = malloc((g->nedges + 1) * sizeof *out->edges);
   if (!out->fns || !out->edges) {
      pl_graph_free(out);
      return -1;
   }
   out->events = g->events;
   out->calls = g->calls;
   out->max_depth = g->max_depth;
   for (i = 0; i < g->nfns; i++)
      if (keep[g->fns[i].fn])
         out->fns[out->nfns++] = g->fns[i];
   for (i = 0; i < g->nedges; i++)
      if (keep[g->edges[i].callee]
          && (g->edges[i].caller == 0 || keep[g->edges[i].caller]))
         out->edges[out->nedges++] = g->edges[i];
   return 0;
}

void pl_ranks_free(pl_ranks *r)
{
   size_t i;
   for (i = 0; i < r->noutliers; i++)
      free(r->outliers[i].reasons);
   free(r->outliers);
   free(r->procs);
   free(r->cls);
   free(r->fns);
   memset(r, 0, sizeof *r);
}

int pl_ranks_analyse(const pl_program *p, pl_ranks *r)
{
   pl_graph *gs = NULL;
   const pl_graph **parts = NULL;
   size_t *size = NULL, *rep = NULL, *members = NULL;
   uint64_t *tmp = NULL;
   uint32_t *seen = NULL;
   uint8_t *keep = NULL;
   size_t i, j, n = 0, nm = 0, best;
   uint32_t f;
   int ret = -1;

   memset(r, 0, sizeof *r);
   for (i = 0; i < p->nprocs; i++)
      if (p->procs[i].rank && p->procs[i].nthreads > 0)
         r->by_rank = 1;
   r->procs = malloc((p->nprocs + 1) * sizeof *r->procs);
   if (!r->procs)
      goto out;
   for (i = 0; i < p->nprocs; i++) {
      const pl_process *pr = &p->procs[i];
      if (pr->nthreads == 0)
         continue;
      if (r->by_rank ? pr->rank != NULL
                     : !(pr->role && strcmp(pr->role, "launcher") == 0))
         r->procs[r->nprocs++] = i;
   }
   n = r->nprocs;
   gs = calloc(n + 1, sizeof *gs);
   parts = malloc((p->nthreads + 1) * sizeof *parts);
   r->cls = malloc((n + 1) * sizeof *r->cls);
   size = malloc((n + 1) * sizeof *size);
   rep = malloc((n + 1) * sizeof *rep);
   members = malloc((n + 1) * sizeof *members);
   tmp = malloc((n + 1) * sizeof *tmp);
   seen = calloc((size_t)p->nfns + 1, sizeof *seen);
   if (!gs || !parts || !r->cls || !size || !rep || !members || !tmp
       || !seen)
      goto out;
   for (i = 0; i < n; i++) {
      const pl_process *pr = &p->procs[r->procs[i]];
      for (j = 0; j < pr->nthreads; j++)
         parts[j] = &p->threads[pr->first_thread + j].g;
      if (pl_graph_sum(&gs[i], parts, pr->nthreads) < 0)
         goto out;
   }

   /* per function: min / median / max */
   for (i = 0; i < n; i++)
      for (j = 0; j < gs[i].nfns; j++)
         if (!seen[gs[i].fns[j].fn]++)
            r->nfns++;
   r->fns = malloc((r->nfns + 1) * sizeof *r->fns);
   if (!r->fns)
      goto out;
   r->nfns = 0;
   for (f = 1; f <= p->nfns; f++) {
      pl_rank_fn *rf;
      if (!seen[f])
         continue;
      rf = &r->fns[r->nfns++];
      rf->fn = f;
      rf->nprocs = seen[f];
      for (i = 0; i < n; i++) {
         const pl_fstat *s = pl_graph_fn(&gs[i], f);
         tmp[i] = s ? s->calls : 0;
      }
      rf->median = lower_median(tmp, n);
      rf->min = tmp[0];
      rf->max = tmp[n - 1];
   }

   /* classes and the majority, on the program's own behaviour */
   if (n < 2) {
      ret = 0;
      goto out;
   }
   keep = behaviour_functions(p);
   if (!keep)
      goto out;
   for (i = 0; i < n; i++) {
      pl_graph b;
      if (behaviour_graph(&gs[i], keep, &b) < 0)
         goto out;
      pl_graph_free(&gs[i]);
      gs[i] = b;
   }
   r->class_kind = PL_CLASS_SHAPE;
   r->nclasses = classify(gs, n, 0, r->cls, size, rep);
   if (r->nclasses == 1) {
      r->class_kind = PL_CLASS_GRAPH;
      r->nclasses = classify(gs, n, 1, r->cls, size, rep);
   }
   best = 0;
   for (i = 1; i < r->nclasses; i++)
      if (size[i] > size[best])
         best = i;
   r->majority = best;
   r->majority_size = size[best];
   r->has_majority = r->nclasses > 1;
   for (i = 0; i < r->nclasses; i++)
      if (i != best && size[i] == size[best])
         r->has_majority = 0;
   if (r->class_kind == PL_CLASS_GRAPH && 2 * size[best] <= n)
      r->has_majority = 0;
   if (!r->has_majority) {
      ret = 0;
      goto out;
   }

   for (i = 0; i < n; i++)
      if (r->cls[i] == best)
         members[nm++] = i;
   r->outliers = calloc(n - nm + 1, sizeof *r->outliers);
   if (!r->outliers)
      goto out;
   for (i = 0; i < n; i++) {
      pl_outlier *o;
      if (r->cls[i] == best)
         continue;
      o = &r->outliers[r->noutliers++];
      o->proc = r->procs[i];
      o->cls = r->cls[i];
      if (explain(o, &gs[i], gs, members, nm, tmp) < 0)
         goto out;
   }
   ret = 0;
out:
   if (gs)
      for (i = 0; i < n; i++)
         pl_graph_free(&gs[i]);
   free(gs);
   free(parts);
   free(size);
   free(rep);
   free(members);
   free(tmp);
   free(seen);
   free(keep);
   if (ret < 0)
      pl_ranks_free(r);
   return ret;
}

const char *pl_ranks_proc_name(const pl_program *p, const pl_ranks *r,
                               size_t proc, char *buf, size_t len)
{
   const pl_process *pr = &p->procs[proc];
   if (r->by_rank && pr->rank)
      snprintf(buf, len, "rank %s", pr->rank);
   else
      snprintf(buf, len, "pid %s", pr->pid);
   return buf;
}
