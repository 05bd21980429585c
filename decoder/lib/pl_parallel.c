/* SPDX-License-Identifier: MIT */
/* Reading many traces with several threads (pl_parallel.h).

   Items (files) are handed out in order from a shared counter.  A slot
   per item holds the worker's result (for a file: its program, result
   and error) until the main thread takes it; a worker does not start
   item i while i >= merged + window, so memory stays bounded by the
   window whatever the number of items.  One mutex and two condition variables: `ready`
   (a file was read: the main thread may merge) and `room` (a file was
   merged: workers may go on). */
#define _XOPEN_SOURCE 700

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pl_parallel.h"
#include "pl_program_private.h"

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

/* ---- The ordered pool ---- */

typedef struct {
   void *result;
   int   done;
} slot;

typedef struct {
   const pl_ordered_work *w;
   size_t               n;
   slot                *slots;
   size_t               next;      /* next item to hand out */
   size_t               merged;    /* items done so far */
   size_t               window;
   pthread_mutex_t      mu;
   pthread_cond_t       ready, room;
} shared;

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
      sl->result = s->w->work(s->w->ctx, i);

      pthread_mutex_lock(&s->mu);
      sl->done = 1;
      pthread_cond_broadcast(&s->ready);
      pthread_mutex_unlock(&s->mu);
   }
}

