/* SPDX-License-Identifier: MIT */
/* parlot-annotate's function lists (by calls, by inclusive events, by
   instructions), cut by --threshold and --top, with callers and callees
   (--tree). */
#define _XOPEN_SOURCE 700

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* ---- The report --------------------------------------------------------- */


static const char *fn_label(const pl_program *p, uint32_t fn)
{
   return p->fns[fn].label;
}

/* Tie-breaks shared by every sort: label, then object, then ID. */
static const pl_program *cmp_prog;

/* The program whose functions the comparisons below order: qsort has no
   context argument. */
void report_sort_context(const pl_program *p)
{
   cmp_prog = p;
}

int report_cmp_fn_ids(uint32_t a, uint32_t b)
{
   int c;
   if (a == b)
      return 0;
   if (a == 0 || b == 0)           /* "(no caller)" first */
      return a == 0 ? -1 : 1;
   c = strcmp(cmp_prog->fns[a].label, cmp_prog->fns[b].label);
   if (c == 0)
      c = strcmp(cmp_prog->fns[a].object, cmp_prog->fns[b].object);
   return c ? c : (a < b ? -1 : 1);
}

int report_cmp_u64_desc(uint64_t x, uint64_t y)
{
   return x > y ? -1 : x < y;
}

static int by_calls(const void *a, const void *b)
{
   const pl_fstat *x = *(const pl_fstat *const *)a;
   const pl_fstat *y = *(const pl_fstat *const *)b;
   int c = report_cmp_u64_desc(x->calls, y->calls);
   if (c == 0)
      c = report_cmp_u64_desc(x->incl_events, y->incl_events);
   return c ? c : report_cmp_fn_ids(x->fn, y->fn);
}

static int by_incl(const void *a, const void *b)
{
   const pl_fstat *x = *(const pl_fstat *const *)a;
   const pl_fstat *y = *(const pl_fstat *const *)b;
   int c = report_cmp_u64_desc(x->incl_events, y->incl_events);
   if (c == 0)
      c = report_cmp_u64_desc(x->calls, y->calls);
   return c ? c : report_cmp_fn_ids(x->fn, y->fn);
}

static int by_ir(const void *a, const void *b)
{
   const pl_fstat *x = *(const pl_fstat *const *)a;
   const pl_fstat *y = *(const pl_fstat *const *)b;
   int c = report_cmp_u64_desc(x->self_cost, y->self_cost);
   if (c == 0)
      c = report_cmp_u64_desc(x->incl_cost, y->incl_cost);
   return c ? c : report_cmp_fn_ids(x->fn, y->fn);
}

uint64_t report_self_ir(const pl_graph *g)
{
   uint64_t sum = 0;
   for (size_t i = 0; i < g->nfns; i++)
      sum += g->fns[i].self_cost;
   return sum;
}

int report_by_callee(const void *a, const void *b)
{
   const pl_edge *x = *(const pl_edge *const *)a;
   const pl_edge *y = *(const pl_edge *const *)b;
   if (x->callee != y->callee)
      return x->callee < y->callee ? -1 : 1;
   return x->caller < y->caller ? -1 : x->caller > y->caller;
}

/* Tree lines: by the list's first column, then by the other function. */
static int tree_other_is_caller;
static int tree_list;

static int tree_order(const void *a, const void *b)
{
   const pl_edge *x = *(const pl_edge *const *)a;
   const pl_edge *y = *(const pl_edge *const *)b;
   int c = 0;
   if (tree_list == LIST_IR)
      c = report_cmp_u64_desc(x->outer_cost, y->outer_cost);
   if (c == 0)
      c = tree_list == LIST_INCL
          ? report_cmp_u64_desc(x->outer_events, y->outer_events)
          : report_cmp_u64_desc(x->outer_calls, y->outer_calls);
   if (c == 0)
      c = tree_list == LIST_INCL
          ? report_cmp_u64_desc(x->outer_calls, y->outer_calls)
          : report_cmp_u64_desc(x->outer_events, y->outer_events);
   if (c == 0)
      c = report_cmp_u64_desc(x->calls, y->calls);
   if (c == 0)
      c = tree_other_is_caller ? report_cmp_fn_ids(x->caller, y->caller)
                               : report_cmp_fn_ids(x->callee, y->callee);
   return c;
}

