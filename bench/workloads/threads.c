/* SPDX-License-Identifier: MIT */
/* pthreads workload: THREADS workers each build a table of records, sort it
   with qsort (a comparator called back from libc), hash the records with
   small recursive helpers and merge the results into shared totals under a
   mutex.  The workers start together (a barrier), so all of them are alive
   at once: bench/run's memory per traced thread relies on it.  Each
   worker's work is fixed by its index, so the result does not depend on
   scheduling.

     threads [THREADS [RECORDS]]     (defaults 4, 200000) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
   unsigned key;
   char name[12];
} record;

typedef struct {
   long index, records;
   pthread_t tid;
} worker;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;
static unsigned long total_hash, total_merges;

static unsigned next_rand(unsigned *s)
{
   *s = *s * 1103515245u + 12345u;
   return *s >> 8;
}

static void fill(record *r, long n, unsigned seed)
{
   for (long i = 0; i < n; i++) {
      r[i].key = next_rand(&seed) % 100000;
      snprintf(r[i].name, sizeof r[i].name, "r%u", next_rand(&seed) % 1000000);
   }
}

static int by_key_then_name(const void *a, const void *b)
{
   const record *x = a, *y = b;
   if (x->key != y->key)
      return x->key < y->key ? -1 : 1;
   return strcmp(x->name, y->name);
}

/* A small recursive hash over the name: calls, not a loop. */
static unsigned long hash_str(const char *s, unsigned long h)
{
   return *s ? hash_str(s + 1, h * 31 + (unsigned char)*s) : h;
}

static unsigned long hash_record(const record *r)
{
   return hash_str(r->name, r->key);
}

static void merge(unsigned long h)
{
   pthread_mutex_lock(&lock);
   total_hash += h;
   total_merges++;
   pthread_mutex_unlock(&lock);
}

static void *work(void *arg)
{
   worker *w = arg;
   record *r = malloc(w->records * sizeof *r);
   unsigned long h = 0;

   pthread_barrier_wait(&start);
   fill(r, w->records, 1000u + (unsigned)w->index);
   qsort(r, w->records, sizeof *r, by_key_then_name);
   for (long i = 0; i < w->records; i++) {
      h = h * 7 + hash_record(&r[i]);
      if (i % 10000 == 9999) {
         merge(h);
         h = 0;
      }
   }
   merge(h);
   free(r);
   return NULL;
}

int main(int argc, char **argv)
{
   int n = argc > 1 ? atoi(argv[1]) : 4;
   long records = argc > 2 ? atol(argv[2]) : 200000;
   worker *w = n > 0 && records > 0 ? calloc(n, sizeof *w) : NULL;

   if (!w) {
      fprintf(stderr, "usage: threads [THREADS [RECORDS]], both at least 1\n");
      return 2;
   }
   pthread_barrier_init(&start, NULL, (unsigned)n);
   for (int i = 0; i < n; i++) {
      w[i].index = i;
      w[i].records = records;
      if (pthread_create(&w[i].tid, NULL, work, &w[i]) != 0) {
         fprintf(stderr, "threads: cannot create thread %d\n", i + 1);
         return 1;
      }
   }
   for (int i = 0; i < n; i++)
      pthread_join(w[i].tid, NULL);
   printf("%d threads, %lu merges, hash %lx\n", n, total_merges, total_hash);
   free(w);
   return 0;
}
