/* SPDX-License-Identifier: MIT */
/* OpenMP workload: the three shapes OpenMP codes mix.
     - a parallel loop with dynamic scheduling over rows of an image, each
       pixel an escape-time iteration in small helper functions (the loop
       body is an outlined function libgomp calls per chunk);
     - recursive tasks (a task-parallel tree sum with a cut-off);
     - a reduction and a critical section updating a shared histogram.
   Threads take iterations and tasks in whatever order the run gives them,
   so every thread's sequence differs from run to run; the printed
   checksum does not.

     omp [ROWS [DEPTH]]   (defaults 160, 18)

   Run with OMP_NUM_THREADS (bench/run: 4). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define COLS 160
#define MAX_ITER 64

typedef struct { double re, im; } cplx;

__attribute__((noinline)) static cplx c_step(cplx z, cplx c)
{
   cplx r = { z.re * z.re - z.im * z.im + c.re, 2 * z.re * z.im + c.im };
   return r;
}

__attribute__((noinline)) static int escaped(cplx z)
{
   return z.re * z.re + z.im * z.im > 4.0;
}

__attribute__((noinline)) static int pixel(int row, int col, int rows)
{
   cplx c = { -2.0 + 2.5 * col / COLS, -1.25 + 2.5 * row / rows }, z = { 0, 0 };
   int k;
   for (k = 0; k < MAX_ITER && !escaped(z); k++)
      z = c_step(z, c);
   return k;
}

__attribute__((noinline)) static long image(int rows, long *hist)
{
   long sum = 0;
#pragma omp parallel for schedule(dynamic, 2) reduction(+ : sum)
   for (int r = 0; r < rows; r++) {
      long row_sum = 0;
      for (int c = 0; c < COLS; c++)
         row_sum += pixel(r, c, rows);
#pragma omp critical
      hist[row_sum % 16]++;
      sum += row_sum;
   }
   return sum;
}

__attribute__((noinline)) static long leaf(long v)
{
   return v * 2654435761u % 1000;
}

__attribute__((noinline)) static long tree_sum(long node, int depth)
{
   long a, b;
   if (depth == 0)
      return leaf(node);
   if (depth < 8)      /* the cut-off: small subtrees run in the task */
      return tree_sum(2 * node, depth - 1) + tree_sum(2 * node + 1, depth - 1);
#pragma omp task shared(a)
   a = tree_sum(2 * node, depth - 1);
#pragma omp task shared(b)
   b = tree_sum(2 * node + 1, depth - 1);
#pragma omp taskwait
   return a + b;
}

int main(int argc, char **argv)
{
   int rows = argc > 1 ? atoi(argv[1]) : 160;
   int depth = argc > 2 ? atoi(argv[2]) : 18;
   long hist[16] = { 0 }, pixels, tree;
   unsigned long check = 0;

   pixels = image(rows, hist);
#pragma omp parallel
#pragma omp single
   tree = tree_sum(1, depth);
   for (int i = 0; i < 16; i++)
      check = check * 31 + hist[i];
   printf("pixels %ld tree %ld histogram %lu\n", pixels, tree, check);
   return 0;
}
