/* SPDX-License-Identifier: MIT */
/* parlot-diff's text report (diff_report.h): diff(1) style.

     --- A: RUN (N threads)
     +++ B: RUN (N threads)
     === PAIR                      (only for pairs that differ)
     @@ main > solve #8 @@ A event N, B after event M  (loop ran 100 ...)
                                  (#8: the 8th call of solve from main)
       context lines (replay lines, two spaces before)
     - lines only A has
     + lines only B has
     == summary ... */

#include <stdlib.h>
#include <string.h>

#include "diff_report.h"
#include "thread_lines.h"

typedef struct {
   char title[200];      /* the pair's, written before its first hunk */
   int  titled;
   int  within;          /* --within: B's threads against their references */
} text_state;

static void t_start(diff_report *r, const diff_runs *u)
{
   outbuf *o = r->o;
   ((text_state *)r->impl)->within = u->within;
   if (u->within)
      outbuf_printf(o, "--- A: the reference ranks of %s\n+++ B: the other "
                    "ranks (%zu thread%s in all)\n", u->a, u->na,
                    u->na == 1 ? "" : "s");
   else
      outbuf_printf(o, "--- A: %s (%zu thread%s)\n+++ B: %s (%zu thread%s)\n",
                    u->a, u->na, u->na == 1 ? "" : "s", u->b, u->nb,
                    u->nb == 1 ? "" : "s");
   if (*u->filters || u->loops || u->align_marks)
      outbuf_printf(o, "== compared: %s%s%s%s%s%s\n", u->filters,
                    *u->filters && u->loops ? " " : "",
                    u->loops ? "loops folded" : "",
                    u->ignore_counts ? ", loop counts ignored" : "",
                    (*u->filters || u->loops) && u->align_marks ? ", " : "",
                    u->align_marks ? "aligned on marks" : "");
   if (u->within)
      outbuf_printf(o, "== within %s: %s\n", u->a, u->within_note);
}

static void t_pair(diff_report *r, const char *title, const char *label_a,
                   const char *label_b)
{
   text_state *t = r->impl;
   (void)label_a;
   (void)label_b;
   strncpy(t->title, title, sizeof t->title - 1);
   t->title[sizeof t->title - 1] = '\0';
   t->titled = 0;
}

/* Lines shown of what a side went on to do after the other's thread was
   stopped (a hang ended by a signal). */
#define AFTER_STOP_LINES 3

/* A side's lines, each call with its number among its caller's calls
   of it when that is known and not the first ("norm_check #8"); stopped:
   the other side's name when its thread was stopped in this hunk, so
   that these lines are what this side did after (NULL if not). */
static void put_side(outbuf *o, const char *sign, const pl_line *l,
                     size_t n, size_t all, const uint64_t *num,
                     const trace_labels *nm, const char *stopped)
{
   size_t i;
   if (stopped && n > AFTER_STOP_LINES)
      n = AFTER_STOP_LINES;
   for (i = 0; i < n; i++) {
      outbuf_str(o, sign);
      thread_line_put_num(o, &l[i], nm, num ? num[i] : 0);
   }
   if (all > n && stopped)
      outbuf_printf(o, "%s ... %zu more lines, after %s's thread was "
                    "stopped\n", sign, all - n, stopped);
   else if (all > n)
      outbuf_printf(o, "%s ... %zu more lines\n", sign, all - n);
}

/* "A event 1234" at the side's first line, else "A after event 1230". */
static void put_where(outbuf *o, const char *side, const pl_line *l,
                      size_t n, uint64_t after)
{
   if (n && l[0].number)
      outbuf_printf(o, "%s event %llu", side,
                    (unsigned long long)l[0].number);
   else if (after)
      outbuf_printf(o, "%s after event %llu", side,
                    (unsigned long long)after);
   else
      outbuf_printf(o, "%s at its start", side);
}

