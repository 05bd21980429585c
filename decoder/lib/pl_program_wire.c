/* SPDX-License-Identifier: MIT */
/* A program as bytes, to move it between processes (pl_program.h:
   pl_program_pack, pl_program_unpack).

   Layout, every number little-endian:
     "PLPROG" WIRE_VERSION demangle  (8 bytes)
     u32 nfns, then per function 1..nfns:
        str object, str name, str shown, str label, u32 dup, u64 ident
     u64 nthreads (their records come after the processes')
     u64 nprocs, then per process:
        str path, pid, ppid, exe, cmd, rank, role, recording;
        u32 end; u64 first_thread, nthreads, nthreads_all;
        u32 ending kind, status + 1, signal, signal_thread, end_lost;
        str signal_name ("" if none); u64 order_mpi
     per thread:
        u64 proc; u32 number, parent, inherited, complete; u64 order;
        graph: u64 events, calls, max_depth, nfns, nedges; u32 costs;
               u64 cost;
               per fn (u32 fn, u64 calls, incl_events, self_cost,
               incl_cost);
               per edge (u32 caller, callee, u64 calls, incl_calls,
               incl_events, outer_calls, outer_events, incl_cost,
               outer_cost)
   A str is a u32 length and its bytes, or 0xFFFFFFFF for NULL; shown is
   NULL when it is the name, label when it is shown (pl_program_free
   relies on those pointers being shared). */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "pl_program.h"
#include "pl_program_private.h"
#include "pl_wire.h"

#define WIRE_MAGIC   "PLPROG"
#define WIRE_VERSION 6

/* ---- writing -------------------------------------------------------- */

static void put_graph(pl_wbuf *w, const pl_graph *g)
{
   size_t i;
   pl_wire_u64(w, g->events);
   pl_wire_u64(w, g->calls);
   pl_wire_u64(w, g->max_depth);
   pl_wire_u64(w, g->nfns);
   pl_wire_u64(w, g->nedges);
   pl_wire_u32(w, (uint32_t)g->costs);
   pl_wire_u64(w, g->cost);
   for (i = 0; i < g->nfns; i++) {
      pl_wire_u32(w, g->fns[i].fn);
      pl_wire_u64(w, g->fns[i].calls);
      pl_wire_u64(w, g->fns[i].incl_events);
      pl_wire_u64(w, g->fns[i].self_cost);
      pl_wire_u64(w, g->fns[i].incl_cost);
   }
   for (i = 0; i < g->nedges; i++) {
      pl_wire_u32(w, g->edges[i].caller);
      pl_wire_u32(w, g->edges[i].callee);
      pl_wire_u64(w, g->edges[i].calls);
      pl_wire_u64(w, g->edges[i].incl_calls);
      pl_wire_u64(w, g->edges[i].incl_events);
      pl_wire_u64(w, g->edges[i].outer_calls);
      pl_wire_u64(w, g->edges[i].outer_events);
      pl_wire_u64(w, g->edges[i].incl_cost);
      pl_wire_u64(w, g->edges[i].outer_cost);
   }
}

int pl_program_pack(const pl_program *p, unsigned char **buf, size_t *len)
{
   pl_wbuf w = { 0 };
   unsigned char head[8];
   uint32_t id;
   size_t k;
   pl_ending e;

   memcpy(head, WIRE_MAGIC, 6);
   head[6] = WIRE_VERSION;
   head[7] = (unsigned char)(p->demangle != 0);
   pl_wire_put(&w, head, 8);
   pl_wire_u32(&w, p->nfns);
   for (id = 1; id <= p->nfns; id++) {
      const pl_gfunc *f = &p->fns[id];
      pl_wire_str(&w, f->object);
      pl_wire_str(&w, f->name);
      pl_wire_str(&w, f->shown == f->name ? NULL : f->shown);
      pl_wire_str(&w, f->label == f->shown ? NULL : f->label);
      pl_wire_u32(&w, f->dup);
      pl_wire_u64(&w, f->ident);
   }
   pl_wire_u64(&w, p->nthreads);
   pl_wire_u64(&w, p->nprocs);
   for (k = 0; k < p->nprocs; k++) {
      const pl_process *pr = &p->procs[k];
      pl_wire_str(&w, pr->path);
      pl_wire_str(&w, pr->pid);
      pl_wire_str(&w, pr->ppid);
      pl_wire_str(&w, pr->exe);
      pl_wire_str(&w, pr->cmd);
      pl_wire_str(&w, pr->rank);
      pl_wire_str(&w, pr->role);
      pl_wire_str(&w, pl_program_recording(p, k));
      pl_wire_u32(&w, (uint32_t)pr->end);
      pl_wire_u64(&w, pr->first_thread);
      pl_wire_u64(&w, pr->nthreads);
      pl_wire_u64(&w, pr->nthreads_all);
      pl_program_ending(p, k, &e);
      pl_wire_u32(&w, (uint32_t)e.kind);
      pl_wire_u32(&w, (uint32_t)(e.status + 1));
      pl_wire_u32(&w, (uint32_t)e.signal);
      pl_wire_u32(&w, e.signal_thread);
      pl_wire_u32(&w, (uint32_t)e.end_lost);
      pl_wire_str(&w, e.signal_name);
      pl_wire_u64(&w, pl_program_order_mpi(p, k));
   }
   for (k = 0; k < p->nthreads; k++) {
      const pl_thread *th = &p->threads[k];
      pl_wire_u64(&w, th->proc);
      pl_wire_u32(&w, th->number);
      pl_wire_u32(&w, th->parent);
      pl_wire_u32(&w, th->inherited);
      pl_wire_u32(&w, (uint32_t)th->complete);
      pl_wire_u64(&w, th->order);
      put_graph(&w, &th->g);
   }
   return pl_wire_finish(&w, buf, len);
}

