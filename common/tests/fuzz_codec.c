/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the ParLoT stream codec.

   Build (from the repository root):
     clang -g -O1 -fsanitize=fuzzer,address,undefined -Icommon \
         common/tests/fuzz_codec.c common/pl_codec*.c -o fuzz_codec
     mkdir -p corpus && ./fuzz_codec -max_total_time=180 corpus
   Standalone replay without libFuzzer (e.g. with gcc in the test suite):
     gcc -O1 -g -DPL_FUZZ_STANDALONE -Icommon common/tests/fuzz_codec.c \
         common/pl_codec*.c -o fuzz_replay
     ./fuzz_replay corpus      (files or directories; also --random N)

   Each input is used twice:
   1. as an encoded stream, for each codec kind: it is decoded once in one
      piece and again in pieces of pseudo-random sizes with pseudo-random
      output capacities (and once more with a raw limit, and once more cut
      into pseudo-random STREAM chunks with pseudo-random raw_ends, decoded
      with pl_dec_set_raw_limit/pl_dec_end_chunk).  The decoder must not
      crash, must make progress on every call, and the pieces must yield
      exactly the values (and the error, if any) of the one-piece run:
      resumption may not change the result.
   2. as a program that generates an event stream (see gen_events), which
      is encoded with a pseudo-random drain pattern and pl_enc_sync at
      pseudo-random points (also inside long matches and right after
      escaped IDs), cut into chunks at the syncs and at other pseudo-random
      ready points, then decoded chunk by chunk; the result must equal the
      events, every sync point must decode to exactly the events before it,
      and every flushed prefix must decode to a prefix of them. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_codec.h"
#include "tests/test_prng.h"

/* Budgets per input (kept moderate: libFuzzer's comparison tracing makes
   every loop iteration expensive).  2^16 events still allow matches longer
   than 2^15 words, i.e. two-word lengths.  run_fuzzers.sh's libFuzzer
   build sets 2^12, so that it gets past its seeds and mutates; its
   standalone replay of the seeds keeps these. */
#ifndef MAX_VALUES
#define MAX_VALUES   (1u << 16)   /* output budget per decode */
#endif
#ifndef MAX_EVENTS
#define MAX_EVENTS   (1u << 16)   /* events generated from one input */
#endif

static void die(const char *what, size_t a, size_t b)
{
   fprintf(stderr, "fuzz_codec: %s (%zu, %zu)\n", what, a, b);
   abort();
}


static uint64_t seed_of(const uint8_t *d, size_t n)
{
   uint64_t h = 0xCBF29CE484222325ull;       /* FNV-1a */
   size_t k;
   for (k = 0; k < n; k++)
      h = (h ^ d[k]) * 0x100000001B3ull;
   return h;
}

/* Decoder result: the values (up to MAX_VALUES) and how it ended. */
typedef struct {
   uint32_t *v;
   size_t n;
   const char *error;
   int boundary;
} dec_result;

/* Feed in[*pos..end) to the decoder (pattern 0: all at once, large
   output; otherwise pieces and capacities from r), appending values to res
   and checking the pl_dec_run contract.  Returns 1 when decoding must stop
   (an error, recorded in res, or MAX_VALUES reached), 0 once the input is
   used up and no value is pending. */
static int feed(pl_decoder *d, const uint8_t *in, const uint8_t **pos,
                const uint8_t *end, prng *r, int pattern, dec_result *res)
{
   static uint32_t buf[4096];
   const uint8_t *p = *pos;

   for (;;) {
      size_t piece = (size_t)-1, cap = 4096;
      const uint8_t *pend, *before = p;
      long got;
      if (pattern) {
         uint32_t x = prng_next(r);
         piece = (x & 3) == 0 ? (x >> 8) % 4 : (x & 3) == 1 ? (x >> 8) % 64 : (size_t)-1;
         cap = (x & 0xF0) == 0 ? 1 + (x >> 20) % 3 : 1 + (x >> 20) % 4096;
      }
      if (cap > MAX_VALUES - res->n)
         cap = MAX_VALUES - res->n;
      pend = (size_t)(end - p) < piece ? end : p + piece;
      got = pl_dec_run(d, &p, pend, buf, cap);
      *pos = p;
      if (p < before || p > pend)
         die("input pointer out of range", (size_t)(p - in), (size_t)(pend - in));
      if (got < 0) {
         if (!d->error)
            die("corrupt without a message", 0, 0);
         res->error = d->error;
         return 1;
      }
      if ((size_t)got > cap)
         die("more values than capacity", (size_t)got, cap);
      memcpy(res->v + res->n, buf, (size_t)got * sizeof *buf);
      res->n += (size_t)got;
      if (d->error) {
         /* values before a deferred error; the next call must fail */
         if (pl_dec_run(d, &p, pend, buf, cap) != PL_DEC_CORRUPT)
            die("error not sticky", 0, 0);
         res->error = d->error;
         return 1;
      }
      if (res->n >= MAX_VALUES)
         return 1;
      if (p == end && (size_t)got < cap)
         return 0;
      if (got == 0 && p == before && pend != p)
         die("no progress", (size_t)(p - in), (size_t)(end - in));
   }
}

