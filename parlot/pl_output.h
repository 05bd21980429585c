/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The trace file of this process: naming, opening, chunk writing. */
#ifndef PL_OUTPUT_H
#define PL_OUTPUT_H

#include "pub_tool_basics.h"

/* A growable byte buffer for assembling chunk payloads. */
typedef struct {
   UChar *data;
   SizeT  len;
   SizeT  cap;
} pl_buf;

void pl_buf_bytes(pl_buf *b, const void *p, SizeT n);
void pl_buf_u32(pl_buf *b, UInt v);
void pl_buf_u64(pl_buf *b, ULong v);
void pl_buf_str(pl_buf *b, const HChar *s);           /* with its NUL */
void pl_buf_kv(pl_buf *b, const HChar *key, const HChar *value);
void pl_buf_kv_num(pl_buf *b, const HChar *key, ULong value);
void pl_buf_free(pl_buf *b);

/* Open the trace file named by the (already %-expanded) name and write the
   file header.  An existing file is kept, and ".1", ".2", ... tried
   instead, if never_overwrite is set, if it is a trace of this very pid
   (the image before an exec under --trace-children=yes) or if another
   process is writing it (it holds the lock the tool takes on its trace
   file; a line says so).  Otherwise (a name the user chose, left by an
   earlier run) it is replaced; a suffixed name never is.  If no file
   can be created: with fatal, Valgrind exits with a one-line error;
   without (a forked child), one line says so and nothing is written. */
void pl_out_open(const HChar *name, Bool never_overwrite, Bool fatal);

/* Write a whole chunk: its header (built here) and payload. */
void pl_out_chunk(UInt type, UInt thread, const void *payload, UInt len);

/* Write an OBJECTS, FUNCTIONS or ALIASES payload (whole entries): as
   PACKED_TABLE chunks (format 2.0), or as it is with
   pl_out_set_pack_tables(False) (format 1.4, which pl_out_open then
   writes in the file header). */
void pl_out_table(UInt type, const UChar *payload, UInt len);
void pl_out_set_pack_tables(Bool on);

/* Write bytes that already form complete chunks. */
void pl_out_write(const void *buf, SizeT len);

/* Forget the file without writing to it (a forked child must not touch
   its parent's file). */
void pl_out_abandon(void);
void pl_out_close(void);

const HChar *pl_out_name(void);
UInt  pl_out_seq(void);          /* the ".N" suffix used, 0 for none */
ULong pl_out_bytes(void);        /* bytes written so far */
Bool  pl_out_failed(void);       /* a write failed: the trace is incomplete */
Bool  pl_out_not_created(void);  /* ... because the file was never created */

#endif
