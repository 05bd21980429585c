/* SPDX-License-Identifier: MIT */
/* Reader for ParLoT trace files: indexing (pl_trace_*) and event decoding
   (pl_events_*).  The container is specified in docs/trace-format.md. */

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
#include "pl_format.h"
#include "pl_table_pack.h"
#include "pl_tables.h"
#include "pl_alloc.h"
#include "pl_trace.h"

#define INDEX_BUF_SIZE  (1u << 20)  /* read-ahead of the indexing pass */
#define EVENTS_BUF_SIZE (1u << 18)  /* read window of an event iterator */
#define BATCH           4096        /* values decoded per pl_dec_run */
/* An iterator reads the next chunk of its thread in the same read() when
   the bytes of other chunks in between are few: at most this many, or at
   most as many as it is reading anyway (so at least half of what it reads
   is its own). */
#define READ_GAP_MAX    4096

/* A STREAM chunk of one thread: header offset, bytes of stream data, and
   the raw (ZE input) position of the stream where its bytes end. */
typedef struct {
   uint64_t off;
   uint64_t raw_end;
   uint32_t len;
} chunk_ref;

typedef struct {
   pl_thread_info info;
   pl_mark   *marks;          /* MARK chunks, in position order */
   size_t     nmarks, marks_cap;
   pl_tracing *tracing;       /* TRACING chunks, in position order */
   size_t     ntracing, tracing_cap;
   uint64_t   last_position;  /* of the last MARK or TRACING chunk */
   uint64_t   stream_bytes;   /* stream data indexed so far */
   uint64_t   raw_end;        /* raw_end of the last STREAM chunk, 0 if none */
   uint64_t   end_off;        /* offset of the THREAD_END chunk */
   chunk_ref *chunks;
   size_t     nchunks, chunks_cap;
} thread_rec;

/* One ALIASES entry: another name of a function; next: the index + 1 of
   that function's next alias, 0 if last. */
typedef struct {
   pl_name  name;
   uint32_t next;
} alias_rec;

/* A function's aliases: indexes + 1 of its first and last, 0 if none. */
typedef struct {
   uint32_t first, last;
} alias_list;

/* An archive member with shared tables is shorter than the trace it
   stands for by `shift` bytes from stored offset `at` on (until the next
   record): offsets are reported in the trace's own terms. */
typedef struct {
   uint64_t at, shift;
} shift_rec;

struct pl_trace {
   char    *path;             /* file name for messages */
   int      fd;
   uint64_t origin;           /* offset of the trace in the file: 0, or
                                 that of an archive member */
   uint64_t size;             /* trace size (file size when opened) */
   unsigned major, minor;
   pl_tpack *packer;          /* the table model, while PACKED_TABLE chunks
                                 are read (format 2.0) */
   int      in_packed;        /* the table being read was packed: entries
                                 have no file offsets of their own */
   char    *file;             /* the file opened (an archive, for members) */
   int      shared_form;      /* an archive member with shared tables */
   const pl_tables *tables;   /* the archive's shared tables, once a
                                 TABLE_REF chunk is met; then tref reads
                                 the references */
   pl_tref_state tref;
   int      refs_packed;      /* a TABLE_REF stood for a packed chunk */
   shift_rec *shifts;
   size_t   nshifts, shifts_cap;

   uint8_t *proc_data, *pend_data;    /* PROCESS / PROCESS_END payloads */
   pl_kv   *proc, *pend;
   size_t   nproc, npend;
   int      have_pend;

   pl_name     *objs;         /* [0] is the unknown object */
   uint32_t     nobjs;
   size_t       objs_cap;
   pl_function *fns;          /* [0] unused */
   uint32_t     nfns;
   size_t       fns_cap;
   alias_rec   *aliases;      /* in file order */
   size_t       naliases, aliases_cap;
   alias_list  *alias_of;     /* per function ID below alias_of_cap */
   size_t       alias_of_cap;
   uint8_t    **blocks;       /* OBJECTS/FUNCTIONS/ALIASES payloads, names
                                 point in */
   size_t       nblocks, blocks_cap;

   thread_rec *threads;       /* sorted by thread number */
   size_t      nthreads, threads_cap;
   size_t      last_thread;   /* lookup cache: chunks come in runs */

   uint8_t *exec_data;        /* payload of the last EXEC chunk */
   const char *exec_path;     /* its "path", NULL if none or absent */
   uint64_t nexec;            /* EXEC chunks read */
   unsigned last_type;        /* type of the last chunk read */
   int      end;              /* enum pl_trace_end, once the file is read */

   int      damaged;
   pl_error damage;
   char    *recording;        /* pl_trace_recording(), NULL: everything */
   uint64_t table_bytes;      /* OBJECTS, FUNCTIONS and ALIASES chunks,
                                 headers included */
};

static const pl_name unknown_object = { "???", 3 };

void pl_error_set(pl_error *e, uint64_t off, const char *fmt, ...)
{
   va_list ap;
   e->offset = off;
   va_start(ap, fmt);
   vsnprintf(e->msg, sizeof e->msg, fmt, ap);
   va_end(ap);
}

#define ULL(x) ((unsigned long long)(x))

static const char *chunk_name(unsigned type)
{
   static const char *const names[] = {
      "type 0", "PROCESS", "OBJECTS", "FUNCTIONS", "THREAD_BEGIN",
      "STREAM", "THREAD_END", "PROCESS_END", "EXEC", "MARK", "TRACING", "ALIASES",
      "PACKED_TABLE", "TABLE_REF"
   };
   return type < sizeof names / sizeof names[0] ? names[type] : "unknown";
}

/* ---- Reading ----------------------------------------------------------- */

