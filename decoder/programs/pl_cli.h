/* SPDX-License-Identifier: MIT */
/* Command-line conventions shared by the decoder's programs
   (parlot-decode, parlot-annotate):

   - a usage error is one line on stderr, "PROG: what 'arg' (try 'PROG
     --help')", and exit status 2;
   - bad data is one line per file, "PROG: FILE: offset N: message",
     printed after whatever could be decoded was written; exit status 1;
   - -o FILE refuses to overwrite an input, and a write error is reported
     once, at the end ("PROG: FILE: write error: ..."; exit status 1). */
#ifndef PL_CLI_H
#define PL_CLI_H

/* A macro's value as a string literal (limits in messages). */
#define PL_STR_(x) #x
#define PL_STR(x) PL_STR_(x)

#include <stdint.h>

#include "pl_archive.h"
#include "pl_filter.h"
#include "pl_outbuf.h"
#include "pl_program.h"
#include "pl_select.h"
#include "pl_trace.h"

enum { PL_EXIT_DATA = 1, PL_EXIT_USAGE = 2 };

/* Print the usage-error line (arg quoted, if not NULL); returns
   PL_EXIT_USAGE. */
int  pl_usage_error(const char *prog, const char *what, const char *arg);
/* getopt_long entries, returning val, for the filter options every
   program takes (pl_filter_option() applies each one by its name); the
   file includes <getopt.h>. */
#define PL_CLI_FILTER_OPTIONS(val)                     \
   { "images", required_argument, NULL, (val) },       \
   { "program-objects", required_argument, NULL, (val) }, \
   { "library-objects", required_argument, NULL, (val) }, \
   { "only", required_argument, NULL, (val) },         \
   { "hide", required_argument, NULL, (val) },         \
   { "only-object", required_argument, NULL, (val) },  \
   { "hide-object", required_argument, NULL, (val) },  \
   { "max-depth", required_argument, NULL, (val) },    \
   { "depth", required_argument, NULL, (val) },        \
   { "range", required_argument, NULL, (val) },        \
   { "from-mark", required_argument, NULL, (val) },    \
   { "to-mark", required_argument, NULL, (val) }

/* The usage error for what getopt_long returned, c ':' (a missing
   argument) or anything else (an unknown option), with opterr = 0 and the
   optstring starting with ':'. */
int  pl_option_error(const char *prog, int c, char **argv);
/* Print "prog: path: offset N: message". */
void pl_report(const char *prog, const char *path, const pl_error *e);
/* Print "prog (ParLoT) VERSION, trace format M.m" on stdout; the exit
   status (0, or PL_EXIT_DATA if stdout could not be written). */
int  pl_print_version(const char *prog, const char *version);

/* Whether out is an existing regular file that is also one of the n
   paths (opening it for output would truncate a trace). */
int  pl_is_an_input(const char *out, char *const *paths, int n);

/* A non-negative integer (decimal, 0x hex or 0 octal, as strtoull) that
   is the whole of s: 0, or -1. */
int  pl_parse_u64(const char *s, uint64_t *v);

/* pl_inputs_add() for each of the n paths, reporting a bad archive
   ("PROG: PATH: offset N: message") or running out of memory on stderr.
   A directory stands for the traces and archives in it (files that start
   as one does), by name; one without any is reported.  "-" (standard
   input, named "stdin"), a pipe or a FIFO is copied to a temporary file
   first (removed at exit), once however often it is given.  prog NULL: report
   nothing.  How many paths were bad (>= 0), or -1 if out of memory. */
int  pl_cli_inputs(const char *prog, pl_inputs *in, char *const *paths,
                   int n);

/* What the selection and the filters kept of the traces read: an output
   left empty by one of them is no answer, so the command says which and
   exits with status 1. */
typedef struct {
   size_t traces;     /* traces read */
   size_t threads;    /* threads the selection matched */
   size_t functions;  /* functions the filters matched */
   size_t shown;      /* threads with something to show (the range) */
   size_t main_named; /* of the traces where no function matched: those
                         whose main executable has named functions */
} pl_kept;

/* Count trace t into k (sel, f: the command's; demangle as the names
   are shown).  Counting stops once each count is known not to be 0. */
void pl_kept_trace(pl_kept *k, const pl_trace *t, const pl_select *sel,
                   const pl_filter *f, int demangle);
/* Add part (what pl_kept_trace counted of other traces) into k. */
void pl_kept_add(pl_kept *k, const pl_kept *part);
/* k of a program read through a selection and filters f. */
void pl_kept_program(pl_kept *k, const pl_program *p, const pl_filter *f);
/* If the selection (as given: select_text, NULL if none) or the filters
   kept nothing of the traces read, print which ("PROG: --select=9
   matches no thread of the 2 traces read") and return 1; else 0. */
int  pl_kept_nothing(const char *prog, const pl_kept *k,
                     const char *select_text, const pl_filter *f);

/* Set up o to write to path (NULL: standard output), refusing a path that
   is one of the inputs.  0, or the exit status after printing why. */
int  pl_output_open(const char *prog, outbuf *o, const char *path,
                    char *const *inputs, int ninputs);
/* Flush and close what pl_output_open opened, report a write error; 0,
   or PL_EXIT_DATA if the output could not be written. */
int  pl_output_close(const char *prog, outbuf *o);

#endif
