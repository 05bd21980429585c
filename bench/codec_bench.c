/* SPDX-License-Identifier: MIT */
/* Codec micro-benchmark: encode/decode speed, per-event latency and
   compression ratio of the ParLoT stream codec on generated call streams,
   or on the value-layer words of a real trace.

   Build and run (from the repository root):
     gcc -O2 -Icommon bench/codec_bench.c common/pl_*.c -o codec_bench
     ./codec_bench            # fib(30) and friends
     ./codec_bench 32         # fib(32)
     ./codec_bench --words FILE [--codec NAME]

   --words FILE: FILE holds little-endian 16-bit value-layer words as
   written by bench/trace_words (0 = exit, 0xFFFF + two words = entry of a
   large ID, else an entry), e.g. the raw stream of a --compress=no trace.
   Its events are encoded as one stream of the default codec, CCM (or of
   the codec NAME, as parlot-decode --info names it: an older revision of
   CCM, lzrc, lzze; --lzrc and --lzze are short for --codec lzrc and
   --codec lzze), the threads one after the other,
   timed as below (LAT_RUNS_WORDS runs for the latency), decoded back and
   compared with the input: any difference is an error (exit 1).  Prints
   one line of "name value" pairs: events, bytes (of FILE), encoded, ratio,
   enc_ns (per event), p50_ns, p99_ns, p9999_ns, max_ns, max1_ns,
   decode_mev_s (same meanings as the columns below).

   Streams:
     fib(N)   a real recursive fib whose every call and return calls
              pl_enc_enter / pl_enc_exit (the encoder drained with
              pl_enc_consume whenever less than PL_ENC_MAX_EVENT_BYTES are
              free, as the tool does);
     app      a time-step loop with data-dependent inner calls and rare
              irregular calls (see gen_app);
     random   uniformly random entries/exits over 1000 IDs (the LZ worst
              case: almost nothing matches).
   Columns: encode ns/event (whole run / events), latency percentiles of a
   single pl_enc_enter/exit call (rdtsc, calibrated, timer overhead
   subtracted; per-event minimum over 5 identical runs), compression ratio against raw 2-byte words, and decode
   throughput in events/s (best of 5). */

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pl_codec.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t ticks(void) { return __rdtsc(); }
#define TICK_NAME "rdtsc"
#else
static inline uint64_t ticks(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define TICK_NAME "clock_gettime"
#endif

static double now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the encoder under test, drained into a growable sink ------------- */

static pl_encoder enc;
static uint8_t enc_buf[1 << 16];
static uint8_t *sink;
static size_t sink_len, sink_cap;

/* latency pass */
static int timing;
#define LAT_RUNS 7
#define LAT_RUNS_WORDS 3       /* real traces are long: fewer runs */
static uint32_t *lat;          /* ticks per event */
static uint32_t *lat_min;      /* per-event minimum over the runs */
static size_t lat_n, lat_cap;

/* The sink's chunks, as the tool writes them: where each ends in the sink
   and its raw_end. */
static size_t *chunk_end;
static uint64_t *chunk_raw;
static size_t n_chunks, chunks_cap;

/* Sync, and move everything to the sink as one chunk (what the tool does
   when a buffer is full, at a flush and at the end). */
static void write_chunk(void)
{
   size_t n;
   pl_enc_sync(&enc);
   n = pl_enc_ready(&enc);
   if (n == 0)
      return;
   if (sink_len + n > sink_cap) {
      sink_cap = (sink_len + n) * 2;
      sink = realloc(sink, sink_cap);
      if (!sink) { perror("realloc"); exit(2); }
   }
   if (n_chunks == chunks_cap) {
      chunks_cap = chunks_cap ? 2 * chunks_cap : 256;
      chunk_end = realloc(chunk_end, chunks_cap * sizeof *chunk_end);
      chunk_raw = realloc(chunk_raw, chunks_cap * sizeof *chunk_raw);
      if (!chunk_end || !chunk_raw) { perror("realloc"); exit(2); }
   }
   memcpy(sink + sink_len, enc.out, n);
   sink_len += n;
   chunk_end[n_chunks] = sink_len;
   chunk_raw[n_chunks++] = pl_enc_ready_raw(&enc);
   pl_enc_consume(&enc, n);
}

static inline void make_room(void)
{
   if (enc.out_cap - enc.out_len < PL_ENC_MAX_EVENT_BYTES)
      write_chunk();
}

static inline void record(uint64_t t)
{
   if (lat_n == lat_cap) {
      lat_cap = lat_cap ? lat_cap * 2 : 1 << 20;
      lat = realloc(lat, lat_cap * sizeof *lat);
      if (!lat) { perror("realloc"); exit(2); }
   }
   lat[lat_n++] = t > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)t;
}

