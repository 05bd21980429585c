/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A program shaped like a solver, serial: a main loop over iterations
   calling compute and exchange routines, output every few iterations,
   a recursive and a mutually recursive routine, a qsort callback and
   calls through a function pointer.  Every routine does a different
   amount of work per call, data-dependent in places.  Built -O1
   -fno-inline so that each stays a function of its own.
     iterate NITER */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 2000

static double grid[N], next[N], halo[2][16];

static void compute(int iter)
{
   for (int i = 1; i < N - 1; i++)
      next[i] = 0.25 * grid[i - 1] + 0.5 * grid[i] + 0.25 * grid[i + 1]
                + (i % 7 == iter % 7 ? 1e-3 : 0.0);
   memcpy(grid, next, sizeof grid);
}

static void exchange(void)
{
   memcpy(halo[0], grid, sizeof halo[0]);
   memcpy(halo[1], grid + N - 16, sizeof halo[1]);
   grid[0] = halo[1][15];
   grid[N - 1] = halo[0][0];
}

static double residual(void)
{
   double r = 0;
   for (int i = 0; i < N; i++)
      r += grid[i] > next[i] ? grid[i] - next[i] : next[i] - grid[i];
   return r;
}

static long tree(int n)
{
   return n < 2 ? n : tree(n - 1) + tree(n - 2) + (n % 5 == 0);
}

static int is_odd(unsigned n);
static int is_even(unsigned n)
{
   return n == 0 ? 1 : is_odd(n - 1);
}
static int is_odd(unsigned n)
{
   return n == 0 ? 0 : is_even(n - 1);
}

static int by_value(const void *a, const void *b)
{
   double x = *(const double *)a, y = *(const double *)b;
   return (x > y) - (x < y);
}

static double sorted_median(void)
{
   static double copy[256];
   memcpy(copy, grid + 100, sizeof copy);
   qsort(copy, 256, sizeof copy[0], by_value);
   return copy[128];
}

static double scale(double v) { return v * 1.0001; }
static double shift(double v) { return v + 0.5; }

int main(int argc, char **argv)
{
   int niter = argc > 1 ? atoi(argv[1]) : 10;
   double (*ops[2])(double) = { scale, shift };
   long t = 0;
   int parity = 0;

   for (int i = 0; i < N; i++)
      grid[i] = (i * 37 % 101) / 101.0;
   for (int iter = 0; iter < niter; iter++) {
      compute(iter);
      exchange();
      grid[iter % N] = ops[iter % 2](grid[iter % N]);
      t += tree(12 + iter % 4);
      parity += is_even(50 + (unsigned)iter);
      if (iter % 4 == 0)
         printf("iteration %d: residual %.6f median %.6f\n", iter,
                residual(), sorted_median());
   }
   printf("%ld %d\n", t, parity);
   return 0;
}
