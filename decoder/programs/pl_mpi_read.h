/* SPDX-License-Identifier: MIT */
/* Reading many traces with the ranks of an MPI job (parlot-decode-mpi).

   pl_mpi_read_files() is pl_program_read_files() (pl_parallel.h) spread
   over the ranks of comm.  The inputs are cut into one contiguous share
   per rank, balanced by bytes (rank 0 measures them and broadcasts the
   cut, so the file system sees each file's size asked once).  Each rank
   reads its share, one file open at a time per thread, into a program of
   its own.  The programs then go up a binomial tree: at step s = 1, 2,
   4, ... a rank that is an odd multiple of s sends what it holds to rank
   - s and is done; the others merge what rank + s sends after their own.
   Each merge joins two neighbouring runs of files in order, so rank 0 ends
   with exactly what reading every file in order gives (pl_program_merge),
   after log2(ranks) steps, and no rank but those on the path to 0 handles
   more than its share and its children's.

   Each file's result and error travel with the program that read it;
   rank 0 calls hooks->done for every file, in order, once the tree is
   done.  A rank that runs out of memory reports each of its files so.
   hooks->visitor, if any, is asked for each file by its index in in[]
   (a rank then reads with one thread), and what it builds travels as the
   state ms: packed by the sender, merged by the receiver after the
   program, through the function map of that merge.  On ranks other than
   0, p is left empty (and the state is whatever the rank had when it
   sent it). */
#ifndef PL_MPI_READ_H
#define PL_MPI_READ_H

#include <mpi.h>
#include <stdint.h>

#include "pl_backend.h"
#include "pl_parallel.h"

typedef struct {
   size_t   files;          /* the rank's share */
   uint64_t share_bytes;    /* its files' bytes */
   double   read_s;         /* reading its share */
   double   tree_s;         /* in the tree: waiting, moving, merging */
   uint64_t bytes_sent;     /* packed program sent to its parent */
   uint64_t bytes_received; /* from its children */
} pl_mpi_stats;


/* 0; -1 if out of memory on this rank (rank 0 reports the files it
   concerns).  ms: NULL if there is no state.  st (may be NULL) gets this
   rank's figures. */
int pl_mpi_read_files(pl_program *p, const pl_input *in, size_t n,
                      const pl_select *sel, unsigned jobs,
                      const pl_read_hooks *hooks, const pl_backend_state *ms,
                      MPI_Comm comm, pl_mpi_stats *st);

/* Wait for req to complete, testing it every 0.2 ms in between: MPI
   implementations spin on a core while they wait, and a rank waiting for
   another that still reads, or for rank 0 that writes, would take that
   core from them when ranks share cores. */
void pl_mpi_wait(MPI_Request *req);

#endif
