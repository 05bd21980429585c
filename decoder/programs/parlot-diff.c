/* SPDX-License-Identifier: MIT */
/* parlot-diff: compare the ordered calls of two runs, thread by thread.

   A and B are each a trace, an archive or a directory of traces.  The
   threads are paired (run_threads.h), each pair's lines are compared in
   step (diff_pair.h), and a summary ends the output: pairs identical and
   different, threads only one run has, the ranks that differ and the
   functions whose call counts differ.  Exit status as diff(1): 0 the runs
   are alike, 1 they differ, 2 trouble (a usage error, a bad or damaged
   trace, nothing to compare: filters that leave no call are no answer). */

#ifdef HAVE_CONFIG_H
#  include "config.h"
#endif

#define _FILE_OFFSET_BITS 64
#define _XOPEN_SOURCE 700

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "call_numbers.h"
#include "diff_pair.h"
#include "diff_report.h"
#include "pl_alloc.h"
#include "pl_archive.h"
#include "pl_cli.h"
#include "pl_hash.h"
#include "pl_modes.h"
#include "pl_outbuf.h"
#include "pl_outliers.h"
#include "pl_parallel.h"
#include "pl_program.h"
#include "pl_runtime.h"
#include "pl_progress.h"
#include "pl_view.h"
#include "run_threads.h"
#include "trace_labels.h"

#ifndef PACKAGE_VERSION
#  define PACKAGE_VERSION "dev"
#endif

#define PROG "parlot-diff"

enum { EXIT_SAME = 0, EXIT_DIFFER = 1, EXIT_TROUBLE = 2 };

typedef struct {
   pl_select  select;
   pl_filter *filter;
   size_t     window;        /* --loops: longest body; 0 = no loops */
   int        demangle;
   diff_opts  diff;
   int        within;        /* --within: one run against itself */
   int        xml;           /* --xml */
   unsigned   jobs;          /* -j: threads; more than 1: each side of a
                                pair decoded in a thread of its own */
   const char *out_path;
} options;

/* The status line on a terminal while pairs are compared (the pairs
   are its "files"); NULL when not shown. */
static pl_progress *progress;

static void report(const char *name, const pl_error *e)
{
   pl_progress_clear(progress);
   pl_report(PROG, name, e);
}

/* ---- One run: its inputs, threads and the trace being read ------------- */

typedef struct {
   const char  *path;          /* as given */
   pl_inputs    in;
   run_threads  threads;
   /* the trace of the last pair, kept open for the next one */
   size_t       open_input;    /* (size_t)-1: none */
   pl_trace    *t;
   uint8_t     *keep;
   trace_labels nm;
   uint64_t    *ident;
   uint64_t    *calls;
} run;

/* Per function identity, its shown calls in A and B (the summary). */
typedef struct {
   uint64_t ident;
   char    *label;
   uint64_t calls[2];
} fn_total;

typedef struct {
   fn_total *v;               /* open addressing, ident 0 = empty */
   size_t    n, cap;          /* cap a power of two */
} fn_totals;

/* The identity of a function across runs: its name, and its object's
   file name unless it is the main executable (two builds of a program
   have different names, their libraries the same) or the function is
   MPI's interface (one run under MPICH, the other under Open MPI: the
   standard's names, in libmpich.so.12 and in libmpi.so.40), known by its
   label (nm: the Fortran bindings' aliases, MPI_COMM_SIZE in one library
   and mpi_comm_size in another, are MPI_Comm_size). */
static uint64_t identity(const pl_trace *t, uint32_t id, uint32_t main_obj,
                         const trace_labels *nm)
{
   const pl_function *f = pl_trace_function(t, id);
   const char *obj = "", *name = f->name.str, *slash;
   uint64_t h;

   if (pl_runtime_mpi_interface(name))
      name = trace_label(nm, id);
   else if (f->obj != main_obj) {
      obj = pl_trace_object(t, f->obj)->str;
      slash = strrchr(obj, '/');
      obj = slash ? slash + 1 : obj;
   }
   h = pl_fnv1a(PL_FNV1A_INIT, name, strlen(name) + 1);
   h = pl_fnv1a(h, obj, strlen(obj));
   return h ? h : 1;
}

static fn_total *total_of(fn_totals *tt, uint64_t ident)
{
   size_t i, mask;

   if (2 * (tt->n + 1) > tt->cap) {
      size_t cap = tt->cap ? 2 * tt->cap : 1024;
      fn_total *v = calloc(cap, sizeof *v);
      if (!v)
         return NULL;
      for (i = 0; i < tt->cap; i++)
         if (tt->v[i].ident) {
            size_t s = (size_t)(tt->v[i].ident * PL_GOLDEN64) & (cap - 1);
            while (v[s].ident)
               s = (s + 1) & (cap - 1);
            v[s] = tt->v[i];
         }
      free(tt->v);
      tt->v = v;
      tt->cap = cap;
   }
   mask = tt->cap - 1;
   for (i = (size_t)(ident * PL_GOLDEN64) & mask; tt->v[i].ident;
        i = (i + 1) & mask)
      if (tt->v[i].ident == ident)
         return &tt->v[i];
   tt->v[i].ident = ident;
   tt->n++;
   return &tt->v[i];
}

/* Add the calls counted in r's open trace to side `side` of tt. */
static int flush_calls(run *r, int side, fn_totals *tt)
{
   uint32_t id, n;
   if (!r->t)
      return 0;
   n = pl_trace_nfunctions(r->t);
   for (id = 1; id <= n; id++) {
      fn_total *e;
      if (!r->calls[id])
         continue;
      e = total_of(tt, r->ident[id]);
      if (!e || (!e->label && !(e->label = strdup(trace_label(&r->nm, id)))))
         return -1;
      e->calls[side] += r->calls[id];
      r->calls[id] = 0;
   }
   return 0;
}

static void close_trace(run *r)
{
   pl_trace_close(r->t);
   trace_labels_free(&r->nm);
   free(r->keep);
   free(r->ident);
   free(r->calls);
   r->t = NULL;
   r->keep = NULL;
   r->ident = r->calls = NULL;
   r->open_input = (size_t)-1;
}

/* Make input i of r the open trace.  0, or -1 with *err filled. */
static int open_trace(run *r, int side, size_t i, const options *o,
                      fn_totals *tt, pl_error *err)
{
   uint32_t n, id, main_obj;

   if (r->open_input == i)
      return 0;
   if (flush_calls(r, side, tt) < 0)
      goto oom;
   close_trace(r);
   r->t = pl_input_open(&r->in.v[i], err);
   if (!r->t)
      return -1;
   r->open_input = i;
   n = pl_trace_nfunctions(r->t);
   main_obj = pl_main_object(r->t);
   r->keep = pl_filter_functions(o->filter, r->t, o->demangle);
   r->ident = malloc(((size_t)n + 1) * sizeof *r->ident);
   r->calls = calloc((size_t)n + 1, sizeof *r->calls);
   if (!r->keep || !r->ident || !r->calls
       || trace_labels_load(&r->nm, r->t, o->demangle) < 0)
      goto oom;
   r->ident[0] = 0;
   for (id = 1; id <= n; id++) {
      r->ident[id] = identity(r->t, id, main_obj, &r->nm);
      /* how often a rank polls is the timing's: in the program's view the
         calls compared leave MPI's polls out (--images=all keeps them) */
      if (pl_filter_program_view(o->filter)
          && pl_runtime_mpi_poll(pl_trace_function(r->t, id)->name.str))
         r->keep[id] = PL_KEEP_NO;
   }
   return 0;
oom:
   pl_error_set(err, 0, "out of memory");
   return -1;
}

/* ---- Comparing ----------------------------------------------------------- */

/* Whether thread t of run r shows no event at all in the program's view:
   1, 0 (it shows some, or the view is not the program's), -1 after
   reporting an error. */
