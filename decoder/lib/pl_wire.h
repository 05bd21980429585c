/* SPDX-License-Identifier: MIT */
/* Bytes that carry the decoder's results between processes (a program,
   a calling-context tree, a mode's state: parlot-decode-mpi): growing
   little-endian writes, bounds-checked reads.  Not installed. */
#ifndef PL_WIRE_H
#define PL_WIRE_H

#include <stdint.h>
#include <string.h>

#include "pl_alloc.h"

#define PL_WIRE_NO_STRING 0xFFFFFFFFu

typedef struct {
   unsigned char *b;    /* malloc'ed; the caller frees it */
   size_t len, cap;
   int    failed;       /* out of memory: later writes do nothing */
} pl_wbuf;

static inline void pl_wire_put(pl_wbuf *w, const void *src, size_t n)
{
   if (w->failed || pl_grow(&w->b, &w->cap, w->len + n, 1) < 0) {
      w->failed = 1;
      return;
   }
   if (n)
      memcpy(w->b + w->len, src, n);
   w->len += n;
}

static inline void pl_wire_le(pl_wbuf *w, uint64_t v, int bytes)
{
   unsigned char x[8];
   for (int i = 0; i < bytes; i++)
      x[i] = (unsigned char)(v >> 8 * i);
   pl_wire_put(w, x, (size_t)bytes);
}

static inline void pl_wire_u32(pl_wbuf *w, uint32_t v)
{
   pl_wire_le(w, v, 4);
}

static inline void pl_wire_u64(pl_wbuf *w, uint64_t v)
{
   pl_wire_le(w, v, 8);
}

/* An unsigned LEB128 number: 7 bits a byte, low first, the high bit set
   on every byte but the last. */
static inline void pl_wire_varint(pl_wbuf *w, uint64_t v)
{
   unsigned char x[10];
   int n = 0;
   do {
      x[n] = (unsigned char)(v & 0x7f);
      v >>= 7;
      if (v)
         x[n] |= 0x80;
      n++;
   } while (v);
   pl_wire_put(w, x, (size_t)n);
}

/* A u32 length and the bytes; PL_WIRE_NO_STRING for NULL. */
static inline void pl_wire_str(pl_wbuf *w, const char *s)
{
   size_t n = s ? strlen(s) : 0;
   if (s && n >= PL_WIRE_NO_STRING) {
      w->failed = 1;
      return;
   }
   pl_wire_u32(w, s ? (uint32_t)n : PL_WIRE_NO_STRING);
   pl_wire_put(w, s, n);
}

/* Hand w's bytes to the caller: 0 (*buf malloc'ed, *len bytes), or -1
   if a write ran out of memory (w's bytes are freed). */
static inline int pl_wire_finish(pl_wbuf *w, unsigned char **buf,
                                 size_t *len)
{
   if (w->failed) {
      free(w->b);
      return -1;
   }
   *buf = w->b;
   *len = w->len;
   return 0;
}

typedef struct {
   const unsigned char *p, *end;
   int bad;             /* ran past the end or met a wrong value */
   int oom;             /* a read allocation failed (bad is set too) */
} pl_rbuf;

/* The next n bytes, NULL (and bad set) if there are not that many. */
static inline const unsigned char *pl_wire_take(pl_rbuf *r, size_t n)
{
   const unsigned char *at = r->p;
   if (r->bad || (size_t)(r->end - r->p) < n) {
      r->bad = 1;
      return NULL;
   }
   r->p += n;
   return at;
}

static inline uint64_t pl_wire_get_le(pl_rbuf *r, int bytes)
{
   const unsigned char *x = pl_wire_take(r, (size_t)bytes);
   uint64_t v = 0;
   for (int i = 0; x && i < bytes; i++)
      v |= (uint64_t)x[i] << 8 * i;
   return v;
}

static inline uint32_t pl_wire_get_u32(pl_rbuf *r)
{
   return (uint32_t)pl_wire_get_le(r, 4);
}

static inline uint64_t pl_wire_get_u64(pl_rbuf *r)
{
   return pl_wire_get_le(r, 8);
}

/* An unsigned LEB128 number of at most 10 bytes (bad if longer, cut or
   above 2^64 - 1). */
static inline uint64_t pl_wire_get_varint(pl_rbuf *r)
{
   uint64_t v = 0;
   for (int shift = 0; shift < 70; shift += 7) {
      const unsigned char *x = pl_wire_take(r, 1);
      if (!x)
         return 0;
      if (shift == 63 && *x > 1)
         break;
      v |= (uint64_t)(*x & 0x7f) << shift;
      if (!(*x & 0x80))
         return v;
   }
   r->bad = 1;
   return 0;
}

/* A u64 count of items of at least min_bytes each: more than the bytes
   left could hold is malformed (and would make a huge allocation). */
static inline size_t pl_wire_count(pl_rbuf *r, size_t min_bytes)
{
   uint64_t n = pl_wire_get_u64(r);
   if (n > (uint64_t)(r->end - r->p) / min_bytes) {
      r->bad = 1;
      return 0;
   }
   return (size_t)n;
}

#endif
