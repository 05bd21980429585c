/* SPDX-License-Identifier: MIT */
/* How far a thread has got, as a position that compares across threads
   and ranks (the progress view of --stacks, after PRODOMETER's "least
   progressed task", here from the recorded order instead of inferred):
   each open frame of the thread's view with its function, its number
   among its caller's calls of that function (call_numbers.h: "conj_grad
   #7" is iteration 7 of a loop calling it once) and how many calls it
   has started itself; and the thread's last MPI call.

   Two positions compare from the outermost frame in: the same call (same
   function and number) goes one level deeper; the same function with
   another number is further on with the larger number; other functions
   at the same level compare by the calls their caller had started.
   Positions that differ only in which function the caller called at the
   same point are not comparable (they ran different code), nor are
   threads that start in different functions (main and a worker). */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "call_numbers.h"

typedef struct {
   uint32_t fn;          /* function ID (the caller's IDs); 0 the root */
   uint64_t num;         /* number among the caller's calls of fn, 0 unknown */
   uint64_t started;     /* calls this frame has made so far */
} progress_frame;

typedef struct {
   progress_frame *f;    /* [0] the root, [1..depth] the open frames */
   size_t          depth, cap;
   call_numbers    nums;
   progress_frame  mpi;  /* the last MPI call (fn 0: none) */
   progress_frame  mpi_caller;   /* the frame that made it */
   int             broken;       /* out of memory: nothing known */
} progress;

/* Zero-initialise to start; the events of one thread's view in order. */
void progress_call(progress *p, uint32_t depth, uint32_t fn, int is_mpi);
void progress_return(progress *p, uint32_t depth);
void progress_free(progress *p);

/* a (na open frames, a[0] the root) against b: < 0 if a has got less far,
   > 0 if further, 0 at the same point.  *comparable is set to 0 where
   they ran different calls at the same point (the result then orders
   them by function ID only to be deterministic). */
int progress_compare(const progress_frame *a, size_t na,
                     const progress_frame *b, size_t nb, int *comparable);

#endif
