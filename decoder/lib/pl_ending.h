/* SPDX-License-Identifier: MIT */
/* How a traced process ended: its exit status, the fatal signal that
   killed it (and the thread that took it), an exec, or a trace cut short
   (no PROCESS_END: SIGKILL, or the tool could not finish it).  Read from
   the PROCESS_END chunk (format 2.3; older traces recorded 0 as every
   exit status, so theirs reads as not recorded), or from the THREAD_END
   chunks of a trace cut short while its process died of a signal (2.4).

   A pl_ending is a plain value: it holds no pointer into the trace.
   Thread-safe: pure functions of a read-only pl_trace. */
#ifndef PL_ENDING_H
#define PL_ENDING_H

#include <stddef.h>
#include <stdint.h>

#include "pl_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pl_ending_kind {
   PL_ENDING_CUT_SHORT = 0,  /* no PROCESS_END nor final EXEC */
   PL_ENDING_EXIT      = 1,
   PL_ENDING_SIGNAL    = 2,  /* killed by a fatal signal */
   PL_ENDING_EXEC      = 3   /* the process image was replaced */
};

typedef struct {
   int         kind;          /* enum pl_ending_kind */
   int         status;        /* EXIT: the exit status, -1 if not recorded */
   int         signal;        /* SIGNAL: its number */
   char        signal_name[24];  /* SIGNAL: "SIGSEGV", "" if not recorded */
   uint32_t    signal_thread; /* SIGNAL: the thread it killed, 0 unknown */
   int         end_lost;      /* SIGNAL: the trace has no PROCESS_END (cut
                                 short while the tool wrote its end: a
                                 launcher's SIGKILL right after the
                                 signal); the signal is the one its
                                 threads' ends record (format 2.4) */
} pl_ending;

/* How the process of trace t ended. */
void pl_trace_ending(const pl_trace *t, pl_ending *e);

/* e in words, at most size - 1 bytes and a NUL into buf: "exit status
   5", "exit" (status not recorded), "killed by SIGSEGV (signal 11) in
   thread 1", "killed by SIGTERM (signal 15), trace cut short while
   ending", "exec", "trace cut short".  Returns the length it needed. */
size_t pl_ending_text(const pl_ending *e, char *buf, size_t size);

/* Whether a and b are the same ending (kind, exit status, signal, end
   lost), the thread a signal was delivered to aside: which process ended
   alike. */
int pl_ending_same(const pl_ending *a, const pl_ending *b);

#ifdef __cplusplus
}
#endif

#endif
