/* SPDX-License-Identifier: MIT */
/* What pl_program.c lends the library's other builders of programs
   (pl_program_wire.c) and its readers (pl_parallel.c): not installed. */
#ifndef PL_PROGRAM_PRIVATE_H
#define PL_PROGRAM_PRIVATE_H

#include "pl_program.h"

/* The ID of f's (object, name, dup) in p; if new, f (its strings, its
   label and ident) is moved into p and f's pointers are cleared.  0 if out
   of memory. */
uint32_t pl_program_adopt(pl_program *p, pl_gfunc *f);

/* Free f's strings (label and shown may be name's, shown's). */
void pl_gfunc_free(pl_gfunc *f);

/* The order of process proc's calls that lead to an MPI call, in the
   program's view, its threads' in turn (as pl_thread.order, but each
   thread's hashed as the calls return): 0 if not known (not an MPI rank,
   read through a filter, out of memory).  For the root, whose own work
   (its reports, its I/O) the outliers leave out (pl_outliers.h). */
uint64_t pl_program_order_mpi(const pl_program *p, size_t proc);
int      pl_program_set_order_mpi(pl_program *p, size_t proc, uint64_t order);

/* Set what process proc keeps beside its pl_process: its recording
   description (a copy of recording, may be NULL) and how it ended (a
   copy).  0, or -1 if out of memory. */
int pl_program_set_process(pl_program *p, size_t proc, const char *recording,
                           const pl_ending *ending);

/* From the next read on, decode each thread in a worker thread while
   its graph is built (pl_view_ahead.h), if on: for a read that leaves a
   core idle (one trace, -j2).  The program is the same.  0, or -1 if out
   of memory. */
int pl_program_set_read_ahead(pl_program *p, int on);

#endif
