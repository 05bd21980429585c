/* SPDX-License-Identifier: MIT */
/* Reader for ParLoT trace files: opening a trace, the indexing pass over
   its chunks, closing (pl_trace.h; the files of the reader:
   pl_trace_private.h).  The container is specified in
   docs/trace-format.md. */

#define _FILE_OFFSET_BITS 64
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl_codec.h"
#include "pl_cost_codec.h"
#include "pl_format.h"
#include "pl_alloc.h"
#include "pl_trace_private.h"

static const pl_name unknown_object = { "???", 3 };

void pl_error_set(pl_error *e, uint64_t off, const char *fmt, ...)
{
   va_list ap;
   e->offset = off;
   va_start(ap, fmt);
   vsnprintf(e->msg, sizeof e->msg, fmt, ap);
   va_end(ap);
}

static const char *chunk_name(unsigned type)
{
   static const char *const names[] = {
      "type 0", "PROCESS", "OBJECTS", "FUNCTIONS", "THREAD_BEGIN",
      "STREAM", "THREAD_END", "PROCESS_END", "EXEC", "MARK", "TRACING", "ALIASES",
      "PACKED_TABLE", "TABLE_REF", "COSTS", "TIMES"
   };
   return type < sizeof names / sizeof names[0] ? names[type] : "unknown";
}

/* ---- Reading ----------------------------------------------------------- */

int pl_reader_fill(reader *r, uint64_t off, size_t want)
{
   size_t got = 0;
   r->base = off;
   r->len = 0;
   while (got < want) {
      ssize_t k = pread(r->fd, r->buf + got, want - got,
                        (off_t)(r->origin + off + got));
      if (k < 0) {
         if (errno == EINTR)
            continue;
         r->err = errno;
         return -1;
      }
      if (k == 0)
         break;            /* the file shrank */
      got += (size_t)k;
   }
   r->len = got;
   return got == want ? 0 : -1;
}

/* Bytes [off, off + n) with n <= r->cap, reading ahead up to r->cap bytes.
   NULL if they are not all in the file (r->err tells an I/O error). */
static const uint8_t *rd_at(reader *r, uint64_t off, size_t n)
{
   size_t want;
   if (off >= r->base && off - r->base <= r->len
       && n <= r->len - (off - r->base))
      return r->buf + (off - r->base);
   if (off > r->size || n > r->size - off)
      return NULL;
   want = r->size - off < r->cap ? (size_t)(r->size - off) : r->cap;
   if (pl_reader_fill(r, off, want) < 0 && r->len < n)
      return NULL;
   return r->buf;
}

/* ---- Indexing ---------------------------------------------------------- */

/* Keep payload p (names point into it) while the trace is open: 0, or -1
   if out of memory. */
int pl_trace_keep_block(pl_trace *t, uint8_t *p)
{
   if (pl_grow(&t->blocks, &t->blocks_cap, t->nblocks + 1,
               sizeof *t->blocks))
      return -1;
   t->blocks[t->nblocks++] = p;
   return 0;
}

uint64_t pl_trace_restored_off(const pl_trace *t, uint64_t off)
{
   size_t lo = 0, hi = t->nshifts;
   while (lo < hi) {                  /* the last record at or before off */
      size_t mid = lo + (hi - lo) / 2;
      if (t->shifts[mid].at <= off)
         lo = mid + 1;
      else
         hi = mid;
   }
   return lo ? off + t->shifts[lo - 1].shift : off;
}

int pl_trace_set_damage(pl_trace *t, uint64_t off, const char *fmt, ...)
{
   va_list ap;
   t->damaged = 1;
   t->damage.offset = pl_trace_restored_off(t, off);
   va_start(ap, fmt);
   vsnprintf(t->damage.msg, sizeof t->damage.msg, fmt, ap);
   va_end(ap);
   return -1;
}

static int read_failed(pl_trace *t, const reader *r, uint64_t off)
{
   if (r->err)
      return pl_trace_set_damage(t, off, "read error: %s", strerror(r->err));
   return pl_trace_set_damage(t, off, "truncated: the file shrank while being read");
}

static thread_rec *find_thread(pl_trace *t, uint32_t number)
{
   size_t lo = 0, hi = t->nthreads;
   if (t->last_thread < t->nthreads
       && t->threads[t->last_thread].info.number == number)
      return &t->threads[t->last_thread];
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      uint32_t m = t->threads[mid].info.number;
      if (m == number) {
         t->last_thread = mid;
         return &t->threads[mid];
      }
      if (m < number)
         lo = mid + 1;
      else
         hi = mid;
   }
   return NULL;
}

/* Insert a thread in number order (almost always at the end). */
static thread_rec *add_thread(pl_trace *t, uint32_t number)
{
   size_t i = t->nthreads;
   if (pl_grow(&t->threads, &t->threads_cap, t->nthreads + 1,
               sizeof *t->threads))
      return NULL;
   while (i > 0 && t->threads[i - 1].info.number > number)
      i--;
   memmove(&t->threads[i + 1], &t->threads[i],
           (t->nthreads - i) * sizeof *t->threads);
   t->nthreads++;
   memset(&t->threads[i], 0, sizeof t->threads[i]);
   t->threads[i].info.number = number;
   t->last_thread = i;
   return &t->threads[i];
}

