/* SPDX-License-Identifier: MIT */
/* Tests of the per-event cost codec (pl_cost_codec.h), all revisions:
   every cost comes back exactly, chunk by chunk with the model carried
   over (and runs cut at chunk ends), for random and extreme costs, call
   stacks deeper than the model keeps, and programs whose costs repeat
   (which must cost a fraction of a bit per event, and with runs far
   less); damaged chunks are detected or decode to some costs, never
   crash, and take bounded work; a chunk that ends inside a run is
   damage.  Revision 2's sources: a loop whose costs follow a pattern
   longer than the contexts see is one run, and costs too large for the
   history are still coded exactly. */
#include <stdlib.h>
#include <string.h>

#include "pl_cost_codec.h"
#include "test_check.h"
#include "test_prng.h"

#define MAX_EVENTS 300000
#define MIN(a, b) ((a) < (b) ? (a) : (b))

static uint32_t value[MAX_EVENTS];
static uint64_t cost[MAX_EVENTS], back[MAX_EVENTS];
static uint8_t  coded[MAX_EVENTS * PL_COST_MAX_EVENT_BYTES / 8 + 4096];
static pl_cost_model enc_model, dec_model;
static unsigned revision;
static int use_some;    /* code with pl_cost_encode_some, decode with
                           pl_cost_decode_some */

/* Code events [0, n) in chunks of at most `chunk` events, the model
   carried over; returns the bytes and fills ends[] with each chunk's end
   offset and counts[] with its events. */
static size_t encode_chunks(size_t n, size_t chunk, size_t *ends,
                            size_t *counts, size_t *nchunks)
{
   size_t at = 0, i = 0, k = 0;
   pl_cost_model_init(&enc_model, 0, revision);
   while (i < n) {
      pl_rcc_enc e;
      size_t j;
      pl_rcc_enc_init(&e, coded + at);
      if (use_some) {
         for (j = 0; j < chunk && i < n; ) {
            size_t k = pl_cost_encode_some(&enc_model, &e, value + i,
                                           cost + i, MIN(chunk - j, n - i));
            j += k;
            i += k;
         }
      } else {
         for (j = 0; j < chunk && i < n; j++, i++)
            pl_cost_encode(&enc_model, &e, value[i], cost[i]);
      }
      pl_cost_encode_cut(&enc_model, &e);
      at += pl_rcc_enc_finish(&e);
      ends[k] = at;
      counts[k++] = j;
   }
   *nchunks = k;
   return at;
}

/* Decode what encode_chunks wrote: 1 if every chunk was read exactly. */
static int decode_chunks(size_t nchunks, const size_t *ends,
                         const size_t *counts)
{
   size_t k, i = 0, start = 0;
   int exact = 1;
   pl_cost_model_init(&dec_model, 0, revision);
   for (k = 0; k < nchunks; k++) {
      pl_rcc_dec d;
      size_t j;
      if (pl_rcc_dec_init(&d, coded + start, ends[k] - start))
         return 0;
      if (use_some) {
         for (j = 0; j < counts[k]; ) {
            size_t got = pl_cost_decode_some(&dec_model, &d, value + i,
                                             back + i, counts[k] - j);
            j += got;
            i += got;
         }
      } else {
         for (j = 0; j < counts[k]; j++, i++)
            back[i] = pl_cost_decode(&dec_model, &d, value[i]);
      }
      exact &= pl_cost_decode_cut(&dec_model) == 0 && pl_rcc_dec_exact(&d);
      start = ends[k];
   }
   return exact;
}

static size_t ends[MAX_EVENTS], counts[MAX_EVENTS];

static uint8_t coded_one[sizeof coded];

/* pl_cost_encode_some codes events [0, n) as pl_cost_encode does. */
static void same_bytes(const char *what, size_t n, size_t chunk)
{
   size_t nchunks, bytes, bytes_some;
   bytes = encode_chunks(n, chunk, ends, counts, &nchunks);
   memcpy(coded_one, coded, bytes);
   use_some = 1;
   bytes_some = encode_chunks(n, chunk, ends, counts, &nchunks);
   use_some = 0;
   CHECK(bytes == bytes_some && memcmp(coded, coded_one, bytes) == 0,
         "%s: pl_cost_encode_some codes other bytes (%zu, %zu)", what,
         bytes_some, bytes);
}

/* Round trip of events [0, n), decoded an event at a time and by
   pl_cost_decode_some: returns the coded bytes. */
