/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the trace-file reader (decoder/lib/pl_trace.h), the
   --events output of parlot-decode and the call graphs of its reports
   (decoder/lib/pl_program.c).

   Build (from the repository root; SRCS = the .c files of decoder/lib,
   the folders of decoder/modes and common, which must carry the fuzzer's
   instrumentation too):
     clang -g -O1 -fsanitize=fuzzer,address,undefined \
         -fno-sanitize-recover=all -Icommon -Idecoder/lib \
         -Idecoder/modes/decode -Idecoder/modes/annotate \
         -Idecoder/modes/diff -Idecoder/modes/shared \
         $(pkg-config --cflags libxml-2.0) decoder/tests/fuzz_trace.c $SRCS \
         $(pkg-config --libs libxml-2.0) -lstdc++ -o fuzz_trace
     mkdir -p corpus && ./fuzz_trace -max_total_time=180 corpus SEEDS...
   Standalone replay without libFuzzer (e.g. with gcc in the test suite):
     the same with gcc -O1 -g -DPL_FUZZ_STANDALONE and without -fsanitize,
     -o fuzz_trace_replay
     ./fuzz_trace_replay [--mutate N] [--dump FILE] [--streams DIR] PATH...
   (decoder/tests/run_fuzzers.sh does all of this.)

   The input is a whole trace file.  Byte 15 (the high byte of the file
   header's flags, which readers ignore) selects the mode: with bit 0x80
   set, the harness first recomputes the CRC of every chunk, so that
   mutations of payloads reach the chunk parsers and the stream decoder
   instead of stopping at a CRC mismatch; with bit 0x40, it swaps thread
   numbers 1 and 2, 3 and 4, ... (chunk headers, THREAD_BEGIN), so that
   threads begin out of number order, then recomputes the CRCs.  The (possibly fixed) bytes are
   written to a memfd and opened by path, as parlot-decode opens a trace.

   Each input goes through the code path of `parlot-decode --events`:
   pl_trace_open (indexing), then pl_events_open/next/close for every
   thread, with the reader's invariants checked (abort() on violation):
   - every error (open failure, pl_trace_damage, pl_events_next) is one
     non-empty line without control characters, at an offset inside the
     file (0..size);
   - a trace without damage ends with PROCESS_END or EXEC and has a pid;
     the tables are dense, names NUL-terminated at their length, function
     objects defined, threads in increasing number order;
   - the events replay on an independent model of the call stack: a call
     of a defined function one deeper, a return of the function on top and
     never on an empty stack (the first inherited_depth events are calls);
     pl_events_stack agrees with the model; with a THREAD_END record,
     never more events than it records, nor deeper than its max depth, and
     a thread that decodes to its end has all of them and no open frame;
   - errors are sticky, the end is final.
   Then, unless the event budget below was used up, the same trace goes
   through parlot-decode's --events mode, pl_mode_events_file() (names
   demangled, lines formatted with its block-copy fast path, written to
   /dev/null): it must report the same first error as the checked pass, or
   none.

   Work per input is bounded: at most MAX_EVENTS events are decoded over
   all threads (a chunk may legitimately stand for up to 46,752 words per
   byte, docs/codec.md 7.1: a 4 kB input can still hold 10^8 events). */

#define _GNU_SOURCE

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl_codec.h"
#include "pl_format.h"
#include "pl_modes.h"
#include "tests/test_prng.h"

#define ULL(x) ((unsigned long long)(x))

#ifndef MAX_EVENTS
#define MAX_EVENTS (1u << 20)   /* events decoded per input, all threads */
#endif

#define MODE_BYTE     15
#define MODE_FIX_CRC  0x80
#define MODE_SWAP     0x40   /* swap thread numbers 2k-1 and 2k (and fix
                                the CRCs): threads begin out of order */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2),
                                                     noreturn));