static inline void ev_enter(uint32_t id)
{
   make_room();
   if (timing) {
      uint64_t t0 = ticks();
      pl_enc_enter(&enc, id);
      record(ticks() - t0);
   } else {
      pl_enc_enter(&enc, id);
   }
}

static inline void ev_exit(void)
{
   make_room();
   if (timing) {
      uint64_t t0 = ticks();
      pl_enc_exit(&enc);
      record(ticks() - t0);
   } else {
      pl_enc_exit(&enc);
   }
}

/* ---- stream generators --------------------------------------------------- */

static unsigned fib_n;
static volatile unsigned long sink_fib;

static unsigned long fib(unsigned n)
{
   unsigned long r;
   ev_enter(42);
   r = n < 2 ? n : fib(n - 1) + fib(n - 2);
   ev_exit();
   return r;
}
static void gen_fib(void)
{
   ev_enter(1);                /* main */
   sink_fib = fib(fib_n);
   ev_exit();
}

static uint64_t rng = 88172645463325252ull;
static inline uint64_t xrand(void)
{
   rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
   return rng;
}

static void gen_app(void)
{
   unsigned s, k;
   ev_enter(1);
   for (s = 0; s < 300000; s++) {
      ev_enter(2);
      for (k = 0; k < 4 + (s % 3); k++) {
         ev_enter(3);
         ev_enter(4); ev_exit();
         if ((k + s) % 5 == 0) { ev_enter(5); ev_exit(); }
         ev_exit();
      }
      if (xrand() % 1000 == 0) { ev_enter(6 + (uint32_t)(xrand() % 50)); ev_exit(); }
      ev_exit();
   }
   ev_exit();
}

static void gen_random(void)
{
   unsigned k;
   for (k = 0; k < 4000000; k++) {
      if (xrand() & 1) ev_enter(1 + (uint32_t)(xrand() % 1000));
      else ev_exit();
   }
}

/* A real trace's events (0 = exit, else the ID entered), from --words. */
static uint32_t *word_ev;
static size_t word_n;

static void gen_words(void)
{
   size_t i;
   for (i = 0; i < word_n; i++) {
      if (word_ev[i]) ev_enter(word_ev[i]);
      else ev_exit();
   }
}

/* ---- measurement ---------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
   uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
   return x < y ? -1 : x > y;
}

static double tick_ns;         /* ns per tick */
static double tick_overhead;   /* ticks of an empty timed region */

static void calibrate(void)
{
   double t0 = now(), t1;
   uint64_t c0 = ticks(), c1, best = UINT64_MAX;
   int k;
   do { t1 = now(); } while (t1 - t0 < 0.2);
   c1 = ticks();
   tick_ns = (t1 - t0) * 1e9 / (double)(c1 - c0);
   for (k = 0; k < 1000000; k++) {
      uint64_t a = ticks(), b = ticks();
      if (b - a < best) best = b - a;
   }
   tick_overhead = (double)best;
}

typedef struct {
   const char *name;
   int kind;
   void (*gen)(void);
   const uint32_t *expect;     /* values the decoder must give, or NULL */
} stream;

typedef struct {
   uint64_t events, words, raw_bytes;
   double enc_ns;              /* per event, whole untimed run */
   double pct[4];              /* p50, p99, p99.99, max of the per-event minimum */
   double max1_ns;             /* largest single sample of the last run */
   double dec_mev_s;           /* decode, best of 5 */
} result;

