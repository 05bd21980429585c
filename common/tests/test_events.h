/* SPDX-License-Identifier: MIT */
/* The event streams of the codec tests (test_codec.c, test_lzze.c,
   test_lzrc.c) and what drives them: the seeded generator (--seed), the
   generated streams (0 is an exit, else the ID entered), feeding an event
   to an encoder, the context hash the streams aim at, RUN, which runs and
   times one test, and a program's end.

   Each of these programs builds and runs alone (from the repository root):
     gcc -O2 -g -Wall -Wextra -Icommon common/tests/test_NAME.c \
         common/pl_*.c -o test_NAME && ./test_NAME [--seed N]
   --seed N changes the random seed.  The last line is "NAME: N passed,
   M failed"; the exit status is 0 only if nothing failed. */
#ifndef TEST_EVENTS_H
#define TEST_EVENTS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pl_codec.h"
#include "test_check.h"
#include "test_prng.h"
#include "test_vec.h"

static prng rng = { 0x2545F4914F6CDD1Dull };

static inline uint64_t rnd(void) { return prng_next64(&rng); }
static inline uint64_t rnd_below(uint64_t n) { return prng_below(&rng, n); }

/* "--seed N", a program's only option. */
static inline void seed_option(int argc, char **argv)
{
   if (argc > 2 && !strcmp(argv[1], "--seed"))
      rng.s = strtoull(argv[2], 0, 0);
}

static inline void put_event(pl_encoder *e, uint32_t v)
{
   if (v) pl_enc_enter(e, v);
   else pl_enc_exit(e);
}

/* ---- stream generators ------------------------------------------------- */

static vec32 gen;                          /* generator output */
static inline void ev_enter(uint32_t id) { v32_push(&gen, id); }
static inline void ev_exit(void) { v32_push(&gen, 0); }

static unsigned fib_ids[2];
static inline unsigned long fib(unsigned n)
{
   unsigned long r;
   ev_enter(fib_ids[n & 1]);               /* two IDs: a little variety */
   r = n < 2 ? n : fib(n - 1) + fib(n - 2);
   ev_exit();
   return r;
}

/* A small "application": a time-step loop calling a solver whose inner
   calls depend on data, plus occasional rare calls. */
static inline void app(unsigned steps, uint32_t base)
{
   unsigned s, k;
   ev_enter(base + 1);                     /* main */
   for (s = 0; s < steps; s++) {
      ev_enter(base + 2);                  /* step */
      for (k = 0; k < 4 + (s % 3); k++) {
         ev_enter(base + 3);               /* compute */
         ev_enter(base + 4); ev_exit();    /* load */
         if ((k + s) % 5 == 0) { ev_enter(base + 5); ev_exit(); }
         ev_exit();
      }
      if (rnd_below(1000) == 0) { ev_enter(base + 6 + (uint32_t)rnd_below(50)); ev_exit(); }
      ev_exit();
   }
   ev_exit();
}

static inline uint32_t hash_like_format(uint32_t a, uint32_t b, uint32_t c)
{
   /* the hash of docs/codec.md, restated independently */
   uint64_t k = ((uint64_t)a << 32) | ((uint64_t)b << 16) | c;
   return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 52);
}

/* ---- running the tests ------------------------------------------------- */

static inline double now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define RUN(f) do { double t = now(); f(); printf("%-20s %6.2f s\n", #f, now() - t); fflush(stdout); } while (0)

/* A program's end: the generated stream freed, the totals printed; its
   exit status. */
static inline int end_tests(const char *name)
{
   v32_free(&gen);
   return check_totals(name);
}

#endif
