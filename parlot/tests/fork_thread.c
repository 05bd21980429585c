/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fork from a thread that is not the initial one, while the initial thread
   waits in nested calls: the child has a single thread, the forking one,
   which becomes the child's thread 1; its stream must begin with the
   stack of the FORKING thread (start_thread, worker, w_outer, w_inner,
   fork, ...), not with the initial thread's.  In the child the worker
   returns and the process ends when its only thread does. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;
static pthread_t worker_thread;

__attribute__((noinline)) void leaf(int v) { sink += v; }

__attribute__((noinline)) void w_inner(void)
{
   pid_t p = fork();
   if (p == 0) {
      leaf(10);             /* child */
      return;
   }
   waitpid(p, NULL, 0);
   leaf(20);
}

__attribute__((noinline)) void w_outer(void)
{
   leaf(1);
   w_inner();
   leaf(2);
}

__attribute__((noinline)) void *worker(void *arg)
{
   (void)arg;
   w_outer();
   return NULL;
}

__attribute__((noinline)) void wait_nested(int n)
{
   if (n > 0) {
      wait_nested(n - 1);
      return;
   }
   pthread_join(worker_thread, NULL);
}

int main(void)
{
   pthread_create(&worker_thread, NULL, worker, NULL);
   wait_nested(5);
   leaf(3);
   return 0;
}
