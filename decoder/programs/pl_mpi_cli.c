/* SPDX-License-Identifier: MIT */
/* What the decoder's MPI programs share (pl_mpi_cli.h). */
#define _XOPEN_SOURCE 700

#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "pl_mpi_cli.h"

int pl_mpi_rank;

int pl_mpi_main(int argc, char **argv, int (*run)(int, char **))
{
   int status;
   MPI_Init(&argc, &argv);
   MPI_Comm_rank(MPI_COMM_WORLD, &pl_mpi_rank);
   if (pl_mpi_rank != 0) {
      int null = open("/dev/null", O_WRONLY);
      if (null >= 0) {
         dup2(null, STDOUT_FILENO);
         dup2(null, STDERR_FILENO);
         close(null);
      }
   }
   MPI_Request req;
   status = run(argc, argv);
   /* the other ranks wait here while rank 0 writes */
   MPI_Ibcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
   pl_mpi_wait(&req);
   MPI_Finalize();
   return status;
}

int pl_mpi_all_ok(int ok)
{
   int all;
   ok = ok != 0;
   MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
   return all;
}

/* --mpi-stats: the job's figures, gathered on rank 0. */
static void print_stats(const char *prog, const pl_mpi_stats *st,
                        double total_s)
{
   struct rusage ru;
   double t[3] = { st->read_s, st->tree_s, total_s }, tmax[3];
   uint64_t b[4], bsum[4], bmax[4], rss;
   int ranks;

   MPI_Comm_size(MPI_COMM_WORLD, &ranks);
   getrusage(RUSAGE_SELF, &ru);
   rss = (uint64_t)ru.ru_maxrss;              /* KiB */
   b[0] = st->files;
   b[1] = st->share_bytes;
   b[2] = st->bytes_sent;
   b[3] = rss;
   MPI_Reduce(t, tmax, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
   MPI_Reduce(b, bsum, 4, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
   MPI_Reduce(b, bmax, 4, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
   if (pl_mpi_rank != 0)
      return;
   fprintf(stderr,
           "%s: ranks %d, files %llu (most on one rank %llu), trace bytes "
           "%llu (most on one rank %llu)\n"
           "%s: seconds: reading (slowest rank) %.3f, tree (slowest rank) "
           "%.3f, all %.3f\n"
           "%s: bytes sent up the tree %llu (largest message %llu, rank "
           "0 received %llu); peak memory per rank %llu KiB (rank 0 %llu "
           "KiB)\n",
           prog, ranks, (unsigned long long)bsum[0],
           (unsigned long long)bmax[0], (unsigned long long)bsum[1],
           (unsigned long long)bmax[1], prog, tmax[0], tmax[1], tmax[2],
           prog, (unsigned long long)bsum[2], (unsigned long long)bmax[2],
           (unsigned long long)st->bytes_received,
           (unsigned long long)bmax[3], (unsigned long long)rss);
}

int pl_mpi_read(const char *prog, pl_program *p, const pl_input *in,
                size_t n, const pl_select *sel, unsigned jobs,
                const pl_read_hooks *hooks, const pl_mpi_state *ms,
                int stats)
{
   pl_mpi_stats st;
   double t0 = MPI_Wtime();
   int r = pl_mpi_read_files(p, in, n, sel, jobs ? jobs : 1, hooks, ms,
                             MPI_COMM_WORLD, &st);
   if (stats)
      print_stats(prog, &st, MPI_Wtime() - t0);
   return r;
}