static int shows_nothing(run *r, int side, const run_thread *t,
                         const options *o, fn_totals *tt)
{
   const pl_vevent *ev;
   pl_error err;
   pl_view *v;
   long n;

   if (!pl_filter_program_view(o->filter))
      return 0;
   if (open_trace(r, side, t->input, o, tt, &err) < 0
       || !(v = pl_view_open(r->t, t->index, o->filter, r->keep, &err))) {
      report(r->in.v[t->input].name, &err);
      return -1;
   }
   pl_view_skip_costs(v);
   n = pl_view_next(v, &ev, &err);
   pl_view_close(v);
   if (n < 0) {
      report(r->in.v[t->input].name, &err);
      return -1;
   }
   return n == 0;
}

typedef struct {
   size_t     same, differ, only[2];
   uint64_t   lines;          /* lines compared in all pairs */
   size_t     library_only;   /* threads one run has that show nothing in
                                 the program's view: not compared */
   thread_key *differing;     /* threads of A that differ */
   size_t     ndiffering, differing_cap;
   size_t     endings;        /* process pairs that ended differently */
   size_t     ending_a, ending_b;   /* the inputs compared last: +1 */
   int        trouble;
} tally;

/* How the processes of a pair of threads ended, once per pair of inputs:
   a different ending (exit status, fatal signal, cut short; not which
   thread a signal was delivered to) is a difference of the runs. */
static void compare_endings(run *ra, run *rb, const run_thread *ta,
                            const run_thread *tb, diff_report *rep, tally *ty)
{
   pl_ending ea, eb;
   char a[128], b[128], label[80];

   if (ty->ending_a == ta->input + 1 && ty->ending_b == tb->input + 1)
      return;
   ty->ending_a = ta->input + 1;
   ty->ending_b = tb->input + 1;
   pl_trace_ending(ra->t, &ea);
   pl_trace_ending(rb->t, &eb);
   if (pl_ending_same(&ea, &eb))
      return;
   pl_ending_text(&ea, a, sizeof a);
   pl_ending_text(&eb, b, sizeof b);
   if (ta->rank)
      snprintf(label, sizeof label, "rank %s", ta->rank);
   else
      snprintf(label, sizeof label, "pid %s", ta->pid);
   rep->ending(rep, label, a, b);
   ty->endings++;
}

/* Read the rest of a side's lines (their calls count in the summary). */
static int drain(thread_lines *s, pl_error *err)
{
   const pl_line *l;
   int r;
   while ((r = thread_lines_next(s, &l, err)) > 0)
      ;
   return r;
}

static int compare_pair(run *ra, run *rb, const run_thread *ta,
                        const run_thread *tb, const options *o,
                        fn_totals *tt, diff_report *rep, tally *ty)
{
   thread_lines la, lb;
   diff_side a = { .src = &la }, b = { .src = &lb };
   diff_result res;
   pl_error err;
   char title[200];
   int r;

   if (open_trace(ra, 0, ta->input, o, tt, &err) < 0) {
      report(ra->in.v[ta->input].name, &err);
      return -1;
   }
   if (open_trace(rb, 1, tb->input, o, tt, &err) < 0) {
      report(rb->in.v[tb->input].name, &err);
      return -1;
   }
   if (thread_lines_open(&la, ra->t, ta->index, o->filter, ra->keep,
                         o->window, ra->calls, &err) < 0) {
      report(ra->in.v[ta->input].name, &err);
      return -1;
   }
   if (thread_lines_open(&lb, rb->t, tb->index, o->filter, rb->keep,
                         o->window, rb->calls, &err) < 0) {
      report(rb->in.v[tb->input].name, &err);
      thread_lines_close(&la);
      return -1;
   }
   /* the sides decode while the pair is compared (else here) */
   if (o->jobs > 1) {
      thread_lines_read_ahead(&la);
      thread_lines_read_ahead(&lb);
   }
   /* the status line follows A's side */
   pl_progress_file(progress, ta->label);
   pl_progress_thread(progress, 0, 1,
                      pl_trace_stream_bytes(ra->t, ta->index));
   la.progress = pl_progress_hooks_of(progress);
   if (o->diff.align_marks) {
      thread_lines_marks(&la, ra->t, ta->index, o->filter);
      thread_lines_marks(&lb, rb->t, tb->index, o->filter);
   }
   compare_endings(ra, rb, ta, tb, rep, ty);
   a.nm = &ra->nm;
   a.ident = ra->ident;
   a.keep = ra->keep;
   a.marks = pl_trace_marks(ra->t, ta->index, &a.nmarks);
   b.nm = &rb->nm;
   b.ident = rb->ident;
   b.keep = rb->keep;
   b.marks = pl_trace_marks(rb->t, tb->index, &b.nmarks);
   a.stopped = ta->stopped;
   b.stopped = tb->stopped;
   if (o->within)
      snprintf(title, sizeof title, "%s against %s", tb->label, ta->label);
   else if (strcmp(ta->label, tb->label) == 0)
      snprintf(title, sizeof title, "%s", ta->label);
   else
      snprintf(title, sizeof title, "%s (A) and %s (B)", ta->label,
               tb->label);
   r = diff_pair(rep, title, ta->label, tb->label, &a, &b, &o->diff, &res,
                 &err);
   if (r < 0)
      report(res.bad_side ? rb->in.v[tb->input].name
                          : ra->in.v[ta->input].name, &err);
   else if (drain(&la, &err) < 0) {
      report(ra->in.v[ta->input].name, &err);
      r = -1;
   } else if (drain(&lb, &err) < 0) {
      report(rb->in.v[tb->input].name, &err);
      r = -1;
   }
   thread_lines_close(&la);
   thread_lines_close(&lb);
   if (r < 0)
      return -1;
   ty->lines += res.lines_a + res.lines_b + res.hunks;
   if (res.hunks == 0) {
      ty->same++;
      return 0;
   }
   ty->differ++;
   if (pl_grow(&ty->differing, &ty->differing_cap, ty->ndiffering + 1,
               sizeof *ty->differing) < 0)
      return -1;
   {
      const run_thread *t = o->within ? tb : ta;   /* not the reference */
      thread_key_set(&ty->differing[ty->ndiffering++], t->pid, t->rank,
                     t->number);
   }
   return 0;
}

/* ---- Summary ------------------------------------------------------------- */

static int by_change(const void *x, const void *y)
{
   const fn_total *a = *(const fn_total *const *)x;
   const fn_total *b = *(const fn_total *const *)y;
   uint64_t da = a->calls[0] > a->calls[1] ? a->calls[0] - a->calls[1]
                                           : a->calls[1] - a->calls[0];
   uint64_t db = b->calls[0] > b->calls[1] ? b->calls[0] - b->calls[1]
                                           : b->calls[1] - b->calls[0];
   if (da != db)
      return da > db ? -1 : 1;
   return strcmp(a->label, b->label);
}

/* 0, or -1 if out of memory. */
static int put_summary(diff_report *rep, tally *ty, const fn_totals *tt)
{
   const fn_total **v = malloc((tt->n + 1) * sizeof *v);
   size_t i, n = 0;

   if (!v)
      return -1;
   for (i = 0; i < tt->cap; i++)
      if (tt->v[i].ident && tt->v[i].calls[0] != tt->v[i].calls[1])
         v[n++] = &tt->v[i];
   qsort(v, n, sizeof *v, by_change);
   if (rep->summary(rep, ty->same, ty->differ, ty->only[0], ty->only[1],
                    ty->differing, ty->ndiffering, n, ty->lines,
                    ty->library_only, ty->endings) < 0) {
      free(v);
      return -1;
   }
   for (i = 0; i < n; i++)
      rep->function(rep, v[i]->label, v[i]->calls[0], v[i]->calls[1]);
   free(v);
   return 0;
}