/* x * y as 128 bits: *hi, *lo. */
static void mul128(uint64_t x, uint64_t y, uint64_t *hi, uint64_t *lo)
{
   uint64_t xl = x & 0xffffffffu, xh = x >> 32;
   uint64_t yl = y & 0xffffffffu, yh = y >> 32;
   uint64_t ll = xl * yl, lh = xl * yh, hl = xh * yl, hh = xh * yh;
   uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
   *lo = mid << 32 | (ll & 0xffffffffu);
   *hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

int report_scaled_cmp(uint64_t a, uint64_t h, uint64_t b)
{
   uint64_t lh, ll, rh, rl;
   mul128(a, PCT_SCALE, &lh, &ll);
   mul128(h, b, &rh, &rl);
   if (lh != rh)
      return lh < rh ? -1 : 1;
   return ll < rl ? -1 : ll > rl;
}

/* How many functions of the sorted list to show.
   By calls, as callgrind_annotate: functions in list order until those
   shown account for at least THRESHOLD% of all calls.
   By self instructions, the same with them.
   By inclusive events (which overlap, so cannot be summed): the functions
   whose inclusive events are more than (100 - THRESHOLD)% of all events.
   100% shows every function; --top caps the count. */
static size_t list_length(const report *r)
{
   uint64_t h = r->opt->threshold, sum = 0;
   size_t n = 0;

   if (h >= PCT_SCALE) {
      n = r->nfns;
   } else if (r->list == LIST_CALLS) {
      while (n < r->nfns && report_scaled_cmp(sum, h, r->g->calls) < 0)
         sum += r->fns[n++]->calls;
   } else if (r->list == LIST_IR) {
      while (n < r->nfns && report_scaled_cmp(sum, h, r->ir) < 0)
         sum += r->fns[n++]->self_cost;
   } else {
      while (n < r->nfns
             && report_scaled_cmp(r->fns[n]->incl_events, PCT_SCALE - h,
                           r->g->events) > 0)
         n++;
   }
   if (r->opt->top && n > r->opt->top)
      n = (size_t)r->opt->top;
   return n;
}

void report_put_fn_name(outbuf *o, const pl_program *p, uint32_t fn)
{
   report_put_name(o, fn == 0 ? "(no caller)" : fn_label(p, fn));
}

/* "label (Nx) [object]" of fn ("(no caller)" for 0); no "(Nx)" if
   times is 0. */
void report_put_fn(outbuf *o, const pl_program *p, uint32_t fn,
                   uint64_t times)
{
   report_put_fn_name(o, p, fn);
   if (times) {
      char num[CELL_MAX];
      report_put_commas(num, times);
      outbuf_printf(o, " (%sx)", num);
   }
   if (fn != 0) {
      outbuf_str(o, " [");
      report_put_name(o, p->fns[fn].object);
      outbuf_str(o, "]");
   }
}

/* Edges with callee fn (callers), or with caller fn (callees), sorted for
   the tree: a malloc'ed array in *out.  Returns how many; -1 if out of
   memory. */
static long tree_edges(const report *r, uint32_t fn, int callers,
                       const pl_edge ***out)
{
   const pl_graph *g = r->g;
   size_t lo = 0, hi = g->nedges, n = 0, i;
   const pl_edge **e;

   /* first edge whose key (callee or caller) is >= fn */
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      uint32_t key = callers ? r->callers[mid]->callee : g->edges[mid].caller;
      if (key < fn)
         lo = mid + 1;
      else
         hi = mid;
   }
   for (i = lo; i < g->nedges; i++) {
      uint32_t key = callers ? r->callers[i]->callee : g->edges[i].caller;
      if (key != fn)
         break;
      n++;
   }
   e = malloc((n ? n : 1) * sizeof *e);
   if (!e)
      return -1;
   for (i = 0; i < n; i++)
      e[i] = callers ? r->callers[lo + i] : &g->edges[lo + i];
   tree_other_is_caller = callers;
   tree_list = r->list;
   report_sort_context(r->p);
   qsort(e, n, sizeof *e, tree_order);
   *out = e;
   return (long)n;
}

/* A row's figures: calls, events, self and inclusive Ir. */
typedef struct {
   uint64_t calls, events, self_ir, incl_ir;
} row_figures;

/* A row of the list: measured (o NULL: widen the table's columns) or
   written.  The columns: calls and events, in the list's order; by Ir,
   self Ir, inclusive Ir and calls. */
