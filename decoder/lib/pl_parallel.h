/* SPDX-License-Identifier: MIT */
/* Reading many traces with several threads.

   pl_program_read_files() reads the traces in[0..n-1] (loose traces or
   archive members: pl_inputs_add() in pl_archive.h) into p, as
   pl_program_read_input() on each in turn would, with up to `jobs` worker
   threads: each worker reads one file at a time into a program of its
   own, and the calling thread merges those programs into p in
   command-line order (pl_program_merge), so that function IDs, processes,
   threads and every report built from p are the same whatever `jobs` is.
   At most `jobs` trace files are open at once, and at most 2 * jobs read
   files wait to be merged.

   For each file, in order and in the calling thread, hooks->done (if not
   NULL) is called once the file is in p, with what pl_program_read
   returned for it and its error; that is where callers report errors, so
   that messages come in the same order as with one job.

   A visitor (hooks->visitor, may be NULL) is asked for file i in the
   thread reading it; with jobs > 1 the visitor sees the worker's own
   program, whose function IDs and thread indices are not p's: a visitor
   that needs p's IDs (e.g. mode_paths.c's) must use jobs = 1. */
#ifndef PL_PARALLEL_H
#define PL_PARALLEL_H

#include <stddef.h>

#include "pl_archive.h"
#include "pl_program.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
   void *ctx;
   /* Fill *v for file i (v is zeroed before); return 0, or -1 for no
      visitor. */
   int  (*visitor)(void *ctx, size_t i, pl_visitor *v);
   void (*done)(void *ctx, size_t i, const char *path, int r,
                const pl_error *err);
} pl_read_hooks;

/* The number of online processors (at least 1): the default of -j. */
unsigned pl_jobs_default(void);

/* Parse a -j/--jobs value: a number from 1 to PL_JOBS_MAX; 0 =
   pl_jobs_default().  0, or -1 if s is not such a number. */
#define PL_JOBS_MAX 4096
int pl_jobs_parse(const char *s, unsigned *jobs);

/* 0; -1 if out of memory (everything read so far is in p).  Errors of
   single files go to hooks->done. */
int pl_program_read_files(pl_program *p, const pl_input *in, size_t n,
                          const pl_select *sel, unsigned jobs,
                          const pl_read_hooks *hooks);

/* The pool under pl_program_read_files, for other work done item by
   item: work(ctx, i) runs in a worker (up to `jobs` at once, items handed
   out in order) and returns its result; done(ctx, i, result) then runs
   in the calling thread, for i = 0, 1, ... n - 1 in order, and owns the
   result.  At most 2 x jobs results wait at once.  With one job (or no
   thread), everything runs in the calling thread: parlot-decode's
   --stacks reads its traces so.  (Since libparlot 0.10.) */
typedef struct {
   void *ctx;
   void *(*work)(void *ctx, size_t i);
   void  (*done)(void *ctx, size_t i, void *result);
} pl_ordered_work;
void pl_run_ordered(size_t n, unsigned jobs, const pl_ordered_work *w);

/* A worker that fills blocks ahead of their reader, for work that is
   read in order, such as a thread's decoded events.  The caller's blocks
   0 .. nblocks-1 (at least 2) form a ring: fill(ctx, k, a) runs in the
   worker and fills block k, returning 1 if more follow and 0 after the
   last one (the end, or an error it noted in the block); a long fill
   should return early once pl_ahead_stopping(a).  pl_ahead_next() waits
   for the next block in order and returns its index; the block it
   returned before goes back to the worker then, so the reader may use a
   block until its next call.  It must not be called after the last
   block.  pl_ahead_stop() stops the worker (at its next block, or its
   next check), waits for it and frees a.  pl_ahead_start: NULL if no
   thread could be started (fill the blocks in the caller then).  (Since
   libparlot 0.11.) */
typedef struct pl_ahead pl_ahead;
pl_ahead *pl_ahead_start(size_t nblocks,
                         int (*fill)(void *ctx, size_t k, const pl_ahead *a),
                         void *ctx);
size_t    pl_ahead_next(pl_ahead *a);
int       pl_ahead_stopping(const pl_ahead *a);
void      pl_ahead_stop(pl_ahead *a);

#ifdef __cplusplus
}
#endif

#endif