static void t_hunk(diff_report *r, const diff_hunk *h)
{
   text_state *t = r->impl;
   outbuf *o = r->o;
   size_t i;

   if (!t->titled) {
      outbuf_printf(o, "=== %s\n", t->title);
      t->titled = 1;
   }
   /* where, in the program's terms first: the calls open in both, each
      with its number among its caller's calls of it ("#8": the 8th) */
   outbuf_str(o, "@@ ");
   if (!h->path_len)
      outbuf_str(o, "at the top");
   for (i = 0; i < h->path_len; i++) {
      outbuf_str(o, i ? " > " : "");
      outbuf_str(o, trace_label(h->nm_a, h->path[i].fn));
      if (h->path_num_a && (h->path_num_a[i] > 1 || h->path_num_b[i] > 1)) {
         outbuf_printf(o, " #%llu", (unsigned long long)h->path_num_a[i]);
         if (h->path_num_b[i] != h->path_num_a[i])
            outbuf_printf(o, " (B #%llu)",
                          (unsigned long long)h->path_num_b[i]);
      }
   }
   if (h->mark) {
      outbuf_str(o, " (after mark ");
      outbuf_str_escaped(o, h->mark->label);
      outbuf_printf(o, " #%u)", h->mark->occurrence);
   }
   if (h->step)
      outbuf_printf(o, " (after %s #%llu)", trace_label(h->nm_a, h->step->fn),
                    (unsigned long long)h->step_num);
   outbuf_str(o, " @@ ");
   put_where(o, "A", h->a, h->na, h->a_after);
   outbuf_str(o, ", ");
   put_where(o, "B", h->b, h->nb, h->b_after);
   if (h->na_all == 1 && h->nb_all == 1 && h->a[0].kind == PL_LINE_LOOP
       && h->b[0].kind == PL_LINE_LOOP)
      outbuf_printf(o, "  (loop ran %llu times in A, %llu in B)",
                    (unsigned long long)h->a[0].count,
                    (unsigned long long)h->b[0].count);
   outbuf_str(o, "\n");
   for (i = 0; i < h->nouter; i++) {
      uint64_t next = i + 1 < h->nouter ? h->outer[i + 1].number
                                        : h->ctx[0].number;
      outbuf_str(o, "  ");
      thread_line_put_num(o, &h->outer[i], h->nm_a, h->outer_num[i]);
      if (h->outer[i].number + 1 != next)
         outbuf_str(o, "         ...\n");     /* calls left out */
   }
   for (i = 0; i < h->nctx; i++) {
      outbuf_str(o, "  ");
      thread_line_put_num(o, &h->ctx[i], h->nm_a,
                          h->ctx_num ? h->ctx_num[i] : 0);
   }
   /* where one side's thread was stopped (a hang ended by a signal):
      what it did last first, then the start of what the other went on
      to do */
   if (h->b_stops && !h->a_stops) {
      put_side(o, "+ ", h->b, h->nb, h->nb_all, h->num_b, h->nm_b, NULL);
      put_side(o, "- ", h->a, h->na, h->na_all, h->num_a, h->nm_a, "B");
   } else {
      put_side(o, "- ", h->a, h->na, h->na_all, h->num_a, h->nm_a, NULL);
      put_side(o, "+ ", h->b, h->nb, h->nb_all, h->num_b, h->nm_b,
               h->a_stops && !h->b_stops ? "A" : NULL);
   }
}

static void t_pair_end(diff_report *r, uint64_t hunks, uint64_t written,
                       int end, int side, size_t lookahead)
{
   text_state *t = r->impl;
   if (end == DIFF_END_ONE_ENDS)
      outbuf_printf(r->o, "!! %s ends here, %s goes on for more than %zu "
                    "lines\n", side ? "B" : "A", side ? "A" : "B",
                    lookahead);
   else if (end == DIFF_END_NO_SYNC)
      outbuf_printf(r->o, "!! no re-synchronisation within %zu lines: the "
                    "rest of this pair is not compared\n", lookahead);
   if (hunks > written)
      outbuf_printf(r->o, "... %llu more differences in %s\n",
                    (unsigned long long)(hunks - written), t->title);
}