/* ---- Costs ---------------------------------------------------------------- */

#define COST_ROWS 10     /* functions listed whose instructions changed most */

/* A function's instructions in A and B, by identity (pl_paths.h);
   --within, in a thread and its reference. */
typedef struct {
   uint64_t    ident;
   char       *label;       /* A's label, else B's (malloc'ed) */
   uint64_t    self[2], incl[2];
   const char *thread, *ref;   /* --within: the pair's labels, else NULL */
} fn_cost;

/* The functions' costs of the threads walked so far (side_rows): two
   runs, each function's rows of both sides combined (combine_rows, at
   the end changed_rows); --within, each pair's COST_ROWS largest
   changes.  Their instructions in all, and
   outside MPI calls (whose instructions, an MPI library polling while it
   waits, depend on timing: a rank that waits for a slow one polls more),
   A's and B's; mpi: some thread made MPI calls. */
typedef struct {
   fn_cost *v;
   size_t   n, cap;
   uint64_t all[2], outside[2];
   int      mpi;
   int      walked;           /* a pair or thread was */
   size_t   cut;              /* pairs counted up to where one side
                                 stopped (pair_side.stop) */
} fn_rows;

/* By identity, A's side first (a stable order for the join). */
static int by_ident(const void *x, const void *y)
{
   const fn_cost *a = x, *b = y;
   int in_a = a->incl[0] || a->self[0], in_b = b->incl[0] || b->self[0];
   if (a->ident != b->ident)
      return a->ident < b->ident ? -1 : 1;
   return in_b - in_a;
}

static uint64_t abs_change(const uint64_t v[2])
{
   return v[0] > v[1] ? v[0] - v[1] : v[1] - v[0];
}

/* By the change of self instructions, where they changed (else main, the
   loop and the step around the function that changed would all come
   first, with the same inclusive change), then of inclusive ones. */
static int by_cost_change(const void *x, const void *y)
{
   const fn_cost *a = x, *b = y;
   uint64_t da = abs_change(a->self), db = abs_change(b->self);
   if (da != db)
      return da > db ? -1 : 1;
   da = abs_change(a->incl);
   db = abs_change(b->incl);
   if (da != db)
      return da > db ? -1 : 1;
   return strcmp(a->label, b->label);
}

/* v's rows of one function (by identity) made one, A's label kept: the
   number left. */
static size_t combine_rows(fn_cost *v, size_t n)
{
   size_t i, k;
   if (n)
      qsort(v, n, sizeof *v, by_ident);
   for (i = 0, k = 0; i < n; i++) {
      if (k > 0 && v[k - 1].ident == v[i].ident) {
         for (int side = 0; side < 2; side++) {
            v[k - 1].self[side] += v[i].self[side];
            v[k - 1].incl[side] += v[i].incl[side];
         }
         free(v[i].label);
         continue;
      }
      v[k++] = v[i];
   }
   return k;
}

/* v's rows combined, those whose inclusive instructions did not change
   left out (they are no changes), the rest by change: the number left. */
static size_t changed_rows(fn_cost *v, size_t n)
{
   size_t i, k;
   n = combine_rows(v, n);
   for (i = 0, k = 0; i < n; i++)
      if (v[i].incl[0] != v[i].incl[1])
         v[k++] = v[i];
      else
         free(v[i].label);
   if (k)
      qsort(v, k, sizeof *v, by_cost_change);
   return k;
}

static void fn_rows_free(fn_rows *fr)
{
   for (size_t i = 0; i < fr->n; i++)
      free(fr->v[i].label);
   free(fr->v);
}

/* ---- Costs per call ---- */

#define CALLS_MAX 1024   /* a function called more often in a thread (not a
                            loop's step) is not compared call by call, nor
                            one called once */

/* A call that returned: where it was, a hash of its path in the program's
   terms (from the thread's first shown frame, each frame's function
   identity and its number among its caller's calls of it: "main >
   conj_grad #8 > matvec #3", as the differences' headers say), and its
   inclusive instructions. */
typedef struct {
   uint64_t where, incl;
} call_at;

/* A function's calls in one thread (side A), sorted by where. */
typedef struct {
   uint32_t n;
   int      over;           /* more than CALLS_MAX */
   call_at *v;
} fn_calls;

/* One of the calls that changed most. */
typedef struct {
   char     *thread, *name, *path;  /* the function; where its call was */
   char     *ref;                   /* --within: thread's reference */
   uint64_t  number, incl[2];       /* number: among its caller's calls */
} call_change;

typedef struct {
   call_change v[COST_ROWS];
   size_t      n;
} call_changes;

static uint64_t change_of(const uint64_t incl[2])
{
   return incl[0] > incl[1] ? incl[0] - incl[1] : incl[1] - incl[0];
}

/* Whether a change of incl would enter cc. */
static int worth_keeping(const call_changes *cc, const uint64_t incl[2])
{
   uint64_t d = change_of(incl);
   return d != 0 && (cc->n < COST_ROWS
                     || d > change_of(cc->v[COST_ROWS - 1].incl));
}

static void free_change(call_change *c)
{
   free(c->thread);
   free(c->ref);
   free(c->name);
   free(c->path);
}

/* Keep a change among the COST_ROWS largest, largest first; path is
   taken (freed if not kept); ref: the thread's reference (--within), or
   NULL.  0, or -1 if out of memory. */
static int keep_change(call_changes *cc, const char *thread, const char *ref,
                       const char *name, char *path, uint64_t number,
                       const uint64_t incl[2])
{
   uint64_t d = change_of(incl);
   size_t i = cc->n;
   if (!path)
      return -1;
   if (!worth_keeping(cc, incl)) {
      free(path);
      return 0;
   }
   if (cc->n == COST_ROWS) {
      i = COST_ROWS - 1;
      free_change(&cc->v[i]);
   } else {
      cc->n++;
   }
   for (; i > 0 && change_of(cc->v[i - 1].incl) < d; i--)
      cc->v[i] = cc->v[i - 1];
   cc->v[i].thread = strdup(thread);
   cc->v[i].ref = ref ? strdup(ref) : NULL;
   cc->v[i].name = strdup(name);
   cc->v[i].path = path;
   cc->v[i].number = number;
   cc->v[i].incl[0] = incl[0];
   cc->v[i].incl[1] = incl[1];
   return cc->v[i].thread && cc->v[i].name && (!ref || cc->v[i].ref) ? 0
                                                                     : -1;
}

static void free_calls(fn_calls *fc, uint32_t nfns)
{
   if (!fc)
      return;
   for (uint32_t f = 0; f <= nfns; f++)
      free(fc[f].v);
   free(fc);
}

/* Whether function id of t is the program's own code (pl_runtime.h): not
   a runtime's, whose instructions (an MPI library polling while it
   waits) depend on timing. */
static int own_code(const pl_trace *t, uint32_t id)
{
   const pl_function *f = pl_trace_function(t, id);
   return pl_object_kind(pl_trace_object(t, f->obj)->str) == PL_OBJECT_PROGRAM
          && !pl_runtime_function(f->name.str);
}

/* A function's instructions outside MPI calls in a thread: self, and
   inclusive with recursion counted once (open: its calls open). */
typedef struct {
   uint64_t self, incl;
   uint32_t open;
} fn_tally;

/* One side of a pair: its trace, identities and labels; side A also its
   calls by function; after a walk, its functions' instructions (ft) and
   its totals, as fn_rows'. */
typedef struct {
   pl_trace    *t;
   uint8_t     *keep;
   uint64_t    *ident;
   trace_labels nm;
   uint32_t     nfns;
   fn_calls    *fc;
   fn_tally    *ft;
   uint64_t     all, outside;
   int          mpi;
   uint64_t    *end;         /* after a walk: where its calls still open
                                at its end were, outermost first */
   size_t       nend;
   /* The other side's end (its `end`), where that side was stopped (a
      hang killed, a crash): the walk ends where it opens the innermost
      of those calls, or else closes the innermost it opened, the count
      following the calls open at depths 0 to matched - 1; cut: it did */
   const uint64_t *stop;
   size_t       nstop, matched;
   int          cut;
} pair_side;