/* Split key\0value\0... into pairs. */
static int parse_kv(pl_trace *t, uint64_t off, unsigned type, uint8_t *p,
                    uint32_t len, pl_kv **out, size_t *n)
{
   size_t count = 0, cap = 0, i = 0;
   pl_kv *kv = NULL;

   while (i < len) {
      uint8_t *k = p + i, *kend, *vend;
      kend = memchr(k, 0, len - i);
      vend = kend ? memchr(kend + 1, 0, (size_t)(p + len - (kend + 1))) : NULL;
      if (!vend) {
         free(kv);
         return pl_trace_set_damage(t, off + PL_CHUNK_HEADER_SIZE + i,
                                    "%s: unterminated key or value", chunk_name(type));
      }
      if (pl_grow(&kv, &cap, count + 1, sizeof *kv)) {
         free(kv);
         return pl_trace_set_damage(t, off, "out of memory");
      }
      kv[count].key = (const char *)k;
      kv[count].value = (const char *)kend + 1;
      count++;
      i = (size_t)(vend + 1 - p);
   }
   *out = kv;
   *n = count;
   return 0;
}

const char *pl_kv_get(const pl_kv *kv, size_t n, const char *key)
{
   size_t i;
   for (i = 0; i < n; i++)
      if (strcmp(kv[i].key, key) == 0)
         return kv[i].value;
   return NULL;
}

/* Strict unsigned decimal; -1 if s is not one. */
static int parse_u64(const char *s, uint64_t *v)
{
   uint64_t x = 0;
   if (!*s)
      return -1;
   for (; *s; s++) {
      unsigned d = (unsigned)(*s - '0');
      if (d > 9 || x > (UINT64_MAX - d) / 10)
         return -1;
      x = x * 10 + d;
   }
   *v = x;
   return 0;
}

/* A value from the file, for a one-line message: its first 40 bytes, with
   control characters, backslashes and quotes as C escapes. */
#define QUOTED_MAX 40
static const char *quoted(char out[4 * QUOTED_MAX + 4], const char *s)
{
   static const char hex[] = "0123456789abcdef";
   char *o = out;
   size_t i;
   for (i = 0; s[i] && i < QUOTED_MAX; i++) {
      unsigned char c = (unsigned char)s[i];
      if (c >= 0x20 && c != 0x7f && c != '\\' && c != '"') {
         *o++ = (char)c;
      } else {
         *o++ = '\\';
         *o++ = 'x';
         *o++ = hex[c >> 4];
         *o++ = hex[c & 15];
      }
   }
   if (s[i]) {
      memcpy(o, "...", 3);
      o += 3;
   }
   *o = 0;
   return out;
}

static int on_process(pl_trace *t, uint64_t off, uint8_t *p, uint32_t len)
{
   const char *pid;
   char q[4 * QUOTED_MAX + 4];
   uint64_t v;

   t->proc_data = p;
   if (parse_kv(t, off, PL_CHUNK_PROCESS, p, len, &t->proc, &t->nproc))
      return -1;
   pid = pl_kv_get(t->proc, t->nproc, "pid");
   if (!pid)
      return pl_trace_set_damage(t, off, "PROCESS chunk has no pid");
   if (parse_u64(pid, &v) || v > UINT32_MAX)
      return pl_trace_set_damage(t, off, "PROCESS chunk: bad pid \"%s\"", quoted(q, pid));
   return 0;
}

/* Compare a PROCESS_END total with what the trace holds, if recorded. */
static int check_total(pl_trace *t, uint64_t off, const char *key,
                       uint64_t actual)
{
   const char *s = pl_kv_get(t->pend, t->npend, key);
   char q[4 * QUOTED_MAX + 4];
   uint64_t v;
   if (!s)
      return 0;
   if (parse_u64(s, &v))
      return pl_trace_set_damage(t, off, "PROCESS_END: bad %s \"%s\"", key, quoted(q, s));
   if (v != actual)
      return pl_trace_set_damage(t, off, "PROCESS_END records %llu %s, the trace has %llu",
                                 ULL(v), key, ULL(actual));
   return 0;
}

/* PROCESS_END: every thread has ended; the totals (threads = THREAD_END
   records, functions defined, events of the ended threads) must match. */
static int on_process_end(pl_trace *t, uint64_t off, uint8_t *p, uint32_t len)
{
   uint64_t events = 0, ended = 0;
   size_t i;

   t->pend_data = p;
   if (parse_kv(t, off, PL_CHUNK_PROCESS_END, p, len, &t->pend, &t->npend))
      return -1;
   for (i = 0; i < t->nthreads; i++) {
      if (!t->threads[i].info.ended)
         return pl_trace_set_damage(t, off, "PROCESS_END before the THREAD_END of thread %u",
                                    t->threads[i].info.number);
      ended++;
      events += t->threads[i].info.events;
   }
   if (check_total(t, off, "threads", ended)
       || check_total(t, off, "functions", t->nfns)
       || check_total(t, off, "events", events))
      return -1;
   t->have_pend = 1;
   return 0;
}

/* EXEC: the process called exec, with every stream synced just before.
   Whether it succeeded is known only from what follows (nothing: it did). */
static int on_exec(pl_trace *t, uint64_t off, uint8_t *p, uint32_t len)
{
   pl_kv *kv = NULL;
   size_t n = 0;

   if (parse_kv(t, off, PL_CHUNK_EXEC, p, len, &kv, &n)) {
      free(p);
      return -1;
   }
   free(t->exec_data);
   t->exec_data = p;
   t->exec_path = pl_kv_get(kv, n, "path");
   free(kv);
   t->nexec++;
   return 0;
}

