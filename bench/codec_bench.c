/* Codec micro-benchmark: encode/decode speed, per-event latency and
   compression ratio of the ParLoT stream codec on generated call streams.

   Build and run (from the repository root):
     gcc -O2 -Icommon bench/codec_bench.c common/pl_codec.c -o codec_bench
     ./codec_bench            # fib(30) and friends
     ./codec_bench 32         # fib(32)

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
static uint32_t *lat;          /* ticks per event */
static uint32_t *lat_min;      /* per-event minimum over the runs */
static uint32_t raw_max;       /* largest single sample of the last run */
static size_t lat_n, lat_cap;

static void drain(size_t n)
{
   if (sink_len + n > sink_cap) {
      sink_cap = (sink_len + n) * 2;
      sink = realloc(sink, sink_cap);
      if (!sink) { perror("realloc"); exit(2); }
   }
   memcpy(sink + sink_len, enc.out, n);
   sink_len += n;
   pl_enc_consume(&enc, n);
}

static inline void make_room(void)
{
   if (enc.out_cap - enc.out_len < PL_ENC_MAX_EVENT_BYTES)
      drain(pl_enc_ready(&enc));
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
} stream;

static void run(const stream *s)
{
   double t0, enc_s, dec_best = 1e30, pct[4];
   uint64_t events, words, raw_bytes;
   static const double q[4] = { 0.50, 0.99, 0.9999, 1.0 };
   uint32_t *vals = malloc(sizeof(uint32_t) << 16);
   int rep, k;

   /* pass 1: throughput */
   sink_len = 0;
   pl_enc_init(&enc, s->kind, enc_buf, sizeof enc_buf);
   timing = 0;
   rng = 88172645463325252ull;
   t0 = now();
   s->gen();
   pl_enc_sync(&enc);
   enc_s = now() - t0;
   drain(enc.out_len);
   events = enc.events;
   words = enc.words;
   raw_bytes = enc.raw_bytes;

   /* pass 2: per-event latency.  The stream is deterministic, so event i
      does the same work in every run: keep each event's minimum over
      LAT_RUNS runs, which removes interrupts and preemption (noise of the
      machine, not of the codec) while keeping every codec slow path. */
   {
      size_t keep = sink_len, i;
      int r;
      for (r = 0; r < LAT_RUNS; r++) {
         lat_n = 0;
         pl_enc_init(&enc, s->kind, enc_buf, sizeof enc_buf);
         timing = 1;
         rng = 88172645463325252ull;
         s->gen();
         timing = 0;
         pl_enc_sync(&enc);
         sink_len = keep;      /* identical bytes; keep the first copy */
         if (r == 0) {
            lat_min = realloc(lat_min, lat_n * sizeof *lat_min);
            if (!lat_min) { perror("realloc"); exit(2); }
            memcpy(lat_min, lat, lat_n * sizeof *lat);
         } else {
            for (i = 0; i < lat_n; i++)
               if (lat[i] < lat_min[i]) lat_min[i] = lat[i];
         }
      }
      raw_max = 0;
      for (i = 0; i < lat_n; i++)
         if (lat[i] > raw_max) raw_max = lat[i];
      memcpy(lat, lat_min, lat_n * sizeof *lat);
      qsort(lat, lat_n, sizeof *lat, cmp_u32);
      for (k = 0; k < 4; k++) {
         size_t at = (size_t)(q[k] * (double)(lat_n - 1));
         double t = (double)lat[at] - tick_overhead;
         pct[k] = (t < 0 ? 0 : t) * tick_ns;
      }
   }

   /* decode: best of 5 */
   for (rep = 0; rep < 5; rep++) {
      static pl_decoder d;
      const uint8_t *p = sink, *end = sink + sink_len;
      uint64_t got = 0, sum = 0;
      double t;
      pl_dec_init(&d, s->kind);
      pl_dec_set_raw_limit(&d, raw_bytes);
      t = now();
      for (;;) {
         long r = pl_dec_run(&d, &p, end, vals, 1 << 16);
         if (r < 0) { fprintf(stderr, "%s: decode error: %s\n", s->name, d.error); exit(1); }
         if (r == 0) break;
         got += (uint64_t)r;
         sum += vals[r - 1];
      }
      t = now() - t;
      (void)sum;
      if (got != events) {
         fprintf(stderr, "%s: decoded %llu values, expected %llu\n", s->name,
                 (unsigned long long)got, (unsigned long long)events);
         exit(1);
      }
      if (t < dec_best) dec_best = t;
   }

   printf("%-10s %-5s %10llu %7.2f %7.1f %7.1f %8.1f %8.1f %9.0f %9.1f %10zu %9.1f\n",
          s->name, s->kind == PL_CODEC_RAW ? "raw" : "lzze",
          (unsigned long long)events, enc_s * 1e9 / (double)events,
          pct[0], pct[1], pct[2], pct[3],
          ((double)raw_max - tick_overhead) * tick_ns,
          (double)words * 2.0 / (double)sink_len, sink_len,
          (double)events / dec_best / 1e6);
   free(vals);
}

int main(int argc, char **argv)
{
   char fibname[32];
   stream streams[] = {
      { fibname, PL_CODEC_LZZE, gen_fib },
      { fibname, PL_CODEC_RAW, gen_fib },
      { "app", PL_CODEC_LZZE, gen_app },
      { "random", PL_CODEC_LZZE, gen_random },
      { "random", PL_CODEC_RAW, gen_random },
   };
   size_t k;

   fib_n = argc > 1 ? (unsigned)atoi(argv[1]) : 30;
   snprintf(fibname, sizeof fibname, "fib(%u)", fib_n);
   calibrate();

   printf("timer %s: %.3f ns/tick, overhead %.0f ticks subtracted\n\n",
          TICK_NAME, tick_ns, tick_overhead);
   printf("%-10s %-5s %10s %7s %7s %7s %8s %8s %9s %9s %10s %9s\n",
          "stream", "codec", "events", "enc", "p50", "p99", "p99.99", "max",
          "max(1run)", "ratio", "bytes", "decode");
   printf("%-10s %-5s %10s %7s %7s %7s %8s %8s %9s %9s %10s %9s\n",
          "", "", "", "ns/ev", "ns", "ns", "ns", "ns", "ns", "", "", "Mev/s");
   for (k = 0; k < sizeof streams / sizeof streams[0]; k++)
      run(&streams[k]);
   printf("\nenc: whole run / events (includes the generator); p50..max: one\n"
          "pl_enc_enter/exit call, per-event minimum of %d identical runs;\n"
          "max(1run): largest raw sample of one run (includes interrupts);\n"
          "on a shared machine the per-event minimum still keeps some noise\n"
          "(the max of a few hundred ns moves between runs);\n"
          "ratio: 2 bytes per LZ input word / encoded bytes; decode: best of 5.\n",
          LAT_RUNS);
   free(sink);
   free(lat);
   free(lat_min);
   return 0;
}
