/* SPDX-License-Identifier: MIT */
/* The readers' back-end of one process (pl_backend.h): the traces read
   with threads, a status line on a terminal. */
#include "pl_backend.h"

const int pl_backend_is_mpi = 0;
const char pl_backend_usage[] = "usage: ";
const struct option pl_backend_options[] = { { NULL, 0, NULL, 0 } };
const size_t pl_backend_noptions = 0;

int pl_backend_main(int argc, char **argv, int (*run)(int, char **))
{
   return run(argc, argv);
}

int pl_backend_speaks(void)
{
   return 1;
}

int pl_backend_all_ok(int ok)
{
   return ok;
}

pl_progress *pl_backend_progress(const char *prog, size_t n)
{
   return pl_progress_new(prog, n);
}

int pl_backend_read(const char *prog, pl_program *p, const pl_input *in,
                    size_t n, const pl_select *sel, unsigned jobs,
                    const pl_read_hooks *hooks, const pl_backend_state *st)
{
   (void)prog;
   (void)st;              /* built in this process: nothing to merge */
   return pl_program_read_files(p, in, n, sel,
                                jobs ? jobs : pl_jobs_default(), hooks);
}

void pl_backend_help_intro(FILE *f, const char *serial_prog)
{
   (void)f;
   (void)serial_prog;
}

void pl_backend_help_jobs(FILE *f, const char *what, const char *serial_note)
{
   fprintf(f,
      "  -j, --jobs=N         read traces with N threads (default: one per\n"
      "                       core%s); %s is the same\n", serial_note, what);
}

int pl_backend_option(int c)
{
   (void)c;
   return 0;
}
