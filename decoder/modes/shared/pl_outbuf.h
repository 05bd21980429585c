/* SPDX-License-Identifier: MIT */
/* Buffered output to a file descriptor, for the decoder's programs.

   Writes go to a large buffer; a failed write is remembered (err, sticky)
   and later writes are dropped, so callers check once, at the end.  The
   buffer has OUTBUF_SLACK writable bytes past cap for fast paths that copy
   fixed-size blocks. */
#ifndef PL_OUTBUF_H
#define PL_OUTBUF_H

#include <stddef.h>
#include <stdint.h>

#define OUTBUF_SIZE  (1u << 20)
#define OUTBUF_SLACK 64

typedef struct {
   int         fd;
   const char *name;     /* for messages */
   char       *buf;
   size_t      len, cap;
   int         err;      /* errno of the first failed write, sticky */
} outbuf;

/* Set up o for fd (named name in messages); fd -1: the output stays in
   memory (buf, len), the buffer growing as needed, and outbuf_flush()
   keeps it (so code that counts on a flush emptying the buffer, as
   --events' fast path does, writes to a file only).  -1 if out of
   memory. */
int  outbuf_init(outbuf *o, int fd, const char *name);
void outbuf_free(outbuf *o);
int  outbuf_flush(outbuf *o);                      /* -1 once failed */
void outbuf_write(outbuf *o, const void *p, size_t n);
void outbuf_str(outbuf *o, const char *s);
/* s with control characters and backslashes escaped (pl_put_escaped). */
void outbuf_str_escaped(outbuf *o, const char *s);
/* s[0..n) as a JSON string, quotes included: '"', '\\' and control
   characters escaped, and each byte that is not part of valid UTF-8 as
   the code point of the same value (so any name gives valid JSON). */
void outbuf_json_str(outbuf *o, const char *s, size_t n);
void outbuf_printf(outbuf *o, const char *fmt, ...)
   __attribute__((format(printf, 2, 3)));

/* Room for n more bytes (plus the slack), flushing if needed: a pointer
   to write at, or NULL if n exceeds the buffer (use outbuf_write) or the
   output failed.  Commit with o->len += written. */
char *outbuf_reserve(outbuf *o, size_t n);

/* Decimal digits of v at p; returns the end. */
char *put_u32(char *p, uint32_t v);

/* Write v in decimal. */
void outbuf_u64(outbuf *o, uint64_t v);

#endif
