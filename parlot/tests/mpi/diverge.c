/* SPDX-License-Identifier: GPL-2.0-or-later */
/* MPI test program for ParLoT's outlier report: 4 ranks run the same
   steps (local work, an exchange with both neighbours, an allreduce),
   except that rank 2 deliberately takes a different path: after each
   exchange it calls recover_from_slow_neighbour, which no other rank ever
   calls.  Every rank prints its own call counts ("rank R calls FUNCTION
   N"), the oracle for the traces; the outlier report must name rank 2,
   and only it, with recover_from_slow_neighbour.  noinline and -O0 keep
   every call a call. */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 4
#define ODD_RANK 2

static unsigned long n_compute, n_exchange, n_reduce, n_recover;

__attribute__((noinline)) static long compute(int round)
{
   long s = 0;
   n_compute++;
   /* the same work on every rank: the graphs must not differ here */
   for (int i = 0; i < 100 + round; i++)
      s += i;
   return s;
}

__attribute__((noinline)) static long exchange(int rank, int size, long v,
                                               int round)
{
   int next = (rank + 1) % size, prev = (rank + size - 1) % size;
   long got = 0;
   n_exchange++;
   MPI_Sendrecv(&v, 1, MPI_LONG, next, round, &got, 1, MPI_LONG, prev,
                round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
   return got;
}

__attribute__((noinline)) static long recover_from_slow_neighbour(long v)
{
   n_recover++;
   return v;                    /* the value is right: just a detour */
}

__attribute__((noinline)) static long reduce(long v)
{
   long sum = 0;
   n_reduce++;
   MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
   return sum;
}

int main(int argc, char **argv)
{
   int rank, size, ok = 1;

   MPI_Init(&argc, &argv);
   MPI_Comm_rank(MPI_COMM_WORLD, &rank);
   MPI_Comm_size(MPI_COMM_WORLD, &size);
   for (int round = 0; round < ROUNDS; round++) {
      long v = compute(round), got, sum;
      got = exchange(rank, size, v, round);
      if (rank == ODD_RANK)
         got = recover_from_slow_neighbour(got);
      sum = reduce(got);
      ok &= sum == (long)size * v;
   }
   /* output in rank order, one rank at a time */
   for (int r = 0; r < size; r++) {
      if (r == rank) {
         printf("rank %d calls compute %lu\n", rank, n_compute);
         printf("rank %d calls exchange %lu\n", rank, n_exchange);
         printf("rank %d calls reduce %lu\n", rank, n_reduce);
         if (n_recover)
            printf("rank %d calls recover_from_slow_neighbour %lu\n", rank,
                   n_recover);
         printf("rank %d %s\n", rank, ok ? "ok" : "WRONG");
         fflush(stdout);
      }
      MPI_Barrier(MPI_COMM_WORLD);
   }
   MPI_Finalize();
   return ok ? 0 : 1;
}
