/* SPDX-License-Identifier: GPL-2.0-or-later */
/* MPI test program for ParLoT: a token goes round a ring of ranks, then an
   allreduce.  Each rank counts its own calls of its functions and prints
   them ("rank R calls FUNCTION N"), and its calls of MPI functions by the
   names it wrote ("rank R mpi MPI_Send N"): the oracle that the traces
   must match.
   noinline and -O0 keep every call a call. */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 5

static unsigned long n_ring_step, n_combine, n_local_work, n_check_sum;
static unsigned long n_send, n_recv, n_allreduce;

__attribute__((noinline)) static long local_work(int rank, int round)
{
   long s = 0;
   n_local_work++;
   for (int i = 0; i <= rank + round; i++)
      s += i;
   return s;
}

__attribute__((noinline)) static long ring_step(int rank, int size, long token,
                                                int round)
{
   int next = (rank + 1) % size, prev = (rank + size - 1) % size;
   n_ring_step++;
   if (rank == 0) {
      token += local_work(rank, round);
      MPI_Send(&token, 1, MPI_LONG, next, round, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_LONG, prev, round, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
   } else {
      MPI_Recv(&token, 1, MPI_LONG, prev, round, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      token += local_work(rank, round);
      MPI_Send(&token, 1, MPI_LONG, next, round, MPI_COMM_WORLD);
   }
   n_send++;
   n_recv++;
   return token;
}

__attribute__((noinline)) static long combine(long v)
{
   long sum = 0;
   n_combine++;
   n_allreduce++;
   MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
   return sum;
}

__attribute__((noinline)) static int check_sum(long sum, int size)
{
   n_check_sum++;
   return sum == (long)size * (size - 1) / 2;
}

int main(int argc, char **argv)
{
   int rank, size, ok;
   long token = 0;

   MPI_Init(&argc, &argv);
   MPI_Comm_rank(MPI_COMM_WORLD, &rank);
   MPI_Comm_size(MPI_COMM_WORLD, &size);
   for (int r = 0; r < ROUNDS; r++)
      token = ring_step(rank, size, token, r);
   /* rank R does R more steps of local work: counts differ per rank */
   for (int i = 0; i < rank; i++)
      local_work(rank, i);
   ok = check_sum(combine(rank), size);
   printf("rank %d calls ring_step %lu\n", rank, n_ring_step);
   printf("rank %d calls local_work %lu\n", rank, n_local_work);
   printf("rank %d calls combine %lu\n", rank, n_combine);
   printf("rank %d calls check_sum %lu\n", rank, n_check_sum);
   printf("rank %d mpi MPI_Init 1\n", rank);
   printf("rank %d mpi MPI_Comm_rank 1\n", rank);
   printf("rank %d mpi MPI_Send %lu\n", rank, n_send);
   printf("rank %d mpi MPI_Recv %lu\n", rank, n_recv);
   printf("rank %d mpi MPI_Allreduce %lu\n", rank, n_allreduce);
   printf("rank %d mpi MPI_Finalize 1\n", rank);   /* just below */
   printf("rank %d size %d ok %d\n", rank, size, ok);
   MPI_Finalize();
   return ok ? 0 : 1;
}
