/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Function and object tables: which guest addresses are function entries,
   their IDs, and the definitions written to the trace before use. */
#ifndef PL_FUNCTIONS_H
#define PL_FUNCTIONS_H

#include "pub_tool_basics.h"

void pl_fn_init(Bool main_image_only, Bool keep_plt);

/* At translation time: the function ID if 'a' is the first instruction of
   a traced function, else 0.  Assigns IDs (from 1, in order of first
   translation) and queues their definitions. */
UInt pl_fn_entry_id(Addr a);

/* Write queued OBJECTS and FUNCTIONS chunks.  Called before any STREAM
   chunk, so definitions always precede their first use in the file. */
void pl_fn_flush_defs(void);

/* Queue every definition again (a forked child's new file). */
void pl_fn_requeue_all(void);

UInt pl_fn_count(void);

#endif
