/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cg_main.c: the main program of the C CG solver test (cg_c), linked
   against libcgsolver.so (cgsolver.c), for testing ParLoT's run
   comparison (parlot-diff good/ bad/) and outlier detection on a code
   shaped like NAS CG: an outer loop of conj_grad calls, a normalisation
   every few iterations, a local norm check, an MPI_Reduce to rank 0 and an
   MPI_Bcast back, and a root-only report every 5 iterations.

   usage: cg_c [NITER] [FAULT] [FAULT_RANK] [FAULT_ITER]
     NITER       outer iterations (15)
     FAULT       none, extra, skip or swap (none): what rank FAULT_RANK
                 does differently at outer iteration FAULT_ITER
                   extra  one more rescale_z call, inside conj_grad
                   skip   no norm_check call (local: nothing hangs)
                   swap   axpy before scale_vector once in conj_grad
     FAULT_RANK  (2)
     FAULT_ITER  (8)

   At the end every rank prints, in rank order, its own counts: "rank R
   calls FUNCTION N" for every routine of the program and the library,
   "rank R mpi MPI_X N" for the MPI calls the library's routines made,
   "rank R main-mpi MPI_X N" for those main made before the printout
   (the printout adds one MPI_Barrier per rank, then MPI_Finalize).  They
   are the oracle for the traces. */
#include "cgsolver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

#define LOCAL_N 200
#define REPORT_EVERY 5
#define RESCALE_EVERY 3
#define REPORT_FILE "cg_report.txt"

static unsigned long n_parse_args, n_print_counts;
static unsigned long n_init, n_comm_rank, n_comm_size, n_reduce, n_bcast;

struct args {
   int niter, fault_rank, fault_iter;
   enum cg_fault fault;
};

static NOINLINE int parse_args(int argc, char **argv, struct args *a)
{
   n_parse_args++;
   a->niter = 15;
   a->fault = CG_FAULT_NONE;
   a->fault_rank = 2;
   a->fault_iter = 8;
   if (argc > 1 && (a->niter = atoi(argv[1])) < 1)
      return -1;
   if (argc > 2 && cg_fault_parse(argv[2], &a->fault) != 0)
      return -1;
   if (argc > 3)
      a->fault_rank = atoi(argv[3]);
   if (argc > 4)
      a->fault_iter = atoi(argv[4]);
   return argc > 5 ? -1 : 0;
}

static NOINLINE void print_counts(int rank)
{
   const struct cg_counts *c = &cg_counts;
   n_print_counts++;
#define CALLS(name, n) printf("rank %d calls %s %lu\n", rank, name, n)
   CALLS("parse_args", n_parse_args);
   CALLS("print_counts", n_print_counts);
   CALLS("cg_fault_parse", c->cg_fault_parse);
   CALLS("setup_problem", c->setup_problem);
   CALLS("new_vector", c->new_vector);
   CALLS("free_problem", c->free_problem);
   CALLS("conj_grad", c->conj_grad);
   CALLS("matvec", c->matvec);
   CALLS("exchange_halo", c->exchange_halo);
   CALLS("dot_product", c->dot_product);
   CALLS("axpy", c->axpy);
   CALLS("scale_vector", c->scale_vector);
   CALLS("copy_vector", c->copy_vector);
   CALLS("zero_vector", c->zero_vector);
   CALLS("rescale_z", c->rescale_z);
   CALLS("norm_check", c->norm_check);
   CALLS("write_report", c->write_report);
#undef CALLS
#define MPI(kind, name, n) printf("rank %d %s %s %lu\n", rank, kind, name, n)
   MPI("mpi", "MPI_Comm_rank", c->mpi_comm_rank);
   MPI("mpi", "MPI_Comm_size", c->mpi_comm_size);
   MPI("mpi", "MPI_Irecv", c->mpi_irecv);
   MPI("mpi", "MPI_Isend", c->mpi_isend);
   MPI("mpi", "MPI_Waitall", c->mpi_waitall);
   MPI("mpi", "MPI_Allreduce", c->mpi_allreduce);
   MPI("main-mpi", "MPI_Init", n_init);
   MPI("main-mpi", "MPI_Comm_rank", n_comm_rank);
   MPI("main-mpi", "MPI_Comm_size", n_comm_size);
   MPI("main-mpi", "MPI_Reduce", n_reduce);
   MPI("main-mpi", "MPI_Bcast", n_bcast);
#undef MPI
}

