/* SPDX-License-Identifier: MIT */
/* parlot-decode --info: what each trace holds, as zstd -l lists archives —
   per file its process and how it ended, its tables and per thread the
   codec, how the thread ended, its events, maximum depth, stream bytes
   and compression ratio; then the totals.  With --xml, the same as a
   document (docs/parlot-info.rng).

   The numbers come from the THREAD_END records; a thread without one (a
   killed or exec'ing process) is decoded to count its events and depth,
   and its uncompressed size, which only THREAD_END records, is unknown. */

#define _XOPEN_SOURCE 700     /* strdup */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_alloc.h"
#include "pl_codec.h"
#include "pl_format.h"
#include "pl_ending.h"
#include "pl_modes.h"
#include "report.h"
#include "xml_out.h"

#ifndef PACKAGE_VERSION
#  define PACKAGE_VERSION "dev"
#endif

#define INFO_FORMAT_VERSION "1"

typedef struct {
   uint32_t number, codec, end;   /* end: 0 none recorded, else reason */
   uint64_t events, max_depth, stream_bytes, chunks;
   uint64_t uncompressed;         /* 2 x words; 0 if unknown */
} info_thread;

typedef struct {
   char       *file, *pid, *rank, *cmd, *recorded;
   pl_ending   ending;
   unsigned    major, minor;
   uint32_t    nfns, nobjs;
   uint64_t    table_bytes, file_bytes, chunks, framing_bytes;
   info_thread *threads;
   size_t       nthreads, threads_cap;
} info_trace;

typedef struct {
   info_trace *traces;
   size_t      n, cap;
} info_state;

static void *info_create(const pl_decode_opts *o)
{
   (void)o;
   return calloc(1, sizeof(info_state));
}

static void info_destroy(void *state)
{
   info_state *s = state;
   size_t i;
   for (i = 0; i < s->n; i++) {
      info_trace *t = &s->traces[i];
      free(t->file);
      free(t->pid);
      free(t->rank);
      free(t->cmd);
      free(t->recorded);
      free(t->threads);
   }
   free(s->traces);
   free(s);
}

static char *dup_opt(const char *s)
{
   return s ? strdup(s) : NULL;
}

/* Events and depth of a thread without THREAD_END: decode it. */
/* A thread's end in an exec'd trace (no THREAD_END reason). */
#define END_EXEC UINT32_MAX

static int count_thread(const pl_trace *t, size_t i, info_thread *th,
                        pl_error *err)
{
   pl_events *it = pl_events_open(t, i, err);
   const pl_event *ev;
   long n, k;

   if (!it)
      return -1;
   pl_events_skip_costs(it);
   while ((n = pl_events_next(it, &ev, err)) > 0) {
      th->events += (uint64_t)n;
      for (k = 0; k < n; k++)
         if (ev[k].depth > th->max_depth)
            th->max_depth = ev[k].depth;
   }
   pl_events_close(it);
   return n < 0 ? -1 : 0;
}

static int info_file(void *state, pl_trace *t, pl_error *err,
                     const pl_decode_opts *opts)
{
   info_state *s = state;
   info_trace *r;
   size_t i, nth = pl_trace_nthreads(t);
   int ret = 0;

   if (pl_grow(&s->traces, &s->cap, s->n + 1, sizeof *s->traces) < 0)
      goto oom;
   r = &s->traces[s->n++];
   memset(r, 0, sizeof *r);
   r->file = strdup(pl_trace_path(t));
   r->pid = dup_opt(pl_trace_process_get(t, "pid"));
   r->rank = dup_opt(pl_trace_process_get(t, "mpi_rank"));
   r->cmd = pl_trace_command(t);
   r->recorded = dup_opt(pl_trace_recording(t));
   pl_trace_ending(t, &r->ending);
   r->major = pl_trace_version_major(t);
   r->minor = pl_trace_version_minor(t);
   r->nfns = pl_trace_nfunctions(t);
   r->nobjs = pl_trace_nobjects(t);
   r->table_bytes = pl_trace_table_bytes(t);
   r->file_bytes = pl_trace_size(t);
   r->chunks = pl_trace_chunks(t);
   r->framing_bytes = pl_trace_framing_bytes(t);
   if (!r->file || !r->cmd)
      goto oom;
   r->threads = calloc(nth ? nth : 1, sizeof *r->threads);
   if (!r->threads)
      goto oom;
   for (i = 0; i < nth; i++) {
      const pl_thread_info *ti = pl_trace_thread(t, i);
      info_thread *th;
      if (!pl_select_match(&opts->select, r->pid ? r->pid : "",
                           ti->number))
         continue;
      th = &r->threads[r->nthreads++];
      th->number = ti->number;
      th->codec = ti->codec;
      th->stream_bytes = pl_trace_stream_bytes(t, i);
      th->chunks = pl_trace_stream_chunks(t, i);
      if (ti->ended) {
         th->end = ti->end_reason;
         th->events = ti->events;
         th->max_depth = ti->max_depth;
         th->uncompressed = 2 * ti->words;
      } else {
         /* no THREAD_END: the process image was replaced, or the trace
            was cut short; what its stream decodes to is still known */
         if (pl_trace_end(t) == PL_TRACE_EXECED)
            th->end = END_EXEC;
         if (ti->codec != PL_CODEC_LZZE)
            th->uncompressed = pl_trace_raw_bytes(t, i);
         if (ret == 0 && count_thread(t, i, th, err) < 0)
            ret = -1;        /* reported after the listing */
      }
   }
   return ret;
oom:
   pl_error_set(err, 0, "out of memory");
   return -1;
}

