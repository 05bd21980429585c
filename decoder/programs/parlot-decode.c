/* SPDX-License-Identifier: MIT */
/* parlot-decode: print the contents of ParLoT trace files.

   The command line selects one output mode; each mode is a set of hooks
   (see struct mode) called around and for every trace file, writing to a
   buffered output.  The driver owns error reporting: one line per bad
   file, "parlot-decode: FILE: offset N: message", after everything that
   could be decoded from that file has been written.

   Linked with the MPI back-end (pl_backend.h) it is parlot-decode-mpi:
   the same program run by every rank of an MPI job, each reading a share
   of the traces, rank 0 writing the output the serial program would.  It
   has the whole-program modes (--xml, --callgrind, --paths, --path-of,
   --folded). */

#ifdef HAVE_CONFIG_H
#  include "config.h"
#endif

#define _FILE_OFFSET_BITS 64
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl_archive.h"
#include "pl_backend.h"
#include "pl_cli.h"
#include "pl_format.h"
#include "pl_modes.h"
#include "pl_names.h"
#include "pl_outbuf.h"
#include "pl_parallel.h"
#include "pl_progress.h"
#include "pl_trace.h"

#ifndef PACKAGE_VERSION
#  define PACKAGE_VERSION "dev"
#endif

#ifndef PROG                     /* the MPI build's is parlot-decode-mpi */
#  define PROG "parlot-decode"
#endif

enum { EXIT_DATA = PL_EXIT_DATA, EXIT_USAGE = PL_EXIT_USAGE };

static unsigned opt_jobs;        /* -j: threads reading traces; 0 = the
                                    back-end's default */

/* ---- Driver ------------------------------------------------------------- */

struct mode {
   const char *option;  /* long option selecting it */
   int         has_arg;
   const char *help;
   /* Per-file modes: write one trace's output; 0, or -1 with *err set for
      bad data.  Output errors are left in o->err. */
   int (*file)(pl_trace *t, outbuf *o, pl_error *err,
               const pl_decode_opts *opts);
   /* Collecting modes (pl_modes.h). */
   const pl_collect_mode *collect;
   /* Whole-program modes (pl_modes.h). */
   const pl_program_mode *program;
   /* A per-file mode writing one document over all the files:
      PL_TIMELINE_*, begun before the first and ended after the last. */
   int timeline;
};

static const struct mode modes[] = {
   { "events", no_argument,
     "one line per call and return, tab-separated:\n"
     "                       PID THREAD call|return DEPTH OBJECT FUNCTION",
     pl_mode_events_file, NULL, NULL, 0 },
   { "replay", no_argument,
     "each thread's calls in order, an indented line per call\n"
     "                       (with --loops: repeats folded into loops)",
     pl_mode_replay_file, NULL, NULL, 0 },
   { "stacks", no_argument,
     "the call stack of every thread where its trace ends,\n"
     "                       merged into one tree, and its classes; how\n"
     "                       each process ended; who is behind (threads\n"
     "                       by progress, least progressed first)",
     NULL, &pl_mode_stacks, NULL, 0 },
   { "progress", no_argument,
     "--stacks' answer to a hang alone: how each process ended,\n"
     "                       and the threads by progress, least\n"
     "                       progressed first",
     NULL, &pl_mode_progress, NULL, 0 },
   { "info", no_argument,
     "per trace and thread: process, codec, how it ended, events,\n"
     "                       depth, stream and table bytes, ratio; totals\n"
     "                       (with --xml: as XML, schema parlot-info.rng)",
     NULL, &pl_mode_info, NULL, 0 },
   { "xml", no_argument,
     "XML call-graph summary per thread, per group and for the\n"
     "                       whole program (schema: parlot-callgraph.rng)",
     NULL, NULL, &pl_mode_xml, 0 },
   { "callgrind", no_argument,
     "Callgrind profile (event: calls), for callgrind_annotate\n"
     "                       and KCachegrind",
     NULL, NULL, &pl_mode_callgrind, 0 },
   { "paths", no_argument,
     "the most frequent call paths, with counts and stack tags",
     NULL, NULL, &pl_mode_paths, 0 },
   { "path-of", required_argument,
     "=TAG  the call path(s) with this stack tag",
     NULL, NULL, &pl_mode_path_of, 0 },
   { "folded", no_argument,
     "folded stacks (PATH COUNT per line) for flame graphs",
     NULL, NULL, &pl_mode_folded, 0 },
   { "chrome", no_argument,
     "each thread's calls as a timeline in the Trace Event\n"
     "                       Format (JSON), for Perfetto and chrome://tracing;\n"
     "                       time: the thread's instructions with costs\n"
     "                       (--collect-insns), else its events",
     pl_mode_timeline_file, NULL, NULL, PL_TIMELINE_CHROME },
   { "speedscope", no_argument,
     "the same in speedscope's format, a profile per thread",
     pl_mode_timeline_file, NULL, NULL, PL_TIMELINE_SPEEDSCOPE },
};
#define NMODES (sizeof modes / sizeof modes[0])

