/* SPDX-License-Identifier: MIT */
/* Inside libparlot's trace reader (not installed): the index of an open
   trace (struct pl_trace), the file window both passes read through, and
   what the reader's files share:
     pl_trace.c         opening, the indexing pass over the chunks, closing;
     pl_trace_tables.c  the table chunks: objects, functions and aliases,
                        plain, packed (2.0) or shared (archive members);
     pl_trace_access.c  pl_trace.h's accessors;
     pl_events.c        the event iterator (pl_events_*). */
#ifndef PL_TRACE_PRIVATE_H
#define PL_TRACE_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "pl_table_cache.h"
#include "pl_table_pack.h"
#include "pl_tables.h"
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

/* A COSTS chunk of one thread (format 2.5): header offset, coded bytes,
   costs it holds. */
typedef struct {
   uint64_t off;
   uint32_t len;
   uint32_t count;
} cost_ref;

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
   cost_ref  *costs;          /* COSTS chunks of instruction counts */
   size_t     ncosts, costs_cap;
   unsigned   cost_revision;  /* their coding's (the first chunk's) */
   uint64_t   cost_events;    /* events they cover: the first ones */
   pl_time_stamp *times;      /* TIMES chunks' stamps, in order */
   size_t     ntimes, times_cap;
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
   pl_packed_tables *packed;  /* the table model, while PACKED_TABLE chunks
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
   uint64_t chunks;           /* chunks read, of every type */
   uint64_t framing_bytes;    /* their headers and STREAM prefixes */
};

#define ULL(x) ((unsigned long long)(x))

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

/* Fill r's window with `want` bytes at `off` (all within the file): 0, or
   -1 if fewer were read (r->err: the errno of a failed read). */
int pl_reader_fill(reader *r, uint64_t off, size_t want);

/* Where stored offset off is in the trace a member stands for. */
uint64_t pl_trace_restored_off(const pl_trace *t, uint64_t off);

/* Record the first damage, at stored offset off; the file is read as if
   it ended there.  Returns -1. */
int pl_trace_set_damage(pl_trace *t, uint64_t off, const char *fmt, ...)
   __attribute__((format(printf, 3, 4)));

/* Keep payload p (names point into it) while the trace is open: 0, or -1
   if out of memory. */
int pl_trace_keep_block(pl_trace *t, uint8_t *p);

/* The value of key in kv[0..n), NULL if absent. */
const char *pl_kv_get(const pl_kv *kv, size_t n, const char *key);

/* Table chunks at off whose payload p[0..len) passed its CRC (p is the
   table's from here on: kept while the trace is open, or freed): OBJECTS,
   FUNCTIONS and ALIASES (type), PACKED_TABLE, TABLE_REF.  0, or -1 once
   reported as damage. */
int pl_trace_read_table(pl_trace *t, uint64_t off, unsigned type, uint8_t *p,
                        uint32_t len);
int pl_trace_read_packed(pl_trace *t, uint64_t off, uint8_t *p, uint32_t len);
int pl_trace_read_table_ref(pl_trace *t, uint64_t off, uint8_t *p,
                            uint32_t len);

#endif
