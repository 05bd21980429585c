/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --collect-insns: the guest instructions each thread executes, counted
   by the instrumented code, and with each event of its stream the count
   since its previous event, written in COSTS chunks (format 2.5). */
#ifndef PL_COSTS_H
#define PL_COSTS_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include <stdint.h>

#include "pl_worker.h"

/* --collect-insns=yes */
extern Bool pl_collect_insns;

/* The running thread's instruction count: instrumented code adds to it,
   pl_costs_switch() swaps it at thread switches. */
extern ULong pl_insns;

typedef struct pl_costs pl_costs;

/* The client side's part of a thread's costs, written at every event: the
   first member of pl_costs, so that the helpers store an event's cost
   inline (two calls per event cost fib(35) 0.2 s of CPU, 30 M events). */
typedef struct {
   ULong  insns;              /* the thread's count while it does not run */
   ULong  last;               /* its count at its previous event */
   uint64_t *cost;            /* [part * PL_BATCH + i]: beside the batch */
} pl_costs_client;

/* The costs of thread `number` at the start of its stream (NULL when not
   collecting); restart: the same thread goes on in a new stream, under a
   new number (a forked child). */
pl_costs *pl_costs_new(UInt number);
void      pl_costs_restart(pl_costs *c, UInt number);
void      pl_costs_free(pl_costs *c);

/* The thread's event at batch[part][i] (pl_threads.h) costs the
   instructions since its previous one. */
static inline void pl_costs_event(pl_costs *c, UInt part, UInt i)
{
   pl_costs_client *k = (pl_costs_client *)c;
   k->cost[part * PL_BATCH + i] = pl_insns - k->last;
   k->last = pl_insns;
}

/* Code the costs of the n events of a part of the batch (by the job that
   codes the events, pl_worker.h), writing COSTS chunks as they fill. */
void pl_costs_code(pl_costs *c, const UInt *events, UInt part, UInt n);

/* Write the costs coded so far as a COSTS chunk. */
void pl_costs_flush(pl_costs *c);

/* The running thread changes from `from` (NULL: none) to `to`. */
void pl_costs_switch(pl_costs *from, pl_costs *to);

/* Instrumentation: add n executed instructions to pl_insns. */
void pl_costs_add_insns(IRSB *sb, UInt n);

#endif
