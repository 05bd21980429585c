/* SPDX-License-Identifier: MIT */
/* parlot-annotate: a report of ParLoT traces in the shape of
   callgrind_annotate's.

   All the traces given are read into one program (pl_program.h): one
   function table, one call graph per thread.  The report covers the whole
   program, or one group of its threads (--group-by, --group), and has:

     a header      what was read: files, command, processes, threads,
                   events, the selection, the options of the report;
     groups        with --group-by: each group's events, calls and members;
     totals        calls and events ("PROGRAM TOTALS");
     objects       calls into each object's functions;
     two lists     the functions by calls, then by inclusive events, each
                   cut by --threshold and --top, optionally with each
                   function's callers (<) and callees (>) (--tree).
     ranks         with two or more ranks (processes), the program across
                   them: per function min / median / max calls per rank,
                   and the outlier ranks with what differs (--ranks;
                   pl_outliers.h).

   Numbers get thousands separators and a percentage of the totals, and
   columns are as wide as their widest cell, as in callgrind_annotate.
   Errors follow parlot-decode (pl_cli.h): one line per bad trace, after the
   report of what could be read, exit 1; a usage error is one line, exit 2.
   The exact meaning of every column is in docs/parlot-annotate.1.

   Linked with the MPI back-end (pl_backend.h) it is parlot-annotate-mpi:
   every rank of an MPI job reads a share of the traces, rank 0 writes the
   report. */

#ifdef HAVE_CONFIG_H
#  include "config.h"
#endif

#define _XOPEN_SOURCE 700

#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_archive.h"
#include "pl_backend.h"
#include "pl_cli.h"
#include "pl_ending.h"
#include "pl_modes.h"
#include "pl_parallel.h"
#include "pl_program.h"
#include "pl_progress.h"
#include "pl_select.h"
#include "pl_wire.h"
#include "report.h"

#ifndef PROG                     /* the MPI build's is parlot-annotate-mpi */
#  define PROG "parlot-annotate"
#endif

#ifndef PACKAGE_VERSION
#  define PACKAGE_VERSION "dev"
#endif

/* ---- Counting returns while reading ------------------------------------- */

/* The call graphs count calls and events.  The header splits the events
   into calls, returns and a forked child's inherited entries, so a
   visitor counts the returns as the events go by. */
static int count_returns(void *ctx, const pl_event *ev, size_t n)
{
   uint64_t *returns = ctx, r = 0;
   size_t i;
   for (i = 0; i < n; i++)
      r += ev[i].kind == PL_EV_RETURN;
   *returns += r;
   return 0;
}

/* ---- Command line ------------------------------------------------------- */