/* Test hook: the LZ position a stream starts at (wrap-around cases). */
static void set_start(pl_decoder *d, uint32_t start_pos)
{
   if (d->kind == PL_CODEC_LZRC)
      d->rc.pos = start_pos;
   else if (!pl_codec_is_ccm(d->kind))   /* CCM: real streams start at 0 */
      d->lz.pos = start_pos;
}

/* The whole stream in one go.  use_limit/limit: pl_dec_set_raw_limit. */
static void decode(int kind, const uint8_t *in, size_t n, prng *r,
                   int pattern, int use_limit, uint64_t limit,
                   uint32_t start_pos, dec_result *res)
{
   static pl_decoder d;
   const uint8_t *p = in;

   res->n = 0;
   res->error = 0;
   pl_dec_init(&d, kind);
   set_start(&d, start_pos);
   if (use_limit)
      pl_dec_set_raw_limit(&d, limit);
   feed(&d, in, &p, in + n, r, pattern, res);
   res->boundary = pl_dec_at_boundary(&d);
}

/* A STREAM chunk: it ends at byte `end` of the stream and at raw position
   raw_end; events >= 0: a sync point, the events encoded before it. */
typedef struct {
   size_t end;
   uint64_t raw_end;
   long events;
} bound;

/* Decode in[0..b[nb-1].end) chunk by chunk, like a trace reader: raw limit
   = the chunk's raw_end, all its bytes (in pieces from r if pattern), then
   pl_dec_end_chunk.  Stops at the first error. */
static void decode_chunked(int kind, const uint8_t *in, const bound *b,
                           size_t nb, prng *r, int pattern, uint32_t start_pos,
                           dec_result *res)
{
   static pl_decoder d;
   size_t c;

   res->n = 0;
   res->error = 0;
   pl_dec_init(&d, kind);
   set_start(&d, start_pos);
   for (c = 0; c < nb; c++) {
      const uint8_t *p = c ? in + b[c - 1].end : in;
      pl_dec_set_raw_limit(&d, b[c].raw_end);
      if (feed(&d, in, &p, in + b[c].end, r, pattern, res)) {
         if (res->error && pl_dec_end_chunk(&d) != PL_DEC_CORRUPT)
            die("error not sticky", 0, 0);
         break;
      }
      if (pl_dec_end_chunk(&d) != 0) {
         if (!d.error)
            die("end_chunk failed without a message", c, nb);
         res->error = d.error;
         break;
      }
      if (b[c].events >= 0
          && (res->n != (size_t)b[c].events || !pl_dec_at_boundary(&d)))
         die("a sync point does not decode to the events before it",
             res->n, (size_t)b[c].events);
   }
   res->boundary = pl_dec_at_boundary(&d);
}

static int same(const dec_result *a, const dec_result *b)
{
   if (a->n != b->n || (a->error == 0) != (b->error == 0))
      return 0;
   if (a->n >= MAX_VALUES)          /* budget hit: compare what we have */
      return memcmp(a->v, b->v, a->n * sizeof *a->v) == 0;
   return memcmp(a->v, b->v, a->n * sizeof *a->v) == 0
          && a->boundary == b->boundary;
}

static uint32_t *vals_a, *vals_b;
static bound *bounds;
static size_t n_bounds;

