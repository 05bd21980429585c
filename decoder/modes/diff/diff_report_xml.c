/* SPDX-License-Identifier: MIT */
/* parlot-diff's XML report (diff_report.h; schema docs/parlot-diff.rng,
   meaning docs/xml-format.md): the same facts as the text report, every
   pair included, identical or not. */

#include <stdlib.h>
#include <string.h>

#include "diff_report.h"
#include "xml_out.h"

#define DIFF_XML_VERSION "1"

static xml_out *X(diff_report *r)
{
   return r->impl;
}

static void x_start(diff_report *r, const diff_runs *u)
{
   xml_out *x = X(r);
   xml_start(x, "runs");
   xml_attr_text(x, "a", u->a);
   xml_attr_text(x, "b", u->b);
   xml_attr_u64(x, "threads-a", u->na);
   xml_attr_u64(x, "threads-b", u->nb);
   xml_attr(x, "within", u->within ? "yes" : "no");
   if (*u->filters)
      xml_attr_text(x, "filters", u->filters);
   xml_attr(x, "loops", u->loops ? "yes" : "no");
   xml_attr(x, "ignore-loop-counts", u->ignore_counts ? "yes" : "no");
   xml_attr(x, "align", u->align_marks ? "marks" : "none");
   if (u->within)
      xml_attr(x, "reference", u->within_note);
   xml_end(x);
}

static void x_pair(diff_report *r, const char *title, const char *label_a,
                   const char *label_b)
{
   xml_out *x = X(r);
   (void)title;
   xml_start(x, "pair");
   xml_attr_text(x, "a", label_a);
   xml_attr_text(x, "b", label_b);
}

static const char *kind_name(uint32_t k)
{
   static const char *const names[] = { "call", "loop", "loop-end",
                                        "variant", "variant-end", "mark" };
   return k < sizeof names / sizeof names[0] ? names[k] : "?";
}

/* num: a call's number among its caller's calls of it (0: not known). */
static void put_line(xml_out *x, const char *side, const pl_line *l,
                     const trace_labels *nm, uint64_t num)
{
   xml_start(x, "line");
   xml_attr(x, "side", side);
   xml_attr(x, "kind", kind_name(l->kind));
   if (l->kind == PL_LINE_MARK)
      xml_attr_u64(x, "after", l->number);
   else if (l->number)
      xml_attr_u64(x, "event", l->number);
   xml_attr_u64(x, "depth", l->depth);
   xml_attr_u64(x, "indent", l->indent);
   if (l->kind == PL_LINE_CALL)
      xml_attr_text(x, "function", trace_label(nm, l->fn));
   if (num)
      xml_attr_u64(x, "call", num);
   if (l->kind == PL_LINE_LOOP || l->kind == PL_LINE_VARIANT)
      xml_attr_u64(x, l->kind == PL_LINE_LOOP ? "count" : "iteration",
                   l->count);
   if (l->kind == PL_LINE_MARK) {
      xml_attr_text(x, "label", l->label);
      xml_attr_u64(x, "occurrence", l->count);
   }
   xml_end(x);
}

/* event= at the side's first line, after= where it has none. */
static void put_where(xml_out *x, const char *ev, const char *after,
                      const pl_line *l, size_t n, uint64_t last)
{
   if (n && l[0].number)
      xml_attr_u64(x, ev, l[0].number);
   else
      xml_attr_u64(x, after, last);
}