static size_t round_trip(const char *what, size_t n, size_t chunk)
{
   size_t nchunks, bytes = encode_chunks(n, chunk, ends, counts, &nchunks);
   int some;
   for (some = 0; some < 2; some++) {
      int exact;
      size_t i, bad = 0;
      use_some = some;
      exact = decode_chunks(nchunks, ends, counts);
      use_some = 0;
      for (i = 0; i < n; i++)
         bad += back[i] != cost[i];
      CHECK(exact, "%s: chunks not decoded exactly%s", what,
            some ? " (pl_cost_decode_some)" : "");
      CHECK(bad == 0, "%s: %zu of %zu costs differ%s", what, bad, n,
            some ? " (pl_cost_decode_some)" : "");
   }
   return bytes;
}

/* A random valid stream of n events: entries of functions 1..nfns, exits
   never below depth 0, costs from `pick`. */
static void random_stream(prng *r, size_t n, uint32_t nfns,
                          uint64_t (*pick)(prng *, uint32_t))
{
   size_t i, depth = 0;
   for (i = 0; i < n; i++) {
      if (depth > 0 && prng_below(r, 2))
         value[i] = 0, depth--;
      else
         value[i] = 1 + (uint32_t)prng_below(r, nfns), depth++;
      cost[i] = pick(r, value[i]);
   }
}

static uint64_t pick_any(prng *r, uint32_t v)
{
   (void)v;
   switch (prng_below(r, 4)) {
   case 0:  return prng_below(r, 16);
   case 1:  return prng_next64(r) >> prng_below(r, 64);
   case 2:  return prng_below(r, 2) ? UINT64_MAX : (uint64_t)1 << 63;
   default: return prng_below(r, 100000);
   }
}

/* Costs fixed by the function (plus a rare outlier): a program's loop. */
static uint64_t pick_by_function(prng *r, uint32_t v)
{
   return prng_below(r, 1000) == 0 ? prng_below(r, 1u << 20) : 7u + 13u * v;
}

/* The loop of main calling f, g and h 50,000 times, each costing the
   same: n events. */
static size_t loop_stream(void)
{
   size_t n = 0, i;
   value[n] = 1, cost[n++] = 100;
   for (i = 0; i < 50000 && n + 6 < MAX_EVENTS; i++) {
      uint32_t f;
      for (f = 2; f <= 4; f++) {
         value[n] = f, cost[n++] = 5 + f;
         value[n] = 0, cost[n++] = 40 * f;
      }
   }
   value[n] = 0, cost[n++] = 3;
   return n;
}

/* A loop whose iteration i calls h(i % 5), then g five times, then f,
   which costs one of five amounts by i % 5: the contexts of f's entry
   (the event before, the last three costs) are the same in every
   iteration, but the last 20 events tell i % 5.  n events. */
static size_t phase_stream(void)
{
   static const uint64_t f_cost[5] = { 101, 257, 999, 4242, 31337 };
   size_t n = 0, i, k;
   value[n] = 1, cost[n++] = 100;
   for (i = 0; n + 16 < MAX_EVENTS; i++) {
      value[n] = 10 + (uint32_t)(i % 5), cost[n++] = 50;
      value[n] = 0, cost[n++] = 60;
      for (k = 0; k < 5; k++) {
         value[n] = 2, cost[n++] = 7;
         value[n] = 0, cost[n++] = 30;
      }
      value[n] = 3, cost[n++] = f_cost[i % 5];
      value[n] = 0, cost[n++] = 11;
   }
   value[n] = 0, cost[n++] = 3;
   return n;
}

