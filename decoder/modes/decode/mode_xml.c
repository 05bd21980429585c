/* SPDX-License-Identifier: MIT */
/* parlot-decode --xml: the program's call graphs as an XML document
   (docs/xml-format.md; schema docs/parlot-callgraph.rng).

   The document is streamed (xml_out.h) into the driver's outbuf, one
   element after another; nothing but the program model is held in
   memory.  Order: the processes, the function table, the threads, the
   groups (--group-by's, then each --group), the whole program. */
#ifdef HAVE_CONFIG_H
#  include "config.h"
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlversion.h>

#include "pl_modes.h"
#include "xml_out.h"
#include "pl_outliers.h"
#include "pl_trace.h"

#ifndef PACKAGE_VERSION
#  define PACKAGE_VERSION "dev"
#endif

#define XML_FORMAT_VERSION "1"

/* An ID or a reference to one: a letter and a number. */
static void attr_id(xml_out *x, const char *name, char letter, uint64_t n)
{
   char buf[24];
   snprintf(buf, sizeof buf, "%c%" PRIu64, letter, n);
   xml_attr(x, name, buf);
}

/* Whether s is a decimal number (the form of numeric PROCESS values). */
static int is_decimal(const char *s)
{
   if (!*s)
      return 0;
   for (; *s; s++)
      if (*s < '0' || *s > '9')
         return 0;
   return 1;
}

/* ---- The document --------------------------------------------------------- */

static void write_process(xml_out *x, const pl_program *p, size_t index)
{
   const pl_process *pr = &p->procs[index];
   const char *recorded = pl_program_recording(p, index);
   pl_ending e;

   xml_start(x, "process");
   attr_id(x, "id", 'p', index + 1);
   if (is_decimal(pr->pid))   /* "" if the trace ends before PROCESS */
      xml_attr(x, "pid", pr->pid);
   if (is_decimal(pr->ppid))
      xml_attr(x, "ppid", pr->ppid);
   if (pr->rank && is_decimal(pr->rank))
      xml_attr(x, "rank", pr->rank);
   xml_attr_text(x, "exe", pr->exe);
   xml_attr_text(x, "command", pr->cmd);
   xml_attr_text(x, "file", pr->path);
   pl_program_ending(p, index, &e);
   xml_attr_ending(x, &e);
   xml_attr_u64(x, "threads", pr->nthreads_all);
   xml_attr_u64(x, "threads-read", pr->nthreads);
   if (recorded)            /* the trace leaves calls out by design */
      xml_attr_text(x, "recorded", recorded);
   xml_end(x);
}

static void write_function(xml_out *x, const pl_gfunc *f, uint32_t id)
{
   char ident[24];

   xml_start(x, "function");
   attr_id(x, "id", 'f', id);
   xml_attr_text(x, "object", f->object);
   xml_attr_text(x, "name", f->shown);
   if (f->shown != f->name && strcmp(f->shown, f->name) != 0)
      xml_attr_text(x, "mangled", f->name);
   if (f->dup)
      xml_attr_u64(x, "dup", (uint64_t)f->dup + 1);
   snprintf(ident, sizeof ident, "0x%016" PRIx64, f->ident);
   xml_attr(x, "ident", ident);
   xml_end(x);
}

/* The totals of a graph, as attributes. */
static void graph_attrs(xml_out *x, const pl_graph *g)
{
   xml_attr_u64(x, "events", g->events);
   xml_attr_u64(x, "calls", g->calls);
   xml_attr_u64(x, "max-depth", g->max_depth);
   xml_attr_u64(x, "functions", g->nfns);
   if (g->costs)
      xml_attr_u64(x, "insns", g->cost);
}

