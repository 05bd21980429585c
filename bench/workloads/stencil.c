/* SPDX-License-Identifier: MIT */
/* MPI workload: Jacobi relaxation of the 2-D heat equation, the grid's rows
   split over the ranks.  Every iteration exchanges one halo row with each
   neighbour (MPI_Sendrecv) and relaxes the owned rows, one kernel call per
   row; every CHECK_EVERY iterations the ranks agree on the residual
   (MPI_Allreduce).  The shape of a typical HPC loop: compute in small
   kernels, neighbour communication, a global reduction.

     stencil [ITERATIONS [ROWS_PER_RANK [COLUMNS]]]   (defaults 400, 64, 256)

   Rank 0 prints the final residual, which does not depend on timing. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK_EVERY 10

typedef struct {
   int rank, size, rows, cols;
   double *cur, *next;     /* (rows + 2) x cols: halo rows 0 and rows + 1 */
} grid;

static double *row_of(double *g, int cols, int r) { return g + (size_t)r * cols; }

__attribute__((noinline)) static void init_grid(grid *g)
{
   for (int r = 0; r < g->rows + 2; r++)
      for (int c = 0; c < g->cols; c++) {
         /* a hot edge on the global top row, cold elsewhere */
         int global_row = g->rank * g->rows + r - 1;
         double v = global_row <= 0 ? 100.0 : 0.0;
         row_of(g->cur, g->cols, r)[c] = row_of(g->next, g->cols, r)[c] = v;
      }
}

__attribute__((noinline)) static void exchange_halos(grid *g)
{
   int up = g->rank > 0 ? g->rank - 1 : MPI_PROC_NULL;
   int down = g->rank < g->size - 1 ? g->rank + 1 : MPI_PROC_NULL;
   /* first owned row goes up, the lower halo comes from below; and back */
   MPI_Sendrecv(row_of(g->cur, g->cols, 1), g->cols, MPI_DOUBLE, up, 0,
                row_of(g->cur, g->cols, g->rows + 1), g->cols, MPI_DOUBLE, down, 0,
                MPI_COMM_WORLD, MPI_STATUS_IGNORE);
   MPI_Sendrecv(row_of(g->cur, g->cols, g->rows), g->cols, MPI_DOUBLE, down, 1,
                row_of(g->cur, g->cols, 0), g->cols, MPI_DOUBLE, up, 1,
                MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

__attribute__((noinline)) static double relax_row(const double *above, const double *row,
                                                   const double *below, double *out,
                                                   int cols)
{
   double change = 0.0;
   for (int c = 1; c < cols - 1; c++) {
      out[c] = 0.25 * (above[c] + below[c] + row[c - 1] + row[c + 1]);
      double d = out[c] - row[c];
      change += d * d;
   }
   out[0] = row[0];
   out[cols - 1] = row[cols - 1];
   return change;
}

__attribute__((noinline)) static double relax(grid *g)
{
   double change = 0.0;
   int first = g->rank == 0 ? 2 : 1;   /* the global top row stays hot */
   for (int r = first; r <= g->rows; r++)
      change += relax_row(row_of(g->cur, g->cols, r - 1), row_of(g->cur, g->cols, r),
                          row_of(g->cur, g->cols, r + 1), row_of(g->next, g->cols, r),
                          g->cols);
   double *t = g->cur;
   g->cur = g->next;
   g->next = t;
   return change;
}

__attribute__((noinline)) static double global_residual(double local)
{
   double sum = 0.0;
   MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
   return sum;
}

static int arg(int argc, char **argv, int i, int dflt)
{
   int v = argc > i ? atoi(argv[i]) : dflt;
   if (v < 3) {
      fprintf(stderr, "stencil: argument %d must be at least 3\n", i);
      exit(2);
   }
   return v;
}

int main(int argc, char **argv)
{
   grid g;
   int iterations = arg(argc, argv, 1, 400);
   double residual = 0.0;

   MPI_Init(&argc, &argv);
   MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
   MPI_Comm_size(MPI_COMM_WORLD, &g.size);
   g.rows = arg(argc, argv, 2, 64);
   g.cols = arg(argc, argv, 3, 256);
   g.cur = malloc(sizeof(double) * (size_t)(g.rows + 2) * g.cols);
   g.next = malloc(sizeof(double) * (size_t)(g.rows + 2) * g.cols);
   if (!g.cur || !g.next) {
      fprintf(stderr, "stencil: out of memory\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
   }
   init_grid(&g);
   for (int it = 1; it <= iterations; it++) {
      exchange_halos(&g);
      double change = relax(&g);
      if (it % CHECK_EVERY == 0)
         residual = global_residual(change);
   }
   if (g.rank == 0)
      printf("stencil: %d ranks, %d iterations, residual %.6e\n", g.size, iterations,
             residual);
   free(g.cur);
   free(g.next);
   MPI_Finalize();
   return 0;
}
