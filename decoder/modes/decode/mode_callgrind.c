/* SPDX-License-Identifier: MIT */
/* The whole program's call graph as a Callgrind profile: parlot-decode
   --callgrind, for callgrind_annotate and KCachegrind (the Callgrind
   format, version 1, as in Valgrind's callgrind/docs/cl-format.xml).

   Event Calls: a function's self cost is the number of times it was
   called; a call line's inclusive cost is the number of calls in the
   subtrees of those calls, them included.  A trace made with
   --collect-insns adds Callgrind's own event Ir, first: the guest
   instructions executed while the function was on top of the stack
   (self), and from each call to its return (call lines).  So a function's inclusive cost
   (what callgrind_annotate --inclusive=yes and KCachegrind show) is the
   calls made while it was on the stack (added up per activation in
   recursion, as for callgrind's costs), and a call edge's count is
   callgrind's "calls=" for the same run (but for tail calls and code
   without symbols: docs/paths-and-callgrind.md).

   Layout, as callgrind writes it: the header ("events:" last, since
   callgrind_annotate reads the body from the line after it), then per
   function (grouped by object) "ob=" when the object changes, "fn=", the
   self cost "0 CALLS" (position: line 0, there being no source lines),
   and per callee "cob=" if its object differs, "cfn=", "calls=COUNT 0",
   "0 INCLUSIVE"; "totals:" at the end.  Names are compressed: "(id) name"
   the first time, "(id)" after.  There is one source file, "???" (what
   callgrind writes without debug information), so callgrind_annotate
   shows functions as "???:name", like callgrind's own profiles of
   stripped code.  Outermost calls (no caller) count in the callee's self
   cost only.  Names and the command line are escaped as in all of
   parlot-decode's line output, so no name can break a line. */
#ifdef HAVE_CONFIG_H
#  include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_modes.h"
#include "pl_names.h"

#ifndef PACKAGE_VERSION
#  define PACKAGE_VERSION "dev"
#endif

static const pl_program *sort_prog;

/* Functions grouped by object, then by ID. */
static int by_object(const void *a, const void *b)
{
   uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
   int c = strcmp(sort_prog->fns[x].object, sort_prog->fns[y].object);
   if (c)
      return c;
   return x < y ? -1 : x > y;
}

typedef struct {
   const pl_program *p;
   outbuf   *o;
   uint32_t *obj;       /* [fn]: object ID (compression), 0 = not seen */
   uint8_t  *fn_named;  /* [fn]: its name was written */
   uint8_t  *ob_named;  /* [object ID]: its name was written */
} writer;

/* "KEY=(id) name" the first time, "KEY=(id)" after. */
static void put_fn(writer *w, const char *key, uint32_t fn)
{
   outbuf_printf(w->o, "%s=(%u)", key, fn);
   if (!w->fn_named[fn]) {
      w->fn_named[fn] = 1;
      outbuf_write(w->o, " ", 1);
      outbuf_str_escaped(w->o, w->p->fns[fn].label);
   }
   outbuf_write(w->o, "\n", 1);
}

static void put_ob(writer *w, const char *key, uint32_t fn)
{
   uint32_t id = w->obj[fn];
   outbuf_printf(w->o, "%s=(%u)", key, id);
   if (!w->ob_named[id]) {
      w->ob_named[id] = 1;
      outbuf_write(w->o, " ", 1);
      outbuf_str_escaped(w->o, w->p->fns[fn].object);
   }
   outbuf_write(w->o, "\n", 1);
}

/* A cost line's numbers: "[IR ]CALLS". */
static void put_costs(outbuf *o, const pl_graph *g, uint64_t ir,
                      uint64_t calls)
{
   if (g->costs)
      outbuf_printf(o, "%llu ", (unsigned long long)ir);
   outbuf_printf(o, "%llu\n", (unsigned long long)calls);
}

/* The totals: every function's self cost added up (the instructions run
   before a thread's first shown call are no function's). */
static void put_totals(outbuf *o, const pl_graph *g)
{
   uint64_t ir = 0;
   for (size_t i = 0; i < g->nfns; i++)
      ir += g->fns[i].self_cost;
   put_costs(o, g, ir, g->calls);
}

