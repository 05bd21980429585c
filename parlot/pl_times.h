/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --collect-time: wall-clock stamps of each thread's stream, "after the
   first N events it was time T", taken where they bound what the events
   cost in time: at the thread's start and end, every PL_TIMES_EVERY
   events, around each system call that may block, at each thread switch,
   every 20,000 blocks it runs (at most every 5 ms) and where its code is
   translated (at most every millisecond: translating new code takes time
   without instructions).  Written in TIMES chunks (format 2.5). */
#ifndef PL_TIMES_H
#define PL_TIMES_H

#include "pub_tool_basics.h"

/* --collect-time=yes */
extern Bool pl_collect_time;

/* A stamp every this many events of a thread (a power of two): few
   enough that a program of short calls (fib) gets a stamp per
   millisecond or so, not per microsecond. */
#define PL_TIMES_EVERY 65536

typedef struct pl_times pl_times;

/* A thread's stamps (NULL when not collecting); restart: a new stream
   of the same thread (a forked child). */
pl_times *pl_times_new(void);
void      pl_times_restart(pl_times *tm);
void      pl_times_free(pl_times *tm);

/* Stamp thread `number`'s stream after its first `position` events. */
void pl_times_stamp(pl_times *tm, UInt number, ULong position);

/* The same, unless its last stamp is less than min_ns old. */
void pl_times_stamp_due(pl_times *tm, UInt number, ULong position,
                        ULong min_ns);

/* Write the stamps so far as a TIMES chunk. */
void pl_times_flush(pl_times *tm, UInt number);

#endif