/* ---- Names --------------------------------------------------------------- */

/* How a thread ended: "exit" (it exited), "process-exit" (running when
   the process ended), "signal" (running when a fatal signal killed the
   process: its frames stay open), "exec" (running when the process image
   was replaced), "open" (no record: the trace ends with it running, cut
   short). */
static const char *thread_end_name(uint32_t e)
{
   return e == END_EXEC ? "exec"
          : e == PL_END_THREAD_EXIT ? "exit"
          : e == PL_END_PROCESS_EXIT ? "process-exit"
          : e == PL_END_SIGNAL ? "signal" : e ? "other" : "open";
}


/* ---- Totals -------------------------------------------------------------- */

typedef struct {
   uint64_t threads, events, stream, uncompressed, tables, framing, file;
   uint64_t chunks;
   int      uncompressed_known;   /* every thread with stream bytes has it */
} info_totals;

static void totals_of(const info_state *s, info_totals *t)
{
   size_t i, k;
   memset(t, 0, sizeof *t);
   t->uncompressed_known = 1;
   for (i = 0; i < s->n; i++) {
      const info_trace *r = &s->traces[i];
      for (k = 0; k < r->nthreads; k++) {
         const info_thread *th = &r->threads[k];
         t->events += th->events;
         t->stream += th->stream_bytes;
         t->uncompressed += th->uncompressed;
         t->uncompressed_known &= th->uncompressed != 0
                                  || th->stream_bytes == 0;
      }
      t->threads += r->nthreads;
      t->tables += r->table_bytes;
      t->framing += r->framing_bytes;
      t->chunks += r->chunks;
      t->file += r->file_bytes;
   }
   if (!t->uncompressed_known)
      t->uncompressed = 0;
}

/* ---- Text ---------------------------------------------------------------- */

static void put_ratio(outbuf *o, uint64_t raw, uint64_t stream, int width)
{
   if (raw && stream)
      outbuf_printf(o, "%*.1f", width, (double)raw / (double)stream);
   else
      outbuf_printf(o, "%*s", width, "-");
}

/* 1234567 as "1,234,567" in buf (at least 27 bytes). */
static const char *commas(char *buf, uint64_t v)
{
   report_put_commas(buf, v);
   return buf;
}

static void write_text(const info_state *s, outbuf *o)
{
   info_totals tot;
   char a[32], b[32], c[32], d[32], e[32], ending[128];
   size_t i, k;

   for (i = 0; i < s->n; i++) {
      const info_trace *r = &s->traces[i];
      outbuf_str(o, "== ");
      outbuf_str_escaped(o, r->file);
      outbuf_printf(o, ": pid %s", r->pid ? r->pid : "?");
      if (r->rank)
         outbuf_printf(o, ", rank %s", r->rank);
      outbuf_str(o, ", ");
      outbuf_str_escaped(o, r->cmd);
      pl_ending_text(&r->ending, ending, sizeof ending);
      outbuf_printf(o, "\n   format %u.%u; ends: ", r->major, r->minor);
      outbuf_str_escaped(o, ending);
      outbuf_printf(o, "; %zu thread%s; %u functions in %u objects\n",
                    r->nthreads, r->nthreads == 1 ? "" : "s", r->nfns,
                    r->nobjs);
      if (r->recorded) {
         outbuf_str(o, "   recorded: ");
         outbuf_str_escaped(o, r->recorded);
         outbuf_str(o, "\n");
      }
      outbuf_str(o, "   thread codec end                  events max-depth  "
                    "stream-bytes  uncompressed   ratio  chunks\n");
      for (k = 0; k < r->nthreads; k++) {
         const info_thread *th = &r->threads[k];
         outbuf_printf(o, "   %6u %-5s %-12s %15s %9llu %13s %13s ",
                       th->number, pl_codec_name((int)th->codec),
                       thread_end_name(th->end), commas(a, th->events),
                       (unsigned long long)th->max_depth,
                       commas(b, th->stream_bytes),
                       th->uncompressed ? commas(c, th->uncompressed) : "-");
         put_ratio(o, th->uncompressed, th->stream_bytes, 7);
         outbuf_printf(o, " %7s\n", commas(a, th->chunks));
      }
      outbuf_printf(o, "   tables %s bytes; framing %s bytes in %s chunks; "
                    "file %s bytes\n", commas(a, r->table_bytes),
                    commas(b, r->framing_bytes), commas(c, r->chunks),
                    commas(d, r->file_bytes));
   }
   totals_of(s, &tot);
   outbuf_printf(o, "== total: %zu trace%s, %llu thread%s, %s events, "
                 "%s stream bytes, %s table bytes, %s framing bytes, "
                 "%s file bytes, ratio ",
                 s->n, s->n == 1 ? "" : "s", (unsigned long long)tot.threads,
                 tot.threads == 1 ? "" : "s", commas(a, tot.events),
                 commas(b, tot.stream), commas(c, tot.tables),
                 commas(e, tot.framing), commas(d, tot.file));
   put_ratio(o, tot.uncompressed, tot.stream, 0);
   outbuf_str(o, " (uncompressed stream / stream)\n");
}