static void put_header(outbuf *o, const pl_program *p, const pl_graph *g)
{
   outbuf_str(o, "# callgrind format\n"
                 "version: 1\n"
                 "creator: parlot-decode " PACKAGE_VERSION "\n");
   if (p->nprocs == 1) {
      outbuf_str(o, "pid: ");
      outbuf_str_escaped(o, p->procs[0].pid);
      outbuf_str(o, "\n");
   }
   if (p->nprocs > 0) {
      outbuf_str(o, "cmd: ");
      outbuf_str_escaped(o, p->procs[0].cmd);
      outbuf_str(o, "\n");
   }
   outbuf_printf(o, "part: 1\n"
                    "\n"
                    "desc: Traces: %zu process%s, %zu thread%s, "
                    "%llu events\n",
                 p->nprocs, p->nprocs == 1 ? "" : "es",
                 p->nthreads, p->nthreads == 1 ? "" : "s",
                 (unsigned long long)g->events);
   for (size_t i = 0; i < p->nprocs; i++)
      if (pl_program_recording(p, i)) {   /* traces partial by design */
         outbuf_str(o, "desc: Recorded: ");
         outbuf_str_escaped(o, pl_program_recording(p, i));
         outbuf_str(o, "\n");
         break;
      }
   if (pl_program_filter(p)) {
      /* the costs count only what the filter shows */
      outbuf_str(o, "desc: Filter: ");
      outbuf_str_escaped(o, pl_filter_describe(pl_program_filter(p)));
      outbuf_str(o, "\n");
   }
   outbuf_str(o, "desc: Cost: Calls = calls of the function (self), "
                 "calls in the subtrees of its calls (inclusive)\n");
   if (g->costs)
      outbuf_str(o, "desc: Cost: Ir = guest instructions executed "
                    "(--collect-insns)\n");
   outbuf_str(o, "\npositions: line\n");
   if (g->costs)
      outbuf_str(o, "event: Ir : Instruction Fetch\n");
   outbuf_str(o, "event: Calls : Function calls\n");
   outbuf_str(o, g->costs ? "events: Ir Calls\n" : "events: Calls\n");
   outbuf_str(o, "summary: ");
   put_totals(o, g);
   outbuf_str(o, "\n");
}

static void *cg_create(const pl_decode_opts *o)
{
   static char none;
   (void)o;
   return &none;                  /* no state */
}

static void cg_destroy(void *state)
{
   (void)state;
}

static int cg_write(void *state, const pl_program *p, outbuf *o,
                    const pl_decode_opts *opts)
{
   uint32_t *order = NULL, nobj = 0, prev_obj = 0;
   size_t *first = NULL, i, e;
   writer w;
   pl_graph g;
   int ret = -1;

   (void)state;
   (void)opts;
   memset(&w, 0, sizeof w);
   if (pl_program_total(p, &g) < 0)
      return -1;
   w.p = p;
   w.o = o;
   w.obj = calloc((size_t)p->nfns + 1, sizeof *w.obj);
   w.fn_named = calloc((size_t)p->nfns + 1, 1);
   w.ob_named = calloc((size_t)p->nfns + 1, 1);
   first = calloc((size_t)p->nfns + 2, sizeof *first);
   order = malloc((g.nfns ? g.nfns : 1) * sizeof *order);
   if (!w.obj || !w.fn_named || !w.ob_named || !first || !order)
      goto out;

   /* g.fns holds every callee (and every function that was only
      inherited): number their objects in (object, ID) order */
   for (i = 0; i < g.nfns; i++)
      order[i] = g.fns[i].fn;
   sort_prog = p;
   qsort(order, g.nfns, sizeof *order, by_object);
   for (i = 0; i < g.nfns; i++) {
      if (i == 0 || strcmp(p->fns[order[i]].object,
                           p->fns[order[i - 1]].object) != 0)
         nobj++;
      w.obj[order[i]] = nobj;
   }
   /* edges of caller c: first[c] .. first[c+1] (edges sorted by caller) */
   for (e = 0; e < g.nedges; e++)
      first[g.edges[e].caller + 1]++;
   for (i = 1; i <= (size_t)p->nfns + 1; i++)
      first[i] += first[i - 1];

   put_header(o, p, &g);
   outbuf_str(o, "fl=(1) ???\n");
   for (i = 0; i < g.nfns; i++) {
      uint32_t f = order[i];
      const pl_fstat *st = pl_graph_fn(&g, f);
      if (w.obj[f] != prev_obj) {
         put_ob(&w, "ob", f);
         prev_obj = w.obj[f];
      }
      put_fn(&w, "fn", f);
      outbuf_str(o, "0 ");
      put_costs(o, &g, st->self_cost, st->calls);
      for (e = first[f]; e < first[f + 1]; e++) {
         const pl_edge *ed = &g.edges[e];
         if (w.obj[ed->callee] != w.obj[f])
            put_ob(&w, "cob", ed->callee);
         put_fn(&w, "cfn", ed->callee);
         outbuf_printf(o, "calls=%llu 0\n0 ", (unsigned long long)ed->calls);
         put_costs(o, &g, ed->incl_cost, ed->incl_calls);
      }
      outbuf_str(o, "\n");
   }
   outbuf_str(o, "totals: ");
   put_totals(o, &g);
   ret = 0;
out:
   free(order);
   free(first);
   free(w.obj);
   free(w.fn_named);
   free(w.ob_named);
   pl_graph_free(&g);
   return ret;
}

const pl_program_mode pl_mode_callgrind = {
   cg_create, NULL, cg_write, cg_destroy, NULL, NULL
};