/* Whether this build has the mode: under MPI, the whole-program modes
   whose state (if any) can travel between ranks; those that write each
   file's own output, or collect more than a program, are the serial
   program's. */
static int mode_available(const struct mode *m)
{
   return !pl_backend_is_mpi
          || (m->program && (!m->program->visitor || m->program->pack));
}

static void usage(FILE *f)
{
   size_t i;
   fprintf(f, "%s" PROG " MODE [OPTION]... TRACE...\n"
           "Decode ParLoT traces (valgrind --tool=parlot).\n",
           pl_backend_usage);
   pl_backend_help_intro(f, "parlot-decode");
   fprintf(f, "\nmodes%s:\n", pl_backend_is_mpi
           ? " (the others are parlot-decode's alone)" : "");
   for (i = 0; i < NMODES; i++)
      if (mode_available(&modes[i]))
         fprintf(f, "  --%-*s%s\n", modes[i].has_arg ? 7 : 19,
                 modes[i].option, modes[i].help);
   fprintf(f,
      "\n"
      "options:\n"
      "  -o, --output=FILE    write to FILE instead of standard output\n"
      "      --select=SPEC    read only these processes/threads; SPEC is a\n"
      "                       comma-separated list of PID, PID:N, PID:N-M,\n"
      "                       *:N (thread numbers); may be repeated\n"
      "      --group-by=KIND  --xml groups: process (default), graph\n"
      "                       (identical call graphs), shape (same edges),\n"
      "                       none\n"
      "      --group=NAME=SPEC  --xml: also a group of the threads SPEC\n"
      "                       selects; may be repeated\n"
      "      --top=N          --paths: print the N most frequent (default\n"
      "                       20; 0 = all)\n"
      "      --weight=calls|insns  --paths, --folded: weigh each call path by\n"
      "                       its calls (default) or by the instructions run\n"
      "                       while it was the stack (--collect-insns traces)\n"
      "      --no-demangle    print C++ function names as recorded (mangled)\n");
   pl_backend_help_jobs(f, "the output", "; --paths, --path-of, --folded, "
                        "--events\n                       and --info use "
                        "one, --replay two");
   fprintf(f,
      "  -h, --help           show this help and exit\n"
      "  -V, --version        show the version and exit\n"
      "\n"
      "filters (every mode; reports then count only what they show, and\n"
      "say so in their headers):\n"
      "      --images=WHICH   program: the program's own code and each call\n"
      "                       it makes into a library, shown as one call\n"
      "                       (default of --replay, --stacks, --chrome and\n"
      "                       --speedscope); main: the main executable's\n"
      "                       functions; all: everything (default of the\n"
      "                       other modes); or object patterns\n"
      "                       GLOB[,GLOB] (e.g. 'liblammps*')\n"
      "      --program-objects=GLOB  --images=program: objects that are the\n"
      "                       program's even if they look like a system\n"
      "                       runtime; may be repeated\n"
      "      --library-objects=GLOB  --images=program: objects treated as\n"
      "                       libraries (opaque); may be repeated\n"
      "      --only=GLOB      show only functions matching GLOB ('*', '?');\n"
      "                       may be repeated; with --images, both\n"
      "      --hide=GLOB      never show functions matching GLOB; may be\n"
      "                       repeated (a hidden call's callees are shown)\n"
      "      --only-object=GLOB, --hide-object=GLOB  only / never the\n"
      "                       functions of objects matching GLOB (file name\n"
      "                       or path); may be repeated (as the tool's)\n"
      "      --max-depth=N    show N levels of calls at most (also --depth)\n"
      "      --range=FIRST-LAST  only events FIRST..LAST of each thread\n"
      "                       (numbers from 1; either may be left out; not\n"
      "                       with --stacks)\n"
      "      --from-mark=LABEL[#N]  only events after the Nth (default: 1st)\n"
      "                       mark LABEL of each thread (PARLOT_MARK)\n"
      "      --to-mark=LABEL[#N]  only events before that mark\n"
      "      --loops          --replay: fold repeated sequences into loops\n"
      "      --window=N       --loops: longest loop body, in calls (default\n"
      "                       256; memory grows with it)\n"
      "      --dot            --stacks: write the tree in Graphviz DOT\n"
      "\n"
      "\n"
      "Threads are printed in thread-number order, files in command-line\n"
      "order.  Names are printed as recorded, except that mangled C++ names\n"
      "are demangled; in line-oriented output, control characters and\n"
      "backslashes in them are written as C escapes (\\t, \\n, \\\\, \\xHH).\n"
      "\n"
      "A trace is complete when it ends with the process's exit or exec.\n"
      "A damaged or truncated trace is decoded up to the damage, then\n"
      "reported on standard error as \"FILE: offset N: message\".\n"
      "Exit status: 0 if all traces were complete and valid, 1 on bad data\n"
      "or an output error, 2 on a usage error.\n");
}

