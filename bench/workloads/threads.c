/* Many live threads at once, to measure memory per traced thread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_barrier_t barrier;

static long work(long n)
{
   return n <= 1 ? 1 : work(n - 1) + 1;
}

static void *worker(void *arg)
{
   long r = work(100 + (long)arg);
   pthread_barrier_wait(&barrier);   /* all threads alive together */
   return (void *)r;
}

int main(int argc, char **argv)
{
   int n = argc > 1 ? atoi(argv[1]) : 64;
   pthread_t *t = malloc(n * sizeof *t);
   pthread_barrier_init(&barrier, NULL, n + 1);
   for (long i = 0; i < n; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   pthread_barrier_wait(&barrier);
   for (int i = 0; i < n; i++)
      pthread_join(t[i], NULL);
   printf("%d threads\n", n);
   return 0;
}
