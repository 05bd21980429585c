/* SPDX-License-Identifier: MIT */
/* ParLoT archives: many traces in one file (docs/trace-format.md,
   "Archives"), as LiTL's litl_merge / litl_split.

   An archive holds its member traces, each at an offset, with an index at
   the end: whole and byte-identical, or (version 2) with their object and
   function tables stored once for all members, in a tables section that
   the members' TABLE_REF chunks refer to.  Readers see the same traces
   either way, and parlot-split restores each byte for byte.  pl_archive_open() reads and checks
   the index (and every member's header) and closes the file again, so an
   open archive costs memory, not a file descriptor.

   Programs take a list of inputs (pl_inputs): each path given is a loose
   trace or an archive, and an archive stands for its members in archive
   order.  Read one input at a time with
   pl_input_open(): one open file whatever the number of traces. */
#ifndef PL_ARCHIVE_H
#define PL_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "pl_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PL_AR_MAGIC          "\x89PLARCH\n"
#define PL_AR_MAGIC_LEN      8
#define PL_AR_VERSION_MAJOR  2      /* written; 1 is read too */
#define PL_AR_VERSION_MINOR  0
#define PL_AR_HEADER_SIZE    16     /* magic, major, minor, flags */
#define PL_AR_MEMBER_MAGIC   "PLMB"
#define PL_AR_MEMBER_SIZE    24     /* member header, before the name (1.x) */
#define PL_AR_MEMBER_SIZE2   36     /* (2.x) */
#define PL_AR_INDEX_MAGIC    "PLIX"
#define PL_AR_INDEX_HEAD     16     /* index magic, reserved, count (1.x) */
#define PL_AR_INDEX_HEAD2    32     /* ..., tables offset and size (2.x) */
#define PL_AR_ENTRY_SIZE     24     /* index entry, before the name (1.x) */
#define PL_AR_ENTRY_SIZE2    36     /* (2.x) */
#define PL_AR_SHARED         1      /* member flag: TABLE_REF chunks */
#define PL_AR_TRAILER_MAGIC  "PLAE"
#define PL_AR_TRAILER_SIZE   32
#define PL_AR_NAME_MAX       4095   /* bytes in a member name */
#define PL_AR_INDEX_MAX      (1ull << 30)   /* largest index a reader takes */

typedef struct {
   char    *name;      /* member name: a file name without '/' */
   uint64_t offset;    /* of its first data byte in the archive */
   uint64_t size;      /* data bytes */
   uint32_t crc;       /* CRC-32 of the data */
} pl_member;

/* What a member restores to (libparlot 0.6). */
typedef struct {
   uint64_t size;      /* bytes of the trace it stands for */
   uint32_t crc;       /* their CRC-32 */
   uint32_t flags;     /* PL_AR_SHARED: stored with shared tables */
} pl_member_trace;

typedef struct {
   char      *path;
   uint64_t   size;         /* archive size when opened */
   unsigned   minor;
   pl_member *members;      /* in archive (offset) order; size and crc are
                               those of the data as stored */
   size_t     n;
   /* libparlot 0.6 */
   unsigned   major;
   pl_member_trace *traces; /* per member: the trace it restores to */
   uint64_t   tables_offset, tables_size;   /* the tables section; 0 0 if
                                               none */
} pl_archive;

/* The members of an archive that pl_archive_open() rejects (cut short:
   no trailer or index; a damaged member header), found by walking the
   member headers from the archive header on and resuming at the next
   valid one after damage (since libparlot 0.8).  *lost: how many places
   lost members (a damaged stretch, a member cut by the end of the file,
   each member stored with shared tables when the index that locates them
   is lost too).  NULL if path is no archive whose header can be read, or
   out of memory (err says which). */
pl_archive *pl_archive_recover(const char *path, size_t *lost,
                               pl_error *err);

/* Whether the file at path starts with the archive magic: 1 yes, 0 no
   (including a file that cannot be read: the trace reader says why). */
int pl_is_archive(const char *path);

/* Read and check an archive's index.  NULL with *err filled (offset in the
   archive) if it is not a valid archive. */
pl_archive *pl_archive_open(const char *path, pl_error *err);
void        pl_archive_free(pl_archive *a);

/* Whether name may be a member name: 1 to PL_AR_NAME_MAX bytes, no '/',
   not "." or "..", no control characters (so it is a plain file name that
   prints on one line).  1 or 0. */
int pl_archive_name_ok(const char *name, size_t len);

/* ---- Writing --------------------------------------------------------- */

typedef struct pl_archive_writer pl_archive_writer;

/* Start an archive on fd (a new, empty, seekable file): writes the
   header.  NULL with *err filled on a write error or out of memory.
   Members are stored whole unless pl_archive_share_tables says. */
pl_archive_writer *pl_archive_writer_new(int fd, pl_error *err);
/* Store the tables of the members added from now on once, in the
   archive's tables section (libparlot 0.6).  0, or -1 if out of memory. */
int pl_archive_share_tables(pl_archive_writer *w);
/* Append a member: the trace of size bytes at src_off of src_fd.  0, or
   -1 with *err filled; *in_src says whether the error was reading the
   source.  The trace must not be a member with shared tables (see
   pl_archive_add_input). */
int pl_archive_add(pl_archive_writer *w, const char *name, int src_fd,
                   uint64_t src_off, uint64_t size, int *in_src,
                   pl_error *err);
/* Append the trace of size bytes at offset of the file at path, a loose
   trace or a member of an archive (libparlot 0.6). */
int pl_archive_add_input(pl_archive_writer *w, const char *name,
                         const char *path, uint64_t offset, uint64_t size,
                         int *in_src, pl_error *err);
/* Restore member i of a (open on fd) to out_fd: the trace, byte for byte,
   checked against its sizes and CRCs (libparlot 0.6).  0, or -1 with
   *err filled (*in_archive: the archive's fault, not the output's). */
int pl_archive_restore(const pl_archive *a, size_t i, int fd, int out_fd,
                       int *in_archive, pl_error *err);
/* Write the index and trailer and free w (also on error).  0 or -1. */
int pl_archive_finish(pl_archive_writer *w, pl_error *err);
/* Free w without finishing. */
void pl_archive_writer_free(pl_archive_writer *w);

/* ---- Inputs of the decoder's programs ------------------------------- */

typedef struct pl_input {
   char       *path;    /* the file to open */
   uint64_t    offset;  /* where the trace starts in it */
   uint64_t    size;    /* its bytes; PL_TRACE_WHOLE_FILE for a loose
                           trace (offset 0) */
   char       *name;    /* for messages and reports: path, or
                           "ARCHIVE:MEMBER" */
   const char *member;  /* the member name (points into name), NULL for a
                           loose trace */
} pl_input;

typedef struct {
   pl_input *v;
   size_t    n, cap;
} pl_inputs;   /* zero-initialise before the first add */

/* Append the inputs path stands for: an archive's members in archive
   order, anything else as a loose trace (a file that cannot be read is
   added too, so that opening it reports why, in order).  0; 1 if path is
   an archive that pl_archive_open() rejects (*err says why, with an
   offset in the archive): the members pl_archive_recover() finds are
   added (since 0.8; *err then says how many); -1 if out of memory (*err
   says so). */
int  pl_inputs_add(pl_inputs *in, const char *path, pl_error *err);
void pl_inputs_free(pl_inputs *in);

/* Open one input as a trace (pl_trace_open_member). */
pl_trace *pl_input_open(const pl_input *in, pl_error *err);

#ifdef __cplusplus
}
#endif

#endif