/* ---- XML ----------------------------------------------------------------- */

static void write_xml_body(xml_out *x, const info_state *s)
{
   info_totals tot;
   size_t i, k;

   for (i = 0; i < s->n && !x->failed; i++) {
      const info_trace *r = &s->traces[i];
      char fmt[16];
      xml_start(x, "trace");
      xml_attr_text(x, "file", r->file);
      if (r->pid)
         xml_attr_text(x, "pid", r->pid);
      if (r->rank)
         xml_attr_text(x, "rank", r->rank);
      xml_attr_text(x, "command", r->cmd);
      snprintf(fmt, sizeof fmt, "%u.%u", r->major, r->minor);
      xml_attr(x, "format", fmt);
      xml_attr_ending(x, &r->ending);
      if (r->recorded)
         xml_attr_text(x, "recorded", r->recorded);
      xml_attr_u64(x, "functions", r->nfns);
      xml_attr_u64(x, "objects", r->nobjs);
      xml_attr_u64(x, "table-bytes", r->table_bytes);
      xml_attr_u64(x, "chunks", r->chunks);
      xml_attr_u64(x, "framing-bytes", r->framing_bytes);
      xml_attr_u64(x, "file-bytes", r->file_bytes);
      for (k = 0; k < r->nthreads; k++) {
         const info_thread *th = &r->threads[k];
         xml_start(x, "thread");
         xml_attr_u64(x, "number", th->number);
         xml_attr(x, "codec", pl_codec_name((int)th->codec));
         xml_attr(x, "end", thread_end_name(th->end));
         xml_attr_u64(x, "events", th->events);
         xml_attr_u64(x, "max-depth", th->max_depth);
         xml_attr_u64(x, "stream-bytes", th->stream_bytes);
         xml_attr_u64(x, "chunks", th->chunks);
         if (th->uncompressed)
            xml_attr_u64(x, "uncompressed-bytes", th->uncompressed);
         xml_end(x);
      }
      xml_end(x);
   }
   totals_of(s, &tot);
   xml_start(x, "total");
   xml_attr_u64(x, "traces", s->n);
   xml_attr_u64(x, "threads", tot.threads);
   xml_attr_u64(x, "events", tot.events);
   xml_attr_u64(x, "stream-bytes", tot.stream);
   if (tot.uncompressed)
      xml_attr_u64(x, "uncompressed-bytes", tot.uncompressed);
   xml_attr_u64(x, "table-bytes", tot.tables);
   xml_attr_u64(x, "chunks", tot.chunks);
   xml_attr_u64(x, "framing-bytes", tot.framing);
   xml_attr_u64(x, "file-bytes", tot.file);
   xml_end(x);
}

static int info_write(void *state, outbuf *o, const pl_decode_opts *opts)
{
   const info_state *s = state;
   xml_out x;

   if (!opts->xml) {
      if (s->n)             /* nothing read: the errors said why */
         write_text(s, o);
      return 0;
   }
   if (xml_out_open(&x, o, "parlot-info", INFO_FORMAT_VERSION,
                    "parlot-decode " PACKAGE_VERSION) < 0)
      return -1;
   write_xml_body(&x, s);
   return xml_out_close(&x);
}

const pl_collect_mode pl_mode_info = {   /* cheap per trace: one thread */
   info_create, info_file, info_write, info_destroy, NULL
};
