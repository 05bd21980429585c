/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Wall-clock stamps of the threads' streams (pl_times.h).  The clock is
   CLOCK_REALTIME, so that the processes of a job, on one node or on nodes
   whose clocks are kept in step, share one axis; it is read by a system
   call (Valgrind's own, no vDSO), which is why stamps are sparse.  A
   thread's stamps wait in a small buffer and leave as one TIMES chunk
   when it is full or the stream is synced. */
#include "pub_tool_basics.h"
#include "pub_tool_vki.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"

#include "pl_format.h"
#include "pl_output.h"
#include "pl_times.h"

#define STAMPS 256

Bool pl_collect_time;

struct pl_times {
   ULong last_ns;             /* the last stamp's time, flushed or not */
   UInt  n;
   ULong position[STAMPS];
   ULong ns[STAMPS];
};

pl_times *pl_times_new(void)
{
   if (!pl_collect_time)
      return NULL;
   pl_times *tm = VG_(malloc)("pl.times", sizeof *tm);
   tm->n = 0;
   tm->last_ns = 0;
   return tm;
}

void pl_times_restart(pl_times *tm)
{
   tm->n = 0;
}

void pl_times_free(pl_times *tm)
{
   if (tm)
      VG_(free)(tm);
}

static UChar *put_uleb(UChar *p, ULong v)
{
   do {
      UChar b = (UChar)(v & 0x7f);
      v >>= 7;
      *p++ = b | (v ? 0x80 : 0);
   } while (v);
   return p;
}

void pl_times_flush(pl_times *tm, UInt number)
{
   /* header, prefix, and at most 10 + 10 bytes per stamp */
   static UChar out[PL_CHUNK_HEADER_SIZE + PL_TIMES_PREFIX_SIZE + 20 * STAMPS];
   UChar *payload = out + PL_CHUNK_HEADER_SIZE, *p;
   if (tm->n == 0)
      return;
   pl_put32(payload, tm->n);
   pl_put32(payload + 4, PL_TIMES_REALTIME);
   p = payload + PL_TIMES_PREFIX_SIZE;
   for (UInt i = 0; i < tm->n; i++) {
      if (i == 0) {
         p = put_uleb(p, tm->position[0]);
         p = put_uleb(p, tm->ns[0]);
      } else {
         Long d = (Long)(tm->ns[i] - tm->ns[i - 1]);
         p = put_uleb(p, tm->position[i] - tm->position[i - 1]);
         p = put_uleb(p, ((ULong)d << 1) ^ (ULong)(d >> 63));   /* zigzag */
      }
   }
   UInt len = (UInt)(p - payload);
   pl_chunk_header(out, PL_CHUNK_TIMES, number, payload, len);
   pl_out_write(out, PL_CHUNK_HEADER_SIZE + len);
   tm->n = 0;
}

static ULong clock_ns(void)
{
   struct vki_timespec ts;
   VG_(clock_gettime)(&ts, VKI_CLOCK_REALTIME);
   return (ULong)ts.tv_sec * 1000000000ull + (ULong)ts.tv_nsec;
}

static void add(pl_times *tm, UInt number, ULong position, ULong ns)
{
   if (tm->n == STAMPS)
      pl_times_flush(tm, number);
   tm->position[tm->n] = position;
   tm->ns[tm->n] = ns;
   tm->last_ns = ns;
   tm->n++;
}

void pl_times_stamp(pl_times *tm, UInt number, ULong position)
{
   add(tm, number, position, clock_ns());
}

void pl_times_stamp_due(pl_times *tm, UInt number, ULong position,
                        ULong min_ns)
{
   ULong ns = clock_ns();
   if (ns - tm->last_ns >= min_ns)
      add(tm, number, position, ns);
}
