/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Signal handlers: synchronous signals (raise) delivered deep in the
   stack, a handler that calls instrumented functions and raises a second
   signal (nested handlers), a handler running on an alternate signal stack
   (sigaltstack: its SP is far from the interrupted frames), and SIGSEGV
   caught and survived with siglongjmp is left to the longjmp test.
   Only synchronous signals are used so that the oracle's order is exact. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int hits;

__attribute__((noinline)) void in_handler(int depth)
{
   hits += depth;
   if (depth > 0)
      in_handler(depth - 1);
}

__attribute__((noinline)) void on_usr2(int sig)
{
   (void)sig;
   in_handler(2);
}

__attribute__((noinline)) void on_usr1(int sig)
{
   (void)sig;
   in_handler(3);
   raise(SIGUSR2);          /* nested: handler inside a handler */
   in_handler(1);
}

__attribute__((noinline)) void on_alt(int sig)
{
   (void)sig;
   in_handler(4);
}

__attribute__((noinline)) void deep(int n, int sig)
{
   if (n > 0) {
      deep(n - 1, sig);
      return;
   }
   raise(sig);
   in_handler(0);
}

int main(void)
{
   struct sigaction sa;
   stack_t ss;
   int i;

   memset(&sa, 0, sizeof sa);
   sigemptyset(&sa.sa_mask);
   sa.sa_handler = on_usr1;
   sigaction(SIGUSR1, &sa, NULL);
   sa.sa_handler = on_usr2;
   sigaction(SIGUSR2, &sa, NULL);

   ss.ss_sp = malloc(1 << 16);
   ss.ss_size = 1 << 16;
   ss.ss_flags = 0;
   sigaltstack(&ss, NULL);
   sa.sa_handler = on_alt;
   sa.sa_flags = SA_ONSTACK;
   sigaction(SIGWINCH, &sa, NULL);

   for (i = 0; i < 3; i++) {
      deep(5 + i, SIGUSR1);
      deep(3, SIGUSR2);
      deep(7 - i, SIGWINCH);
   }
   printf("%d\n", hits);
   return 0;
}