static int usage_error(const char *what, const char *arg)
{
   return pl_usage_error(PROG, what, arg);
}

static void report(const char *path, const pl_error *e)
{
   pl_report(PROG, path, e);
}

static int parse_group_by(const char *s, int *kind)
{
   static const struct { const char *name; int kind; } kinds[] = {
      { "process", PL_GROUP_PROCESS }, { "graph", PL_GROUP_GRAPH },
      { "shape", PL_GROUP_SHAPE }, { "none", -1 },
   };
   size_t i;
   for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
      if (strcmp(s, kinds[i].name) == 0) {
         *kind = kinds[i].kind;
         return 0;
      }
   return -1;
}

/* --group=NAME=SPEC */
static int add_user_group(pl_decode_opts *o, const char *arg, char *why,
                          size_t whylen)
{
   const char *eq = strchr(arg, '=');
   pl_user_group *g;

   if (!eq || eq == arg) {
      snprintf(why, whylen, "bad group '%s' (want NAME=SPEC)", arg);
      return -1;
   }
   g = realloc(o->groups, (o->ngroups + 1) * sizeof *g);
   if (!g) {
      snprintf(why, whylen, "out of memory");
      return -1;
   }
   o->groups = g;
   g = &o->groups[o->ngroups];
   memset(g, 0, sizeof *g);
   g->name = strndup(arg, (size_t)(eq - arg));
   if (!g->name) {
      snprintf(why, whylen, "out of memory");
      return -1;
   }
   o->ngroups++;
   return pl_select_parse(&g->sel, eq + 1, why, whylen);
}

static void free_opts(pl_decode_opts *o)
{
   size_t i;
   pl_select_free(&o->select);
   pl_filter_free(o->filter);
   for (i = 0; i < o->ngroups; i++) {
      free(o->groups[i].name);
      pl_select_free(&o->groups[i].sel);
   }
   free(o->groups);
}

