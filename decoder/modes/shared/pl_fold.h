/* SPDX-License-Identifier: MIT */
/* The readable form of a thread's events: one line per call, in event
   order, and optionally repeated sequences folded into nested loops
   (--loops).  parlot-decode --replay prints these lines; parlot-diff
   compares them.

   Folding is online nested-loop recognition over the calls made by each
   open frame: a completed call becomes an element (its function and its
   own folded callees); when the last k elements repeat the k before
   them they become a loop of body k, count 2, and each further copy adds
   one to the count; loops inside loop bodies fold the same way, which
   makes nested loops (a body that varies with a period folds as a loop
   of loops).  Then, when a frame's elements are final, an iteration that
   differs alone (the body with a call added, missing or changed, between
   two runs of the same body) joins the loop as a variant, shown with its
   true iteration number, the loop keeping its true count; nothing is
   dropped.

   Memory is bounded by two numbers (pl_fold_new's window): a body has at
   most window elements, and at most 256 x window elements are held across
   all frames.  Past that, the oldest held calls are written unfolded:
   the output stays exact, only less folded.  Without --loops nothing is
   held. */
#ifndef PL_FOLD_H
#define PL_FOLD_H

#include <stddef.h>
#include <stdint.h>

#include "pl_view.h"

enum pl_line_kind {
   PL_LINE_CALL,         /* a call of fn */
   PL_LINE_LOOP,         /* count iterations of the lines up to LOOP_END */
   PL_LINE_LOOP_END,
   PL_LINE_VARIANT,      /* iteration `count` of the enclosing loop ran the
                            lines up to VARIANT_END instead of the body */
   PL_LINE_VARIANT_END,
   PL_LINE_MARK          /* a mark (thread_lines.h with marks; never from
                            the fold): label, occurrence in count */
};

typedef struct {
   uint32_t kind;        /* enum pl_line_kind */
   uint32_t fn;          /* CALL: trace function ID */
   uint32_t depth;       /* depth in the view of the calls the line is
                            about (CALL: its own) */
   uint32_t indent;      /* display level: depth - 1 plus the loops and
                            variants around the line */
   uint64_t count;       /* LOOP: iterations; VARIANT: which iteration */
   uint64_t number;      /* event number of the first event the line
                            stands for (CALL, LOOP, VARIANT), from 1;
                            MARK: the events before it */
   const char *label;    /* MARK: the mark's label */
} pl_line;

typedef struct pl_fold pl_fold;

/* window: the longest loop body, in calls (see above); 0 = no folding,
   every call is a line as soon as it is seen. */
pl_fold *pl_fold_new(size_t window);
void     pl_fold_free(pl_fold *f);

/* Feed the view's events in order; then pl_fold_end() once, which writes
   what is still held (frames open at the end of the thread included).
   0, or -1 if out of memory. */
int pl_fold_events(pl_fold *f, const pl_vevent *ev, size_t n);
int pl_fold_end(pl_fold *f);

/* Lines ready so far, in order; pl_fold_take() hands them over (valid
   until the next pl_fold_* call) and forgets them. */
const pl_line *pl_fold_take(pl_fold *f, size_t *n);

#endif