/* ---- reading -------------------------------------------------------- */

/* A malloc'ed copy of the next string; NULL for a NULL string (and on
   error, with r->bad or r->oom set). */
static char *get_str(pl_rbuf *r)
{
   uint32_t n = pl_wire_get_u32(r);
   const unsigned char *s;
   char *c;
   if (r->bad || n == PL_WIRE_NO_STRING || !(s = pl_wire_take(r, n)))
      return NULL;
   if (!(c = malloc((size_t)n + 1))) {
      r->oom = 1;
      r->bad = 1;
      return NULL;
   }
   memcpy(c, s, n);
   c[n] = 0;
   return c;
}

/* A string that must not be NULL. */
static char *get_str_set(pl_rbuf *r)
{
   char *s = get_str(r);
   if (!s)
      r->bad = 1;
   return s;
}

static int get_graph(pl_rbuf *r, pl_graph *g, uint32_t nfns)
{
   size_t i;
   g->events = pl_wire_get_u64(r);
   g->calls = pl_wire_get_u64(r);
   g->max_depth = pl_wire_get_u64(r);
   g->nfns = pl_wire_count(r, 36);
   g->nedges = pl_wire_count(r, 64);
   g->costs = (int)pl_wire_get_u32(r);
   g->cost = pl_wire_get_u64(r);
   if (r->bad)
      return -1;
   g->fns = calloc(g->nfns ? g->nfns : 1, sizeof *g->fns);
   g->edges = calloc(g->nedges ? g->nedges : 1, sizeof *g->edges);
   if (!g->fns || !g->edges) {
      r->oom = r->bad = 1;
      return -1;
   }
   for (i = 0; i < g->nfns; i++) {
      g->fns[i].fn = pl_wire_get_u32(r);
      g->fns[i].calls = pl_wire_get_u64(r);
      g->fns[i].incl_events = pl_wire_get_u64(r);
      g->fns[i].self_cost = pl_wire_get_u64(r);
      g->fns[i].incl_cost = pl_wire_get_u64(r);
      if (g->fns[i].fn == 0 || g->fns[i].fn > nfns)
         r->bad = 1;
   }
   for (i = 0; i < g->nedges; i++) {
      g->edges[i].caller = pl_wire_get_u32(r);
      g->edges[i].callee = pl_wire_get_u32(r);
      g->edges[i].calls = pl_wire_get_u64(r);
      g->edges[i].incl_calls = pl_wire_get_u64(r);
      g->edges[i].incl_events = pl_wire_get_u64(r);
      g->edges[i].outer_calls = pl_wire_get_u64(r);
      g->edges[i].outer_events = pl_wire_get_u64(r);
      g->edges[i].incl_cost = pl_wire_get_u64(r);
      g->edges[i].outer_cost = pl_wire_get_u64(r);
      if (g->edges[i].caller > nfns || g->edges[i].callee == 0
          || g->edges[i].callee > nfns)
         r->bad = 1;
   }
   return r->bad ? -1 : 0;
}