static void die(const char *fmt, ...)
{
   va_list ap;
   fprintf(stderr, "fuzz_trace: invariant violated: ");
   va_start(ap, fmt);
   vfprintf(stderr, fmt, ap);
   va_end(ap);
   fputc('\n', stderr);
   abort();
}

/* ---- The input as a file --------------------------------------------------- */

static int mem_fd = -1;
static char mem_path[4096];
static char tmp_path[4096];      /* fallback file, unlinked at exit */

static void remove_tmp(void)
{
   if (tmp_path[0])
      unlink(tmp_path);
}

static void open_backing(void)
{
   if (mem_fd >= 0)
      return;
   mem_fd = memfd_create("fuzz_trace", 0);
   if (mem_fd >= 0) {
      /* opened by path, as parlot-decode opens a trace: needs /proc */
      int probe;
      snprintf(mem_path, sizeof mem_path, "/proc/self/fd/%d", mem_fd);
      probe = open(mem_path, O_RDONLY);
      if (probe < 0) {
         close(mem_fd);
         mem_fd = -1;
      } else {
         close(probe);
      }
   }
   if (mem_fd < 0) {
      const char *dir = getenv("TMPDIR");
      snprintf(tmp_path, sizeof tmp_path, "%s/fuzz_trace.XXXXXX",
               dir && *dir ? dir : "/tmp");
      mem_fd = mkstemp(tmp_path);
      if (mem_fd < 0) {
         perror("fuzz_trace: memfd_create and mkstemp");
         abort();
      }
      atexit(remove_tmp);
      snprintf(mem_path, sizeof mem_path, "%s", tmp_path);
   }
}

static void write_backing(const uint8_t *d, size_t n)
{
   size_t done = 0;
   if (ftruncate(mem_fd, 0) < 0) {
      perror("fuzz_trace: ftruncate");
      abort();
   }
   while (done < n) {
      ssize_t k = pwrite(mem_fd, d + done, n - done, (off_t)done);
      if (k <= 0) {
         perror("fuzz_trace: pwrite");
         abort();
      }
      done += (size_t)k;
   }
}

/* Walk the chunks of d[0..n) as far as their headers and lengths allow
   (no other check): for each one, fn(type, thread, payload, len). */
static void walk_chunks(uint8_t *d, size_t n,
                        void (*fn)(uint8_t *h, uint8_t *p, uint32_t len,
                                   void *arg), void *arg)
{
   size_t off = PL_FILE_HEADER_SIZE;
   while (off <= n && n - off >= PL_CHUNK_HEADER_SIZE) {
      uint32_t len = pl_get32(d + off + 4);
      if (len > PL_MAX_PAYLOAD || len > n - off - PL_CHUNK_HEADER_SIZE)
         break;
      fn(d + off, d + off + PL_CHUNK_HEADER_SIZE, len, arg);
      off += PL_CHUNK_HEADER_SIZE + (size_t)len;
   }
}

static void fix_crc(uint8_t *h, uint8_t *p, uint32_t len, void *arg)
{
   (void)arg;
   pl_put32(h + 12, pl_crc32(0, p, len));
}

static uint32_t swapped(uint32_t n)
{
   return n == 0 || n == UINT32_MAX ? n : n % 2 ? n + 1 : n - 1;
}

static void swap_threads(uint8_t *h, uint8_t *p, uint32_t len, void *arg)
{
   (void)arg;
   pl_put32(h + 8, swapped(pl_get32(h + 8)));
   if (h[0] == PL_CHUNK_THREAD_BEGIN && len >= 8) {
      pl_put32(p, swapped(pl_get32(p)));
      pl_put32(p + 4, swapped(pl_get32(p + 4)));
   }
   fix_crc(h, p, len, NULL);
}

/* ---- Checks ------------------------------------------------------------------ */