static void t_only(diff_report *r, int side, const char *label,
                   const char *run)
{
   if (run)
      outbuf_printf(r->o, "=== %s: only in %s (%s)\n", label,
                    side ? "B" : "A", run);
   else
      outbuf_printf(r->o, "=== %s: its reference has no such thread\n",
                    label);
}

static void t_ending(diff_report *r, const char *process, const char *a,
                     const char *b)
{
   outbuf_printf(r->o, "=== %s ended differently: A %s, B %s\n", process, a,
                 b);
}

static void t_progress(diff_report *r, int side, size_t unfinished,
                       size_t processes, const char *text, size_t len)
{
   outbuf_printf(r->o, "== %s did not finish: %zu of its %zu process%s "
                 "were killed or cut short\n", side ? "B" : "A", unfinished,
                 processes, processes == 1 ? "" : "es");
   outbuf_write(r->o, text, len);
}

static int t_summary(diff_report *r, size_t same, size_t differ,
                     size_t only_a, size_t only_b, thread_key *k,
                     size_t nk, size_t nfunctions, uint64_t lines,
                     size_t library, size_t endings)
{
   outbuf *o = r->o;
   if (!lines && !differ)
      outbuf_printf(o, "== summary: %zu thread pair%s, no call compared in "
                    "any; %zu thread%s only in A, %zu only in B\n", same,
                    same == 1 ? "" : "s", only_a, only_a == 1 ? "" : "s",
                    only_b);
   else
      outbuf_printf(o, "== summary: %zu thread pair%s compared, %zu "
                    "identical, %zu different; %zu thread%s only in A, %zu "
                    "only in B\n", same + differ,
                    same + differ == 1 ? "" : "s", same, differ, only_a,
                    only_a == 1 ? "" : "s", only_b);
   if (library)
      outbuf_printf(o, "== %zu thread%s only one run has, running none of "
                    "the program's code (a library's own), not compared\n",
                    library, library == 1 ? "" : "s");
   if (endings)
      outbuf_printf(o, "== %zu process%s ended differently\n", endings,
                    endings == 1 ? "" : "es");
   if (nk) {
      outbuf_str(o, "== threads that differ: ");
      if (put_thread_set(o, k, nk) < 0)
         return -1;
      outbuf_str(o, "\n");
   }
   if (nfunctions == 0) {
      if (lines)
         outbuf_str(o, "== calls per function: the same in A and B\n");
   } else
      outbuf_printf(o, "== calls per function that differ (%zu function%s):"
                    "\n%14s %14s %14s  function\n", nfunctions,
                    nfunctions == 1 ? "" : "s", "A", "B", "B-A");
   return 0;
}

static void t_function(diff_report *r, const char *label, uint64_t a,
                       uint64_t b)
{
   outbuf_printf(r->o, "%14llu %14llu %+14lld  %s\n", (unsigned long long)a,
                 (unsigned long long)b, (long long)(b - a), label);
}

/* "+12.3%" of b against a, "new" if a is 0. */
static void put_change(outbuf *o, uint64_t a, uint64_t b)
{
   if (a == 0)
      outbuf_str(o, b ? "    new" : "      =");
   else
      outbuf_printf(o, "%+6.1f%%", 100.0 * ((double)b - (double)a) / (double)a);
}

