/* SPDX-License-Identifier: MIT */
/* parlot-annotate: a report of ParLoT traces in the shape of
   callgrind_annotate's.

   All the traces given are read into one program (pl_program.h): one
   function table, one call graph per thread.  The report covers the whole
   program, or one group of its threads (--group-by, --group), and has:

     a header      what was read: files, command, processes, threads,
                   events, the selection, the options of the report;
     groups        with --group-by: each group's events, calls and members;
     totals        calls and events ("PROGRAM TOTALS");
     objects       calls into each object's functions;
     two lists     the functions by calls, then by inclusive events, each
                   cut by --threshold and --top, optionally with each
                   function's callers (<) and callees (>) (--tree).
     ranks         with two or more ranks (processes), the program across
                   them: per function min / median / max calls per rank,
                   and the outlier ranks with what differs (--ranks;
                   pl_outliers.h).

   Numbers get thousands separators and a percentage of the totals, and
   columns are as wide as their widest cell, as in callgrind_annotate.
   Errors follow parlot-decode (pl_cli.h): one line per bad trace, after the
   report of what could be read, exit 1; a usage error is one line, exit 2.
   The exact meaning of every column is in docs/parlot-annotate.1. */

#ifdef HAVE_CONFIG_H
#  include "config.h"
#endif

#define _XOPEN_SOURCE 700

#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_archive.h"
#include "pl_cli.h"
#include "pl_names.h"
#include "pl_outbuf.h"
#include "pl_outliers.h"
#include "pl_parallel.h"
#include "pl_program.h"
#include "pl_progress.h"
#include "pl_select.h"

#ifndef PACKAGE_VERSION
#  define PACKAGE_VERSION "dev"
#endif

#define PROG "parlot-annotate"

#define RULE "--------------------------------------------------------------" \
             "------------------\n"
#define HEAD_WIDTH   18      /* "Trace files:      " */
#define LIST_MAX     6       /* files, pids, ranks, members shown by name */
#define PCT_SCALE    10000u  /* thresholds are in hundredths of a percent */

enum { TREE_NONE = 0, TREE_CALLER = 1, TREE_CALLING = 2,
       TREE_BOTH = TREE_CALLER | TREE_CALLING };

typedef struct {
   pl_select select;
   char     *select_text;  /* the --select specs, joined by ',' */
   int       group_by;     /* enum pl_group_kind, or -1: no groups */
   uint64_t  group;        /* --group: 1-based, 0 = the whole program */
   unsigned  threshold;    /* in hundredths of a percent, 0..PCT_SCALE */
   uint64_t  top;          /* at most this many functions; 0 = no limit */
   int       tree;
   int       demangle;
   unsigned  jobs;         /* -j: threads reading traces, 0 = all cores */
   int       ranks;        /* --ranks: RANKS_* */
} options;

enum { RANKS_AUTO, RANKS_YES, RANKS_NO };

/* ---- Counting returns while reading ------------------------------------- */

/* The call graphs count calls and events.  The header splits the events
   into calls, returns and a forked child's inherited entries, so a
   visitor counts the returns as the events go by. */
static int count_returns(void *ctx, const pl_event *ev, size_t n)
{
   uint64_t *returns = ctx, r = 0;
   size_t i;
   for (i = 0; i < n; i++)
      r += ev[i].kind == PL_EV_RETURN;
   *returns += r;
   return 0;
}

/* ---- Cells and tables --------------------------------------------------- */

/* v with thousands separators, at p (room for 27 bytes); returns the end. */
static char *put_commas(char *p, uint64_t v)
{
   char d[24];
   int n = snprintf(d, sizeof d, "%" PRIu64, v), i;
   for (i = 0; i < n; i++) {
      if (i > 0 && (n - i) % 3 == 0)
         *p++ = ',';
      *p++ = d[i];
   }
   *p = 0;
   return p;
}

#define CELL_MAX 48

/* A cell as callgrind_annotate writes it: "1,234 (12.34%)"; 100% and more
   with one decimal, "(100.0%)"; a 0 without percentage, padded as if it
   had one so that numbers stay aligned. */
static void format_cell(char *buf, uint64_t v, uint64_t base, int pct)
{
   char *p = put_commas(buf, v);
   double x;
   if (!pct)
      return;
   if (v == 0) {
      memcpy(p, "         ", 10);
      return;
   }
   x = base ? (double)v * 100.0 / (double)base : 0.0;
   snprintf(p, CELL_MAX - (size_t)(p - buf),
            x < 99.995 ? " (%5.2f%%)" : " (%5.1f%%)", x);
}

#define MAX_COLS 4

/* Columns of numbers, right-aligned, two spaces apart, followed by a
   label. */
typedef struct {
   int         ncols;
   const char *head[MAX_COLS];
   int         pct[MAX_COLS];       /* with percentages ... */
   uint64_t    base[MAX_COLS];      /* ... of this */
   size_t      width[MAX_COLS];
} table;

static void table_init(table *t, int ncols)
{
   int k;
   memset(t, 0, sizeof *t);
   t->ncols = ncols;
   for (k = 0; k < ncols; k++)
      t->head[k] = "";
}

static void table_col(table *t, int k, const char *head, int pct,
                      uint64_t base)
{
   t->head[k] = head;
   t->pct[k] = pct;
   t->base[k] = base;
   t->width[k] = strlen(head);
}

static void table_measure(table *t, const uint64_t *v)
{
   char cell[CELL_MAX];
   int k;
   for (k = 0; k < t->ncols; k++) {
      size_t w;
      format_cell(cell, v[k], t->base[k], t->pct[k]);
      w = strlen(cell);
      if (w > t->width[k])
         t->width[k] = w;
   }
}

static void put_spaces(outbuf *o, size_t n)
{
   static const char sp[] = "                                ";
   while (n > 0) {
      size_t k = n < sizeof sp - 1 ? n : sizeof sp - 1;
      outbuf_write(o, sp, k);
      n -= k;
   }
}

