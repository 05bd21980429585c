/* SPDX-License-Identifier: MIT */
/* A view's batches decoded ahead by a worker thread (pl_ahead,
   pl_parallel.h), for a reader that does real work on each batch
   (pl_program.c builds call graphs): decoding, most of a read's time,
   then runs on a second core.  Internal to libparlot. */
#ifndef PL_VIEW_AHEAD_H
#define PL_VIEW_AHEAD_H

#include <stdint.h>

#include "pl_view.h"

typedef struct pl_view_ahead pl_view_ahead;

/* Start reading v ahead (nothing read from it yet, and nothing but
   pl_view_ahead_next until pl_view_ahead_stop); NULL if out of memory or
   no thread could be started: read v directly then. */
pl_view_ahead *pl_view_ahead_start(pl_view *v);
/* The next batch as pl_view_next_events() gives it (every event before
   an error first), with its costs as pl_view_costs() (NULL if none) and
   pl_view_position() after it. */
long pl_view_ahead_next(pl_view_ahead *a, const pl_event **ev,
                        const uint64_t **costs, uint64_t *position,
                        pl_error *err);
/* Stop the worker and free a (NULL: nothing); then v may be closed. */
void pl_view_ahead_stop(pl_view_ahead *a);

#endif
