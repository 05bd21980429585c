/* SPDX-License-Identifier: MIT */
/* Progress line on a terminal (pl_progress.h). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pl_progress.h"

#define FIRST_AFTER_MS 500     /* short decodes show nothing ... */
#define EVERY_NS       200000000ull

struct pl_progress {
   pl_progress_hooks hooks;           /* the library's view of it */
   const char *prog;
   const char *path;
   size_t   nfiles, file;             /* file: 1-based, current */
   size_t   thread, nthreads;
   uint64_t stream_bytes;
   uint64_t start_ns, next_ns;
   int      shown;                    /* a line is on the screen */
   unsigned calls;
};

static uint64_t now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void hook_file(void *pg, const char *path)
{
   pl_progress_file(pg, path);
}

static void hook_thread(void *pg, size_t index, size_t nthreads,
                        uint64_t stream_bytes)
{
   pl_progress_thread(pg, index, nthreads, stream_bytes);
}

static void hook_update(void *pg, uint64_t bytes_done, uint64_t events)
{
   pl_progress_update(pg, bytes_done, events);
}

const pl_progress_hooks *pl_progress_hooks_of(pl_progress *pg)
{
   return pg ? &pg->hooks : NULL;
}

pl_progress *pl_progress_new(const char *prog, size_t nfiles)
{
   const char *delay;
   char *end = NULL;
   unsigned long ms;
   pl_progress *pg;
   if (!isatty(STDERR_FILENO))
      return NULL;
   pg = calloc(1, sizeof *pg);
   if (!pg)
      return NULL;
   pg->prog = prog;
   pg->nfiles = nfiles;
   pg->hooks.ctx = pg;
   pg->hooks.file = hook_file;
   pg->hooks.thread = hook_thread;
   pg->hooks.update = hook_update;
   /* ... unless PARLOT_PROGRESS_DELAY_MS says otherwise */
   delay = getenv("PARLOT_PROGRESS_DELAY_MS");
   ms = delay && *delay ? strtoul(delay, &end, 10) : FIRST_AFTER_MS;
   if (delay && *delay && *end)
      ms = FIRST_AFTER_MS;
   pg->start_ns = now_ns();
   pg->next_ns = pg->start_ns + (uint64_t)ms * 1000000u;
   return pg;
}

void pl_progress_file(pl_progress *pg, const char *path)
{
   if (!pg)
      return;
   pg->file++;
   pg->path = path;
   pg->thread = pg->nthreads = 0;
}

void pl_progress_thread(pl_progress *pg, size_t index, size_t nthreads,
                        uint64_t stream_bytes)
{
   if (!pg)
      return;
   pg->thread = index + 1;
   pg->nthreads = nthreads;
   pg->stream_bytes = stream_bytes;
}

void pl_progress_update(pl_progress *pg, uint64_t bytes_done,
                        uint64_t events)
{
   uint64_t t;
   unsigned pct;

   /* the clock is read on every 16th batch only */
   if (!pg || (++pg->calls & 15) != 1)
      return;
   t = now_ns();
   if (t < pg->next_ns)
      return;
   pg->next_ns = t + EVERY_NS;
   pct = pg->stream_bytes
         ? (unsigned)(bytes_done * 100 / pg->stream_bytes) : 100;
   fprintf(stderr, "\r\033[K%s: [%zu/%zu] %s: thread %zu/%zu: %u%%, "
           "%llu M events", pg->prog, pg->file, pg->nfiles, pg->path,
           pg->thread, pg->nthreads, pct,
           (unsigned long long)(events / 1000000));
   fflush(stderr);
   pg->shown = 1;
}

void pl_progress_clear(pl_progress *pg)
{
   if (!pg || !pg->shown)
      return;
   fputs("\r\033[K", stderr);
   fflush(stderr);
   pg->shown = 0;
}

void pl_progress_free(pl_progress *pg)
{
   pl_progress_clear(pg);
   free(pg);
}