/* The tests of one revision; returns the loop's bytes. */
static size_t test_revision(prng *pr)
{
   prng r = *pr;
   size_t n, i, bytes, loop_bytes;

   /* random costs, every size from 1 bit to 64, chunks of several sizes */
   random_stream(&r, 50000, 300, pick_any);
   round_trip("random, one chunk", 50000, 50000);
   round_trip("random, chunks of 4096", 50000, 4096);
   round_trip("random, chunks of 1", 2000, 1);

   /* a loop, in one chunk and cut into many */
   n = loop_stream();
   loop_bytes = bytes = round_trip("loop", n, n);
   CHECK(bytes * 8 < n / 10, "loop: %zu bytes for %zu events: more than "
         "0.1 bit per event", bytes, n);
   round_trip("loop, chunks of 1000", n, 1000);
   round_trip("loop, chunks of 17", n, 17);
   same_bytes("loop", n, 1000);

   /* the loop again, f costing more than 32 bits (which a source does
      not hold) */
   for (i = 0; i < n; i++)
      if (value[i] == 3)
         cost[i] = (uint64_t)1 << 40 | i % 3;
   round_trip("loop, costs above 32 bits", n, 4096);
   same_bytes("loop, costs above 32 bits", n, 4096);

   /* costs that depend on the function: mostly predicted */
   random_stream(&r, 200000, 20, pick_by_function);
   bytes = round_trip("by function", 200000, 4096);
   same_bytes("by function", 200000, 4096);
   CHECK(bytes < 200000 / 4, "by function: %zu bytes for 200000 events",
         bytes);

   /* a stack far deeper than the model's frames, and back */
   n = 0;
   for (i = 0; i < 3 * PL_COST_FRAMES; i++)
      value[n] = 1 + (uint32_t)(i % 7), cost[n++] = i;
   for (i = 0; i < 3 * PL_COST_FRAMES; i++)
      value[n] = 0, cost[n++] = 2 * i;
   round_trip("deep stack", n, 4096);

   /* damage: truncated, extended and flipped chunks are found or decode
      to something, without a crash */
   random_stream(&r, 20000, 100, pick_any);
   {
      size_t nchunks, total = encode_chunks(20000, 20000, ends, counts,
                                            &nchunks);
      unsigned trial, found = 0;
      for (trial = 0; trial < 200; trial++) {
         size_t len = trial < 100 ? 1 + prng_below(&r, total - 1) : total;
         pl_rcc_dec d;
         uint8_t save = coded[total];
         if (trial >= 100 && trial < 150)
            coded[prng_below(&r, total)] ^= (uint8_t)(1u << prng_below(&r, 8));
         if (trial >= 150)
            len = total + 1, coded[total] = (uint8_t)trial;
         pl_cost_model_init(&dec_model, 0, revision);
         if (pl_rcc_dec_init(&d, coded, len) != NULL) {
            found++;
         } else {
            size_t j, diff = 0;
            for (j = 0; j < 20000; j++)
               diff += pl_cost_decode(&dec_model, &d, value[j]) != cost[j];
            found += !pl_rcc_dec_exact(&d) || diff == 0;
         }
         coded[total] = save;
         if (trial >= 100 && trial < 150)   /* restore */
            encode_chunks(20000, 20000, ends, counts, &nchunks);
      }
      /* a truncation or an extra byte is always caught; a flipped bit
         may decode to other costs, which the test accepts */
      CHECK(found >= 150, "damaged chunks: %u of 200 detected", found);
   }
   *pr = r;
   return loop_bytes;
}

int main(void)
{
   prng r = { 42 };
   size_t rev0, rev1, rev2, phase1, phase2, n;

   revision = PL_COST_REV_CONTEXTS;
   rev0 = test_revision(&r);
   revision = PL_COST_REV_RUNS;
   rev1 = test_revision(&r);
   /* runs: the loop is one run, coded by its length */
   CHECK(rev1 * 8 < rev0, "runs: the loop takes %zu bytes, without runs "
         "%zu", rev1, rev0);
   n = phase_stream();
   phase1 = round_trip("phases, revision 1", n, n);
   revision = PL_COST_REV_SOURCES;
   rev2 = test_revision(&r);
   CHECK(rev2 <= rev1 + 16, "sources: the loop takes %zu bytes, with "
         "revision 1 %zu", rev2, rev1);
   /* sources: the pattern of five is guessed right from its sixth
      iteration on, which the contexts cannot do */
   n = phase_stream();
   phase2 = round_trip("phases", n, n);
   round_trip("phases, chunks of 777", n, 777);
   same_bytes("phases", n, 4096);
   printf("phases: %zu events, %zu bytes with revision 1, %zu with "
          "revision 2\n", n, phase1, phase2);
   CHECK(phase2 * 20 < phase1 && phase2 * 8 * 100 < n, "sources: the "
         "phases take %zu bytes, with revision 1 %zu", phase2, phase1);

   /* a chunk that ends inside a run (its count cut short) is damage */
   {
      pl_rcc_dec d;
      size_t j, nchunks;
      n = loop_stream();
      encode_chunks(n, n, ends, counts, &nchunks);
      pl_cost_model_init(&dec_model, 0, revision);
      CHECK(pl_rcc_dec_init(&d, coded, ends[0]) == NULL, "loop chunk: init");
      for (j = 0; j < n / 2; j++)
         (void)pl_cost_decode(&dec_model, &d, value[j]);
      CHECK(pl_cost_decode_cut(&dec_model) < 0, "a chunk ending inside a "
            "run was not found damaged");
   }
   return check_totals("cost codec");
}
