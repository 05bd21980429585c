/* SPDX-License-Identifier: MIT */
/* A trace's table chunks (pl_trace_private.h): OBJECTS, FUNCTIONS and
   ALIASES, each a run of entries of fixed fields and a NUL-terminated
   name; a PACKED_TABLE (format 2.0) decoded with the trace's table model,
   and an archive member's TABLE_REF expanded from the archive's shared
   tables, are read as the chunk they stand for.  Names point into the
   payloads, which the trace keeps. */

#include <stdlib.h>
#include <string.h>

#include "pl_alloc.h"
#include "pl_format.h"
#include "pl_trace_private.h"

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

/* One entry of a table: its fixed fields at e, its name (n bytes) after
   them; damage in it is reported at `at`, running out of memory at the
   chunk's offset off.  0, or -1 once reported. */
typedef int (*add_entry)(pl_trace *t, uint64_t off, uint64_t at,
                         const uint8_t *e, const char *name, size_t n);

/* OBJECTS: { u32 obj_id; name\0 }, IDs 1, 2, ... */
static int add_object(pl_trace *t, uint64_t off, uint64_t at,
                      const uint8_t *e, const char *name, size_t n)
{
   uint32_t id = pl_get32(e);
   if (id != t->nobjs + 1)
      return pl_trace_set_damage(t, at, "OBJECTS: object ID %u, expected %u",
                                 id, t->nobjs + 1);
   if (pl_grow(&t->objs, &t->objs_cap, (size_t)id + 1, sizeof *t->objs))
      return pl_trace_set_damage(t, off, "out of memory");
   t->objs[id].str = name;
   t->objs[id].len = n;
   t->nobjs = id;
   return 0;
}

/* FUNCTIONS: { u32 fn_id; u32 obj_id; u64 addr; name\0 }, IDs 1, 2, ...
   of objects defined before. */
static int add_function(pl_trace *t, uint64_t off, uint64_t at,
                        const uint8_t *e, const char *name, size_t n)
{
   uint32_t id = pl_get32(e), obj = pl_get32(e + 4);
   pl_function *f;
   if (id != t->nfns + 1)
      return pl_trace_set_damage(t, at, "FUNCTIONS: function ID %u, "
                                 "expected %u", id, t->nfns + 1);
   if (obj > t->nobjs)
      return pl_trace_set_damage(t, at, "FUNCTIONS: function %u names "
                                 "undefined object %u", id, obj);
   if (pl_grow(&t->fns, &t->fns_cap, (size_t)id + 1, sizeof *t->fns))
      return pl_trace_set_damage(t, off, "out of memory");
   f = &t->fns[id];
   f->name.str = name;
   f->name.len = n;
   f->obj = obj;
   f->addr = pl_get64(e + 8);
   t->nfns = id;
   return 0;
}

/* ALIASES: { u32 fn_id; name\0 } of functions defined before. */
static int add_alias(pl_trace *t, uint64_t off, uint64_t at,
                     const uint8_t *e, const char *name, size_t n)
{
   uint32_t id = pl_get32(e);
   size_t had = t->alias_of_cap;
   alias_rec *a;
   if (id == 0 || id > t->nfns)
      return pl_trace_set_damage(t, at, "ALIASES: function %u is not "
                                 "defined", id);
   if (t->naliases >= UINT32_MAX
       || pl_grow(&t->aliases, &t->aliases_cap, t->naliases + 1,
                  sizeof *t->aliases)
       || pl_grow(&t->alias_of, &t->alias_of_cap, (size_t)t->nfns + 1,
                  sizeof *t->alias_of))
      return pl_trace_set_damage(t, off, "out of memory");
   memset(t->alias_of + had, 0,
          (t->alias_of_cap - had) * sizeof *t->alias_of);
   a = &t->aliases[t->naliases];
   a->name.str = name;
   a->name.len = n;
   a->next = 0;
   /* appended: the aliases of one function keep their file order */
   t->naliases++;
   if (t->alias_of[id].last)
      t->aliases[t->alias_of[id].last - 1].next = (uint32_t)t->naliases;
   else
      t->alias_of[id].first = (uint32_t)t->naliases;
   t->alias_of[id].last = (uint32_t)t->naliases;
   return 0;
}

/* One loop for the entries of the three tables, which differ in their
   fixed fields. */
