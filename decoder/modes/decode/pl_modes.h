/* SPDX-License-Identifier: MIT */
/* parlot-decode's output modes, one file each (mode_*.c).

   A per-file mode (--events, --replay) writes each trace as it is
   decoded; a collecting mode (--stacks) keeps a little of each and writes
   at the end.  A
   whole-program mode summarises all the traces given: the driver reads
   every trace into a pl_program, passing the events to the mode's visitor
   if it has one, then the mode writes its output. */
#ifndef PL_MODES_H
#define PL_MODES_H

#include <stddef.h>
#include <stdint.h>

#include "pl_outbuf.h"
#include "pl_program.h"
#include "pl_select.h"
#include "pl_view.h"

/* A user-defined group: --group=NAME=SPEC. */
typedef struct {
   char     *name;
   pl_select sel;
} pl_user_group;

typedef struct {
   pl_select      select;      /* --select: threads to read */
   int            group_by;    /* --group-by: enum pl_group_kind, or -1 */
   pl_user_group *groups;      /* --group */
   size_t         ngroups;
   size_t         top;         /* --top: rows of --paths, 0 = all */
   uint64_t       tag;         /* --path-of's argument */
   const char    *prog;        /* program name for messages */
   int            demangle;    /* show C++ names demangled (--no-demangle) */
   pl_filter     *filter;      /* --images, --only, --hide, --depth, --range */
   size_t         window;      /* --loops: longest loop body; 0 = no loops */
   int            dot;         /* --stacks --dot: Graphviz output */
   int            weight_insns;  /* --weight=insns: --paths and --folded
                                    by the paths' instructions */
   int            xml;         /* --info --xml: a document */
   unsigned       jobs;        /* -j, 0 resolved: threads of the per-file
                                  modes (--replay: more than 1 decodes
                                  in a second thread) */
   const pl_progress_hooks *progress;   /* per-file modes; NULL: none */
} pl_decode_opts;

/* --events (mode_events.c): write the selected threads of trace t.  0, or
   -1 with *err set for bad data (what was decoded before it is written);
   output errors are left in o->err. */
int pl_mode_events_file(pl_trace *t, outbuf *o, pl_error *err,
                        const pl_decode_opts *opts);

/* --replay (mode_replay.c): the selected threads of t as indented calls,
   as pl_mode_events_file. */
int pl_mode_replay_file(pl_trace *t, outbuf *o, pl_error *err,
                        const pl_decode_opts *opts);

/* --chrome and --speedscope (mode_timeline.c): one document over all the
   files, begun before the first (format: PL_TIMELINE_*), each file's
   selected threads written by pl_mode_timeline_file as the per-file
   modes, and ended after the last (also when none could be read).
   pl_timeline_end: 0, or -1 if out of memory. */
enum { PL_TIMELINE_CHROME = 1, PL_TIMELINE_SPEEDSCOPE = 2 };
void pl_timeline_begin(outbuf *o, int format, const char *view);
int  pl_mode_timeline_file(pl_trace *t, outbuf *o, pl_error *err,
                           const pl_decode_opts *opts);
int  pl_timeline_end(outbuf *o);

typedef struct {
   /* Mode state, or NULL if out of memory. */
   void *(*create)(const pl_decode_opts *o);
   /* Fill v to see the events (v->ctx = state); NULL: graphs suffice. */
   void  (*visitor)(void *state, pl_visitor *v);
   /* Write the output.  0; 1 if the output was written but something
      must be reported (a message on stderr was printed, exit status 1);
      -1 if out of memory. */
   int   (*write)(void *state, const pl_program *p, outbuf *o,
                  const pl_decode_opts *opts);
   void  (*destroy)(void *state);
   /* parlot-decode-mpi (pl_mpi_read.h), for a mode with a visitor: the
      state as bytes (*buf malloc'ed; 0, or -1 if out of memory), and
      another rank's, built from the traces after this state's, merged
      into it, that state's function IDs mapped to this one's by map
      (nmap + 1 entries): 0; 1 if buf is not such a state; -1 if out of
      memory.  The merged state must be what reading all those traces
      in order gives.  NULL: the mode cannot run under MPI. */
   int   (*pack)(void *state, unsigned char **buf, size_t *len);
   int   (*merge)(void *state, const unsigned char *buf, size_t len,
                  const uint32_t *map, uint32_t nmap);
} pl_program_mode;

