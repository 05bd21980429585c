/* SPDX-License-Identifier: MIT */
/* <valgrind/parlot.h>: control ParLoT (valgrind --tool=parlot) from the
   traced program.

   Each macro is a Valgrind client request: a few no-op instructions when
   the program runs natively or under another tool, so programs may keep
   them in production builds.

     PARLOT_START_TRACE          every thread of the process records
     PARLOT_STOP_TRACE           no thread of the process records
     PARLOT_START_THREAD_TRACE   the calling thread records, whatever the
                                 process does (until the next process-wide
                                 start or stop)
     PARLOT_STOP_THREAD_TRACE    the calling thread stops recording
     PARLOT_MARK(label)          a named point of interest in the calling
                                 thread's stream; the k-th mark of a label
                                 in a thread is its occurrence k
     PARLOT_FLUSH                write every thread's recorded events to
                                 the trace file now

   Run with --trace-at-start=no to record only between starts and stops.
   A thread that starts recording inside nested calls first records the
   calls already open (as re-created entries), so its stream always
   replays as a valid call stack; stopping ends nothing: a frame recorded
   before the stop gets its return when it returns.  Labels are C strings
   (the first 255 bytes are kept).

   From Fortran: compile parlot_fortran.c (installed beside the manual)
   into the program and call parlot_start_trace(), parlot_stop_trace(),
   parlot_mark('label'), parlot_flush(). */
#ifndef __PARLOT_H
#define __PARLOT_H

#include "valgrind.h"

typedef enum {
   VG_USERREQ__PARLOT_START_TRACE = VG_USERREQ_TOOL_BASE('P', 'L'),
   VG_USERREQ__PARLOT_STOP_TRACE,
   VG_USERREQ__PARLOT_START_THREAD_TRACE,
   VG_USERREQ__PARLOT_STOP_THREAD_TRACE,
   VG_USERREQ__PARLOT_MARK,
   VG_USERREQ__PARLOT_FLUSH
} Vg_ParlotClientRequest;

#define PARLOT_START_TRACE                                              \
   VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__PARLOT_START_TRACE,      \
                                   0, 0, 0, 0, 0)
#define PARLOT_STOP_TRACE                                               \
   VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__PARLOT_STOP_TRACE,       \
                                   0, 0, 0, 0, 0)
#define PARLOT_START_THREAD_TRACE                                       \
   VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__PARLOT_START_THREAD_TRACE, \
                                   0, 0, 0, 0, 0)
#define PARLOT_STOP_THREAD_TRACE                                        \
   VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__PARLOT_STOP_THREAD_TRACE, \
                                   0, 0, 0, 0, 0)
#define PARLOT_MARK(label)                                              \
   VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__PARLOT_MARK,             \
                                   (label), 0, 0, 0, 0)
#define PARLOT_FLUSH                                                    \
   VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__PARLOT_FLUSH,            \
                                   0, 0, 0, 0, 0)

#endif