static void list_row(report *r, outbuf *o, const row_figures *f,
                     const char *marker, uint32_t fn, uint64_t times,
                     int in_cycle)
{
   uint64_t v[3];
   if (r->list == LIST_IR) {
      v[0] = f->self_ir;
      v[1] = f->incl_ir;
      v[2] = f->calls;
   } else {
      v[0] = r->list == LIST_INCL ? f->events : f->calls;
      v[1] = r->list == LIST_INCL ? f->calls : f->events;
   }
   if (!o) {
      report_table_measure(&r->t, v);
      return;
   }
   report_table_cells(o, &r->t, v);
   outbuf_str(o, marker);
   report_put_fn(o, r->p, fn, times);
   if (in_cycle)
      outbuf_str(o, " (cycle)");
   outbuf_str(o, "\n");
}

/* Whether edge e lies on a call cycle (recursion). */
static int on_cycle(const report *r, const pl_edge *e)
{
   return e->caller && r->cycle[e->caller]
          && r->cycle[e->caller] == r->cycle[e->callee];
}

/* The callers ("<") or the callees (">") of f. */
static int tree_rows(report *r, outbuf *o, const pl_fstat *f, int callers)
{
   const pl_edge **e = NULL;
   long n = tree_edges(r, f->fn, callers, &e), k;
   if (n < 0)
      return -1;
   for (k = 0; k < n; k++) {
      /* each outermost call once: recursion counts nothing twice; a call
         line's Ir is that of the calls, in both columns (as
         callgrind_annotate's tree shows call costs) */
      row_figures fig = { e[k]->outer_calls, e[k]->outer_events,
                          e[k]->outer_cost, e[k]->outer_cost };
      list_row(r, o, &fig, callers ? "< " : ">   ",
               callers ? e[k]->caller : e[k]->callee, e[k]->calls,
               on_cycle(r, e[k]));
   }
   free(e);
   return 0;
}

/* Whether any edge of the graph lies on a cycle. */
static int has_cycle_edges(const report *r)
{
   size_t e;
   for (e = 0; e < r->g->nedges; e++)
      if (on_cycle(r, &r->g->edges[e]))
         return 1;
   return 0;
}

/* The first n functions, with their trees. */
static int list_rows(report *r, outbuf *o, size_t n)
{
   size_t i;
   for (i = 0; i < n; i++) {
      const pl_fstat *f = r->fns[i];
      if (o && r->opt->tree)
         outbuf_str(o, "\n");
      if ((r->opt->tree & TREE_CALLER) && tree_rows(r, o, f, 1) < 0)
         return -1;
      row_figures fig = { f->calls, f->incl_events, f->self_cost,
                          f->incl_cost };
      list_row(r, o, &fig, r->opt->tree ? "*  " : "", f->fn, 0, 0);
      if ((r->opt->tree & TREE_CALLING) && tree_rows(r, o, f, 0) < 0)
         return -1;
   }
   return 0;
}

int report_write_list(report *r, outbuf *o, int list)
{
   size_t n;

   r->list = list;
   r->ir = report_self_ir(r->g);
   report_sort_context(r->p);
   qsort(r->fns, r->nfns, sizeof *r->fns,
         list == LIST_IR ? by_ir : list == LIST_INCL ? by_incl : by_calls);
   n = list_length(r);
   if (list == LIST_IR) {
      /* inclusive Ir overlaps: its percentages are of all of them too */
      report_table_init(&r->t, 3);
      report_table_col(&r->t, 0, "Ir", 1, r->ir);
      report_table_col(&r->t, 1, "Inclusive Ir", 1, r->ir);
      report_table_col(&r->t, 2, "Calls", 1, r->g->calls);
   } else {
      int incl = list == LIST_INCL;
      report_table_init(&r->t, 2);
      report_table_col(&r->t, 0, incl ? "Inclusive events" : "Calls", 1,
                       incl ? r->g->events : r->g->calls);
      report_table_col(&r->t, 1, incl ? "Calls" : "Inclusive events", 1,
                       incl ? r->g->calls : r->g->events);
   }
   if (list_rows(r, NULL, n) < 0)
      return -1;
   report_table_head(o, &r->t, "function [object]");
   if (list_rows(r, o, n) < 0)
      return -1;
   if (r->opt->tree && has_cycle_edges(r))
      outbuf_str(o, "\n(cycle): a caller or callee line within a call cycle "
                    "(recursion); its inclusive\nfigures count each "
                    "outermost call once, not the calls nested in it again."
                    "\n");
   outbuf_str(o, "\n");
   return 0;
}
