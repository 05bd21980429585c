/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Signal handlers on an alternate signal stack that lies ABOVE the
   interrupted frames (higher addresses), so that the handler's SP alone
   would say that every interrupted frame has returned:
   - the main thread's alternate stack is a buffer in main's own frame,
     and the signal is raised 8 calls deeper;
   - a worker thread's alternate stack is mapped by main before the
     thread is created, so it lies above the thread's stack (mmap hands
     out addresses downwards), as runtimes that give every thread its own
     signal stack do.
   The interrupted frames are alive: they return normally after the
   handler.  The oracle's sequence must be decoded as it is, event for
   event (a handler is a nested call, not the end of the frames below). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define ALT_SIZE (256 * 1024)

static volatile int hits;
static void *thread_alt;

__attribute__((noinline)) void handler_work(int n)
{
   hits += n;
   if (n > 0)
      handler_work(n - 1);
}

__attribute__((noinline)) void on_signal(int sig)
{
   (void)sig;
   handler_work(3);
}

__attribute__((noinline)) void after_signal(void)
{
   hits++;
}

__attribute__((noinline)) void nest(int n)
{
   if (n > 0) {
      nest(n - 1);
      after_signal();
      return;
   }
   raise(SIGUSR1);       /* delivered to this thread */
   after_signal();
}

__attribute__((noinline)) void use_alt_stack(void *base, size_t size)
{
   stack_t ss;
   ss.ss_sp = base;
   ss.ss_size = size;
   ss.ss_flags = 0;
   if (sigaltstack(&ss, NULL) != 0)
      perror("sigaltstack");
}

__attribute__((noinline)) void *worker(void *arg)
{
   (void)arg;
   use_alt_stack(thread_alt, ALT_SIZE);
   nest(6);
   return NULL;
}

int main(void)
{
   static char dummy;
   char main_alt[ALT_SIZE];         /* in main's frame: above nest()'s */
   struct sigaction sa;
   pthread_t t;

   memset(&sa, 0, sizeof sa);
   sa.sa_handler = on_signal;
   sa.sa_flags = SA_ONSTACK;
   sigemptyset(&sa.sa_mask);
   sigaction(SIGUSR1, &sa, NULL);

   use_alt_stack(main_alt, sizeof main_alt);
   nest(8);

   thread_alt = mmap(NULL, ALT_SIZE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   if (thread_alt == MAP_FAILED)
      return 1;
   pthread_create(&t, NULL, worker, NULL);
   pthread_join(t, NULL);
   printf("%d\n", hits + (int)dummy);
   return 0;
}
