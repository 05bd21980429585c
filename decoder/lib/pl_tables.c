/* SPDX-License-Identifier: MIT */
/* An archive's shared tables and the TABLE_REF chunks of its members
   (pl_tables.h; format: docs/trace-format.md 11.6). */

#define _FILE_OFFSET_BITS 64
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl_archive_private.h"
#include "pl_format.h"
#include "pl_hash.h"
#include "pl_tables.h"

/* ---- the tables --------------------------------------------------------- */

void pl_tables_init(pl_tables *t)
{
   memset(t, 0, sizeof *t);
}

void pl_tables_free(pl_tables *t)
{
   for (int k = 0; k < PL_TK_KINDS; k++) {
      free(t->e[k]);
      free(t->slots[k]);
      free(t->stamp[k]);
   }
   free(t->alias_first);
   free(t->arena);
   memset(t, 0, sizeof *t);
}

static const char *ename(const pl_tables *t, const pl_tentry *e)
{
   return t->arena + e->name;
}

static uint64_t ehash(int kind, uint32_t link, uint64_t addr,
                      const char *name, size_t len)
{
   uint64_t h = pl_fnv1a_step(PL_FNV1A_INIT, (uint64_t)kind);
   h = pl_fnv1a_step(h, link);
   h = pl_fnv1a_step(h, addr);
   return pl_fnv1a(h, name, len);
}

/* Put entry id of kind k in its lookup table (which has room). */
static void slot_put(pl_tables *t, int k, uint32_t id)
{
   const pl_tentry *e = &t->e[k][id];
   size_t mask = ((size_t)1 << t->bits[k]) - 1;
   size_t s = (size_t)pl_golden_slot(ehash(k, e->link, e->addr, ename(t, e),
                                           e->len), t->bits[k]);
   while (t->slots[k][s])
      s = (s + 1) & mask;
   t->slots[k][s] = id;
}

/* Rebuild kind k's lookup table for at least `need` entries. */
static int rehash(pl_tables *t, int k, uint32_t need)
{
   unsigned bits = 10;
   while (((size_t)1 << bits) < 2 * (size_t)need + 2)
      bits++;
   free(t->slots[k]);
   t->slots[k] = calloc((size_t)1 << bits, sizeof *t->slots[k]);
   if (!t->slots[k])
      return -1;
   t->bits[k] = bits;
   for (uint32_t id = 1; id <= t->n[k]; id++)
      slot_put(t, k, id);
   return 0;
}

/* The aliases' lists, from their IDs (in each function's order). */
static int relink_aliases(pl_tables *t)
{
   uint32_t *last;
   if (pl_grow(&t->alias_first, &t->alias_first_cap,
               (size_t)t->n[PL_TK_FN] + 1, sizeof *t->alias_first) < 0
       || !(last = calloc((size_t)t->n[PL_TK_FN] + 1, sizeof *last)))
      return -1;
   memset(t->alias_first, 0, t->alias_first_cap * sizeof *t->alias_first);
   for (uint32_t id = 1; id <= t->n[PL_TK_ALIAS]; id++) {
      pl_tentry *a = &t->e[PL_TK_ALIAS][id];
      a->next = 0;
      if (last[a->link])
         t->e[PL_TK_ALIAS][last[a->link]].next = id;
      else
         t->alias_first[a->link] = id;
      last[a->link] = id;
   }
   free(last);
   return 0;
}

/* The ID of the entry of kind k (link, addr, name), added if new; 0 if
   out of memory. */
