/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A crash deep in the stack: DEPTH nested frames, then a store through a
   NULL pointer (SIGSEGV, default action).  The trace must be complete and
   decode up to the crash point: every call the oracle logged must be
   there, in order.  With a second argument "handler", a handler takes
   the signal first, as gfortran's runtime and UCX install one: it
   reports and raises the signal again, which then kills the process
   inside the handler. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void crash_here(int *p)
{
   *p = 42;
   sink++;
}

__attribute__((noinline)) void descend(int n, int *p)
{
   sink += n;
   if (n > 0)
      descend(n - 1, p);
   else
      crash_here(p);
   sink--;
}

__attribute__((noinline)) void report(int sig)
{
   static const char msg[] = "crash_segv: caught a fatal signal\n";
   sink += sig;
   if (write(2, msg, sizeof msg - 1) < 0)
      sink++;
}

__attribute__((noinline)) void on_fault(int sig)
{
   report(sig);
   signal(sig, SIG_DFL);
   raise(sig);
}

__attribute__((noinline)) void warm_up(int n)
{
   if (n > 0)
      warm_up(n - 1);
}

int main(int argc, char **argv)
{
   int depth = argc > 1 ? atoi(argv[1]) : 1000;
   if (argc > 2 && strcmp(argv[2], "handler") == 0)
      signal(SIGSEGV, on_fault);
   warm_up(10);
   descend(depth, (int *)(long)(argc > 100));   /* NULL */
   return 0;
}