static void fuzz_decoder(const uint8_t *data, size_t size)
{
   int kind;
   prng r;
   for (kind = PL_CODEC_LZZE; kind <= PL_CODEC_CCM; kind++) {
      dec_result a = { vals_a, 0, 0, 0 }, b = { vals_b, 0, 0, 0 };
      uint64_t limit, raw = 0;
      size_t k, nb, at = 0;
      r.s = seed_of(data, size) + (uint64_t)kind;
      decode(kind, data, size, &r, 0, 0, 0, 0, &a);
      decode(kind, data, size, &r, 1, 0, 0, 0, &b);
      if (!same(&a, &b))
         die("pieces changed the result", a.n, b.n);
      /* with a raw limit: again whole vs pieces */
      limit = prng_next(&r) % (2 * (uint64_t)size + 16);
      decode(kind, data, size, &r, 0, 1, limit, 0, &a);
      decode(kind, data, size, &r, 1, 1, limit, 0, &b);
      if (!same(&a, &b))
         die("pieces changed the result (limit)", a.n, b.n);
      /* as STREAM chunks with raw_ends (mostly plausible ones: up to 8 raw
         bytes per byte, even), whole chunks vs pieces */
      nb = 1 + prng_next(&r) % 6;
      for (k = 0; k < nb; k++) {
         size_t len = k + 1 == nb ? size - at
                      : (size_t)(prng_next(&r) % (size - at + 1));
         uint32_t x = prng_next(&r);
         raw += (x & 7) == 0 ? x % 7 : 2 * (1 + (x >> 3) % (4 * len + 1));
         at += len;
         bounds[k].end = at;
         bounds[k].raw_end = raw;
         bounds[k].events = -1;
      }
      decode_chunked(kind, data, bounds, nb, &r, 0, 0, &a);
      decode_chunked(kind, data, bounds, nb, &r, 1, 0, &b);
      if (!same(&a, &b))
         die("pieces changed the result (chunks)", a.n, b.n);
   }
}

/* ---- round trip ------------------------------------------------------- */

static uint32_t *events;
static size_t n_events;
static uint8_t *sink;
static size_t sink_len, sink_cap;

static void push_event(uint32_t v)
{
   if (n_events < MAX_EVENTS)
      events[n_events++] = v;
}

/* The input as a little program: each op byte (then operands) appends
   events; "repeat" ops make long matches cheaply. */
static void gen_events(const uint8_t *d, size_t n)
{
   size_t k = 0;
   n_events = 0;
   while (k < n && n_events < MAX_EVENTS) {
      uint8_t op = d[k++];
      switch (op >> 5) {
      case 0: case 1:                    /* exit */
         push_event(0);
         break;
      case 2: case 3:                    /* small ID */
         push_event(1 + (op & 7));
         break;
      case 4: {                          /* ID near the escape boundary */
         static const uint32_t edge[8] = { 0xFFFE, 0xFFFF, 0x10000, 0x7FFF,
                                           0x8000, 0xFFFFFFFF, 0xFF, 0x100 };
         push_event(edge[op & 7]);
         break;
      }
      case 5: {                          /* any 32-bit ID */
         uint32_t id = 0;
         int b;
         for (b = 0; b < 4 && k < n; b++)
            id = id << 8 | d[k++];
         push_event(id ? id : 1);
         break;
      }
      default: {                         /* repeat the last L events T times */
         size_t len = 1 + (op & 31), times, t, j;
         times = k < n ? 1 + d[k++] : 1;
         if (op >= 0xF0 && k < n)
            times *= 1 + d[k++];            /* long repeats */
         if (len > n_events)
            len = n_events;
         for (t = 0; t < times && n_events < MAX_EVENTS; t++)
            for (j = 0; j < len && n_events < MAX_EVENTS; j++)
               push_event(events[n_events - len]);
         break;
      }
      }
   }
}

static void sink_add(const uint8_t *p, size_t n)
{
   if (sink_len + n > sink_cap) {
      sink_cap = (sink_len + n) * 2;
      sink = realloc(sink, sink_cap);
      if (!sink)
         abort();
   }
   memcpy(sink + sink_len, p, n);
   sink_len += n;
}

/* A chunk boundary at the end of the ready bytes (if any are new). */
static void add_bound(const pl_encoder *e, long events_at)
{
   size_t end = (size_t)e->out_total + pl_enc_ready(e);
   if (end == (n_bounds > 0 ? bounds[n_bounds - 1].end : 0)) {
      /* nothing new: the last chunk (if any) already ends here */
      if (events_at >= 0 && n_bounds > 0)
         bounds[n_bounds - 1].events = events_at;
      else if (events_at > 0)
         die("events but no bytes", (size_t)events_at, end);
      return;
   }
   if (n_bounds > 0 && bounds[n_bounds - 1].raw_end >= pl_enc_ready_raw(e))
      die("raw_end does not grow with the ready bytes", end, n_bounds);
   bounds[n_bounds].end = end;
   bounds[n_bounds].raw_end = pl_enc_ready_raw(e);
   bounds[n_bounds].events = events_at;
   n_bounds++;
}

