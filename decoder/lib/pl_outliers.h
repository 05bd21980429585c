/* SPDX-License-Identifier: MIT */
/* The program across its processes (ranks): per function, calls per
   process (min / median / max), and the processes whose call graphs
   differ from the majority's, with the functions that make them differ.

   Which processes: the program's ranks, i.e. the processes whose traces
   record an MPI rank (pl_process.rank) if there are any, else every
   process not recorded as a launcher (pl_process.role); in both cases
   only processes with at least one selected thread.  A process's graph is
   the sum of its threads' graphs.

   Medians are lower medians: the ((n+1)/2)-th smallest of n values
   (n = 4: the 2nd), so always a count that some process has.

   Outliers.  Processes are compared on their behaviour: the functions of
   the program's own executables (the objects that define main) and the
   MPI interface (MPI_*, PMPI_*, mpi_*, pmpi_*), with the edges between
   them; the MPI libraries' internals are left out, because they differ
   from rank to rank in any run (rank 0 does more in MPI_Init, progress
   engines poll as often as they like).  Without a main, every function
   counts.  Processes are classed by the shape of those graphs (the same
   functions called, along the same caller -> callee edges, however
   often).  The majority class
   is the largest one if no other class is as large; every process outside
   it is an outlier.  If all processes have the same shape, they are
   classed by their graphs with call counts, and the largest class is the
   majority if it holds more than half of the processes.  Otherwise (a tie,
   or no class with a majority) there are no outliers.

   Each outlier's reasons, ranked: functions it calls that the majority
   does not (largest call count first), functions the majority calls that
   it does not (largest majority median first), edges between functions
   both call that only it takes, or that only the majority takes, then the
   functions whose call counts differ from the majority's median (largest
   difference first).  Ties: by function ID. */
#ifndef PL_OUTLIERS_H
#define PL_OUTLIERS_H

#include <stddef.h>
#include <stdint.h>

#include "pl_program.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
   uint32_t fn;
   uint64_t min, median, max;   /* calls per process (0 if it does not) */
   size_t   nprocs;             /* processes calling it */
} pl_rank_fn;

enum pl_reason_kind {
   PL_REASON_ONLY_FN,           /* fn called here, not by the majority */
   PL_REASON_MISSING_FN,        /* fn called by the majority, not here */
   PL_REASON_ONLY_EDGE,         /* caller -> fn taken here only */
   PL_REASON_MISSING_EDGE,      /* caller -> fn taken by the majority only */
   PL_REASON_CALLS              /* fn called by both, calls != median */
};

typedef struct {
   int      kind;               /* enum pl_reason_kind */
   uint32_t fn;
   uint32_t caller;             /* edges: the caller (0: no caller) */
   uint64_t calls;              /* this process's calls (of fn, or along
                                   the edge) */
   uint64_t median;             /* the majority's median of the same */
} pl_reason;

typedef struct {
   size_t     proc;             /* index in pl_program.procs */
   size_t     cls;              /* its class, 0-based (majority: see
                                   pl_ranks.majority) */
   pl_reason *reasons;          /* ranked */
   size_t     nreasons;
} pl_outlier;

enum pl_class_kind { PL_CLASS_SHAPE, PL_CLASS_GRAPH };

typedef struct {
   int         by_rank;         /* processes chosen by MPI rank */
   size_t     *procs;           /* the processes analysed, in order */
   size_t      nprocs;
   size_t     *cls;             /* [i]: class of procs[i] */
   pl_rank_fn *fns;             /* functions any of them calls, by ID */
   size_t      nfns;
   int         class_kind;      /* enum pl_class_kind */
   size_t      nclasses;        /* classes numbered by first member */
   int         has_majority;
   size_t      majority;        /* the majority class */
   size_t      majority_size;
   pl_outlier *outliers;        /* in process order */
   size_t      noutliers;
} pl_ranks;

/* 0, or -1 if out of memory. */
int  pl_ranks_analyse(const pl_program *p, pl_ranks *out);
void pl_ranks_free(pl_ranks *r);

/* "rank 3", or "pid 1234" when processes are not chosen by rank, into
   buf. */
const char *pl_ranks_proc_name(const pl_program *p, const pl_ranks *r,
                               size_t proc, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
