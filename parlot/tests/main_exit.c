/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The initial thread leaves with pthread_exit from nested calls while
   three workers go on calling functions for a while; the process ends when
   the last worker returns.  Every thread's trace is complete and matches
   its oracle; the initial thread's frames end without returns. */
#pragma GCC diagnostic ignored "-Winfinite-recursion"
#include <pthread.h>
#include <time.h>

static volatile long sink;

__attribute__((noinline)) void nap_ms(long ms)
{
   struct timespec ts = { 0, ms * 1000000L };
   nanosleep(&ts, NULL);
}

__attribute__((noinline)) void step(long i) { sink += i; }

__attribute__((noinline)) void *worker(void *arg)
{
   long i, id = (long)arg;
   nap_ms(100 + 50 * id);        /* outlive the initial thread */
   for (i = 0; i < 20 + id; i++)
      step(i);
   return NULL;
}

__attribute__((noinline)) void leave(int n)
{
   if (n > 0) {
      leave(n - 1);
      return;
   }
   pthread_exit(NULL);
}

int main(void)
{
   pthread_t t[3];
   long i;
   for (i = 0; i < 3; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   leave(4);
   return 1;     /* never reached */
}
