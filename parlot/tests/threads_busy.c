/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Four threads run call-heavy work (fib) at the same time, so that their
   streams fill and flush many buffers while Valgrind's scheduler
   interleaves them: each thread's long sequence must come out whole and
   in order, and the per-edge call counts must be Callgrind's. */
#include <pthread.h>
#include <stdio.h>

__attribute__((noinline)) long fib(int n)
{
   return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) long odd_work(int n)
{
   return n <= 0 ? 0 : 1 + odd_work(n - 1) + (fib(n % 5) & 1);
}

__attribute__((noinline)) void *worker(void *arg)
{
   long id = (long)arg;
   long r = fib(17 + (int)(id & 1)) + odd_work(300 + (int)id);
   return (void *)r;
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
