/* SPDX-License-Identifier: MIT */
/* parlot-decode --events: one line per call and return of every selected
   thread of one trace, "PID\tTHREAD\tcall|return\tDEPTH\tOBJECT\tFUNCTION",
   in thread-number order, through the filters (depths then count shown
   frames).  The events are decoded in batches and written as they come,
   so memory does not grow with the trace. */

#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_modes.h"
#include "pl_names.h"
#include "thread_notes.h"
#include "trace_labels.h"

#define PREFIX_MAX   32   /* "pid\tthread\t" */

/* ---- Event lines ---------------------------------------------------------- */

/* Per function, the constant tail of its event lines:
   "\t<object>\t<function>\n", all in one arena. */
typedef struct {
   char   *arena;
   size_t *at;          /* [id]: offset of the tail in arena, [n+1]: end */
} tails;

static int build_tails(const pl_trace *t, const trace_labels *nm,
                       tails *tl)
{
   uint32_t n = pl_trace_nfunctions(t), id;
   size_t total = 0;
   char *p;

   tl->at = malloc(((size_t)n + 2) * sizeof *tl->at);
   if (!tl->at)
      return -1;
   for (id = 1; id <= n; id++) {
      const pl_function *f = pl_trace_function(t, id);
      const pl_name *o = pl_trace_object(t, f->obj);
      total += 3 + pl_escaped_len(o->str, o->len) + trace_label_len(nm, id);
   }
   tl->arena = malloc(total + 16);    /* +16: print_events reads ahead */
   if (!tl->arena) {
      free(tl->at);
      tl->at = NULL;
      return -1;
   }
   p = tl->arena;
   for (id = 1; id <= n; id++) {
      const pl_function *f = pl_trace_function(t, id);
      const pl_name *o = pl_trace_object(t, f->obj);
      tl->at[id] = (size_t)(p - tl->arena);
      *p++ = '\t';
      p = pl_put_escaped(p, o->str, o->len);
      *p++ = '\t';
      memcpy(p, trace_label(nm, id), trace_label_len(nm, id));
      p += trace_label_len(nm, id);
      *p++ = '\n';
   }
   tl->at[n + 1] = (size_t)(p - tl->arena);
   memset(p, 0, 16);
   return 0;
}

/* Longest fixed part of a line before the tail: "return\t" + depth. */
#define EVENT_HEAD_MAX (7 + 10)

static const char digits2[201] =
   "00010203040506070809101112131415161718192021222324252627282930313233343536"
   "37383940414243444546474849505152535455565758596061626364656667686970717273"
   "7475767778798081828384858687888990919293949596979899";

/* Write a batch of events of one thread; prefix is "pid\tthread\t",
   padded to PREFIX_MAX bytes.  The fast path copies fixed-size blocks
   (prefix, kind, 16-byte pieces of the tail), which may write up to
   OUTBUF_SLACK bytes past the line into the output buffer's slack and read
   past a tail into the arena's padding: both exist for this. */
static void print_events(outbuf *o, const char *prefix, size_t plen,
                         const tails *tl, const pl_event *ev, size_t n)
{
   static const char kind[2][8] = { "call\t", "return\t" };
   static const size_t kind_len[2] = { 5, 7 };
   size_t i;

   for (i = 0; i < n; i++) {
      uint32_t fn = ev[i].fn, k = ev[i].kind, d = ev[i].depth;
      const char *tail = tl->arena + tl->at[fn];
      size_t tlen = tl->at[fn + 1] - tl->at[fn], j;
      char *p;

      if (o->cap - o->len < plen + EVENT_HEAD_MAX + tlen) {
         char head[EVENT_HEAD_MAX];
         if (outbuf_flush(o) < 0)
            return;
         if (o->cap < plen + EVENT_HEAD_MAX + tlen) {
            /* a name longer than the whole buffer */
            outbuf_write(o, prefix, plen);
            outbuf_write(o, kind[k], kind_len[k]);
            outbuf_write(o, head, (size_t)(put_u32(head, d) - head));
            outbuf_write(o, tail, tlen);
            continue;
         }
      }
      p = o->buf + o->len;
      memcpy(p, prefix, PREFIX_MAX);
      p += plen;
      memcpy(p, kind[k], 8);
      p += kind_len[k];
      if (d < 10) {
         *p++ = (char)('0' + d);
      } else if (d < 100) {
         memcpy(p, digits2 + 2 * d, 2);
         p += 2;
      } else {
         p = put_u32(p, d);
      }
      for (j = 0; j < tlen; j += 16)
         memcpy(p + j, tail + j, 16);
      o->len = (size_t)(p + tlen - o->buf);
   }
}

