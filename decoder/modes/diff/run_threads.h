/* SPDX-License-Identifier: MIT */
/* The threads of a run (its trace inputs), and which threads of two runs
   correspond, for parlot-diff.

   Threads are matched by MPI rank and thread number when both processes
   have a rank; the other processes (launchers, programs without MPI) are
   matched in their order of creation (start time, then pid) among the
   processes without a rank, and then by thread number.  Only the
   metadata is read: one trace open at a time. */
#ifndef RUN_THREADS_H
#define RUN_THREADS_H

#include <stddef.h>
#include <stdint.h>

#include "pl_archive.h"
#include "pl_outliers.h"
#include "pl_select.h"

typedef struct {
   size_t   input;          /* index in the run's inputs */
   size_t   index;          /* thread index in its trace */
   uint32_t number;         /* thread number */
   char    *pid;
   char    *rank;           /* NULL if none */
   uint64_t order;          /* process order among those without rank */
   char     label[80];      /* "rank 2", "rank 2 thread 3", "pid 1 thread 1" */
   int      stopped;        /* its process was killed by a signal or its
                               trace cut short (pl_ending.h) */
} run_thread;

typedef struct {
   const pl_inputs *in;
   run_thread      *t;      /* sorted: ranked (rank, thread), then the
                               others (order, thread) */
   int              costs;  /* some selected thread has costs
                               (--collect-insns) */
   size_t           n, cap;
   int              damaged;  /* some input could not be read */
   size_t           processes;   /* selected processes read */
   size_t           unfinished;  /* of them, killed by a signal or cut
                                    short (pl_ending.h) */
} run_threads;

/* Read the threads of every input that sel selects; an input that cannot
   be opened or is damaged is reported on stderr as "prog: NAME: offset N:
   message" (unless prog is NULL) and sets damaged (a damaged trace's
   threads are read up to the damage).  0, or -1 if out of memory. */
int  run_threads_read(run_threads *r, const char *prog, const pl_inputs *in,
                      const pl_select *sel);
void run_threads_free(run_threads *r);

/* A pair of corresponding threads: ia and ib index a->t and b->t; one of
   them is (size_t)-1 for a thread only one run has. */
typedef struct {
   size_t ia, ib;
} run_pair;

/* The pairs, in the common order (ranks, then the other processes in
   creation order; threads by number): 0, or -1 if out of memory. */
int run_threads_match(const run_threads *a, const run_threads *b,
                      run_pair **pairs, size_t *npairs);

/* Pairs within one run (parlot-diff --within): each thread of a rank
   (process) against the same-numbered thread of its reference rank in rk
   (pl_ranks.ref: an outlier's nearest ordinary rank, the medoid, or the
   first rank of its own class; rk from p, read from the same inputs).
   The reference's own threads are not paired; a thread its reference
   lacks has ia (size_t)-1.  The outliers' threads come first (what is
   most likely the fault leads the report), then the others, each in
   thread order.  0, or -1 if out of memory. */
int run_threads_within(const run_threads *r, const pl_program *p,
                       const pl_ranks *rk, run_pair **pairs,
                       size_t *npairs);

#endif
