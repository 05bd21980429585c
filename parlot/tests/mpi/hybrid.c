/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Hybrid MPI + OpenMP (libgomp) test program for ParLoT: each rank runs
   an OpenMP parallel loop whose body calls work_item, statically
   scheduled, so that every thread gets its share (Valgrind runs one
   thread at a time: with a dynamic schedule one thread could take all
   the items); then an allreduce.  The program counts the calls of work_item per
   OpenMP thread and in all (an omp atomic counter) and prints them:
     rank R threads T
     rank R thread N calls work_item C      (one line per OpenMP thread)
     rank R calls work_item TOTAL
   the oracle that each rank's trace must match: the OpenMP worker
   threads must appear as threads of the trace, and their work_item calls
   must add up to TOTAL.  noinline and -O0 keep every call a call. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define ITEMS 61              /* not a multiple of the threads */
#define MAX_THREADS 64

static unsigned long n_work_item;               /* omp atomic */
static unsigned long per_thread[MAX_THREADS];   /* each thread its own */

__attribute__((noinline)) static long work_item(int rank, int i)
{
   long s = 0;
   #pragma omp atomic
   n_work_item++;
   per_thread[omp_get_thread_num()]++;
   for (int k = 0; k < 200 * (1 + (i + rank) % 3); k++)
      s += k ^ i;
   return s;
}

int main(int argc, char **argv)
{
   int rank, size, provided, nthreads = 0;
   long local = 0, total = 0;

   MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
   MPI_Comm_rank(MPI_COMM_WORLD, &rank);
   MPI_Comm_size(MPI_COMM_WORLD, &size);
   #pragma omp parallel reduction(+:local)
   {
      #pragma omp single
      nthreads = omp_get_num_threads();
      #pragma omp for schedule(static)
      for (int i = 0; i < ITEMS; i++)
         local += work_item(rank, i);
   }
   MPI_Allreduce(&local, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
   for (int r = 0; r < size; r++) {
      if (r == rank) {
         printf("rank %d threads %d\n", rank, nthreads);
         for (int t = 0; t < nthreads && t < MAX_THREADS; t++)
            printf("rank %d thread %d calls work_item %lu\n", rank, t,
                   per_thread[t]);
         printf("rank %d calls work_item %lu\n", rank, n_work_item);
         fflush(stdout);
      }
      MPI_Barrier(MPI_COMM_WORLD);
   }
   MPI_Finalize();
   return n_work_item == ITEMS ? 0 : 1;
}
