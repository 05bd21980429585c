/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A threaded "solver" whose faults are chosen at run time, so that every
   run uses the same binary (addresses do not move) and the divergence a
   tool must find follows from the command line alone.

   usage: faults WORKERS ITERS FAULT
     FAULT  none          every worker runs ITERS iterations of
                          { compute(i); exchange(i); }
            extra:T:I     worker T (1-based) also calls extra(i) after
                          exchange in iteration I (0-based)
            swap:T:I      worker T calls exchange before compute in
                          iteration I
            branch:T      worker T calls alt_compute instead of compute in
                          every iteration
            hang:T:I      worker T waits forever in iteration I, before
                          compute (the run must be killed)
   Workers are created one after another by the main thread, so worker T
   is the process's thread T + 1. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile long acc;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static char kind[16] = "none";
static long fault_t = -1, fault_i = -1, iters;

__attribute__((noinline)) static void compute(long i) { acc += i; }
__attribute__((noinline)) static void alt_compute(long i) { acc -= i; }
__attribute__((noinline)) static void exchange(long i) { acc ^= i; }
__attribute__((noinline)) static void extra(long i) { acc += 2 * i; }

__attribute__((noinline)) static void wait_forever(void)
{
   pthread_mutex_lock(&lock);
   for (;;)
      pthread_cond_wait(&never, &lock);
}

/* Whether fault k applies to worker t in iteration i: a macro, so that
   the trace holds the solver's calls only. */
#define IS(k, t, i) \
   (strcmp(kind, k) == 0 && (t) == fault_t && ((i) == fault_i || fault_i < 0))

static void *worker(void *arg)
{
   long t = (long)arg, i;
   for (i = 0; i < iters; i++) {
      if (IS("hang", t, i))
         wait_forever();
      if (IS("swap", t, i)) {
         exchange(i);
         compute(i);
      } else {
         if (IS("branch", t, i))
            alt_compute(i);
         else
            compute(i);
         exchange(i);
      }
      if (IS("extra", t, i))
         extra(i);
   }
   return NULL;
}

int main(int argc, char **argv)
{
   long workers, t;
   pthread_t *th;

   if (argc != 4 || (workers = atol(argv[1])) < 1 || (iters = atol(argv[2])) < 1
       || (strcmp(argv[3], "none") != 0
           && sscanf(argv[3], "%15[a-z]:%ld:%ld", kind, &fault_t, &fault_i) < 2)) {
      fprintf(stderr, "usage: faults WORKERS ITERS none|KIND:T[:I]\n");
      return 2;
   }
   th = calloc((size_t)workers, sizeof *th);
   for (t = 1; t <= workers; t++)
      if (!th || pthread_create(&th[t - 1], NULL, worker, (void *)t) != 0)
         return 1;
   for (t = 1; t <= workers; t++)
      pthread_join(th[t - 1], NULL);
   printf("acc %ld\n", acc);
   return 0;
}