void pl_run_ordered(size_t n, unsigned jobs, const pl_ordered_work *w)
{
   shared s;
   pthread_t *tids = NULL;
   size_t i, started = 0;

   if (jobs > n)
      jobs = (unsigned)n;
   memset(&s, 0, sizeof s);
   if (jobs > 1) {
      s.window = 2 * (size_t)jobs;
      s.slots = calloc(s.window, sizeof *s.slots);
      tids = malloc(jobs * sizeof *tids);
   }
   if (!s.slots || !tids) {            /* one job, or no memory for more */
      free(s.slots);
      free(tids);
      for (i = 0; i < n; i++)
         w->done(w->ctx, i, w->work(w->ctx, i));
      return;
   }
   s.w = w;
   s.n = n;
   pthread_mutex_init(&s.mu, NULL);
   pthread_cond_init(&s.ready, NULL);
   pthread_cond_init(&s.room, NULL);
   for (started = 0; started < jobs; started++)
      if (pthread_create(&tids[started], NULL, worker, &s) != 0)
         break;
   for (i = 0; i < n; i++) {
      slot *sl = &s.slots[i % s.window];
      void *result;
      if (started == 0) {              /* no thread: the work is done here */
         w->done(w->ctx, i, w->work(w->ctx, i));
         continue;
      }
      pthread_mutex_lock(&s.mu);
      while (!sl->done)
         pthread_cond_wait(&s.ready, &s.mu);
      result = sl->result;
      sl->done = 0;
      pthread_mutex_unlock(&s.mu);

      w->done(w->ctx, i, result);

      pthread_mutex_lock(&s.mu);
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
}

/* ---- Reading ahead ---- */

struct pl_ahead {
   int           (*fill)(void *ctx, size_t k, const pl_ahead *a);
   void           *ctx;
   size_t          nblocks;
   size_t          head, full;   /* the reader's next block; blocks filled */
   int             held;         /* the reader holds block head */
   int             stop;         /* also read while filling, unlocked */
   pthread_t       worker;
   pthread_mutex_t mu;
   pthread_cond_t  ready, room;
};

int pl_ahead_stopping(const pl_ahead *a)
{
   return __atomic_load_n(&a->stop, __ATOMIC_RELAXED);
}

static void *fill_ahead(void *arg)
{
   pl_ahead *a = arg;
   int more;

   do {
      size_t k;
      pthread_mutex_lock(&a->mu);
      while (a->full == a->nblocks && !pl_ahead_stopping(a))
         pthread_cond_wait(&a->room, &a->mu);
      if (pl_ahead_stopping(a)) {
         pthread_mutex_unlock(&a->mu);
         return NULL;
      }
      k = (a->head + a->full) % a->nblocks;
      pthread_mutex_unlock(&a->mu);
      more = a->fill(a->ctx, k, a);
      pthread_mutex_lock(&a->mu);
      a->full++;
      pthread_cond_signal(&a->ready);
      pthread_mutex_unlock(&a->mu);
   } while (more);
   return NULL;
}

pl_ahead *pl_ahead_start(size_t nblocks,
                         int (*fill)(void *ctx, size_t k, const pl_ahead *a),
                         void *ctx)
{
   pl_ahead *a = calloc(1, sizeof *a);
   if (!a)
      return NULL;
   a->fill = fill;
   a->ctx = ctx;
   a->nblocks = nblocks;
   pthread_mutex_init(&a->mu, NULL);
   pthread_cond_init(&a->ready, NULL);
   pthread_cond_init(&a->room, NULL);
   if (pthread_create(&a->worker, NULL, fill_ahead, a) != 0) {
      pthread_cond_destroy(&a->ready);
      pthread_cond_destroy(&a->room);
      pthread_mutex_destroy(&a->mu);
      free(a);
      return NULL;
   }
   return a;
}

size_t pl_ahead_next(pl_ahead *a)
{
   size_t k;
   pthread_mutex_lock(&a->mu);
   if (a->held) {
      a->head = (a->head + 1) % a->nblocks;
      a->full--;
      pthread_cond_signal(&a->room);
   }
   while (a->full == 0)
      pthread_cond_wait(&a->ready, &a->mu);
   a->held = 1;
   k = a->head;
   pthread_mutex_unlock(&a->mu);
   return k;
}

void pl_ahead_stop(pl_ahead *a)
{
   if (!a)
      return;
   pthread_mutex_lock(&a->mu);
   __atomic_store_n(&a->stop, 1, __ATOMIC_RELAXED);
   pthread_cond_signal(&a->room);
   pthread_mutex_unlock(&a->mu);
   pthread_join(a->worker, NULL);
   pthread_cond_destroy(&a->ready);
   pthread_cond_destroy(&a->room);
   pthread_mutex_destroy(&a->mu);
   free(a);
}

/* ---- Programs ---- */

typedef struct {
   pl_program prog;
   pl_error   err;
   int        r;
} file_read;

typedef struct {
   pl_program          *p;
   const pl_input      *in;
   const pl_select     *sel;
   const pl_read_hooks *hooks;
   int                  ret;
} read_ctx;

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

/* In a worker: file i into a program of its own (NULL if out of memory). */
static void *read_file(void *ctx, size_t i)
{
   read_ctx *c = ctx;
   file_read *f = calloc(1, sizeof *f);
   if (!f)
      return NULL;
   pl_program_init(&f->prog, c->p->demangle);
   if (pl_program_set_filter(&f->prog, pl_program_filter(c->p)) < 0) {
      oom(&f->err);
      f->r = -1;
   } else {
      f->r = read_one(&f->prog, c->in, i, c->sel, c->hooks, &f->err);
   }
   return f;
}

/* In the calling thread, in order: file i's program into p. */
static void merge_file(void *ctx, size_t i, void *result)
{
   read_ctx *c = ctx;
   file_read *f = result;
   pl_error err;
   int r;

   memset(&err, 0, sizeof err);
   if (c->p->progress && c->p->progress->file)
      c->p->progress->file(c->p->progress->ctx, c->in[i].name);
   if (!f) {
      oom(&err);
      r = -1;
      c->ret = -1;
   } else {
      r = f->r;
      err = f->err;
      if (pl_program_merge(c->p, &f->prog) < 0) {
         oom(&err);
         r = -1;
      }
      pl_program_free(&f->prog);
      free(f);
   }
   if (c->hooks && c->hooks->done)
      c->hooks->done(c->hooks->ctx, i, c->in[i].name, r, &err);
}

int pl_program_read_files(pl_program *p, const pl_input *in, size_t n,
                          const pl_select *sel, unsigned jobs,
                          const pl_read_hooks *hooks)
{
   size_t i;
   if (jobs <= 1 || n <= 1) {         /* straight into p */
      /* one trace and a spare core: decoded beside the graph's building */
      int ahead = jobs > 1 && pl_program_set_read_ahead(p, 1) == 0;
      for (i = 0; i < n; i++) {
         pl_error err;
         int r;
         memset(&err, 0, sizeof err);
         r = read_one(p, in, i, sel, hooks, &err);
         if (hooks && hooks->done)
            hooks->done(hooks->ctx, i, in[i].name, r, &err);
      }
      if (ahead)
         pl_program_set_read_ahead(p, 0);
      return 0;
   }
   read_ctx c = { p, in, sel, hooks, 0 };
   pl_ordered_work w = { &c, read_file, merge_file };
   pl_run_ordered(n, jobs, &w);
   return c.ret;
}
