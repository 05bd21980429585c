/* SPDX-License-Identifier: MIT */
/* Where a thread is, in the program's terms: each call's number among its
   caller's calls of the same function ("conj_grad #8": the 8th call of
   conj_grad from main, iteration 8 of a main loop that calls it once per
   iteration).  Fed the calls of a thread's view in order (depths among
   shown frames, as pl_line and pl_vevent give them).

   Each open frame counts its own callees, in a small table that the next
   frame opened at its depth empties: a lookup touches only the callees
   of one frame, which stay in the cache (a table of every (depth,
   function) pair had a cache miss per call on a compiler's trace), and
   memory follows the most callees a frame at each depth had.  Out of
   memory once, numbers are no longer known (0) and nothing fails. */
#ifndef CALL_NUMBERS_H
#define CALL_NUMBERS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
   uint32_t fn;
   uint32_t slot;         /* where its index is in the frame's slots */
   uint64_t count;        /* its calls from the frame so far */
} callee_count;

typedef struct {
   uint64_t      num;     /* its number among its caller's calls of it */
   callee_count *callee;  /* its callees, in the order of their first calls */
   uint32_t     *slot;    /* open addressing, 2^bits: index + 1 in callee */
   size_t        n, cap;  /* callees, callee's room */
   unsigned      bits;    /* 0: no slots yet */
} open_call;

typedef struct {
   open_call *open;       /* [depth]: the open calls; [0] the root */
   size_t     open_cap;
   int        broken;     /* out of memory once: numbers unknown */
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