static void x_hunk(diff_report *r, const diff_hunk *h)
{
   xml_out *x = X(r);
   size_t i;

   xml_start(x, "hunk");
   put_where(x, "a-event", "a-after", h->a, h->na, h->a_after);
   put_where(x, "b-event", "b-after", h->b, h->nb, h->b_after);
   xml_attr_u64(x, "a-lines", h->na_all);
   xml_attr_u64(x, "b-lines", h->nb_all);
   if (h->mark) {
      xml_attr_text(x, "after-mark", h->mark->label);
      xml_attr_u64(x, "after-mark-occurrence", h->mark->occurrence);
   }
   if (h->step) {
      xml_attr_text(x, "after-call", trace_label(h->nm_a, h->step->fn));
      xml_attr_u64(x, "after-call-number", h->step_num);
   }
   for (i = 0; i < h->path_len; i++) {
      xml_start(x, "frame");
      xml_attr_text(x, "function", trace_label(h->nm_a, h->path[i].fn));
      if (h->path_num_a) {
         xml_attr_u64(x, "a-call", h->path_num_a[i]);
         xml_attr_u64(x, "b-call", h->path_num_b[i]);
      }
      xml_end(x);
   }
   for (i = 0; i < h->nouter; i++)
      put_line(x, "enclosing", &h->outer[i], h->nm_a, h->outer_num[i]);
   for (i = 0; i < h->nctx; i++)
      put_line(x, "context", &h->ctx[i], h->nm_a,
               h->ctx_num ? h->ctx_num[i] : 0);
   for (i = 0; i < h->na; i++)
      put_line(x, "a", &h->a[i], h->nm_a, h->num_a ? h->num_a[i] : 0);
   for (i = 0; i < h->nb; i++)
      put_line(x, "b", &h->b[i], h->nm_b, h->num_b ? h->num_b[i] : 0);
   xml_end(x);
}

static void x_pair_end(diff_report *r, uint64_t hunks, uint64_t written,
                       int end, int side, size_t lookahead)
{
   static const char *const how[] = { "done", "no-sync", "one-ends" };
   xml_out *x = X(r);
   xml_start(x, "end");
   xml_attr(x, "status", hunks ? "different" : "identical");
   xml_attr_u64(x, "hunks", hunks);
   xml_attr_u64(x, "written", written);
   xml_attr(x, "compared", how[end]);
   if (end == DIFF_END_ONE_ENDS)
      xml_attr(x, "ended", side ? "b" : "a");
   if (end != DIFF_END_DONE)
      xml_attr_u64(x, "lookahead", lookahead);
   xml_end(x);
   xml_end(x);       /* pair */
}

static void x_only(diff_report *r, int side, const char *label,
                   const char *run)
{
   xml_out *x = X(r);
   xml_start(x, "only");
   xml_attr(x, "side", side ? "b" : "a");
   xml_attr_text(x, "thread", label);
   if (run)
      xml_attr_text(x, "run", run);
   xml_end(x);
}

static void x_ending(diff_report *r, const char *process, const char *a,
                     const char *b)
{
   xml_out *x = X(r);
   xml_start(x, "ending");
   xml_attr_text(x, "process", process);
   xml_attr_text(x, "a", a);
   xml_attr_text(x, "b", b);
   xml_end(x);
}

/* The progress view's lines, each an element: the text is
   parlot-decode --progress's. */
static void x_progress(diff_report *r, int side, size_t unfinished,
                       size_t processes, const char *text, size_t len)
{
   xml_out *x = X(r);
   const char *end = text + len;
   char *line;

   xml_start(x, "progress");
   xml_attr(x, "run", side ? "b" : "a");
   xml_attr_u64(x, "unfinished", unfinished);
   xml_attr_u64(x, "processes", processes);
   while (text < end) {
      const char *nl = memchr(text, '\n', (size_t)(end - text));
      size_t n = (size_t)((nl ? nl : end) - text);
      if (!(line = malloc(n + 1))) {
         xml_check(x, -1);
         break;
      }
      memcpy(line, text, n);
      line[n] = '\0';
      xml_start(x, "line");
      xml_attr_text(x, "text", line);
      xml_end(x);
      free(line);
      text += n + (nl != NULL);
   }
   xml_end(x);
}

