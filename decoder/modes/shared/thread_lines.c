/* SPDX-License-Identifier: MIT */
/* A thread's lines, one at a time (thread_lines.h). */

#include <stdlib.h>
#include <string.h>

#include "pl_alloc.h"
#include "pl_parallel.h"
#include "thread_lines.h"

/* Read ahead (pl_ahead): a block ends after AHEAD_LINES lines or
   AHEAD_EVENTS events (a filter that hides most events must not make the
   reader wait for the whole thread), at the end of the thread or at an
   error. */
#define AHEAD_BLOCKS 4
#define AHEAD_LINES  4096
#define AHEAD_EVENTS 65536

typedef struct {
   pl_line  *v;
   size_t    n, cap;
   uint64_t  position, events;   /* the view's, after the block */
   int       status;             /* 0 more follow; 1 the end; -1 error */
   pl_error  err;
} ahead_block;

struct lines_ahead {
   pl_ahead    *worker;
   ahead_block  b[AHEAD_BLOCKS];
};

int thread_lines_open(thread_lines *s, const pl_trace *t, size_t index,
                      const pl_filter *f, const uint8_t *keep,
                      size_t window, uint64_t *calls, pl_error *err)
{
   memset(s, 0, sizeof *s);
   s->calls = calls;
   s->fold = pl_fold_new(window);
   if (!s->fold) {
      pl_error_set(err, 0, "out of memory");
      return -1;
   }
   s->view = pl_view_open(t, index, f, keep, err);
   if (!s->view) {
      pl_fold_free(s->fold);
      s->fold = NULL;
      return -1;
   }
   pl_view_skip_costs(s->view);   /* lines carry no costs */
   return 0;
}

void thread_lines_marks(thread_lines *s, const pl_trace *t, size_t index,
                        const pl_filter *f)
{
   s->marks = 1;
   thread_notes_open(&s->notes, t, index, f);
}

/* Decode one batch of events and fold it: the lines it completed at
   *lines (valid until the next call), n of them.  1, 0 once the thread
   has ended (its last lines given), -1 with *err filled.  Touches the
   view, the fold and the calls, nothing the reader of lines uses. */
static int read_batch(thread_lines *s, const pl_line **lines, size_t *nl,
                      pl_error *err)
{
   const pl_vevent *ev;
   long n = pl_view_next(s->view, &ev, err), i;

   if (n < 0)
      return -1;
   if (s->calls)
      for (i = 0; i < n; i++)
         if (ev[i].kind == PL_EV_CALL)
            s->calls[ev[i].fn]++;
   if ((n > 0 ? pl_fold_events(s->fold, ev, (size_t)n)
              : pl_fold_end(s->fold)) < 0) {
      pl_error_set(err, 0, "out of memory");
      return -1;
   }
   *lines = pl_fold_take(s->fold, nl);
   return n > 0;
}

/* pl_ahead's fill: block k, from the view. */
static int fill_block(void *ctx, size_t k, const pl_ahead *worker)
{
   thread_lines *s = ctx;
   ahead_block *b = &s->ahead->b[k];
   uint64_t start = pl_view_events(s->view);

   b->n = 0;
   b->status = 0;
   while (b->n < AHEAD_LINES && pl_view_events(s->view) - start < AHEAD_EVENTS
          && !pl_ahead_stopping(worker)) {
      const pl_line *l;
      size_t nl;
      int r = read_batch(s, &l, &nl, &b->err);
      if (r >= 0 && pl_grow(&b->v, &b->cap, b->n + nl, sizeof *b->v) < 0) {
         pl_error_set(&b->err, 0, "out of memory");
         r = -1;
      }
      if (r >= 0 && nl > 0) {
         memcpy(b->v + b->n, l, nl * sizeof *l);
         b->n += nl;
      }
      if (r <= 0) {
         b->status = r < 0 ? -1 : 1;
         break;
      }
   }
   b->position = pl_view_position(s->view);
   b->events = pl_view_events(s->view);
   return b->status == 0;
}

int thread_lines_read_ahead(thread_lines *s)
{
   lines_ahead *a = calloc(1, sizeof *a);
   if (!a)
      return -1;
   s->ahead = a;
   if (!(a->worker = pl_ahead_start(AHEAD_BLOCKS, fill_block, s))) {
      s->ahead = NULL;
      free(a);
      return -1;
   }
   return 0;
}

/* The worker's next block: its lines become the reader's. */
static void next_block(thread_lines *s)
{
   const ahead_block *b = &s->ahead->b[pl_ahead_next(s->ahead->worker)];

   s->buf = b->v;
   s->n = b->n;
   s->i = 0;
   if (b->status == 1)
      s->ended = 1;
   else if (b->status < 0) {
      s->failed = 1;
      s->err = b->err;
   }
   if (s->progress && s->progress->update)
      s->progress->update(s->progress->ctx, b->position, b->events);
}

