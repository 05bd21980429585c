/* SPDX-License-Identifier: GPL-2.0-or-later */
/* MPI test program for where-each-rank-stopped: 4 ranks pass a value
   around a ring (exchange: MPI_Sendrecv to the right, from the left) for
   ROUNDS rounds, except that rank HANG_RANK, in round HANG_ROUND, first
   calls stuck(), which waits for a message nobody sends.  Its right
   neighbour then waits for it in exchange, and so, one round later each,
   do all the others: the job hangs with rank 2 in stuck and ranks 0, 1
   and 3 in exchange, and must be killed.  noinline and -O0 keep every
   call a call. */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 20
#define HANG_RANK 2
#define HANG_ROUND 3

__attribute__((noinline)) static long exchange(int rank, int size, long v,
                                               int round)
{
   int next = (rank + 1) % size, prev = (rank + size - 1) % size;
   long got = 0;
   MPI_Sendrecv(&v, 1, MPI_LONG, next, round, &got, 1, MPI_LONG, prev,
                round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
   return got;
}

__attribute__((noinline)) static void stuck(int rank, int size)
{
   long never;
   MPI_Recv(&never, 1, MPI_LONG, (rank + 1) % size, 99, MPI_COMM_WORLD,
            MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
   int rank, size;
   long v;

   MPI_Init(&argc, &argv);
   MPI_Comm_rank(MPI_COMM_WORLD, &rank);
   MPI_Comm_size(MPI_COMM_WORLD, &size);
   v = rank;
   for (int round = 0; round < ROUNDS; round++) {
      if (rank == HANG_RANK && round == HANG_ROUND)
         stuck(rank, size);
      v = exchange(rank, size, v, round);
   }
   printf("rank %d done %ld\n", rank, v);
   MPI_Finalize();
   return 0;
}