static void check_prefix(int kind, const pl_encoder *e, size_t upto,
                         uint32_t start_pos, prng *r)
{
   /* the flushed bytes plus the ready part of the buffer, in the chunks
      so far and one more up to the end of the ready bytes */
   size_t keep = sink_len, keep_b = n_bounds;
   dec_result a = { vals_a, 0, 0, 0 };
   sink_add(e->out, pl_enc_ready(e));
   add_bound(e, -1);
   decode_chunked(kind, sink, bounds, n_bounds, r, 1, start_pos, &a);
   if (n_bounds > keep_b)
      n_bounds = keep_b;
   sink_len = keep;
   if (a.error || a.n > upto || memcmp(a.v, events, a.n * sizeof *events) != 0)
      die("flushed prefix does not decode to a prefix", a.n, upto);
}

static void fuzz_roundtrip(const uint8_t *data, size_t size)
{
   static uint8_t buf[2 * PL_ENC_MAX_EVENT_BYTES + 64 * 6];
   static pl_encoder e;
   int kind;
   prng r;
   uint32_t start_pos = 0;

   if (size == 0)
      return;
   gen_events(data + 1, size - 1);
   /* the first byte picks options */
   if (data[0] & 0x80)
      start_pos = 0xFFFFFFFFu - (uint32_t)(data[0] & 0x3F) * 1000u;
   for (kind = PL_CODEC_LZZE; kind <= PL_CODEC_CCM; kind++) {
      static const uint32_t every[4] = { 0, 2, 17, 300 };
      /* what a sync may add: LZZE a match length and a bitmap */
      size_t sync_max = kind == PL_CODEC_LZZE ? 12 : PL_ENC_MAX_EVENT_BYTES;
      dec_result a = { vals_a, 0, 0, 0 };
      size_t k, cap = 2 * PL_ENC_MAX_EVENT_BYTES + (data[0] & 0x3F) * 6;
      size_t prefix_at = n_events;
      uint32_t sync_every;
      r.s = seed_of(data, size) ^ (uint64_t)kind;
      if (data[0] & 0x40)
         prefix_at = n_events ? prng_next(&r) % n_events : 0;
      sync_every = every[prng_next(&r) & 3];
      sink_len = 0;
      n_bounds = 0;
      pl_enc_init(&e, kind, buf, cap);
      if (kind == PL_CODEC_LZRC)
         e.rc.pos = start_pos;
      else if (!pl_codec_is_ccm(kind))
         e.lz.pos = start_pos;
      for (k = 0; k < n_events; k++) {
         size_t before;
         if ((kind == PL_CODEC_LZRC || pl_codec_is_ccm(kind))
             && e.out_cap - e.out_len < PL_ENC_MAX_EVENT_BYTES) {
            /* LZRC and CCM chunks end at syncs: make the full buffer ready */
            pl_enc_sync(&e);
            add_bound(&e, (long)k);
         }
         if (e.out_cap - e.out_len < PL_ENC_MAX_EVENT_BYTES
             || (prng_next(&r) & 7) == 0) {
            size_t room = e.out_cap - e.out_len, ready = pl_enc_ready(&e);
            size_t need = room < PL_ENC_MAX_EVENT_BYTES
                          ? PL_ENC_MAX_EVENT_BYTES - room : 0;
            size_t c = ready < need ? ready
                       : need + prng_next(&r) % (ready - need + 1);
            sink_add(e.out, c);
            pl_enc_consume(&e, c);
            if (e.out_cap - e.out_len < PL_ENC_MAX_EVENT_BYTES)
               die("no room after consume", e.out_len, cap);
         }
         before = e.out_len;
         if (events[k]) pl_enc_enter(&e, events[k]);
         else pl_enc_exit(&e);
         if (e.out_len - before > PL_ENC_MAX_EVENT_BYTES)
            die("event exceeded PL_ENC_MAX_EVENT_BYTES", k, e.out_len - before);
         {
            uint32_t x = prng_next(&r);
            int sync = (sync_every && x % sync_every == 0)
                       || ((e.match_len > 500 || (pl_codec_is_ccm(kind)
                                                  && e.ccm.run_len > 500))
                           && (x >> 16) % 32 == 0)
                       || (events[k] > PL_MAX_SHORT_ID && (x >> 24) % 4 == 0);
            if (sync) {
               if (e.out_cap - e.out_len < PL_ENC_MAX_EVENT_BYTES) {
                  sink_add(e.out, pl_enc_ready(&e));
                  pl_enc_consume(&e, pl_enc_ready(&e));
               }
               before = e.out_len;
               pl_enc_sync(&e);
               if (e.out_len - before > sync_max || pl_enc_ready(&e) != e.out_len
                   || pl_enc_ready_raw(&e) != e.raw_bytes)
                  die("sync", e.out_len - before, pl_enc_ready(&e));
               add_bound(&e, (long)k + 1);
            } else if ((x >> 8) % 8 == 0) {
               add_bound(&e, -1);     /* a chunk ends at the ready bytes */
            }
         }
         if (k == prefix_at)
            check_prefix(kind, &e, k + 1, start_pos, &r);
      }
      if (e.out_cap - e.out_len < PL_ENC_MAX_EVENT_BYTES) {
         sink_add(e.out, pl_enc_ready(&e));
         pl_enc_consume(&e, pl_enc_ready(&e));
      }
      pl_enc_sync(&e);
      if (pl_enc_ready(&e) != e.out_len)
         die("finish left unready bytes", pl_enc_ready(&e), e.out_len);
      add_bound(&e, (long)n_events);
      sink_add(e.out, e.out_len);
      pl_enc_consume(&e, e.out_len);
      if (e.out_total != sink_len || e.events != n_events)
         die("totals", (size_t)e.out_total, sink_len);

      if (n_bounds == 0 ? sink_len != 0 : bounds[n_bounds - 1].end != sink_len)
         die("the chunks do not cover the stream", n_bounds, sink_len);
      decode_chunked(kind, sink, bounds, n_bounds, &r, 1, start_pos, &a);
      if (a.error)
         die(a.error, a.n, n_events);
      if (a.n != n_events || memcmp(a.v, events, a.n * sizeof *events) != 0)
         die("round trip mismatch", a.n, n_events);
      if (!a.boundary)
         die("round trip not at a boundary", a.n, n_events);
   }
}