int pl_trace_read_table(pl_trace *t, uint64_t off, unsigned type, uint8_t *p,
                        uint32_t len)
{
   static const struct {
      const char *what;
      size_t      fixed;
      add_entry   add;
   } kinds[] = {
      { "OBJECTS", 4, add_object },
      { "FUNCTIONS", 16, add_function },
      { "ALIASES", 4, add_alias },
   };
   const int k = type == PL_CHUNK_OBJECTS ? 0
                 : type == PL_CHUNK_FUNCTIONS ? 1 : 2;
   const size_t fixed = kinds[k].fixed;
   size_t i = 0;

   if (pl_trace_keep_block(t, p)) {
      free(p);
      return pl_trace_set_damage(t, off, "out of memory");
   }
   while (i < len) {
      long n;
      if (len - i < fixed + 1)
         return pl_trace_set_damage(t, entry_off(t, off, i),
                                    "%s: truncated entry", kinds[k].what);
      n = name_len(p + i + fixed, len - i - fixed);
      if (n < 0)
         return pl_trace_set_damage(t, entry_off(t, off, i),
                                    "%s: unterminated name", kinds[k].what);
      if (kinds[k].add(t, off, entry_off(t, off, i), p + i,
                       (const char *)p + i + fixed, (size_t)n) < 0)
         return -1;
      i += fixed + (size_t)n + 1;
   }
   return 0;
}

/* Read a table chunk from raw[0..len) as one of `type` at off. */
static int on_table(pl_trace *t, uint64_t off, unsigned type, uint8_t *raw,
                    uint32_t len)
{
   int rc;
   t->in_packed = 1;
   rc = pl_trace_read_table(t, off, type, raw, len);
   t->in_packed = 0;
   return rc;
}

/* PACKED_TABLE (2.0): decode the table payload it stands for, with the
   file's table model, and read it as that chunk. */
int pl_trace_read_packed(pl_trace *t, uint64_t off, uint8_t *p, uint32_t len)
{
   unsigned type = p[0];
   uint32_t raw_len = pl_get32(p + 4);
   const char *why;
   uint8_t *raw;
   int rc;

   t->table_bytes += PL_CHUNK_HEADER_SIZE + (uint64_t)len;
   if (t->refs_packed) {
      free(p);
      return pl_trace_set_damage(t, off, "PACKED_TABLE chunk after a TABLE_REF chunk that "
                                 "stood for one (the table model is not known)");
   }
   if (!pl_tpack_type_ok(type)) {
      free(p);
      return pl_trace_set_damage(t, off, "PACKED_TABLE chunk: packs chunk type %u, not "
                                 "a table", type);
   }
   if (raw_len > PL_TPACK_MAX_RAW) {
      free(p);
      return pl_trace_set_damage(t, off, "PACKED_TABLE chunk: %u table bytes, more than "
                                 "the maximum %u", raw_len, PL_TPACK_MAX_RAW);
   }
   /* +1: a NUL after the payload, as for the other kept payloads */
   raw = malloc((size_t)raw_len + 1);
   if (!raw) {
      free(p);
      return pl_trace_set_damage(t, off, "out of memory");
   }
   raw[raw_len] = 0;
   rc = pl_packed_decode(&t->packed, type, p + PL_PACKED_PREFIX_SIZE,
                         len - PL_PACKED_PREFIX_SIZE, raw, raw_len, &why);
   free(p);
   if (rc) {
      free(raw);
      return rc < 0 ? pl_trace_set_damage(t, off, "out of memory")
                    : pl_trace_set_damage(t, off, "PACKED_TABLE chunk: %s",
                                          why);
   }
   return on_table(t, off, type, raw, raw_len);
}

/* TABLE_REF (archive members with shared tables, docs/trace-format.md
   11.6): the table chunk it stands for, from the archive's tables. */
int pl_trace_read_table_ref(pl_trace *t, uint64_t off, uint8_t *p,
                            uint32_t len)
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
         return pl_trace_set_damage(t, off, "TABLE_REF chunk: %s", e.msg);
      }
      pl_tref_reading(&t->tref, t->tables);
   }
   rc = pl_tref_expand(&t->tref, p, len, &raw, &raw_len, &type, &form,
                       &orig_len, &why);
   free(p);
   if (rc)
      return rc < 0 ? pl_trace_set_damage(t, off, "out of memory") : pl_trace_set_damage(t, off, "%s",
                                                                              why);
   if (pl_grow(&t->shifts, &t->shifts_cap, t->nshifts + 1,
               sizeof *t->shifts)) {
      free(raw);
      return pl_trace_set_damage(t, off, "out of memory");
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
