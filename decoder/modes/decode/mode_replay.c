/* SPDX-License-Identifier: MIT */
/* parlot-decode --replay: each selected thread's calls in event order, one
   indented line per call (thread_lines.h) with its number among its
   caller's calls of that function after the first ("axpy #3"), repeated
   sequences folded into loops with --loops.  Threads are written as they
   are decoded: memory does not grow with the trace. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_numbers.h"
#include "pl_format.h"
#include "pl_modes.h"
#include "thread_lines.h"
#include "thread_notes.h"

/* "== rank 2 (pid 1234, thread 1) of ./app: 1912 events [images=main]" */
static void put_header(outbuf *o, const pl_trace *t, size_t i,
                       const pl_decode_opts *opts)
{
   const pl_thread_info *ti = pl_trace_thread(t, i);
   const char *pid = pl_trace_process_get(t, "pid");
   const char *rank = pl_trace_process_get(t, "mpi_rank");
   const char *exe = pl_trace_process_get(t, "exe");
   const char *filt = pl_filter_describe(opts->filter);
   char name[96];

   thread_label(name, sizeof name, pid, rank, ti->number);
   outbuf_printf(o, "== %s", name);
   if (rank)
      outbuf_printf(o, " (pid %s, thread %u)", pid, ti->number);
   outbuf_printf(o, " of %s:", exe && *exe ? exe : "?");
   if (ti->ended)
      outbuf_printf(o, " %llu events", (unsigned long long)ti->events);
   else
      outbuf_str(o, " trace ends with the thread running");
   if (ti->ended && ti->end_reason == PL_END_SIGNAL) {
      pl_ending e;
      char how[128];
      pl_trace_ending(t, &e);
      pl_ending_text(&e, how, sizeof how);
      outbuf_str(o, ", calls left open: ");
      outbuf_str_escaped(o, how);
   }
   if (*filt)
      outbuf_printf(o, " [%s]", filt);
   if (pl_trace_recording(t)) {
      outbuf_str(o, " [recorded: ");
      outbuf_str_escaped(o, pl_trace_recording(t));
      outbuf_str(o, "]");
   }
   outbuf_str(o, "\n" THREAD_LINE_HEADER);
}

/* Marks of one label with consecutive occurrences, written as one line
   ("# marks iter #1-#100 after events 12-5123"): a folded loop would
   otherwise be preceded by one line per iteration. */
typedef struct {
   const pl_mark *first, *last;
} mark_run;

static void put_mark_run(outbuf *o, mark_run *r)
{
   if (!r->first)
      return;
   outbuf_str(o, r->first == r->last ? "# mark " : "# marks ");
   outbuf_str_escaped(o, r->first->label);
   if (r->first == r->last)
      outbuf_printf(o, " #%u after event %llu\n", r->first->occurrence,
                    (unsigned long long)r->first->position);
   else
      outbuf_printf(o, " #%u-#%u after events %llu-%llu\n",
                    r->first->occurrence, r->last->occurrence,
                    (unsigned long long)r->first->position,
                    (unsigned long long)r->last->position);
   r->first = r->last = NULL;
}

/* The notes before event `number`, as comment lines. */
static void put_notes(outbuf *o, thread_notes *notes, uint64_t number)
{
   mark_run run = { NULL, NULL };
   thread_note n;

   while (thread_notes_before(notes, number, &n)) {
      if (n.mark) {
         if (run.last && run.last->occurrence + 1 == n.mark->occurrence
             && strcmp(run.last->label, n.mark->label) == 0) {
            run.last = n.mark;
            continue;
         }
         put_mark_run(o, &run);
         run.first = run.last = n.mark;
         continue;
      }
      put_mark_run(o, &run);
      if (n.tracing->on)
         outbuf_printf(o, "# recording starts after event %llu (%u open "
                       "call%s recorded again)\n",
                       (unsigned long long)n.tracing->position,
                       n.tracing->recreated,
                       n.tracing->recreated == 1 ? "" : "s");
      else
         outbuf_printf(o, "# recording stops after event %llu\n",
                       (unsigned long long)n.tracing->position);
   }
   put_mark_run(o, &run);
}

int pl_mode_replay_file(pl_trace *t, outbuf *o, pl_error *err,
                        const pl_decode_opts *opts)
{
   const char *pid = pl_trace_process_get(t, "pid");
   const pl_progress_hooks *pg = opts->progress;
   size_t i, nthreads = pl_trace_nthreads(t);
   trace_labels nm;
   uint8_t *keep;
   int ret = 0;

   if (nthreads == 0)
      return 0;
   keep = pl_filter_functions(opts->filter, t, opts->demangle);
   if (!keep || trace_labels_load(&nm, t, opts->demangle) < 0) {
      free(keep);
      pl_error_set(err, 0, "out of memory");
      return -1;
   }
   for (i = 0; i < nthreads && ret == 0 && !o->err; i++) {
      thread_lines src;
      thread_notes notes;
      call_numbers nums;
      const pl_line *l;
      int r;

      if (!pl_select_match(&opts->select, pid, pl_trace_thread(t, i)->number))
         continue;
      if (thread_lines_open(&src, t, i, opts->filter, keep, opts->window,
                            NULL, err) < 0) {
         ret = -1;
         break;
      }
      if (opts->jobs > 1)
         thread_lines_read_ahead(&src);   /* else read here: the same */
      put_header(o, t, i, opts);
      thread_notes_open(&notes, t, i, opts->filter);
      memset(&nums, 0, sizeof nums);
      if (pg && pg->thread)
         pg->thread(pg->ctx, i, nthreads, pl_trace_stream_bytes(t, i));
      src.progress = pg;
      while ((r = thread_lines_next(&src, &l, err)) > 0 && !o->err) {
         if (l->kind != PL_LINE_LOOP_END && l->kind != PL_LINE_VARIANT_END)
            put_notes(o, &notes, l->number);
         /* unfolded, each call says which of its caller's calls of it it
            is ("conj_grad #8"); folded, the loops say where */
         thread_line_put_num(o, l, &nm, !opts->window
                             && l->kind == PL_LINE_CALL
                             ? call_numbers_call(&nums, l->depth, l->fn)
                             : 0);
      }
      call_numbers_free(&nums);
      if (r == 0)
         put_notes(o, &notes, UINT64_MAX);
      if (r < 0)
         ret = -1;
      thread_lines_close(&src);
   }
   trace_labels_free(&nm);
   free(keep);
   return ret;
}