static int on_thread_begin(pl_trace *t, uint64_t off, uint32_t thr,
                           const uint8_t *p)
{
   thread_rec *th;
   uint32_t number = pl_get32(p), codec = pl_get32(p + 12);

   if (number != thr)
      return pl_trace_set_damage(t, off, "THREAD_BEGIN of thread %u in a chunk of thread %u",
                                 number, thr);
   if (find_thread(t, thr))
      return pl_trace_set_damage(t, off, "second THREAD_BEGIN of thread %u", thr);
   if (!pl_codec_is_ccm((int)codec) && codec != PL_CODEC_LZRC
       && codec != PL_CODEC_LZZE && codec != PL_CODEC_RAW)
      return pl_trace_set_damage(t, off, "thread %u: unknown codec %u", thr, codec);
   th = add_thread(t, thr);
   if (!th)
      return pl_trace_set_damage(t, off, "out of memory");
   th->info.parent = pl_get32(p + 4);
   th->info.vg_tid = pl_get32(p + 8);
   th->info.codec = codec;
   th->info.inherited_depth = pl_get32(p + 16);
   return 0;
}

/* STREAM: u64 stream offset, u64 raw_end, then the stream bytes.  Every
   chunk ends a ZE group or (LZRC) at a sync (docs/trace-format.md 4.5), so
   raw_end must grow with every chunk, by exactly the data length for RAW. */
static int on_stream(pl_trace *t, uint64_t off, uint32_t thr, uint32_t len,
                     const uint8_t *p)
{
   thread_rec *th = find_thread(t, thr);
   uint64_t at = pl_get64(p), raw_end = pl_get64(p + 8), raw;
   uint32_t n = len - PL_STREAM_PREFIX_SIZE;

   if (!th)
      return pl_trace_set_damage(t, off, "STREAM chunk of thread %u before its THREAD_BEGIN",
                                 thr);
   if (th->info.ended)
      return pl_trace_set_damage(t, off, "STREAM chunk of thread %u after its THREAD_END",
                                 thr);
   if (at != th->stream_bytes)
      return pl_trace_set_damage(t, off, "thread %u: STREAM chunk at stream offset %llu, "
                                 "expected %llu (a chunk is missing)",
                                 thr, ULL(at), ULL(th->stream_bytes));
   if (n == 0)
      return pl_trace_set_damage(t, off, "thread %u: STREAM chunk without stream bytes",
                                 thr);
   if (raw_end <= th->raw_end)
      return pl_trace_set_damage(t, off, "thread %u: STREAM chunk raw_end %llu does not "
                                 "follow the previous raw_end %llu",
                                 thr, ULL(raw_end), ULL(th->raw_end));
   raw = raw_end - th->raw_end;
   if (raw_end % 2 != 0)
      return pl_trace_set_damage(t, off, "thread %u: STREAM chunk raw_end %llu is odd",
                                 thr, ULL(raw_end));
   /* What the codec can express in n bytes (docs/codec.md 7.1): this
      bounds the work of decoding the chunk, whatever its raw_end says */
   if (th->info.codec == PL_CODEC_RAW && raw != n)
      return pl_trace_set_damage(t, off, "thread %u: STREAM chunk of %u bytes cannot hold "
                                 "%llu raw bytes", thr, n, ULL(raw));
   /* (LZRC's bound needs the match limit of format 1.3) */
   if ((t->major > 1 || t->minor >= 3 || th->info.codec != PL_CODEC_LZRC)
       && raw > pl_codec_max_raw((int)th->info.codec, n))
      return pl_trace_set_damage(t, off, "thread %u: STREAM chunk of %u bytes cannot hold "
                                 "%llu raw bytes (%s: at most %llu)", thr, n, ULL(raw),
                                 pl_codec_is_ccm((int)th->info.codec) ? "CCM"
                                 : th->info.codec == PL_CODEC_LZRC ? "LZRC" : "LZZE",
                                 ULL(pl_codec_max_raw((int)th->info.codec, n)));
   if (pl_grow(&th->chunks, &th->chunks_cap, th->nchunks + 1,
               sizeof *th->chunks))
      return pl_trace_set_damage(t, off, "out of memory");
   th->chunks[th->nchunks].off = off;
   th->chunks[th->nchunks].raw_end = raw_end;
   th->chunks[th->nchunks].len = n;
   th->nchunks++;
   th->stream_bytes += n;
   th->raw_end = raw_end;
   return 0;
}

/* COSTS (2.5): u64 first, u32 count, u32 what, coded bytes.  Kinds of
   cost, and revisions of their coding, this reader does not know are
   skipped. */
