/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A crash deep in the stack: DEPTH nested frames, then a store through a
   NULL pointer (SIGSEGV, default action).  The trace must be complete and
   decode up to the crash point: every call the oracle logged must be
   there, in order. */
#include <stdlib.h>

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

__attribute__((noinline)) void warm_up(int n)
{
   if (n > 0)
      warm_up(n - 1);
}

int main(int argc, char **argv)
{
   int depth = argc > 1 ? atoi(argv[1]) : 1000;
   warm_up(10);
   descend(depth, (int *)(long)(argc > 100));   /* NULL */
   return 0;
}