/* The functions and edges of a graph, as elements. */
static void graph_body(xml_out *x, const pl_graph *g)
{
   size_t i;

   for (i = 0; i < g->nfns && !x->failed; i++) {
      const pl_fstat *s = &g->fns[i];
      xml_start(x, "fn");
      attr_id(x, "ref", 'f', s->fn);
      xml_attr_u64(x, "calls", s->calls);
      xml_attr_u64(x, "inclusive-events", s->incl_events);
      if (g->costs) {
         xml_attr_u64(x, "self-insns", s->self_cost);
         xml_attr_u64(x, "inclusive-insns", s->incl_cost);
      }
      xml_end(x);
   }
   for (i = 0; i < g->nedges && !x->failed; i++) {
      const pl_edge *e = &g->edges[i];
      xml_start(x, "edge");
      if (e->caller)
         attr_id(x, "caller", 'f', e->caller);
      attr_id(x, "callee", 'f', e->callee);
      xml_attr_u64(x, "calls", e->calls);
      xml_attr_u64(x, "inclusive-calls", e->incl_calls);
      xml_attr_u64(x, "inclusive-events", e->incl_events);
      if (g->costs)
         xml_attr_u64(x, "inclusive-insns", e->incl_cost);
      xml_end(x);
   }
}

static void write_thread(xml_out *x, const pl_thread *th, size_t index)
{
   xml_start(x, "thread");
   attr_id(x, "id", 't', index + 1);
   attr_id(x, "process", 'p', th->proc + 1);
   xml_attr_u64(x, "number", th->number);
   xml_attr_u64(x, "parent", th->parent);
   xml_attr(x, "complete", th->complete ? "yes" : "no");
   graph_attrs(x, &th->g);
   graph_body(x, &th->g);
   xml_end(x);
}

static void write_group(xml_out *x, const pl_group *gr)
{
   static const char *const kinds[] = { "process", "graph", "shape", "user" };
   size_t i;

   xml_start(x, "group");
   xml_attr_text(x, "name", gr->name);
   xml_attr(x, "kind", kinds[gr->kind]);
   xml_attr_u64(x, "threads", gr->nmembers);
   graph_attrs(x, &gr->g);
   for (i = 0; i < gr->nmembers && !x->failed; i++) {
      xml_start(x, "member");
      attr_id(x, "thread", 't', gr->members[i] + 1);
      xml_end(x);
   }
   graph_body(x, &gr->g);
   xml_end(x);
}

/* <ranks>: the program across its ranks (pl_outliers.h), when it has two
   or more.  0, or -1 if out of memory outside the writer. */
static int write_ranks(xml_out *x, const pl_program *p)
{
   static const char *const kinds[] = {
      "only-function", "missing-function", "only-edge", "missing-edge",
      "calls", "order"
   };
   pl_ranks r;
   size_t i, k;

   if (pl_ranks_analyse(p, &r) < 0)
      return -1;
   if (r.nprocs < 2) {
      pl_ranks_free(&r);
      return 0;
   }
   xml_start(x, "ranks");
   xml_attr(x, "by", r.by_rank ? "mpi-rank" : "process");
   xml_attr_u64(x, "processes", r.nprocs);
   xml_attr(x, "classes-by", r.class_kind == PL_CLASS_SHAPE ? "shape"
                                                              : "graph");
   xml_attr_u64(x, "classes", r.nclasses);
   if (r.has_majority) {
      xml_attr_u64(x, "majority", r.majority + 1);
      xml_attr_u64(x, "majority-size", r.majority_size);
   }
   xml_attr_u64(x, "outliers", r.noutliers);
   if (r.by_medoid)
      attr_id(x, "medoid", 'p', r.procs[r.medoid] + 1);
   for (i = 0; i < r.nprocs && !x->failed; i++) {
      xml_start(x, "rank");
      attr_id(x, "process", 'p', r.procs[i] + 1);
      xml_attr_u64(x, "class", r.cls[i] + 1);
      xml_end(x);
   }
   for (i = 0; i < r.nfns && !x->failed; i++) {
      xml_start(x, "function");
      attr_id(x, "ref", 'f', r.fns[i].fn);
      xml_attr_u64(x, "min", r.fns[i].min);
      xml_attr_u64(x, "median", r.fns[i].median);
      xml_attr_u64(x, "max", r.fns[i].max);
      xml_attr_u64(x, "processes", r.fns[i].nprocs);
      xml_end(x);
   }
   for (i = 0; i < r.noutliers && !x->failed; i++) {
      const pl_outlier *o = &r.outliers[i];
      xml_start(x, "outlier");
      attr_id(x, "process", 'p', o->proc + 1);
      xml_attr_u64(x, "class", o->cls + 1);
      attr_id(x, "against", 'p', o->ref + 1);
      for (k = 0; k < o->nreasons && !x->failed; k++) {
         const pl_reason *re = &o->reasons[k];
         xml_start(x, "reason");
         xml_attr(x, "kind", kinds[re->kind]);
         if ((re->kind == PL_REASON_ONLY_EDGE
              || re->kind == PL_REASON_MISSING_EDGE) && re->caller)
            attr_id(x, "caller", 'f', re->caller);
         if (re->fn)
            attr_id(x, "ref", 'f', re->fn);
         xml_attr_u64(x, "calls", re->calls);
         xml_attr_u64(x, "majority", re->median);
         xml_end(x);
      }
      xml_end(x);
   }
   xml_end(x);
   pl_ranks_free(&r);
   return 0;
}

