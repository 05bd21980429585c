/* SPDX-License-Identifier: MIT */
/* Writes the value-layer words (docs/codec.md section 2: an exit is 0x0000,
   an entry its ID, escaped when it does not fit 16 bits) of every thread of
   the given traces, little-endian, one thread after the other, to OUT.
   For a --compress=no trace these are exactly its raw stream bytes; the
   benchmarks hand them to general-purpose compressors and to codec_bench.

     trace_words OUT TRACE...

   Prints "threads N events N bytes N" on stdout. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pl_codec.h"
#include "pl_trace.h"

static void put_word(FILE *out, uint32_t w)
{
   putc(w & 0xFF, out);
   putc(w >> 8, out);
}

static void die(const char *path, const pl_error *err)
{
   fprintf(stderr, "trace_words: %s: %s\n", path, err->msg);
   exit(1);
}

int main(int argc, char **argv)
{
   uint64_t threads = 0, events = 0, bytes = 0;
   FILE *out;

   if (argc < 3) {
      fprintf(stderr, "usage: trace_words OUT TRACE...\n");
      return 2;
   }
   out = fopen(argv[1], "wb");
   if (!out) {
      perror(argv[1]);
      return 1;
   }
   for (int a = 2; a < argc; a++) {
      pl_error err;
      pl_trace *t = pl_trace_open(argv[a], &err);

      if (!t)
         die(argv[a], &err);
      for (size_t i = 0; i < pl_trace_nthreads(t); i++) {
         pl_events *it = pl_events_open(t, i, &err);
         const pl_event *ev;
         long n;

         if (!it)
            die(argv[a], &err);
         while ((n = pl_events_next(it, &ev, &err)) > 0) {
            for (long k = 0; k < n; k++) {
               uint32_t id = ev[k].kind == PL_EV_CALL ? ev[k].fn : 0;

               if (id < PL_WORD_ESCAPE) {
                  put_word(out, id);
                  bytes += 2;
               } else {
                  put_word(out, PL_WORD_ESCAPE);
                  put_word(out, id >> 16);
                  put_word(out, id & 0xFFFF);
                  bytes += 6;
               }
            }
            events += (uint64_t)n;
         }
         if (n < 0)
            die(argv[a], &err);
         pl_events_close(it);
         threads++;
      }
      pl_trace_close(t);
   }
   if (fclose(out) != 0) {
      perror(argv[1]);
      return 1;
   }
   printf("threads %llu events %llu bytes %llu\n", (unsigned long long)threads,
          (unsigned long long)events, (unsigned long long)bytes);
   return 0;
}
