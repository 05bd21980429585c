/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A program whose call structure does not depend on timing, for tracing
   it and its stripped copies (run_stripped_tests.sh): static functions,
   recursion, calls through a pointer table, a callback from the C
   library (qsort), and two threads, each with a fixed amount of work. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int square(int x) { return x * x; }
static int twice(int x) { return 2 * x; }
static int (*const ops[])(int) = { square, twice };

static int by_value(const void *a, const void *b)
{
   return *(const int *)a - *(const int *)b;
}

static int walk(int depth)
{
   return depth <= 0 ? 0 : ops[depth % 2](depth) + walk(depth - 1);
}

static void *worker(void *arg)
{
   int id = *(int *)arg, sum = 0;
   for (int i = 0; i < 20 + 10 * id; i++)
      sum += walk(i % 7);
   *(int *)arg = sum;
   return NULL;
}

int main(void)
{
   int v[100], ids[2] = { 1, 2 };
   pthread_t t[2];

   for (int i = 0; i < 100; i++)
      v[i] = (i * 37) % 100;
   qsort(v, 100, sizeof *v, by_value);
   for (int i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, worker, &ids[i]);
   for (int i = 0; i < 2; i++)
      pthread_join(t[i], NULL);
   printf("%d %d %d\n", v[50], ids[0], ids[1]);
   return 0;
}
