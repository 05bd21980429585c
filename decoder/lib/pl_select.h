/* SPDX-License-Identifier: MIT */
/* Selections of processes and threads, as given on the command line.

   SPEC is a comma-separated list of items:
     PID          every thread of the process with that pid
     PID:THREADS  some threads of it
     *:THREADS    those threads of every process
   THREADS is a thread number N, a range N-M, or *.  Thread numbers are
   ParLoT's (1 = the process's initial thread, in creation order).
   A selection is the union of its items; an empty selection selects
   everything. */
#ifndef PL_SELECT_H
#define PL_SELECT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
   char    *pid;           /* NULL: any process */
   uint32_t lo, hi;        /* thread numbers lo..hi */
} pl_sel_item;

typedef struct {
   pl_sel_item *items;
   size_t       n;
} pl_select;

/* Add the items of spec to s: 0, or -1 with a one-line reason in why. */
int  pl_select_parse(pl_select *s, const char *spec, char *why, size_t whylen);
int  pl_select_match(const pl_select *s, const char *pid, uint32_t thread);
/* Whether some item may select a thread of the process pid. */
int  pl_select_match_process(const pl_select *s, const char *pid);
void pl_select_free(pl_select *s);

#ifdef __cplusplus
}
#endif

#endif