static void usage(FILE *f)
{
   fprintf(f, "%s" PROG " [OPTION]... TRACE...\n"
      "Report on ParLoT traces (valgrind --tool=parlot) in the manner of\n"
      "callgrind_annotate: program totals, calls per object, and the\n"
      "functions by calls and by inclusive events.\n", pl_backend_usage);
   pl_backend_help_intro(f, "parlot-annotate");
   fprintf(f,
      "\n"
      "options:\n"
      "  -o, --output=FILE    write to FILE instead of standard output\n"
      "      --tree=KIND      also show each function's callers (caller),\n"
      "                       callees (calling), both, or none (default)\n"
      "      --threshold=PCT  list functions by calls until they account\n"
      "                       for PCT%% of all calls, and those whose\n"
      "                       inclusive events exceed (100-PCT)%% of all\n"
      "                       events (default 99; 100 lists all)\n"
      "      --top=N          list at most N functions (0: no limit)\n"
      "      --select=SPEC    read only these processes/threads; SPEC is a\n"
      "                       comma-separated list of PID, PID:N, PID:N-M,\n"
      "                       *:N (thread numbers); may be repeated\n"
      "      --group-by=KIND  list groups of threads: process, graph\n"
      "                       (identical call graphs), shape (same edges)\n"
      "      --group=N        report on group N only (default grouping:\n"
      "                       process)\n"
      "      --no-demangle    print C++ function names as recorded (mangled)\n"
      "      --ranks=WHEN     the program across its ranks (processes):\n"
      "                       calls per rank and the outlier ranks; auto\n"
      "                       (default: with 2 or more), yes, no\n");
   pl_backend_help_jobs(f, "the report", "");
   fprintf(f,
      "  -h, --help           show this help and exit\n"
      "  -V, --version        show the version and exit\n"
      "\n"
      "filters (the report then counts what they show; a hidden call's\n"
      "callees are counted under its nearest shown caller):\n"
      "      --images=main|all  only the main executable's functions\n"
      "      --only=GLOB      only functions matching GLOB ('*', '?'); may\n"
      "                       be repeated\n"
      "      --hide=GLOB      never functions matching GLOB; may be repeated\n"
      "      --only-object=GLOB, --hide-object=GLOB  only / never the\n"
      "                       functions of objects matching GLOB (file name\n"
      "                       or path); may be repeated (as the tool's)\n"
      "      --max-depth=N    N levels of calls at most (also --depth)\n"
      "      --range=FIRST-LAST  only events FIRST..LAST of each thread\n"
      "                       (numbers from 1; either may be left out)\n"
      "      --from-mark=LABEL[#N]  only events after the Nth (default: 1st)\n"
      "                       mark LABEL of each thread (PARLOT_MARK)\n"
      "      --to-mark=LABEL[#N]  only events before that mark\n"
      "\n"
      "Inclusive events of a function: the calls and returns while it was\n"
      "on the stack.  On --tree lines, both columns are inclusive: for the\n"
      "calls along that edge, the calls and the events from each call to\n"
      "its return.\n"
      "\n"
      "A damaged or truncated trace is reported as far as it could be read,\n"
      "then named on standard error as \"FILE: offset N: message\".\n"
      "Exit status: 0 if all traces were complete and valid, 1 on bad data\n"
      "or an output error, 2 on a usage error.\n");
}

static int parse_tree(const char *s, int *tree)
{
   static const char *const names[] = { "none", "caller", "calling",
                                        "both" };
   int i;
   for (i = 0; i < 4; i++)
      if (strcmp(s, names[i]) == 0) {
         *tree = i;
         return 0;
      }
   return -1;
}

/* PCT: 0 to 100, at most two decimals, an optional '%'; in hundredths. */
static int parse_threshold(const char *s, unsigned *h)
{
   unsigned v = 0, frac = 0, scale = 100;
   int digits = 0;

   for (; *s >= '0' && *s <= '9'; s++, digits++) {
      v = v * 10 + (unsigned)(*s - '0');
      if (v > 100)
         return -1;
   }
   if (*s == '.') {
      int d = 0;
      for (s++; *s >= '0' && *s <= '9'; s++, d++) {
         if (d == 2)
            return -1;
         scale /= 10;
         frac += (unsigned)(*s - '0') * scale;
      }
      if (d == 0)
         return -1;
      digits += d;
   }
   if (*s == '%')
      s++;
   if (*s || digits == 0 || v * 100 + frac > PCT_SCALE)
      return -1;
   *h = v * 100 + frac;
   return 0;
}

static int add_select(report_opts *opt, const char *spec, char *why,
                      size_t whylen)
{
   size_t old = opt->select_text ? strlen(opt->select_text) : 0;
   char *t;
   if (pl_select_parse(&opt->select, spec, why, whylen) < 0)
      return -1;
   t = realloc(opt->select_text, old + strlen(spec) + 2);
   if (!t) {
      snprintf(why, whylen, "out of memory");
      return -1;
   }
   if (old)
      t[old++] = ',';
   strcpy(t + old, spec);
   opt->select_text = t;
   return 0;
}

