/* exit() from deep inside, while a second thread is blocked inside nested
   calls: no frame returns, an atexit handler runs on top of the deep
   stack, and the trace must still be complete, decodable and consistent
   for both threads. */
#pragma GCC diagnostic ignored "-Winfinite-recursion"
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static int fds[2];
static volatile int sink;

__attribute__((noinline)) void on_exit_handler(void) { sink++; }

__attribute__((noinline)) void blocked(int n)
{
   char c;
   if (n > 0) {
      blocked(n - 1);
      return;
   }
   sink += (int)read(fds[0], &c, 1);  /* never returns: nobody writes */
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
   int ready[2];
   if (pipe(fds) != 0 || pipe(ready) != 0)
      return 1;
   atexit(on_exit_handler);
   pthread_create(&t, NULL, thread_main, NULL);
   /* give the thread time to block; the oracle log order within one
      thread does not depend on it, but the trace is more interesting */
   usleep(200000);
   (void)c; (void)ready;
   go_deep(50);
   return 0;
}