/* A MARK line for the next mark before event `number`, at the indent of
   the line that follows it: 1, or 0 if there is none. */
static int next_mark(thread_lines *s, uint64_t number, const pl_line *next)
{
   thread_note n;
   while (thread_notes_before(&s->notes, number, &n)) {
      if (!n.mark)
         continue;
      memset(&s->mark, 0, sizeof s->mark);
      s->mark.kind = PL_LINE_MARK;
      s->mark.count = n.mark->occurrence;
      s->mark.number = n.mark->position;
      s->mark.label = n.mark->label;
      s->mark.depth = next ? next->depth : 1;
      s->mark.indent = next ? next->indent : 0;
      return 1;
   }
   return 0;
}

int thread_lines_next(thread_lines *s, const pl_line **line, pl_error *err)
{
   for (;;) {
      int r;

      if (s->i < s->n) {
         const pl_line *l = &s->buf[s->i];
         if (s->marks && l->kind != PL_LINE_LOOP_END
             && l->kind != PL_LINE_VARIANT_END
             && next_mark(s, l->number, l)) {
            *line = &s->mark;
            return 1;
         }
         *line = &s->buf[s->i++];
         return 1;
      }
      if (s->ended) {
         if (s->marks && next_mark(s, UINT64_MAX, NULL)) {
            *line = &s->mark;          /* marks after the last event */
            return 1;
         }
         return 0;
      }
      if (s->failed) {
         *err = s->err;
         return -1;
      }
      if (s->ahead) {
         next_block(s);
         continue;
      }
      r = read_batch(s, &s->buf, &s->n, err);
      if (r < 0)
         return -1;
      s->i = 0;
      s->ended = r == 0;
      if (s->progress && s->progress->update)
         s->progress->update(s->progress->ctx, pl_view_position(s->view),
                             pl_view_events(s->view));
   }
}

void thread_lines_close(thread_lines *s)
{
   if (s->ahead) {
      pl_ahead_stop(s->ahead->worker);
      for (size_t i = 0; i < AHEAD_BLOCKS; i++)
         free(s->ahead->b[i].v);
      free(s->ahead);
   }
   pl_view_close(s->view);
   pl_fold_free(s->fold);
   memset(s, 0, sizeof *s);
}

/* v right-aligned in a field of width characters ending at end (wider
   values take more); returns the start. */
static char *put_right(char *end, uint64_t v, int blank, size_t width)
{
   char *p = end;
   if (!blank)
      do
         *--p = (char)('0' + v % 10);
      while (v /= 10);
   while ((size_t)(end - p) < width)
      *--p = ' ';
   return p;
}

void thread_line_put(outbuf *o, const pl_line *l, const trace_labels *nm)
{
   thread_line_put_num(o, l, nm, 0);
}

void thread_line_put_num(outbuf *o, const pl_line *l, const trace_labels *nm,
                         uint64_t num)
{
   static const char spaces[] = "                                        ";
   char head[48], *end = head + sizeof head, *p;
   int ends = l->kind == PL_LINE_LOOP_END || l->kind == PL_LINE_VARIANT_END
              || l->kind == PL_LINE_MARK;
   uint32_t k = l->indent;

   /* "%10llu %5u  " from the right */
   end[-1] = ' ';
   end[-2] = ' ';
   p = put_right(end - 2, l->depth, 0, 5);
   *--p = ' ';
   p = put_right(p, l->number, ends, 10);
   outbuf_write(o, p, (size_t)(end - p));
   if (k > THREAD_LINE_MAX_INDENT)
      k = THREAD_LINE_MAX_INDENT;
   for (; k > 20; k -= 20)
      outbuf_write(o, spaces, 40);
   outbuf_write(o, spaces, 2 * (size_t)k);
   if (l->indent > THREAD_LINE_MAX_INDENT) {
      outbuf_str(o, "[");
      outbuf_u64(o, l->indent);
      outbuf_str(o, "] ");
   }
   switch (l->kind) {
   case PL_LINE_CALL:
      outbuf_write(o, trace_label(nm, l->fn), trace_label_len(nm, l->fn));
      if (num > 1) {
         outbuf_str(o, " #");
         outbuf_u64(o, num);
      }
      break;
   case PL_LINE_LOOP:
      outbuf_u64(o, l->count);
      outbuf_str(o, " \xc3\x97 {");
      break;
   case PL_LINE_VARIANT:
      outbuf_str(o, "iteration ");
      outbuf_u64(o, l->count);
      outbuf_str(o, " instead: {");
      break;
   case PL_LINE_MARK:
      outbuf_str(o, "# mark ");
      outbuf_str_escaped(o, l->label);
      outbuf_str(o, " #");
      outbuf_u64(o, l->count);
      break;
   default:
      outbuf_str(o, "}");
      break;
   }
   outbuf_write(o, "\n", 1);
}
