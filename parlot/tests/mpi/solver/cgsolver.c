/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgsolver.c: libcgsolver.so, a conjugate-gradient solver shaped like NAS
   CG (conj_grad runs CG_INNER_ITERS inner iterations, each a matvec with a
   halo exchange, two dot products with MPI_Allreduce, three axpys and a
   scaling), on a 1-D decomposition of a periodic tridiagonal matrix.  It
   is a test program for ParLoT's run comparison and outlier detection: the
   code lives in a shared library called by a small main program
   (cg_main.c), and one rank can be told to deviate at one outer iteration
   (enum cg_fault in cgsolver.h).  Each routine counts its calls and the
   MPI calls it makes in cg_counts, an oracle the tool does not compute.
   Built with -O1 -g -fno-inline; noinline keeps every routine a real call
   (and the calls between exported functions go through the PLT, as in any
   shared library). */
#include "cgsolver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

struct cg_counts cg_counts;

const char *const cg_fault_names[CG_NFAULTS] = {
   [CG_FAULT_NONE] = "none",
   [CG_FAULT_EXTRA] = "extra",
   [CG_FAULT_SKIP] = "skip",
   [CG_FAULT_SWAP] = "swap",
   [CG_FAULT_HANG] = "hang",
};

/* every name is compared, whichever matches: the calls made here do not
   depend on the fault chosen, so that a run with a fault differs from a
   run without one by the fault alone */
NOINLINE int cg_fault_parse(const char *s, enum cg_fault *f)
{
   int found = -1;
   cg_counts.cg_fault_parse++;
   for (int i = 0; i < CG_NFAULTS; i++)
      if (strcmp(s, cg_fault_names[i]) == 0)
         found = i;
   if (found < 0)
      return -1;
   *f = (enum cg_fault)found;
   return 0;
}

/* is this rank told to deviate now? (a macro: not a routine of its own) */
#define FAULTY(pb, f) ((pb)->fault == (f) && (pb)->rank == (pb)->fault_rank \
                       && (pb)->iter == (pb)->fault_iter)

static NOINLINE double *new_vector(int n)
{
   double *v;
   cg_counts.new_vector++;
   v = calloc((size_t)n + 2, sizeof *v);
   if (!v) {
      fprintf(stderr, "cgsolver: out of memory\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
   }
   return v;
}

NOINLINE void setup_problem(struct cg_problem *pb, MPI_Comm comm, int n,
                            enum cg_fault fault, int fault_rank,
                            int fault_iter)
{
   cg_counts.setup_problem++;
   memset(pb, 0, sizeof *pb);
   pb->comm = comm;
   MPI_Comm_rank(comm, &pb->rank);
   MPI_Comm_size(comm, &pb->size);
   cg_counts.mpi_comm_rank++;
   cg_counts.mpi_comm_size++;
   /* periodic: every rank has two neighbours and does the same calls */
   pb->left = (pb->rank + pb->size - 1) % pb->size;
   pb->right = (pb->rank + 1) % pb->size;
   pb->n = n;
   pb->shift = 10.0;
   pb->fault = fault;
   pb->fault_rank = fault_rank;
   pb->fault_iter = fault_iter;
   pb->diag = new_vector(n);
   pb->lower = new_vector(n);
   pb->upper = new_vector(n);
   pb->x = new_vector(n);
   pb->z = new_vector(n);
   pb->p = new_vector(n);
   pb->q = new_vector(n);
   pb->r = new_vector(n);
   /* symmetric, diagonally dominant: constant off-diagonals, a diagonal
      that varies with the global row */
   for (int i = 1; i <= n; i++) {
      long g = (long)pb->rank * n + i;
      pb->diag[i] = 2.5 + 0.5 * sin(0.1 * (double)g);
      pb->lower[i] = -1.0;
      pb->upper[i] = -1.0;
      pb->x[i] = 1.0;
   }
}

NOINLINE void free_problem(struct cg_problem *pb)
{
   cg_counts.free_problem++;
   free(pb->diag);
   free(pb->lower);
   free(pb->upper);
   free(pb->x);
   free(pb->z);
   free(pb->p);
   free(pb->q);
   free(pb->r);
   memset(pb, 0, sizeof *pb);
}

/* v's halo cells 0 and n+1 get the neighbours' boundary elements:
   non-blocking receives and sends to both neighbours, then one wait */
NOINLINE void exchange_halo(struct cg_problem *pb, double *v)
{
   MPI_Request req[4];
   MPI_Status st[4];
   cg_counts.exchange_halo++;
   /* tag 0: travels rightwards, tag 1: leftwards (also right with 2 ranks,
      where left and right are the same rank) */
   MPI_Irecv(&v[0], 1, MPI_DOUBLE, pb->left, 0, pb->comm, &req[0]);
   MPI_Irecv(&v[pb->n + 1], 1, MPI_DOUBLE, pb->right, 1, pb->comm, &req[1]);
   cg_counts.mpi_irecv += 2;
   MPI_Isend(&v[pb->n], 1, MPI_DOUBLE, pb->right, 0, pb->comm, &req[2]);
   MPI_Isend(&v[1], 1, MPI_DOUBLE, pb->left, 1, pb->comm, &req[3]);
   cg_counts.mpi_isend += 2;
   MPI_Waitall(4, req, st);
   cg_counts.mpi_waitall++;
   if (pb->inner == CG_FAULT_INNER && FAULTY(pb, CG_FAULT_HANG)) {
      /* the injected extra receive: nobody sends tag 99, so this rank
         waits here and the others in their next collective (uncounted:
         the run never reports) */
      double lost;
      fprintf(stderr, "rank %d waits for a message nobody sends\n",
              pb->rank);
      fflush(stderr);
      MPI_Recv(&lost, 1, MPI_DOUBLE, pb->left, 99, pb->comm, MPI_STATUS_IGNORE);
   }
}

/* w = A v (v's halo is refreshed first) */
NOINLINE void matvec(struct cg_problem *pb, double *v, double *w)
{
   cg_counts.matvec++;
   exchange_halo(pb, v);
   for (int i = 1; i <= pb->n; i++)
      w[i] = pb->lower[i] * v[i - 1] + pb->diag[i] * v[i]
         + pb->upper[i] * v[i + 1];
}

/* the global dot product of the interior elements */
NOINLINE double dot_product(struct cg_problem *pb, const double *a,
                            const double *b)
{
   double local = 0.0, global = 0.0;
   cg_counts.dot_product++;
   for (int i = 1; i <= pb->n; i++)
      local += a[i] * b[i];
   MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, pb->comm);
   cg_counts.mpi_allreduce++;
   return global;
}

