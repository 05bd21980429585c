/* SPDX-License-Identifier: MIT */
/* Where a thread is, in the program's terms: each call's number among its
   caller's calls of the same function ("conj_grad #8": the 8th call of
   conj_grad from main, iteration 8 of a main loop that calls it once per
   iteration).  Fed the calls of a thread's view in order (depths among
   shown frames, as pl_line and pl_vevent give them).

   Counters are keyed by (depth, function) and stamped with the caller
   frame's serial, so that a new frame starts its callees' counts afresh
   without clearing anything: memory follows the distinct (depth,
   function) pairs, not the trace.  Out of memory once, numbers are no
   longer known (0) and nothing fails. */
#ifndef CALL_NUMBERS_H
#define CALL_NUMBERS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
   uint64_t key;          /* depth << 32 | fn, + 1; 0 = empty */
   uint64_t stamp;        /* serial of the caller frame it counts in */
   uint64_t count;
} call_counter;

typedef struct {
   uint64_t serial;       /* the frame's; 0 for the root */
   uint64_t num;          /* its number among its caller's calls of it */
} open_call;

typedef struct {
   call_counter *v;       /* open addressing; cap a power of two */
   size_t        n, cap;
   open_call    *open;    /* [depth]: the open calls; [0] the root */
   size_t        open_cap;
   uint64_t      next_serial;
   int           broken;  /* out of memory once: numbers unknown */
} call_numbers;

/* Zero-initialise a call_numbers to start; free it with this. */
void call_numbers_free(call_numbers *c);

/* A call of fn at depth (from 1) happens: its number, or 0 if unknown. */
uint64_t call_numbers_call(call_numbers *c, uint32_t depth, uint32_t fn);

/* The number of the call open at depth (from 1), 0 if unknown. */
static inline uint64_t call_numbers_open(const call_numbers *c,
                                         uint32_t depth)
{
   return !c->broken && depth < c->open_cap ? c->open[depth].num : 0;
}

#endif