static void check_error(const pl_error *e, uint64_t size, const char *where)
{
   size_t len = strnlen(e->msg, sizeof e->msg), i;
   if (len == sizeof e->msg)
      die("%s: message not NUL-terminated", where);
   if (len == 0)
      die("%s: empty message (offset %llu)", where, ULL(e->offset));
   for (i = 0; i < len; i++) {
      unsigned char c = (unsigned char)e->msg[i];
      if (c < 0x20 || c == 0x7f)
         die("%s: control character 0x%02x in the message \"%s\"", where, c,
             e->msg);
   }
   if (e->offset > size)
      die("%s: offset %llu beyond the end of the %llu-byte file: %s", where,
          ULL(e->offset), ULL(size), e->msg);
}

static void check_name(const pl_name *nm, const char *what, uint32_t id)
{
   if (!nm->str)
      die("%s %u: NULL name", what, id);
   if (strlen(nm->str) != nm->len)
      die("%s %u: name length %zu, strlen %zu", what, id, nm->len,
          strlen(nm->str));
}

static void check_tables(const pl_trace *t, uint64_t size)
{
   const pl_error *dmg = pl_trace_damage(t);
   uint32_t nfns = pl_trace_nfunctions(t), nobjs = pl_trace_nobjects(t), id;
   const pl_name *al;
   size_t nthreads = pl_trace_nthreads(t), i, nkv;
   const pl_kv *kv;
   uint64_t nexec;
   int end = pl_trace_end(t);

   (void)pl_trace_version_minor(t);
   if (dmg)
      check_error(dmg, size, "pl_trace_damage");
   if (dmg ? end != PL_TRACE_TRUNCATED
           : end != PL_TRACE_EXITED && end != PL_TRACE_EXECED)
      die("pl_trace_end %d with%s damage", end, dmg ? "" : "out");
   (void)pl_trace_exec_path(t, &nexec);
   if (end == PL_TRACE_EXECED && nexec == 0)
      die("ends with an exec, but no EXEC chunk counted");
   (void)pl_trace_exec_path(t, NULL);
   if ((!dmg || nthreads > 0 || nfns > 0) && !pl_trace_process_get(t, "pid"))
      die("no pid (damage: %s)", dmg ? dmg->msg : "none");
   kv = pl_trace_process(t, &nkv);
   for (i = 0; i < nkv; i++)
      if (!kv[i].key || !kv[i].value)
         die("PROCESS pair %zu: NULL string", i);
   kv = pl_trace_process_end(t, &nkv);
   for (i = 0; i < nkv; i++)
      if (!kv[i].key || !kv[i].value)
         die("PROCESS_END pair %zu: NULL string", i);
   (void)pl_trace_process_end_get(t, "exit_status");

   for (id = 0; id <= nobjs; id++) {
      const pl_name *o = pl_trace_object(t, id);
      if (!o)
         die("object %u of %u missing", id, nobjs);
      check_name(o, "object", id);
   }
   if (pl_trace_object(t, nobjs + 1))
      die("object %u beyond the %u defined", nobjs + 1, nobjs);
   if (pl_trace_function(t, 0) || pl_trace_function(t, nfns + 1))
      die("function 0 or %u exists", nfns + 1);
   for (id = 1; id <= nfns; id++) {
      const pl_function *f = pl_trace_function(t, id);
      if (!f)
         die("function %u of %u missing", id, nfns);
      check_name(&f->name, "function", id);
      if (f->obj > nobjs)
         die("function %u names object %u of %u", id, f->obj, nobjs);
      for (size_t k = 0; (al = pl_trace_function_alias(t, id, k)); k++)
         check_name(al, "alias of function", id);
   }
   if (pl_trace_function_alias(t, 0, 0) || pl_trace_function_alias(t, nfns + 1, 0))
      die("aliases of function 0 or %u exist", nfns + 1);
   for (i = 0; i < nthreads; i++) {
      const pl_thread_info *ti = pl_trace_thread(t, i);
      if (!ti)
         die("thread index %zu of %zu missing", i, nthreads);
      if (ti->number == 0 || (i > 0 && ti->number <= pl_trace_thread(t, i - 1)->number))
         die("thread index %zu: number %u out of order", i, ti->number);
      if (ti->codec != PL_CODEC_LZZE && ti->codec != PL_CODEC_RAW
          && ti->codec != PL_CODEC_LZRC && !pl_codec_is_ccm((int)ti->codec))
         die("thread %u: codec %u", ti->number, ti->codec);
   }
   if (pl_trace_thread(t, nthreads))
      die("thread index %zu exists", nthreads);
}

