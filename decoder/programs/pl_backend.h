/* SPDX-License-Identifier: MIT */
/* How parlot-decode and parlot-annotate read their inputs, chosen at
   link time: in one process with threads (pl_backend_serial.c), or with
   the ranks of an MPI job (pl_backend_mpi.c: parlot-decode-mpi and
   parlot-annotate-mpi; each rank reads a share of the traces, the
   programs are merged up a tree, pl_mpi_read.h, and rank 0 alone speaks
   and writes).  The programs' sources are the same for both; the build
   gives each its name (PROG). */
#ifndef PL_BACKEND_H
#define PL_BACKEND_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pl_parallel.h"
#include "pl_progress.h"

/* What a visitor builds while the traces are read, merged as the ranks'
   programs are (a whole-program mode's pack and merge, pl_modes.h); the
   serial back-end has nothing to merge. */
typedef struct {
   void *state;
   int (*pack)(void *state, unsigned char **buf, size_t *len);
   int (*merge)(void *state, const unsigned char *buf, size_t len,
                const uint32_t *map, uint32_t nmap);
} pl_backend_state;

/* 1 in the MPI back-end: a mode that builds something while reading must
   be able to merge it (pack and merge) to run there. */
extern const int pl_backend_is_mpi;

/* run(argc, argv) as the program: in the MPI back-end on every rank,
   between MPI_Init and MPI_Finalize, rank 0's exit status the job's. */
int pl_backend_main(int argc, char **argv, int (*run)(int, char **));

/* Whether this process speaks and writes the output (MPI: rank 0). */
int pl_backend_speaks(void);

/* Whether ok holds in every process (MPI: a collective call, so that a
   rank that cannot read does not leave the others waiting for it). */
int pl_backend_all_ok(int ok);

/* The status line while reading n traces (pl_progress.h), or NULL: the
   MPI ranks would draw over each other. */
pl_progress *pl_backend_progress(const char *prog, size_t n);

/* Read in[0..n) into p, as pl_program_read_files() does: jobs threads (0:
   the default, one per core; one per rank under MPI); st: what the
   visitor of hooks builds, NULL if nothing.  0, or -1 if out of memory
   (under MPI, rank 0 then reports the files it concerns). */
int pl_backend_read(const char *prog, pl_program *p, const pl_input *in,
                    size_t n, const pl_select *sel, unsigned jobs,
                    const pl_read_hooks *hooks, const pl_backend_state *st);

/* The command line: the usage line up to the program's name ("usage: "
   or "usage: mpirun -np N "); the help's paragraph on how the program
   runs (MPI: by every rank, rank 0 writing what serial_prog writes;
   serial: nothing); the help of -j and of the back-end's own options
   (what: "the output", "the report"; serial_note: the help's note on
   what --jobs does not speed up in the serial program, or ""). */
extern const char pl_backend_usage[];
void pl_backend_help_intro(FILE *f, const char *serial_prog);
void pl_backend_help_jobs(FILE *f, const char *what, const char *serial_note);

/* The back-end's long options (pl_backend_noptions of them, getopt
   values from PL_BACKEND_OPT on), to append to the program's; 1 if the
   value getopt returned was one of them (taken), else 0. */
#define PL_BACKEND_OPT 0x7000
extern const struct option pl_backend_options[];
extern const size_t pl_backend_noptions;
int pl_backend_option(int c);

#endif