static void free_options(report_opts *opt)
{
   pl_select_free(&opt->select);
   free(opt->select_text);
   pl_filter_free(opt->filter);
}

/* The reading hooks (pl_backend_read): returns are counted per file (files
   may be read at once by several threads), then added up in order. */
typedef struct {
   read_info *ri;
   uint64_t  *returns;     /* [file] */
   pl_progress *progress;
   int        status;
} read_state;

static int read_visitor(void *ctx, size_t i, pl_visitor *v)
{
   read_state *rs = ctx;
   v->ctx = &rs->returns[i];
   v->events = count_returns;
   return 0;
}

static void read_done(void *ctx, size_t i, const char *path, int r,
                      const pl_error *err)
{
   read_state *rs = ctx;
   rs->ri->returns += rs->returns[i];
   if (r != 0) {
      pl_progress_clear(rs->progress);
      pl_report(PROG, path, err);
      rs->status = PL_EXIT_DATA;
      if (r < 0)
         rs->ri->unreadable++;
      else
         rs->ri->damaged++;
   }
}

/* The returns counted on a rank travel up the tree as (file, count)
   pairs for the files that have any: u64 pairs, then u64 file, u64
   count each. */
static size_t nfiles_read;

static int returns_pack(void *state, unsigned char **buf, size_t *len)
{
   const read_state *rs = state;
   pl_wbuf w = { 0 };
   size_t i, n = 0;
   for (i = 0; i < nfiles_read; i++)
      n += rs->returns[i] != 0;
   pl_wire_u64(&w, n);
   for (i = 0; i < nfiles_read; i++)
      if (rs->returns[i]) {
         pl_wire_u64(&w, i);
         pl_wire_u64(&w, rs->returns[i]);
      }
   return pl_wire_finish(&w, buf, len);
}

static int returns_merge(void *state, const unsigned char *buf, size_t len,
                         const uint32_t *map, uint32_t nmap)
{
   read_state *rs = state;
   pl_rbuf r = { buf, buf + len, 0, 0 };
   size_t n = pl_wire_count(&r, 16);
   (void)map;
   (void)nmap;
   for (size_t k = 0; k < n && !r.bad; k++) {
      uint64_t i = pl_wire_get_u64(&r), v = pl_wire_get_u64(&r);
      if (i >= nfiles_read)
         return 1;
      rs->returns[i] = v;
   }
   return r.bad || r.p != r.end ? 1 : 0;
}

/* Read every trace into p; the exit status so far (0 or 1). */
static int read_traces(pl_program *p, const report_opts *opt,
                       const pl_input *in, size_t n, read_info *ri)
{
   pl_read_hooks h;
   read_state rs;

   memset(&rs, 0, sizeof rs);
   rs.ri = ri;
   rs.returns = calloc((size_t)n + 1, sizeof *rs.returns);
   rs.progress = pl_backend_progress(PROG, (size_t)n);
   p->progress = pl_progress_hooks_of(rs.progress);
   h.ctx = &rs;
   h.visitor = read_visitor;
   h.done = read_done;
   pl_backend_state st = { &rs, returns_pack, returns_merge };
   nfiles_read = n;
   if (!rs.returns
       || pl_backend_read(PROG, p, in, n, &opt->select, opt->jobs, &h,
                          &st) < 0) {
      pl_progress_clear(rs.progress);
      fprintf(stderr, PROG ": out of memory\n");
      rs.status = PL_EXIT_DATA;
   }
   free(rs.returns);
   pl_progress_free(rs.progress);
   p->progress = NULL;
   return rs.status;
}

/* The text the in-memory out holds, as a string into *dst (NULL if out
   is empty), out emptied for the next.  0, or -1 if out of memory. */
static int take_text(outbuf *out, char **dst)
{
   *dst = NULL;
   if (out->err)
      return -1;
   if (out->len && !(*dst = malloc(out->len + 1)))
      return -1;
   if (out->len) {
      memcpy(*dst, out->buf, out->len);
      (*dst)[out->len] = 0;
      out->len = 0;
   }
   return 0;
}