static int on_costs(pl_trace *t, uint64_t off, uint32_t thr, uint32_t len,
                    const uint8_t *p)
{
   thread_rec *th = find_thread(t, thr);
   uint64_t first = pl_get64(p);
   uint32_t count = pl_get32(p + 8), what = pl_get32(p + 12);

   if (PL_COST_WHAT(what) != PL_COST_INSNS
       || PL_COST_REVISION(what) > PL_COST_REV_LATEST)
      return 0;
   if (!th)
      return pl_trace_set_damage(t, off, "COSTS chunk of thread %u before its THREAD_BEGIN",
                                 thr);
   if (th->info.ended)
      return pl_trace_set_damage(t, off, "COSTS chunk of thread %u after its THREAD_END",
                                 thr);
   if (first != th->cost_events)
      return pl_trace_set_damage(t, off, "thread %u: COSTS chunk from event %llu, expected "
                                 "%llu (a chunk is missing)", thr, ULL(first),
                                 ULL(th->cost_events));
   if (count == 0)
      return pl_trace_set_damage(t, off, "thread %u: COSTS chunk of no events", thr);
   if (th->ncosts == 0)
      th->cost_revision = PL_COST_REVISION(what);
   else if (PL_COST_REVISION(what) != th->cost_revision)
      return pl_trace_set_damage(t, off, "thread %u: COSTS chunk coded by revision %u "
                                 "after chunks of revision %u", thr,
                                 PL_COST_REVISION(what), th->cost_revision);
   if (pl_grow(&th->costs, &th->costs_cap, th->ncosts + 1, sizeof *th->costs))
      return pl_trace_set_damage(t, off, "out of memory");
   th->costs[th->ncosts].off = off;
   th->costs[th->ncosts].len = len - PL_COSTS_PREFIX_SIZE;
   th->costs[th->ncosts].count = count;
   th->ncosts++;
   th->cost_events += count;
   return 0;
}

/* A ULEB128 number at *p (before end): 0, or -1 if it runs past end or
   past 64 bits. */
static int get_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
   unsigned shift = 0;
   *v = 0;
   while (*p < end) {
      uint8_t b = *(*p)++;
      if (shift == 63 && (b & 0x7e))
         return -1;
      *v |= (uint64_t)(b & 0x7f) << shift;
      if (!(b & 0x80))
         return 0;
      if ((shift += 7) > 63)
         return -1;
   }
   return -1;
}

/* TIMES (2.5): u32 count, u32 clock, then the stamps (pl_format.h).
   Stamps of clocks this reader does not know are skipped. */
static int on_times(pl_trace *t, uint64_t off, uint32_t thr, const uint8_t *p,
                    uint32_t len)
{
   thread_rec *th = find_thread(t, thr);
   const uint8_t *q = p + PL_TIMES_PREFIX_SIZE, *end = p + len;
   uint32_t count = pl_get32(p), i;
   uint64_t pos, ns, d;

   if (pl_get32(p + 4) != PL_TIMES_REALTIME)
      return 0;
   if (!th)
      return pl_trace_set_damage(t, off, "TIMES chunk of thread %u before its THREAD_BEGIN",
                                 thr);
   if (th->info.ended)
      return pl_trace_set_damage(t, off, "TIMES chunk of thread %u after its THREAD_END",
                                 thr);
   if (count == 0 || count > len)     /* a stamp takes 2 bytes or more */
      return pl_trace_set_damage(t, off, "thread %u: TIMES chunk of %u stamps in %u "
                                 "bytes", thr, count, len);
   if (pl_grow(&th->times, &th->times_cap, th->ntimes + count,
               sizeof *th->times))
      return pl_trace_set_damage(t, off, "out of memory");
   for (i = 0; i < count; i++) {
      if (get_uleb(&q, end, &pos) < 0 || get_uleb(&q, end, &ns) < 0)
         return pl_trace_set_damage(t, off, "thread %u: TIMES chunk: stamp %u of %u "
                                    "runs past the chunk", thr, i + 1, count);
      if (i > 0) {
         d = ns;
         pos += th->times[th->ntimes - 1].position;
         ns = (uint64_t)th->times[th->ntimes - 1].ns
              + ((d >> 1) ^ (0 - (d & 1)));      /* zigzag */
      } else if (th->ntimes && pos < th->times[th->ntimes - 1].position) {
         return pl_trace_set_damage(t, off, "thread %u: TIMES chunk from event %llu, "
                                    "after a stamp at event %llu", thr, ULL(pos),
                                    ULL(th->times[th->ntimes - 1].position));
      }
      th->times[th->ntimes].position = pos;
      th->times[th->ntimes].ns = (int64_t)ns;
      th->ntimes++;
   }
   if (q != end)
      return pl_trace_set_damage(t, off, "thread %u: TIMES chunk: %zu bytes after its "
                                 "%u stamps", thr, (size_t)(end - q), count);
   return 0;
}

