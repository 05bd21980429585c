/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Selective tracing: the program starts and stops recording, for the
   process and for single threads, inside nested calls, and writes marks
   (<valgrind/parlot.h>).  Each request is made in a function named after
   it, so that the oracle log (-finstrument-functions) shows where it
   happens; selective_check.py replays the log with ParLoT's recording
   rules.  Workers run one at a time inside spawn() (create, then join),
   so that process-wide requests, made by the main thread only, reach
   them at a known point.  Natively the requests do nothing. */
#include <pthread.h>
#include <stdio.h>

#include "parlot.h"

#define NOINLINE __attribute__((noinline))

NOINLINE void ctl_start(void) { PARLOT_START_TRACE; }
NOINLINE void ctl_stop(void) { PARLOT_STOP_TRACE; }
NOINLINE void ctl_thread_start(void) { PARLOT_START_THREAD_TRACE; }
NOINLINE void ctl_thread_stop(void) { PARLOT_STOP_THREAD_TRACE; }
NOINLINE void mark_iteration(void) { PARLOT_MARK("iteration"); }
NOINLINE void mark_phase(void) { PARLOT_MARK("phase"); }

static volatile int sink;

NOINLINE int leaf(int x) { return x * 3 + 1; }
NOINLINE int comm_send(int x) { return leaf(x) + 1; }
NOINLINE int comm_recv(int x) { return leaf(x) - 1; }

NOINLINE int kernel(int n)
{
   int s = 0;
   for (int i = 0; i < n; i++)
      s += leaf(i);
   return s;
}

NOINLINE int solve(int it)
{
   int s;
   mark_iteration();
   s = kernel(3);
   s += comm_send(s);
   if (it % 2)
      s += comm_recv(s);
   return s;
}

NOINLINE int recurse(int d)
{
   return d ? recurse(d - 1) + leaf(d) : 0;
}

NOINLINE int phase(int n)
{
   int s = 0;
   mark_phase();
   for (int i = 0; i < n; i++)
      s += solve(i);
   return s;
}

/* Starts recording two calls deep: the open frames are recorded then. */
NOINLINE int nest_inner(void)
{
   ctl_start();
   return phase(1);
}

NOINLINE int nest_outer(void)
{
   return nest_inner() + 1;
}

NOINLINE void *worker(void *arg)
{
   long id = (long)arg;
   int s = 0;
   if (id == 1)
      ctl_thread_stop();
   for (int i = 0; i < 3; i++) {
      s += solve(i);
      if (id == 1 && i == 1)
         ctl_thread_start();
   }
   s += recurse(4);
   sink = s;
   return NULL;
}

NOINLINE void spawn(long id)
{
   pthread_t t;
   if (pthread_create(&t, NULL, worker, (void *)id) == 0)
      pthread_join(t, NULL);
}

int main(void)
{
   int s = phase(2);
   ctl_stop();
   s += phase(2);
   s += nest_outer();
   spawn(1);
   ctl_stop();
   spawn(2);
   s += recurse(3);
   ctl_start();
   spawn(3);
   s += recurse(5);
   printf("selective: %d\n", s);
   return 0;
}