/* A window of file bytes [base, base + len) in buf. */
typedef struct {
   int      fd;
   uint64_t origin;   /* where offset 0 is in the file (archive member) */
   uint64_t size;
   uint8_t *buf;
   size_t   cap;
   uint64_t base;
   size_t   len;
   int      err;      /* errno of a failed read, 0 if none */
} reader;

/* Fill the window with `want` bytes at `off` (all within the file). */
static int rd_fill(reader *r, uint64_t off, size_t want)
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
   if (rd_fill(r, off, want) < 0 && r->len < n)
      return NULL;
   return r->buf;
}

/* ---- Indexing ---------------------------------------------------------- */

/* Record the first damage; the file is read as if it ended at `off`. */
static int damage(pl_trace *t, uint64_t off, const char *fmt, ...)
   __attribute__((format(printf, 3, 4)));

/* Where stored offset off is in the trace a member stands for. */
static uint64_t restored_off(const pl_trace *t, uint64_t off)
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

static int damage(pl_trace *t, uint64_t off, const char *fmt, ...)
{
   va_list ap;
   t->damaged = 1;
   t->damage.offset = restored_off(t, off);
   va_start(ap, fmt);
   vsnprintf(t->damage.msg, sizeof t->damage.msg, fmt, ap);
   va_end(ap);
   return -1;
}

static int read_failed(pl_trace *t, const reader *r, uint64_t off)
{
   if (r->err)
      return damage(t, off, "read error: %s", strerror(r->err));
   return damage(t, off, "truncated: the file shrank while being read");
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
         return damage(t, off + PL_CHUNK_HEADER_SIZE + i,
                       "%s: unterminated key or value", chunk_name(type));
      }
      if (pl_grow(&kv, &cap, count + 1, sizeof *kv)) {
         free(kv);
         return damage(t, off, "out of memory");
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

static const char *kv_get(const pl_kv *kv, size_t n, const char *key)
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
   pid = kv_get(t->proc, t->nproc, "pid");
   if (!pid)
      return damage(t, off, "PROCESS chunk has no pid");
   if (parse_u64(pid, &v) || v > UINT32_MAX)
      return damage(t, off, "PROCESS chunk: bad pid \"%s\"", quoted(q, pid));
   return 0;
}