static int on_thread_end(pl_trace *t, uint64_t off, uint32_t thr,
                         const uint8_t *p, uint32_t len)
{
   thread_rec *th = find_thread(t, thr);
   pl_thread_info *ti;

   if (!th)
      return pl_trace_set_damage(t, off, "THREAD_END of thread %u before its THREAD_BEGIN",
                                 thr);
   ti = &th->info;
   if (ti->ended)
      return pl_trace_set_damage(t, off, "second THREAD_END of thread %u", thr);
   ti->events = pl_get64(p);
   ti->words = pl_get64(p + 8);
   ti->raw_bytes = pl_get64(p + 16);
   ti->encoded_bytes = pl_get64(p + 24);
   ti->lwp = pl_get32(p + 32);
   ti->end_reason = pl_get32(p + 36);
   ti->max_depth = pl_get64(p + 40);
   if (len >= PL_THREAD_END_SIGNAL + 4)
      ti->end_signal = pl_get32(p + PL_THREAD_END_SIGNAL);
   if (len >= PL_THREAD_END_HANDLER + 4)
      ti->handler_depth = pl_get32(p + PL_THREAD_END_HANDLER);
   if (ti->encoded_bytes != th->stream_bytes)
      return pl_trace_set_damage(t, off, "THREAD_END of thread %u records %llu stream bytes, "
                                 "its STREAM chunks hold %llu",
                                 thr, ULL(ti->encoded_bytes), ULL(th->stream_bytes));
   if (ti->raw_bytes != th->raw_end)
      return pl_trace_set_damage(t, off, "THREAD_END of thread %u records %llu raw bytes, "
                                 "its last STREAM chunk ends at raw byte %llu",
                                 thr, ULL(ti->raw_bytes), ULL(th->raw_end));
   if (th->ntimes && th->times[th->ntimes - 1].position > ti->events)
      return pl_trace_set_damage(t, off, "thread %u: a TIMES stamp lies at event %llu, "
                                 "past the %llu events THREAD_END records", thr,
                                 ULL(th->times[th->ntimes - 1].position),
                                 ULL(ti->events));
   if (th->ncosts && th->cost_events != ti->events)
      return pl_trace_set_damage(t, off, "thread %u: its COSTS chunks hold %llu costs, "
                                 "THREAD_END records %llu events", thr,
                                 ULL(th->cost_events), ULL(ti->events));
   if (th->last_position > ti->events)
      return pl_trace_set_damage(t, off, "thread %u: a MARK or TRACING chunk lies at event "
                                 "%llu, past the %llu events THREAD_END records", thr,
                                 ULL(th->last_position), ULL(ti->events));
   ti->ended = 1;
   th->end_off = off;
   return 0;
}

/* The thread of a MARK or TRACING chunk at position `position`: it must
   have begun and not ended, and positions never go back. */
static thread_rec *positioned(pl_trace *t, uint64_t off, unsigned type,
                              uint32_t thr, uint64_t position)
{
   thread_rec *th = find_thread(t, thr);
   if (!th) {
      pl_trace_set_damage(t, off, "%s chunk of thread %u before its THREAD_BEGIN",
                          chunk_name(type), thr);
      return NULL;
   }
   if (th->info.ended) {
      pl_trace_set_damage(t, off, "%s chunk of thread %u after its THREAD_END",
                          chunk_name(type), thr);
      return NULL;
   }
   if (position < th->last_position) {
      pl_trace_set_damage(t, off, "%s chunk of thread %u at event %llu, after one at "
                          "event %llu", chunk_name(type), thr, ULL(position),
                          ULL(th->last_position));
      return NULL;
   }
   th->last_position = position;
   return th;
}

/* MARK: u64 position, u32 occurrence, label\0 (the payload is kept: the
   label points into it). */
static int on_mark(pl_trace *t, uint64_t off, uint32_t thr, uint8_t *p,
                   uint32_t len)
{
   thread_rec *th;
   pl_mark *m;

   if (pl_trace_keep_block(t, p) < 0) {
      free(p);
      return pl_trace_set_damage(t, off, "out of memory");
   }
   if (p[len - 1] != 0 || memchr(p + 12, 0, len - 12) != p + len - 1)
      return pl_trace_set_damage(t, off, "MARK chunk: the label is not one NUL-terminated "
                                 "string");
   if (pl_get32(p + 8) == 0)
      return pl_trace_set_damage(t, off, "MARK chunk: occurrence 0");
   if (!(th = positioned(t, off, PL_CHUNK_MARK, thr, pl_get64(p))))
      return -1;
   if (pl_grow(&th->marks, &th->marks_cap, th->nmarks + 1, sizeof *m))
      return pl_trace_set_damage(t, off, "out of memory");
   m = &th->marks[th->nmarks++];
   m->position = pl_get64(p);
   m->occurrence = pl_get32(p + 8);
   m->seq = (uint32_t)(th->nmarks - 1 + th->ntracing);
   m->label = (const char *)p + 12;
   return 0;
}

/* TRACING: u64 position, u32 flags, u32 re-created entries. */
static int on_tracing(pl_trace *t, uint64_t off, uint32_t thr,
                      const uint8_t *p)
{
   thread_rec *th;
   pl_tracing *g;
   uint32_t flags = pl_get32(p + 8), n = pl_get32(p + 12);

   if (!(flags & PL_TRACING_ON) && n)
      return pl_trace_set_damage(t, off, "TRACING chunk: %u re-created entries where "
                                 "tracing stops", n);
   if (!(th = positioned(t, off, PL_CHUNK_TRACING, thr, pl_get64(p))))
      return -1;
   /* the re-created entries lie before any later mark or change */
   th->last_position = pl_get64(p) + n;
   if (pl_grow(&th->tracing, &th->tracing_cap, th->ntracing + 1, sizeof *g))
      return pl_trace_set_damage(t, off, "out of memory");
   g = &th->tracing[th->ntracing++];
   g->position = pl_get64(p);
   g->on = (flags & PL_TRACING_ON) != 0;
   g->recreated = n;
   g->seq = (uint32_t)(th->nmarks + th->ntracing - 1);
   return 0;
}

