/* SPDX-License-Identifier: MIT */
/* parlot-annotate's report, in the shape of callgrind_annotate's: what
   its parts share.  The parts, one file each:
     report.c            the whole report, part after part (report_write)
     report_table.c      numbers with separators and percentages, columns
     report_header.c     what was read, the groups, the totals
     report_objects.c    calls into each object
     report_functions.c  the functions by calls and by inclusive events,
                         with callers and callees (--tree)
     report_ranks.c      the program across its ranks (pl_outliers.h)
   The exact meaning of every column is in docs/parlot-annotate.1. */
#ifndef REPORT_H
#define REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "pl_names.h"
#include "pl_outbuf.h"
#include "pl_outliers.h"
#include "pl_program.h"
#include "pl_select.h"

#define RULE "--------------------------------------------------------------" \
             "------------------\n"
#define HEAD_WIDTH   18      /* "Trace files:      " */
#define LIST_MAX     6       /* files, pids, ranks, members shown by name */
#define PCT_SCALE    10000u  /* thresholds are in hundredths of a percent */

enum { TREE_NONE = 0, TREE_CALLER = 1, TREE_CALLING = 2,
       TREE_BOTH = TREE_CALLER | TREE_CALLING };

typedef struct {
   pl_select select;
   char     *select_text;  /* the --select specs, joined by ',' */
   int       group_by;     /* enum pl_group_kind, or -1: no groups */
   uint64_t  group;        /* --group: 1-based, 0 = the whole program */
   unsigned  threshold;    /* in hundredths of a percent, 0..PCT_SCALE */
   uint64_t  top;          /* at most this many functions; 0 = no limit */
   int       tree;
   int       demangle;
   unsigned  jobs;         /* -j: threads reading traces, 0 = all cores */
   int       ranks;        /* --ranks: RANKS_* */
   pl_filter *filter;      /* --images, --only, --hide, --depth, --range */
} report_opts;

enum { RANKS_AUTO, RANKS_YES, RANKS_NO };

/* What was read, for the header: nfiles inputs given, unreadable of them
   bad; files[0..nnames-1] the names of the inputs (a directory without
   traces or an archive with a bad index has none). */
typedef struct {
   int      nfiles, unreadable, damaged;
   char   **files;
   int      nnames;
   uint64_t returns;
   char    *least_progressed;   /* a run that did not finish: its least
                                   progressed threads and where they are
                                   (pl_mode_progress_least), or NULL */
   char    *crash_site;         /* where a process crashed
                                   (pl_mode_crash_site), or NULL */
   char    *exit_site;          /* a rank in MPI_Abort, else a process
                                   that exited early, and where
                                   (pl_mode_exit_site), or NULL */
   int      aborted;            /* exit_site is an MPI_Abort */
   int      stopped_at;         /* least_progressed lists the positions:
                                   none is behind another (2 from
                                   pl_mode_progress_least) */
} read_info;

/* ---- report_table.c ------------------------------------------------------ */

#define CELL_MAX 48

#define MAX_COLS 4

/* Columns of numbers, right-aligned, two spaces apart, followed by a
   label. */
typedef struct {
   int         ncols;
   const char *head[MAX_COLS];
   int         pct[MAX_COLS];       /* with percentages ... */
   uint64_t    base[MAX_COLS];      /* ... of this */
   size_t      width[MAX_COLS];
} table;

char *report_put_commas(char *p, uint64_t v);
/* a * PCT_SCALE compared with h * b, exactly (a share a / b against h
   hundredths of a percent): -1, 0 or 1. */
int report_scaled_cmp(uint64_t a, uint64_t h, uint64_t b);
void  report_table_init(table *t, int ncols);
void  report_table_col(table *t, int k, const char *head, int pct,
                       uint64_t base);
void  report_table_measure(table *t, const uint64_t *v);
void  report_put_spaces(outbuf *o, size_t n);
void  report_table_cells(outbuf *o, const table *t, const uint64_t *v);
void  report_table_head(outbuf *o, const table *t, const char *label);
void  report_put_name(outbuf *o, const char *s);

/* ---- report_functions.c -------------------------------------------------- */

typedef struct {
   const pl_program *p;
   const report_opts    *opt;
   const pl_graph   *g;          /* what is reported: program or group */
   const pl_fstat  **fns;        /* g's functions, in list order */
   size_t            nfns;
   const pl_edge   **callers;    /* g's edges by (callee, caller) */
   table             t;
   int               list;       /* the list being written: LIST_* */
   uint64_t          ir;         /* with costs: the functions' self Ir
                                    added up (their percentages' base) */
   const uint32_t   *cycle;      /* [fn]: its call cycle, 0 if none */
} report;

