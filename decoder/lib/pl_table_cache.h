/* SPDX-License-Identifier: MIT */
/* A trace's PACKED_TABLE payloads decoded (format 2.0), through a cache
   the process keeps of those it decoded before (not installed).

   The readers open a trace once per pass or pair of threads (parlot-diff
   opens each trace four times and more), and decoding its packed tables
   is most of what an open costs: tens of milliseconds for an MPI
   program's thousands of functions.  A payload's decoding depends on
   every payload of the trace before it (one model reads them in order),
   so the cache is keyed by the chain of the packed bytes so far, and an
   entry keeps its packed bytes and the key before it to be checked on
   each hit.  The model is brought up to date only when a payload misses
   (a different trace, or one grown since). */
#ifndef PL_TABLE_CACHE_H
#define PL_TABLE_CACHE_H

#include <stddef.h>
#include <stdint.h>

typedef struct pl_packed_tables pl_packed_tables;

/* Decode the next packed payload of a trace (type: the table chunk type
   it packs) into raw[0..raw_len).  *pt: the trace's state, NULL before
   its first payload (made here).  0; 1 if the payload is corrupt (*why
   says how); -1 if out of memory. */
int pl_packed_decode(pl_packed_tables **pt, unsigned type,
                     const uint8_t *packed, size_t len, uint8_t *raw,
                     uint32_t raw_len, const char **why);

/* The trace's tables are read: its state freed (NULL is fine). */
void pl_packed_done(pl_packed_tables *pt);

#endif
