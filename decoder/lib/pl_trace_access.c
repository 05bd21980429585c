/* SPDX-License-Identifier: MIT */
/* pl_trace.h's accessors: what the indexing pass found (pl_trace.c). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_trace_private.h"

const char *pl_trace_path(const pl_trace *t) { return t->path; }
unsigned pl_trace_version_major(const pl_trace *t) { return t->major; }
unsigned pl_trace_version_minor(const pl_trace *t) { return t->minor; }

const pl_error *pl_trace_damage(const pl_trace *t)
{
   return t->damaged ? &t->damage : NULL;
}

int pl_trace_end(const pl_trace *t)
{
   return t->damaged ? PL_TRACE_TRUNCATED : t->end;
}

const char *pl_trace_exec_path(const pl_trace *t, uint64_t *nexec)
{
   if (nexec)
      *nexec = t->nexec;
   return t->exec_path;
}

const pl_kv *pl_trace_process(const pl_trace *t, size_t *n)
{
   *n = t->nproc;
   return t->proc;
}

const char *pl_trace_process_get(const pl_trace *t, const char *key)
{
   return pl_kv_get(t->proc, t->nproc, key);
}

const pl_kv *pl_trace_process_end(const pl_trace *t, size_t *n)
{
   *n = t->npend;
   return t->pend;
}

const char *pl_trace_process_end_get(const pl_trace *t, const char *key)
{
   return pl_kv_get(t->pend, t->npend, key);
}

uint32_t pl_trace_nfunctions(const pl_trace *t) { return t->nfns; }
uint32_t pl_trace_nobjects(const pl_trace *t) { return t->nobjs; }

const pl_function *pl_trace_function(const pl_trace *t, uint32_t id)
{
   return id >= 1 && id <= t->nfns ? &t->fns[id] : NULL;
}

const pl_name *pl_trace_function_alias(const pl_trace *t, uint32_t id,
                                       size_t k)
{
   uint32_t i;
   if (id < 1 || id >= t->alias_of_cap)
      return NULL;
   for (i = t->alias_of[id].first; i && k; k--)
      i = t->aliases[i - 1].next;
   return i ? &t->aliases[i - 1].name : NULL;
}

const pl_name *pl_trace_object(const pl_trace *t, uint32_t id)
{
   return id <= t->nobjs ? &t->objs[id] : NULL;
}

size_t pl_trace_nthreads(const pl_trace *t) { return t->nthreads; }

const pl_thread_info *pl_trace_thread(const pl_trace *t, size_t index)
{
   return index < t->nthreads ? &t->threads[index].info : NULL;
}

/* "arg0 arg1 ..." from the PROCESS chunk's argc/argN pairs.  The
   arguments end at argc or at the first missing argN, whichever comes
   first: a damaged argc must not make us count to 2^64. */
char *pl_trace_command(const pl_trace *t)
{
   const char *argc_s = pl_trace_process_get(t, "argc");
   unsigned long argc = argc_s ? strtoul(argc_s, NULL, 10) : 0, i;
   size_t len = 0;
   char key[32], *cmd;

   for (i = 0; i < argc; i++) {
      const char *a;
      snprintf(key, sizeof key, "arg%lu", i);
      a = pl_trace_process_get(t, key);
      if (!a) {
         argc = i;
         break;
      }
      len += strlen(a) + 1;
   }
   cmd = malloc(len + 1);
   if (!cmd)
      return NULL;
   cmd[0] = 0;
   len = 0;
   for (i = 0; i < argc; i++) {
      const char *a;
      snprintf(key, sizeof key, "arg%lu", i);
      a = pl_trace_process_get(t, key);
      if (!a)
         continue;
      if (len)
         cmd[len++] = ' ';
      memcpy(cmd + len, a, strlen(a) + 1);
      len += strlen(a);
   }
   return cmd;
}

uint64_t pl_trace_size(const pl_trace *t)
{
   return pl_trace_restored_off(t, t->size);
}

uint64_t pl_trace_table_bytes(const pl_trace *t)
{
   return t->table_bytes;
}

uint64_t pl_trace_chunks(const pl_trace *t)
{
   return t->chunks;
}

uint64_t pl_trace_framing_bytes(const pl_trace *t)
{
   return t->framing_bytes;
}

const char *pl_trace_recording(const pl_trace *t)
{
   return t->recording;
}

const pl_mark *pl_trace_marks(const pl_trace *t, size_t index, size_t *n)
{
   *n = index < t->nthreads ? t->threads[index].nmarks : 0;
   return *n ? t->threads[index].marks : NULL;
}

const pl_tracing *pl_trace_tracing(const pl_trace *t, size_t index,
                                   size_t *n)
{
   *n = index < t->nthreads ? t->threads[index].ntracing : 0;
   return *n ? t->threads[index].tracing : NULL;
}

uint64_t pl_trace_stream_bytes(const pl_trace *t, size_t index)
{
   return index < t->nthreads ? t->threads[index].stream_bytes : 0;
}

uint64_t pl_trace_raw_bytes(const pl_trace *t, size_t index)
{
   return index < t->nthreads ? t->threads[index].raw_end : 0;
}

uint64_t pl_trace_stream_chunks(const pl_trace *t, size_t index)
{
   return index < t->nthreads ? t->threads[index].nchunks : 0;
}

uint64_t pl_trace_cost_events(const pl_trace *t, size_t index)
{
   return index < t->nthreads ? t->threads[index].cost_events : 0;
}

const pl_time_stamp *pl_trace_times(const pl_trace *t, size_t index,
                                    size_t *n)
{
   *n = index < t->nthreads ? t->threads[index].ntimes : 0;
   return *n ? t->threads[index].times : NULL;
}
