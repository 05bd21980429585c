/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Selective tracing: options, client requests, and what the trace header
   says about them (pl_control.c). */
#ifndef PL_CONTROL_H
#define PL_CONTROL_H

#include "pub_tool_basics.h"
#include "pl_output.h"
#include "pl_threads.h"

/* A selective-tracing option: True if arg was one (bad values exit with
   a one-line error). */
Bool pl_control_option(const HChar *arg);
void pl_control_usage(void);
/* After the command line: reject contradictions, set the rules. */
void pl_control_post_clo(void);
/* PROCESS key "recording" (what is not recorded), if anything is left
   out by the command line; PROCESS_END key "recording_changes" (start
   and stop requests). */
void pl_control_describe(pl_buf *process);
void pl_control_describe_end(pl_buf *process_end);
/* Copy the client's C string at a into out (n bytes, NUL included; a
   longer string is cut).  False if a is NULL or its bytes could not be
   read to the end or the cut (out holds what could). */
Bool pl_client_string(Addr a, HChar *out, SizeT n);
/* Whether thread t records now, from the process state, its own state
   and --toggle-trace. */
Bool pl_thread_should_record(const pl_thread *t);
/* <valgrind/parlot.h> requests. */
Bool pl_control_client_request(ThreadId tid, UWord *args, UWord *ret);

#endif
