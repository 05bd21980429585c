/* SPDX-License-Identifier: MIT */
/* An archive's shared tables (docs/trace-format.md 11.6; not installed).

   The objects, functions and aliases of all the archive's shared members,
   each stored once: a member's table chunks become TABLE_REF chunks that
   name entries of these tables (by their table IDs, 1, 2, ...), and its
   own IDs are given back by the order in which it defines them.  Ranks of
   one program define the same entries in about the same order, so most of
   a member's references are runs of consecutive IDs, a few bytes a chunk.

   pl_tref_state follows one member through its chunks in order: while it
   is written (pl_tref_share, which adds entries to the tables) or read
   back (pl_tref_expand, and pl_tref_restore for the exact original
   chunk). */
#ifndef PL_TABLES_H
#define PL_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "pl_table_pack.h"
#include "pl_trace.h"
#include "pl_wire.h"

/* A member with shared tables starts with this magic instead of the
   trace's (the rest of its file header is the trace's), and only there is
   chunk type 13 a TABLE_REF (in a trace it is an unknown type). */
#define PL_SHARED_MAGIC      "\x89PLREFS\n"
#define PL_CHUNK_TABLE_REF   13
#define PL_TREF_HEAD         12  /* inner type, form, reserved, orig. length,
                                    entries */
#define PL_TREF_PLAIN        0   /* forms: the original was a table chunk */
#define PL_TREF_PACKED       1   /*        or a PACKED_TABLE chunk */

enum { PL_TK_OBJ, PL_TK_FN, PL_TK_ALIAS, PL_TK_KINDS };

typedef struct {
   uint64_t name;      /* offset of the name in the arena */
   uint32_t len;
   uint32_t link;      /* function: its object; alias: its function */
   uint64_t addr;      /* function: its address */
   uint32_t ordinal;   /* alias: its place among its function's (0, 1, ...) */
   uint32_t next;      /* alias: the function's next alias, 0 if last */
} pl_tentry;

typedef struct {
   pl_tentry *e[PL_TK_KINDS];      /* [0] unused: IDs start at 1 */
   uint32_t   n[PL_TK_KINDS];
   size_t     cap[PL_TK_KINDS];
   uint32_t  *alias_first;         /* per function: its first alias */
   size_t     alias_first_cap;
   char      *arena;
   size_t     alen, acap;
   /* lookup, kept while tables are written */
   uint32_t  *slots[PL_TK_KINDS];  /* entry IDs, 0: free */
   unsigned   bits[PL_TK_KINDS];
   uint32_t  *stamp[PL_TK_KINDS];  /* the member that last defined it */
   size_t     stamp_cap[PL_TK_KINDS];
   uint32_t   member;              /* serial of the member being written */
} pl_tables;

/* Empty tables, for writing. */
void pl_tables_init(pl_tables *t);
void pl_tables_free(pl_tables *t);

/* Entry counts, to undo the entries a member added when it is stored
   whole after all (pl_tables_undo).  */
typedef struct {
   uint32_t n[PL_TK_KINDS];
   size_t   alen;
} pl_tables_mark;
void pl_tables_save(const pl_tables *t, pl_tables_mark *m);
int  pl_tables_undo(pl_tables *t, const pl_tables_mark *m);

/* The tables section: a trace without threads (11.6).  Appended to *out;
   0, or -1 if out of memory. */
int pl_tables_write(const pl_tables *t, pl_wbuf *out);

/* The tables of the archive open on fd (at path): loaded once per process
   and archive, shared by the threads that read its members.  NULL with
   *err filled if they cannot be read.  Give them back with
   pl_tables_release. */
const pl_tables *pl_tables_of_archive(int fd, const char *path,
                                      pl_error *err);
void pl_tables_release(const pl_tables *t);

/* One member's way through its table chunks. */
typedef struct {
   const pl_tables *t;
   pl_tables *w;                   /* writing: t, growable */
   uint32_t local[PL_TK_KINDS];    /* the member's own entries so far */
   uint32_t next[2];               /* the ID a run is expected to start at */
   uint32_t last_fn;               /* of the previous alias reference */
   uint32_t *to_local[2];          /* reading: table ID -> member ID */
   size_t    to_local_cap[2];
   uint32_t *to_table[2];          /* writing: member ID -> table ID */
   size_t    to_table_cap[2];
   pl_tpack *model;                /* restoring packed chunks */
} pl_tref_state;

void pl_tref_reading(pl_tref_state *s, const pl_tables *t);
void pl_tref_writing(pl_tref_state *s, pl_tables *t);
void pl_tref_done(pl_tref_state *s);

/* Append to *out the TABLE_REF payload for the n table bytes at raw, the
   entries of a chunk of type `type` (2, 3, 11), originally of `form`
   with a payload of orig_len bytes; its entries are added to the tables
   as needed.  0; 1 if the member cannot be shared (an entry it defines
   twice, or entries that are not well formed); -1 if out of memory. */
int pl_tref_share(pl_tref_state *s, unsigned type, const uint8_t *raw,
                  size_t n, unsigned form, uint32_t orig_len, pl_wbuf *out);

/* The table payload a TABLE_REF payload stands for: *raw (malloc'ed, one
   NUL byte after its *raw_len bytes), its chunk type, form and original
   payload length.  0; 1 with *why set if the payload is damaged; -1 if
   out of memory. */
int pl_tref_expand(pl_tref_state *s, const uint8_t *p, size_t n,
                   uint8_t **raw, size_t *raw_len, unsigned *type,
                   unsigned *form, uint32_t *orig_len, const char **why);

/* The original chunk (header and payload, malloc'ed in *chunk, *len
   bytes) that a TABLE_REF payload replaced.  0; 1 with *why set if the
   payload is damaged; -1 if out of memory. */
int pl_tref_restore(pl_tref_state *s, const uint8_t *p, size_t n,
                    uint8_t **chunk, size_t *len, const char **why);

#endif
