/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Threads: four workers sort, hash and search their own data and add to
   a shared total under a mutex; each does a different amount of work.
     workers */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long total;

static int cmp(const void *a, const void *b)
{
   unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
   return (x > y) - (x < y);
}

static unsigned hash(unsigned v)
{
   v ^= v >> 16;
   v *= 0x45d9f3bu;
   return v ^ (v >> 16);
}

static int search(const unsigned *a, int lo, int hi, unsigned key)
{
   if (lo >= hi)
      return lo;
   int mid = lo + (hi - lo) / 2;
   return a[mid] < key ? search(a, mid + 1, hi, key) : search(a, lo, mid, key);
}

static void *worker(void *arg)
{
   long id = (long)arg;
   int n = 500 + 300 * (int)id;
   unsigned *a = malloc(n * sizeof *a);
   unsigned long sum = 0;
   for (int round = 0; round < 5; round++) {
      for (int i = 0; i < n; i++)
         a[i] = hash((unsigned)(i + round * 7919 + id));
      qsort(a, n, sizeof *a, cmp);
      for (int i = 0; i < n; i += 7)
         sum += search(a, 0, n, hash((unsigned)i));
      pthread_mutex_lock(&lock);
      total += sum;
      pthread_mutex_unlock(&lock);
   }
   free(a);
   return NULL;
}

int main(void)
{
   pthread_t t[4];
   for (long i = 0; i < 4; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   for (int i = 0; i < 4; i++)
      pthread_join(t[i], NULL);
   printf("%lu\n", total);
   return 0;
}