/* Minimum payload of each chunk type (later minor versions may append). */
static uint32_t min_payload(unsigned type)
{
   switch (type) {
   case PL_CHUNK_THREAD_BEGIN: return PL_THREAD_BEGIN_SIZE;
   case PL_CHUNK_THREAD_END:   return PL_THREAD_END_SIZE;
   case PL_CHUNK_STREAM:       return PL_STREAM_PREFIX_SIZE;
   case PL_CHUNK_MARK:         return PL_MARK_MIN_SIZE;
   case PL_CHUNK_TRACING:      return PL_TRACING_SIZE;
   case PL_CHUNK_PACKED_TABLE: return PL_PACKED_PREFIX_SIZE;
   case PL_CHUNK_TABLE_REF:    return PL_TREF_HEAD;
   case PL_CHUNK_COSTS:        return PL_COSTS_PREFIX_SIZE;
   case PL_CHUNK_TIMES:        return PL_TIMES_PREFIX_SIZE;
   default:                    return 0;
   }
}

/* The chunk types of the file's format version: 1.x has types 1-11,
   2.0 adds PACKED_TABLE; TABLE_REF exists only in archive members with
   shared tables (their own magic).  Others are skipped. */
static int known_type(const pl_trace *t, unsigned type)
{
   return type <= PL_CHUNK_ALIASES || type == PL_CHUNK_COSTS
          || type == PL_CHUNK_TIMES
          || (t->shared_form && type == PL_CHUNK_TABLE_REF)
          || (t->major >= 2 && type == PL_CHUNK_PACKED_TABLE);
}

/* Whether the index keeps the whole payload of a chunk type. */
static int keeps_payload(const pl_trace *t, unsigned type)
{
   return type == PL_CHUNK_PROCESS || type == PL_CHUNK_PROCESS_END
          || type == PL_CHUNK_OBJECTS || type == PL_CHUNK_FUNCTIONS
          || type == PL_CHUNK_EXEC || type == PL_CHUNK_MARK
          || type == PL_CHUNK_ALIASES || type == PL_CHUNK_TIMES
          || (known_type(t, type) && (type == PL_CHUNK_PACKED_TABLE
                                      || type == PL_CHUNK_TABLE_REF));
}

/* Read one chunk's payload, check its CRC, and act on it. */
static int index_chunk(pl_trace *t, reader *r, uint64_t off, unsigned type,
                       uint32_t thr, uint32_t len, uint32_t crc)
{
   uint8_t head[PL_THREAD_END_WRITTEN];   /* >= PL_TRACING_SIZE */
   uint8_t *keep = NULL;
   uint64_t pos = off + PL_CHUNK_HEADER_SIZE;
   uint32_t done = 0, sum = 0;

   if (keeps_payload(t, type)) {
      /* +1: a NUL after the payload keeps stray string scans in bounds */
      keep = malloc((size_t)len + 1);
      if (!keep)
         return pl_trace_set_damage(t, off, "out of memory");
      keep[len] = 0;
   }
   while (done < len) {
      uint32_t n = len - done < r->cap ? len - done : (uint32_t)r->cap;
      const uint8_t *p = rd_at(r, pos + done, n);
      if (!p) {
         free(keep);
         return read_failed(t, r, pos + done);
      }
      sum = pl_crc32(sum, p, n);
      if (keep)
         memcpy(keep + done, p, n);
      if (done < sizeof head)
         memcpy(head + done, p, n < sizeof head - done ? n : sizeof head - done);
      done += n;
   }
   if (sum != crc) {
      free(keep);
      return pl_trace_set_damage(t, off, "%s chunk: CRC mismatch (stored 0x%08x, "
                                 "computed 0x%08x)", chunk_name(type), crc, sum);
   }

   switch (type) {
   case PL_CHUNK_PROCESS:      return on_process(t, off, keep, len);
   case PL_CHUNK_PROCESS_END:  return on_process_end(t, off, keep, len);
   case PL_CHUNK_OBJECTS:
   case PL_CHUNK_FUNCTIONS:
   case PL_CHUNK_ALIASES:
      t->table_bytes += PL_CHUNK_HEADER_SIZE + (uint64_t)len;
      return pl_trace_read_table(t, off, type, keep, len);
   case PL_CHUNK_THREAD_BEGIN: return on_thread_begin(t, off, thr, head);
   case PL_CHUNK_STREAM:       return on_stream(t, off, thr, len, head);
   case PL_CHUNK_THREAD_END:   return on_thread_end(t, off, thr, head, len);
   case PL_CHUNK_EXEC:         return on_exec(t, off, keep, len);
   case PL_CHUNK_MARK:         return on_mark(t, off, thr, keep, len);
   case PL_CHUNK_TRACING:      return on_tracing(t, off, thr, head);
   case PL_CHUNK_COSTS:        return on_costs(t, off, thr, len, head);
   case PL_CHUNK_TIMES: {           /* the stamps are copied */
      int r = on_times(t, off, thr, keep, len);
      free(keep);
      return r;
   }
   case PL_CHUNK_PACKED_TABLE:
      if (known_type(t, type))
         return pl_trace_read_packed(t, off, keep, len);
      return 0;
   case PL_CHUNK_TABLE_REF:
      if (known_type(t, type))
         return pl_trace_read_table_ref(t, off, keep, len);
      return 0;
   default:                    return 0;   /* unknown types are skipped */
   }
}