/* y += alpha x */
NOINLINE void axpy(int n, double alpha, const double *xv, double *yv)
{
   cg_counts.axpy++;
   for (int i = 0; i < n; i++)
      yv[i] += alpha * xv[i];
}

/* v *= alpha */
NOINLINE void scale_vector(int n, double alpha, double *v)
{
   cg_counts.scale_vector++;
   for (int i = 0; i < n; i++)
      v[i] *= alpha;
}

NOINLINE void copy_vector(int n, const double *src, double *dst)
{
   cg_counts.copy_vector++;
   memcpy(dst, src, (size_t)n * sizeof *dst);
}

NOINLINE void zero_vector(int n, double *v)
{
   cg_counts.zero_vector++;
   memset(v, 0, (size_t)n * sizeof *v);
}

/* z *= factor: local, no MPI (the factor comes from the caller) */
NOINLINE void rescale_z(struct cg_problem *pb, double factor)
{
   cg_counts.rescale_z++;
   for (int i = 1; i <= pb->n; i++)
      pb->z[i] *= factor;
}

/* A z = x by CG_INNER_ITERS CG iterations from z = 0, as NAS CG's
   conj_grad; returns the residual norm ||x - A z|| */
NOINLINE double conj_grad(struct cg_problem *pb)
{
   int n = pb->n;
   double rho, rho0, d, alpha, beta;

   cg_counts.conj_grad++;
   zero_vector(n, pb->z + 1);
   copy_vector(n, pb->x + 1, pb->r + 1);
   copy_vector(n, pb->r + 1, pb->p + 1);
   rho = dot_product(pb, pb->r, pb->r);
   for (int k = 1; k <= CG_INNER_ITERS; k++) {
      pb->inner = k;
      matvec(pb, pb->p, pb->q);
      d = dot_product(pb, pb->p, pb->q);
      alpha = rho / d;
      axpy(n, alpha, pb->p + 1, pb->z + 1);
      if (k == CG_FAULT_INNER && FAULTY(pb, CG_FAULT_EXTRA))
         rescale_z(pb, 1.0);    /* the injected extra call */
      axpy(n, -alpha, pb->q + 1, pb->r + 1);
      rho0 = rho;
      rho = dot_product(pb, pb->r, pb->r);
      beta = rho / rho0;
      /* p = r + beta p */
      if (k == CG_FAULT_INNER && FAULTY(pb, CG_FAULT_SWAP)) {
         axpy(n, 1.0, pb->r + 1, pb->p + 1);    /* the injected swap */
         scale_vector(n, beta, pb->p + 1);
      } else {
         scale_vector(n, beta, pb->p + 1);
         axpy(n, 1.0, pb->r + 1, pb->p + 1);
      }
   }
   pb->inner = 0;
   /* r = A z - x */
   matvec(pb, pb->z, pb->r);
   axpy(n, -1.0, pb->x + 1, pb->r + 1);
   return sqrt(dot_product(pb, pb->r, pb->r));
}

/* a local sanity check of z: the sum of its squares, or -1 if an element
   is not finite.  No MPI: a rank may skip it without hanging the job */
NOINLINE double norm_check(struct cg_problem *pb)
{
   double s = 0.0;
   cg_counts.norm_check++;
   for (int i = 1; i <= pb->n; i++) {
      if (!isfinite(pb->z[i]))
         return -1.0;
      s += pb->z[i] * pb->z[i];
   }
   return s;
}

/* root-only I/O: a line per call in the file path (created by the first
   call, appended to by the others); 0, or -1 if the file cannot be
   written (the solver goes on) */
NOINLINE int write_report(struct cg_problem *pb, const char *path, int it,
                          double rnorm, double zeta)
{
   FILE *f;
   cg_counts.write_report++;
   f = fopen(path, cg_counts.write_report == 1 ? "w" : "a");
   if (!f)
      return -1;
   fprintf(f, "iteration %3d  ranks %d  rows %d  rnorm %.6e  zeta %.10f\n",
           it, pb->size, pb->size * pb->n, rnorm, zeta);
   return fclose(f) == 0 ? 0 : -1;
}
