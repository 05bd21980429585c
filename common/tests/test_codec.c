/* SPDX-License-Identifier: MIT */
/* Tests of the codec API (pl_codec.c) that concern every codec rather than
   one: no chunk the encoders of LZZE, LZRC and RAW write holds more raw
   bytes than pl_codec_max_raw allows for its size (CCM's: test_ccm.c),
   and a decoder of an unknown kind refuses its input.  The codecs
   themselves: test_lzze.c (LZZE and RAW), test_lzrc.c, test_ccm.c.

   Building and running: test_events.h. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pl_codec.h"
#include "test_check.h"
#include "test_events.h"
#include "test_vec.h"

/* Every chunk the encoder writes holds no more raw bytes than
   pl_codec_max_raw allows for its size (docs/codec.md 7.1), also on the
   streams that expand most: one repetition (capped matches back to back),
   all exits, tiny chunks. */
static void test_chunk_bound(void)
{
   static uint8_t buf[1 << 16];
   static const int kinds[] = { PL_CODEC_LZZE, PL_CODEC_LZRC, PL_CODEC_RAW };
   static const unsigned every[] = { 1, 7, 1000, 0 };
   pl_encoder *e = malloc(sizeof *e);
   unsigned s, ki, x;
   size_t k;

   for (s = 0; s < 4; s++) {
      gen.n = 0;
      if (s == 0)
         for (k = 0; k < (1u << 21); k++) { ev_enter(5); ev_exit(); }
      else if (s == 1)
         for (k = 0; k < (1u << 21); k++) ev_exit();
      else if (s == 2) {
         fib_ids[0] = 7; fib_ids[1] = 8;
         fib(22);
      }
      else
         for (k = 0; k < 200000; k++) {
            if (rnd_below(2)) ev_enter(1 + (uint32_t)rnd_below(40));
            else ev_exit();
         }
      for (ki = 0; ki < 3; ki++)
         for (x = 0; x < 4; x++) {
            uint64_t prev = 0, worst = 0, bad = 0, chunks = 0;
            pl_enc_init(e, kinds[ki], buf, sizeof buf);
            for (k = 0; k <= gen.n; k++) {
               int last = k == gen.n;
               if (!last)
                  put_event(e, gen.v[k]);
               if (last || (every[x] && rnd_below(every[x]) == 0)
                   || e->out_cap - e->out_len < 2 * PL_ENC_MAX_EVENT_BYTES) {
                  size_t n;
                  uint64_t raw;
                  pl_enc_sync(e);
                  n = pl_enc_ready(e);
                  raw = pl_enc_ready_raw(e) - prev;
                  if (n > 0) {
                     chunks++;
                     bad += raw > pl_codec_max_raw(kinds[ki], n);
                     if (raw / n > worst)
                        worst = raw / n;
                  }
                  prev = pl_enc_ready_raw(e);
                  pl_enc_consume(e, n);
               }
            }
            CHECK(bad == 0, "stream %u, %s, sync 1 in %u: %llu of %llu chunks "
                  "hold more than pl_codec_max_raw", s, pl_codec_name(kinds[ki]),
                  every[x], (unsigned long long)bad,
                  (unsigned long long)chunks);
            if (x == 3)
               printf("  stream %u %s: up to %llu raw bytes per chunk byte "
                      "(bound: %s)\n", s, pl_codec_name(kinds[ki]),
                      (unsigned long long)worst,
                      kinds[ki] == PL_CODEC_LZRC ? "93504 (n-2)/n"
                      : kinds[ki] == PL_CODEC_LZZE ? "8" : "1");
         }
   }
   free(e);
}

/* The dispatch of pl_codec.c: kind 0 is no codec's. */
static void test_unknown_kind(void)
{
   pl_decoder d;
   const uint8_t b[2] = { 0, 0 }, *p = b;
   uint32_t v[2];
   pl_dec_init(&d, 0);
   CHECK(pl_dec_run(&d, &p, b + 2, v, 2) == PL_DEC_CORRUPT && d.error,
         "unknown kind accepted");
}

int main(int argc, char **argv)
{
   seed_option(argc, argv);
   RUN(test_chunk_bound);
   RUN(test_unknown_kind);
   return end_tests("codec");
}