/* The --select argument as given, for messages (NULL: none). */
static const char *opt_select_text;

/* A collecting mode with a merge reads its traces with several threads:
   each trace into a state of its own (pl_run_ordered's work), merged
   into the mode's state in command-line order, where its errors are
   reported, so that output and messages are those of one thread. */
typedef struct {
   const pl_collect_mode *mode;
   const pl_input        *in;
   const pl_decode_opts  *opts;
   void                  *state;
   pl_progress           *pg;
   pl_kept               *kept;
   size_t                 opened;
   int                    status;
} collect_run;

typedef struct {
   void    *part;        /* NULL: out of memory */
   int      opened, r;
   pl_error err;         /* of the open, or of the read (r < 0) */
   pl_error damage;      /* the trace's damage, if any (damaged) */
   int      damaged;
   pl_kept  kept;
} collect_part;

static void *collect_read(void *ctx, size_t i)
{
   collect_run *c = ctx;
   collect_part *cp = calloc(1, sizeof *cp);
   pl_decode_opts fo = *c->opts;
   const pl_error *dmg;
   pl_trace *t;

   if (!cp)
      return NULL;
   fo.progress = NULL;           /* no status line from a worker */
   if (!(cp->part = c->mode->create(&fo))) {
      free(cp);
      return NULL;
   }
   if (!(t = pl_input_open(&c->in[i], &cp->err)))
      return cp;
   cp->opened = 1;
   pl_kept_trace(&cp->kept, t, &fo.select, fo.filter, fo.demangle);
   cp->r = c->mode->file(cp->part, t, &cp->err, &fo);
   if ((dmg = pl_trace_damage(t)) != NULL) {
      cp->damage = *dmg;
      cp->damaged = 1;
   }
   pl_trace_close(t);
   return cp;
}

static void collect_merge(void *ctx, size_t i, void *result)
{
   collect_run *c = ctx;
   collect_part *cp = result;

   pl_progress_file(c->pg, c->in[i].name);
   pl_progress_clear(c->pg);
   if (!cp || c->mode->merge(c->state, cp->part) < 0) {
      if (cp)
         cp->part = NULL;        /* merge destroyed it */
      fprintf(stderr, PROG ": %s: out of memory\n", c->in[i].name);
      c->status = EXIT_DATA;
   } else if (!cp->opened) {
      report(c->in[i].name, &cp->err);
      c->status = EXIT_DATA;
   } else {
      c->opened++;
      pl_kept_add(c->kept, &cp->kept);
      if (cp->r < 0 || cp->damaged) {
         report(c->in[i].name, cp->r < 0 ? &cp->err : &cp->damage);
         c->status = EXIT_DATA;
      }
   }
   free(cp);
}

