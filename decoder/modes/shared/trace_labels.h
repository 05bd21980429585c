/* SPDX-License-Identifier: MIT */
/* How the line-oriented outputs name what one trace holds: its functions
   (demangled unless asked not to, escaped as pl_names.h says) and its
   threads ("rank 2", "rank 2 thread 3", "pid 1234 thread 1": a rank's
   first thread is the rank). */
#ifndef TRACE_LABELS_H
#define TRACE_LABELS_H

#include <stddef.h>
#include <stdint.h>

#include "pl_outbuf.h"
#include "pl_trace.h"

typedef struct {
   char    *arena;
   size_t  *at;          /* [id]: offset of function id's label; [n+1]: end */
   uint32_t n;
} trace_labels;

/* 0, or -1 if out of memory (l is then empty). */
int  trace_labels_load(trace_labels *l, const pl_trace *t, int demangle);
void trace_labels_free(trace_labels *l);

static inline const char *trace_label(const trace_labels *l, uint32_t id)
{
   return l->arena + l->at[id];
}
static inline size_t trace_label_len(const trace_labels *l, uint32_t id)
{
   return l->at[id + 1] - l->at[id] - 1;    /* without the NUL */
}

/* The thread's name, as above, in buf (n bytes); rank NULL if none. */
void thread_label(char *buf, size_t n, const char *pid, const char *rank,
                  uint32_t thread);

/* Sets of threads in STAT's range notation: "[0-3,5,2.2-4,p1234]" --
   MPI ranks (a rank's first thread), "R.T" for its thread T, "pPID" and
   "pPID.T" where there is no rank; consecutive ranks, and consecutive
   threads of one process, make ranges. */
typedef struct {
   int      by_rank;
   uint64_t id;             /* rank or pid */
   uint32_t thread;
} thread_key;

void thread_key_set(thread_key *k, const char *pid, const char *rank,
                    uint32_t thread);
/* The set k[0..n-1] (sorted in place) as a malloc'ed string, or NULL if
   out of memory; and written to o (0, or -1 if out of memory). */
char *thread_set_format(thread_key *k, size_t n);
int   put_thread_set(outbuf *o, thread_key *k, size_t n);

#endif