int main(int argc, char **argv)
{
   struct cg_problem pb;
   struct args a;
   int rank, size, bad = 0;
   double rnorm = 0.0, zeta = 0.0, local = 0.0, global = 0.0, bcast[2];

   MPI_Init(&argc, &argv);
   n_init++;
   MPI_Comm_rank(MPI_COMM_WORLD, &rank);
   n_comm_rank++;
   MPI_Comm_size(MPI_COMM_WORLD, &size);
   n_comm_size++;
   if (parse_args(argc, argv, &a) != 0) {
      if (rank == 0)
         fprintf(stderr, "usage: %s [NITER] [none|extra|skip|swap|hang] "
                 "[FAULT_RANK] [FAULT_ITER]\n", argv[0]);
      MPI_Finalize();
      return 2;
   }
   if (rank == 0 && a.fault != CG_FAULT_NONE
       && (a.fault_rank < 0 || a.fault_rank >= size || a.fault_iter < 1
           || a.fault_iter > a.niter))
      fprintf(stderr, "cg_c: warning: fault %s at rank %d iteration %d "
              "never happens (%d ranks, %d iterations)\n",
              cg_fault_names[a.fault], a.fault_rank, a.fault_iter, size,
              a.niter);

   setup_problem(&pb, MPI_COMM_WORLD, LOCAL_N, a.fault, a.fault_rank,
                 a.fault_iter);
   for (int it = 1; it <= a.niter; it++) {
      double xz, zz;
      pb.iter = it;
      rnorm = conj_grad(&pb);
      /* NAS CG: zeta from x.z, and x = z / ||z|| (here every few
         iterations only; z is copied into x each time) */
      xz = dot_product(&pb, pb.x, pb.z);
      if (it % RESCALE_EVERY == 0) {
         zz = dot_product(&pb, pb.z, pb.z);
         rescale_z(&pb, 1.0 / sqrt(zz));
      }
      copy_vector(pb.n, pb.z + 1, pb.x + 1);
      if (!(a.fault == CG_FAULT_SKIP && rank == a.fault_rank
            && it == a.fault_iter))
         local = norm_check(&pb);       /* else last iteration's value */
      if (local < 0.0)
         bad = 1;
      MPI_Reduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      n_reduce++;
      /* rank 0 sends zeta and the global norm check to every rank */
      if (rank == 0) {
         bcast[0] = pb.shift + 1.0 / xz;
         bcast[1] = global;
      }
      MPI_Bcast(bcast, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      n_bcast++;
      zeta = bcast[0];
      if (!(bcast[1] >= 0.0))
         bad = 1;
      if (rank == 0 && it % REPORT_EVERY == 0
          && write_report(&pb, REPORT_FILE, it, rnorm, zeta) != 0)
         fprintf(stderr, "cg_c: cannot write %s\n", REPORT_FILE);
   }
   free_problem(&pb);

   /* output in rank order, one rank at a time */
   for (int r = 0; r < size; r++) {
      if (r == rank) {
         print_counts(rank);
         printf("rank %d fault %s rank %d iteration %d\n", rank,
                cg_fault_names[a.fault], a.fault_rank, a.fault_iter);
         printf("rank %d result rnorm %.6e zeta %.10f %s\n", rank, rnorm,
                zeta, bad ? "NOT FINITE" : "finite");
         fflush(stdout);
      }
      MPI_Barrier(MPI_COMM_WORLD);
   }
   MPI_Finalize();
   return bad;
}
