/* SPDX-License-Identifier: MIT */
/* Comparing two threads' lines (thread_lines.h), for parlot-diff.

   Both sides are read in step while their lines are equal.  At the first
   difference, up to `lookahead` lines of each side are read ahead and the
   nearest point where the two agree again for SYNC_LINES lines (or both
   end) is found (fewest lines skipped on the side that skips more, then
   both sides skipping alike); the lines
   before it form a hunk, written in diff(1) style with the common call
   path and a few equal lines of context, and the comparison goes on from
   there.  With align_marks, the first mark (label and occurrence) that
   both look-aheads hold bounds the hunk: if the sides do not agree again
   before it, they are re-synchronised at it.  Memory: the look-ahead, the
   context and the call path, never the trace. */
#ifndef DIFF_PAIR_H
#define DIFF_PAIR_H

#include <stddef.h>
#include <stdint.h>

#include "diff_report.h"
#include "thread_lines.h"
#include "trace_labels.h"

typedef struct {
   int    ignore_counts;   /* loop counts and variant iterations not compared */
   size_t context;         /* equal lines shown before a hunk */
   size_t lookahead;       /* lines read ahead to re-synchronise */
   size_t max_hunks;       /* hunks written per pair (the rest counted) */
   int    folded;          /* the lines fold loops (no call numbers) */
   int    align_marks;     /* --align=marks: the sides' lines include their
                              marks (thread_lines_marks), and a hunk never
                              runs past a mark both sides reach */
} diff_opts;

typedef struct {
   thread_lines       *src;
   const trace_labels *nm;
   const uint64_t     *ident;   /* [fn]: the function's identity across runs */
   const uint8_t      *keep;    /* [fn]: pl_filter_functions' (PL_KEEP_YES:
                                   the program's own in its view), or NULL */
   const pl_mark      *marks;   /* the thread's marks, by position (for
                                   "after mark" in hunk headers) */
   size_t              nmarks;
   int                 stopped; /* its process was killed or its trace
                                   cut short: its lines end where it was
                                   stopped, not where it finished */
} diff_side;

typedef struct {
   uint64_t hunks;              /* differences found */
   uint64_t lines_a, lines_b;   /* lines compared */
   int      gave_up;            /* no re-synchronisation within lookahead */
   int      bad_side;           /* on error: 0 = A, 1 = B */
} diff_result;

/* Compare a and b (threads label_a and label_b, the pair called title),
   giving rep the pair, its hunks and how it ended.  0, or -1 with *err
   filled (res->bad_side says whose). */
int diff_pair(diff_report *rep, const char *title, const char *label_a,
              const char *label_b, diff_side *a, diff_side *b,
              const diff_opts *opts, diff_result *res, pl_error *err);

#endif