/* Per-file and collecting modes: decode each file in turn. */
static int run_per_file(const struct mode *mode, const pl_input *in, size_t n,
                        outbuf *out, const pl_decode_opts *opts)
{
   pl_decode_opts fo = *opts;
   pl_progress *pg = NULL;
   void *state = NULL;
   int status = 0;
   size_t i, opened = 0;
   int parallel;
   pl_kept kept = { 0 };

   if (mode->collect && !(state = mode->collect->create(opts))) {
      fprintf(stderr, PROG ": out of memory\n");
      return EXIT_DATA;
   }

   /* a status line would mix with events written to the terminal */
   if (!isatty(out->fd))
      pg = pl_progress_new(PROG, (size_t)n);
   if (mode->timeline)
      pl_timeline_begin(out, mode->timeline, pl_filter_describe(opts->filter));
   fo.progress = pl_progress_hooks_of(pg);
   parallel = mode->collect && mode->collect->merge && n > 1
              && opts->jobs > 1;
   if (parallel) {
      collect_run c = { mode->collect, in, opts, state, pg, &kept, 0, 0 };
      pl_ordered_work w = { &c, collect_read, collect_merge };
      pl_run_ordered(n, opts->jobs, &w);
      opened = c.opened;
      status = c.status;
   }
   for (i = 0; !parallel && i < n && !out->err; i++) {
      pl_error err;
      const pl_error *dmg;
      pl_trace *t = pl_input_open(&in[i], &err);
      int r;

      pl_progress_file(pg, in[i].name);
      if (!t) {
         pl_progress_clear(pg);
         report(in[i].name, &err);
         status = EXIT_DATA;
         continue;
      }
      opened++;
      pl_kept_trace(&kept, t, &opts->select, opts->filter, opts->demangle);
      r = mode->file ? mode->file(t, out, &err, &fo)
                     : mode->collect->file(state, t, &err, &fo);
      pl_progress_clear(pg);
      /* what was decoded goes out before the message about the rest */
      if (outbuf_flush(out) < 0) {
         pl_trace_close(t);
         break;
      }
      if (r < 0) {
         report(in[i].name, &err);
         status = EXIT_DATA;
      } else if ((dmg = pl_trace_damage(t)) != NULL) {
         report(in[i].name, dmg);
         status = EXIT_DATA;
      }
      pl_trace_close(t);
   }
   pl_progress_free(pg);
   if (mode->timeline && pl_timeline_end(out) < 0) {
      fprintf(stderr, PROG ": out of memory\n");
      status = EXIT_DATA;
   }
   if (pl_kept_nothing(PROG, &kept, opt_select_text, opts->filter))
      status = EXIT_DATA;
   if (state) {
      /* nothing could be read: the errors said why, no empty summary
         (a document stays one: --info --xml) */
      if (!out->err && (opened || !status || opts->xml)
          && mode->collect->write(state, out, opts) < 0) {
         fprintf(stderr, PROG ": out of memory\n");
         status = EXIT_DATA;
      }
      mode->collect->destroy(state);
   }
   return status;
}

/* The reading hooks (pl_backend_read) for run_program. */
typedef struct {
   const pl_visitor *v;
   pl_progress      *progress;
   int               status;
} read_state;

static int read_visitor(void *ctx, size_t i, pl_visitor *v)
{
   const read_state *rs = ctx;
   (void)i;
   if (!rs->v)
      return -1;
   *v = *rs->v;
   return 0;
}

static void read_done(void *ctx, size_t i, const char *path, int r,
                      const pl_error *err)
{
   read_state *rs = ctx;
   (void)i;
   if (r != 0) {
      pl_progress_clear(rs->progress);
      report(path, err);
      rs->status = EXIT_DATA;
   }
}

/* Whole-program modes: read every file, then write. */
static int run_program(const pl_program_mode *pm, const pl_input *in,
                       size_t n,
                       outbuf *out, const pl_decode_opts *opts)
{
   pl_program prog;
   pl_visitor v, *vp = NULL;
   pl_read_hooks hooks;
   read_state rs;
   void *state = pm->create(opts);
   pl_backend_state st = { state, pm->pack, pm->merge };
   int status = 0, w, written;

   if (!state) {
      fprintf(stderr, PROG ": out of memory\n");
      return EXIT_DATA;
   }
   pl_program_init(&prog, opts->demangle);
   if (pl_program_set_filter(&prog, opts->filter) < 0) {
      fprintf(stderr, PROG ": out of memory\n");
      pm->destroy(state);
      return EXIT_DATA;
   }
   rs.progress = pl_backend_progress(PROG, (size_t)n);
   prog.progress = pl_progress_hooks_of(rs.progress);
   if (pm->visitor) {
      memset(&v, 0, sizeof v);
      pm->visitor(state, &v);
      vp = &v;
   }
   /* a mode's visitor wants the program's own IDs: one job then */
   hooks.ctx = &rs;
   hooks.visitor = read_visitor;
   hooks.done = read_done;
   rs.v = vp;
   rs.status = 0;
   if (pl_backend_read(PROG, &prog, in, n, &opts->select, vp ? 1 : opt_jobs,
                       &hooks, vp ? &st : NULL) < 0) {
      pl_progress_clear(rs.progress);
      fprintf(stderr, PROG ": out of memory\n");
      rs.status = EXIT_DATA;
   }
   status = rs.status;
   pl_progress_free(rs.progress);
   prog.progress = NULL;
   {
      pl_kept kept;
      pl_kept_program(&kept, &prog, opts->filter);
      if (pl_backend_speaks()
          && pl_kept_nothing(PROG, &kept, opt_select_text, opts->filter))
         status = EXIT_DATA;
   }
   /* nothing could be read: the errors said why, no empty report (a
      document stays one: --xml) */
   written = prog.nprocs || !status || pm == &pl_mode_xml;
   w = pl_backend_speaks() && written ? pm->write(state, &prog, out, opts)
                                      : 0;
   if (w < 0) {
      fprintf(stderr, PROG ": out of memory\n");
      status = EXIT_DATA;
   } else if (w > 0) {
      status = EXIT_DATA;
   }
   pm->destroy(state);
   pl_program_free(&prog);
   return status;
}

