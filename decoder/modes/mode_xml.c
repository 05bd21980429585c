/* SPDX-License-Identifier: MIT */
/* parlot-decode --xml: the program's call graphs as an XML document
   (docs/xml-format.md; schema docs/parlot-callgraph.rng).

   The document is streamed with libxml2's xmlTextWriter into the
   driver's outbuf (so -o and write errors work as for every mode), one
   element after another; nothing but the program model is held in
   memory.  Order: the processes, the function table, the threads, the
   groups (--group-by's, then each --group), the whole program.

   Strings from traces (paths, names, command lines) are bytes, not
   necessarily UTF-8, and may hold control characters that XML 1.0 cannot
   carry at all, not even as character references.  They are written as
   UTF-8 with each maximal ill-formed subsequence (Unicode's "substitution
   of maximal subparts", as Python's and browsers' decoders do) and each
   character XML forbids replaced by U+FFFD, so that the document is
   always well-formed. */
#ifdef HAVE_CONFIG_H
#  include "config.h"
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlversion.h>
#include <libxml/xmlwriter.h>

#include "pl_modes.h"
#include "pl_outliers.h"
#include "pl_trace.h"

#ifndef PACKAGE_VERSION
#  define PACKAGE_VERSION "dev"
#endif

#define XML_FORMAT_VERSION "1"

#define XC(s) ((const xmlChar *)(s))

typedef struct {
   xmlTextWriterPtr w;
   outbuf          *o;
   int              failed;     /* a writer call failed: write nothing more */
   char            *text;       /* xml_text()'s buffer */
   size_t           text_cap;
} xml_out;

/* ---- Text ----------------------------------------------------------------- */

/* Whether code point c may appear in an XML 1.0 document. */
static int xml_char_ok(uint32_t c)
{
   if (c < 0x20)
      return c == 0x9 || c == 0xA || c == 0xD;
   return c < 0xD800 || (c >= 0xE000 && c <= 0xFFFD) || c >= 0x10000;
}

/* Length of the well-formed UTF-8 sequence at s (1 to 4 bytes) with its
   code point in *cp; or 0 and in *bad the length of the maximal subpart
   of an ill-formed sequence there (at least 1), to be replaced by one
   U+FFFD (Unicode 15, section 3.9, table 3-7). */
static size_t utf8_next(const unsigned char *s, const unsigned char *end,
                        uint32_t *cp, size_t *bad)
{
   unsigned char c = s[0];
   unsigned char lo = 0x80, hi = 0xBF;
   size_t need, i;
   uint32_t v;

   if (c < 0x80) {
      *cp = c;
      return 1;
   }
   if (c >= 0xC2 && c <= 0xDF) {
      need = 1;
      v = c & 0x1F;
   } else if (c >= 0xE0 && c <= 0xEF) {
      need = 2;
      v = c & 0x0F;
      if (c == 0xE0)
         lo = 0xA0;
      else if (c == 0xED)
         hi = 0x9F;            /* no surrogates */
   } else if (c >= 0xF0 && c <= 0xF4) {
      need = 3;
      v = c & 0x07;
      if (c == 0xF0)
         lo = 0x90;
      else if (c == 0xF4)
         hi = 0x8F;            /* nothing above U+10FFFF */
   } else {
      *bad = 1;                /* 80..C1, F5..FF never start a sequence */
      return 0;
   }
   for (i = 1; i <= need; i++) {
      unsigned char t = s + i < end ? s[i] : 0;
      if (t < lo || t > hi) {
         *bad = i;
         return 0;
      }
      v = v << 6 | (t & 0x3Fu);
      lo = 0x80;
      hi = 0xBF;
   }
   *cp = v;
   return need + 1;
}

/* s as text XML can carry: s itself if it is fine as it is (the common
   case), else a copy in x->text with the replacements; NULL if out of
   memory. */