static uint32_t intern(pl_tables *t, int k, uint32_t link, uint64_t addr,
                       const char *name, size_t len)
{
   size_t mask, s;
   uint32_t id;
   pl_tentry *e;

   if (((size_t)t->n[k] + 1) * 2 >= ((size_t)1 << t->bits[k])
       && rehash(t, k, t->n[k] + 1) < 0)
      return 0;
   mask = ((size_t)1 << t->bits[k]) - 1;
   s = (size_t)pl_golden_slot(ehash(k, link, addr, name, len), t->bits[k]);
   for (; (id = t->slots[k][s]) != 0; s = (s + 1) & mask) {
      e = &t->e[k][id];
      if (e->link == link && e->addr == addr && e->len == len
          && memcmp(ename(t, e), name, len) == 0)
         return id;
   }
   if (t->n[k] == UINT32_MAX - 1
       || pl_grow(&t->e[k], &t->cap[k], (size_t)t->n[k] + 2, sizeof *e) < 0
       || pl_grow(&t->arena, &t->acap, t->alen + len + 1, 1) < 0)
      return 0;
   id = ++t->n[k];
   e = &t->e[k][id];
   memset(e, 0, sizeof *e);
   e->name = t->alen;
   e->len = (uint32_t)len;
   e->link = link;
   e->addr = addr;
   memcpy(t->arena + t->alen, name, len);
   t->arena[t->alen + len] = 0;
   t->alen += len + 1;
   t->slots[k][s] = id;
   if (k == PL_TK_ALIAS) {        /* last in its function's list */
      uint32_t *at;
      size_t had = t->alias_first_cap;
      if (pl_grow(&t->alias_first, &t->alias_first_cap, (size_t)link + 1,
                  sizeof *t->alias_first) < 0)
         return 0;
      memset(t->alias_first + had, 0,
             (t->alias_first_cap - had) * sizeof *t->alias_first);
      at = &t->alias_first[link];
      while (*at) {
         e->ordinal++;
         at = &t->e[k][*at].next;
      }
      *at = id;
   }
   return id;
}

void pl_tables_save(const pl_tables *t, pl_tables_mark *m)
{
   memcpy(m->n, t->n, sizeof m->n);
   m->alen = t->alen;
}

int pl_tables_undo(pl_tables *t, const pl_tables_mark *m)
{
   memcpy(t->n, m->n, sizeof t->n);
   t->alen = m->alen;
   for (int k = 0; k < PL_TK_KINDS; k++)
      if (t->slots[k] && rehash(t, k, t->n[k]) < 0)
         return -1;
   return relink_aliases(t);
}

/* ---- the tables section ------------------------------------------------- */

/* Kind k's entries, all of them, as a table payload in *raw: objects and
   functions in ID order, aliases grouped by function (11.6). */
static void kind_payload(const pl_tables *t, int k, pl_wbuf *raw)
{
   raw->len = 0;
   if (k == PL_TK_ALIAS) {
      for (uint32_t f = 1; f <= t->n[PL_TK_FN]; f++)
         for (uint32_t a = f < t->alias_first_cap ? t->alias_first[f] : 0;
              a; a = t->e[k][a].next) {
            pl_wire_u32(raw, f);
            pl_wire_put(raw, ename(t, &t->e[k][a]),
                        (size_t)t->e[k][a].len + 1);
         }
      return;
   }
   for (uint32_t id = 1; id <= t->n[k]; id++) {
      const pl_tentry *e = &t->e[k][id];
      pl_wire_u32(raw, id);
      if (k == PL_TK_FN) {
         pl_wire_u32(raw, e->link);
         pl_wire_u64(raw, e->addr);
      }
      pl_wire_put(raw, ename(t, e), (size_t)e->len + 1);
   }
}

static void put_chunk(pl_wbuf *out, unsigned type, const uint8_t *p,
                      size_t n)
{
   uint8_t h[PL_CHUNK_HEADER_SIZE];
   pl_chunk_header(h, type, 0, p, (uint32_t)n);
   pl_wire_put(out, h, sizeof h);
   pl_wire_put(out, p, n);
}

/* The PACKED_TABLE payload for the n (<= PL_TPACK_MAX_RAW) table bytes of
   `type` at raw, coded with model m into out (room for
   PL_PACKED_PREFIX_SIZE + PL_TPACK_MAX_OUT(n) bytes); its length. */
static size_t pack_payload(pl_tpack *m, unsigned type, const uint8_t *raw,
                           size_t n, uint8_t *out)
{
   out[0] = (uint8_t)type;
   out[1] = out[2] = out[3] = 0;
   pl_put32(out + 4, (uint32_t)n);
   return PL_PACKED_PREFIX_SIZE
          + pl_tpack_encode(m, type, raw, n, out + PL_PACKED_PREFIX_SIZE);
}

/* Code raw (a table payload of `type`) as PACKED_TABLE chunks with model m,
   the way the tool does: as many entries a chunk as fit. */
static void put_packed(pl_wbuf *out, pl_tpack *m, unsigned type,
                       const uint8_t *raw, size_t n, uint8_t *coded)
{
   while (n > 0) {
      size_t piece = pl_tpack_piece(type, raw, n);
      if (piece > PL_TPACK_MAX_RAW)
         put_chunk(out, type, raw, piece);
      else
         put_chunk(out, PL_CHUNK_PACKED_TABLE, coded,
                   pack_payload(m, type, raw, piece, coded));
      raw += piece;
      n -= piece;
   }
}