/* One encode without timers: the throughput. */
static void encode_throughput(const stream *s, result *res)
{
   double t0;
   sink_len = 0;
   n_chunks = 0;
   pl_enc_init(&enc, s->kind, enc_buf, sizeof enc_buf);
   timing = 0;
   rng = 88172645463325252ull;
   t0 = now();
   s->gen();
   write_chunk();
   t0 = now() - t0;
   res->enc_ns = enc.events ? t0 * 1e9 / (double)enc.events : 0;
   res->events = enc.events;
   res->words = enc.words;
   res->raw_bytes = enc.raw_bytes;
}

/* The q-quantile of v[0..n) (the value at rank q * (n - 1) in sorted
   order), by a histogram rather than a sort: real traces have tens of
   millions of events.  Values past the histogram are rare (interrupts):
   they are ranked by a sort of their own. */
#define HIST_TICKS (1u << 20)
static uint32_t quantile(const uint32_t *v, size_t n, double q)
{
   static uint32_t hist[HIST_TICKS];
   size_t rank = (size_t)(q * (double)(n ? n - 1 : 0)), seen = 0, i, big = 0;
   uint32_t *tail, t;

   if (n == 0)
      return 0;
   memset(hist, 0, sizeof hist);
   for (i = 0; i < n; i++) {
      if (v[i] < HIST_TICKS) hist[v[i]]++;
      else big++;
   }
   for (t = 0; t < HIST_TICKS; t++) {
      seen += hist[t];
      if (seen > rank)
         return t;
   }
   tail = malloc(big * sizeof *tail);
   if (!tail) { perror("malloc"); exit(2); }
   for (i = 0, big = 0; i < n; i++)
      if (v[i] >= HIST_TICKS) tail[big++] = v[i];
   qsort(tail, big, sizeof *tail, cmp_u32);
   t = tail[rank - seen];
   free(tail);
   return t;
}

static double ticks_to_ns(double t)
{
   t -= tick_overhead;
   return (t < 0 ? 0 : t) * tick_ns;
}

/* Per-event latency.  The stream is deterministic, so event i does the same
   work in every run: keep each event's minimum over the runs, which removes
   interrupts and preemption (noise of the machine, not of the codec) while
   keeping every codec slow path. */
static void encode_latency(const stream *s, int runs, result *res)
{
   static const double q[4] = { 0.50, 0.99, 0.9999, 1.0 };
   size_t keep = sink_len, keep_chunks = n_chunks, i;
   uint32_t raw_max = 0;
   int r, k;

   for (r = 0; r < runs; r++) {
      lat_n = 0;
      pl_enc_init(&enc, s->kind, enc_buf, sizeof enc_buf);
      timing = 1;
      rng = 88172645463325252ull;
      s->gen();
      timing = 0;
      write_chunk();
      sink_len = keep;         /* identical bytes; keep the first copy */
      n_chunks = keep_chunks;
      if (r == 0) {
         lat_min = realloc(lat_min, (lat_n ? lat_n : 1) * sizeof *lat_min);
         if (!lat_min) { perror("realloc"); exit(2); }
         memcpy(lat_min, lat, lat_n * sizeof *lat);
      } else {
         for (i = 0; i < lat_n; i++)
            if (lat[i] < lat_min[i]) lat_min[i] = lat[i];
      }
   }
   for (i = 0; i < lat_n; i++)
      if (lat[i] > raw_max) raw_max = lat[i];
   res->max1_ns = ticks_to_ns((double)raw_max);
   for (k = 0; k < 4; k++)
      res->pct[k] = ticks_to_ns((double)quantile(lat_min, lat_n, q[k]));
}

/* Decode the sink (best of 5 for the speed); its values must number
   res->events and, when s->expect is set, equal s->expect. */