static const char *xml_text(xml_out *x, const char *s)
{
   static const char fffd[3] = { '\xEF', '\xBF', '\xBD' };
   const unsigned char *p = (const unsigned char *)s, *end;
   size_t n, len, out = 0;

   for (; *p; p++)
      if (*p >= 0x7F || (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r'))
         break;
   if (!*p)
      return s;                /* printable ASCII */
   len = strlen(s);
   end = (const unsigned char *)s + len;
   /* each input byte becomes at most 3 output bytes (U+FFFD) */
   if (3 * len + 1 > x->text_cap) {
      char *t = realloc(x->text, 3 * len + 1);
      if (!t)
         return NULL;
      x->text = t;
      x->text_cap = 3 * len + 1;
   }
   n = (size_t)(p - (const unsigned char *)s);
   memcpy(x->text, s, n);
   out = n;
   while (p < end) {
      uint32_t cp;
      size_t bad = 0, k = utf8_next(p, end, &cp, &bad);
      if (k && xml_char_ok(cp)) {
         memcpy(x->text + out, p, k);
         out += k;
         p += k;
      } else {
         memcpy(x->text + out, fffd, 3);
         out += 3;
         p += k ? k : bad;
      }
   }
   x->text[out] = 0;
   return x->text;
}

/* ---- Writer helpers ------------------------------------------------------- */

/* Every helper does nothing once a call failed: an output error (the
   driver reports it) or out of memory (write returns -1). */
static void check(xml_out *x, int r)
{
   if (r < 0)
      x->failed = 1;
}

static void start(xml_out *x, const char *name)
{
   if (!x->failed)
      check(x, xmlTextWriterStartElement(x->w, XC(name)));
}

static void end(xml_out *x)
{
   if (!x->failed)
      check(x, xmlTextWriterEndElement(x->w));
}

/* An attribute whose value XML can carry as it is: our own text, or what
   xml_text() made of a trace's. */
static void attr_plain(xml_out *x, const char *name, const char *value)
{
   if (!x->failed)
      check(x, xmlTextWriterWriteAttribute(x->w, XC(name), XC(value)));
}

/* An attribute whose value comes from a trace. */
static void attr_text(xml_out *x, const char *name, const char *value)
{
   const char *t;
   if (x->failed)
      return;
   t = xml_text(x, value);
   if (!t) {
      x->failed = 1;
      return;
   }
   attr_plain(x, name, t);
}

static void attr_u64(xml_out *x, const char *name, uint64_t v)
{
   char buf[24];
   snprintf(buf, sizeof buf, "%" PRIu64, v);
   attr_plain(x, name, buf);
}

/* An ID or a reference to one: a letter and a number. */
static void attr_id(xml_out *x, const char *name, char letter, uint64_t n)
{
   char buf[24];
   snprintf(buf, sizeof buf, "%c%" PRIu64, letter, n);
   attr_plain(x, name, buf);
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

static void write_process(xml_out *x, const pl_process *pr, size_t index)
{
   static const char *const ends[] = { "truncated", "exit", "exec" };

   start(x, "process");
   attr_id(x, "id", 'p', index + 1);
   if (is_decimal(pr->pid))   /* "" if the trace ends before PROCESS */
      attr_plain(x, "pid", pr->pid);
   if (is_decimal(pr->ppid))
      attr_plain(x, "ppid", pr->ppid);
   if (pr->rank && is_decimal(pr->rank))
      attr_plain(x, "rank", pr->rank);
   attr_text(x, "exe", pr->exe);
   attr_text(x, "command", pr->cmd);
   attr_text(x, "file", pr->path);
   attr_plain(x, "end", pr->end >= PL_TRACE_TRUNCATED
                        && pr->end <= PL_TRACE_EXECED ? ends[pr->end]
                                                      : "truncated");
   attr_u64(x, "threads", pr->nthreads_all);
   attr_u64(x, "threads-read", pr->nthreads);
   end(x);
}

static void write_function(xml_out *x, const pl_gfunc *f, uint32_t id)
{
   char ident[24];

   start(x, "function");
   attr_id(x, "id", 'f', id);
   attr_text(x, "object", f->object);
   attr_text(x, "name", f->shown);
   if (f->shown != f->name && strcmp(f->shown, f->name) != 0)
      attr_text(x, "mangled", f->name);
   if (f->dup)
      attr_u64(x, "dup", (uint64_t)f->dup + 1);
   snprintf(ident, sizeof ident, "0x%016" PRIx64, f->ident);
   attr_plain(x, "ident", ident);
   end(x);
}

/* The totals of a graph, as attributes. */
static void graph_attrs(xml_out *x, const pl_graph *g)
{
   attr_u64(x, "events", g->events);
   attr_u64(x, "calls", g->calls);
   attr_u64(x, "max-depth", g->max_depth);
   attr_u64(x, "functions", g->nfns);
}

/* The functions and edges of a graph, as elements. */
static void graph_body(xml_out *x, const pl_graph *g)
{
   size_t i;

   for (i = 0; i < g->nfns && !x->failed; i++) {
      const pl_fstat *s = &g->fns[i];
      start(x, "fn");
      attr_id(x, "ref", 'f', s->fn);
      attr_u64(x, "calls", s->calls);
      attr_u64(x, "inclusive-events", s->incl_events);
      end(x);
   }
   for (i = 0; i < g->nedges && !x->failed; i++) {
      const pl_edge *e = &g->edges[i];
      start(x, "edge");
      if (e->caller)
         attr_id(x, "caller", 'f', e->caller);
      attr_id(x, "callee", 'f', e->callee);
      attr_u64(x, "calls", e->calls);
      attr_u64(x, "inclusive-calls", e->incl_calls);
      attr_u64(x, "inclusive-events", e->incl_events);
      end(x);
   }
}

static void write_thread(xml_out *x, const pl_thread *th, size_t index)
{
   start(x, "thread");
   attr_id(x, "id", 't', index + 1);
   attr_id(x, "process", 'p', th->proc + 1);
   attr_u64(x, "number", th->number);
   attr_u64(x, "parent", th->parent);
   attr_plain(x, "complete", th->complete ? "yes" : "no");
   graph_attrs(x, &th->g);
   graph_body(x, &th->g);
   end(x);
}

static void write_group(xml_out *x, const pl_group *gr)
{
   static const char *const kinds[] = { "process", "graph", "shape", "user" };
   size_t i;

   start(x, "group");
   attr_text(x, "name", gr->name);
   attr_plain(x, "kind", kinds[gr->kind]);
   attr_u64(x, "threads", gr->nmembers);
   graph_attrs(x, &gr->g);
   for (i = 0; i < gr->nmembers && !x->failed; i++) {
      start(x, "member");
      attr_id(x, "thread", 't', gr->members[i] + 1);
      end(x);
   }
   graph_body(x, &gr->g);
   end(x);
}

/* <ranks>: the program across its ranks (pl_outliers.h), when it has two
   or more.  0, or -1 if out of memory outside the writer. */
static int write_ranks(xml_out *x, const pl_program *p)
{
   static const char *const kinds[] = {
      "only-function", "missing-function", "only-edge", "missing-edge",
      "calls"
   };
   pl_ranks r;
   size_t i, k;

   if (pl_ranks_analyse(p, &r) < 0)
      return -1;
   if (r.nprocs < 2) {
      pl_ranks_free(&r);
      return 0;
   }
   start(x, "ranks");
   attr_plain(x, "by", r.by_rank ? "mpi-rank" : "process");
   attr_u64(x, "processes", r.nprocs);
   attr_plain(x, "classes-by", r.class_kind == PL_CLASS_SHAPE ? "shape"
                                                              : "graph");
   attr_u64(x, "classes", r.nclasses);
   if (r.has_majority) {
      attr_u64(x, "majority", r.majority + 1);
      attr_u64(x, "majority-size", r.majority_size);
   }
   attr_u64(x, "outliers", r.noutliers);
   for (i = 0; i < r.nprocs && !x->failed; i++) {
      start(x, "rank");
      attr_id(x, "process", 'p', r.procs[i] + 1);
      attr_u64(x, "class", r.cls[i] + 1);
      end(x);
   }
   for (i = 0; i < r.nfns && !x->failed; i++) {
      start(x, "function");
      attr_id(x, "ref", 'f', r.fns[i].fn);
      attr_u64(x, "min", r.fns[i].min);
      attr_u64(x, "median", r.fns[i].median);
      attr_u64(x, "max", r.fns[i].max);
      attr_u64(x, "processes", r.fns[i].nprocs);
      end(x);
   }
   for (i = 0; i < r.noutliers && !x->failed; i++) {
      const pl_outlier *o = &r.outliers[i];
      start(x, "outlier");
      attr_id(x, "process", 'p', o->proc + 1);
      attr_u64(x, "class", o->cls + 1);
      for (k = 0; k < o->nreasons && !x->failed; k++) {
         const pl_reason *re = &o->reasons[k];
         start(x, "reason");
         attr_plain(x, "kind", kinds[re->kind]);
         if ((re->kind == PL_REASON_ONLY_EDGE
              || re->kind == PL_REASON_MISSING_EDGE) && re->caller)
            attr_id(x, "caller", 'f', re->caller);
         attr_id(x, "ref", 'f', re->fn);
         attr_u64(x, "calls", re->calls);
         attr_u64(x, "majority", re->median);
         end(x);
      }
      end(x);
   }
   end(x);
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
      write_process(x, &p->procs[i], i);
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
   start(x, "program");
   attr_u64(x, "processes", p->nprocs);
   attr_u64(x, "threads", p->nthreads);
   graph_attrs(x, &total);
   graph_body(x, &total);
   end(x);
   pl_graph_free(&total);
   return x->failed ? 0 : write_ranks(x, p);
}

/* ---- The mode ------------------------------------------------------------- */

/* libxml2's output goes into the outbuf; after a write error it stops. */
static int to_outbuf(void *ctx, const char *buf, int len)
{
   outbuf *o = ctx;
   if (len > 0)
      outbuf_write(o, buf, (size_t)len);
   return o->err ? -1 : len;
}

static int no_close(void *ctx)
{
   (void)ctx;
   return 0;
}

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
   xmlOutputBufferPtr ob;
   xml_out x;
   int r = 0;

   (void)state;
   memset(&x, 0, sizeof x);
   x.o = o;
   ob = xmlOutputBufferCreateIO(to_outbuf, no_close, o, NULL);
   if (!ob)
      return -1;
   x.w = xmlNewTextWriter(ob);       /* owns ob from now on */
   if (!x.w) {
      xmlOutputBufferClose(ob);
      return -1;
   }
   check(&x, xmlTextWriterSetIndent(x.w, 1));
   check(&x, xmlTextWriterSetIndentString(x.w, XC("  ")));
   if (!x.failed)
      check(&x, xmlTextWriterStartDocument(x.w, "1.0", "UTF-8", NULL));
   start(&x, "parlot-callgraph");
   attr_plain(&x, "version", XML_FORMAT_VERSION);
   attr_plain(&x, "creator", "parlot-decode " PACKAGE_VERSION);
   if (write_body(&x, p, opts) < 0)
      r = -1;
   if (!x.failed && r == 0)
      check(&x, xmlTextWriterEndDocument(x.w));
   if (!x.failed)
      check(&x, xmlTextWriterFlush(x.w));
   xmlFreeTextWriter(x.w);
   free(x.text);
   /* a failure without an output error is libxml2 running out of memory;
      an output error is the driver's to report */
   if (x.failed && !o->err)
      r = -1;
   return r;
}

static void xml_destroy(void *state)
{
   (void)state;
}

const pl_program_mode pl_mode_xml = {
   xml_create, NULL, xml_write, xml_destroy
};