/* The model of one thread's call stack. */
static uint32_t *model;
static size_t model_cap;

static void model_push(size_t sp, uint32_t fn)
{
   if (sp == model_cap) {
      size_t ncap = model_cap ? 2 * model_cap : 4096;
      uint32_t *m = realloc(model, ncap * sizeof *m);
      if (!m)
         abort();
      model = m;
      model_cap = ncap;
   }
   model[sp] = fn;
}

enum { THREAD_DONE, THREAD_FAILED, OUT_OF_BUDGET };

/* Decode thread `index`, checking every event.  On THREAD_FAILED, *first
   gets the error. */
static int check_thread(const pl_trace *t, size_t index, uint64_t size,
                        uint64_t *budget, pl_error *first)
{
   const pl_thread_info *ti = pl_trace_thread(t, index);
   uint32_t nfns = pl_trace_nfunctions(t);
   pl_error err;
   pl_events *it = pl_events_open(t, index, &err);
   const pl_event *ev;
   const uint32_t *stk;
   size_t sp = 0, depth;
   uint64_t events = 0;
   long n;
   int result;

   if (!it)
      die("pl_events_open(%zu) failed: %s", index, err.msg);
   stk = pl_events_stack(it, &depth);
   if (depth != 0)
      die("thread %u: depth %zu before any event", ti->number, depth);
   for (;;) {
      long k;
      n = pl_events_next(it, &ev, &err);
      if (n <= 0)
         break;
      if (!ev)
         die("thread %u: %ld events at NULL", ti->number, n);
      for (k = 0; k < n; k++) {
         const pl_event *e = &ev[k];
         uint64_t num = events + (uint64_t)k + 1;
         if (e->kind == PL_EV_CALL) {
            if (e->fn == 0 || e->fn > nfns)
               die("thread %u, event %llu: call of function %u, %u defined",
                   ti->number, ULL(num), e->fn, nfns);
            model_push(sp++, e->fn);
            if (e->depth != sp)
               die("thread %u, event %llu: call at depth %u, the stack has "
                   "%zu frames", ti->number, ULL(num), e->depth, sp);
            if (ti->ended && sp > ti->max_depth)
               die("thread %u, event %llu: depth %zu beyond the max depth "
                   "%llu of THREAD_END", ti->number, ULL(num), sp,
                   ULL(ti->max_depth));
         } else if (e->kind == PL_EV_RETURN) {
            if (sp == 0)
               die("thread %u, event %llu: return on an empty stack "
                   "(depth would be negative)", ti->number, ULL(num));
            if (num <= ti->inherited_depth)
               die("thread %u, event %llu: return among the %u inherited "
                   "entries", ti->number, ULL(num), ti->inherited_depth);
            if (e->fn != model[sp - 1] || e->depth != sp)
               die("thread %u, event %llu: return of %u at depth %u, the "
                   "stack has %u on top at depth %zu", ti->number, ULL(num),
                   e->fn, e->depth, model[sp - 1], sp);
            sp--;
         } else {
            die("thread %u, event %llu: kind %u", ti->number, ULL(num),
                e->kind);
         }
      }
      events += (uint64_t)n;
      if (ti->ended && events > ti->events)
         die("thread %u: %llu events, THREAD_END records %llu", ti->number,
             ULL(events), ULL(ti->events));
      stk = pl_events_stack(it, &depth);
      if (depth != sp || (sp && stk[sp - 1] != model[sp - 1]))
         die("thread %u: pl_events_stack depth %zu, model %zu", ti->number,
             depth, sp);
      if ((uint64_t)n >= *budget) {
         *budget = 0;
         pl_events_close(it);
         return OUT_OF_BUDGET;
      }
      *budget -= (uint64_t)n;
   }
   stk = pl_events_stack(it, &depth);
   if (depth != sp || (sp && memcmp(stk, model, sp * sizeof *stk) != 0))
      die("thread %u: final pl_events_stack differs from the model (depth "
          "%zu, model %zu)", ti->number, depth, sp);
   if (n < 0) {
      pl_error again;
      check_error(&err, size, "pl_events_next");
      if (pl_events_next(it, &ev, &again) != -1
          || again.offset != err.offset || strcmp(again.msg, err.msg) != 0)
         die("thread %u: the error is not sticky", ti->number);
      *first = err;
      result = THREAD_FAILED;
   } else {
      if (ti->ended && (events != ti->events || sp != 0))
         die("thread %u: ended after %llu events at depth %zu; THREAD_END "
             "records %llu events", ti->number, ULL(events), sp,
             ULL(ti->events));
      if (pl_events_next(it, &ev, &err) != 0)
         die("thread %u: events after the end", ti->number);
      result = THREAD_DONE;
   }
   pl_events_close(it);
   return result;
}