/* A walk of a thread's calls through the filters: the open frames, each
   with its function, the instructions of the program's own code and
   those outside MPI calls when it was entered, where it is and its
   number. */
typedef struct {
   uint32_t fn;
   uint64_t start, start_out, where, num;
} open_frame;

typedef struct {
   const pair_side *s;
   open_frame *f;
   size_t      depth, cap;
   uint32_t    in_mpi;      /* MPI calls open */
   call_numbers nums;
} call_walk;

/* Called for each call that returns, the walk's frames still holding it
   on top: 0 to go on, -1 if out of memory. */
typedef int (*call_done)(void *ctx, const call_walk *w, uint64_t incl);

#define FN_OWN 1u        /* the program's own code (own_code) */
#define FN_MPI 2u        /* the MPI interface */

/* The top frame of w returns: its function's inclusive instructions
   outside MPI calls (cum_out now) are counted once, by its outermost
   call. */
static void close_frame(call_walk *w, fn_tally *ft, const uint8_t *kind,
                        uint64_t cum_out)
{
   const open_frame *f = &w->f[--w->depth];
   if (--ft[f->fn].open == 0)
      ft[f->fn].incl += cum_out - f->start_out;
   if (kind[f->fn] & FN_MPI)
      w->in_mpi--;
}

/* Walk thread `index` of side s, calling done for each call that returns
   (done may be NULL), and count s's functions' instructions outside MPI
   calls into s->ft (zeroed first) and its totals.  1 if walked, 0 if the
   thread has no costs or cannot be read, -1 if out of memory. */
static int walk_calls(pair_side *s, size_t index, const options *o,
                      call_done done, void *ctx)
{
   call_walk w = { .s = s };
   uint8_t *kind;
   uint64_t cum = 0, cum_out = 0;
   const pl_vevent *ev;
   pl_error err;
   pl_view *v;
   long n = 0;
   int ret = -1;

   if (!pl_trace_cost_events(s->t, index))
      return 0;
   if (!(kind = malloc((size_t)s->nfns + 1))
       || (!s->ft && !(s->ft = malloc(((size_t)s->nfns + 1) * sizeof *s->ft)))) {
      free(kind);
      return -1;
   }
   memset(s->ft, 0, ((size_t)s->nfns + 1) * sizeof *s->ft);
   s->all = s->outside = 0;
   s->mpi = s->cut = 0;
   free(s->end);
   s->end = NULL;
   s->nend = s->matched = 0;
   for (uint32_t id = 1; id <= s->nfns; id++) {
      const char *name = pl_trace_function(s->t, id)->name.str;
      kind[id] = (uint8_t)((own_code(s->t, id) ? FN_OWN : 0)
                           | (pl_runtime_mpi_interface(name) ? FN_MPI : 0));
   }
   if (!(v = pl_view_open(s->t, index, o->filter, s->keep, &err))) {
      free(kind);
      return strcmp(err.msg, "out of memory") == 0 ? -1 : 0;
   }
   while (!s->cut && (n = pl_view_next(v, &ev, &err)) > 0) {
      const uint64_t *c = pl_view_costs(v);
      for (long i = 0; i < n; i++) {
         /* the event's cost is the frame's on top before it */
         if (c && w.depth > 0) {
            uint32_t top = w.f[w.depth - 1].fn;
            s->all += c[i];
            if (kind[top] & FN_OWN)
               cum += c[i];
            if (!w.in_mpi) {
               cum_out += c[i];
               s->ft[top].self += c[i];
            }
         }
         if (ev[i].kind == PL_EV_CALL) {
            uint64_t up = w.depth ? w.f[w.depth - 1].where : 0;
            uint64_t num = call_numbers_call(&w.nums, ev[i].depth, ev[i].fn);
            uint64_t where = pl_fnv1a_step(pl_fnv1a_step(up, s->ident[ev[i].fn]),
                                           num);
            open_frame *f;
            if (w.depth == s->matched && w.depth < s->nstop
                && where == s->stop[w.depth]) {
               if (++s->matched == s->nstop) {
                  s->cut = 1;
                  break;
               }
            }
            if (pl_grow(&w.f, &w.cap, w.depth + 1, sizeof *w.f) < 0)
               goto out;
            f = &w.f[w.depth++];
            f->fn = ev[i].fn;
            f->start = cum;
            f->start_out = cum_out;
            f->num = num;
            f->where = where;
            s->ft[f->fn].open++;
            if (kind[f->fn] & FN_MPI) {
               w.in_mpi++;
               s->mpi = 1;
            }
         } else if (w.depth > 0) {
            if (done && done(ctx, &w, cum - w.f[w.depth - 1].start) < 0)
               goto out;
            close_frame(&w, s->ft, kind, cum_out);
            if (w.depth + 1 == s->matched) {   /* past the other's end */
               s->cut = 1;
               break;
            }
         }
      }
   }
   if (!s->cut && w.depth) {
      if (!(s->end = malloc(w.depth * sizeof *s->end)))
         goto out;
      for (s->nend = 0; s->nend < w.depth; s->nend++)
         s->end[s->nend] = w.f[s->nend].where;
   }
   /* calls a run that did not finish left open count what they did */
   while (w.depth)
      close_frame(&w, s->ft, kind, cum_out);
   s->outside = cum_out;
   ret = n < 0 ? 0 : 1;
out:
   pl_view_close(v);
   call_numbers_free(&w.nums);
   free(w.f);
   free(kind);
   return ret;
}

/* Side s's functions with instructions (after a walk) as rows of fr, on
   side `side` of each row; with thread labels (--within) or NULL.  0, or
   -1 if out of memory. */
static int side_rows(const pair_side *s, int side, fn_rows *fr,
                     const char *thread, const char *ref)
{
   for (uint32_t f = 1; f <= s->nfns; f++) {
      fn_cost *c;
      if (!s->ft[f].incl && !s->ft[f].self)
         continue;
      if (pl_grow(&fr->v, &fr->cap, fr->n + 1, sizeof *fr->v) < 0)
         return -1;
      c = &fr->v[fr->n];
      memset(c, 0, sizeof *c);
      c->ident = s->ident[f];
      c->self[side] = s->ft[f].self;
      c->incl[side] = s->ft[f].incl;
      c->thread = thread;
      c->ref = ref;
      if (!(c->label = strdup(trace_label(&s->nm, f))))
         return -1;
      fr->n++;
   }
   fr->walked = 1;
   fr->all[side] += s->all;
   fr->outside[side] += s->outside;
   fr->mpi |= s->mpi;
   return 0;
}

/* Side A: each call is kept by function. */
static int keep_call(void *ctx, const call_walk *w, uint64_t incl)
{
   fn_calls *f = &((fn_calls *)ctx)[w->f[w->depth - 1].fn];
   if (f->over)
      return 0;
   if (f->n == CALLS_MAX) {
      f->over = 1;
      free(f->v);
      f->v = NULL;
      return 0;
   }
   if (!f->v && !(f->v = malloc(CALLS_MAX * sizeof *f->v)))
      return -1;
   f->v[f->n].where = w->f[w->depth - 1].where;
   f->v[f->n++].incl = incl;
   return 0;
}

static int by_where(const void *x, const void *y)
{
   const call_at *a = x, *b = y;
   return a->where < b->where ? -1 : a->where > b->where;
}

/* The path of the walk's top call, "main > conj_grad #8 > matvec #3"
   (numbers above 1 shown, as in the differences' headers): malloc'ed. */