/* Parse the command line into *mode, *out_path and *o (the trace paths
   are argv[optind..]): -1 to go on, else the exit status (help, version,
   a usage error). */
static int parse_options(int argc, char **argv, const struct mode **mode,
                         const char **out_path, pl_decode_opts *o)
{
   enum { OPT_MODE = 0x100, OPT_NO_DEMANGLE = 0x80, OPT_SELECT, OPT_GROUP_BY,
          OPT_GROUP, OPT_TOP, OPT_FILTER, OPT_LOOPS, OPT_WINDOW, OPT_DOT,
          OPT_WEIGHT };
   static const struct option filters[] = {
      PL_CLI_FILTER_OPTIONS(OPT_FILTER)
   };
   /* the modes, the options below, the filters and the end marker */
   struct option longopts[NMODES + 14 + sizeof filters / sizeof filters[0]
                          + 1 + 1];     /* + the back-end's (at most 1) */
   const char *loops_given = NULL, *group_given = NULL;
   int top_given = 0, weight_given = 0;
   uint64_t window = 256;
   int index, loops = 0;
   char why[256];
   int c;
   size_t m;

   for (m = 0; m < NMODES; m++) {
      longopts[m].name = modes[m].option;
      longopts[m].has_arg = modes[m].has_arg;
      longopts[m].flag = NULL;
      longopts[m].val = OPT_MODE + (int)m;
   }
   longopts[m++] = (struct option){ "output", required_argument, NULL, 'o' };
   longopts[m++] = (struct option){ "help", no_argument, NULL, 'h' };
   longopts[m++] = (struct option){ "version", no_argument, NULL, 'V' };
   longopts[m++] = (struct option){ "no-demangle", no_argument, NULL,
                                    OPT_NO_DEMANGLE };
   longopts[m++] = (struct option){ "select", required_argument, NULL,
                                    OPT_SELECT };
   longopts[m++] = (struct option){ "group-by", required_argument, NULL,
                                    OPT_GROUP_BY };
   longopts[m++] = (struct option){ "group", required_argument, NULL,
                                    OPT_GROUP };
   longopts[m++] = (struct option){ "top", required_argument, NULL, OPT_TOP };
   longopts[m++] = (struct option){ "jobs", required_argument, NULL, 'j' };
   longopts[m++] = (struct option){ "loops", no_argument, NULL, OPT_LOOPS };
   longopts[m++] = (struct option){ "window", required_argument, NULL,
                                    OPT_WINDOW };
   longopts[m++] = (struct option){ "dot", no_argument, NULL, OPT_DOT };
   longopts[m++] = (struct option){ "weight", required_argument, NULL,
                                    OPT_WEIGHT };
   for (size_t k = 0; k < pl_backend_noptions; k++)
      longopts[m++] = pl_backend_options[k];
   for (size_t k = 0; k < sizeof filters / sizeof filters[0]; k++)
      longopts[m++] = filters[k];
   longopts[m] = (struct option){ NULL, 0, NULL, 0 };

   opterr = 0;
   while ((c = getopt_long(argc, argv, ":o:j:hV", longopts, &index)) != -1) {
      if (pl_backend_option(c))
         continue;
      switch (c) {
      case OPT_FILTER:
         if (pl_filter_option(o->filter, longopts[index].name, optarg, why,
                              sizeof why) < 0)
            return usage_error(why, NULL);
         break;
      case OPT_LOOPS:
         loops = 1;
         loops_given = "loops";
         break;
      case OPT_WINDOW:
         if (pl_parse_u64(optarg, &window) < 0 || window == 0
             || window > 65536)
            return usage_error("--window wants a number from 1 to 65536, "
                               "not", optarg);
         loops_given = "window";
         break;
      case OPT_DOT:
         o->dot = 1;
         break;
      case OPT_WEIGHT:
         if (strcmp(optarg, "calls") != 0 && strcmp(optarg, "insns") != 0)
            return usage_error("--weight wants calls or insns, not", optarg);
         o->weight_insns = strcmp(optarg, "insns") == 0;
         weight_given = 1;
         break;
      case 'o':
         *out_path = optarg;
         break;
      case OPT_NO_DEMANGLE:
         o->demangle = 0;
         break;
      case 'j':
         if (pl_jobs_parse(optarg, &opt_jobs) < 0)
            return usage_error("--jobs wants a number from 0 (one job per "
                               "processor) to " PL_STR(PL_JOBS_MAX) ", not", optarg);
         break;
      case OPT_SELECT:
         if (pl_select_parse(&o->select, optarg, why, sizeof why) < 0)
            return usage_error(why, NULL);
         opt_select_text = optarg;
         break;
      case OPT_GROUP_BY:
         group_given = "group-by";
         if (parse_group_by(optarg, &o->group_by) < 0)
            return usage_error("--group-by wants process, graph, shape or "
                               "none, not", optarg);
         break;
      case OPT_GROUP:
         group_given = "group";
         if (add_user_group(o, optarg, why, sizeof why) < 0)
            return usage_error(why, NULL);
         break;
      case OPT_TOP: {
         uint64_t v;
         if (pl_parse_u64(optarg, &v) < 0 || v > SIZE_MAX)
            return usage_error("--top wants a number, not", optarg);
         o->top = (size_t)v;
         top_given = 1;
         break;
      }
      case 'h':
         usage(stdout);
         return fflush(stdout) == 0 ? 0 : EXIT_DATA;
      case 'V':
         return pl_print_version(PROG, PACKAGE_VERSION);
      case ':':
      case '?':
         return pl_option_error(PROG, c, argv);
      default: {
         const struct mode *m = &modes[c - OPT_MODE];
         /* --info --xml: the information as a document */
         if ((*mode && (*mode)->collect == &pl_mode_info
              && m->program == &pl_mode_xml)
             || (*mode && (*mode)->program == &pl_mode_xml
                 && m->collect == &pl_mode_info)) {
            o->xml = 1;
            *mode = m->collect == &pl_mode_info ? m : *mode;
            break;
         }
         if (*mode && *mode != m)
            return usage_error("only one mode may be given", NULL);
         *mode = m;
         if ((*mode)->program == &pl_mode_path_of
             && pl_parse_u64(optarg, &o->tag) < 0)
            return usage_error("--path-of wants a tag (0x... or decimal), "
                               "not", optarg);
         break;
      }
      }
   }
   if (!*mode)
      return usage_error("no mode given, e.g. --events", NULL);
   if (!mode_available(*mode)) {
      snprintf(why, sizeof why, "--%s%s is parlot-decode's alone (this "
               "program has --xml, --callgrind, --paths, --path-of and "
               "--folded)", (*mode)->option, o->xml ? " --xml" : "");
      return usage_error(why, NULL);
   }
   if (loops_given && (*mode)->file != pl_mode_replay_file) {
      snprintf(why, sizeof why, "--%s applies to --replay only", loops_given);
      return usage_error(why, NULL);
   }
   if (loops_given && !loops)
      return usage_error("--window needs --loops", NULL);
   /* every option applies to some mode: given to another, it is refused
      rather than ignored */
   if (top_given && (*mode)->program != &pl_mode_paths)
      return usage_error("--top applies to --paths only", NULL);
   if (weight_given && (*mode)->program != &pl_mode_paths
       && (*mode)->program != &pl_mode_folded)
      return usage_error("--weight applies to --paths and --folded only",
                         NULL);
   if (group_given && (*mode)->program != &pl_mode_xml) {
      snprintf(why, sizeof why, "--%s applies to --xml only (the call-graph "
               "document)", group_given);
      return usage_error(why, NULL);
   }
   if ((*mode)->collect == &pl_mode_info && pl_filter_active(o->filter))
      return usage_error("the filters do not apply to --info (it describes "
                         "the files)", NULL);
   if (o->dot && (*mode)->collect != &pl_mode_stacks)
      return usage_error("--dot applies to --stacks only", NULL);
   if (((*mode)->collect == &pl_mode_stacks
        || (*mode)->collect == &pl_mode_progress)
       && pl_filter_ranged(o->filter)) {
      snprintf(why, sizeof why, "--range, --from-mark and --to-mark do not "
               "apply to --%s (it shows where each trace ends)",
               (*mode)->option);
      return usage_error(why, NULL);
   }
   /* the ordered views show the program's view unless asked otherwise:
      an MPI rank's timeline is otherwise mostly its library's polling */
   if ((*mode)->file == pl_mode_replay_file || (*mode)->timeline
       || (*mode)->collect == &pl_mode_stacks
       || (*mode)->collect == &pl_mode_progress)
      pl_filter_default_program(o->filter);
   o->window = loops ? (size_t)window : 0;
   if (optind == argc)
      return usage_error("no trace file given", NULL);
   return -1;
}