static void init_once(void)
{
   if (!vals_a) {
      vals_a = malloc(MAX_VALUES * sizeof *vals_a);
      vals_b = malloc(MAX_VALUES * sizeof *vals_b);
      events = malloc(MAX_EVENTS * sizeof *events);
      bounds = malloc((2 * (size_t)MAX_EVENTS + 16) * sizeof *bounds);
      sink_cap = 1 << 16;
      sink = malloc(sink_cap);
      if (!vals_a || !vals_b || !events || !sink || !bounds)
         abort();
   }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   init_once();
   fuzz_decoder(data, size);
   fuzz_roundtrip(data, size);
   return 0;
}

#ifdef PL_FUZZ_STANDALONE
#include <dirent.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
   FILE *f = fopen(path, "rb");
   uint8_t *d = 0;
   size_t n = 0, cap = 0, got;
   if (!f) { perror(path); return 1; }
   do {
      if (n == cap) {
         cap = cap ? cap * 2 : 4096;
         d = realloc(d, cap);
         if (!d) abort();
      }
      got = fread(d + n, 1, cap - n, f);
      n += got;
   } while (got);
   fclose(f);
   LLVMFuzzerTestOneInput(d, n);
   free(d);
   return 0;
}

static int run_path(const char *path, size_t *count)
{
   struct stat st;
   if (stat(path, &st) != 0) { perror(path); return 1; }
   if (S_ISDIR(st.st_mode)) {
      DIR *dir = opendir(path);
      struct dirent *de;
      int bad = 0;
      char full[4096];
      if (!dir) { perror(path); return 1; }
      while ((de = readdir(dir))) {
         if (de->d_name[0] == '.')
            continue;
         snprintf(full, sizeof full, "%s/%s", path, de->d_name);
         bad |= run_path(full, count);
      }
      closedir(dir);
      return bad;
   }
   (*count)++;
   return run_file(path);
}

int main(int argc, char **argv)
{
   size_t count = 0;
   int i, bad = 0;
   for (i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--random") && i + 1 < argc) {
         /* random inputs: a quick smoke run without a corpus */
         long k, n = atol(argv[++i]);
         prng r = { 12345 };
         static uint8_t d[2048];
         for (k = 0; k < n; k++) {
            size_t len = prng_next(&r) % sizeof d, j;
            uint32_t density = 1 + prng_next(&r) % 4;
            for (j = 0; j < len; j++) {
               uint32_t x = prng_next(&r);
               d[j] = x % density ? (uint8_t)(x >> 8) : 0;
            }
            LLVMFuzzerTestOneInput(d, len);
            count++;
         }
         continue;
      }
      bad |= run_path(argv[i], &count);
   }
   printf("fuzz_codec: %zu inputs replayed, no failures\n", count);
   return bad;
}
#endif