/* Compare a PROCESS_END total with what the trace holds, if recorded. */
static int check_total(pl_trace *t, uint64_t off, const char *key,
                       uint64_t actual)
{
   const char *s = kv_get(t->pend, t->npend, key);
   char q[4 * QUOTED_MAX + 4];
   uint64_t v;
   if (!s)
      return 0;
   if (parse_u64(s, &v))
      return damage(t, off, "PROCESS_END: bad %s \"%s\"", key, quoted(q, s));
   if (v != actual)
      return damage(t, off, "PROCESS_END records %llu %s, the trace has %llu",
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
         return damage(t, off, "PROCESS_END before the THREAD_END of thread %u",
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
   t->exec_path = kv_get(kv, n, "path");
   free(kv);
   t->nexec++;
   return 0;
}

static int keep_block(pl_trace *t, uint8_t *p)
{
   if (pl_grow(&t->blocks, &t->blocks_cap, t->nblocks + 1,
               sizeof *t->blocks))
      return -1;
   t->blocks[t->nblocks++] = p;
   return 0;
}

/* Length of the NUL-terminated name at p[0..avail), or -1. */
static long name_len(const uint8_t *p, size_t avail)
{
   const uint8_t *z = memchr(p, 0, avail);
   return z ? (long)(z - p) : -1;
}

/* Where damage in the table entry at payload offset i of the chunk at
   off is reported: at the entry, or at the chunk when it was packed. */
static uint64_t entry_off(const pl_trace *t, uint64_t off, size_t i)
{
   return t->in_packed ? off : off + PL_CHUNK_HEADER_SIZE + i;
}

/* The entry at p[i..len) of the table chunk at off (what: its name):
   `fixed` bytes, then a NUL-terminated name; the name's length, or -1 once
   reported as damage. */
static long table_entry(pl_trace *t, uint64_t off, const uint8_t *p,
                        uint32_t len, size_t i, size_t fixed, const char *what)
{
   long n;
   if (len - i < fixed + 1)
      return damage(t, entry_off(t, off, i), "%s: truncated entry", what);
   n = name_len(p + i + fixed, len - i - fixed);
   if (n < 0)
      return damage(t, entry_off(t, off, i), "%s: unterminated name", what);
   return n;
}

static int on_objects(pl_trace *t, uint64_t off, uint8_t *p, uint32_t len)
{
   size_t i = 0;

   if (keep_block(t, p)) {
      free(p);
      return damage(t, off, "out of memory");
   }
   while (i < len) {
      uint32_t id;
      long n = table_entry(t, off, p, len, i, 4, "OBJECTS");
      if (n < 0)
         return -1;
      id = pl_get32(p + i);
      if (id != t->nobjs + 1)
         return damage(t, entry_off(t, off, i), "OBJECTS: object ID %u, expected %u",
                       id, t->nobjs + 1);
      if (pl_grow(&t->objs, &t->objs_cap, (size_t)id + 1, sizeof *t->objs))
         return damage(t, off, "out of memory");
      t->objs[id].str = (const char *)p + i + 4;
      t->objs[id].len = (size_t)n;
      t->nobjs = id;
      i += 4 + (size_t)n + 1;
   }
   return 0;
}

static int on_functions(pl_trace *t, uint64_t off, uint8_t *p, uint32_t len)
{
   size_t i = 0;

   if (keep_block(t, p)) {
      free(p);
      return damage(t, off, "out of memory");
   }
   while (i < len) {
      uint32_t id, obj;
      long n = table_entry(t, off, p, len, i, 16, "FUNCTIONS");
      pl_function *f;
      if (n < 0)
         return -1;
      id = pl_get32(p + i);
      obj = pl_get32(p + i + 4);
      if (id != t->nfns + 1)
         return damage(t, entry_off(t, off, i), "FUNCTIONS: function ID %u, expected %u",
                       id, t->nfns + 1);
      if (obj > t->nobjs)
         return damage(t, entry_off(t, off, i),
                       "FUNCTIONS: function %u names undefined object %u",
                       id, obj);
      if (pl_grow(&t->fns, &t->fns_cap, (size_t)id + 1, sizeof *t->fns))
         return damage(t, off, "out of memory");
      f = &t->fns[id];
      f->name.str = (const char *)p + i + 16;
      f->name.len = (size_t)n;
      f->obj = obj;
      f->addr = pl_get64(p + i + 8);
      t->nfns = id;
      i += 16 + (size_t)n + 1;
   }
   return 0;
}

/* ALIASES: { u32 fn_id; name\0 } of functions defined before. */
static int on_aliases(pl_trace *t, uint64_t off, uint8_t *p, uint32_t len)
{
   size_t i = 0;

   if (keep_block(t, p)) {
      free(p);
      return damage(t, off, "out of memory");
   }
   while (i < len) {
      uint32_t id;
      long n = table_entry(t, off, p, len, i, 4, "ALIASES");
      size_t had = t->alias_of_cap;
      alias_rec *a;
      if (n < 0)
         return -1;
      id = pl_get32(p + i);
      if (id == 0 || id > t->nfns)
         return damage(t, entry_off(t, off, i), "ALIASES: function %u is not defined",
                       id);
      if (t->naliases >= UINT32_MAX
          || pl_grow(&t->aliases, &t->aliases_cap, t->naliases + 1,
                     sizeof *t->aliases)
          || pl_grow(&t->alias_of, &t->alias_of_cap, (size_t)t->nfns + 1,
                     sizeof *t->alias_of))
         return damage(t, off, "out of memory");
      memset(t->alias_of + had, 0,
             (t->alias_of_cap - had) * sizeof *t->alias_of);
      a = &t->aliases[t->naliases];
      a->name.str = (const char *)p + i + 4;
      a->name.len = (size_t)n;
      a->next = 0;
      /* appended: the aliases of one function keep their file order */
      t->naliases++;
      if (t->alias_of[id].last)
         t->aliases[t->alias_of[id].last - 1].next = (uint32_t)t->naliases;
      else
         t->alias_of[id].first = (uint32_t)t->naliases;
      t->alias_of[id].last = (uint32_t)t->naliases;
      i += 4 + (size_t)n + 1;
   }
   return 0;
}

/* Read a table chunk from raw[0..len) as one of `type` at off. */
static int on_table(pl_trace *t, uint64_t off, unsigned type, uint8_t *raw,
                    uint32_t len)
{
   int rc;
   t->in_packed = 1;
   rc = type == PL_CHUNK_OBJECTS ? on_objects(t, off, raw, len)
        : type == PL_CHUNK_FUNCTIONS ? on_functions(t, off, raw, len)
        : on_aliases(t, off, raw, len);
   t->in_packed = 0;
   return rc;
}

/* PACKED_TABLE (2.0): decode the table payload it stands for, with the
   file's table model, and read it as that chunk. */
static int on_packed(pl_trace *t, uint64_t off, uint8_t *p, uint32_t len)
{
   unsigned type = p[0];
   uint32_t raw_len = pl_get32(p + 4);
   const char *why;
   uint8_t *raw;
   int rc;

   t->table_bytes += PL_CHUNK_HEADER_SIZE + (uint64_t)len;
   if (t->refs_packed) {
      free(p);
      return damage(t, off, "PACKED_TABLE chunk after a TABLE_REF chunk that "
                    "stood for one (the table model is not known)");
   }
   if (!pl_tpack_type_ok(type)) {
      free(p);
      return damage(t, off, "PACKED_TABLE chunk: packs chunk type %u, not "
                    "a table", type);
   }
   if (raw_len > PL_TPACK_MAX_RAW) {
      free(p);
      return damage(t, off, "PACKED_TABLE chunk: %u table bytes, more than "
                    "the maximum %u", raw_len, PL_TPACK_MAX_RAW);
   }
   if (!t->packer) {
      t->packer = malloc(sizeof *t->packer);
      if (!t->packer) {
         free(p);
         return damage(t, off, "out of memory");
      }
      pl_tpack_init(t->packer);
   }
   /* +1: a NUL after the payload, as for the other kept payloads */
   raw = malloc((size_t)raw_len + 1);
   if (!raw) {
      free(p);
      return damage(t, off, "out of memory");
   }
   raw[raw_len] = 0;
   rc = pl_tpack_decode(t->packer, type, p + PL_PACKED_PREFIX_SIZE,
                        len - PL_PACKED_PREFIX_SIZE, raw, raw_len, &why);
   free(p);
   if (rc) {
      free(raw);
      return damage(t, off, "PACKED_TABLE chunk: %s", why);
   }
   return on_table(t, off, type, raw, raw_len);
}

/* TABLE_REF (archive members with shared tables, docs/trace-format.md
   11.6): the table chunk it stands for, from the archive's tables. */
static int on_table_ref(pl_trace *t, uint64_t off, uint8_t *p, uint32_t len)
{
   unsigned type, form;
   uint32_t orig_len;
   const char *why;
   uint8_t *raw;
   size_t raw_len;
   pl_error e;
   int rc;

   if (!t->tables) {
      if (!(t->tables = pl_tables_of_archive(t->fd, t->file, &e))) {
         free(p);
         return damage(t, off, "TABLE_REF chunk: %s", e.msg);
      }
      pl_tref_reading(&t->tref, t->tables);
   }
   rc = pl_tref_expand(&t->tref, p, len, &raw, &raw_len, &type, &form,
                       &orig_len, &why);
   free(p);
   if (rc)
      return rc < 0 ? damage(t, off, "out of memory") : damage(t, off, "%s",
                                                                 why);
   if (pl_grow(&t->shifts, &t->shifts_cap, t->nshifts + 1,
               sizeof *t->shifts)) {
      free(raw);
      return damage(t, off, "out of memory");
   }
   t->refs_packed |= form == PL_TREF_PACKED;
   t->table_bytes += PL_CHUNK_HEADER_SIZE + (uint64_t)orig_len;
   rc = on_table(t, off, type, raw, (uint32_t)raw_len);
   if (rc == 0) {
      uint64_t before = t->nshifts ? t->shifts[t->nshifts - 1].shift : 0;
      t->shifts[t->nshifts].at = off + PL_CHUNK_HEADER_SIZE + len;
      t->shifts[t->nshifts].shift = before + orig_len - len;
      t->nshifts++;
   }
   return rc;
}

static int on_thread_begin(pl_trace *t, uint64_t off, uint32_t thr,
                           const uint8_t *p)
{
   thread_rec *th;
   uint32_t number = pl_get32(p), codec = pl_get32(p + 12);

   if (number != thr)
      return damage(t, off, "THREAD_BEGIN of thread %u in a chunk of thread %u",
                    number, thr);
   if (find_thread(t, thr))
      return damage(t, off, "second THREAD_BEGIN of thread %u", thr);
   if (!pl_codec_is_ccm((int)codec) && codec != PL_CODEC_LZRC
       && codec != PL_CODEC_LZZE && codec != PL_CODEC_RAW)
      return damage(t, off, "thread %u: unknown codec %u", thr, codec);
   th = add_thread(t, thr);
   if (!th)
      return damage(t, off, "out of memory");
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
      return damage(t, off, "STREAM chunk of thread %u before its THREAD_BEGIN",
                    thr);
   if (th->info.ended)
      return damage(t, off, "STREAM chunk of thread %u after its THREAD_END",
                    thr);
   if (at != th->stream_bytes)
      return damage(t, off, "thread %u: STREAM chunk at stream offset %llu, "
                    "expected %llu (a chunk is missing)",
                    thr, ULL(at), ULL(th->stream_bytes));
   if (n == 0)
      return damage(t, off, "thread %u: STREAM chunk without stream bytes",
                    thr);
   if (raw_end <= th->raw_end)
      return damage(t, off, "thread %u: STREAM chunk raw_end %llu does not "
                    "follow the previous raw_end %llu",
                    thr, ULL(raw_end), ULL(th->raw_end));
   raw = raw_end - th->raw_end;
   if (raw_end % 2 != 0)
      return damage(t, off, "thread %u: STREAM chunk raw_end %llu is odd",
                    thr, ULL(raw_end));
   /* What the codec can express in n bytes (docs/codec.md 7.1): this
      bounds the work of decoding the chunk, whatever its raw_end says */
   if (th->info.codec == PL_CODEC_RAW && raw != n)
      return damage(t, off, "thread %u: STREAM chunk of %u bytes cannot hold "
                    "%llu raw bytes", thr, n, ULL(raw));
   /* (LZRC's bound needs the match limit of format 1.3) */
   if ((t->major > 1 || t->minor >= 3 || th->info.codec != PL_CODEC_LZRC)
       && raw > pl_codec_max_raw((int)th->info.codec, n))
      return damage(t, off, "thread %u: STREAM chunk of %u bytes cannot hold "
                    "%llu raw bytes (%s: at most %llu)", thr, n, ULL(raw),
                    pl_codec_is_ccm((int)th->info.codec) ? "CCM"
                    : th->info.codec == PL_CODEC_LZRC ? "LZRC" : "LZZE",
                    ULL(pl_codec_max_raw((int)th->info.codec, n)));
   if (pl_grow(&th->chunks, &th->chunks_cap, th->nchunks + 1,
               sizeof *th->chunks))
      return damage(t, off, "out of memory");
   th->chunks[th->nchunks].off = off;
   th->chunks[th->nchunks].raw_end = raw_end;
   th->chunks[th->nchunks].len = n;
   th->nchunks++;
   th->stream_bytes += n;
   th->raw_end = raw_end;
   return 0;
}

static int on_thread_end(pl_trace *t, uint64_t off, uint32_t thr,
                         const uint8_t *p, uint32_t len)
{
   thread_rec *th = find_thread(t, thr);
   pl_thread_info *ti;

   if (!th)
      return damage(t, off, "THREAD_END of thread %u before its THREAD_BEGIN",
                    thr);
   ti = &th->info;
   if (ti->ended)
      return damage(t, off, "second THREAD_END of thread %u", thr);
   ti->events = pl_get64(p);
   ti->words = pl_get64(p + 8);
   ti->raw_bytes = pl_get64(p + 16);
   ti->encoded_bytes = pl_get64(p + 24);
   ti->lwp = pl_get32(p + 32);
   ti->end_reason = pl_get32(p + 36);
   ti->max_depth = pl_get64(p + 40);
   if (len >= PL_THREAD_END_WRITTEN)
      ti->end_signal = pl_get32(p + PL_THREAD_END_SIGNAL);
   if (ti->encoded_bytes != th->stream_bytes)
      return damage(t, off, "THREAD_END of thread %u records %llu stream bytes, "
                    "its STREAM chunks hold %llu",
                    thr, ULL(ti->encoded_bytes), ULL(th->stream_bytes));
   if (ti->raw_bytes != th->raw_end)
      return damage(t, off, "THREAD_END of thread %u records %llu raw bytes, "
                    "its last STREAM chunk ends at raw byte %llu",
                    thr, ULL(ti->raw_bytes), ULL(th->raw_end));
   if (th->last_position > ti->events)
      return damage(t, off, "thread %u: a MARK or TRACING chunk lies at event "
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
      damage(t, off, "%s chunk of thread %u before its THREAD_BEGIN",
             chunk_name(type), thr);
      return NULL;
   }
   if (th->info.ended) {
      damage(t, off, "%s chunk of thread %u after its THREAD_END",
             chunk_name(type), thr);
      return NULL;
   }
   if (position < th->last_position) {
      damage(t, off, "%s chunk of thread %u at event %llu, after one at "
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

   if (keep_block(t, p) < 0) {
      free(p);
      return damage(t, off, "out of memory");
   }
   if (p[len - 1] != 0 || memchr(p + 12, 0, len - 12) != p + len - 1)
      return damage(t, off, "MARK chunk: the label is not one NUL-terminated "
                    "string");
   if (pl_get32(p + 8) == 0)
      return damage(t, off, "MARK chunk: occurrence 0");
   if (!(th = positioned(t, off, PL_CHUNK_MARK, thr, pl_get64(p))))
      return -1;
   if (pl_grow(&th->marks, &th->marks_cap, th->nmarks + 1, sizeof *m))
      return damage(t, off, "out of memory");
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
      return damage(t, off, "TRACING chunk: %u re-created entries where "
                    "tracing stops", n);
   if (!(th = positioned(t, off, PL_CHUNK_TRACING, thr, pl_get64(p))))
      return -1;
   /* the re-created entries lie before any later mark or change */
   th->last_position = pl_get64(p) + n;
   if (pl_grow(&th->tracing, &th->tracing_cap, th->ntracing + 1, sizeof *g))
      return damage(t, off, "out of memory");
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
   default:                    return 0;
   }
}

/* The chunk types of the file's format version: 1.x has types 1-11,
   2.0 adds PACKED_TABLE; TABLE_REF exists only in archive members with
   shared tables (their own magic).  Others are skipped. */
static int known_type(const pl_trace *t, unsigned type)
{
   return type <= PL_CHUNK_ALIASES
          || (t->shared_form && type == PL_CHUNK_TABLE_REF)
          || (t->major >= 2 && type == PL_CHUNK_PACKED_TABLE);
}

/* Whether the index keeps the whole payload of a chunk type. */
static int keeps_payload(const pl_trace *t, unsigned type)
{
   return type == PL_CHUNK_PROCESS || type == PL_CHUNK_PROCESS_END
          || type == PL_CHUNK_OBJECTS || type == PL_CHUNK_FUNCTIONS
          || type == PL_CHUNK_EXEC || type == PL_CHUNK_MARK
          || type == PL_CHUNK_ALIASES
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
         return damage(t, off, "out of memory");
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
      return damage(t, off, "%s chunk: CRC mismatch (stored 0x%08x, "
                    "computed 0x%08x)", chunk_name(type), crc, sum);
   }

   switch (type) {
   case PL_CHUNK_PROCESS:      return on_process(t, off, keep, len);
   case PL_CHUNK_PROCESS_END:  return on_process_end(t, off, keep, len);
   case PL_CHUNK_OBJECTS:
      t->table_bytes += PL_CHUNK_HEADER_SIZE + (uint64_t)len;
      return on_objects(t, off, keep, len);
   case PL_CHUNK_FUNCTIONS:
      t->table_bytes += PL_CHUNK_HEADER_SIZE + (uint64_t)len;
      return on_functions(t, off, keep, len);
   case PL_CHUNK_ALIASES:
      t->table_bytes += PL_CHUNK_HEADER_SIZE + (uint64_t)len;
      return on_aliases(t, off, keep, len);
   case PL_CHUNK_THREAD_BEGIN: return on_thread_begin(t, off, thr, head);
   case PL_CHUNK_STREAM:       return on_stream(t, off, thr, len, head);
   case PL_CHUNK_THREAD_END:   return on_thread_end(t, off, thr, head, len);
   case PL_CHUNK_EXEC:         return on_exec(t, off, keep, len);
   case PL_CHUNK_MARK:         return on_mark(t, off, thr, keep, len);
   case PL_CHUNK_TRACING:      return on_tracing(t, off, thr, head);
   case PL_CHUNK_PACKED_TABLE:
      if (known_type(t, type))
         return on_packed(t, off, keep, len);
      return 0;
   case PL_CHUNK_TABLE_REF:
      if (known_type(t, type))
         return on_table_ref(t, off, keep, len);
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
            damage(t, off, "truncated: chunk header needs %u bytes, %llu "
                   "present", PL_CHUNK_HEADER_SIZE, ULL(t->size - off));
         return;
      }
      type = h[0];
      len = pl_get32(h + 4);
      thr = pl_get32(h + 8);
      thread_chunk = type == PL_CHUNK_THREAD_BEGIN || type == PL_CHUNK_STREAM
                     || type == PL_CHUNK_THREAD_END || type == PL_CHUNK_MARK
                     || type == PL_CHUNK_TRACING;

      if (type == 0) {
         damage(t, off, "invalid chunk type 0");
         return;
      }
      if (len > PL_MAX_PAYLOAD) {
         damage(t, off, "%s chunk: payload length %u exceeds the maximum %u",
                chunk_name(type), len, PL_MAX_PAYLOAD);
         return;
      }
      if (t->have_pend) {
         damage(t, off, "%s chunk after PROCESS_END", chunk_name(type));
         return;
      }
      if (off == PL_FILE_HEADER_SIZE) {
         if (type != PL_CHUNK_PROCESS) {
            damage(t, off, "first chunk is %s, not PROCESS", chunk_name(type));
            return;
         }
      } else if (type == PL_CHUNK_PROCESS) {
         damage(t, off, "second PROCESS chunk");
         return;
      }
      if (known_type(t, type) && len < min_payload(type)) {
         damage(t, off, "%s chunk: payload of %u bytes, at least %u expected",
                chunk_name(type), len, min_payload(type));
         return;
      }
      if (known_type(t, type) && (thr == 0) == thread_chunk) {
         damage(t, off, "%s chunk: bad thread number %u", chunk_name(type), thr);
         return;
      }
      if (len > t->size - off - PL_CHUNK_HEADER_SIZE) {
         damage(t, off, "truncated: %s chunk needs %u payload bytes, %llu "
                "present", chunk_name(type), len,
                ULL(t->size - off - PL_CHUNK_HEADER_SIZE));
         return;
      }
      if (index_chunk(t, r, off, type, thr, len, pl_get32(h + 12)))
         return;
      if (type <= PL_CHUNK_TRACING)   /* skipped unknown types do not count */
         t->last_type = type;
      off += PL_CHUNK_HEADER_SIZE + (uint64_t)len;
   }
   if (t->have_pend)
      t->end = PL_TRACE_EXITED;
   else if (t->last_type == PL_CHUNK_EXEC)
      t->end = PL_TRACE_EXECED;     /* complete: the exec succeeded */
   else if (off == PL_FILE_HEADER_SIZE)
      damage(t, off, "truncated: no chunks after the file header");
   else
      damage(t, off, "truncated: no PROCESS_END or final EXEC chunk (process "
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
   if (rd_fill(&r, 0, t->size < sizeof h ? (size_t)t->size : sizeof h) < 0
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
   free(t->packer);           /* the tables are read: the model is done */
   t->packer = NULL;
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
      free(t->threads[i].marks);
      free(t->threads[i].tracing);
   }
   for (i = 0; i < t->nblocks; i++)
      free(t->blocks[i]);
   free(t->threads);
   free(t->blocks);
   free(t->packer);
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
   return kv_get(t->proc, t->nproc, key);
}

const pl_kv *pl_trace_process_end(const pl_trace *t, size_t *n)
{
   *n = t->npend;
   return t->pend;
}

const char *pl_trace_process_end_get(const pl_trace *t, const char *key)
{
   return kv_get(t->pend, t->npend, key);
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

/* ---- Event decoding ---------------------------------------------------- */

struct pl_events {
   const pl_trace   *t;
   const thread_rec *th;
   reader    r;               /* window over the thread's chunks */
   size_t    next_chunk;      /* next entry of th->chunks to read */
   int       in_chunk;        /* a chunk is being decoded (raw limit set) */
   uint64_t  chunk_off;       /* header offset of the chunk being decoded */
   uint64_t  data_off;        /* file offset of its next unread data byte */
   uint64_t  data_left;       /* its data bytes not yet handed out */
   uint64_t  fed;             /* data bytes handed out in all */
   const uint8_t *in, *in_end;  /* data handed to the decoder */
   int       more_output;     /* last run filled the batch: run again */
   int       state;           /* 0 running, 1 done, -1 failed */
   pl_error  err;             /* the error once failed */
   uint64_t  events;          /* events returned so far */
   uint64_t  enter_end;       /* events before it must be entries: the
                                 inherited stack, or the re-created frames
                                 of a TRACING chunk */
   uint64_t  enter_from;      /* where those entries begin */
   uint64_t  seg_at;          /* position of the next TRACING chunk that
                                 re-creates frames, UINT64_MAX if none */
   size_t    next_seg;        /* its index in th->tracing */
   uint64_t  depth_limit;     /* from THREAD_END, else UINT32_MAX */
   uint32_t *stack;
   size_t    sp, stack_cap;
   pl_decoder dec;
   uint32_t  values[BATCH];
   pl_event  ev[BATCH];
};

pl_events *pl_events_open(const pl_trace *t, size_t index, pl_error *err)
{
   pl_events *it;
   const thread_rec *th;

   if (index >= t->nthreads) {
      pl_error_set(err, 0, "no thread with index %zu", index);
      return NULL;
   }
   th = &t->threads[index];
   it = calloc(1, sizeof *it);
   if (it)
      it->r.buf = malloc(EVENTS_BUF_SIZE);
   if (!it || !it->r.buf) {
      free(it);
      pl_error_set(err, 0, "out of memory");
      return NULL;
   }
   it->t = t;
   it->th = th;
   it->r.fd = t->fd;
   it->r.origin = t->origin;
   it->r.size = t->size;
   it->r.cap = EVENTS_BUF_SIZE;
   it->enter_end = th->info.inherited_depth;
   it->seg_at = UINT64_MAX;
   while (it->next_seg < th->ntracing) {
      if (th->tracing[it->next_seg].recreated) {
         it->seg_at = th->tracing[it->next_seg].position;
         break;
      }
      it->next_seg++;
   }
   it->depth_limit = UINT32_MAX;
   if (th->info.ended && th->info.max_depth < it->depth_limit)
      it->depth_limit = th->info.max_depth;
   pl_dec_init(&it->dec, (int)th->info.codec);
   /* matches were bounded from format 1.3 on (pl_codec.h PL_MAX_MATCH) */
   it->dec.long_matches = t->major == 1 && t->minor < 3;
   return it;
}

void pl_events_close(pl_events *it)
{
   if (!it)
      return;
   free(it->r.buf);
   free(it->stack);
   free(it);
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
   return restored_off(t, t->size);
}

uint64_t pl_trace_table_bytes(const pl_trace *t)
{
   return t->table_bytes;
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

uint64_t pl_events_position(const pl_events *it)
{
   return it->fed - (uint64_t)(it->in_end - it->in);
}

const uint32_t *pl_events_stack(const pl_events *it, size_t *depth)
{
   *depth = it->sp;
   return it->stack;
}

static long fail(pl_events *it, uint64_t off, const char *fmt, ...)
   __attribute__((format(printf, 3, 4)));

static long fail(pl_events *it, uint64_t off, const char *fmt, ...)
{
   va_list ap;
   it->state = -1;
   it->err.offset = restored_off(it->t, off);
   va_start(ap, fmt);
   vsnprintf(it->err.msg, sizeof it->err.msg, fmt, ap);
   va_end(ap);
   return -1;
}

/* Read the window for the current chunk's next data, taking following
   chunks of the thread along when little else lies in between. */
static int refill(pl_events *it)
{
   const thread_rec *th = it->th;
   uint64_t start = it->data_off, end;
   size_t cap = it->r.cap, j;

   if (it->data_left >= cap) {
      end = start + cap;
   } else {
      end = start + it->data_left;
      for (j = it->next_chunk; j < th->nchunks; j++) {
         uint64_t cs = th->chunks[j].off + PL_CHUNK_HEADER_SIZE
                       + PL_STREAM_PREFIX_SIZE;
         uint64_t ce = cs + th->chunks[j].len;
         if (ce - start > cap
             || (cs - end > READ_GAP_MAX && cs - end > end - start))
            break;
         end = ce;
      }
   }
   if (end > it->r.size || rd_fill(&it->r, start, (size_t)(end - start)) < 0)
      return -1;
   return 0;
}

/* Hand the decoder the next piece of stream data: 1, or 0 at the end of
   the thread's data, or -1 (failed).  A new chunk starts with its raw_end
   as the decoder's raw limit: the chunk's bytes decode to exactly that. */
static int feed(pl_events *it)
{
   size_t n;
   uint64_t avail;

   if (it->data_left == 0) {
      const chunk_ref *c;
      if (it->next_chunk == it->th->nchunks)
         return 0;
      c = &it->th->chunks[it->next_chunk++];
      it->chunk_off = c->off;
      it->data_off = c->off + PL_CHUNK_HEADER_SIZE + PL_STREAM_PREFIX_SIZE;
      it->data_left = c->len;
      it->in_chunk = 1;
      pl_dec_set_raw_limit(&it->dec, c->raw_end);
   }
   if (it->data_off < it->r.base || it->data_off >= it->r.base + it->r.len) {
      if (refill(it) < 0) {
         if (it->r.err)
            return (int)fail(it, it->data_off, "read error: %s",
                             strerror(it->r.err));
         return (int)fail(it, it->data_off,
                          "truncated: the file shrank while being read");
      }
   }
   avail = it->r.base + it->r.len - it->data_off;
   n = (size_t)(avail < it->data_left ? avail : it->data_left);
   it->in = it->r.buf + (it->data_off - it->r.base);
   it->in_end = it->in + n;
   it->data_off += n;
   it->data_left -= n;
   it->fed += n;
   return 1;
}

/* A stream error found by the codec: where the decoder stopped reading. */
static long corrupt(pl_events *it)
{
   return fail(it, it->r.base + (uint64_t)(it->in - it->r.buf),
               "thread %u: corrupt stream: %s", it->th->info.number,
               it->dec.error ? it->dec.error : "?");
}

/* All of a chunk's bytes are decoded (and every value they yield): they
   must have produced exactly its raw_end. */
static int end_chunk(pl_events *it)
{
   it->in_chunk = 0;
   if (it->dec.error)
      return (int)corrupt(it);
   if (pl_dec_end_chunk(&it->dec) < 0)
      return (int)fail(it, it->chunk_off, "thread %u: corrupt stream: %s "
                       "(STREAM chunk raw_end %llu, its bytes give %llu)",
                       it->th->info.number, it->dec.error,
                       ULL(it->dec.raw_limit), ULL(it->dec.raw_bytes));
   return 0;
}

/* All data decoded: check the stream against its THREAD_END record. */
static long finish(pl_events *it)
{
   const pl_thread_info *ti = &it->th->info;
   uint64_t off = it->th->end_off;

   if (!ti->ended) {
      /* No THREAD_END: the stream ends with its last chunk.  After a
         successful exec every stream was synced, so it must end on an
         event boundary; in a truncated trace a partial event at the end
         is dropped (pl_trace_damage() reports the truncation). */
      if (it->t->end == PL_TRACE_EXECED && !it->t->damaged
          && !pl_dec_at_boundary(&it->dec))
         return fail(it, it->th->nchunks
                     ? it->th->chunks[it->th->nchunks - 1].off : 0,
                     "thread %u: the stream ends inside an event at the "
                     "final EXEC", ti->number);
      it->state = 1;
      return 0;
   }
   if (it->dec.raw_bytes != ti->raw_bytes)
      return fail(it, off, "thread %u: the stream holds %llu raw bytes, "
                  "THREAD_END records %llu", ti->number,
                  ULL(it->dec.raw_bytes), ULL(ti->raw_bytes));
   if (!pl_dec_at_boundary(&it->dec))
      return fail(it, off, "thread %u: the stream ends inside an event",
                  ti->number);
   if (it->events != ti->events)
      return fail(it, off, "thread %u: the stream holds %llu events, "
                  "THREAD_END records %llu", ti->number,
                  ULL(it->events), ULL(ti->events));
   /* a fatal signal leaves the frames open then (2.3) */
   if (it->sp != 0 && ti->end_reason != PL_END_SIGNAL)
      return fail(it, off, "thread %u: %zu frames still open at THREAD_END",
                  ti->number, it->sp);
   it->state = 1;
   return 0;
}

static int grow_stack(pl_events *it)
{
   size_t ncap = it->stack_cap ? it->stack_cap * 2 : 256;
   uint32_t *s;
   if (ncap > it->depth_limit)
      ncap = (size_t)it->depth_limit;
   s = realloc(it->stack, ncap * sizeof *s);
   if (!s)
      return -1;
   it->stack = s;
   it->stack_cap = ncap;
   return 0;
}

/* Event number seg_at begins entries re-creating open frames: they must
   all be entries; find the next such point.  Entries that must come
   anyway (the inherited ones, in a damaged trace those of an earlier
   TRACING chunk) are not cut short by it. */
static void next_segment(pl_events *it)
{
   const thread_rec *th = it->th;
   const pl_tracing *g = &th->tracing[it->next_seg];
   if (g->position >= it->enter_end)
      it->enter_from = g->position;
   if (g->position + g->recreated > it->enter_end)
      it->enter_end = g->position + g->recreated;
   it->seg_at = UINT64_MAX;
   while (++it->next_seg < th->ntracing)
      if (th->tracing[it->next_seg].recreated) {
         it->seg_at = th->tracing[it->next_seg].position;
         break;
      }
}

/* Turn n decoded values into events, replaying the call stack.  Returns
   how many are valid: fewer than n after an error (it->state == -1). */
static size_t replay(pl_events *it, size_t n)
{
   const uint32_t *v = it->values;
   pl_event *ev = it->ev;
   uint32_t nfns = it->t->nfns;
   uint32_t number = it->th->info.number;
   uint32_t *stack = it->stack;
   size_t sp = it->sp, cap = it->stack_cap, i;

   for (i = 0; i < n; i++) {
      uint32_t x = v[i];
      if (it->events + i == it->seg_at)
         next_segment(it);
      if (x == PL_WORD_EXIT) {
         if (sp == 0 || it->events + i < it->enter_end)
            break;
         ev[i].fn = stack[--sp];
         ev[i].depth = (uint32_t)sp + 1;
         ev[i].kind = PL_EV_RETURN;
      } else {
         if (x > nfns)
            break;
         if (sp == cap) {
            it->sp = sp;
            if (sp >= it->depth_limit || grow_stack(it) < 0)
               break;
            stack = it->stack;
            cap = it->stack_cap;
         }
         stack[sp++] = x;
         ev[i].fn = x;
         ev[i].depth = (uint32_t)sp;
         ev[i].kind = PL_EV_CALL;
      }
   }
   it->sp = sp;
   if (i < n) {
      uint64_t e = it->events + i + 1;
      uint32_t x = v[i];
      if (x == PL_WORD_EXIT && e <= it->th->info.inherited_depth)
         fail(it, it->chunk_off, "thread %u, event %llu: exit among the %u "
              "inherited entries", number, ULL(e),
              it->th->info.inherited_depth);
      else if (x == PL_WORD_EXIT && e <= it->enter_end)
         fail(it, it->chunk_off, "thread %u, event %llu: exit among the %llu "
              "entries re-creating open frames after event %llu (TRACING "
              "chunk)", number, ULL(e), ULL(it->enter_end - it->enter_from),
              ULL(it->enter_from));
      else if (x == PL_WORD_EXIT)
         fail(it, it->chunk_off, "thread %u, event %llu: exit with an empty "
              "call stack", number, ULL(e));
      else if (x > nfns)
         fail(it, it->chunk_off, "thread %u, event %llu: unknown function ID "
              "%u (%u defined)", number, ULL(e), x, nfns);
      else if (sp >= it->depth_limit)
         fail(it, it->chunk_off, "thread %u, event %llu: call depth exceeds "
              "%llu", number, ULL(e), ULL(it->depth_limit));
      else
         fail(it, it->chunk_off, "thread %u, event %llu: out of memory for a "
              "call stack of depth %zu", number, ULL(e), sp + 1);
   }
   it->events += i;
   return i;
}

long pl_events_next(pl_events *it, const pl_event **ev, pl_error *err)
{
   const pl_thread_info *ti = &it->th->info;

   while (it->state == 0) {
      const uint8_t *before;
      long n;
      size_t cap = BATCH, k;

      if (it->in == it->in_end && !it->more_output) {
         int f;
         if (it->in_chunk && it->data_left == 0 && end_chunk(it) < 0)
            break;
         f = feed(it);
         if (f < 0)
            break;
         if (f == 0) {
            finish(it);
            break;
         }
      }
      /* With a THREAD_END record, never decode more than it announces:
         a corrupt match length could otherwise run for ages. */
      if (ti->ended && ti->events - it->events < cap)
         cap = (size_t)(ti->events - it->events) + 1;
      before = it->in;
      n = pl_dec_run(&it->dec, &it->in, it->in_end, it->values, cap);
      if (n < 0) {
         corrupt(it);
         break;
      }
      it->more_output = (size_t)n == cap;
      if (n == 0) {
         if (it->in == before && it->in != it->in_end) {
            fail(it, it->r.base + (uint64_t)(it->in - it->r.buf),
                 "thread %u: corrupt stream: decoder made no progress",
                 ti->number);
            break;
         }
         continue;
      }
      if (ti->ended && it->events + (uint64_t)n > ti->events) {
         /* report it after the events THREAD_END does account for */
         n = (long)(ti->events - it->events);
         k = replay(it, (size_t)n);
         if (it->state == 0)
            fail(it, it->chunk_off, "thread %u: the stream holds more than "
                 "the %llu events THREAD_END records", ti->number,
                 ULL(ti->events));
      } else {
         k = replay(it, (size_t)n);
      }
      if (k > 0) {
         *ev = it->ev;
         return (long)k;
      }
   }
   if (it->state < 0) {
      *err = it->err;
      return -1;
   }
   return 0;
}
