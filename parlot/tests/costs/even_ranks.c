/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Ranks whose own functions differ by exactly the same instructions: the
   launcher's rank variable (PMI_RANK, as MPICH's hydra sets it) picks how
   many sweeps step_a and step_b make, the same number for both, so their
   spreads across the ranks are equal and parlot-annotate's table of
   instructions per rank must order them by name.

   usage: even_ranks BASE EXTRA   (the highest rank sweeps BASE + EXTRA
   times, the others BASE) */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

/* Two functions with the same code; not merged (-fno-ipa-icf) nor
   inlined (-fno-inline). */
__attribute__((noinline)) static void step_a(int sweeps)
{
   double s = 0;
   for (int i = 0; i < sweeps * 1000; i++)
      s += i * 0.5;
   sink = s;
}

__attribute__((noinline)) static void step_b(int sweeps)
{
   double s = 0;
   for (int i = 0; i < sweeps * 1000; i++)
      s += i * 0.5;
   sink = s;
}

int main(int argc, char **argv)
{
   const char *r = getenv("PMI_RANK"), *n = getenv("PMI_SIZE");
   int rank = r ? atoi(r) : 0, size = n ? atoi(n) : 1;
   int sweeps = argc > 1 ? atoi(argv[1]) : 4;

   if (rank == size - 1 && argc > 2)
      sweeps += atoi(argv[2]);
   step_a(sweeps);
   step_b(sweeps);
   printf("rank %d sweeps %d\n", rank, sweeps);
   return 0;
}