/* ---- report_cycles.c ----------------------------------------------------- */

/* Per function ID of g (1..nfns), the call cycle it is in (a strongly
   connected component of g's edges with two or more functions, or one
   that calls itself), numbered from 1; 0 when it is in none.  An edge
   whose two ends share a cycle number lies on a cycle (its inclusive
   figures count its outermost calls only: pl_edge).  Malloc'ed; NULL if
   out of memory. */
uint32_t *report_call_cycles(const pl_graph *g, uint32_t nfns);

void report_sort_context(const pl_program *p);
int  report_cmp_fn_ids(uint32_t a, uint32_t b);
int  report_cmp_u64_desc(uint64_t x, uint64_t y);
int  report_by_callee(const void *a, const void *b);
void report_put_fn(outbuf *o, const pl_program *p, uint32_t fn,
                   uint64_t times);
/* Its label alone ("(no caller)" for 0). */
void report_put_fn_name(outbuf *o, const pl_program *p, uint32_t fn);
/* The lists: by calls, by inclusive events, and for a trace made with
   --collect-insns by self instructions (Ir, with inclusive Ir). */
enum { LIST_CALLS, LIST_INCL, LIST_IR };
int  report_write_list(report *r, outbuf *o, int list);
/* The functions' self Ir added up. */
uint64_t report_self_ir(const pl_graph *g);

/* ---- report_rank_costs.c ------------------------------------------------- */

/* A function's self instructions per rank: min, median (lower), max, and
   the rank with the max (an index in pl_ranks.procs). */
typedef struct {
   uint32_t fn;
   uint64_t min, median, max;
   size_t   at_max;
} rank_fn_cost;

/* An MPI run recorded with --collect-insns, across its ranks (have: 0
   otherwise): each rank's self instructions in the program's own
   functions (total, by pl_ranks.procs), their median, the costliest rank
   (top) and its function furthest above that function's median (top_fn,
   0 if none); the own functions whose figures differ between ranks, by
   max less median. */
typedef struct {
   int           have;
   uint64_t     *total;
   uint64_t      median;
   size_t        top;
   uint32_t      top_fn;
   uint64_t      top_value, top_median;
   rank_fn_cost *fns;
   size_t        nfns;
} rank_costs;

/* 0, or -1 if out of memory. */
int  report_rank_costs(const pl_program *p, const pl_ranks *r, rank_costs *c);
void report_rank_costs_free(rank_costs *c);
/* The header's line naming the costliest rank. */
void report_write_costliest(outbuf *o, const pl_program *p, const pl_ranks *r,
                            const rank_costs *c);
/* The Ranks section's table of the functions' instructions per rank. */
int  report_write_rank_costs(outbuf *o, const pl_program *p,
                             const report_opts *opt, const pl_ranks *r,
                             const rank_costs *c);

/* ---- report_objects.c, report_header.c, report_ranks.c, report.c -------- */

int  report_write_objects(report *r, outbuf *o);
int  report_parse_group_by(const char *s, int *kind);
const char *report_group_kind_name(int kind);
void report_head_key(outbuf *o, const char *key);
void report_put_u64(outbuf *o, uint64_t v);
/* ranks: the program across its ranks, when the report has that
   section (its headline goes in the header), else NULL; rc their
   instructions (report_rank_costs). */
int  report_write_header(outbuf *o, const pl_program *p,
                         const report_opts *opt, const read_info *ri,
                         size_t ngroups, const pl_group *chosen,
                         const pl_ranks *ranks, const rank_costs *rc);
void report_write_groups(outbuf *o, const pl_program *p, const pl_graph *all,
                         const pl_group *gs, size_t n);
void report_write_totals(outbuf *o, const pl_graph *g, const char *label);
/* The Ranks section, of r (pl_ranks_analyse of p, written when there is
   something to compare: --ranks=yes, or several processes); its
   headline, for
   an MPI run, one line of the header that names the outlier ranks and
   what first makes each differ. */
int  report_write_ranks(outbuf *o, const pl_program *p,
                        const report_opts *opt, const pl_ranks *r,
                        const rank_costs *rc);
void report_write_ranks_headline(outbuf *o, const pl_program *p,
                                 const pl_ranks *r);
/* The whole report.  0; 2 for a --group beyond the groups, with the
   reason in why (nothing written); -1 if out of memory. */
int  report_write(outbuf *o, const pl_program *p, const report_opts *opt,
                  const read_info *ri, char *why, size_t whylen);

#endif