/* The cells of a row and the two spaces before its label. */
static void table_cells(outbuf *o, const table *t, const uint64_t *v)
{
   char cell[CELL_MAX];
   int k;
   for (k = 0; k < t->ncols; k++) {
      size_t w;
      format_cell(cell, v[k], t->base[k], t->pct[k]);
      w = strlen(cell);
      put_spaces(o, t->width[k] - w);
      outbuf_write(o, cell, w);
      outbuf_write(o, "  ", 2);
   }
}

/* Rule, column heads, label head, rule. */
static void table_head(outbuf *o, const table *t, const char *label)
{
   int k;
   outbuf_str(o, RULE);
   for (k = 0; k < t->ncols; k++) {
      outbuf_str(o, t->head[k]);
      if (k + 1 < t->ncols || label)
         put_spaces(o, t->width[k] - strlen(t->head[k]) + 2);
   }
   if (label)
      outbuf_str(o, label);
   outbuf_str(o, "\n" RULE);
}

/* A name as recorded, with the bytes that would break a line escaped. */
static void put_name(outbuf *o, const char *s)
{
   size_t n = strlen(s), e = pl_escaped_len(s, n);
   char *buf;
   if (e == n) {
      outbuf_write(o, s, n);
      return;
   }
   buf = malloc(e);
   if (!buf) {
      outbuf_str(o, "?");
      return;
   }
   pl_put_escaped(buf, s, n);
   outbuf_write(o, buf, e);
   free(buf);
}

/* ---- The report --------------------------------------------------------- */

typedef struct {
   const pl_program *p;
   const options    *opt;
   const pl_graph   *g;          /* what is reported: program or group */
   const pl_fstat  **fns;        /* g's functions, in list order */
   size_t            nfns;
   const pl_edge   **callers;    /* g's edges by (callee, caller) */
   table             t;
   int               sort_incl;  /* the list being written: by inclusive
                                    events (1) or by calls (0) */
} report;

static const char *fn_label(const pl_program *p, uint32_t fn)
{
   return p->fns[fn].label;
}

/* Tie-breaks shared by every sort: label, then object, then ID. */
static const pl_program *cmp_prog;

static int cmp_fn_ids(uint32_t a, uint32_t b)
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

static int cmp_u64_desc(uint64_t x, uint64_t y)
{
   return x > y ? -1 : x < y;
}

static int by_calls(const void *a, const void *b)
{
   const pl_fstat *x = *(const pl_fstat *const *)a;
   const pl_fstat *y = *(const pl_fstat *const *)b;
   int c = cmp_u64_desc(x->calls, y->calls);
   if (c == 0)
      c = cmp_u64_desc(x->incl_events, y->incl_events);
   return c ? c : cmp_fn_ids(x->fn, y->fn);
}

static int by_incl(const void *a, const void *b)
{
   const pl_fstat *x = *(const pl_fstat *const *)a;
   const pl_fstat *y = *(const pl_fstat *const *)b;
   int c = cmp_u64_desc(x->incl_events, y->incl_events);
   if (c == 0)
      c = cmp_u64_desc(x->calls, y->calls);
   return c ? c : cmp_fn_ids(x->fn, y->fn);
}

static int by_callee(const void *a, const void *b)
{
   const pl_edge *x = *(const pl_edge *const *)a;
   const pl_edge *y = *(const pl_edge *const *)b;
   if (x->callee != y->callee)
      return x->callee < y->callee ? -1 : 1;
   return x->caller < y->caller ? -1 : x->caller > y->caller;
}

/* Tree lines: by the list's first column, then by the other function. */
static int tree_other_is_caller;
static int tree_sort_incl;