static int x_summary(diff_report *r, size_t same, size_t differ,
                     size_t only_a, size_t only_b, thread_key *k,
                     size_t nk, size_t nfunctions, uint64_t lines,
                     size_t library, size_t endings)
{
   xml_out *x = X(r);
   char *set = thread_set_format(k, nk);
   if (!set)
      return -1;
   xml_start(x, "summary");
   xml_attr_u64(x, "pairs", same + differ);
   xml_attr_u64(x, "identical", same);
   xml_attr_u64(x, "different", differ);
   xml_attr_u64(x, "only-a", only_a);
   xml_attr_u64(x, "only-b", only_b);
   xml_attr(x, "differing", set);
   xml_attr_u64(x, "functions", nfunctions);
   xml_attr_u64(x, "lines", lines);
   xml_attr_u64(x, "library-threads", library);
   xml_attr_u64(x, "endings", endings);
   free(set);
   return 0;
}

static void x_function(diff_report *r, const char *label, uint64_t a,
                       uint64_t b)
{
   xml_out *x = X(r);
   xml_start(x, "function");
   xml_attr_text(x, "name", label);
   xml_attr_u64(x, "a", a);
   xml_attr_u64(x, "b", b);
   xml_end(x);
}

static void x_costs_head(diff_report *r, const uint64_t ir[2],
                         const uint64_t *outside_mpi, size_t n, size_t cut)
{
   xml_out *x = X(r);
   (void)n;
   xml_start(x, "costs");
   xml_attr_u64(x, "insns-a", ir[0]);
   xml_attr_u64(x, "insns-b", ir[1]);
   if (outside_mpi) {
      xml_attr_u64(x, "outside-mpi-a", outside_mpi[0]);
      xml_attr_u64(x, "outside-mpi-b", outside_mpi[1]);
   }
   if (cut)
      xml_attr_u64(x, "pairs-cut", cut);
}

static void x_cost(diff_report *r, const char *thread, const char *ref,
                   const char *label, const uint64_t self[2],
                   const uint64_t incl[2])
{
   xml_out *x = X(r);
   xml_start(x, "cost");
   if (thread) {
      xml_attr_text(x, "thread", thread);
      xml_attr_text(x, "reference", ref);
   }
   xml_attr_text(x, "name", label);
   xml_attr_u64(x, "inclusive-a", incl[0]);
   xml_attr_u64(x, "inclusive-b", incl[1]);
   xml_attr_u64(x, "self-a", self[0]);
   xml_attr_u64(x, "self-b", self[1]);
   xml_end(x);
}

static void x_call_costs_head(diff_report *r, size_t n)
{
   (void)r;
   (void)n;
}

static void x_call_cost(diff_report *r, const char *thread, const char *ref,
                        const char *label, const char *path,
                        uint64_t number, const uint64_t incl[2])
{
   xml_out *x = X(r);
   xml_start(x, "call-cost");
   xml_attr_text(x, "thread", thread);
   if (ref)
      xml_attr_text(x, "reference", ref);
   xml_attr_text(x, "name", label);
   xml_attr_text(x, "path", path);
   xml_attr_u64(x, "number", number);
   xml_attr_u64(x, "inclusive-a", incl[0]);
   xml_attr_u64(x, "inclusive-b", incl[1]);
   xml_end(x);
}

static int x_finish(diff_report *r)
{
   xml_out *x = X(r);
   int ret = xml_out_close(x);     /* closes what is open */
   free(x);
   r->impl = NULL;
   return ret;
}

int diff_report_xml(diff_report *r, outbuf *o, const char *creator)
{
   xml_out *x = malloc(sizeof *x);
   memset(r, 0, sizeof *r);
   if (!x || xml_out_open(x, o, "parlot-diff", DIFF_XML_VERSION, creator) < 0) {
      free(x);
      return -1;
   }
   r->o = o;
   r->impl = x;
   r->start = x_start;
   r->pair = x_pair;
   r->hunk = x_hunk;
   r->pair_end = x_pair_end;
   r->only = x_only;
   r->ending = x_ending;
   r->progress = x_progress;
   r->summary = x_summary;
   r->function = x_function;
   r->costs_head = x_costs_head;
   r->cost = x_cost;
   r->call_costs_head = x_call_costs_head;
   r->call_cost = x_call_cost;
   r->finish = x_finish;
   return 0;
}
