/* SPDX-License-Identifier: MIT */
/* A small multi-threaded program to trace: workers sort and sum arrays
   through libc callbacks and recursion.  Used by scripts/demo. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define WORKERS 3
#define N 64

static int compare_ints(const void *a, const void *b)
{
   int x = *(const int *)a, y = *(const int *)b;
   return (x > y) - (x < y);
}

static long sum_range(const int *v, int lo, int hi)
{
   if (hi - lo == 1)
      return v[lo];
   int mid = (lo + hi) / 2;
   return sum_range(v, lo, mid) + sum_range(v, mid, hi);
}

static void *worker(void *arg)
{
   int seed = (int)(long)arg;
   int *v = malloc(N * sizeof *v);
   for (int i = 0; i < N; i++)
      v[i] = (i * 7919 + seed * 104729) % 1000;
   qsort(v, N, sizeof *v, compare_ints);
   long s = sum_range(v, 0, N);
   free(v);
   return (void *)s;
}

int main(void)
{
   pthread_t t[WORKERS];
   for (long i = 0; i < WORKERS; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   for (int i = 0; i < WORKERS; i++) {
      void *r;
      pthread_join(t[i], &r);
      printf("worker %d: sum %ld\n", i, (long)r);
   }
   return 0;
}