static char *path_label(const call_walk *w)
{
   size_t len = 1;
   char *p, *q;
   for (size_t d = 0; d < w->depth; d++)
      len += strlen(trace_label(&w->s->nm, w->f[d].fn)) + 3 + 24;
   if (!(p = q = malloc(len)))
      return NULL;
   *q = 0;
   for (size_t d = 0; d < w->depth; d++) {
      q += sprintf(q, "%s%s", d ? " > " : "", trace_label(&w->s->nm, w->f[d].fn));
      if (w->f[d].num > 1)
         q += sprintf(q, " #%llu", (unsigned long long)w->f[d].num);
   }
   return p;
}

/* Side B: each call that A made at the same place is compared. */
typedef struct {
   const pair_side *a;
   const uint32_t  *in_a;     /* B's function ID -> A's, 0 if none */
   call_changes    *cc;
   const char      *thread, *ref;   /* B's thread; --within, A's too */
} compare_ctx;

static int compare_call(void *ctx, const call_walk *w, uint64_t incl)
{
   const compare_ctx *k = ctx;
   uint32_t fa = k->in_a[w->f[w->depth - 1].fn];
   const fn_calls *x = fa ? &k->a->fc[fa] : NULL;
   call_at key = { w->f[w->depth - 1].where, 0 };
   const call_at *hit;
   uint64_t pair[2];

   /* a function called once is no step of a loop (main, the solver) */
   if (!x || x->n < 2 || x->over
       || !(hit = bsearch(&key, x->v, x->n, sizeof *x->v, by_where)))
      return 0;
   pair[0] = hit->incl;
   pair[1] = incl;
   if (!worth_keeping(k->cc, pair))
      return 0;
   return keep_change(k->cc, k->thread, k->ref,
                      trace_label(&w->s->nm, w->f[w->depth - 1].fn),
                      path_label(w), w->f[w->depth - 1].num, pair);
}

static void free_side(pair_side *s)
{
   free(s->end);
   free_calls(s->fc, s->nfns);
   free(s->ft);
   free(s->keep);
   free(s->ident);
   trace_labels_free(&s->nm);
   pl_trace_close(s->t);
   memset(s, 0, sizeof *s);
}

/* 1 with *s open, 0 if the thread's trace cannot be read (it was reported
   with the threads), -1 if out of memory. */
static int open_side(pair_side *s, run *r, const run_thread *th,
                     const options *o)
{
   pl_error err;
   uint32_t id, main_obj;

   memset(s, 0, sizeof *s);
   if (!(s->t = pl_input_open(&r->in.v[th->input], &err)))
      return 0;
   s->nfns = pl_trace_nfunctions(s->t);
   main_obj = pl_main_object(s->t);
   if (!(s->keep = pl_filter_functions(o->filter, s->t, o->demangle))
       || !(s->ident = malloc(((size_t)s->nfns + 1) * sizeof *s->ident))
       || trace_labels_load(&s->nm, s->t, o->demangle) < 0) {
      free_side(s);
      return -1;
   }
   for (id = 1; id <= s->nfns; id++)
      s->ident[id] = identity(s->t, id, main_obj, &s->nm);
   return 1;
}

static int by_ident_u64(const void *x, const void *y)
{
   uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
   return a < b ? -1 : a > b;
}

/* Map B's functions to A's by identity into in_a (0: none).  0, or -1 if
   out of memory. */
static int map_functions(const pair_side *a, const pair_side *b,
                         uint32_t *in_a)
{
   uint64_t *keys = malloc(2 * ((size_t)a->nfns + 1) * sizeof *keys);
   if (!keys)
      return -1;
   for (uint32_t f = 1; f <= a->nfns; f++) {
      keys[2 * (f - 1)] = a->ident[f];
      keys[2 * (f - 1) + 1] = f;
   }
   qsort(keys, a->nfns, 2 * sizeof *keys, by_ident_u64);
   in_a[0] = 0;
   for (uint32_t f = 1; f <= b->nfns; f++) {
      uint64_t key[2] = { b->ident[f], 0 };
      const uint64_t *hit = bsearch(key, keys, a->nfns, 2 * sizeof *keys,
                                    by_ident_u64);
      in_a[f] = hit ? (uint32_t)hit[1] : 0;
   }
   free(keys);
   return 0;
}

/* A pair's calls, each of B's against A's call at the same place (the
   same path of functions and call numbers), into cc, and its functions'
   instructions into fr.  Where one side's thread was stopped (a hang
   killed, a crash), the other is counted only as far as that one got
   (pair_side.stop): a run killed in iteration 8 against one that ran 15
   would otherwise show every function about half as dear.  0, or -1 if
   out of memory. */
static int pair_call_changes(run *ra, run *rb, const run_pair *p,
                             const options *o, call_changes *cc, fn_rows *fr)
{
   const run_thread *ta = &ra->threads.t[p->ia], *tb = &rb->threads.t[p->ib];
   pair_side a, b;
   uint32_t *in_a = NULL;
   int ok_a, ok_b, ret = -1;

   if ((ok_a = open_side(&a, ra, ta, o)) <= 0)
      return ok_a;
   if ((ok_b = open_side(&b, rb, tb, o)) <= 0) {
      free_side(&a);
      return ok_b;
   }
   if (!(a.fc = calloc((size_t)a.nfns + 1, sizeof *a.fc))
       || !(in_a = malloc(((size_t)b.nfns + 1) * sizeof *in_a))
       || map_functions(&a, &b, in_a) < 0)
      goto out;
   if (tb->stopped) {
      /* B's end first: where A's count ends */
      if ((ok_b = walk_calls(&b, tb->index, o, NULL, NULL)) <= 0) {
         ret = ok_b;
         goto out;
      }
      a.stop = b.end;
      a.nstop = b.nend;
   }
   if ((ok_a = walk_calls(&a, ta->index, o, keep_call, a.fc)) <= 0) {
      ret = ok_a;
      goto out;
   }
   /* a stopped A that ended before B's end: B ends where A did */
   if (ta->stopped && !a.cut) {
      b.stop = a.end;
      b.nstop = a.nend;
   }
   for (uint32_t f = 1; f <= a.nfns; f++)
      if (a.fc[f].v)
         qsort(a.fc[f].v, a.fc[f].n, sizeof *a.fc[f].v, by_where);
   {
      /* --within: B's thread against its reference, A */
      compare_ctx k = { &a, in_a, cc, o->within ? tb->label : ta->label,
                        o->within ? ta->label : NULL };
      ok_b = walk_calls(&b, tb->index, o, compare_call, &k);
   }
   ret = ok_b < 0 ? -1 : 0;
   if (ok_b > 0) {
      size_t first = fr->n, m;
      fr->cut += a.cut || b.cut;
      /* --within: the pair's own largest changes; two runs: each
         function's over all threads */
      if (side_rows(&a, 0, fr, o->within ? tb->label : NULL,
                    o->within ? ta->label : NULL) < 0
          || side_rows(&b, 1, fr, o->within ? tb->label : NULL,
                       o->within ? ta->label : NULL) < 0) {
         ret = -1;
         goto out;
      }
      if (o->within) {
         m = changed_rows(fr->v + first, fr->n - first);
         size_t keep = m < COST_ROWS ? m : COST_ROWS;
         for (size_t i = first + keep; i < first + m; i++)
            free(fr->v[i].label);
         fr->n = first + keep;
      } else {
         fr->n = combine_rows(fr->v, fr->n);
      }
   }
out:
   free(in_a);
   free_side(&a);
   free_side(&b);
   return ret;
}

/* Work items side by side (pl_run_ordered, -j threads) whose results
   are in their context. */
static void results_in_ctx(void *ctx, size_t i, void *result)
{
   (void)ctx;
   (void)i;
   (void)result;
}

