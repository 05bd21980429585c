/* SPDX-License-Identifier: MIT */
/* ParLoT archives: many traces in one file (docs/trace-format.md,
   "Archives"), as LiTL's litl_merge / litl_split.

   An archive holds its member traces whole and byte-identical, each at an
   offset, with an index at the end.  pl_archive_open() reads and checks
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
#define PL_AR_VERSION_MAJOR  1
#define PL_AR_VERSION_MINOR  0
#define PL_AR_HEADER_SIZE    16     /* magic, major, minor, flags */
#define PL_AR_MEMBER_MAGIC   "PLMB"
#define PL_AR_MEMBER_SIZE    24     /* member header, before the name */
#define PL_AR_INDEX_MAGIC    "PLIX"
#define PL_AR_INDEX_HEAD     16     /* index magic, reserved, count */
#define PL_AR_ENTRY_SIZE     24     /* index entry, before the name */
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

typedef struct {
   char      *path;
   uint64_t   size;         /* archive size when opened */
   unsigned   minor;
   pl_member *members;      /* in archive (offset) order */
   size_t     n;
} pl_archive;

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
   header.  NULL with *err filled on a write error or out of memory. */
pl_archive_writer *pl_archive_writer_new(int fd, pl_error *err);
/* Append a member: size bytes of src_fd at src_off.  0, or -1 with *err
   filled; *in_src says whether the error was reading the source. */
int pl_archive_add(pl_archive_writer *w, const char *name, int src_fd,
                   uint64_t src_off, uint64_t size, int *in_src,
                   pl_error *err);
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
   an archive whose index is bad (nothing added; *err says why, with an
   offset in the archive); -1 if out of memory (*err says so). */
int  pl_inputs_add(pl_inputs *in, const char *path, pl_error *err);
void pl_inputs_free(pl_inputs *in);

/* Open one input as a trace (pl_trace_open_member). */
pl_trace *pl_input_open(const pl_input *in, pl_error *err);

#ifdef __cplusplus
}
#endif

#endif
