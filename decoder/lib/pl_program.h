/* SPDX-License-Identifier: MIT */
/* A program as the reports see it: the processes whose traces are given,
   their threads, one function table for all of them, and per thread the
   call graph its events imply.

   Functions are identified across traces by object and name (addresses
   differ between processes), so "main" of every rank is one function.
   Two functions of one trace with the same object and name (static
   functions of different files) stay apart: the k-th further one gets
   dup = k, and its label says so ("helper #2").

   pl_program_read() decodes one trace file at a time and closes it, so
   any number of traces needs one open file; memory holds the function
   table and one call graph per thread, never the events. */
#ifndef PL_PROGRAM_H
#define PL_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "pl_filter.h"
#include "pl_select.h"
#include "pl_trace.h"
#include "pl_ending.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
   char    *object;        /* object path as recorded; "???" if unknown */
   char    *name;          /* symbol name as recorded (C++: mangled) */
   char    *shown;         /* demangled name, or the same as name */
   char    *label;         /* shown, with " #k+1" if dup > 0 */
   uint32_t dup;
   uint64_t ident;         /* stack-tag identity (pl_paths.h) */
} pl_gfunc;

/* Calls from caller to callee.  caller 0 stands for "no caller": the
   outermost calls of a thread. */
typedef struct {
   uint32_t caller, callee;
   uint64_t calls;
   uint64_t incl_calls;    /* calls in these calls' subtrees, them included */
   uint64_t incl_events;   /* events from each call to its return,
                              inclusive (frames still open at the end of
                              the stream count up to that end); as
                              Callgrind's call costs, a call nested in
                              another of the same edge (recursion) is
                              counted again */
   uint64_t outer_calls;   /* incl_calls and incl_events of the edge's */
   uint64_t outer_events;  /* outermost calls only: each event counted
                              once however deep the edge recursed, so
                              never more than the thread's (since 0.8) */
   uint64_t incl_cost;     /* with costs (pl_graph.costs, since 0.9): the
                              cost from each call to its return, counted
                              as incl_events */
   uint64_t outer_cost;    /* the same for the outermost calls */
} pl_edge;

typedef struct {
   uint32_t fn;
   uint64_t calls;
   uint64_t incl_events;   /* events while fn was on the stack, counted
                              once however deep it recursed */
   uint64_t self_cost;     /* with costs (since 0.9): cost while fn was on
                              top of the stack (exclusive) */
   uint64_t incl_cost;     /* cost while it was on the stack, counted once
                              (inclusive) */
} pl_fstat;

typedef struct {
   uint64_t  events;       /* calls and returns in the streams */
   uint64_t  calls;        /* calls (a forked child's re-entries of the
                              stack it inherited are events, not calls) */
   uint64_t  max_depth;
   pl_fstat *fns;          /* functions called, by increasing ID */
   size_t    nfns;
   pl_edge  *edges;        /* by increasing (caller, callee) */
   size_t    nedges;
   int       costs;        /* the events had costs (since 0.9): guest
                              instructions, --collect-insns */
   uint64_t  cost;         /* their total */
} pl_graph;

typedef struct {
   size_t   proc;          /* index in pl_program.procs */
   uint32_t number;        /* thread number in its process, 1-based */
   uint32_t parent;        /* creating thread's number, 0 if none */
   uint32_t inherited;     /* leading calls re-creating a forked parent's
                              stack: events, not calls */
   int      complete;      /* the whole stream was decoded */
   uint64_t order;         /* a hash of the order of the thread's calls in
                              the program's view (pl_filter.h), for a
                              process with an MPI rank read without a
                              filter; 0 if not computed (since 0.7) */
   pl_graph g;
} pl_thread;

typedef struct {
   char    *path;          /* the trace file */
   char    *pid;
   char    *ppid;          /* "" if not recorded */
   char    *exe;
   char    *cmd;           /* arg0 and the arguments, space-separated */
   char    *rank;          /* MPI rank if recorded, else NULL */
   char    *role;          /* "launcher" or "program" if recorded, else NULL */
   int      end;           /* enum pl_trace_end */
   size_t   first_thread;  /* its threads: pl_program.threads[first..] */
   size_t   nthreads;      /* selected threads read */
   size_t   nthreads_all;  /* threads in the trace */
} pl_process;

typedef struct pl_program pl_program;

/* How far pl_program_read() has got, for a progress display (the library
   prints nothing itself).  Called in the reading thread; any hook may be
   NULL.  file: a trace is being read; thread: its thread `index` of
   `nthreads` begins, with stream_bytes of stream data; update: after each
   batch, the thread's stream bytes decoded and events so far. */
typedef struct {
   void *ctx;
   void (*file)(void *ctx, const char *path);
   void (*thread)(void *ctx, size_t index, size_t nthreads,
                  uint64_t stream_bytes);
   void (*update)(void *ctx, uint64_t bytes_done, uint64_t events);
} pl_progress_hooks;

struct pl_program {
   pl_gfunc   *fns;        /* [1..nfns]; [0] is the "no caller" entry */
   uint32_t    nfns;
   pl_process *procs;
   size_t      nprocs;
   pl_thread  *threads;
   size_t      nthreads;
   int         demangle;   /* set before the first read */
   size_t      fns_cap, procs_cap, threads_cap;
   struct pl_program_internal *internal;   /* function index, filter */
   const pl_progress_hooks *progress;   /* NULL: none */
};

/* Events of a thread as it is decoded, for modes that want more than the
   graph.  fn_map maps the trace's function IDs to the program's. */
