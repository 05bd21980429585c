/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Many threads: a first wave of NWAVE1 (argv[1], default 70, more than
   the 64 the original ParLoT allowed) threads alive at the same time, all
   joined, then WAVES (argv[3], default 1) more waves of NWAVE2 (argv[2],
   default 30) threads, each created after the previous wave exited, so
   that Valgrind reuses their ThreadId slots: every thread must still get
   its own stream and its own thread number.  At most 2047 workers.

   Each worker first announces its creation index in binary (MSB first)
   with calls to tag_bit0/tag_bit1 (INDEX_BITS calls), so that the checker
   can tell from the oracle which thread is which and verify that thread
   numbers follow creation order.  Every third worker leaves with
   pthread_exit from nested calls (its frames never return). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define INDEX_BITS 11

static pthread_barrier_t barrier;
static volatile long sink;

__attribute__((noinline)) void tag_bit0(void) { sink += 0; }
__attribute__((noinline)) void tag_bit1(void) { sink += 1; }

__attribute__((noinline)) long work(long idx, int depth)
{
   if (depth == 0)
      return idx;
   return work(idx, depth - 1) + 1;
}

__attribute__((noinline)) void leave_nested(int depth)
{
   if (depth == 0)
      pthread_exit(NULL);
   leave_nested(depth - 1);
}

__attribute__((noinline)) void *worker(void *arg)
{
   long idx = (long)arg;
   int b;
   for (b = INDEX_BITS - 1; b >= 0; b--) {
      if ((idx >> b) & 1)
         tag_bit1();
      else
         tag_bit0();
   }
   sink += work(idx, (int)(idx % 7));
   if (idx % 3 == 2)
      leave_nested((int)(idx % 4));
   return NULL;
}

__attribute__((noinline)) void *worker_wave1(void *arg)
{
   pthread_barrier_wait(&barrier);   /* all of wave 1 alive at once */
   return worker(arg);
}

int main(int argc, char **argv)
{
   int n1 = argc > 1 ? atoi(argv[1]) : 70;
   int n2 = argc > 2 ? atoi(argv[2]) : 30;
   int waves = argc > 3 ? atoi(argv[3]) : 1;
   pthread_t *t = calloc((size_t)(n1 + n2), sizeof *t);
   pthread_attr_t small;
   long i, next;

   if (!t || n1 < 1 || n2 < 0 || waves < 0
       || n1 + (long)n2 * waves >= 1L << INDEX_BITS)
      abort();
   /* hundreds of threads alive at once: modest stacks */
   pthread_attr_init(&small);
   pthread_attr_setstacksize(&small, 256 * 1024);

   pthread_barrier_init(&barrier, NULL, (unsigned)n1);
   for (i = 0; i < n1; i++)
      if (pthread_create(&t[i], &small, worker_wave1, (void *)(i + 1)) != 0)
         abort();
   for (i = 0; i < n1; i++)
      pthread_join(t[i], NULL);
   next = n1 + 1;
   for (int w = 0; w < waves; w++) {
      for (i = 0; i < n2; i++)
         if (pthread_create(&t[i], &small, worker, (void *)next++) != 0)
            abort();
      for (i = 0; i < n2; i++)
         pthread_join(t[i], NULL);
   }
   printf("%ld\n", sink > 0 ? 1L : 0L);
   pthread_attr_destroy(&small);
   free(t);
   return 0;
}
