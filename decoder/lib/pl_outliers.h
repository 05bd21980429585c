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

   Outliers.  Processes are compared on their behaviour in the program's
   view (pl_runtime.h): the calls of the program's own functions, and
   the calls its own code makes into libraries, along the caller ->
   callee edges; libraries' internals are left out, because they differ
   from rank to rank in any run (rank 0 does more in MPI_Init, progress
   engines poll as often as they like).  Rank 0's own work is left out of
   its graph too: the calls it makes beyond any other rank's along the
   same caller -> callee edge (all of them where no other rank calls that
   callee from that caller) of functions that lead to no MPI call (reach
   no MPI_* function: the root's reports and file I/O, also where every
   rank prints a last line), and the functions left without calls; a
   call only another rank makes is a difference like any other.  Processes whose graphs
   are equal, calls counted, form a class, however small: the two ends of
   a 1-D stencil are one.  The majority class, if there are several,
   holds more than half of them.

   An outlier is a process of a class of its own with a count (of a
   function or of an edge) that no other process has: a rank that adds
   or skips calls.  It is explained against the class of the process
   nearest to it (the smallest sum of absolute differences of calls) that
   is no outlier.  With two processes, or when more than a quarter of them
   (plus three) would be outliers, no rule tells the odd ones: the medoid
   (the process nearest to all others) is the reference and every process
   of another class is listed against it (by_medoid).  Rank 0 alone in
   its class, of three ranks or more, is the root's role (it gathers what
   the others send, decides, writes), which makes it unlike the others in
   a run without a fault too: it is an outlier, but not counted in that
   quarter, and it comes last.

   Each outlier's reasons, ranked: functions it calls that the reference
   class does not (largest call count first), functions that class calls
   that it does not (largest median first), edges between functions
   both call that only it takes, or that only the class takes, then the
   functions whose call counts differ from the class's median (largest
   difference first).  Within each kind, the program's own functions
   come before the library functions it calls (a rank's own extra call
   says more than the strcmp that decided it).  Ties: by function ID.

   Order.  MPI ranks read without a filter also carry the order of their
   calls in the program's view (pl_thread.order).  Inside a class of
   three or more (the same calls, counted), where at least two share one
   order, a process whose order no other has is an outlier too, with one
   reason, PL_REASON_ORDER: the same calls in another order (two calls
   swapped); parlot-diff --within shows where.  The root whose own work
   was left out of its graph is compared by the order of its calls that
   lead to an MPI call (pl_program_order_mpi), so that its reports make
   no other order; a compute step it alone moves is then not seen. */
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
   PL_REASON_CALLS,             /* fn called by both, calls != median */
   PL_REASON_ORDER              /* the same calls as its class, in another
                                   order (fn 0; since 0.7) */
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
   size_t     ref;              /* the process it is explained against
                                   (index in pl_program.procs) */
   pl_reason *reasons;          /* ranked */
   size_t     nreasons;
} pl_outlier;

enum pl_class_kind { PL_CLASS_SHAPE, PL_CLASS_GRAPH };   /* (GRAPH since
                                                            0.7) */

typedef struct {
   int         by_rank;         /* processes chosen by MPI rank */
   size_t     *procs;           /* the processes analysed: by rank number,
                                   else in order */
   size_t      nprocs;
   size_t     *cls;             /* [i]: class of procs[i] */
   size_t     *ref;             /* [i]: the index in procs of the process
                                   procs[i] is compared with (itself for
                                   its class's reference: its first rank
                                   other than rank 0 if it has one) */
   size_t      medoid;          /* index in procs */
   int         by_medoid;       /* outliers are those unlike the medoid */
   pl_rank_fn *fns;             /* functions any of them calls, by ID */
   size_t      nfns;
   int         class_kind;      /* enum pl_class_kind */
   size_t      nclasses;        /* classes numbered by first member */
   int         has_majority;
   size_t      majority;        /* the majority class */
   size_t      majority_size;
   pl_outlier *outliers;        /* in process order, rank 0 last when
                                   alone in its class */
   size_t      noutliers;
} pl_ranks;

/* 0, or -1 if out of memory. */
int  pl_ranks_analyse(const pl_program *p, pl_ranks *out);
void pl_ranks_free(pl_ranks *r);

/* Whether process `proc` (an index in pl_program.procs) is rank 0 alone
   in its class among three ranks or more: the root's role, which makes
   it unlike the others in a run without a fault too (see above; since
   0.13). */
int  pl_ranks_lone_root(const pl_program *p, const pl_ranks *r, size_t proc);

/* "rank 3", or "pid 1234" when processes are not chosen by rank, into
   buf. */
const char *pl_ranks_proc_name(const pl_program *p, const pl_ranks *r,
                               size_t proc, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