/* A pair of threads both recorded with costs: its lines compared (item
   0) beside the walk of its calls into cc (item 1); -1 if either failed
   (after reporting it, or out of memory). */
typedef struct {
   run           *ra, *rb;
   const run_pair *p;
   const options *o;
   fn_totals     *tt;
   diff_report   *rep;
   tally         *ty;
   call_changes  *cc;
   fn_rows       *fr;
   int            ret[2];
} pair_work;

static void *pair_item(void *ctx, size_t i)
{
   pair_work *w = ctx;
   if (i == 0)
      w->ret[0] = compare_pair(w->ra, w->rb, &w->ra->threads.t[w->p->ia],
                               &w->rb->threads.t[w->p->ib], w->o, w->tt,
                               w->rep, w->ty);
   else
      w->ret[1] = pair_call_changes(w->ra, w->rb, w->p, w->o, w->cc, w->fr);
   return NULL;
}

/* The lists after the summary: the functions (fr's rows, sorted by
   change), then the calls (cc). */
static void report_costs(diff_report *rep, const fn_rows *fr,
                         const call_changes *cc)
{
   size_t rows = fr->n < COST_ROWS ? fr->n : COST_ROWS, i;
   const fn_cost *v = fr->v;
   rep->costs_head(rep, fr->all, fr->mpi ? fr->outside : NULL, rows, fr->cut);
   for (i = 0; i < rows; i++)
      rep->cost(rep, v[i].thread, v[i].ref, v[i].label, v[i].self,
                v[i].incl);
   if (cc->n)
      rep->call_costs_head(rep, cc->n);
   for (i = 0; i < cc->n; i++)
      rep->call_cost(rep, cc->v[i].thread, cc->v[i].ref, cc->v[i].name,
                     cc->v[i].path, cc->v[i].number, cc->v[i].incl);
}

/* A thread only one of two runs has, both recorded with costs: its
   functions' instructions join side `side` of fr.  0, or -1 if out of
   memory (one that cannot be read was reported with the threads). */
static int lone_thread_costs(run *r, int side, const run_thread *t,
                             const options *o, fn_rows *fr)
{
   pair_side s;
   int ok = open_side(&s, r, t, o), ret;
   if (ok <= 0)
      return ok;
   ok = walk_calls(&s, t->index, o, NULL, NULL);
   ret = ok < 0 ? -1 : 0;
   if (ok > 0) {
      if (side_rows(&s, side, fr, NULL, NULL) < 0)
         ret = -1;
      else
         fr->n = combine_rows(fr->v, fr->n);
   }
   free_side(&s);
   return ret;
}

/* Runs recorded with --collect-insns (both): the functions whose
   instructions (outside MPI calls) changed most, self then inclusive
   (--within: between each thread compared and its reference), then the
   calls (cc), after the summary, from the threads' walks (fr). */
static void put_costs(const run *ra, const run *rb, const options *o,
                      fn_rows *fr, const call_changes *cc, diff_report *rep)
{
   if (!ra->threads.costs || !rb->threads.costs || !fr->walked)
      return;
   if (!o->within)
      fr->n = changed_rows(fr->v, fr->n);
   else if (fr->n)      /* each pair's largest changes, all pairs' first */
      qsort(fr->v, fr->n, sizeof *fr->v, by_cost_change);
   report_costs(rep, fr, cc);
}

/* ---- Command line -------------------------------------------------------- */

static void usage(FILE *f)
{
   fprintf(f,
      "usage: " PROG " [OPTION]... A B\n"
      "       " PROG " --within [OPTION]... RUN...\n"
      "Compare the ordered calls of two traced runs, thread by thread.\n"
      "A and B are each a trace file, an archive or a directory of traces.\n"
      "Threads are paired by MPI rank and thread number, else by process\n"
      "creation order and thread number.\n"
      "\n"
      "options:\n"
      "  -o, --output=FILE    write to FILE instead of standard output\n"
      "      --select=SPEC    compare only these processes/threads (as\n"
      "                       parlot-decode --select); may be repeated\n"
      "      --images=WHICH   program (default): the program's own code and\n"
      "                       each call it makes into a library, compared\n"
      "                       as one call (MPI, the C library, ... inside\n"
      "                       are not compared); all: every function; main:\n"
      "                       the main executable's; or object patterns\n"
      "                       GLOB[,GLOB] (e.g. 'liblammps*')\n"
      "      --program-objects=GLOB, --library-objects=GLOB  --images=program:\n"
      "                       objects to count as the program's, or as\n"
      "                       libraries; may be repeated\n"
      "      --only=GLOB      compare only functions matching GLOB ('*',\n"
      "                       '?'), e.g. 'MPI_*'; may be repeated; with\n"
      "                       --images, the functions of both\n"
      "      --hide=GLOB      leave out functions matching GLOB; may be\n"
      "                       repeated (their callees are kept)\n"
      "      --only-object=GLOB, --hide-object=GLOB  only / never the\n"
      "                       functions of objects matching GLOB (file name\n"
      "                       or path); may be repeated (as the tool's)\n"
      "      --max-depth=N    compare N levels of calls at most (also\n"
      "                       --depth)\n"
      "      --range=FIRST-LAST  only events FIRST..LAST of each thread\n"
      "      --from-mark=LABEL[#N], --to-mark=LABEL[#N]  only events after /\n"
      "                       before the Nth mark LABEL of each thread, so\n"
      "                       that one phase of both runs is compared\n"
      "      --loops          fold repeated sequences into loops first\n"
      "      --window=N       --loops: longest loop body, in calls (256)\n"
      "      --align=marks    re-synchronise at the marks both runs wrote\n"
      "                       (PARLOT_MARK): a difference never runs past\n"
      "                       a mark both threads reach (default: none)\n"
      "      --ignore-loop-counts  --loops: a loop that ran a different\n"
      "                       number of times is no difference\n"
      "  -U, --context=N      equal lines shown before a difference (3)\n"
      "      --lookahead=N    lines read ahead to find where the runs agree\n"
      "                       again (10000)\n"
      "      --max-hunks=N    differences written per thread pair (10)\n"
      "      --within         one run RUN (a directory, an archive, or its\n"
      "                       trace files): compare each rank's threads with\n"
      "                       those of the first rank of the majority class\n"
      "                       (parlot-annotate's classes), in order\n"
      "      --xml            write XML (schema: parlot-diff.rng): every pair,\n"
      "                       its hunks, its end, the summary\n"
      "      --no-demangle    print C++ function names as recorded\n"
      "  -j, --jobs=N         threads (default: one per core): with more\n"
      "                       than one, each side of a pair is decoded in a\n"
      "                       thread of its own, and an unfinished run's\n"
      "                       progress is read by N; the output is the same\n"
      "  -h, --help           show this help and exit\n"
      "  -V, --version        show the version and exit\n"
      "\n"
      "Exit status: 0 if the runs are alike, 1 if they differ, 2 on trouble\n"
      "(a usage error, an unreadable or damaged trace, nothing compared).\n");
}

static int parse_size(const char *arg, size_t lo, size_t hi, size_t *v,
                      const char *what)
{
   uint64_t x;
   if (pl_parse_u64(arg, &x) < 0 || x < lo || x > hi)
      return pl_usage_error(PROG, what, arg);
   *v = (size_t)x;
   return -1;
}

/* Parse the command line into *o (A and B are argv[optind..]): -1 to go
   on, else the exit status. */
