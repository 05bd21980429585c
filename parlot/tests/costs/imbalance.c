/* SPDX-License-Identifier: GPL-2.0-or-later */
/* imbalance.c: an MPI program whose ranks make the same calls in the same
   order while one of them works more: a load imbalance, which only the
   instructions show.  A main loop of NITER iterations, each a relaxation
   sweep of the rank's part of a periodic 1-D grid (relax), a halo
   exchange with non-blocking point-to-point (exchange) and a residual
   with MPI_Allreduce (residual); rank 0 alone prints the residual every
   4th iteration (root-only I/O).  From iteration SLOW_FROM on, rank
   SLOW_RANK sweeps SLOW_FACTOR times as often.
     mpirun -np N ./imbalance [NITER SLOW_RANK SLOW_FROM SLOW_FACTOR]
   (defaults 12 2 6 3).  Each rank prints "rank R sweeps S": the sweeps it
   made, the test's oracle for how much more relax did on the slow rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 2000

static double u[N + 2];

static __attribute__((noinline)) void relax(int sweeps)
{
   for (int s = 0; s < sweeps; s++)
      for (int i = 1; i <= N; i++)
         u[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
}

static __attribute__((noinline)) void exchange(int rank, int size)
{
   int left = (rank + size - 1) % size, right = (rank + 1) % size;
   MPI_Request req[4];
   MPI_Status st[4];
   MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
   MPI_Irecv(&u[N + 1], 1, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
   MPI_Isend(&u[N], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[2]);
   MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[3]);
   MPI_Waitall(4, req, st);
}

static __attribute__((noinline)) double residual(void)
{
   double local = 0, global;
   for (int i = 1; i <= N; i++)
      local += u[i] < 0 ? -u[i] : u[i];
   MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
   return global;
}

int main(int argc, char **argv)
{
   int rank, size, niter = 12, slow_rank = 2, slow_from = 6, factor = 3;
   long total = 0;

   MPI_Init(&argc, &argv);
   MPI_Comm_rank(MPI_COMM_WORLD, &rank);
   MPI_Comm_size(MPI_COMM_WORLD, &size);
   if (argc == 5) {
      niter = atoi(argv[1]);
      slow_rank = atoi(argv[2]);
      slow_from = atoi(argv[3]);
      factor = atoi(argv[4]);
   }
   for (int i = 0; i < N + 2; i++)
      u[i] = rank + i % 7;
   for (int it = 1; it <= niter; it++) {
      int sweeps = rank == slow_rank && it >= slow_from ? 4 * factor : 4;
      relax(sweeps);
      total += sweeps;
      exchange(rank, size);
      double r = residual();
      if (rank == 0 && it % 4 == 0)
         printf("iteration %d residual %.6e\n", it, r);
   }
   printf("rank %d sweeps %ld\n", rank, total);
   MPI_Finalize();
   return 0;
}