static int decode(int argc, char **argv)
{
   const struct mode *mode = NULL;
   const char *out_path = NULL;
   static pl_decode_opts opts;   /* static: still reachable when a usage
                                    error returns early (no leak report) */
   outbuf out;
   pl_inputs inputs;
   int status, bad;

   opts.demangle = 1;
   opts.group_by = PL_GROUP_PROCESS;
   opts.top = 20;
   opts.prog = PROG;
   if (!(opts.filter = pl_filter_new())) {
      fprintf(stderr, PROG ": out of memory\n");
      return EXIT_DATA;
   }
   status = parse_options(argc, argv, &mode, &out_path, &opts);
   if (status >= 0)
      return status;
   if (!pl_backend_speaks())
      out_path = NULL;               /* rank 0 alone writes */
   opts.jobs = opt_jobs ? opt_jobs : pl_jobs_default();
   status = pl_output_open(PROG, &out, out_path, argv + optind,
                           argc - optind);
   if (status != 0)
      return status;

   /* archives stand for their members */
   memset(&inputs, 0, sizeof inputs);
   bad = pl_cli_inputs(PROG, &inputs, argv + optind, argc - optind);
   if (!pl_backend_all_ok(bad >= 0) && bad >= 0)  /* all read, or none */
      bad = -1;
   if (bad < 0 || (bad > 0 && inputs.n == 0))   /* nothing to read */
      status = EXIT_DATA;
   else if (mode->file || mode->collect)
      status = run_per_file(mode, inputs.v, inputs.n, &out, &opts);
   else
      status = run_program(mode->program, inputs.v, inputs.n, &out, &opts);
   if (bad != 0)
      status = EXIT_DATA;

   pl_inputs_free(&inputs);
   free_opts(&opts);
   if (pl_output_close(PROG, &out) != 0)
      return EXIT_DATA;
   return status;
}

int main(int argc, char **argv)
{
   return pl_backend_main(argc, argv, decode);
}