int pl_tables_write(const pl_tables *t, pl_wbuf *out)
{
   static const char proc[] = "pid\0" "0\0" "archive_tables\0" "1";
   static const unsigned types[PL_TK_KINDS] = {
      PL_CHUNK_OBJECTS, PL_CHUNK_FUNCTIONS, PL_CHUNK_ALIASES
   };
   uint8_t h[PL_FILE_HEADER_SIZE];
   pl_tpack *m = malloc(sizeof *m);
   uint8_t *coded = malloc(PL_PACKED_PREFIX_SIZE
                           + PL_TPACK_MAX_OUT(PL_TPACK_MAX_RAW));
   pl_wbuf raw = { 0 };

   if (!m || !coded) {
      free(m);
      free(coded);
      return -1;
   }
   pl_tpack_init(m);
   pl_file_header(h, PL_VERSION_MAJOR, PL_VERSION_MINOR);
   pl_wire_put(out, h, sizeof h);
   put_chunk(out, PL_CHUNK_PROCESS, (const uint8_t *)proc, sizeof proc);
   for (int k = 0; k < PL_TK_KINDS && !raw.failed; k++) {
      kind_payload(t, k, &raw);
      if (!raw.failed)
         put_packed(out, m, types[k], raw.b, raw.len, coded);
   }
   /* the totals, so that a cut section is found out */
   raw.len = 0;
   pl_wire_put(&raw, "threads\0" "0\0" "functions", 20);
   {
      char num[16];
      int k = snprintf(num, sizeof num, "%u", t->n[PL_TK_FN]);
      pl_wire_put(&raw, num, (size_t)k + 1);
   }
   if (!raw.failed)
      put_chunk(out, PL_CHUNK_PROCESS_END, raw.b, raw.len);
   free(m);
   free(coded);
   free(raw.b);
   if (raw.failed)
      out->failed = 1;
   return out->failed ? -1 : 0;
}

/* Read the tables section [off, off + size) of the archive at path. */
static int load_section(pl_tables *t, const char *path, uint64_t off,
                        uint64_t size, pl_error *err)
{
   pl_trace *tr = pl_trace_open_member(path, off, size, "tables", err);
   const pl_error *d;
   uint32_t nobj, nfn;

   if (!tr)
      return -1;
   if ((d = pl_trace_damage(tr)) != NULL) {
      pl_error_set(err, off + d->offset, "archive tables: %s", d->msg);
      pl_trace_close(tr);
      return -1;
   }
   nobj = pl_trace_nobjects(tr);
   nfn = pl_trace_nfunctions(tr);
   for (uint32_t i = 1; i <= nobj; i++) {
      const pl_name *n = pl_trace_object(tr, i);
      if (intern(t, PL_TK_OBJ, 0, 0, n->str, n->len) != i)
         goto oom;
   }
   for (uint32_t i = 1; i <= nfn; i++) {
      const pl_function *f = pl_trace_function(tr, i);
      if (intern(t, PL_TK_FN, f->obj, f->addr, f->name.str, f->name.len)
          != i)
         goto oom;
   }
   for (uint32_t i = 1; i <= nfn; i++) {
      const pl_name *a;
      for (size_t k = 0; (a = pl_trace_function_alias(tr, i, k)); k++)
         if (!intern(t, PL_TK_ALIAS, i, 0, a->str, a->len))
            goto oom;
   }
   pl_trace_close(tr);
   return 0;
oom:
   /* an entry given twice would come back with the first one's ID */
   pl_error_set(err, off, "archive tables: out of memory or an entry "
                "defined twice");
   pl_trace_close(tr);
   return -1;
}

/* Loaded tables, one per archive file, kept while in use and the last
   few after. */
typedef struct cached {
   dev_t dev;
   ino_t ino;
   off_t size;
   struct timespec mtime;
   unsigned refs;
   pl_tables t;
   struct cached *next;
} cached;

#define CACHE_KEEP 4
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static cached *cache;