/* A run whose processes did not all finish (a hang ended by a signal, a
   crash, a trace cut short) or one of which exited with a status other
   than 0: where a process crashed, a rank aborted or a process exited
   early, and the least progressed threads and where they are, in the
   program's view (parlot-decode --stacks' progress), into
   ri->crash_site, ri->exit_site (ri->aborted) and ri->least_progressed
   (or where none is behind another because they ran other calls, the
   positions, and ri->stopped_at set); NULL there if no process crashed
   or ended early, or no thread is in a call.  Where a process crashed, a
   rank aborted or a process exited early, the others were ended because
   of it (its launcher, often by SIGKILL: where they were is then as of
   their last flush, up to a second before), and how far they got is no
   diagnosis: no least progressed.
   0, or -1 if out of memory. */
static int find_least_progressed(const pl_program *p, const report_opts *opt,
                                 const pl_input *in, size_t n, read_info *ri)
{
   pl_decode_opts d;
   outbuf text;
   void *state;
   size_t k, unfinished = 0;
   int r, least = 0, ended = 0, crashed = 0;

   for (k = 0; k < p->nprocs; k++) {
      pl_ending e;
      pl_program_ending(p, k, &e);
      unfinished += e.kind == PL_ENDING_SIGNAL || e.kind == PL_ENDING_CUT_SHORT
                    || (e.kind == PL_ENDING_EXIT && e.status > 0);
   }
   if (!unfinished)
      return 0;
   memset(&d, 0, sizeof d);
   d.select = opt->select;
   d.demangle = opt->demangle;
   d.prog = PROG;
   if (!(d.filter = pl_filter_new()))
      return -1;
   pl_filter_default_program(d.filter);
   state = pl_progress_of_inputs(in, n, &d, opt->jobs ? opt->jobs
                                                     : pl_jobs_default());
   if (!state || outbuf_init(&text, -1, "progress") < 0) {
      if (state)
         pl_mode_progress.destroy(state);
      pl_filter_free(d.filter);
      return -1;
   }
   r = (crashed = pl_mode_crash_site(state, &text)) < 0
       || take_text(&text, &ri->crash_site) < 0
       || (ended = pl_mode_exit_site(state, &text)) < 0
       || take_text(&text, &ri->exit_site) < 0
       || (!crashed && !ended
           && (least = pl_mode_progress_least(state, &text)) < 0)
       || take_text(&text, &ri->least_progressed) < 0 ? -1 : 0;
   ri->aborted = ended == 2;
   ri->stopped_at = least == 2;
   pl_mode_progress.destroy(state);
   pl_filter_free(d.filter);
   outbuf_free(&text);
   return r;
}

/* The command line into *opt and *out_path: -1 to go on, else the exit
   status (after --help, --version or a usage error). */
