/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Four threads sort at the same time: most of their events are qsort's
   calls of a comparator, in an order the data decides, the kind of stream
   the encoder thread codes most slowly, so that the client side codes
   parts itself instead of waiting for it.  Every thread's events must be
   those of the run where the client side codes all of them (peer run,
   --encoder-thread=no).  The comparator is not instrumented
   (qsort_ints.c): the oracle logs only the calls around it.  No thread allocates, and the
   program is linked with -z now: the threads' streams are the same from
   run to run. */
#include <pthread.h>
#include <stdio.h>

#define N      250              /* ints: qsort sorts them on its stack */
#define ROUNDS 150              /* about 2.8 million events */

void sort_ints(int *v, int n);  /* qsort_ints.c */

__attribute__((noinline)) unsigned fold(const int *v, int n)
{
   return n == 1 ? (unsigned)v[0]
                 : fold(v, n / 2) * 31u + fold(v + n / 2, n - n / 2);
}

__attribute__((noinline)) void *worker(void *arg)
{
   unsigned seed = 12345u + 7919u * (unsigned)(long)arg, sum = 0;
   int v[N];
   for (int round = 0; round < ROUNDS; round++) {
      for (int i = 0; i < N; i++) {
         seed = seed * 1103515245u + 12345u;
         v[i] = (int)(seed >> 8) % 1000;
      }
      sort_ints(v, N);
      if (round % 50 == 0)
         sum += fold(v, N);
   }
   return (void *)(long)sum;
}

int main(void)
{
   pthread_t t[4];
   long i, s = 0;
   void *r;
   for (i = 0; i < 4; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   for (i = 0; i < 4; i++) {
      pthread_join(t[i], &r);
      s += (long)r;
   }
   printf("%ld\n", s);
   return 0;
}
