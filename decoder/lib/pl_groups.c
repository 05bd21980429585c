/* SPDX-License-Identifier: MIT */
/* Groups of threads (pl_program.h): per process, equivalence classes of
   call graphs, and user selections.  A class holds the threads whose
   graphs are equal: with PL_GROUP_GRAPH the same edges with the same call
   counts, with PL_GROUP_SHAPE the same edges however often taken.  Threads
   are hashed first and compared edge by edge within a hash bucket, so a
   hash collision never merges two different graphs. */
#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_hash.h"
#include "pl_program.h"

static uint64_t graph_hash(const pl_graph *g, int with_counts)
{
   uint64_t h = PL_FNV1A_INIT;
   size_t i;
   for (i = 0; i < g->nedges; i++) {
      uint64_t v[2] = { (uint64_t)g->edges[i].caller << 32 | g->edges[i].callee,
                        with_counts ? g->edges[i].calls : 0 };
      int k;
      for (k = 0; k < 2; k++) {
         h = pl_fnv1a_step(h, v[k]);
         h ^= h >> 29;       /* the high bits down: v[k] is 64 bits */
      }
   }
   return h ^ g->nedges;
}

static int graphs_equal(const pl_graph *a, const pl_graph *b, int with_counts)
{
   size_t i;
   if (a->nedges != b->nedges)
      return 0;
   for (i = 0; i < a->nedges; i++) {
      const pl_edge *x = &a->edges[i], *y = &b->edges[i];
      if (x->caller != y->caller || x->callee != y->callee
          || (with_counts && x->calls != y->calls))
         return 0;
   }
   return 1;
}

void pl_groups_free(pl_group *gs, size_t n)
{
   size_t i;
   if (!gs)
      return;
   for (i = 0; i < n; i++) {
      free(gs[i].name);
      free(gs[i].members);
      pl_graph_free(&gs[i].g);
   }
   free(gs);
}

/* Sum the members' graphs into g->g. */
static int sum_members(const pl_program *p, pl_group *g)
{
   const pl_graph **gs = malloc((g->nmembers ? g->nmembers : 1) * sizeof *gs);
   size_t i;
   int r;
   if (!gs)
      return -1;
   for (i = 0; i < g->nmembers; i++)
      gs[i] = &p->threads[g->members[i]].g;
   r = pl_graph_sum(&g->g, gs, g->nmembers);
   free(gs);
   return r;
}

static int by_size_then_first(const void *a, const void *b)
{
   const pl_group *x = a, *y = b;
   if (x->nmembers != y->nmembers)
      return x->nmembers > y->nmembers ? -1 : 1;
   return x->members[0] < y->members[0] ? -1 : x->members[0] > y->members[0];
}

/* class_of[thread]: index of its class; returns the number of classes or
   -1 if out of memory. */
static long classify(const pl_program *p, int with_counts, size_t *class_of)
{
   uint64_t *hash = malloc((p->nthreads ? p->nthreads : 1) * sizeof *hash);
   size_t *rep = malloc((p->nthreads ? p->nthreads : 1) * sizeof *rep);
   size_t i, j, nclasses = 0;

   if (!hash || !rep) {
      free(hash);
      free(rep);
      return -1;
   }
   for (i = 0; i < p->nthreads; i++) {
      hash[i] = graph_hash(&p->threads[i].g, with_counts);
      /* classes are few: a linear scan of their representatives */
      for (j = 0; j < nclasses; j++)
         if (hash[rep[j]] == hash[i]
             && graphs_equal(&p->threads[rep[j]].g, &p->threads[i].g,
                             with_counts))
            break;
      if (j == nclasses)
         rep[nclasses++] = i;
      class_of[i] = j;
   }
   free(hash);
   free(rep);
   return (long)nclasses;
}

int pl_program_group(const pl_program *p, int kind, pl_group **out,
                     size_t *n)
{
   size_t *key = malloc((p->nthreads ? p->nthreads : 1) * sizeof *key);
   size_t ngroups, i;
   pl_group *gs = NULL;

   *out = NULL;
   *n = 0;
   if (!key)
      return -1;
   if (kind == PL_GROUP_PROCESS) {
      for (i = 0; i < p->nthreads; i++)
         key[i] = p->threads[i].proc;
      ngroups = p->nprocs;
   } else {
      long k = classify(p, kind == PL_GROUP_GRAPH, key);
      if (k < 0)
         goto fail;
      ngroups = (size_t)k;
   }
   gs = calloc(ngroups ? ngroups : 1, sizeof *gs);
   if (!gs)
      goto fail;
   for (i = 0; i < p->nthreads; i++)
      gs[key[i]].nmembers++;
   for (i = 0; i < ngroups; i++) {
      gs[i].kind = kind;
      gs[i].members = malloc((gs[i].nmembers ? gs[i].nmembers : 1)
                             * sizeof *gs[i].members);
      if (!gs[i].members)
         goto fail;
      gs[i].nmembers = 0;
   }
   for (i = 0; i < p->nthreads; i++)
      gs[key[i]].members[gs[key[i]].nmembers++] = i;
   if (kind != PL_GROUP_PROCESS)
      qsort(gs, ngroups, sizeof *gs, by_size_then_first);
   for (i = 0; i < ngroups; i++) {
      char name[64];
      if (kind == PL_GROUP_PROCESS)
         snprintf(name, sizeof name, "process %s", p->procs[i].pid);
      else
         snprintf(name, sizeof name, "class %zu", i + 1);
      gs[i].name = strdup(name);
      if (!gs[i].name || sum_members(p, &gs[i]) < 0)
         goto fail;
   }
   free(key);
   *out = gs;
   *n = ngroups;
   return 0;
fail:
   free(key);
   pl_groups_free(gs, gs ? ngroups : 0);
   return -1;
}

int pl_program_group_select(const pl_program *p, const char *name,
                            const pl_select *sel, pl_group *out)
{
   size_t i;

   memset(out, 0, sizeof *out);
   out->kind = PL_GROUP_USER;
   out->name = strdup(name);
   out->members = malloc((p->nthreads ? p->nthreads : 1)
                         * sizeof *out->members);
   if (!out->name || !out->members)
      goto fail;
   for (i = 0; i < p->nthreads; i++) {
      const pl_thread *th = &p->threads[i];
      if (pl_select_match(sel, p->procs[th->proc].pid, th->number))
         out->members[out->nmembers++] = i;
   }
   if (sum_members(p, out) < 0)
      goto fail;
   return 0;
fail:
   free(out->name);
   free(out->members);
   memset(out, 0, sizeof *out);
   return -1;
}