/* parlot-decode --events on the open trace, to /dev/null. */
static void run_printer(pl_trace *t, uint64_t size, int failed,
                        const pl_error *first)
{
   static outbuf o;
   static const pl_decode_opts opts = { .demangle = 1 };   /* no selection:
                                                              every thread */
   pl_error err;
   int r;

   if (!o.buf && (outbuf_init(&o, open("/dev/null", O_WRONLY), "/dev/null") < 0
                  || o.fd < 0))
      abort();
   o.len = 0;
   o.err = 0;
   r = pl_mode_events_file(t, &o, &err, &opts);
   outbuf_flush(&o);
   if (o.err)
      die("write error on /dev/null: %s", strerror(o.err));
   if (r < 0) {
      check_error(&err, size, "pl_mode_events_file");
      if (!failed)
         die("events_file failed (offset %llu: %s), the checked pass did not",
             ULL(err.offset), err.msg);
      if (err.offset != first->offset || strcmp(err.msg, first->msg) != 0)
         die("events_file: offset %llu: %s; the checked pass: offset %llu: %s",
             ULL(err.offset), err.msg, ULL(first->offset), first->msg);
   } else if (failed) {
      die("events_file succeeded, the checked pass failed: offset %llu: %s",
          ULL(first->offset), first->msg);
   }
}

/* The reports' path: the trace read into a program (pl_program_read) with
   every thread's call graph.  It must fail exactly when the checked pass
   found damage or a bad stream, and the graphs must be consistent: as
   many events as the checked pass decoded, calls and returns balanced
   against the depth, edges and functions sorted and agreeing. */
static void check_program(const char *path, uint64_t size, int bad,
                          uint64_t events)
{
   static const pl_select all;
   pl_program p;
   pl_error err;
   uint64_t total = 0;
   size_t i, j;
   int r;

   pl_program_init(&p, 1);
   r = pl_program_read(&p, path, &all, NULL, &err);
   if (r < 0)
      die("pl_program_read: %s", err.msg);
   if (r != bad)
      die("pl_program_read returned %d, the checked pass says %s", r,
          bad ? "damaged" : "valid");
   if (r)
      check_error(&err, size, "pl_program_read");
   for (i = 0; i < p.nthreads; i++) {
      const pl_graph *g = &p.threads[i].g;
      uint64_t calls = 0, fcalls = 0;
      total += g->events;
      for (j = 0; j < g->nedges; j++) {
         const pl_edge *e = &g->edges[j];
         if (j > 0 && (e->caller < g->edges[j - 1].caller
                       || (e->caller == g->edges[j - 1].caller
                           && e->callee <= g->edges[j - 1].callee)))
            die("edges out of order");
         if (!e->calls || e->incl_calls < e->calls
             || e->callee == 0 || e->callee > p.nfns || e->caller > p.nfns)
            die("bad edge");
         calls += e->calls;
      }
      for (j = 0; j < g->nfns; j++) {
         if (j > 0 && g->fns[j].fn <= g->fns[j - 1].fn)
            die("functions out of order");
         fcalls += g->fns[j].calls;
      }
      if (calls != g->calls || fcalls != g->calls || g->calls > g->events)
         die("graph totals: edges %llu, functions %llu, calls %llu, "
             "events %llu", ULL(calls), ULL(fcalls), ULL(g->calls),
             ULL(g->events));
   }
   if (total != events)
      die("pl_program_read saw %llu events, the checked pass %llu",
          ULL(total), ULL(events));
   pl_program_free(&p);
}

