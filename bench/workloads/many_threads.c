/* SPDX-License-Identifier: MIT */
/* N threads alive at once (bench/many_threads): each sorts a few hundred
   numbers with a comparator, builds and walks a small tree, formats a few
   strings (about 12,000 calls and returns), then waits at a barrier for
   all the others, so that every thread's codec model is in memory at the
   same time.  many_threads N [RECORDS] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct node {
   long key;
   struct node *left, *right;
} node;

static pthread_barrier_t all_started;
static int records = 200;
static volatile long sink;

static node *insert(node *t, long key)
{
   if (!t) {
      t = calloc(1, sizeof *t);
      if (t)
         t->key = key;
      return t;
   }
   if (key < t->key)
      t->left = insert(t->left, key);
   else
      t->right = insert(t->right, key);
   return t;
}

static long walk(const node *t)
{
   return t ? t->key + walk(t->left) + walk(t->right) : 0;
}

static void drop(node *t)
{
   if (t) {
      drop(t->left);
      drop(t->right);
      free(t);
   }
}

static int by_value(const void *a, const void *b)
{
   long x = *(const long *)a, y = *(const long *)b;
   return x < y ? -1 : x > y;
}

static void *worker(void *arg)
{
   long id = (long)arg, *v = malloc(records * sizeof *v);
   unsigned s = (unsigned)id * 2654435761u;
   node *t = NULL;
   char buf[64];
   int i;

   if (!v)
      return NULL;
   for (i = 0; i < records; i++) {
      s = s * 1103515245u + 12345u;
      v[i] = s >> 8;
   }
   qsort(v, records, sizeof *v, by_value);
   for (i = 0; i < records; i++)
      t = insert(t, v[(i * 37) % records]);
   sink += walk(t);
   drop(t);
   for (i = 0; i < 20; i++) {
      snprintf(buf, sizeof buf, "%ld-%d", id, i);
      sink += (long)strlen(buf);
   }
   free(v);
   pthread_barrier_wait(&all_started);
   return NULL;
}

int main(int argc, char **argv)
{
   int n = argc > 1 ? atoi(argv[1]) : 1000, i;
   pthread_t *th;
   pthread_attr_t attr;

   if (argc > 2)
      records = atoi(argv[2]);
   if (n < 1 || records < 1 || !(th = malloc(n * sizeof *th))) {
      fprintf(stderr, "usage: many_threads N [RECORDS]\n");
      return 2;
   }
   pthread_barrier_init(&all_started, NULL, (unsigned)n);
   pthread_attr_init(&attr);
   pthread_attr_setstacksize(&attr, 64 * 1024);
   for (i = 0; i < n; i++)
      if (pthread_create(&th[i], &attr, worker, (void *)(long)i) != 0) {
         perror("pthread_create");
         return 1;
      }
   for (i = 0; i < n; i++)
      pthread_join(th[i], NULL);
   printf("%d threads\n", n);
   return 0;
}
