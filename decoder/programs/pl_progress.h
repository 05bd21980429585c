/* SPDX-License-Identifier: MIT */
/* Progress of long decodes, on standard error when it is a terminal.

   One status line, rewritten in place at most a few times a second and
   erased at the end, so that it never mixes with output or messages:
   "parlot-decode: [2/16] parlot.out.123: thread 3/8: 45%, 120M events". */
#ifndef PL_PROGRESS_H
#define PL_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "pl_program.h"

typedef struct pl_progress pl_progress;

/* NULL (no progress shown) when stderr is not a terminal or memory is
   short; every function below accepts NULL. */
pl_progress *pl_progress_new(const char *prog, size_t nfiles);
void pl_progress_file(pl_progress *pg, const char *path);
void pl_progress_thread(pl_progress *pg, size_t index, size_t nthreads,
                        uint64_t stream_bytes);
/* Called often (per batch of events): cheap unless the line is due. */
void pl_progress_update(pl_progress *pg, uint64_t bytes_done,
                        uint64_t events);
/* The same as hooks for pl_program_read() (pl_program.progress); NULL
   for NULL. */
const pl_progress_hooks *pl_progress_hooks_of(pl_progress *pg);
/* Erase the line (before any message goes to stderr). */
void pl_progress_clear(pl_progress *pg);
void pl_progress_free(pl_progress *pg);

#endif
