/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A rank that calls MPI_Abort: its launcher then kills every rank of the
   job with SIGKILL (MPICH's hydra, within a second), which nobody can
   catch.  The program's own MPI_Abort stands for the library's here: it
   sets a hard CPU limit a second ahead and spins until the kernel sends
   SIGKILL (as sigkill.c does: a kill() of itself would go through
   Valgrind, which exits cleanly).  With a flush interval longer than the
   run, only a flush at MPI_Abort's entry puts the steps before it in the
   file: the trace must decode to a prefix of the oracle's sequence that
   reaches the call of MPI_Abort. */
#include "cpu_limit.h"

static volatile long sink;

__attribute__((noinline)) void step(int i)
{
   sink += i;
}

__attribute__((noinline)) void MPI_Abort(int comm, int code)
{
   long j;
   arm_cpu_limit(1);
   for (;;)
      for (j = 0; j < 200000; j++)
         sink += j + comm + code;
}

int main(void)
{
   int i;
   for (i = 0; i < 50; i++)
      step(i);
   MPI_Abort(0, 2);
   return 0;
}