static int tree_order(const void *a, const void *b)
{
   const pl_edge *x = *(const pl_edge *const *)a;
   const pl_edge *y = *(const pl_edge *const *)b;
   int c = tree_sort_incl ? cmp_u64_desc(x->incl_events, y->incl_events)
                          : cmp_u64_desc(x->incl_calls, y->incl_calls);
   if (c == 0)
      c = tree_sort_incl ? cmp_u64_desc(x->incl_calls, y->incl_calls)
                         : cmp_u64_desc(x->incl_events, y->incl_events);
   if (c == 0)
      c = cmp_u64_desc(x->calls, y->calls);
   if (c == 0)
      c = tree_other_is_caller ? cmp_fn_ids(x->caller, y->caller)
                               : cmp_fn_ids(x->callee, y->callee);
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

/* a * PCT_SCALE compared with h * b, exactly: -1, 0 or 1. */
static int scaled_cmp(uint64_t a, uint64_t h, uint64_t b)
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
   By inclusive events (which overlap, so cannot be summed): the functions
   whose inclusive events are more than (100 - THRESHOLD)% of all events.
   100% shows every function; --top caps the count. */
static size_t list_length(const report *r)
{
   uint64_t h = r->opt->threshold, sum = 0;
   size_t n = 0;

   if (h >= PCT_SCALE) {
      n = r->nfns;
   } else if (!r->sort_incl) {
      while (n < r->nfns && scaled_cmp(sum, h, r->g->calls) < 0)
         sum += r->fns[n++]->calls;
   } else {
      while (n < r->nfns
             && scaled_cmp(r->fns[n]->incl_events, PCT_SCALE - h,
                           r->g->events) > 0)
         n++;
   }
   if (r->opt->top && n > r->opt->top)
      n = (size_t)r->opt->top;
   return n;
}

/* "label (Nx) [object]" of fn ("(no caller)" for 0); no "(Nx)" if
   times is 0. */
static void put_fn(outbuf *o, const pl_program *p, uint32_t fn,
                   uint64_t times)
{
   if (fn == 0) {
      outbuf_str(o, "(no caller)");
   } else {
      put_name(o, fn_label(p, fn));
   }
   if (times) {
      char num[CELL_MAX];
      put_commas(num, times);
      outbuf_printf(o, " (%sx)", num);
   }
   if (fn != 0) {
      outbuf_str(o, " [");
      put_name(o, p->fns[fn].object);
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
   tree_sort_incl = r->sort_incl;
   qsort(e, n, sizeof *e, tree_order);
   *out = e;
   return (long)n;
}

/* A row of the list: measured (o NULL: widen the table's columns) or
   written. */
static void list_row(report *r, outbuf *o, uint64_t calls, uint64_t events,
                     const char *marker, uint32_t fn, uint64_t times)
{
   uint64_t v[2];
   v[0] = r->sort_incl ? events : calls;
   v[1] = r->sort_incl ? calls : events;
   if (!o) {
      table_measure(&r->t, v);
      return;
   }
   table_cells(o, &r->t, v);
   outbuf_str(o, marker);
   put_fn(o, r->p, fn, times);
   outbuf_str(o, "\n");
}

/* The callers ("<") or the callees (">") of f. */
static int tree_rows(report *r, outbuf *o, const pl_fstat *f, int callers)
{
   const pl_edge **e = NULL;
   long n = tree_edges(r, f->fn, callers, &e), k;
   if (n < 0)
      return -1;
   for (k = 0; k < n; k++)
      list_row(r, o, e[k]->incl_calls, e[k]->incl_events,
               callers ? "< " : ">   ",
               callers ? e[k]->caller : e[k]->callee, e[k]->calls);
   free(e);
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
      list_row(r, o, f->calls, f->incl_events, r->opt->tree ? "*  " : "",
               f->fn, 0);
      if ((r->opt->tree & TREE_CALLING) && tree_rows(r, o, f, 0) < 0)
         return -1;
   }
   return 0;
}

static int write_list(report *r, outbuf *o, int sort_incl)
{
   static const char *const heads[2] = { "Calls", "Inclusive events" };
   size_t n;

   r->sort_incl = sort_incl;
   cmp_prog = r->p;
   qsort(r->fns, r->nfns, sizeof *r->fns, sort_incl ? by_incl : by_calls);
   n = list_length(r);
   table_init(&r->t, 2);
   table_col(&r->t, 0, heads[sort_incl], 1,
             sort_incl ? r->g->events : r->g->calls);
   table_col(&r->t, 1, heads[!sort_incl], 1,
             sort_incl ? r->g->calls : r->g->events);
   if (list_rows(r, NULL, n) < 0)
      return -1;
   table_head(o, &r->t, "function [object]");
   if (list_rows(r, o, n) < 0)
      return -1;
   outbuf_str(o, "\n");
   return 0;
}

/* ---- Objects ------------------------------------------------------------ */

typedef struct {
   const char *name;
   uint64_t    calls, from_outside, fns;
} obj_row;

static int by_obj_calls(const void *a, const void *b)
{
   const obj_row *x = a, *y = b;
   int c = cmp_u64_desc(x->calls, y->calls);
   return c ? c : strcmp(x->name, y->name);
}

static int by_obj_name(const void *a, const void *b)
{
   return strcmp(((const obj_row *)a)->name, ((const obj_row *)b)->name);
}

static const char *object_of(const pl_program *p, uint32_t fn)
{
   return p->fns[fn].object;
}

/* Per object: calls of its functions, those of them coming from another
   object (or from no caller), and its functions that ran. */
static int write_objects(report *r, outbuf *o)
{
   const pl_program *p = r->p;
   const pl_graph *g = r->g;
   obj_row *rows = malloc((g->nfns ? g->nfns : 1) * sizeof *rows);
   size_t n = 0, i, k;
   table t;

   if (!rows)
      return -1;
   for (i = 0; i < g->nfns; i++) {
      rows[i].name = object_of(p, g->fns[i].fn);
      rows[i].calls = g->fns[i].calls;
      rows[i].from_outside = 0;
      rows[i].fns = 1;
   }
   qsort(rows, g->nfns, sizeof *rows, by_obj_name);
   for (i = 0; i < g->nfns; i++) {
      if (n > 0 && strcmp(rows[n - 1].name, rows[i].name) == 0) {
         rows[n - 1].calls += rows[i].calls;
         rows[n - 1].fns++;
      } else {
         rows[n++] = rows[i];
      }
   }
   for (i = 0; i < g->nedges; i++) {
      const pl_edge *e = &g->edges[i];
      const char *callee = object_of(p, e->callee);
      obj_row key, *row;
      if (e->caller != 0 && strcmp(object_of(p, e->caller), callee) == 0)
         continue;
      key.name = callee;
      row = bsearch(&key, rows, n, sizeof *rows, by_obj_name);
      if (row)
         row->from_outside += e->calls;
   }
   qsort(rows, n, sizeof *rows, by_obj_calls);

   table_init(&t, 3);
   table_col(&t, 0, "Calls", 1, g->calls);
   table_col(&t, 1, "From outside", 1, g->calls);
   table_col(&t, 2, "Functions", 0, 0);
   for (k = 0; k < 2; k++) {
      if (k == 1)
         table_head(o, &t, "object");
      for (i = 0; i < n; i++) {
         uint64_t v[3] = { rows[i].calls, rows[i].from_outside, rows[i].fns };
         if (k == 0) {
            table_measure(&t, v);
            continue;
         }
         table_cells(o, &t, v);
         put_name(o, rows[i].name);
         outbuf_str(o, "\n");
      }
   }
   outbuf_str(o, "\n");
   free(rows);
   return 0;
}

/* ---- Header ------------------------------------------------------------- */

static void head_key(outbuf *o, const char *key)
{
   outbuf_str(o, key);
   put_spaces(o, HEAD_WIDTH - strlen(key));
}

/* ", " between items, "..." after LIST_MAX of them. */
static int list_item(outbuf *o, size_t i)
{
   if (i == LIST_MAX) {
      outbuf_str(o, ", ...");
      return 0;
   }
   if (i > 0)
      outbuf_str(o, ", ");
   return i < LIST_MAX;
}

static void put_u64(outbuf *o, uint64_t v)
{
   char num[CELL_MAX];
   put_commas(num, v);
   outbuf_str(o, num);
}

static int by_string(const void *a, const void *b)
{
   return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Thread members "PID:N-M, PID:N, ..." (runs of consecutive numbers of a
   process joined). */
static void put_members(outbuf *o, const pl_program *p, const size_t *m,
                        size_t n)
{
   size_t i = 0, items = 0;
   while (i < n) {
      const pl_thread *a = &p->threads[m[i]];
      size_t j = i + 1;
      while (j < n && p->threads[m[j]].proc == a->proc
             && p->threads[m[j]].number == p->threads[m[j - 1]].number + 1)
         j++;
      if (!list_item(o, items++))
         return;
      put_name(o, p->procs[a->proc].pid);
      outbuf_printf(o, ":%" PRIu32, a->number);
      if (j - i > 1)
         outbuf_printf(o, "-%" PRIu32, p->threads[m[j - 1]].number);
      i = j;
   }
}

typedef struct {
   int      nfiles, unreadable, damaged;
   char   **files;
   uint64_t returns;
} read_info;

static const struct {
   const char *name;
   int         kind;
} group_kinds[] = {
   { "process", PL_GROUP_PROCESS }, { "graph", PL_GROUP_GRAPH },
   { "shape", PL_GROUP_SHAPE }, { "none", -1 },
};
#define NGROUP_KINDS (sizeof group_kinds / sizeof group_kinds[0])

static const char *group_kind_name(int kind)
{
   size_t i;
   for (i = 0; i < NGROUP_KINDS; i++)
      if (group_kinds[i].kind == kind)
         return group_kinds[i].name;
   return "?";
}

/* Whether the header names process i: all of them, or with --select
   those with a thread selected. */
static int shown_process(const pl_program *p, const options *opt, size_t i)
{
   return opt->select.n == 0 || p->procs[i].nthreads > 0;
}

static int write_header(outbuf *o, const pl_program *p, const options *opt,
                        const read_info *ri, size_t ngroups,
                        const pl_group *chosen)
{
   uint64_t events = 0, calls = 0, all_threads = 0, cut_short = 0;
   size_t i, nranks = 0, others = 0, nshown = 0;
   int k;
   char **cmds;

   outbuf_str(o, RULE);
   head_key(o, "Trace files:");
   outbuf_printf(o, "%d (", ri->nfiles);
   for (i = 0; i < (size_t)ri->nfiles; i++)
      if (list_item(o, i))
         put_name(o, ri->files[i]);
      else
         break;
   outbuf_str(o, ")");
   if (ri->unreadable)
      outbuf_printf(o, ", %d unreadable", ri->unreadable);
   if (ri->damaged)
      outbuf_printf(o, ", %d damaged or truncated", ri->damaged);
   outbuf_str(o, "\n");

   /* the first process's command, and how many others there were */
   head_key(o, "Command:");
   cmds = malloc((p->nprocs ? p->nprocs : 1) * sizeof *cmds);
   if (!cmds)
      return -1;
   for (i = 0; i < p->nprocs; i++)
      if (shown_process(p, opt, i))
         cmds[nshown++] = p->procs[i].cmd[0] ? p->procs[i].cmd
                                             : p->procs[i].exe;
   if (nshown == 0) {
      outbuf_str(o, "(none)");
   } else {
      put_name(o, cmds[0][0] ? cmds[0] : "(unknown)");
      qsort(cmds, nshown, sizeof *cmds, by_string);
      for (i = 1; i < nshown; i++)
         others += strcmp(cmds[i], cmds[i - 1]) != 0;
      if (others)
         outbuf_printf(o, " (and %zu other command%s)", others,
                       others == 1 ? "" : "s");
   }
   free(cmds);
   outbuf_str(o, "\n");

   /* with a selection, the processes some of whose threads it selects */
   head_key(o, "Processes:");
   for (i = 0; i < p->nprocs; i++)
      if (shown_process(p, opt, i))
         nranks += p->procs[i].rank != NULL;
   put_u64(o, nshown);
   if (nshown != p->nprocs) {
      outbuf_str(o, " of ");
      put_u64(o, p->nprocs);
      outbuf_str(o, " selected");
   }
   for (k = 0; k < 2 && nshown; k++) {
      size_t item = 0;
      if (k == 1 && !nranks)
         break;
      outbuf_str(o, k == 0 ? (nshown == 1 ? " (pid " : " (pids ")
                           : (nshown == 1 ? "; rank " : "; ranks "));
      for (i = 0; i < p->nprocs; i++) {
         const pl_process *pr = &p->procs[i];
         if (!shown_process(p, opt, i))
            continue;
         if (!list_item(o, item++))
            break;
         put_name(o, k == 0 ? pr->pid : pr->rank ? pr->rank : "?");
      }
   }
   if (nshown)
      outbuf_str(o, ")");
   outbuf_str(o, "\n");

   for (i = 0; i < p->nprocs; i++)
      all_threads += p->procs[i].nthreads_all;
   for (i = 0; i < p->nthreads; i++) {
      events += p->threads[i].g.events;
      calls += p->threads[i].g.calls;
      cut_short += !p->threads[i].complete;
   }
   head_key(o, "Threads:");
   put_u64(o, p->nthreads);
   if (p->nthreads != all_threads) {
      outbuf_str(o, " of ");
      put_u64(o, all_threads);
      outbuf_str(o, opt->select.n ? " selected" : " read");
   }
   if (cut_short) {
      outbuf_str(o, ", ");
      put_u64(o, cut_short);
      outbuf_str(o, " cut short by damage");
   }
   outbuf_str(o, "\n");

   head_key(o, "Events:");
   put_u64(o, events);
   outbuf_str(o, " (");
   put_u64(o, calls);
   outbuf_str(o, " calls, ");
   put_u64(o, ri->returns);
   outbuf_str(o, " returns");
   if (events > calls + ri->returns) {
      outbuf_str(o, ", ");
      put_u64(o, events - calls - ri->returns);
      outbuf_str(o, " inherited entries");
   }
   outbuf_str(o, ")\n");

   head_key(o, "Selection:");
   outbuf_str(o, opt->select_text ? opt->select_text : "all");
   outbuf_str(o, "\n");
   if (opt->group_by >= 0) {
      head_key(o, "Groups:");
      outbuf_printf(o, "%zu, by %s\n", ngroups,
                    group_kind_name(opt->group_by));
   }
   if (chosen) {
      head_key(o, "Reported group:");
      outbuf_printf(o, "%" PRIu64 " (", opt->group);
      put_u64(o, chosen->nmembers);
      outbuf_str(o, chosen->nmembers == 1 ? " thread: " : " threads: ");
      put_members(o, p, chosen->members, chosen->nmembers);
      outbuf_str(o, ")\n");
   }
   head_key(o, "Threshold:");
   if (opt->threshold % 100 == 0)
      outbuf_printf(o, "%u%%\n", opt->threshold / 100);
   else if (opt->threshold % 10 == 0)
      outbuf_printf(o, "%u.%u%%\n", opt->threshold / 100,
                    opt->threshold % 100 / 10);
   else
      outbuf_printf(o, "%u.%02u%%\n", opt->threshold / 100,
                    opt->threshold % 100);
   if (opt->top) {
      head_key(o, "Top:");
      outbuf_printf(o, "%" PRIu64 "\n", opt->top);
   }
   if (opt->tree) {
      static const char *const trees[] = { "", "caller", "calling", "both" };
      head_key(o, "Tree:");
      outbuf_printf(o, "%s\n", trees[opt->tree]);
   }
   return 0;
}

/* Groups: events, calls and threads of each, with its members. */
static void write_groups(outbuf *o, const pl_program *p, const pl_graph *all,
                         const pl_group *gs, size_t n)
{
   table t;
   size_t i;
   int k;

   table_init(&t, 3);
   table_col(&t, 0, "Events", 1, all->events);
   table_col(&t, 1, "Calls", 1, all->calls);
   table_col(&t, 2, "Threads", 0, 0);
   for (k = 0; k < 2; k++) {
      if (k == 1)
         table_head(o, &t, "group: threads (PID:N)");
      for (i = 0; i < n; i++) {
         uint64_t v[3] = { gs[i].g.events, gs[i].g.calls, gs[i].nmembers };
         if (k == 0) {
            table_measure(&t, v);
            continue;
         }
         table_cells(o, &t, v);
         outbuf_printf(o, "%zu: ", i + 1);
         put_members(o, p, gs[i].members, gs[i].nmembers);
         outbuf_str(o, "\n");
      }
   }
   outbuf_str(o, "\n");
}

static void write_totals(outbuf *o, const pl_graph *g, const char *label)
{
   table t;
   uint64_t v[2] = { g->calls, g->events };
   table_init(&t, 2);
   table_col(&t, 0, "Calls", 1, g->calls);
   table_col(&t, 1, "Events", 1, g->events);
   table_measure(&t, v);
   table_head(o, &t, NULL);
   table_cells(o, &t, v);
   outbuf_str(o, label);
   outbuf_str(o, "\n\n");
}

/* ---- Ranks: the program across its processes ----------------------------- */

/* By median, then max, then min (all descending), then label. */
static int by_median(const void *a, const void *b)
{
   const pl_rank_fn *x = *(const pl_rank_fn *const *)a;
   const pl_rank_fn *y = *(const pl_rank_fn *const *)b;
   int c = cmp_u64_desc(x->median, y->median);
   if (c == 0)
      c = cmp_u64_desc(x->max, y->max);
   if (c == 0)
      c = cmp_u64_desc(x->min, y->min);
   return c ? c : cmp_fn_ids(x->fn, y->fn);
}

static const char *const reason_names[] = {
   "only here: ", "missing here: ", "only here: ", "missing here: ",
   "calls differ: "
};

static void put_reason(outbuf *o, const pl_program *p, const pl_reason *r)
{
   outbuf_str(o, reason_names[r->kind]);
   if (r->kind == PL_REASON_ONLY_EDGE || r->kind == PL_REASON_MISSING_EDGE) {
      put_fn(o, p, r->caller, 0);
      outbuf_str(o, " > ");
   }
   put_fn(o, p, r->fn, 0);
}

/* The Ranks section (docs/parlot-annotate.1): per function min / median /
   max calls per process, then each outlier with its reasons.  0, or -1 if
   out of memory. */
static int write_ranks(outbuf *o, const pl_program *p, const options *opt)
{
   pl_ranks r;
   const pl_rank_fn **fs;
   const char *unit;
   char name[64];
   table t;
   size_t i, n, k;
   int pass;

   if (pl_ranks_analyse(p, &r) < 0)
      return -1;
   if (opt->ranks == RANKS_AUTO && r.nprocs < 2) {
      pl_ranks_free(&r);
      return 0;
   }
   unit = r.by_rank ? "rank" : "process";
   fs = malloc((r.nfns + 1) * sizeof *fs);
   if (!fs) {
      pl_ranks_free(&r);
      return -1;
   }
   for (i = 0; i < r.nfns; i++)
      fs[i] = &r.fns[i];
   cmp_prog = p;
   qsort(fs, r.nfns, sizeof *fs, by_median);
   n = r.nfns;
   if (opt->top && n > opt->top)
      n = (size_t)opt->top;

   outbuf_str(o, RULE);
   head_key(o, "Ranks:");
   put_u64(o, r.nprocs);
   outbuf_str(o, r.by_rank ? " (processes with an MPI rank)\n"
                           : " (processes; no MPI ranks recorded)\n");
   head_key(o, "Classes:");
   put_u64(o, r.nclasses);
   outbuf_str(o, r.class_kind == PL_CLASS_SHAPE ? ", by call-graph shape"
                                                : ", by call graph");
   if (r.has_majority)
      outbuf_printf(o, "; majority: class %zu, %zu %s%s\n", r.majority + 1,
                    r.majority_size, unit, r.majority_size == 1 ? "" : "s");
   else
      outbuf_str(o, r.nclasses > 1 ? "; no majority\n" : "\n");
   head_key(o, "Outliers:");
   put_u64(o, r.noutliers);
   for (i = 0; i < r.noutliers; i++) {
      outbuf_str(o, i ? ", " : " (");
      put_name(o, pl_ranks_proc_name(p, &r, r.outliers[i].proc, name,
                                     sizeof name));
   }
   outbuf_str(o, r.noutliers ? ")\n" : "\n");

   table_init(&t, 4);
   table_col(&t, 0, "Min", 0, 0);
   table_col(&t, 1, "Median", 0, 0);
   table_col(&t, 2, "Max", 0, 0);
   table_col(&t, 3, r.by_rank ? "Ranks" : "Procs", 0, 0);
   for (pass = 0; pass < 2; pass++) {
      if (pass == 1)
         table_head(o, &t, "function [object]  (calls per process)");
      for (i = 0; i < n; i++) {
         uint64_t v[4] = { fs[i]->min, fs[i]->median, fs[i]->max,
                           fs[i]->nprocs };
         if (pass == 0) {
            table_measure(&t, v);
            continue;
         }
         table_cells(o, &t, v);
         put_fn(o, p, fs[i]->fn, 0);
         outbuf_str(o, "\n");
      }
   }
   outbuf_str(o, "\n");

   for (k = 0; k < r.noutliers; k++) {
      const pl_outlier *ol = &r.outliers[k];
      const pl_process *pr = &p->procs[ol->proc];
      size_t nr = ol->nreasons;
      if (opt->top && nr > opt->top)
         nr = (size_t)opt->top;
      table_init(&t, 2);
      table_col(&t, 0, "Calls", 0, 0);
      table_col(&t, 1, "Majority", 0, 0);
      for (i = 0; i < nr; i++) {
         uint64_t v[2] = { ol->reasons[i].calls, ol->reasons[i].median };
         table_measure(&t, v);
      }
      outbuf_str(o, RULE);
      outbuf_str(o, "Outlier ");
      put_name(o, pl_ranks_proc_name(p, &r, ol->proc, name, sizeof name));
      outbuf_str(o, " (pid ");
      put_name(o, pr->pid);
      outbuf_printf(o, ", class %zu): %zu difference%s", ol->cls + 1,
                    ol->nreasons, ol->nreasons == 1 ? "" : "s");
      if (nr < ol->nreasons)
         outbuf_printf(o, ", %zu shown", nr);
      outbuf_str(o, "\n");
      table_head(o, &t, "difference: function [object]");
      for (i = 0; i < nr; i++) {
         uint64_t v[2] = { ol->reasons[i].calls, ol->reasons[i].median };
         table_cells(o, &t, v);
         put_reason(o, p, &ol->reasons[i]);
         outbuf_str(o, "\n");
      }
      outbuf_str(o, "\n");
   }
   free(fs);
   pl_ranks_free(&r);
   return 0;
}

/* What pl_groups_free frees of one group. */
static void free_group(pl_group *g)
{
   free(g->name);
   free(g->members);
   pl_graph_free(&g->g);
}

/* The whole report.  0, 2 for a --group beyond the groups (message
   printed), or -1 if out of memory. */
static int write_report(outbuf *o, const pl_program *p, const options *opt,
                        const read_info *ri)
{
   pl_graph total;
   pl_group *gs = NULL;
   size_t ngroups = 0, i;
   report r;
   char label[64];
   int ret = -1;

   memset(&r, 0, sizeof r);
   memset(&total, 0, sizeof total);
   if (pl_program_total(p, &total) < 0)
      return -1;
   if (opt->group_by >= 0) {
      size_t k = 0;
      if (pl_program_group(p, opt->group_by, &gs, &ngroups) < 0)
         goto out;
      /* a process without selected threads is no group */
      for (i = 0; i < ngroups; i++) {
         if (gs[i].nmembers > 0)
            gs[k++] = gs[i];
         else
            free_group(&gs[i]);
      }
      ngroups = k;
   }
   if (opt->group > ngroups) {
      char what[96];
      snprintf(what, sizeof what, "--group=%" PRIu64 ": there %s only %zu "
               "group%s by %s", opt->group, ngroups == 1 ? "is" : "are",
               ngroups, ngroups == 1 ? "" : "s",
               group_kind_name(opt->group_by));
      ret = pl_usage_error(PROG, what, NULL);
      goto out;
   }
   r.p = p;
   r.opt = opt;
   r.g = opt->group ? &gs[opt->group - 1].g : &total;
   if (opt->group)
      snprintf(label, sizeof label, "GROUP %" PRIu64 " TOTALS", opt->group);
   else
      snprintf(label, sizeof label, "PROGRAM TOTALS");

   r.nfns = r.g->nfns;
   r.fns = malloc((r.nfns ? r.nfns : 1) * sizeof *r.fns);
   r.callers = malloc((r.g->nedges ? r.g->nedges : 1) * sizeof *r.callers);
   if (!r.fns || !r.callers)
      goto out;
   for (i = 0; i < r.nfns; i++)
      r.fns[i] = &r.g->fns[i];
   for (i = 0; i < r.g->nedges; i++)
      r.callers[i] = &r.g->edges[i];
   qsort(r.callers, r.g->nedges, sizeof *r.callers, by_callee);

   if (write_header(o, p, opt, ri, ngroups,
                    opt->group ? &gs[opt->group - 1] : NULL) < 0)
      goto out;
   if (opt->group_by >= 0)
      write_groups(o, p, &total, gs, ngroups);
   write_totals(o, r.g, label);
   if (write_objects(&r, o) < 0 || write_list(&r, o, 0) < 0
       || write_list(&r, o, 1) < 0)
      goto out;
   /* the program across its ranks: for the whole program only */
   if (!opt->group && opt->ranks != RANKS_NO && write_ranks(o, p, opt) < 0)
      goto out;
   ret = 0;
out:
   free(r.fns);
   free(r.callers);
   pl_groups_free(gs, ngroups);
   pl_graph_free(&total);
   return ret;
}

/* ---- Command line ------------------------------------------------------- */

static void usage(FILE *f)
{
   fprintf(f,
      "usage: " PROG " [OPTION]... TRACE...\n"
      "Report on ParLoT traces (valgrind --tool=parlot) in the manner of\n"
      "callgrind_annotate: program totals, calls per object, and the\n"
      "functions by calls and by inclusive events.\n"
      "\n"
      "options:\n"
      "  -o, --output=FILE    write to FILE instead of standard output\n"
      "      --tree=KIND      also show each function's callers (caller),\n"
      "                       callees (calling), both, or none (default)\n"
      "      --threshold=PCT  list functions by calls until they account\n"
      "                       for PCT%% of all calls, and those whose\n"
      "                       inclusive events exceed (100-PCT)%% of all\n"
      "                       events (default 99; 100 lists all)\n"
      "      --top=N          list at most N functions (0: no limit)\n"
      "      --select=SPEC    read only these processes/threads; SPEC is a\n"
      "                       comma-separated list of PID, PID:N, PID:N-M,\n"
      "                       *:N (thread numbers); may be repeated\n"
      "      --group-by=KIND  list groups of threads: process, graph\n"
      "                       (identical call graphs), shape (same edges)\n"
      "      --group=N        report on group N only (default grouping:\n"
      "                       process)\n"
      "      --no-demangle    print C++ function names as recorded (mangled)\n"
      "      --ranks=WHEN     the program across its ranks (processes):\n"
      "                       calls per rank and the outlier ranks; auto\n"
      "                       (default: with 2 or more), yes, no\n"
      "  -j, --jobs=N         read traces with N threads (default: one per\n"
      "                       core); the report is the same\n"
      "  -h, --help           show this help and exit\n"
      "  -V, --version        show the version and exit\n"
      "\n"
      "Inclusive events of a function: the calls and returns while it was\n"
      "on the stack.  On --tree lines, both columns are inclusive: for the\n"
      "calls along that edge, the calls and the events from each call to\n"
      "its return.\n"
      "\n"
      "A damaged or truncated trace is reported as far as it could be read,\n"
      "then named on standard error as \"FILE: offset N: message\".\n"
      "Exit status: 0 if all traces were complete and valid, 1 on bad data\n"
      "or an output error, 2 on a usage error.\n");
}

static int parse_tree(const char *s, int *tree)
{
   static const char *const names[] = { "none", "caller", "calling",
                                        "both" };
   int i;
   for (i = 0; i < 4; i++)
      if (strcmp(s, names[i]) == 0) {
         *tree = i;
         return 0;
      }
   return -1;
}

static int parse_group_by(const char *s, int *kind)
{
   size_t i;
   for (i = 0; i < NGROUP_KINDS; i++)
      if (strcmp(s, group_kinds[i].name) == 0) {
         *kind = group_kinds[i].kind;
         return 0;
      }
   return -1;
}

/* PCT: 0 to 100, at most two decimals, an optional '%'; in hundredths. */
static int parse_threshold(const char *s, unsigned *h)
{
   unsigned v = 0, frac = 0, scale = 100;
   int digits = 0;

   for (; *s >= '0' && *s <= '9'; s++, digits++) {
      v = v * 10 + (unsigned)(*s - '0');
      if (v > 100)
         return -1;
   }
   if (*s == '.') {
      int d = 0;
      for (s++; *s >= '0' && *s <= '9'; s++, d++) {
         if (d == 2)
            return -1;
         scale /= 10;
         frac += (unsigned)(*s - '0') * scale;
      }
      if (d == 0)
         return -1;
      digits += d;
   }
   if (*s == '%')
      s++;
   if (*s || digits == 0 || v * 100 + frac > PCT_SCALE)
      return -1;
   *h = v * 100 + frac;
   return 0;
}

static int add_select(options *opt, const char *spec, char *why,
                      size_t whylen)
{
   size_t old = opt->select_text ? strlen(opt->select_text) : 0;
   char *t;
   if (pl_select_parse(&opt->select, spec, why, whylen) < 0)
      return -1;
   t = realloc(opt->select_text, old + strlen(spec) + 2);
   if (!t) {
      snprintf(why, whylen, "out of memory");
      return -1;
   }
   if (old)
      t[old++] = ',';
   strcpy(t + old, spec);
   opt->select_text = t;
   return 0;
}

static void free_options(options *opt)
{
   pl_select_free(&opt->select);
   free(opt->select_text);
}

/* pl_program_read_files's hooks: returns are counted per file (files
   may be read at once by several threads), then added up in order. */
typedef struct {
   read_info *ri;
   uint64_t  *returns;     /* [file] */
   pl_progress *progress;
   int        status;
} read_state;

static int read_visitor(void *ctx, size_t i, pl_visitor *v)
{
   read_state *rs = ctx;
   v->ctx = &rs->returns[i];
   v->events = count_returns;
   return 0;
}

static void read_done(void *ctx, size_t i, const char *path, int r,
                      const pl_error *err)
{
   read_state *rs = ctx;
   rs->ri->returns += rs->returns[i];
   if (r != 0) {
      pl_progress_clear(rs->progress);
      pl_report(PROG, path, err);
      rs->status = PL_EXIT_DATA;
      if (r < 0)
         rs->ri->unreadable++;
      else
         rs->ri->damaged++;
   }
}

/* Read every trace into p; the exit status so far (0 or 1). */
static int read_traces(pl_program *p, const options *opt,
                       const pl_input *in, size_t n, read_info *ri)
{
   pl_read_hooks h;
   read_state rs;

   memset(&rs, 0, sizeof rs);
   rs.ri = ri;
   rs.returns = calloc((size_t)n + 1, sizeof *rs.returns);
   rs.progress = pl_progress_new(PROG, (size_t)n);
   p->progress = pl_progress_hooks_of(rs.progress);
   h.ctx = &rs;
   h.visitor = read_visitor;
   h.done = read_done;
   if (!rs.returns
       || pl_program_read_files(p, in, n, &opt->select,
                                opt->jobs ? opt->jobs : pl_jobs_default(),
                                &h) < 0) {
      pl_progress_clear(rs.progress);
      fprintf(stderr, PROG ": out of memory\n");
      rs.status = PL_EXIT_DATA;
   }
   free(rs.returns);
   pl_progress_free(rs.progress);
   p->progress = NULL;
   return rs.status;
}

int main(int argc, char **argv)
{
   enum { OPT_TREE = 0x100, OPT_THRESHOLD, OPT_TOP, OPT_SELECT, OPT_GROUP_BY,
          OPT_GROUP, OPT_NO_DEMANGLE, OPT_RANKS };
   static const struct option longopts[] = {
      { "output", required_argument, NULL, 'o' },
      { "help", no_argument, NULL, 'h' },
      { "version", no_argument, NULL, 'V' },
      { "tree", required_argument, NULL, OPT_TREE },
      { "threshold", required_argument, NULL, OPT_THRESHOLD },
      { "top", required_argument, NULL, OPT_TOP },
      { "select", required_argument, NULL, OPT_SELECT },
      { "group-by", required_argument, NULL, OPT_GROUP_BY },
      { "group", required_argument, NULL, OPT_GROUP },
      { "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
      { "jobs", required_argument, NULL, 'j' },
      { "ranks", required_argument, NULL, OPT_RANKS },
      { NULL, 0, NULL, 0 }
   };
   const char *out_path = NULL;
   int group_by_given = 0, status, c, w;
   options opt;
   pl_program prog;
   read_info ri;
   outbuf out;
   pl_inputs inputs;
   char **names;
   size_t k;
   int bad;
   char why[256];

   memset(&opt, 0, sizeof opt);
   opt.group_by = -1;
   opt.threshold = 99 * 100;
   opt.demangle = 1;
   opterr = 0;
   while ((c = getopt_long(argc, argv, ":o:j:hV", longopts, NULL)) != -1) {
      switch (c) {
      case 'o':
         out_path = optarg;
         break;
      case OPT_TREE:
         if (parse_tree(optarg, &opt.tree) < 0) {
            free_options(&opt);
            return pl_usage_error(PROG, "--tree wants none, caller, calling "
                                  "or both, not", optarg);
         }
         break;
      case OPT_THRESHOLD:
         if (parse_threshold(optarg, &opt.threshold) < 0) {
            free_options(&opt);
            return pl_usage_error(PROG, "--threshold wants a percentage "
                                  "from 0 to 100, not", optarg);
         }
         break;
      case OPT_TOP:
         if (pl_parse_u64(optarg, &opt.top) < 0) {
            free_options(&opt);
            return pl_usage_error(PROG, "--top wants a number, not", optarg);
         }
         break;
      case OPT_SELECT:
         if (add_select(&opt, optarg, why, sizeof why) < 0) {
            free_options(&opt);
            return pl_usage_error(PROG, why, NULL);
         }
         break;
      case OPT_GROUP_BY:
         if (parse_group_by(optarg, &opt.group_by) < 0) {
            free_options(&opt);
            return pl_usage_error(PROG, "--group-by wants process, graph, "
                                  "shape or none, not", optarg);
         }
         group_by_given = 1;
         break;
      case OPT_GROUP:
         if (pl_parse_u64(optarg, &opt.group) < 0 || opt.group == 0) {
            free_options(&opt);
            return pl_usage_error(PROG, "--group wants a group number (1, "
                                  "2, ...), not", optarg);
         }
         break;
      case OPT_NO_DEMANGLE:
         opt.demangle = 0;
         break;
      case OPT_RANKS:
         if (strcmp(optarg, "auto") == 0)
            opt.ranks = RANKS_AUTO;
         else if (strcmp(optarg, "yes") == 0)
            opt.ranks = RANKS_YES;
         else if (strcmp(optarg, "no") == 0)
            opt.ranks = RANKS_NO;
         else {
            free_options(&opt);
            return pl_usage_error(PROG, "--ranks wants auto, yes or no, not",
                                  optarg);
         }
         break;
      case 'j':
         if (pl_jobs_parse(optarg, &opt.jobs) < 0) {
            free_options(&opt);
            return pl_usage_error(PROG, "--jobs wants a number, not", optarg);
         }
         break;
      case 'h':
         free_options(&opt);
         usage(stdout);
         return fflush(stdout) == 0 ? 0 : PL_EXIT_DATA;
      case 'V':
         free_options(&opt);
         return pl_print_version(PROG, PACKAGE_VERSION);
      case ':':
         free_options(&opt);
         return pl_usage_error(PROG, "option needs an argument:",
                               argv[optind - 1]);
      default:
         free_options(&opt);
         if (strncmp(argv[optind - 1], "--", 2) != 0 && optopt > 0
             && optopt < 0x80) {
            char o[3] = { '-', (char)optopt, 0 };
            return pl_usage_error(PROG, "unknown option", o);
         }
         return pl_usage_error(PROG, "unknown option", argv[optind - 1]);
      }
   }
   if (opt.group) {
      if (!group_by_given)
         opt.group_by = PL_GROUP_PROCESS;
      else if (opt.group_by < 0) {
         free_options(&opt);
         return pl_usage_error(PROG, "--group needs groups, not "
                               "--group-by=none", NULL);
      }
   }
   if (optind == argc) {
      free_options(&opt);
      return pl_usage_error(PROG, "no trace file given", NULL);
   }
   status = pl_output_open(PROG, &out, out_path, argv + optind,
                           argc - optind);
   if (status != 0) {
      free_options(&opt);
      return status;
   }

   /* archives stand for their members: the traces are those */
   memset(&ri, 0, sizeof ri);
   memset(&inputs, 0, sizeof inputs);
   bad = pl_cli_inputs(PROG, &inputs, argv + optind, argc - optind);
   names = malloc((inputs.n ? inputs.n : 1) * sizeof *names);
   if (bad < 0 || !names || inputs.n > INT_MAX) {
      if (bad >= 0)
         fprintf(stderr, PROG ": out of memory\n");
      free(names);
      pl_inputs_free(&inputs);
      free_options(&opt);
      pl_output_close(PROG, &out);
      return PL_EXIT_DATA;
   }
   for (k = 0; k < inputs.n; k++)
      names[k] = inputs.v[k].name;
   ri.nfiles = (int)inputs.n + bad;
   ri.unreadable = bad;
   ri.files = names;
   pl_program_init(&prog, opt.demangle);
   status = read_traces(&prog, &opt, inputs.v, inputs.n, &ri);
   if (bad)
      status = PL_EXIT_DATA;
   w = write_report(&out, &prog, &opt, &ri);
   if (w < 0) {
      fprintf(stderr, PROG ": out of memory\n");
      status = PL_EXIT_DATA;
   } else if (w > 0) {
      status = w;
   }
   pl_program_free(&prog);
   free(names);
   pl_inputs_free(&inputs);
   free_options(&opt);
   if (pl_output_close(PROG, &out) != 0)
      return PL_EXIT_DATA;
   return status;
}