const pl_tables *pl_tables_of_archive(int fd, const char *path,
                                      pl_error *err)
{
   struct stat st;
   uint64_t off, size;
   cached *c;

   if (fstat(fd, &st) < 0) {
      pl_error_set(err, 0, "cannot stat: %s", strerror(errno));
      return NULL;
   }
   pthread_mutex_lock(&cache_lock);
   for (c = cache; c; c = c->next)
      if (c->dev == st.st_dev && c->ino == st.st_ino
          && c->size == st.st_size
          && c->mtime.tv_sec == st.st_mtim.tv_sec
          && c->mtime.tv_nsec == st.st_mtim.tv_nsec)
         break;
   if (!c && pl_archive_tables_at(fd, (uint64_t)st.st_size, &off, &size,
                                  err) == 0) {
      c = calloc(1, sizeof *c);
      if (!c)
         pl_error_set(err, 0, "out of memory");
      else if (load_section(&c->t, path, off, size, err) < 0) {
         pl_tables_free(&c->t);
         free(c);
         c = NULL;
      } else {
         c->dev = st.st_dev;
         c->ino = st.st_ino;
         c->size = st.st_size;
         c->mtime = st.st_mtim;
         c->next = cache;
         cache = c;
      }
   }
   if (c)
      c->refs++;
   pthread_mutex_unlock(&cache_lock);
   return c ? &c->t : NULL;
}

void pl_tables_release(const pl_tables *t)
{
   cached **at, *c;
   unsigned kept = 0;

   if (!t)
      return;
   pthread_mutex_lock(&cache_lock);
   for (at = &cache; (c = *at) != NULL;) {
      if (&c->t == t)
         c->refs--;
      if (c->refs == 0 && ++kept > CACHE_KEEP) {
         *at = c->next;
         pl_tables_free(&c->t);
         free(c);
         continue;
      }
      at = &c->next;
   }
   pthread_mutex_unlock(&cache_lock);
}

/* ---- a member's references ---------------------------------------------- */

void pl_tref_reading(pl_tref_state *s, const pl_tables *t)
{
   memset(s, 0, sizeof *s);
   s->t = t;
   s->next[0] = s->next[1] = 1;
}

void pl_tref_writing(pl_tref_state *s, pl_tables *t)
{
   pl_tref_reading(s, t);
   s->w = t;
   t->member++;
}

void pl_tref_done(pl_tref_state *s)
{
   for (int k = 0; k < 2; k++) {
      free(s->to_local[k]);
      free(s->to_table[k]);
   }
   free(s->model);
   memset(s, 0, sizeof *s);
}

/* The kind of entries a table chunk type holds. */
static int kind_of(unsigned type)
{
   return type == PL_CHUNK_OBJECTS ? PL_TK_OBJ
          : type == PL_CHUNK_FUNCTIONS ? PL_TK_FN : PL_TK_ALIAS;
}