static void t_costs_head(diff_report *r, const uint64_t ir[2],
                         const uint64_t *outside_mpi, size_t n, size_t cut)
{
   const text_state *t = r->impl;
   const char *where = outside_mpi ? " outside MPI calls" : "";
   outbuf_printf(r->o, "== instructions (--collect-insns)%s: A %llu, B %llu (",
                 t->within ? " of the threads compared, the references (A) "
                 "and the others (B)" : "",
                 (unsigned long long)ir[0], (unsigned long long)ir[1]);
   put_change(r->o, ir[0], ir[1]);
   if (outside_mpi) {
      /* an MPI library polls while it waits: its instructions follow
         the timing, not the program */
      outbuf_printf(r->o, "); outside MPI calls A %llu, B %llu (",
                    (unsigned long long)outside_mpi[0],
                    (unsigned long long)outside_mpi[1]);
      put_change(r->o, outside_mpi[0], outside_mpi[1]);
   }
   if (cut)
      outbuf_printf(r->o, "); %zu thread pair%s counted only up to the last "
                    "call of the side that was stopped (killed or crashed", cut,
                    cut == 1 ? "" : "s");
   if (n == 0) {
      outbuf_printf(r->o, "); no function's inclusive instructions%s %s\n",
                    where, t->within ? "differ between a thread and its "
                                       "reference" : "changed");
      return;
   }
   outbuf_printf(r->o, "); the %zu function%s whose instructions%s %s "
                 "(self, then inclusive):\n%14s %14s %7s %14s %14s  %s\n", n,
                 n == 1 ? "" : "s", where,
                 t->within ? "differ most between a thread and its reference"
                           : "changed most",
                 "incl A", "incl B", "", "self A", "self B",
                 t->within ? "thread against its reference: function"
                           : "function");
}

static void t_cost(diff_report *r, const char *thread, const char *ref,
                   const char *label, const uint64_t self[2],
                   const uint64_t incl[2])
{
   outbuf_printf(r->o, "%14llu %14llu ", (unsigned long long)incl[0],
                 (unsigned long long)incl[1]);
   put_change(r->o, incl[0], incl[1]);
   outbuf_printf(r->o, " %14llu %14llu  ", (unsigned long long)self[0],
                 (unsigned long long)self[1]);
   if (thread)
      outbuf_printf(r->o, "%s against %s: ", thread, ref);
   outbuf_printf(r->o, "%s\n", label);
}

static void t_call_costs_head(diff_report *r, size_t n)
{
   const text_state *t = r->impl;
   outbuf_printf(r->o, "== the %zu call%s whose instructions in the "
                 "program's own code %s (the calls open, #N: the Nth call "
                 "from its caller; runtimes such as MPI left out):"
                 "\n%14s %14s %7s  call\n", n, n == 1 ? "" : "s",
                 t->within ? "differ most from the same call of the "
                             "thread's reference"
                           : "changed most, A's and B's calls at the same "
                             "place",
                 "A", "B", "");
}

static void t_call_cost(diff_report *r, const char *thread, const char *ref,
                        const char *label, const char *path,
                        uint64_t number, const uint64_t incl[2])
{
   (void)label;
   (void)number;
   outbuf_printf(r->o, "%14llu %14llu ", (unsigned long long)incl[0],
                 (unsigned long long)incl[1]);
   put_change(r->o, incl[0], incl[1]);
   if (ref)
      outbuf_printf(r->o, "  %s against %s: %s\n", thread, ref, path);
   else
      outbuf_printf(r->o, "  %s: %s\n", thread, path);
}

static int t_finish(diff_report *r)
{
   free(r->impl);
   r->impl = NULL;
   return 0;
}

int diff_report_text(diff_report *r, outbuf *o)
{
   memset(r, 0, sizeof *r);
   r->o = o;
   r->impl = calloc(1, sizeof (text_state));
   if (!r->impl)
      return -1;
   r->start = t_start;
   r->pair = t_pair;
   r->hunk = t_hunk;
   r->pair_end = t_pair_end;
   r->only = t_only;
   r->ending = t_ending;
   r->progress = t_progress;
   r->summary = t_summary;
   r->function = t_function;
   r->costs_head = t_costs_head;
   r->cost = t_cost;
   r->call_costs_head = t_call_costs_head;
   r->call_cost = t_call_cost;
   r->finish = t_finish;
   return 0;
}
