/* SPDX-License-Identifier: MIT */
/* Buffered output (pl_outbuf.h). */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pl_names.h"
#include "pl_outbuf.h"

int outbuf_init(outbuf *o, int fd, const char *name)
{
   o->fd = fd;
   o->name = name;
   o->len = 0;
   o->cap = OUTBUF_SIZE;
   o->err = 0;
   o->buf = malloc(o->cap + OUTBUF_SLACK);
   return o->buf ? 0 : -1;
}

void outbuf_free(outbuf *o)
{
   free(o->buf);
   o->buf = NULL;
}

int outbuf_flush(outbuf *o)
{
   size_t done = 0;
   if (o->fd < 0)                 /* in memory: nothing to flush */
      return o->err ? -1 : 0;
   while (done < o->len && !o->err) {
      ssize_t k = write(o->fd, o->buf + done, o->len - done);
      if (k < 0) {
         if (errno != EINTR)
            o->err = errno;
      } else {
         done += (size_t)k;
      }
   }
   o->len = 0;
   return o->err ? -1 : 0;
}

/* Room for n more bytes at least (a memory buffer grows to hold them),
   else the buffer emptied: -1 once failed. */
static int make_room(outbuf *o, size_t n)
{
   char *b;
   size_t cap = o->cap;
   if (o->fd >= 0)
      return outbuf_flush(o);
   if (o->err)
      return -1;
   while (cap - o->len < n)
      cap *= 2;
   if (!(b = realloc(o->buf, cap + OUTBUF_SLACK))) {
      o->err = ENOMEM;
      return -1;
   }
   o->buf = b;
   o->cap = cap;
   return 0;
}

void outbuf_write(outbuf *o, const void *p, size_t n)
{
   const char *s = p;
   while (n > 0) {
      size_t k;
      if (o->len == o->cap && make_room(o, n) < 0)
         return;
      k = o->cap - o->len < n ? o->cap - o->len : n;
      memcpy(o->buf + o->len, s, k);
      o->len += k;
      s += k;
      n -= k;
   }
}

void outbuf_str(outbuf *o, const char *s)
{
   outbuf_write(o, s, strlen(s));
}

void outbuf_printf(outbuf *o, const char *fmt, ...)
{
   va_list ap;
   char small[512];
   int n;

   va_start(ap, fmt);
   n = vsnprintf(small, sizeof small, fmt, ap);
   va_end(ap);
   if (n < 0)
      return;
   if ((size_t)n < sizeof small) {
      outbuf_write(o, small, (size_t)n);
   } else {
      char *big = malloc((size_t)n + 1);
      if (!big) {
         o->err = ENOMEM;
         return;
      }
      va_start(ap, fmt);
      vsnprintf(big, (size_t)n + 1, fmt, ap);
      va_end(ap);
      outbuf_write(o, big, (size_t)n);
      free(big);
   }
}

char *outbuf_reserve(outbuf *o, size_t n)
{
   if (o->err || (n > o->cap && o->fd >= 0))
      return NULL;
   if (o->cap - o->len < n && make_room(o, n) < 0)
      return NULL;
   return o->buf + o->len;
}

char *put_u32(char *p, uint32_t v)
{
   char tmp[10];
   int n = 0;
   if (v < 10) {
      *p++ = (char)('0' + v);
      return p;
   }
   do {
      tmp[n++] = (char)('0' + v % 10);
      v /= 10;
   } while (v);
   while (n)
      *p++ = tmp[--n];
   return p;
}

void outbuf_u64(outbuf *o, uint64_t v)
{
   char b[24], *p = b + sizeof b;
   do
      *--p = (char)('0' + v % 10);
   while (v /= 10);
   outbuf_write(o, p, (size_t)(b + sizeof b - p));
}

/* The length of the valid UTF-8 sequence at s (n bytes left), 0 if the
   byte there starts none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
   size_t k, len;
   uint32_t c;
   if (s[0] < 0x80)
      return 1;
   if (s[0] >= 0xC2 && s[0] <= 0xDF)
      len = 2, c = s[0] & 0x1Fu;
   else if (s[0] >= 0xE0 && s[0] <= 0xEF)
      len = 3, c = s[0] & 0x0Fu;
   else if (s[0] >= 0xF0 && s[0] <= 0xF4)
      len = 4, c = s[0] & 0x07u;
   else
      return 0;
   if (len > n)
      return 0;
   for (k = 1; k < len; k++) {
      if ((s[k] & 0xC0u) != 0x80u)
         return 0;
      c = c << 6 | (s[k] & 0x3Fu);
   }
   /* overlong forms, surrogates, beyond U+10FFFF */
   if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10FFFF))
       || (c >= 0xD800 && c <= 0xDFFF))
      return 0;
   return len;
}

void outbuf_json_str(outbuf *o, const char *s, size_t n)
{
   const unsigned char *p = (const unsigned char *)s;
   size_t i = 0, run = 0;
   outbuf_write(o, "\"", 1);
   while (i < n) {
      size_t k = utf8_len(p + i, n - i);
      if (k > 0 && p[i] >= 0x20 && p[i] != '"' && p[i] != '\\') {
         i += k;
         run += k;
         continue;
      }
      outbuf_write(o, s + i - run, run);
      run = 0;
      if (p[i] == '"' || p[i] == '\\')
         outbuf_printf(o, "\\%c", p[i]);
      else
         outbuf_printf(o, "\\u%04x", p[i]);
      i++;
   }
   outbuf_write(o, s + i - run, run);
   outbuf_write(o, "\"", 1);
}

void outbuf_str_escaped(outbuf *o, const char *s)
{
   size_t n = strlen(s), k;
   char b[4 * 128];                 /* an escape is at most 4 bytes */
   for (; n > 0; s += k, n -= k) {
      k = n < 128 ? n : 128;
      outbuf_write(o, b, (size_t)(pl_put_escaped(b, s, k) - b));
   }
}
