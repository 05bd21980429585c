/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a traced process is in an MPI job (pl_mpi_info.c): a launcher or
   one of its daemons, or a program with the rank and world size its
   launcher gave it, for the trace's PROCESS chunk. */
#ifndef PL_MPI_INFO_H
#define PL_MPI_INFO_H

#include "pl_output.h"

/* PROCESS keys: role (launcher or program) and, for a program started by
   an MPI launcher (MPICH's hydra, Open MPI, PMIx, MVAPICH2, srun), its
   mpi_rank, mpi_size and mpi_rank_source. */
void pl_mpi_describe(pl_buf *b);

#endif