/* A mode that reads each trace in turn, keeping what it needs, and writes
   once all are read. */
typedef struct {
   void *(*create)(const pl_decode_opts *o);    /* NULL if out of memory */
   /* Read trace t: 0, or -1 with *err set (bad data or out of memory). */
   int   (*file)(void *state, pl_trace *t, pl_error *err,
                 const pl_decode_opts *opts);
   /* 0, or -1 if out of memory. */
   int   (*write)(void *state, outbuf *o, const pl_decode_opts *opts);
   void  (*destroy)(void *state);
   /* part, a state that read one trace (create, then file: in another
      thread), into state, as reading that trace into state would have
      (traces in command-line order); part is destroyed.  0, or -1 if
      out of memory.  NULL: the mode reads its traces with one thread. */
   int   (*merge)(void *state, void *part);
} pl_collect_mode;

extern const pl_collect_mode pl_mode_stacks;     /* mode_stacks.c */
extern const pl_collect_mode pl_mode_progress;   /* mode_stacks.c: its
                                                    endings and progress */
/* parlot-diff: the progress view alone of a run that pl_mode_progress's
   state has read, titled "progress of OF" (always written).  0, or -1 if
   out of memory. */
int pl_mode_progress_view(void *state, outbuf *o, const char *of);
/* parlot-annotate's header: the least progressed threads of that view,
   in range notation, and their position ("1:[2]  main > conj_grad #8 >
   ... > MPI_Recv  (3 others further on)"), or every thread's where all
   stopped at one point ("4:[0-3]  main > exchange #5 > MPI_Send  (all
   at the same point)"): 1 if written; where the first positions are not
   comparable (other calls at one point: a master in its receive loop, a
   worker in its own), the number of positions and the first three, as
   that view lists them ("3 positions: 1:[0]  main > master > MPI_Recv
   #40; 1:[1]  main > worker > MPI_Recv #8; 2:[2-3]  main >
   MPI_Barrier"): 2; 0 if no thread is inside a call or the view has one
   position for one thread, -1 if out of memory. */
int pl_mode_progress_least(void *state, outbuf *o);
/* parlot-annotate's header: where a process crashed (killed by SIGSEGV,
   SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP or SIGSYS: its own fault, not
   a kill from outside), the first such in that view: the thread the
   signal was delivered to and its position ("[2.4]  compute._omp_fn.0 #8
   > fixup  (SIGSEGV); 1 more processes crashed").  1 if written, 0 if no
   process crashed, -1 if out of memory. */
int pl_mode_crash_site(void *state, outbuf *o);

/* parlot-annotate's header: a rank in MPI_Abort, however its trace ended
   ("[1]  main > solve #17 > MPI_Abort  (exit status 3)"), else a process
   that exited early (with a status other than 0, or while other
   processes did not finish: a Fortran error stop, an exit(1) deep in the
   program) and where it was when it exited ("[1]  main > MAIN__ >
   vcycle #17 > _gfortran_error_stop_string  (exit status 1)"); "; N more
   processes ..." if there are others.  2 if an abort was written, 1 an
   early exit, 0 if neither, -1 if out of memory.  The progress views
   then place such threads where their process exited, marked "(aborted
   here)" or "(exited here: exit status 1)". */
int pl_mode_exit_site(void *state, outbuf *o);
/* pl_mode_progress's state of inputs in[0..n-1], read by `jobs` threads
   (pl_run_ordered) and merged in order; a trace that cannot be read to
   its end counts what could be read.  NULL if out of memory. */
struct pl_input;
void *pl_progress_of_inputs(const struct pl_input *in, size_t n,
                            const pl_decode_opts *d, unsigned jobs);
extern const pl_collect_mode pl_mode_info;       /* mode_info.c */

extern const pl_program_mode pl_mode_xml;        /* mode_xml.c */
extern const pl_program_mode pl_mode_callgrind;  /* mode_callgrind.c */
extern const pl_program_mode pl_mode_paths;      /* mode_paths.c */
extern const pl_program_mode pl_mode_path_of;    /* mode_path_of.c */
extern const pl_program_mode pl_mode_folded;     /* mode_folded.c */

#endif
