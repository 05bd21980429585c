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
   Those calls are counted twice: the calls of the program's own
   functions and of MPI first, then all, so that calls into other
   libraries (the root's reports through the C library's I/O) decide only
   where the program's own calls and MPI's are the same.
   Positions that differ only in which function the caller called at the
   same point are not comparable (they ran different code), nor are
   threads that start in different functions (main and a worker).

   MPI's polls (pl_runtime_mpi_poll: MPI_Test, MPI_Iprobe, ...) are made
   as often as the timing has it: they are not counted among the calls a
   frame has started, and two threads in the same poll at the same point
   are at the same point whatever its number (a rank spinning on
   MPI_Test has got no further than its last other call). */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "call_numbers.h"

typedef struct {
   uint32_t fn;          /* function ID (the caller's IDs); 0 the root */
   int      poll;        /* fn is one of MPI's polls */
   uint64_t num;         /* number among the caller's calls of fn, 0 unknown */
   uint64_t started;     /* calls this frame has made so far, polls not
                            counted */
   uint64_t started_own; /* of them, the calls of the program's own
                            functions and of MPI */
   uint32_t last_fn;     /* its last call that was no poll (0: none) */
   uint64_t last_num;    /* that call's number */
} progress_frame;

typedef struct {
   progress_frame *f;    /* [0] the root, [1..depth] the open frames */
   size_t          depth, cap;
   call_numbers    nums;
   progress_frame  mpi;  /* the last MPI call (fn 0: none) */
   progress_frame  mpi_caller;   /* the frame that made it */
   progress_frame  mpi_prev;     /* the MPI call before it, no poll */
   progress_frame  mpi_prev_caller;
   int             broken;       /* out of memory: nothing known */
} progress;

/* Zero-initialise to start; the events of one thread's view in order.
   kind: PROGRESS_MPI for the MPI interface, with PROGRESS_POLL for its
   polls; PROGRESS_OWN for the program's own functions; 0 for any other
   function. */
enum { PROGRESS_MPI = 1, PROGRESS_POLL = 2, PROGRESS_OWN = 4 };
void progress_call(progress *p, uint32_t depth, uint32_t fn, int kind);
void progress_return(progress *p, uint32_t depth);
void progress_free(progress *p);

/* a (na open frames, a[0] the root) against b: < 0 if a has got less far,
   > 0 if further, 0 at the same point.  *comparable is set to 0 where
   they ran different calls at the same point (the result then orders
   them by function ID only to be deterministic). */
int progress_compare(const progress_frame *a, size_t na,
                     const progress_frame *b, size_t nb, int *comparable);

#endif
