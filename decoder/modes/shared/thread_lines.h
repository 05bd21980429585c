/* SPDX-License-Identifier: MIT */
/* One thread's readable lines (pl_fold.h), pulled one at a time: the
   events are read through a filter (pl_view.h) and folded as needed.
   --replay prints them; parlot-diff compares two such sources. */
#ifndef THREAD_LINES_H
#define THREAD_LINES_H

#include <stdint.h>

#include "pl_fold.h"
#include "pl_outbuf.h"
#include "pl_program.h"
#include "thread_notes.h"
#include "pl_view.h"
#include "trace_labels.h"

typedef struct lines_ahead lines_ahead;

typedef struct {
   pl_view       *view;
   pl_fold       *fold;
   const pl_line *buf;      /* lines taken from fold, not yet returned */
   size_t         n, i;
   int            ended;
   uint64_t      *calls;    /* if not NULL: [fn] += each shown call */
   int            marks;    /* MARK lines too (thread_lines_marks) */
   thread_notes   notes;
   pl_line        mark;     /* the MARK line returned last */
   /* if set after opening: its update hook after each batch read (the
      status line of a long read, pl_program.h) */
   const pl_progress_hooks *progress;
   lines_ahead   *ahead;    /* the worker of thread_lines_read_ahead */
   int            failed;   /* the worker's error is next (in err) */
   pl_error       err;
} thread_lines;

/* Open thread `index` of t; window as pl_fold_new() (0: no loops).
   0, or -1 with *err filled. */
int  thread_lines_open(thread_lines *s, const pl_trace *t, size_t index,
                       const pl_filter *f, const uint8_t *keep,
                       size_t window, uint64_t *calls, pl_error *err);
/* Also return a MARK line for each mark of the thread in its range,
   before the first line after it (marks inside a folded loop come before
   the loop). */
void thread_lines_marks(thread_lines *s, const pl_trace *t, size_t index,
                        const pl_filter *f);
/* Decode and fold in a thread of its own from now on, a few thousand
   lines ahead of thread_lines_next(), which returns the same lines (and
   the same error after them): decoding is most of the time of a reader
   that compares or prints lines, so a second core nearly halves it.  The
   calls array is the worker's until thread_lines_close().  0, or -1 if
   no thread could be started (the lines are then read in the caller, as
   without this call). */
int  thread_lines_read_ahead(thread_lines *s);
/* The next line at *line (valid until the next call): 1, 0 at the end,
   -1 with *err filled (the lines before the error were returned). */
int  thread_lines_next(thread_lines *s, const pl_line **line, pl_error *err);
void thread_lines_close(thread_lines *s);

/* Write line l as --replay does: the event number (blank for the end of a
   loop or variant), the depth, then the line indented two spaces per
   level: a call's function, "N × {" for a loop, "iteration N instead: {"
   for a variant, "}" for their ends, "# mark LABEL #N" for a mark.  Past
   THREAD_LINE_MAX_INDENT levels a line is indented as deep as that and
   begins with "[LEVEL] ": a recursion a million deep writes lines of
   bounded length, not terabytes of spaces. */
#define THREAD_LINE_MAX_INDENT 100
#define THREAD_LINE_HEADER "#    event depth  call\n"
void thread_line_put(outbuf *o, const pl_line *l, const trace_labels *nm);
/* The same, a call followed by " #num" when num > 1: its number among its
   caller's calls of that function (parlot-diff). */
void thread_line_put_num(outbuf *o, const pl_line *l, const trace_labels *nm,
                         uint64_t num);

#endif
