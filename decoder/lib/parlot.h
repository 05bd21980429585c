/* SPDX-License-Identifier: MIT */
/* libparlot: read ParLoT traces (valgrind --tool=parlot) from C.

   One header for the whole library:
     pl_trace.h     a trace file: processes, threads, tables, events
     pl_archive.h   archives of many traces, and input lists
     pl_names.h     demangling and escaping of names
     pl_select.h    selections of processes and threads
     pl_program.h   many traces as one program: function table, call
                    graphs per thread, groups of threads
     pl_callgraph.h building one thread's call graph from its events
     pl_cct.h       calling-context trees
     pl_paths.h     call paths' stack tags
     pl_parallel.h  reading many traces with several threads
     pl_outliers.h  ranks whose call graphs differ from the majority's
     pl_filter.h    which functions and events reports show (0.2)
     pl_view.h      one thread's events through a filter (0.2)
   Build with: cc my_tool.c $(pkg-config --cflags --libs parlot)
   Manual: libparlot(3) and docs/libparlot.md. */
#ifndef PARLOT_H
#define PARLOT_H

#include "pl_trace.h"
#include "pl_ending.h"
#include "pl_archive.h"
#include "pl_names.h"
#include "pl_select.h"
#include "pl_filter.h"
#include "pl_view.h"
#include "pl_runtime.h"
#include "pl_program.h"
#include "pl_callgraph.h"
#include "pl_cct.h"
#include "pl_paths.h"
#include "pl_parallel.h"
#include "pl_outliers.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version ("0.1"), and the newest trace format version it
   reads (a trace of the same major version and a larger minor one is
   read too, its new chunk types skipped). */
const char *pl_lib_version(void);
void        pl_lib_format_version(unsigned *major, unsigned *minor);

#ifdef __cplusplus
}
#endif

#endif
