/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How the process and each of its threads end: exit status, or the fatal
   signal and the thread it killed.  Valgrind tells tools neither (tool_fini
   is always given 0), so this is read from the core's thread state, and
   only here. */
#ifndef PL_ENDING_H
#define PL_ENDING_H

#include "pub_tool_basics.h"

typedef struct {
   Bool     by_signal;     /* killed by a fatal signal (signo) */
   Int      signo;
   const HChar *signame;   /* "SIGTERM" */
   Long     status;        /* otherwise: the exit status */
} pl_ending;

/* Called from tool_fini, on the last thread: how the process ended. */
void pl_ending_of_process(pl_ending *e);

/* Why thread tid, about to leave (pre_thread_ll_exit), ends: an enum
   pl_thread_end_reason.  A thread taken down with the process is
   PL_END_PROCESS_EXIT, or PL_END_SIGNAL when a fatal signal does it;
   *took_signal: it is the thread the signal was delivered to. */
UInt pl_ending_of_thread(ThreadId tid, Bool *took_signal);

/* The fatal signal killing the process, 0 if none: known from the moment
   the first thread is taken down by it, so each thread's end can carry
   it (a launcher's SIGKILL may come before the process's end is
   written). */
Int pl_fatal_signal(void);

#endif