/* ---- The target ----------------------------------------------------------- */

static uint8_t *fixed;
static size_t fixed_cap;

/* The bytes the reader sees for input d[0..n): d itself, or a copy with
   the chunk CRCs recomputed. */
static const uint8_t *prepare(const uint8_t *d, size_t n)
{
   if (n <= MODE_BYTE || !(d[MODE_BYTE] & (MODE_FIX_CRC | MODE_SWAP)))
      return d;
   if (n > fixed_cap) {
      free(fixed);
      fixed_cap = n;
      fixed = malloc(fixed_cap);
      if (!fixed)
         abort();
   }
   memcpy(fixed, d, n);
   walk_chunks(fixed, n, d[MODE_BYTE] & MODE_SWAP ? swap_threads : fix_crc,
               NULL);
   return fixed;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   uint64_t budget = MAX_EVENTS;
   pl_error err, first = { 0, "" };
   pl_trace *t;
   size_t i, nthreads;
   int failed = 0, over = 0;

   open_backing();
   write_backing(prepare(data, size), size);
   t = pl_trace_open(mem_path, &err);
   if (!t) {
      check_error(&err, size, "pl_trace_open");
      return 0;
   }
   if (strcmp(pl_trace_path(t), mem_path) != 0)
      die("pl_trace_path");
   check_tables(t, size);
   /* every thread, also after one failed (parlot-decode stops there, but
      the iterators are independent: more code is reached) */
   nthreads = pl_trace_nthreads(t);
   for (i = 0; i < nthreads && !over; i++) {
      pl_error e;
      switch (check_thread(t, i, size, &budget, &e)) {
      case THREAD_FAILED:
         if (!failed)
            first = e;
         failed = 1;
         break;
      case OUT_OF_BUDGET:
         over = 1;
         break;
      }
   }
   if (!over) {
      run_printer(t, size, failed, &first);
      check_program(mem_path, size, failed || pl_trace_damage(t) != NULL,
                  MAX_EVENTS - budget);
   }
   pl_trace_close(t);
   return 0;
}

#ifdef PL_FUZZ_STANDALONE
#include <dirent.h>

/* ---- Standalone replay ------------------------------------------------------- */

static const char *dump_path;     /* --dump: the bytes the reader saw */
static const char *streams_dir;   /* --streams: per-thread stream bytes */
static unsigned long mutations;   /* --mutate N */
static size_t count;


static void write_file(const char *path, const uint8_t *d, size_t n, int app)
{
   FILE *f = fopen(path, app ? "ab" : "wb");
   if (!f || fwrite(d, 1, n, f) != n || fclose(f) != 0) {
      perror(path);
      exit(1);
   }
}

struct streams_arg { const char *base; };

static void save_stream(uint8_t *h, uint8_t *p, uint32_t len, void *arg)
{
   const struct streams_arg *a = arg;
   char path[4096];
   if (h[0] != PL_CHUNK_STREAM || len < PL_STREAM_PREFIX_SIZE)
      return;
   snprintf(path, sizeof path, "%s/%s.t%u", streams_dir, a->base,
            pl_get32(h + 8));
   write_file(path, p + PL_STREAM_PREFIX_SIZE, len - PL_STREAM_PREFIX_SIZE, 1);
}