static uint64_t zigzag(int64_t v)
{
   return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
   return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* A member defines table entry id of kind k (0 or 1): 0; 1 if it did
   already (it cannot be shared); -1 if out of memory. */
static int define_once(pl_tref_state *s, int k, uint32_t id)
{
   pl_tables *t = s->w;
   uint32_t local = s->local[k] + 1;
   size_t had = t->stamp_cap[k];
   if (pl_grow(&t->stamp[k], &t->stamp_cap[k], (size_t)id + 1,
               sizeof *t->stamp[k]) < 0
       || pl_grow(&s->to_table[k], &s->to_table_cap[k], (size_t)local + 1,
                  sizeof *s->to_table[k]) < 0)
      return -1;
   memset(t->stamp[k] + had, 0, (t->stamp_cap[k] - had) * sizeof *t->stamp[k]);
   if (t->stamp[k][id] == t->member)
      return 1;
   t->stamp[k][id] = t->member;
   s->to_table[k][local] = id;
   s->local[k] = local;
   return 0;
}

/* The runs of consecutive IDs ids[0..n) of kind k. */
static void put_runs(pl_tref_state *s, int k, const uint32_t *ids, size_t n,
                     pl_wbuf *out)
{
   size_t i = 0;
   while (i < n) {
      size_t j = i + 1;
      while (j < n && ids[j] == ids[j - 1] + 1)
         j++;
      pl_wire_varint(out, zigzag((int64_t)ids[i] - (int64_t)s->next[k]));
      pl_wire_varint(out, j - i);
      s->next[k] = ids[j - 1] + 1;
      i = j;
   }
}

int pl_tref_share(pl_tref_state *s, unsigned type, const uint8_t *raw,
                  size_t n, unsigned form, uint32_t orig_len, pl_wbuf *out)
{
   pl_tables *t = s->w;
   uint32_t *ids = NULL, count = 0;
   size_t cap = 0, i = 0, fixed = type == PL_CHUNK_FUNCTIONS ? 16 : 4;
   int k = kind_of(type);
   uint8_t head[PL_TREF_HEAD];
   size_t at;
   int r = 0;

   head[0] = (uint8_t)type;
   head[1] = (uint8_t)form;
   head[2] = head[3] = 0;
   pl_put32(head + 4, orig_len);
   at = out->len;
   pl_wire_put(out, head, sizeof head);
   while (i < n && r == 0) {
      const uint8_t *z;
      uint32_t id = pl_get32(raw + i), link = 0, tid;
      uint64_t addr = 0;
      size_t len;
      if (n - i < fixed + 1 || !(z = memchr(raw + i + fixed, 0,
                                            n - i - fixed))) {
         r = 1;
         break;
      }
      len = (size_t)(z - (raw + i + fixed));
      if (k == PL_TK_ALIAS) {
         if (id == 0 || id > s->local[PL_TK_FN]) {
            r = 1;
            break;
         }
         link = s->to_table[PL_TK_FN][id];
      } else {
         uint32_t obj = k == PL_TK_FN ? pl_get32(raw + i + 4) : 0;
         if (id != s->local[k] + 1 || obj > s->local[PL_TK_OBJ]) {
            r = 1;
            break;
         }
         if (k == PL_TK_FN) {
            link = obj ? s->to_table[PL_TK_OBJ][obj] : 0;
            addr = pl_get64(raw + i + 8);
         }
      }
      tid = intern(t, k, link, addr, (const char *)raw + i + fixed, len);
      if (!tid)
         r = -1;
      else if (k == PL_TK_ALIAS) {     /* (function, ordinal) */
         pl_wire_varint(out, zigzag((int64_t)link - (int64_t)s->last_fn));
         pl_wire_varint(out, t->e[k][tid].ordinal);
         s->last_fn = link;
      } else if ((r = define_once(s, k, tid)) == 0) {
         if (pl_grow(&ids, &cap, (size_t)count + 1, sizeof *ids) < 0)
            r = -1;
         else
            ids[count] = tid;
      }
      count++;
      i += fixed + len + 1;
   }
   if (r == 0 && k != PL_TK_ALIAS)
      put_runs(s, k, ids, count, out);
   free(ids);
   if (out->failed)
      r = -1;
   if (r == 0)
      pl_put32(out->b + at + 8, count);
   return r;
}

int pl_tref_expand(pl_tref_state *s, const uint8_t *p, size_t n,
                   uint8_t **raw, size_t *raw_len, unsigned *type,
                   unsigned *form, uint32_t *orig_len, const char **why)
{
   const pl_tables *t = s->t;
   pl_rbuf r = { p + PL_TREF_HEAD, p + n, 0, 0 };
   pl_wbuf w = { 0 };
   uint32_t count, done = 0;
   size_t limit;
   int k;

   *why = "TABLE_REF chunk: bad references";
   if (n < PL_TREF_HEAD || !pl_tpack_type_ok(p[0]) || p[1] > PL_TREF_PACKED)
      return 1;
   *type = p[0];
   *form = p[1];
   *orig_len = pl_get32(p + 4);
   count = pl_get32(p + 8);
   k = kind_of(*type);
   limit = *form == PL_TREF_PACKED ? PL_TPACK_MAX_RAW : PL_MAX_PAYLOAD;
   for (int j = 0; j < 2; j++) {
      size_t had = s->to_local_cap[j], need = (size_t)t->n[j] + 1;
      if (!s->to_local[j]) {      /* calloc: untouched pages cost nothing */
         if (!(s->to_local[j] = calloc(need, sizeof *s->to_local[j])))
            return -1;
         s->to_local_cap[j] = need;
      } else if (need > had) {    /* tables being written grow */
         if (pl_grow(&s->to_local[j], &s->to_local_cap[j], need,
                     sizeof *s->to_local[j]) < 0)
            return -1;
         memset(s->to_local[j] + had, 0,
                (s->to_local_cap[j] - had) * sizeof *s->to_local[j]);
      }
   }
   while (done < count && !r.bad && w.len <= limit) {
      int64_t d = unzigzag(pl_wire_get_varint(&r));
      if (k == PL_TK_ALIAS) {
         int64_t f = (int64_t)s->last_fn + d;
         uint64_t ord = pl_wire_get_varint(&r);
         uint32_t a;
         if (r.bad || f < 1 || f > (int64_t)t->n[PL_TK_FN]
             || !s->to_local[PL_TK_FN][f])
            break;
         a = (size_t)f < t->alias_first_cap ? t->alias_first[f] : 0;
         while (a && ord--)
            a = t->e[k][a].next;
         if (!a)
            break;
         pl_wire_u32(&w, s->to_local[PL_TK_FN][f]);
         pl_wire_put(&w, ename(t, &t->e[k][a]), (size_t)t->e[k][a].len + 1);
         s->last_fn = (uint32_t)f;
         done++;
         continue;
      }
      int64_t start = (int64_t)s->next[k] + d;
      uint64_t len = pl_wire_get_varint(&r);
      if (r.bad || len == 0 || len > count - done || start < 1
          || (uint64_t)start + len - 1 > t->n[k])
         break;
      for (uint64_t id = (uint64_t)start; id < (uint64_t)start + len
                                         && w.len <= limit; id++) {
         const pl_tentry *e = &t->e[k][id];
         uint32_t local = ++s->local[k];
         if (s->to_local[k][id]) {
            *why = "TABLE_REF chunk: an entry defined twice";
            free(w.b);
            return 1;
         }
         s->to_local[k][id] = local;
         pl_wire_u32(&w, local);
         if (k == PL_TK_FN) {
            uint32_t obj = e->link ? s->to_local[PL_TK_OBJ][e->link] : 0;
            if (e->link && !obj) {
               *why = "TABLE_REF chunk: a function of an object not "
                      "defined";
               free(w.b);
               return 1;
            }
            pl_wire_u32(&w, obj);
            pl_wire_u64(&w, e->addr);
         }
         pl_wire_put(&w, ename(t, e), (size_t)e->len + 1);
      }
      s->next[k] = (uint32_t)((uint64_t)start + len);
      done += (uint32_t)len;
   }
   if (w.failed) {
      free(w.b);
      return -1;
   }
   if (done != count || r.p != r.end || w.len > limit
       || (*form == PL_TREF_PLAIN && w.len != *orig_len)) {
      free(w.b);
      return 1;
   }
   pl_wire_put(&w, "", 1);          /* a NUL after the payload */
   if (w.failed) {
      free(w.b);
      return -1;
   }
   *raw = w.b;
   *raw_len = w.len - 1;
   return 0;
}

int pl_tref_restore(pl_tref_state *s, const uint8_t *p, size_t n,
                    uint8_t **chunk, size_t *len, const char **why)
{
   uint8_t *raw, *c;
   size_t raw_len, plen;
   unsigned type, form;
   uint32_t orig_len;
   int rc = pl_tref_expand(s, p, n, &raw, &raw_len, &type, &form, &orig_len,
                           why);

   if (rc)
      return rc;
   if (form == PL_TREF_PLAIN) {
      c = malloc(PL_CHUNK_HEADER_SIZE + raw_len);
      if (!c) {
         free(raw);
         return -1;
      }
      memcpy(c + PL_CHUNK_HEADER_SIZE, raw, raw_len);
      plen = raw_len;
   } else {
      if (!s->model) {
         if (!(s->model = malloc(sizeof *s->model))) {
            free(raw);
            return -1;
         }
         pl_tpack_init(s->model);
      }
      c = malloc(PL_CHUNK_HEADER_SIZE + PL_PACKED_PREFIX_SIZE
                 + PL_TPACK_MAX_OUT(raw_len));
      if (!c) {
         free(raw);
         return -1;
      }
      plen = pack_payload(s->model, type, raw, raw_len,
                          c + PL_CHUNK_HEADER_SIZE);
      type = PL_CHUNK_PACKED_TABLE;
   }
   free(raw);
   if (plen != orig_len) {
      *why = "TABLE_REF chunk: the restored chunk is not the original's "
             "length";
      free(c);
      return 1;
   }
   pl_chunk_header(c, type, 0, c + PL_CHUNK_HEADER_SIZE, (uint32_t)plen);
   *chunk = c;
   *len = PL_CHUNK_HEADER_SIZE + plen;
   return 0;
}
