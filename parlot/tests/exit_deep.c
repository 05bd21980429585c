/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exit() from deep inside, while a second thread is blocked inside nested
   calls: no frame returns, an atexit handler runs on top of the deep
   stack, and the trace must still be complete, decodable and consistent
   for both threads. */
#pragma GCC diagnostic ignored "-Winfinite-recursion"
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static int fds[2], ready[2];
static volatile int sink;

__attribute__((noinline)) void on_exit_handler(void) { sink++; }

__attribute__((noinline)) void blocked(int n)
{
   char c;
   if (n > 0) {
      blocked(n - 1);
      return;
   }
   /* Tell main we are blocking (no instrumented function runs between
      this write and the read, so nothing is logged after it), then block
      for good: nobody writes to fds. */
   sink += (int)write(ready[1], "r", 1);
   sink += (int)read(fds[0], &c, 1);
}

__attribute__((noinline)) void *thread_main(void *arg)
{
   (void)arg;
   blocked(6);
   return NULL;
}

__attribute__((noinline)) void go_deep(int n)
{
   if (n > 0) {
      go_deep(n - 1);
      return;
   }
   exit(3);
}

int main(void)
{
   pthread_t t;
   char c;
   if (pipe(fds) != 0 || pipe(ready) != 0)
      return 1;
   atexit(on_exit_handler);
   pthread_create(&t, NULL, thread_main, NULL);
   if (read(ready[0], &c, 1) != 1)     /* the thread is about to block */
      return 1;
   go_deep(50);
   return 0;
}
