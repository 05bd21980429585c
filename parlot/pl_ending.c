/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How the process and its threads end, from the core's thread state: the
   one place the tool reads a core structure.  The scheduler records why
   each thread leaves (exitreason), the exit status (os_state.exitcode)
   and the signal that kills the process (os_state.fatalsig of the thread
   that took it; the threads it takes down with it get SIGKILL there),
   then calls tool_fini with 0 whatever happened. */

#include "pub_tool_basics.h"
#include "pub_tool_threadstate.h"
#include "pub_core_threadstate.h"     /* VG_(threads), ThreadState */
#include "pub_core_signals.h"         /* VG_(signame) */
#include "pub_tool_vki.h"

#include "pl_format.h"
#include "pl_ending.h"

void pl_ending_of_process(pl_ending *e)
{
   ThreadId tid = VG_(get_running_tid)();
   const ThreadState *ts = &VG_(threads)[tid];

   e->by_signal = ts->exitreason == VgSrc_FatalSig
                  && ts->os_state.fatalsig > 0;
   e->signo = e->by_signal ? ts->os_state.fatalsig : 0;
   e->signame = e->by_signal ? VG_(signame)(e->signo) : NULL;
   e->status = e->by_signal ? 0 : (Long)(ts->os_state.exitcode & 0xff);
}

Int pl_fatal_signal(void)
{
   for (ThreadId tid = 1; tid < VG_N_THREADS; tid++) {
      const ThreadState *ts = &VG_(threads)[tid];
      if (ts->exitreason == VgSrc_FatalSig && ts->os_state.fatalsig > 0
          && ts->os_state.fatalsig != VKI_SIGKILL)
         return ts->os_state.fatalsig;
   }
   return 0;
}

UInt pl_ending_of_thread(ThreadId tid, Bool *took_signal)
{
   const ThreadState *ts = &VG_(threads)[tid];
   /* the others were taken down first, their fatalsig set to SIGKILL */
   *took_signal = ts->exitreason == VgSrc_FatalSig
                  && ts->os_state.fatalsig > 0
                  && ts->os_state.fatalsig != VKI_SIGKILL;
   switch (ts->exitreason) {
   case VgSrc_FatalSig:    return PL_END_SIGNAL;
   case VgSrc_ExitProcess: return PL_END_PROCESS_EXIT;
   default:                return PL_END_THREAD_EXIT;
   }
}