static int parse_options(int argc, char **argv, options *o)
{
   enum { OPT_NO_DEMANGLE = 0x100, OPT_SELECT, OPT_FILTER, OPT_LOOPS,
          OPT_WINDOW, OPT_IGNORE, OPT_ALIGN, OPT_LOOKAHEAD, OPT_HUNKS,
          OPT_WITHIN,
          OPT_XML };
   static const struct option longopts[] = {
      { "output", required_argument, NULL, 'o' },
      { "select", required_argument, NULL, OPT_SELECT },
      PL_CLI_FILTER_OPTIONS(OPT_FILTER),
      { "loops", no_argument, NULL, OPT_LOOPS },
      { "window", required_argument, NULL, OPT_WINDOW },
      { "ignore-loop-counts", no_argument, NULL, OPT_IGNORE },
      { "align", required_argument, NULL, OPT_ALIGN },
      { "context", required_argument, NULL, 'U' },
      { "lookahead", required_argument, NULL, OPT_LOOKAHEAD },
      { "max-hunks", required_argument, NULL, OPT_HUNKS },
      { "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
      { "within", no_argument, NULL, OPT_WITHIN },
      { "xml", no_argument, NULL, OPT_XML },
      { "jobs", required_argument, NULL, 'j' },
      { "help", no_argument, NULL, 'h' },
      { "version", no_argument, NULL, 'V' },
      { NULL, 0, NULL, 0 }
   };
   size_t window = 256;
   int c, index, loops = 0, window_given = 0, r;
   char why[256];

   opterr = 0;
   while ((c = getopt_long(argc, argv, ":o:U:j:hV", longopts, &index)) != -1) {
      switch (c) {
      case 'o':
         o->out_path = optarg;
         break;
      case OPT_SELECT:
         if (pl_select_parse(&o->select, optarg, why, sizeof why) < 0)
            return pl_usage_error(PROG, why, NULL);
         break;
      case OPT_FILTER:
         if (pl_filter_option(o->filter, longopts[index].name, optarg, why,
                              sizeof why) < 0)
            return pl_usage_error(PROG, why, NULL);
         break;
      case OPT_LOOPS:
         loops = 1;
         break;
      case OPT_WINDOW:
         if ((r = parse_size(optarg, 1, 65536, &window, "--window wants a "
                             "number from 1 to 65536, not")) >= 0)
            return r;
         window_given = 1;
         break;
      case OPT_ALIGN:
         if (strcmp(optarg, "marks") == 0)
            o->diff.align_marks = 1;
         else if (strcmp(optarg, "none") == 0)
            o->diff.align_marks = 0;
         else
            return pl_usage_error(PROG, "--align wants marks or none, not",
                                  optarg);
         break;
      case OPT_IGNORE:
         o->diff.ignore_counts = 1;
         break;
      case 'U':
         if ((r = parse_size(optarg, 0, 1000, &o->diff.context, "--context "
                             "wants a number from 0 to 1000, not")) >= 0)
            return r;
         break;
      case OPT_LOOKAHEAD:
         if ((r = parse_size(optarg, 1, (size_t)1 << 26, &o->diff.lookahead,
                             "--lookahead wants a number from 1 to "
                             "67108864, not")) >= 0)
            return r;
         break;
      case OPT_HUNKS:
         if ((r = parse_size(optarg, 0, SIZE_MAX, &o->diff.max_hunks,
                             "--max-hunks wants a number, not")) >= 0)
            return r;
         break;
      case OPT_NO_DEMANGLE:
         o->demangle = 0;
         break;
      case OPT_WITHIN:
         o->within = 1;
         break;
      case OPT_XML:
         o->xml = 1;
         break;
      case 'j':
         if (pl_jobs_parse(optarg, &o->jobs) < 0)
            return pl_usage_error(PROG, "--jobs wants a number from 0 (one "
                                  "job per processor) to "
                                  PL_STR(PL_JOBS_MAX) ", not", optarg);
         break;
      case 'h':
         usage(stdout);
         return fflush(stdout) == 0 ? EXIT_SAME : EXIT_TROUBLE;
      case 'V':
         return pl_print_version(PROG, PACKAGE_VERSION) ? EXIT_TROUBLE : 0;
      default:
         return pl_option_error(PROG, c, argv);
      }
   }
   if (o->within && argc - optind < 1)
      return pl_usage_error(PROG, "--within needs a run to compare", NULL);
   if (!o->within && argc - optind != 2)
      return pl_usage_error(PROG, argc - optind < 2
                            ? "two runs to compare are needed"
                            : "only two runs can be compared", NULL);
   if (window_given && !loops)
      return pl_usage_error(PROG, "--window needs --loops", NULL);
   if (o->diff.ignore_counts && !loops)
      return pl_usage_error(PROG, "--ignore-loop-counts needs --loops", NULL);
   o->window = loops ? window : 0;
   o->diff.folded = loops;
   return -1;
}

/* ---- Main ---------------------------------------------------------------- */

/* Read run r's inputs (npaths of them: one run's trace files, or a
   directory or archive) and threads, saying what is wrong with them if
   report; label names the run.  0; 1 if some input is bad; -1 if out of
   memory. */
static int read_run(run *r, char *const *paths, int npaths,
                    const char *label, const options *o, int report)
{
   int bad;

   memset(r, 0, sizeof *r);
   r->path = label;
   r->open_input = (size_t)-1;
   bad = pl_cli_inputs(report ? PROG : NULL, &r->in, paths, npaths);
   if (bad < 0 || run_threads_read(&r->threads, report ? PROG : NULL, &r->in,
                                   &o->select) < 0)
      return -1;
   return bad > 0 || r->threads.damaged;
}

static void free_run(run *r)
{
   close_trace(r);
   run_threads_free(&r->threads);
   pl_inputs_free(&r->in);
}

/* --within: the pairs of one run, each rank against its reference
   (run_threads_within); *note says which classes were used.  0, or -1 if
   out of memory. */
static int within_pairs(run *r, const options *o, run_pair **pairs,
                        size_t *np, char *note, size_t notelen)
{
   pl_program p;
   pl_ranks rk;
   char name[64];
   size_t i;
   int ret = -1;

   pl_program_init(&p, o->demangle);
   for (i = 0; i < r->in.n; i++) {
      pl_error err;
      /* errors were reported when the threads were read */
      if (pl_program_read_input(&p, &r->in.v[i], &o->select, NULL, &err) < 0
          && strcmp(err.msg, "out of memory") == 0)
         goto out;
   }
   if (pl_ranks_analyse(&p, &rk) < 0)
      goto out;
   if (rk.nprocs < 2)
      snprintf(note, notelen, "fewer than two ranks: nothing to compare");
   else if (rk.by_medoid)
      snprintf(note, notelen, "%zu classes, no rule tells the odd ones; "
               "each rank against the medoid, %s", rk.nclasses,
               pl_ranks_proc_name(&p, &rk, rk.procs[rk.medoid], name,
                                  sizeof name));
   else
      snprintf(note, notelen, "%zu class%s, %zu outlier%s; the outliers "
               "first, each against the nearest rank that is not one, "
               "then each other rank against the first of its class",
               rk.nclasses,
               rk.nclasses == 1 ? "" : "es", rk.noutliers,
               rk.noutliers == 1 ? "" : "s");
   ret = run_threads_within(&r->threads, &p, &rk, pairs, np);
   pl_ranks_free(&rk);
out:
   pl_program_free(&p);
   return ret;
}

/* A run whose processes did not all finish (a hang ended by a signal, a
   crash, a trace cut short): where its threads got to, least progressed
   first, leads the report, so that its first screen names the rank that
   is behind (parlot-decode --progress's view).  0, or -1 after reporting
   an error. */
static int lead_with_progress(run *r, int side, const options *o,
                              diff_report *rep)
{
   pl_decode_opts d;
   outbuf text;
   void *state;
   int ret = -1;

   if (!r->threads.unfinished)
      return 0;
   memset(&d, 0, sizeof d);
   d.select = o->select;
   d.filter = o->filter;
   d.demangle = o->demangle;
   d.prog = PROG;
   if (!(state = pl_progress_of_inputs(r->in.v, r->in.n, &d, o->jobs)))
      goto oom;
   /* the block (a line per class) is kept in memory, so that either
      report can place it */
   if (outbuf_init(&text, -1, "progress") < 0) {
      pl_mode_progress.destroy(state);
      goto oom;
   }
   if (pl_mode_progress_view(state, &text, side ? "B" : "A") < 0)
      goto oom_out;
   if (text.err)
      goto oom_out;
   rep->progress(rep, side, r->threads.unfinished, r->threads.processes,
                 text.buf, text.len);
   ret = 0;
   goto out;
oom_out:
   fprintf(stderr, PROG ": out of memory\n");
out:
   outbuf_free(&text);
   pl_mode_progress.destroy(state);
   return ret;
oom:
   fprintf(stderr, PROG ": out of memory\n");
   return -1;
}

/* Compare the runs' threads pair by pair; with costs, their functions'
   instructions join fr. */
static int compare_runs(run *ra, run *rb, const options *o,
                        diff_report *rep, tally *ty, fn_totals *tt,
                        call_changes *cc, fn_rows *fr)
{
   run_pair *pairs;
   size_t np, i;
   char note[200] = "";

   if (o->within) {
      if (within_pairs(ra, o, &pairs, &np, note, sizeof note) < 0)
         return -1;
   } else if (run_threads_match(&ra->threads, &rb->threads, &pairs, &np) < 0) {
      return -1;
   }
   {
      diff_runs u = { ra->path, rb->path, o->within, ra->threads.n,
                      rb->threads.n, pl_filter_describe(o->filter),
                      o->window != 0, o->diff.ignore_counts,
                      o->diff.align_marks, note };
      rep->start(rep, &u);
   }
   if (!o->within && (lead_with_progress(ra, 0, o, rep) < 0
                      || lead_with_progress(rb, 1, o, rep) < 0))
      ty->trouble = 1;
   /* no status line among a report written to the terminal */
   progress = isatty(rep->o->fd) ? NULL : pl_progress_new(PROG, np);
   for (i = 0; i < np && !rep->o->err; i++) {
      const run_pair *p = &pairs[i];
      if (p->ia == (size_t)-1 || p->ib == (size_t)-1) {
         int side = p->ia == (size_t)-1, r;
         const run_thread *t = side ? &rb->threads.t[p->ib]
                                    : &ra->threads.t[p->ia];
         /* a library's own thread (MPI's progress thread) has nothing in
            the program's view: how many a run starts is no difference */
         r = shows_nothing(side ? rb : ra, side, t, o, tt);
         if (r < 0)
            ty->trouble = 1;
         if (r > 0) {
            ty->library_only++;
            continue;
         }
         /* within one run, a thread its reference lacks */
         rep->only(rep, side, t->label,
                   o->within ? NULL : side ? rb->path : ra->path);
         ty->only[side]++;
         /* two runs: its costs are the run's too */
         if (!o->within && ra->threads.costs && rb->threads.costs
             && lone_thread_costs(side ? rb : ra, side, t, o, fr) < 0)
            ty->trouble = 1;
         continue;
      }
      {
         pair_work pw = { ra, rb, p, o, tt, rep, ty, cc, fr, { 0, 0 } };
         pl_ordered_work w = { &pw, pair_item, results_in_ctx };
         /* the pair's calls, when both were recorded with costs */
         if (ra->threads.costs && rb->threads.costs)
            pl_run_ordered(2, o->jobs, &w);
         else
            pair_item(&pw, 0);
         if (pw.ret[0] < 0 || pw.ret[1] < 0)
            ty->trouble = 1;
      }
   }
   pl_progress_free(progress);
   progress = NULL;
   free(pairs);
   if (flush_calls(ra, 0, tt) < 0 || flush_calls(rb, 1, tt) < 0)
      return -1;
   return 0;
}

int main(int argc, char **argv)
{
   static options o;            /* static: reachable at an early return */
   run ra, rb;
   tally ty;
   fn_totals tt;
   call_changes cc;
   fn_rows fr;
   outbuf out;
   diff_report rep;
   int status, ba, bb, nrun;
   char label[PATH_MAX + 64];   /* --within's run given as files: its name */
   const char *name;
   size_t i;

   o.demangle = 1;
   o.diff.context = 3;
   o.diff.lookahead = 10000;
   o.diff.max_hunks = 10;
   o.jobs = pl_jobs_default();
   if (!(o.filter = pl_filter_new())) {
      fprintf(stderr, PROG ": out of memory\n");
      return EXIT_TROUBLE;
   }
   pl_filter_default_program(o.filter);
   status = parse_options(argc, argv, &o);
   if (status >= 0)
      return status;
   status = pl_output_open(PROG, &out, o.out_path, argv + optind,
                           argc - optind);
   if (status != 0)
      return EXIT_TROUBLE;
   memset(&ty, 0, sizeof ty);
   memset(&tt, 0, sizeof tt);
   memset(&cc, 0, sizeof cc);
   memset(&fr, 0, sizeof fr);
   /* --within: the run on both sides, each with a trace open of its own */
   nrun = o.within ? argc - optind : 1;
   name = argv[optind];
   if (nrun > 1) {      /* a run given as its trace files */
      snprintf(label, sizeof label, "%.*s and %d more trace files",
               PATH_MAX, argv[optind], nrun - 1);
      name = label;
   }
   ba = read_run(&ra, argv + optind, nrun, name, &o, 1);
   bb = o.within ? read_run(&rb, argv + optind, nrun, name, &o, 0)
                 : read_run(&rb, argv + optind + 1, 1, argv[optind + 1], &o, 1);
   if (ba < 0 || bb < 0) {
      fprintf(stderr, PROG ": out of memory\n");
      status = EXIT_TROUBLE;
   } else if ((ba && !ra.threads.n) || (bb && !rb.threads.n)) {
      status = EXIT_TROUBLE;   /* a side unreadable: its errors said why */
   } else if ((o.xml ? diff_report_xml(&rep, &out, PROG " " PACKAGE_VERSION)
                     : diff_report_text(&rep, &out)) < 0) {
      fprintf(stderr, PROG ": out of memory\n");
      status = EXIT_TROUBLE;
   } else {
      if (compare_runs(&ra, &rb, &o, &rep, &ty, &tt, &cc, &fr) < 0
          || put_summary(&rep, &ty, &tt) < 0
          || (put_costs(&ra, &rb, &o, &fr, &cc, &rep), rep.finish(&rep) < 0)) {
         fprintf(stderr, PROG ": out of memory\n");
         ty.trouble = 1;
      }
      if (ba || bb || ty.trouble)
         status = EXIT_TROUBLE;
      else if (!ty.lines && !ty.differ && !ty.only[0] && !ty.only[1]) {
         /* alike because nothing was compared is no answer */
         const char *f = pl_filter_describe(o.filter);
         if (!ty.same)
            fprintf(stderr, PROG ": no threads to compare\n");
         else if (*f)
            fprintf(stderr, PROG ": no calls to compare: the filters (%s) "
                    "leave none\n", f);
         else
            fprintf(stderr, PROG ": no calls to compare in %s and %s\n",
                    ra.path, rb.path);
         status = EXIT_TROUBLE;
      } else if (ty.differ || ty.only[0] || ty.only[1] || ty.endings)
         status = EXIT_DIFFER;
      else
         status = EXIT_SAME;
   }
   fn_rows_free(&fr);
   for (i = 0; i < cc.n; i++)
      free_change(&cc.v[i]);
   for (i = 0; i < tt.cap; i++)
      free(tt.v[i].label);
   free(tt.v);
   free(ty.differing);
   free_run(&ra);
   free_run(&rb);
   pl_select_free(&o.select);
   pl_filter_free(o.filter);
   if (pl_output_close(PROG, &out) != 0)
      return EXIT_TROUBLE;
   return status;
}
