/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgsolver.h: interface of libcgsolver.so, a small conjugate-gradient
   solver shaped like NAS CG, used to test ParLoT's run comparison
   (parlot-diff good/ bad/) and outlier detection on a program whose code
   lives in a shared library, as in large codes (LAMMPS and the like).
   The solver can inject one fault on one rank at one outer iteration
   (see enum cg_fault); every routine counts its own calls and the MPI
   calls it makes (struct cg_counts), the oracle the traces are checked
   against. */
#ifndef CGSOLVER_H
#define CGSOLVER_H

#include <mpi.h>

/* the faults: what rank fault_rank does differently at outer iteration
   fault_iter (only hang involves MPI: the others cannot hang the job) */
enum cg_fault {
   CG_FAULT_NONE,
   CG_FAULT_EXTRA,              /* one extra rescale_z call in conj_grad */
   CG_FAULT_SKIP,               /* the main loop skips norm_check once */
   CG_FAULT_SWAP,               /* conj_grad calls axpy before scale_vector */
   CG_FAULT_HANG,               /* exchange_halo posts an extra MPI_Recv
                                   nobody sends: the job hangs */
   CG_NFAULTS
};
extern const char *const cg_fault_names[CG_NFAULTS];

/* the inner iteration of conj_grad where the extra, swap and hang faults
   act */
#define CG_FAULT_INNER 3
/* inner CG iterations per conj_grad call (NAS CG has 25) */
#define CG_INNER_ITERS 5

struct cg_problem {
   MPI_Comm comm;
   int rank, size;
   int left, right;             /* neighbours of the 1-D decomposition */
   int n;                       /* local rows */
   double shift;                /* eigenvalue shift, as NAS CG's */
   /* the local part of a tridiagonal matrix: row i couples with i-1 and
      i+1 (halo cells 0 and n+1 of the vectors hold the neighbours') */
   double *diag, *lower, *upper;
   /* vectors of n + 2 elements, element 0 and n + 1 the halo */
   double *x, *z, *p, *q, *r;
   int iter;                    /* the current outer iteration, from 1 */
   int inner;                   /* conj_grad's inner iteration, 0 outside */
   enum cg_fault fault;
   int fault_rank, fault_iter;
};

/* the calls of each routine of the library, and of MPI routines by the
   library's routines (by the names the source uses) */
struct cg_counts {
   unsigned long cg_fault_parse, setup_problem, new_vector, free_problem, conj_grad, matvec,
      exchange_halo, dot_product, axpy, scale_vector, copy_vector,
      zero_vector, rescale_z, norm_check, write_report;
   unsigned long mpi_comm_rank, mpi_comm_size, mpi_irecv, mpi_isend,
      mpi_waitall, mpi_allreduce;
};
extern struct cg_counts cg_counts;

int cg_fault_parse(const char *s, enum cg_fault *f);

void setup_problem(struct cg_problem *pb, MPI_Comm comm, int n,
                   enum cg_fault fault, int fault_rank, int fault_iter);
void free_problem(struct cg_problem *pb);
double conj_grad(struct cg_problem *pb);
void matvec(struct cg_problem *pb, double *v, double *w);
void exchange_halo(struct cg_problem *pb, double *v);
double dot_product(struct cg_problem *pb, const double *a, const double *b);
void axpy(int n, double alpha, const double *xv, double *yv);
void scale_vector(int n, double alpha, double *v);
void copy_vector(int n, const double *src, double *dst);
void zero_vector(int n, double *v);
void rescale_z(struct cg_problem *pb, double factor);
double norm_check(struct cg_problem *pb);
int write_report(struct cg_problem *pb, const char *path, int it,
                 double rnorm, double zeta);

#endif
