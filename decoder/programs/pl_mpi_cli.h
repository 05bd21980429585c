/* SPDX-License-Identifier: MIT */
/* What the decoder's MPI programs (parlot-decode-mpi, parlot-annotate-mpi)
   share: every rank runs the same command line, rank 0 alone speaks and
   writes, and its exit status is the job's. */
#ifndef PL_MPI_CLI_H
#define PL_MPI_CLI_H

#include "pl_mpi_read.h"

/* This process's rank in MPI_COMM_WORLD (0 before pl_mpi_main). */
extern int pl_mpi_rank;

/* MPI_Init; on ranks other than 0, standard output and error go to
   /dev/null (what they find about the traces reaches rank 0 with their
   results); run(argc, argv) on every rank; rank 0's status is returned
   on every rank, after MPI_Finalize. */
int pl_mpi_main(int argc, char **argv, int (*run)(int, char **));

/* Whether ok is true on every rank (a collective call): a rank that
   cannot read must not leave the others waiting for it in the tree. */
int pl_mpi_all_ok(int ok);

/* pl_mpi_read_files() over MPI_COMM_WORLD with `jobs` threads per rank
   (0: one); with stats, rank 0 prints on standard error what the steps
   took (--mpi-stats), prefixed with prog. */
int pl_mpi_read(const char *prog, pl_program *p, const pl_input *in,
                size_t n, const pl_select *sel, unsigned jobs,
                const pl_read_hooks *hooks, const pl_mpi_state *ms,
                int stats);

#endif