typedef struct {
   void *ctx;
   int  (*thread_begin)(void *ctx, const pl_program *p, size_t thread,
                        const uint32_t *fn_map);
   int  (*events)(void *ctx, const pl_event *ev, size_t n);
   void (*thread_end)(void *ctx);
   /* Since 0.9, optional: called instead of events for a batch that has
      costs (pl_view_costs()), with each event's. */
   int  (*events_costs)(void *ctx, const pl_event *ev, const uint64_t *cost,
                        size_t n);
} pl_visitor;

void pl_program_init(pl_program *p, int demangle);
void pl_program_free(pl_program *p);

/* Build graphs through f from the next read on (NULL or a filter that
   drops nothing: everything, the default).  The graphs, the events passed
   to visitors and pl_thread.inherited then hold what f shows, with f's
   depths; pl_graph.events counts shown events.  f must outlive the reads
   (pl_program_read_files passes it to its workers' programs).  0, or -1
   if out of memory.  (Since libparlot 0.2.) */
int pl_program_set_filter(pl_program *p, const pl_filter *f);
/* The filter set, NULL if none. */
const pl_filter *pl_program_filter(const pl_program *p);

/* Process proc's pl_trace_recording(): NULL if its trace records every
   call of every thread, else what it leaves out.  (Since libparlot 0.2.) */
const char *pl_program_recording(const pl_program *p, size_t proc);

/* How process proc ended (pl_ending.h; valid while p lives).  Since 0.8. */
void pl_program_ending(const pl_program *p, size_t proc, pl_ending *e);

/* Read the trace at path: add its process, its functions and its selected
   threads (with their graphs), and pass their events to v if not NULL.
   Returns 0 for a complete, valid trace; 1 when the trace is damaged or a
   stream is corrupt (what was decoded before the damage is kept and
   *err says where the damage is); -1 when the file cannot be read as a
   trace at all (nothing added) or memory ran out (*err says which). */
int pl_program_read(pl_program *p, const char *path, const pl_select *sel,
                    const pl_visitor *v, pl_error *err);
/* The same for one input of pl_inputs_add() (pl_archive.h): a loose trace
   or an archive member, whose process path is in->name. */
struct pl_input;
int pl_program_read_input(pl_program *p, const struct pl_input *in,
                          const pl_select *sel, const pl_visitor *v,
                          pl_error *err);

/* Move what part holds (processes, threads, functions) to the end of p,
   mapping part's function IDs to p's.  Reading traces A into p, then B
   into an empty part (same demangle) and merging it gives exactly what
   reading A then B into p gives: this is how pl_parallel.c reads files in
   worker threads.  part keeps nothing but what it needs to be freed.
   0, or -1 if out of memory (part then still holds what was not moved). */
int pl_program_merge(pl_program *p, pl_program *part);
/* The same, and *map (malloc'ed, part->nfns + 1 entries, [0] = 0) gets
   the program ID in p of each of part's function IDs, for what was built
   with part's IDs (a pl_cct).  On -1, *map is NULL.  (Since libparlot
   0.5.) */
int pl_program_merge_map(pl_program *p, pl_program *part, uint32_t **map);

/* ---- Programs between processes (since libparlot 0.5) ------------------ */

/* Write everything p holds (functions, processes and what they record,
   threads with their graphs) into *buf (malloc'ed, *len bytes), for
   another process to pl_program_unpack(): an MPI rank sending what it read
   to the rank that merges it.  The bytes do not depend on the host's
   pointers or byte order, but are not a file format: both ends must run
   the same libparlot.  0, or -1 if out of memory. */
int pl_program_pack(const pl_program *p, unsigned char **buf, size_t *len);

/* Fill p, freshly pl_program_init'ed with the demangle setting of the
   program packed, from buf: the same functions (same IDs), processes and
   threads, so that pl_program_merge of it gives what merging the packed
   program would.  0; 1 if buf is not such bytes; -1 if out of memory (on
   1 or -1, p holds what was read, for pl_program_free). */
int pl_program_unpack(pl_program *p, const unsigned char *buf, size_t len);

/* ---- Graphs ------------------------------------------------------------- */

/* Sum of graphs: calls, events and counts add up, max_depth is the
   largest.  0, or -1 if out of memory. */
int  pl_graph_sum(pl_graph *out, const pl_graph *const *gs, size_t n);
void pl_graph_free(pl_graph *g);
/* The entry for function fn, NULL if it was not called. */
const pl_fstat *pl_graph_fn(const pl_graph *g, uint32_t fn);

/* ---- Groups of threads -------------------------------------------------- */

enum pl_group_kind {
   PL_GROUP_PROCESS,       /* one group per process */
   PL_GROUP_GRAPH,         /* threads with identical graphs (edges and
                              call counts) */
   PL_GROUP_SHAPE,         /* threads calling along the same edges, however
                              often */
   PL_GROUP_USER           /* a selection given by the user */
};

typedef struct {
   char    *name;
   int      kind;          /* enum pl_group_kind */
   size_t  *members;       /* thread indices, increasing */
   size_t   nmembers;
   pl_graph g;             /* the members' graphs summed */
} pl_group;

/* Groups of one kind, in order of their first member (classes: largest
   first, then by first member).  0, or -1 if out of memory. */
int pl_program_group(const pl_program *p, int kind, pl_group **out,
                     size_t *n);
/* One group of the threads sel selects (possibly none). */
int pl_program_group_select(const pl_program *p, const char *name,
                            const pl_select *sel, pl_group *out);
void pl_groups_free(pl_group *gs, size_t n);

/* The whole program's graph. */
int pl_program_total(const pl_program *p, pl_graph *out);

#ifdef __cplusplus
}
#endif

#endif