/* Walk all chunks; stop at the first damage. */
static void index_file(pl_trace *t, reader *r)
{
   uint64_t off = PL_FILE_HEADER_SIZE;

   while (off < t->size) {
      const uint8_t *h = rd_at(r, off, PL_CHUNK_HEADER_SIZE);
      unsigned type;
      uint32_t len, thr;
      int thread_chunk;

      if (!h) {
         if (r->err)
            read_failed(t, r, off);
         else
            pl_trace_set_damage(t, off, "truncated: chunk header needs %u bytes, %llu "
                                "present", PL_CHUNK_HEADER_SIZE, ULL(t->size - off));
         return;
      }
      type = h[0];
      len = pl_get32(h + 4);
      thr = pl_get32(h + 8);
      thread_chunk = type == PL_CHUNK_THREAD_BEGIN || type == PL_CHUNK_STREAM
                     || type == PL_CHUNK_THREAD_END || type == PL_CHUNK_MARK
                     || type == PL_CHUNK_TRACING || type == PL_CHUNK_COSTS
                     || type == PL_CHUNK_TIMES;

      if (type == 0) {
         pl_trace_set_damage(t, off, "invalid chunk type 0");
         return;
      }
      if (len > PL_MAX_PAYLOAD) {
         pl_trace_set_damage(t, off, "%s chunk: payload length %u exceeds the maximum %u",
                             chunk_name(type), len, PL_MAX_PAYLOAD);
         return;
      }
      if (t->have_pend) {
         pl_trace_set_damage(t, off, "%s chunk after PROCESS_END", chunk_name(type));
         return;
      }
      if (off == PL_FILE_HEADER_SIZE) {
         if (type != PL_CHUNK_PROCESS) {
            pl_trace_set_damage(t, off, "first chunk is %s, not PROCESS", chunk_name(type));
            return;
         }
      } else if (type == PL_CHUNK_PROCESS) {
         pl_trace_set_damage(t, off, "second PROCESS chunk");
         return;
      }
      if (known_type(t, type) && len < min_payload(type)) {
         pl_trace_set_damage(t, off, "%s chunk: payload of %u bytes, at least %u expected",
                             chunk_name(type), len, min_payload(type));
         return;
      }
      if (known_type(t, type) && (thr == 0) == thread_chunk) {
         pl_trace_set_damage(t, off, "%s chunk: bad thread number %u", chunk_name(type), thr);
         return;
      }
      if (len > t->size - off - PL_CHUNK_HEADER_SIZE) {
         pl_trace_set_damage(t, off, "truncated: %s chunk needs %u payload bytes, %llu "
                             "present", chunk_name(type), len,
                             ULL(t->size - off - PL_CHUNK_HEADER_SIZE));
         return;
      }
      if (index_chunk(t, r, off, type, thr, len, pl_get32(h + 12)))
         return;
      t->chunks++;
      t->framing_bytes += PL_CHUNK_HEADER_SIZE
                          + (type == PL_CHUNK_STREAM ? PL_STREAM_PREFIX_SIZE : 0);
      if (type <= PL_CHUNK_TRACING)   /* skipped unknown types do not count */
         t->last_type = type;
      off += PL_CHUNK_HEADER_SIZE + (uint64_t)len;
   }
   if (t->have_pend)
      t->end = PL_TRACE_EXITED;
   else if (t->last_type == PL_CHUNK_EXEC)
      t->end = PL_TRACE_EXECED;     /* complete: the exec succeeded */
   else if (off == PL_FILE_HEADER_SIZE)
      pl_trace_set_damage(t, off, "truncated: no chunks after the file header");
   else
      pl_trace_set_damage(t, off, "truncated: no PROCESS_END or final EXEC chunk (process "
                          "killed or still running)");
}

/* t->recording: the PROCESS key "recording" (what the command line left
   out) and whether recording was started or stopped while it ran (the
   PROCESS_END count of requests, else any TRACING chunk). */
static void describe_recording(pl_trace *t)
{
   const char *rec = pl_trace_process_get(t, "recording");
   const char *changes = pl_trace_process_end_get(t, "recording_changes");
   uint64_t n = 0;
   int switched = 0;
   size_t i, len;

   if (changes && parse_u64(changes, &n) == 0)
      switched = n > 0;
   else
      for (i = 0; i < t->nthreads; i++)
         switched |= t->threads[i].ntracing > 0;
   if (!(rec && *rec) && !switched)
      return;
   len = (rec ? strlen(rec) : 0) + 64;
   if (!(t->recording = malloc(len)))
      return;
   if (switched && changes)
      snprintf(t->recording, len, "%s%srecording started or stopped %llu "
               "time%s", rec ? rec : "", rec && *rec ? "; " : "", ULL(n),
               n == 1 ? "" : "s");
   else if (switched)
      snprintf(t->recording, len, "%s%srecording started or stopped",
               rec ? rec : "", rec && *rec ? "; " : "");
   else
      snprintf(t->recording, len, "%s", rec);
}

