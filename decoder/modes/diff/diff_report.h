/* SPDX-License-Identifier: MIT */
/* What parlot-diff writes, as text (diff(1) style) or as XML
   (docs/parlot-diff.rng): the comparison (diff_pair.c) and the program
   (parlot-diff.c) say what they found, a report writes it. */
#ifndef DIFF_REPORT_H
#define DIFF_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "pl_fold.h"
#include "pl_outbuf.h"
#include "trace_labels.h"

/* One difference between two threads' lines. */
typedef struct {
   const pl_line      *ctx;       /* equal lines before it (A's), in order */
   const uint64_t     *ctx_num;   /* their call numbers (as num_a), or NULL */
   size_t              nctx;
   const pl_line      *outer;     /* the calls ctx[0] is inside of, down
                                     to the difference's depth, outer
                                     first (a loop's iteration: "exchange
                                     #7"); as many as are still known */
   const uint64_t     *outer_num; /* their numbers (0: not known) */
   size_t              nouter;
   const pl_line      *a, *b;     /* the lines only A has, only B has */
   size_t              na, nb;    /* (at most DIFF_HUNK_LINES of each) */
   size_t              na_all, nb_all;   /* how many in all */
   uint64_t            a_after, b_after; /* where a side without lines is:
                                            after this event, 0 = start */
   const pl_line      *path;      /* calls open in both (A's lines), */
   size_t              path_len;  /*   outer first */
   const uint64_t     *path_num_a, *path_num_b;  /* [i]: path[i]'s number
                                     among its caller's calls of it, in A
                                     and in B; NULL if not known */
   const uint64_t     *num_a, *num_b;  /* [i]: the same of line a[i], b[i]
                                     (0: no call); NULL if not known */
   const pl_mark      *mark;      /* A's last mark before the hunk, NULL if
                                     none */
   const pl_line      *step;      /* where no call of path has a number
                                     above 1 (a loop written inline in
                                     main): the last call before the
                                     difference at its depth, in the
                                     context, that has one ("sweep #7"),
                                     the program's own preferred; NULL if
                                     none */
   uint64_t            step_num;  /* its number */
   int                 a_stops, b_stops;  /* the side's lines end in the
                                     hunk because its thread was stopped
                                     (diff_side.stopped): what the other
                                     did after is no difference of its */
   const trace_labels *nm_a, *nm_b;
} diff_hunk;

#define DIFF_HUNK_LINES 100

/* How a pair's comparison ended. */
enum diff_end {
   DIFF_END_DONE,        /* compared to the end of both */
   DIFF_END_NO_SYNC,     /* no re-synchronisation within the look-ahead */
   DIFF_END_ONE_ENDS     /* one side ended, the other went on past it */
};

typedef struct diff_report diff_report;

/* The runs and what is compared. */
typedef struct {
   const char *a, *b;         /* as given */
   int         within;        /* --within: one run against itself */
   size_t      na, nb;        /* threads read */
   const char *filters;       /* "" if none */
   int         loops, ignore_counts, align_marks;
   const char *within_note;   /* --within: the references */
} diff_runs;

struct diff_report {
   outbuf *o;
   void   *impl;
   void (*start)(diff_report *r, const diff_runs *runs);
   /* A pair of threads, and its end: hunks found, written, how it ended
      (side: the side that ended, for DIFF_END_ONE_ENDS; lookahead). */
   void (*pair)(diff_report *r, const char *title, const char *label_a,
                const char *label_b);
   void (*hunk)(diff_report *r, const diff_hunk *h);
   void (*pair_end)(diff_report *r, uint64_t hunks, uint64_t written,
                    int end, int side, size_t lookahead);
   /* A thread one side lacks (side 0: only A has it). */
   void (*only)(diff_report *r, int side, const char *label,
                const char *run);
   /* A pair of processes that ended differently (process: "rank 2";
      a and b: pl_ending_text()'s). */
   void (*ending)(diff_report *r, const char *process, const char *a,
                  const char *b);
   /* A run (side 0: A) of which unfinished of its processes did not
      finish (killed by a signal, or cut short): its progress view, the
      text of parlot-decode --progress's (len bytes, lines ending in
      '\n'), written before the pairs. */
   void (*progress)(diff_report *r, int side, size_t unfinished,
                    size_t processes, const char *text, size_t len);
   /* The summary: pairs identical and different, threads only in A and
      B, the threads that differ (k[0..nk-1], sorted in place), then
      function() per function whose calls differ; lines: the lines
      compared in all pairs (0: nothing was, and "identical" would say
      nothing); library: threads only one run has that run none of the
      program's code (not compared, not counted in only_a and only_b);
      endings: process pairs that ended differently.  0, or -1 if out of
      memory. */
   int  (*summary)(diff_report *r, size_t same, size_t differ,
                   size_t only_a, size_t only_b, thread_key *k, size_t nk,
                   size_t nfunctions, uint64_t lines, size_t library,
                   size_t endings);
   void (*function)(diff_report *r, const char *label, uint64_t a,
                    uint64_t b);
   /* Runs recorded with --collect-insns: their instructions (ir[0] A's,
      ir[1] B's; --within, the references' and the other threads' over
      the pairs compared) and, if they made MPI calls, those outside
      them (outside_mpi, else NULL: an MPI library's instructions are
      mostly polling while it waits, which depends on timing), then
      cost() for each of the n functions whose inclusive instructions
      (outside MPI calls) changed most, most first: self[2] and incl[2],
      A's and B's.  --within compares each thread's functions with its
      reference's: ref is the reference's label and thread the thread's
      (both NULL between two runs).  cut: how many pairs were counted
      only up to where one side's thread was stopped (killed, crashed). */
   void (*costs_head)(diff_report *r, const uint64_t ir[2],
                      const uint64_t *outside_mpi, size_t n, size_t cut);
   void (*cost)(diff_report *r, const char *thread, const char *ref,
                const char *label, const uint64_t self[2],
                const uint64_t incl[2]);
   /* Then the n calls whose instructions in the program's own code (not
      in runtimes, pl_runtime.h) changed most between calls at the same
      place of corresponding threads: a call of function `label` in
      thread (--within: against the same call in its reference ref, else
      ref is NULL), at `path` ("main > conj_grad #8 > matvec #3", the
      calls open and each one's number among its caller's calls of it,
      above 1) as its `number`th call from its caller; incl[2] A's and
      B's. */
   void (*call_costs_head)(diff_report *r, size_t n);
   void (*call_cost)(diff_report *r, const char *thread, const char *ref,
                     const char *label, const char *path, uint64_t number,
                     const uint64_t incl[2]);
   /* 0, or -1 if out of memory (output errors are in o->err). */
   int  (*finish)(diff_report *r);
};

/* A report writing to o: 0, or -1 if out of memory. */
int diff_report_text(diff_report *r, outbuf *o);
int diff_report_xml(diff_report *r, outbuf *o, const char *creator);

#endif