static void run_one(const uint8_t *d, size_t n)
{
   LLVMFuzzerTestOneInput(d, n);
   count++;
}

static int run_file(const char *path)
{
   FILE *f = fopen(path, "rb");
   uint8_t *d = NULL, *m;
   size_t n = 0, cap = 0, got;
   unsigned long k;
   prng r;

   if (!f) {
      perror(path);
      return 1;
   }
   do {
      if (n == cap) {
         cap = cap ? cap * 2 : 4096;
         d = realloc(d, cap);
         if (!d)
            abort();
      }
      got = fread(d + n, 1, cap - n, f);
      n += got;
   } while (got);
   fclose(f);
   if (dump_path)          /* before running it: it may abort */
      write_file(dump_path, prepare(d, n), n, 0);
   run_one(d, n);
   if (streams_dir) {
      struct streams_arg a;
      const char *slash = strrchr(path, '/');
      a.base = slash ? slash + 1 : path;
      walk_chunks(d, n, save_stream, &a);
   }
   /* --mutate: a cheap fuzzer for builds without libFuzzer */
   m = malloc(n + 1);
   if (!m)
      abort();
   r.s = 0x5EED;
   for (k = 0; k < mutations && n > 0; k++) {
      uint32_t ops = 1 + prng_next(&r) % 4, o;
      size_t len = n;
      memcpy(m, d, n);
      for (o = 0; o < ops; o++) {
         uint32_t x = prng_next(&r), pos = prng_next(&r) % (uint32_t)len;
         switch (x % 8) {
         case 0:                         /* truncate */
            len = pos + 1;
            break;
         case 1: case 2:                 /* a small change to a length */
            m[pos] = (uint8_t)(m[pos] + (x >> 8 & 1 ? 1 : -1));
            break;
         default:                        /* any byte */
            m[pos] = (uint8_t)(x >> 8);
            break;
         }
      }
      if (len > MODE_BYTE) {             /* half of them with CRCs fixed */
         uint32_t x = prng_next(&r) % 8;
         m[MODE_BYTE] &= (uint8_t)~(MODE_FIX_CRC | MODE_SWAP);
         if (x >= 4)
            m[MODE_BYTE] |= MODE_FIX_CRC;
         if (x == 7)
            m[MODE_BYTE] |= MODE_SWAP;
      }
      run_one(m, len);
   }
   free(m);
   free(d);
   return 0;
}

static int run_path(const char *path)
{
   struct stat st;
   if (stat(path, &st) != 0) {
      perror(path);
      return 1;
   }
   if (S_ISDIR(st.st_mode)) {
      DIR *dir = opendir(path);
      struct dirent *de;
      int bad = 0;
      char full[4096];
      if (!dir) {
         perror(path);
         return 1;
      }
      while ((de = readdir(dir))) {
         if (de->d_name[0] == '.')
            continue;
         snprintf(full, sizeof full, "%s/%s", path, de->d_name);
         bad |= run_path(full);
      }
      closedir(dir);
      return bad;
   }
   return run_file(path);
}

int main(int argc, char **argv)
{
   int i, bad = 0;
   for (i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--mutate") && i + 1 < argc) {
         mutations = strtoul(argv[++i], NULL, 0);
      } else if (!strcmp(argv[i], "--dump") && i + 1 < argc) {
         dump_path = argv[++i];
      } else if (!strcmp(argv[i], "--streams") && i + 1 < argc) {
         streams_dir = argv[++i];
      } else if (argv[i][0] == '-' && argv[i][1] == '-') {
         fprintf(stderr, "usage: fuzz_trace_replay [--mutate N] [--dump FILE] "
                 "[--streams DIR] FILE|DIR...\n");
         return 2;
      } else {
         bad |= run_path(argv[i]);
      }
   }
   printf("fuzz_trace: %zu inputs replayed, no failures\n", count);
   return bad;
}
#endif