static void decode_check(const stream *s, result *res)
{
   static uint32_t vals[1 << 16];
   double best = 1e30;
   int rep;

   for (rep = 0; rep < 5; rep++) {
      static pl_decoder d;
      const uint8_t *p = sink;
      uint64_t got = 0, sum = 0;
      double t;
      long r = 0, k;
      size_t c;
      pl_dec_init(&d, s->kind);
      t = now();
      for (c = 0; c < n_chunks && r >= 0; c++) {
      pl_dec_set_raw_limit(&d, chunk_raw[c]);
      while ((r = pl_dec_run(&d, &p, sink + chunk_end[c], vals, 1 << 16)) > 0) {
         if (s->expect && rep == 0) {
            for (k = 0; k < r && got + (uint64_t)k < res->events; k++)
               if (vals[k] != s->expect[got + (uint64_t)k]) {
                  fprintf(stderr, "%s: decoded event %llu is %u, encoded %u\n",
                          s->name, (unsigned long long)(got + (uint64_t)k),
                          vals[k], s->expect[got + (uint64_t)k]);
                  exit(1);
               }
         }
         got += (uint64_t)r;
         sum += vals[r - 1];
      }
      if (r < 0 || pl_dec_end_chunk(&d) != PL_DEC_OK) {
         fprintf(stderr, "%s: decode error: %s\n", s->name, d.error);
         exit(1);
      }
      }
      t = now() - t;
      (void)sum;
      if (got != res->events) {
         fprintf(stderr, "%s: decoded %llu values, expected %llu\n", s->name,
                 (unsigned long long)got, (unsigned long long)res->events);
         exit(1);
      }
      if (t < best) best = t;
   }
   res->dec_mev_s = (double)res->events / best / 1e6;
}

static void measure(const stream *s, int lat_runs, result *res)
{
   encode_throughput(s, res);
   encode_latency(s, lat_runs, res);
   decode_check(s, res);
}

/* ---- generated streams: a table ------------------------------------------ */

static void run_generated(unsigned n)
{
   char fibname[32];
   stream streams[] = {
      { fibname, PL_CODEC_CCM, gen_fib, NULL },
      { fibname, PL_CODEC_LZRC, gen_fib, NULL },
      { fibname, PL_CODEC_LZZE, gen_fib, NULL },
      { fibname, PL_CODEC_RAW, gen_fib, NULL },
      { "app", PL_CODEC_CCM, gen_app, NULL },
      { "app", PL_CODEC_LZRC, gen_app, NULL },
      { "app", PL_CODEC_LZZE, gen_app, NULL },
      { "random", PL_CODEC_CCM, gen_random, NULL },
      { "random", PL_CODEC_LZRC, gen_random, NULL },
      { "random", PL_CODEC_LZZE, gen_random, NULL },
      { "random", PL_CODEC_RAW, gen_random, NULL },
   };
   size_t k;

   fib_n = n;
   snprintf(fibname, sizeof fibname, "fib(%u)", fib_n);
   printf("timer %s: %.3f ns/tick, overhead %.0f ticks subtracted\n\n",
          TICK_NAME, tick_ns, tick_overhead);
   printf("%-10s %-5s %10s %7s %7s %7s %8s %8s %9s %9s %10s %9s\n",
          "stream", "codec", "events", "enc", "p50", "p99", "p99.99", "max",
          "max(1run)", "ratio", "bytes", "decode");
   printf("%-10s %-5s %10s %7s %7s %7s %8s %8s %9s %9s %10s %9s\n",
          "", "", "", "ns/ev", "ns", "ns", "ns", "ns", "ns", "", "", "Mev/s");
   for (k = 0; k < sizeof streams / sizeof streams[0]; k++) {
      const stream *s = &streams[k];
      result r;
      measure(s, LAT_RUNS, &r);
      printf("%-10s %-5s %10llu %7.2f %7.1f %7.1f %8.1f %8.1f %9.0f %9.1f %10zu %9.1f\n",
             s->name, pl_codec_name(s->kind),
             (unsigned long long)r.events, r.enc_ns, r.pct[0], r.pct[1],
             r.pct[2], r.pct[3], r.max1_ns,
             (double)r.words * 2.0 / (double)sink_len, sink_len, r.dec_mev_s);
   }
   printf("\nenc: whole run / events (includes the generator); p50..max: one\n"
          "pl_enc_enter/exit call, per-event minimum of %d identical runs;\n"
          "max(1run): largest raw sample of one run (includes interrupts);\n"
          "on a shared machine the per-event minimum still keeps some noise\n"
          "(the max of a few hundred ns moves between runs);\n"
          "ratio: 2 bytes per LZ input word / encoded bytes; decode: best of 5.\n",
          LAT_RUNS);
}

