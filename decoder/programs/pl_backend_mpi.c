/* SPDX-License-Identifier: MIT */
/* The readers' MPI back-end (pl_backend.h): parlot-decode-mpi and
   parlot-annotate-mpi.  Every rank runs the same command line; rank 0
   alone speaks and writes, and its exit status is the job's. */
#define _XOPEN_SOURCE 700

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "pl_backend.h"
#include "pl_mpi_read.h"

static int rank;        /* in MPI_COMM_WORLD */

const int pl_backend_is_mpi = 1;
const char pl_backend_usage[] = "usage: mpirun -np N ";

enum { OPT_MPI_STATS = PL_BACKEND_OPT };
const struct option pl_backend_options[] = {
   { "mpi-stats", no_argument, NULL, OPT_MPI_STATS },
   { NULL, 0, NULL, 0 }
};
const size_t pl_backend_noptions = 1;
static int opt_mpi_stats;     /* --mpi-stats */

/* The MPI this program is built with, and its launcher's environment. */
#if defined(OPEN_MPI)
#define BUILT_MPI "Open MPI"
#define BUILT_LAUNCHER "Open MPI's mpirun (mpirun.openmpi)"
#elif defined(MPICH)
#define BUILT_MPI "MPICH"
#define BUILT_LAUNCHER "MPICH's mpiexec (mpirun.mpich)"
#else
#define BUILT_MPI "another MPI"
#define BUILT_LAUNCHER "the mpirun of the MPI it was built with"
#endif

/* Started by another MPI's launcher, each process is a singleton: MPI
   says 1 rank where the launcher's environment announces N (Hydra's
   PMI_SIZE, Open MPI's OMPI_COMM_WORLD_SIZE), and each would write the
   whole output.  Refused, said once (by the announced rank 0). */
static int wrong_launcher(const char *prog)
{
   static const struct { const char *size, *rank, *mpi; } launchers[] = {
      { "PMI_SIZE", "PMI_RANK", "MPICH" },
      { "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "Open MPI" },
   };
   int size;

   MPI_Comm_size(MPI_COMM_WORLD, &size);
   if (size != 1)
      return 0;
   for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
      const char *n = getenv(launchers[i].size), *r = getenv(launchers[i].rank);
      long announced = n ? strtol(n, NULL, 10) : 0;
      if (announced <= 1)
         continue;
      if (!r || strtol(r, NULL, 10) == 0) {
         const char *base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
         fprintf(stderr, "%s: started by %s's launcher for %ld ranks, but "
                 "built with " BUILT_MPI ", so each process runs alone; "
                 "start it with " BUILT_LAUNCHER "\n", base,
                 launchers[i].mpi, announced);
      } else {
         /* Open MPI's mpirun kills the job at the first non-zero exit,
            possibly before it has forwarded the announced rank 0's
            line: the others leave after it. */
         sleep(3);
      }
      return 1;
   }
   return 0;
}

int pl_backend_main(int argc, char **argv, int (*run)(int, char **))
{
   int status;
   MPI_Init(&argc, &argv);
   if (wrong_launcher(argv[0])) {
      MPI_Finalize();
      return 2;
   }
   MPI_Comm_rank(MPI_COMM_WORLD, &rank);
   if (rank != 0) {
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

int pl_backend_all_ok(int ok)
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
   if (rank != 0)
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

int pl_backend_read(const char *prog, pl_program *p, const pl_input *in,
                    size_t n, const pl_select *sel, unsigned jobs,
                    const pl_read_hooks *hooks, const pl_backend_state *st)
{
   pl_mpi_stats stats;
   double t0 = MPI_Wtime();
   int r = pl_mpi_read_files(p, in, n, sel, jobs ? jobs : 1, hooks, st,
                             MPI_COMM_WORLD, &stats);
   if (opt_mpi_stats)
      print_stats(prog, &stats, MPI_Wtime() - t0);
   return r;
}

int pl_backend_speaks(void)
{
   return rank == 0;
}

pl_progress *pl_backend_progress(const char *prog, size_t n)
{
   (void)prog;
   (void)n;
   return NULL;
}

void pl_backend_help_intro(FILE *f, const char *serial_prog)
{
   fprintf(f, "Run by every rank of an MPI job: each rank reads a share of "
           "the traces,\nrank 0 writes what %s writes.\n", serial_prog);
}

void pl_backend_help_jobs(FILE *f, const char *what, const char *serial_note)
{
   (void)serial_note;
   fprintf(f,
      "  -j, --jobs=N         read traces with N threads per rank (default:\n"
      "                       one; 0 = one per core); %s is the same\n"
      "      --mpi-stats      print on standard error what each step of the\n"
      "                       job took: shares, time, bytes merged\n", what);
}

int pl_backend_option(int c)
{
   if (c != OPT_MPI_STATS)
      return 0;
   opt_mpi_stats = 1;
   return 1;
}
