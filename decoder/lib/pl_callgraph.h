/* SPDX-License-Identifier: MIT */
/* Building one thread's call graph from its events (pl_program.h's
   pl_graph), in one pass, with memory bounded by the number of functions,
   edges and the call depth.

   The builder works on the trace's own function IDs (dense arrays, one
   hash probe per call) and maps them to the program's IDs only once, at
   the end of the thread. */
#ifndef PL_CALLGRAPH_H
#define PL_CALLGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "pl_program.h"
#include "pl_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pl_cg_builder pl_cg_builder;

/* A builder for threads of a trace with nfns functions; NULL if out of
   memory. */
pl_cg_builder *pl_cg_new(uint32_t nfns);
void           pl_cg_free(pl_cg_builder *b);

/* Start a thread whose stream begins with inherited calls re-creating
   the stack of a forked parent (they are not counted as calls). */
void pl_cg_begin(pl_cg_builder *b, uint32_t inherited);
/* The next n calls to come re-create frames that were open when the
   thread's recording started (pl_view.h's PL_VEV_RECREATED): frames, not
   calls, as inherited ones.  (Since libparlot 0.2.) */
void pl_cg_recreated(pl_cg_builder *b, uint32_t n);
/* Add events (as checked by pl_events_next).  0, or -1 if out of memory. */
int  pl_cg_events(pl_cg_builder *b, const pl_event *ev, size_t n);
/* The same with each event's cost (pl_view_costs()): the graph then has
   costs.  (Since libparlot 0.9.) */
int  pl_cg_events_costs(pl_cg_builder *b, const pl_event *ev,
                        const uint64_t *cost, size_t n);
/* End the thread: frames still open count up to the end of the stream.
   Writes the graph in the program's IDs (fn_map[trace ID]).  0, or -1 if
   out of memory. */
int  pl_cg_end(pl_cg_builder *b, const uint32_t *fn_map, pl_graph *out);

#ifdef __cplusplus
}
#endif

#endif