/* ---- a real trace's words: one line of numbers ------------------------- */

/* Reads FILE's words into word_ev (one value per event); returns FILE's
   size in bytes. */
static uint64_t load_words(const char *path)
{
   FILE *f = fopen(path, "rb");
   uint8_t w[2];
   size_t cap = 1 << 20, got;
   uint64_t bytes = 0;
   int esc = 0;          /* words of an escaped ID still to read */
   uint32_t id = 0;

   if (!f) { perror(path); exit(2); }
   word_ev = malloc(cap * sizeof *word_ev);
   while (word_ev && (got = fread(w, 1, 2, f)) == 2) {
      uint32_t v = (uint32_t)w[0] | (uint32_t)w[1] << 8;
      bytes += 2;
      if (esc) {
         id = id << 16 | v;
         if (--esc) continue;
         v = id;
      } else if (v == PL_WORD_ESCAPE) {
         esc = 2;
         id = 0;
         continue;
      }
      if (word_n == cap) {
         cap *= 2;
         word_ev = realloc(word_ev, cap * sizeof *word_ev);
         if (!word_ev) break;
      }
      word_ev[word_n++] = v;
   }
   if (!word_ev) { perror("realloc"); exit(2); }
   if (ferror(f) || got == 1 || esc) {
      fprintf(stderr, "%s: not a file of whole value-layer words\n", path);
      exit(1);
   }
   fclose(f);
   return bytes;
}

static void run_words(const char *path, int kind)
{
   uint64_t bytes = load_words(path);
   stream s = { path, kind, gen_words, word_ev };
   result r;

   measure(&s, LAT_RUNS_WORDS, &r);
   if (r.words * 2 != bytes) {
      fprintf(stderr, "%s: the encoder saw %llu words, the file holds %llu\n",
              path, (unsigned long long)r.words, (unsigned long long)bytes / 2);
      exit(1);
   }
   printf("events %llu bytes %llu encoded %zu ratio %.2f enc_ns %.2f "
          "p50_ns %.1f p99_ns %.1f p9999_ns %.1f max_ns %.1f max1_ns %.1f "
          "decode_mev_s %.1f\n",
          (unsigned long long)r.events, (unsigned long long)bytes, sink_len,
          sink_len ? (double)bytes / (double)sink_len : 0.0, r.enc_ns,
          r.pct[0], r.pct[1], r.pct[2], r.pct[3], r.max1_ns, r.dec_mev_s);
}

/* The codec named name (pl_codec_name's spelling), or 0. */
static int codec_named(const char *name)
{
   int kind;
   for (kind = PL_CODEC_LZZE; kind <= PL_CODEC_CCM; kind++)
      if (strcmp(pl_codec_name(kind), name) == 0)
         return kind;
   return 0;
}

int main(int argc, char **argv)
{
   int kind = 0;
   calibrate();
   if (argc >= 3 && strcmp(argv[1], "--words") == 0) {
      if (argc == 3)
         kind = PL_CODEC_CCM;
      else if (argc == 4 && (!strcmp(argv[3], "--lzze")
                             || !strcmp(argv[3], "--lzrc")))
         kind = codec_named(argv[3] + 2);
      else if (argc == 5 && !strcmp(argv[3], "--codec"))
         kind = codec_named(argv[4]);
   }
   if (kind != 0)
      run_words(argv[2], kind);
   else if (argc <= 2 && (argc == 1 || argv[1][0] != '-'))
      run_generated(argc > 1 ? (unsigned)atoi(argv[1]) : 30);
   else {
      fprintf(stderr, "usage: codec_bench [FIB_N] | codec_bench --words FILE "
              "[--codec NAME | --lzrc | --lzze]\n");
      return 2;
   }
   free(sink);
   free(lat);
   free(lat_min);
   free(word_ev);
   free(chunk_end);
   free(chunk_raw);
   return 0;
}