/* "PID<TAB>THREAD<TAB>mark<TAB>OCCURRENCE<TAB>-<TAB>LABEL" for the marks
   before event `number`. */
static void print_marks(outbuf *o, const char *prefix, size_t plen,
                        thread_notes *notes, uint64_t number)
{
   thread_note n;
   while (thread_notes_before(notes, number, &n)) {
      if (!n.mark)
         continue;
      outbuf_write(o, prefix, plen);
      outbuf_printf(o, "mark\t%u\t-\t", n.mark->occurrence);
      outbuf_str_escaped(o, n.mark->label);
      outbuf_str(o, "\n");
   }
}

/* A batch of a thread with marks (ev: the same as pl_event): events and
   marks in stream order. */
static void print_marked(outbuf *o, const char *prefix, size_t plen,
                         const tails *tl, thread_notes *notes,
                         const pl_vevent *ve, const pl_event *ev, size_t n)
{
   size_t i, j;
   for (i = 0; i < n; i = j) {
      print_marks(o, prefix, plen, notes, ve[i].number);
      /* the run up to the next note */
      for (j = i + 1; j < n && thread_notes_next_at(notes) >= ve[j].number;
           j++)
         ;
      print_events(o, prefix, plen, tl, ev + i, j - i);
   }
}

int pl_mode_events_file(pl_trace *t, outbuf *o, pl_error *err,
                        const pl_decode_opts *opts)
{
   const pl_progress_hooks *pg = opts->progress;
   uint64_t done = 0;
   const char *pid = pl_trace_process_get(t, "pid");
   size_t i, nthreads = pl_trace_nthreads(t);
   trace_labels nm;
   tails tl;
   uint8_t *keep = NULL;
   int ret = 0;

   if (nthreads == 0)
      return 0;
   memset(&tl, 0, sizeof tl);
   if (trace_labels_load(&nm, t, opts->demangle) < 0
       || build_tails(t, &nm, &tl) < 0
       || !(keep = pl_filter_functions(opts->filter, t, opts->demangle))) {
      trace_labels_free(&nm);
      free(tl.arena);
      free(tl.at);
      err->offset = 0;
      snprintf(err->msg, sizeof err->msg, "out of memory");
      return -1;
   }
   trace_labels_free(&nm);     /* the tails hold copies */
   for (i = 0; i < nthreads && ret == 0; i++) {
      char prefix[PREFIX_MAX] = { 0 };
      uint32_t number = pl_trace_thread(t, i)->number;
      int plen = snprintf(prefix, sizeof prefix, "%s\t%u\t", pid, number);
      pl_view *it;
      const pl_event *ev;
      const pl_vevent *ve;
      thread_notes notes;
      long n;

      if (!pl_select_match(&opts->select, pid, number))
         continue;
      it = pl_view_open(t, i, opts->filter, keep, err);
      if (!it) {
         ret = -1;
         break;
      }
      pl_view_skip_costs(it);
      if (pg && pg->thread)
         pg->thread(pg->ctx, i, nthreads, pl_trace_stream_bytes(t, i));
      thread_notes_open(&notes, t, i, opts->filter);
      for (;;) {
         if (notes.nmarks) {
            n = pl_view_next(it, &ve, err);
            if (n > 0 && !(ev = pl_view_batch_events(it))) {
               pl_error_set(err, 0, "out of memory");
               n = -1;
            }
            if (n > 0)
               print_marked(o, prefix, (size_t)plen, &tl, &notes, ve, ev,
                            (size_t)n);
         } else {
            n = pl_view_next_events(it, &ev, err);
            if (n > 0)
               print_events(o, prefix, (size_t)plen, &tl, ev, (size_t)n);
         }
         if (n <= 0 || o->err)
            break;
         done += (uint64_t)n;
         if (pg && pg->update)
            pg->update(pg->ctx, pl_view_position(it), done);
      }
      if (n == 0)
         print_marks(o, prefix, (size_t)plen, &notes, UINT64_MAX);
      if (n < 0)
         ret = -1;
      pl_view_close(it);
      if (o->err)
         break;
   }
   free(keep);
   free(tl.arena);
   free(tl.at);
   return ret;
}
