/* SPDX-License-Identifier: MIT */
/* How a traced process ended (pl_ending.h). */
#define _GNU_SOURCE                 /* sigabbrev_np */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parlot.h"
#include "pl_format.h"

/* A non-negative decimal key of PROCESS_END, or -1. */
static long end_number(const pl_trace *t, const char *key)
{
   const char *v = pl_trace_process_end_get(t, key);
   char *end;
   long n;

   if (!v || !*v)
      return -1;
   n = strtol(v, &end, 10);
   return *end || n < 0 ? -1 : n;
}

/* A trace cut short whose threads' ends record a fatal signal (2.4): the
   process was dying of it when the rest of its end was lost. */
static void signal_from_thread_ends(const pl_trace *t, pl_ending *e)
{
   for (size_t i = 0; i < pl_trace_nthreads(t); i++) {
      const pl_thread_info *ti = pl_trace_thread(t, i);
      if (ti->ended && ti->end_reason == PL_END_SIGNAL && ti->end_signal) {
         e->kind = PL_ENDING_SIGNAL;
         e->signal = (int)ti->end_signal;
         e->end_lost = 1;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
         const char *abbrev = sigabbrev_np(e->signal);
         if (abbrev)
            snprintf(e->signal_name, sizeof e->signal_name, "SIG%s", abbrev);
#endif
         return;
      }
   }
}

void pl_trace_ending(const pl_trace *t, pl_ending *e)
{
   const char *how;
   long n;

   memset(e, 0, sizeof *e);
   e->status = -1;
   switch (pl_trace_end(t)) {
   case PL_TRACE_EXECED:
      e->kind = PL_ENDING_EXEC;
      return;
   case PL_TRACE_EXITED:
      break;
   default:
      e->kind = PL_ENDING_CUT_SHORT;
      signal_from_thread_ends(t, e);
      return;
   }
   how = pl_trace_process_end_get(t, "ending");
   if (how && strcmp(how, "signal") == 0) {
      e->kind = PL_ENDING_SIGNAL;
      n = end_number(t, "signal");
      e->signal = n > 0 ? (int)n : 0;
      how = pl_trace_process_end_get(t, "signal_name");
      snprintf(e->signal_name, sizeof e->signal_name, "%s", how ? how : "");
      n = end_number(t, "signal_thread");
      e->signal_thread = n > 0 ? (uint32_t)n : 0;
      return;
   }
   e->kind = PL_ENDING_EXIT;
   if (how)                        /* before 2.3, every status read 0 */
      e->status = (int)end_number(t, "exit_status");
}

size_t pl_ending_text(const pl_ending *e, char *buf, size_t size)
{
   char thread[32] = "";
   int n;

   switch (e->kind) {
   case PL_ENDING_EXIT:
      n = e->status >= 0 ? snprintf(buf, size, "exit status %d", e->status)
                         : snprintf(buf, size, "exit");
      break;
   case PL_ENDING_SIGNAL:
      if (e->signal_thread)
         snprintf(thread, sizeof thread, " in thread %u", e->signal_thread);
      const char *lost = e->end_lost ? ", trace cut short while ending" : "";
      n = *e->signal_name
          ? snprintf(buf, size, "killed by %s (signal %d)%s%s",
                     e->signal_name, e->signal, thread, lost)
          : snprintf(buf, size, "killed by signal %d%s%s", e->signal, thread,
                     lost);
      break;
   case PL_ENDING_EXEC:
      n = snprintf(buf, size, "exec");
      break;
   default:
      n = snprintf(buf, size, "trace cut short");
      break;
   }
   return n < 0 ? 0 : (size_t)n;
}

int pl_ending_same(const pl_ending *a, const pl_ending *b)
{
   return a->kind == b->kind && a->status == b->status
          && a->signal == b->signal && a->end_lost == b->end_lost;
}
