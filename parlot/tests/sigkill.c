/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A real SIGKILL, which nobody can catch or see coming, not even Valgrind
   (a kill() of itself would go through Valgrind's syscall wrapper, which
   exits cleanly): the kernel sends SIGKILL when the process reaches its
   hard CPU time limit.  Phase A runs, the program sleeps 1.5 s, then sets
   its CPU limit to 2 s from now and spins in phase B, calling a function
   every few milliseconds, until the kernel kills it.  The trace holds
   only what the tool had flushed (--flush-interval, 1000 ms by default):
   it must decode to a prefix of the oracle's sequence holding at least
   phase A and the sleep, which ended more than a flush interval before
   the kill. */
#include <time.h>

#include "cpu_limit.h"

static volatile long sink;

__attribute__((noinline)) void phase_a_leaf(int i) { sink += i; }

__attribute__((noinline)) void phase_a(void)
{
   int i;
   for (i = 0; i < 200; i++)
      phase_a_leaf(i);
}

__attribute__((noinline)) void nap(long ms)
{
   struct timespec ts;
   ts.tv_sec = ms / 1000;
   ts.tv_nsec = (ms % 1000) * 1000000L;
   nanosleep(&ts, NULL);
}

__attribute__((noinline)) void phase_b_leaf(long i) { sink += i; }

__attribute__((noinline)) void phase_b(void)
{
   long i, j;
   for (i = 0; ; i++) {
      phase_b_leaf(i);
      for (j = 0; j < 200000; j++)   /* a few ms of work, no calls */
         sink += j;
   }
}

int main(void)
{
   phase_a();
   nap(1500);
   arm_cpu_limit(2);
   phase_b();
   return 0;
}
