/* SPDX-License-Identifier: MIT */
/* Reading many traces with several threads (pl_parallel.h).

   Files are handed out in command-line order from a shared counter.  A
   slot per file holds the worker's program, its result and its error
   until the main thread merges it; a worker does not start file i while
   i >= merged + window, so memory stays bounded by the window whatever
   the number of files.  One mutex and two condition variables: `ready`
   (a file was read: the main thread may merge) and `room` (a file was
   merged: workers may go on). */
#define _XOPEN_SOURCE 700

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pl_parallel.h"

unsigned pl_jobs_default(void)
{
   long n = sysconf(_SC_NPROCESSORS_ONLN);
   return n < 1 ? 1 : n > 1024 ? 1024 : (unsigned)n;
}

int pl_jobs_parse(const char *s, unsigned *jobs)
{
   unsigned long v = 0;
   if (!*s)
      return -1;
   for (; *s; s++) {
      if (*s < '0' || *s > '9')
         return -1;
      v = v * 10 + (unsigned long)(*s - '0');
      if (v > PL_JOBS_MAX)
         return -1;
   }
   *jobs = v ? (unsigned)v : pl_jobs_default();
   return 0;
}

typedef struct {
   pl_program prog;
   pl_error   err;
   int        r;
   int        done;
} slot;

typedef struct {
   const pl_input      *in;
   size_t               n;
   const pl_select     *sel;
   const pl_read_hooks *hooks;
   int                  demangle;
   const pl_filter     *filter;
   slot                *slots;
   size_t               next;      /* next file to hand out */
   size_t               merged;    /* files merged so far */
   size_t               window;
   pthread_mutex_t      mu;
   pthread_cond_t       ready, room;
} shared;

static int read_one(pl_program *p, const pl_input *in, size_t i,
                    const pl_select *sel, const pl_read_hooks *h,
                    pl_error *err)
{
   pl_visitor v;
   memset(&v, 0, sizeof v);
   if (h && h->visitor && h->visitor(h->ctx, i, &v) == 0)
      return pl_program_read_input(p, &in[i], sel, &v, err);
   return pl_program_read_input(p, &in[i], sel, NULL, err);
}

static void oom(pl_error *err)
{
   err->offset = 0;
   strcpy(err->msg, "out of memory");
}

static void *worker(void *arg)
{
   shared *s = arg;
   for (;;) {
      size_t i;
      slot *sl;
      pthread_mutex_lock(&s->mu);
      while (s->next < s->n && s->next >= s->merged + s->window)
         pthread_cond_wait(&s->room, &s->mu);
      if (s->next >= s->n) {
         pthread_mutex_unlock(&s->mu);
         return NULL;
      }
      i = s->next++;
      pthread_mutex_unlock(&s->mu);

      sl = &s->slots[i % s->window];
      pl_program_init(&sl->prog, s->demangle);
      memset(&sl->err, 0, sizeof sl->err);
      if (pl_program_set_filter(&sl->prog, s->filter) < 0) {
         oom(&sl->err);
         sl->r = -1;
      } else {
         sl->r = read_one(&sl->prog, s->in, i, s->sel, s->hooks, &sl->err);
      }

      pthread_mutex_lock(&s->mu);
      sl->done = 1;
      pthread_cond_broadcast(&s->ready);
      pthread_mutex_unlock(&s->mu);
   }
}

int pl_program_read_files(pl_program *p, const pl_input *in, size_t n,
                          const pl_select *sel, unsigned jobs,
                          const pl_read_hooks *hooks)
{
   shared s;
   pthread_t *tids = NULL;
   size_t i, started = 0;
   int ret = 0;

   if (jobs > n)
      jobs = (unsigned)n;
   if (jobs <= 1) {
      for (i = 0; i < n; i++) {
         pl_error err;
         int r;
         memset(&err, 0, sizeof err);
         r = read_one(p, in, i, sel, hooks, &err);
         if (hooks && hooks->done)
            hooks->done(hooks->ctx, i, in[i].name, r, &err);
      }
      return 0;
   }

   memset(&s, 0, sizeof s);
   s.in = in;
   s.n = n;
   s.sel = sel;
   s.hooks = hooks;
   s.demangle = p->demangle;
   s.filter = pl_program_filter(p);
   s.window = 2 * (size_t)jobs;
   s.slots = calloc(s.window, sizeof *s.slots);
   tids = malloc(jobs * sizeof *tids);
   if (!s.slots || !tids) {
      free(s.slots);
      free(tids);
      return -1;
   }
   pthread_mutex_init(&s.mu, NULL);
   pthread_cond_init(&s.ready, NULL);
   pthread_cond_init(&s.room, NULL);
   for (started = 0; started < jobs; started++)
      if (pthread_create(&tids[started], NULL, worker, &s) != 0)
         break;
   if (started == 0) {               /* no thread: read them here */
      free(s.slots);
      free(tids);
      pthread_mutex_destroy(&s.mu);
      pthread_cond_destroy(&s.ready);
      pthread_cond_destroy(&s.room);
      return pl_program_read_files(p, in, n, sel, 1, hooks);
   }

   for (i = 0; i < s.n; i++) {
      slot *sl = &s.slots[i % s.window];
      pl_error err;
      int r;

      pthread_mutex_lock(&s.mu);
      while (!sl->done)
         pthread_cond_wait(&s.ready, &s.mu);
      pthread_mutex_unlock(&s.mu);

      if (p->progress && p->progress->file)
         p->progress->file(p->progress->ctx, in[i].name);
      r = sl->r;
      err = sl->err;
      if (pl_program_merge(p, &sl->prog) < 0) {
         oom(&err);
         r = -1;
      }
      pl_program_free(&sl->prog);
      if (hooks && hooks->done)
         hooks->done(hooks->ctx, i, in[i].name, r, &err);

      pthread_mutex_lock(&s.mu);
      sl->done = 0;
      s.merged = i + 1;
      pthread_cond_broadcast(&s.room);
      pthread_mutex_unlock(&s.mu);
   }
   for (i = 0; i < started; i++)
      pthread_join(tids[i], NULL);
   pthread_mutex_destroy(&s.mu);
   pthread_cond_destroy(&s.ready);
   pthread_cond_destroy(&s.room);
   free(s.slots);
   free(tids);
   return ret;
}