/* Open the file and check its header. */
static int open_file(pl_trace *t, const char *path, uint64_t offset,
                     uint64_t size, pl_error *err)
{
   uint8_t h[PL_FILE_HEADER_SIZE];
   struct stat st;
   reader r;
   unsigned major;

   t->fd = open(path, O_RDONLY);
   if (!(t->file = strdup(path))) {
      pl_error_set(err, 0, "out of memory");
      return -1;
   }
   if (t->fd < 0) {
      pl_error_set(err, 0, "cannot open: %s", strerror(errno));
      return -1;
   }
   if (fstat(t->fd, &st) < 0) {
      pl_error_set(err, 0, "cannot stat: %s", strerror(errno));
      return -1;
   }
   if (S_ISDIR(st.st_mode)) {
      pl_error_set(err, 0, "is a directory");
      return -1;
   }
   if (!S_ISREG(st.st_mode)) {
      pl_error_set(err, 0, "not a regular file");
      return -1;
   }
   t->size = (uint64_t)st.st_size;
   if (size != PL_TRACE_WHOLE_FILE) {
      /* a member of an archive: [offset, offset + size) */
      if (offset > t->size || size > t->size - offset) {
         pl_error_set(err, 0, "member extends past the end of the file (%llu "
                   "bytes at %llu, file of %llu)", ULL(size), ULL(offset),
                   ULL(t->size));
         return -1;
      }
      t->origin = offset;
      t->size = size;
   }
   if (t->size == 0) {
      pl_error_set(err, 0, "empty file");
      return -1;
   }
   memset(&r, 0, sizeof r);
   r.fd = t->fd;
   r.origin = t->origin;
   r.buf = h;
   r.cap = sizeof h;
   r.size = t->size;
   if (pl_reader_fill(&r, 0,
                      t->size < sizeof h ? (size_t)t->size : sizeof h) < 0
       && r.err) {
      pl_error_set(err, 0, "read error: %s", strerror(r.err));
      return -1;
   }
   if (r.len >= PL_MAGIC_LEN
       && memcmp(h, PL_SHARED_MAGIC, PL_MAGIC_LEN) == 0) {
      t->shared_form = 1;           /* read as the trace it stands for */
      memcpy(h, PL_MAGIC, PL_MAGIC_LEN);
   }
   if (r.len < PL_MAGIC_LEN || memcmp(h, PL_MAGIC, PL_MAGIC_LEN) != 0) {
      if (memcmp(h, PL_MAGIC, r.len < PL_MAGIC_LEN ? r.len : PL_MAGIC_LEN))
         pl_error_set(err, 0, "not a ParLoT trace (bad magic)");
      else
         pl_error_set(err, r.len, "truncated: file header needs %u bytes, %zu "
                   "present", PL_FILE_HEADER_SIZE, r.len);
      return -1;
   }
   if (r.len < PL_FILE_HEADER_SIZE) {
      pl_error_set(err, r.len, "truncated: file header needs %u bytes, %zu "
                "present", PL_FILE_HEADER_SIZE, r.len);
      return -1;
   }
   major = pl_get16(h + 8);
   t->minor = pl_get16(h + 10);
   if (major < 1 || major > PL_VERSION_MAJOR) {
      pl_error_set(err, 8, "unsupported format version %u.%u (this decoder "
                "reads 1.x to %u.x)", major, t->minor, PL_VERSION_MAJOR);
      return -1;
   }
   t->major = major;
   return 0;
}

pl_trace *pl_trace_open(const char *path, pl_error *err)
{
   return pl_trace_open_member(path, 0, PL_TRACE_WHOLE_FILE, NULL, err);
}

pl_trace *pl_trace_open_member(const char *path, uint64_t offset,
                               uint64_t size, const char *name,
                               pl_error *err)
{
   pl_trace *t = calloc(1, sizeof *t);
   reader r;

   if (t)
      t->fd = -1;
   if (!t || !(t->path = strdup(name ? name : path))) {
      free(t);
      pl_error_set(err, 0, "out of memory");
      return NULL;
   }
   t->objs_cap = 16;
   t->objs = malloc(t->objs_cap * sizeof *t->objs);
   if (!t->objs) {
      pl_error_set(err, 0, "out of memory");
      pl_trace_close(t);
      return NULL;
   }
   t->objs[0] = unknown_object;
   if (open_file(t, path, offset, size, err)) {
      pl_trace_close(t);
      return NULL;
   }
   memset(&r, 0, sizeof r);
   r.fd = t->fd;
   r.origin = t->origin;
   r.size = t->size;
   r.cap = INDEX_BUF_SIZE;
   r.buf = malloc(r.cap);
   if (!r.buf) {
      pl_error_set(err, 0, "out of memory");
      pl_trace_close(t);
      return NULL;
   }
   index_file(t, &r);
   free(r.buf);
   pl_packed_done(t->packed);  /* the tables are read: the model is done */
   t->packed = NULL;
   if (t->tables) {
      pl_tref_done(&t->tref);
      pl_tables_release(t->tables);
      t->tables = NULL;
   }
   describe_recording(t);
   return t;
}

void pl_trace_close(pl_trace *t)
{
   size_t i;
   if (!t)
      return;
   if (t->fd >= 0)
      close(t->fd);
   for (i = 0; i < t->nthreads; i++) {
      free(t->threads[i].chunks);
      free(t->threads[i].costs);
      free(t->threads[i].times);
      free(t->threads[i].marks);
      free(t->threads[i].tracing);
   }
   for (i = 0; i < t->nblocks; i++)
      free(t->blocks[i]);
   free(t->threads);
   free(t->blocks);
   pl_packed_done(t->packed);
   free(t->fns);
   free(t->aliases);
   free(t->alias_of);
   free(t->objs);
   free(t->proc);
   free(t->pend);
   free(t->proc_data);
   free(t->pend_data);
   free(t->exec_data);
   free(t->recording);
   free(t->path);
   free(t->file);
   free(t->shifts);
   free(t);
}