static int parse_options(int argc, char **argv, report_opts *opt,
                         const char **out_path)
{
   enum { OPT_TREE = 0x100, OPT_THRESHOLD, OPT_TOP, OPT_SELECT, OPT_GROUP_BY,
          OPT_GROUP, OPT_NO_DEMANGLE, OPT_RANKS, OPT_FILTER };
   static const struct option own[] = {
      { "output", required_argument, NULL, 'o' },
      { "help", no_argument, NULL, 'h' },
      { "version", no_argument, NULL, 'V' },
      { "tree", required_argument, NULL, OPT_TREE },
      { "threshold", required_argument, NULL, OPT_THRESHOLD },
      { "top", required_argument, NULL, OPT_TOP },
      { "select", required_argument, NULL, OPT_SELECT },
      { "group-by", required_argument, NULL, OPT_GROUP_BY },
      { "group", required_argument, NULL, OPT_GROUP },
      { "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
      { "jobs", required_argument, NULL, 'j' },
      { "ranks", required_argument, NULL, OPT_RANKS },
      PL_CLI_FILTER_OPTIONS(OPT_FILTER)
   };
   /* the program's, the back-end's (at most 1) and the end marker */
   struct option longopts[sizeof own / sizeof own[0] + 1 + 1];
   size_t m = sizeof own / sizeof own[0];
   int group_by_given = 0, c, index;
   char why[256];

   memset(opt, 0, sizeof *opt);
   opt->group_by = -1;
   opt->threshold = 99 * 100;
   opt->demangle = 1;
   if (!(opt->filter = pl_filter_new())) {
      fprintf(stderr, PROG ": out of memory\n");
      return PL_EXIT_DATA;
   }
   opterr = 0;
   memcpy(longopts, own, sizeof own);
   for (size_t k = 0; k < pl_backend_noptions; k++)
      longopts[m++] = pl_backend_options[k];
   longopts[m] = (struct option){ NULL, 0, NULL, 0 };
   while ((c = getopt_long(argc, argv, ":o:j:hV", longopts, &index)) != -1) {
      if (pl_backend_option(c))
         continue;
      switch (c) {
      case 'o':
         *out_path = optarg;
         break;
      case OPT_TREE:
         if (parse_tree(optarg, &opt->tree) < 0) {
            return pl_usage_error(PROG, "--tree wants none, caller, calling "
                                  "or both, not", optarg);
         }
         break;
      case OPT_THRESHOLD:
         if (parse_threshold(optarg, &opt->threshold) < 0) {
            return pl_usage_error(PROG, "--threshold wants a percentage "
                                  "from 0 to 100, not", optarg);
         }
         break;
      case OPT_TOP:
         if (pl_parse_u64(optarg, &opt->top) < 0) {
            return pl_usage_error(PROG, "--top wants a number, not", optarg);
         }
         break;
      case OPT_SELECT:
         if (add_select(opt, optarg, why, sizeof why) < 0) {
            return pl_usage_error(PROG, why, NULL);
         }
         break;
      case OPT_GROUP_BY:
         if (report_parse_group_by(optarg, &opt->group_by) < 0) {
            return pl_usage_error(PROG, "--group-by wants process, graph, "
                                  "shape or none, not", optarg);
         }
         group_by_given = 1;
         break;
      case OPT_GROUP:
         if (pl_parse_u64(optarg, &opt->group) < 0 || opt->group == 0) {
            return pl_usage_error(PROG, "--group wants a group number (1, "
                                  "2, ...), not", optarg);
         }
         break;
      case OPT_NO_DEMANGLE:
         opt->demangle = 0;
         break;
      case OPT_RANKS:
         if (strcmp(optarg, "auto") == 0)
            opt->ranks = RANKS_AUTO;
         else if (strcmp(optarg, "yes") == 0)
            opt->ranks = RANKS_YES;
         else if (strcmp(optarg, "no") == 0)
            opt->ranks = RANKS_NO;
         else {
            return pl_usage_error(PROG, "--ranks wants auto, yes or no, not",
                                  optarg);
         }
         break;
      case OPT_FILTER:
         if (pl_filter_option(opt->filter, longopts[index].name, optarg, why,
                              sizeof why) < 0)
            return pl_usage_error(PROG, why, NULL);
         break;
      case 'j':
         if (pl_jobs_parse(optarg, &opt->jobs) < 0) {
            return pl_usage_error(PROG, "--jobs wants a number from 0 (one job per "
                               "processor) to " PL_STR(PL_JOBS_MAX) ", not", optarg);
         }
         break;
      case 'h':
         usage(stdout);
         return fflush(stdout) == 0 ? 0 : PL_EXIT_DATA;
      case 'V':
         return pl_print_version(PROG, PACKAGE_VERSION);
      default:
         return pl_option_error(PROG, c, argv);
      }
   }
   if (opt->group) {
      if (!group_by_given)
         opt->group_by = PL_GROUP_PROCESS;
      else if (opt->group_by < 0) {
         return pl_usage_error(PROG, "--group needs groups, not "
                               "--group-by=none", NULL);
      }
   }
   if (optind == argc)
      return pl_usage_error(PROG, "no trace file given", NULL);
   return -1;
}

static int annotate(int argc, char **argv)
{
   const char *out_path = NULL;
   int status, w;
   report_opts opt;
   pl_program prog;
   read_info ri;
   outbuf out;
   pl_inputs inputs;
   char **names;
   size_t k;
   int bad;
   char why[256];

   status = parse_options(argc, argv, &opt, &out_path);
   if (status >= 0) {
      free_options(&opt);
      return status;
   }
   if (!pl_backend_speaks())
      out_path = NULL;               /* rank 0 alone writes */
   status = pl_output_open(PROG, &out, out_path, argv + optind,
                           argc - optind);
   if (status != 0) {
      free_options(&opt);
      return status;
   }

   /* archives stand for their members: the traces are those */
   memset(&ri, 0, sizeof ri);
   memset(&inputs, 0, sizeof inputs);
   bad = pl_cli_inputs(PROG, &inputs, argv + optind, argc - optind);
   names = malloc((inputs.n ? inputs.n : 1) * sizeof *names);
   if (!pl_backend_all_ok(bad >= 0 && names && inputs.n <= INT_MAX)
       && bad >= 0)
      bad = -1;
   if (bad < 0 || !names || inputs.n > INT_MAX) {
      if (bad >= 0)
         fprintf(stderr, PROG ": out of memory\n");
      free(names);
      pl_inputs_free(&inputs);
      free_options(&opt);
      pl_output_close(PROG, &out);
      return PL_EXIT_DATA;
   }
   for (k = 0; k < inputs.n; k++)
      names[k] = inputs.v[k].name;
   ri.nfiles = (int)inputs.n + bad;
   ri.unreadable = bad;
   ri.files = names;
   ri.nnames = (int)inputs.n;
   pl_program_init(&prog, opt.demangle);
   if (pl_program_set_filter(&prog, opt.filter) < 0) {
      fprintf(stderr, PROG ": out of memory\n");
      status = PL_EXIT_DATA;
   } else {
      status = read_traces(&prog, &opt, inputs.v, inputs.n, &ri);
   }
   if (bad)
      status = PL_EXIT_DATA;
   /* nothing could be read, or the selection or filters kept nothing:
      the errors said why, no empty report */
   pl_kept kept;
   pl_kept_program(&kept, &prog, opt.filter);
   int empty = pl_backend_speaks()
               && pl_kept_nothing(PROG, &kept, opt.select_text, opt.filter);
   if (pl_backend_speaks() && !empty
       && find_least_progressed(&prog, &opt, inputs.v, inputs.n, &ri) < 0) {
      fprintf(stderr, PROG ": out of memory\n");
      status = PL_EXIT_DATA;
   }
   w = pl_backend_speaks() && (prog.nprocs || !status) && !empty
       ? report_write(&out, &prog, &opt, &ri, why, sizeof why) : 0;
   if (empty)
      status = PL_EXIT_DATA;
   if (w < 0) {
      fprintf(stderr, PROG ": out of memory\n");
      status = PL_EXIT_DATA;
   } else if (w > 0) {
      status = pl_usage_error(PROG, why, NULL);
   }
   pl_program_free(&prog);
   free(ri.least_progressed);
   free(ri.crash_site);
   free(ri.exit_site);
   free(names);
   pl_inputs_free(&inputs);
   free_options(&opt);
   if (pl_output_close(PROG, &out) != 0)
      return PL_EXIT_DATA;
   return status;
}

int main(int argc, char **argv)
{
   return pl_backend_main(argc, argv, annotate);
}
