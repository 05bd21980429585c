/* SPDX-License-Identifier: MIT */
/* Positions of threads, comparable across ranks (progress.h). */
#include <stdlib.h>
#include <string.h>

#include "pl_alloc.h"
#include "progress.h"

void progress_call(progress *p, uint32_t depth, uint32_t fn, int kind)
{
   uint64_t num = call_numbers_call(&p->nums, depth, fn);
   size_t old = p->cap;
   progress_frame *x;

   if (p->broken || depth == 0)
      return;
   if (pl_grow(&p->f, &p->cap, (size_t)depth + 1, sizeof *p->f) < 0) {
      p->broken = 1;
      return;
   }
   if (p->cap > old)       /* the root and frames never opened start at 0 */
      memset(p->f + old, 0, (p->cap - old) * sizeof *p->f);
   x = &p->f[depth];
   x->poll = (kind & PROGRESS_POLL) != 0;
   if (!x->poll) {
      p->f[depth - 1].started++;
      if (kind & (PROGRESS_OWN | PROGRESS_MPI))
         p->f[depth - 1].started_own++;
      p->f[depth - 1].last_fn = fn;
      p->f[depth - 1].last_num = num;
   }
   x->fn = fn;
   x->num = num;
   x->started = x->started_own = 0;
   x->last_fn = 0;
   p->depth = depth;
   if (kind & PROGRESS_MPI) {
      if (p->mpi.fn && !p->mpi.poll) {
         p->mpi_prev = p->mpi;
         p->mpi_prev_caller = p->mpi_caller;
      }
      p->mpi = *x;
      p->mpi_caller = p->f[depth - 1];
   }
}

void progress_return(progress *p, uint32_t depth)
{
   if (!p->broken && depth >= 1 && depth <= p->depth)
      p->depth = depth - 1;
}

void progress_free(progress *p)
{
   call_numbers_free(&p->nums);
   free(p->f);
   memset(p, 0, sizeof *p);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
   return a < b ? -1 : a > b;
}

/* Which of two frames at the same point has started more calls: of the
   program's own functions and MPI's first, then of any. */
static int cmp_started(const progress_frame *a, const progress_frame *b)
{
   int c = cmp_u64(a->started_own, b->started_own);
   return c ? c : cmp_u64(a->started, b->started);
}

int progress_compare(const progress_frame *a, size_t na,
                     const progress_frame *b, size_t nb, int *comparable)
{
   size_t d;
   int c;

   *comparable = 1;
   for (d = 1;; d++) {
      const progress_frame *pa = &a[d - 1], *pb = &b[d - 1];
      if (d > na || d > nb) {
         /* one (or both) runs frame d-1's own code: it has finished the
            calls the other has started, unless the other started more */
         if ((c = cmp_started(pa, pb)) != 0)
            return c;
         return d > na && d > nb ? 0 : d > na ? 1 : -1;
      }
      if (a[d].fn == b[d].fn) {
         if (a[d].num != b[d].num && !a[d].poll)
            return cmp_u64(a[d].num, b[d].num);
         continue;                  /* the same call: one level in */
      }
      /* other functions: the one whose caller has made more calls is
         further on; threads that start in other functions (a worker and
         main) have nothing in common to compare */
      if (d > 1 && (c = cmp_started(pa, pb)) != 0)
         return c;
      *comparable = 0;
      return a[d].fn < b[d].fn ? -1 : 1;
   }
}