static int get_functions(pl_rbuf *r, pl_program *p)
{
   uint32_t n = pl_wire_get_u32(r), id;
   if (n > (size_t)(r->end - r->p) / 28)
      r->bad = 1;
   for (id = 1; !r->bad && id <= n; id++) {
      pl_gfunc f;
      memset(&f, 0, sizeof f);
      f.object = get_str_set(r);
      f.name = get_str_set(r);
      f.shown = get_str(r);
      f.label = get_str(r);
      f.dup = pl_wire_get_u32(r);
      f.ident = pl_wire_get_u64(r);
      if (!f.shown)
         f.shown = f.name;
      if (!f.label)
         f.label = f.shown;
      /* the IDs are the packed program's: each function is new */
      if (r->bad || pl_program_adopt(p, &f) != id) {
         if (!r->bad)
            r->oom = 1;
         r->bad = 1;
         pl_gfunc_free(&f);
      }
   }
   return r->bad ? -1 : 0;
}

static int get_processes(pl_rbuf *r, pl_program *p, size_t nthreads_max)
{
   size_t n = pl_wire_count(r, 64), k;
   if (r->bad || pl_grow(&p->procs, &p->procs_cap, n, sizeof *p->procs) < 0) {
      r->oom = !r->bad;
      r->bad = 1;
      return -1;
   }
   for (k = 0; k < n && !r->bad; k++) {
      pl_process *pr = &p->procs[p->nprocs];
      char *recording, *signame;
      uint64_t order_mpi;
      pl_ending e;
      memset(pr, 0, sizeof *pr);
      p->nprocs++;         /* from here pl_program_free frees its strings */
      pr->path = get_str_set(r);
      pr->pid = get_str_set(r);
      pr->ppid = get_str_set(r);
      pr->exe = get_str_set(r);
      pr->cmd = get_str_set(r);
      pr->rank = get_str(r);
      pr->role = get_str(r);
      recording = get_str(r);
      pr->end = (int)pl_wire_get_u32(r);
      pr->first_thread = (size_t)pl_wire_get_u64(r);
      pr->nthreads = (size_t)pl_wire_get_u64(r);
      pr->nthreads_all = (size_t)pl_wire_get_u64(r);
      e.kind = (int)pl_wire_get_u32(r);
      e.status = (int)pl_wire_get_u32(r) - 1;
      e.signal = (int)pl_wire_get_u32(r);
      e.signal_thread = pl_wire_get_u32(r);
      e.end_lost = (int)pl_wire_get_u32(r);
      signame = get_str(r);
      snprintf(e.signal_name, sizeof e.signal_name, "%s",
               signame ? signame : "");
      order_mpi = pl_wire_get_u64(r);
      if (!r->bad && (pl_program_set_process(p, k, recording, &e) < 0
                      || pl_program_set_order_mpi(p, k, order_mpi) < 0))
         r->oom = r->bad = 1;
      free(recording);
      free(signame);
      if (pr->first_thread > nthreads_max
          || pr->nthreads > nthreads_max - pr->first_thread)
         r->bad = 1;
   }
   return r->bad ? -1 : 0;
}

int pl_program_unpack(pl_program *p, const unsigned char *buf, size_t len)
{
   pl_rbuf r = { buf, buf + len, 0, 0 };
   const unsigned char *head = pl_wire_take(&r, 8);
   size_t nthreads, k;

   if (!head || memcmp(head, WIRE_MAGIC, 6) != 0 || head[6] != WIRE_VERSION
       || head[7] != (p->demangle != 0) || p->nfns || p->nprocs
       || p->nthreads)
      return 1;
   if (get_functions(&r, p) < 0)
      return r.oom ? -1 : 1;
   nthreads = pl_wire_count(&r, 60);
   if (get_processes(&r, p, nthreads) < 0)
      return r.oom ? -1 : 1;
   if (pl_grow(&p->threads, &p->threads_cap, nthreads, sizeof *p->threads) < 0)
      return -1;
   for (k = 0; k < nthreads; k++) {
      pl_thread *th = &p->threads[p->nthreads];
      memset(th, 0, sizeof *th);
      p->nthreads++;           /* from here pl_program_free frees its graph */
      th->proc = (size_t)pl_wire_get_u64(&r);
      th->number = pl_wire_get_u32(&r);
      th->parent = pl_wire_get_u32(&r);
      th->inherited = pl_wire_get_u32(&r);
      th->complete = (int)pl_wire_get_u32(&r);
      th->order = pl_wire_get_u64(&r);
      if (th->proc >= p->nprocs)
         r.bad = 1;
      if (r.bad || get_graph(&r, &th->g, p->nfns) < 0)
         return r.oom ? -1 : 1;
   }
   return r.p == r.end ? 0 : 1;
}