/* Everything after the root's start tag.  0, or -1 if out of memory
   outside the writer. */
static int write_body(xml_out *x, const pl_program *p,
                      const pl_decode_opts *opts)
{
   pl_graph total;
   size_t i;
   uint32_t f;

   for (i = 0; i < p->nprocs && !x->failed; i++)
      write_process(x, p, i);
   for (f = 1; f <= p->nfns && !x->failed; f++)
      write_function(x, &p->fns[f], f);
   for (i = 0; i < p->nthreads && !x->failed; i++)
      write_thread(x, &p->threads[i], i);

   if (opts->group_by >= 0 && !x->failed) {
      pl_group *gs;
      size_t n;
      if (pl_program_group(p, opts->group_by, &gs, &n) < 0)
         return -1;
      for (i = 0; i < n && !x->failed; i++)
         write_group(x, &gs[i]);
      pl_groups_free(gs, n);
   }
   for (i = 0; i < opts->ngroups && !x->failed; i++) {
      pl_group g;
      if (pl_program_group_select(p, opts->groups[i].name,
                                  &opts->groups[i].sel, &g) < 0)
         return -1;
      write_group(x, &g);
      free(g.name);
      free(g.members);
      pl_graph_free(&g.g);
   }

   if (x->failed)
      return 0;
   if (pl_program_total(p, &total) < 0)
      return -1;
   xml_start(x, "program");
   xml_attr_u64(x, "processes", p->nprocs);
   xml_attr_u64(x, "threads", p->nthreads);
   graph_attrs(x, &total);
   graph_body(x, &total);
   xml_end(x);
   pl_graph_free(&total);
   return x->failed ? 0 : write_ranks(x, p);
}

/* ---- The mode ------------------------------------------------------------- */

static void *xml_create(const pl_decode_opts *o)
{
   static int token;
   (void)o;
   LIBXML_TEST_VERSION
   return &token;              /* no state */
}

static int xml_write(void *state, const pl_program *p, outbuf *o,
                     const pl_decode_opts *opts)
{
   xml_out x;
   int r = 0;

   (void)state;
   if (xml_out_open(&x, o, "parlot-callgraph", XML_FORMAT_VERSION,
                    "parlot-decode " PACKAGE_VERSION) < 0)
      return -1;
   if (pl_program_filter(p))       /* the counts are of what it shows */
      xml_attr_text(&x, "filters",
                    pl_filter_describe(pl_program_filter(p)));
   if (write_body(&x, p, opts) < 0)
      r = -1;
   return xml_out_close(&x) < 0 ? -1 : r;
}

static void xml_destroy(void *state)
{
   (void)state;
}

const pl_program_mode pl_mode_xml = {
   xml_create, NULL, xml_write, xml_destroy, NULL, NULL
};
