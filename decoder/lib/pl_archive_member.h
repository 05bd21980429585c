/* SPDX-License-Identifier: MIT */
/* Copying one trace into or out of an archive (not installed): whole, or
   with its table chunks replaced by references to the archive's shared
   tables (docs/trace-format.md 11.6), or back again. */
#ifndef PL_ARCHIVE_MEMBER_H
#define PL_ARCHIVE_MEMBER_H

#include <stdint.h>

#include "pl_tables.h"
#include "pl_trace.h"

typedef struct {
   uint64_t in_size, out_size, orig_size;  /* bytes read, written, and of */
   uint32_t in_crc, out_crc, orig_crc;     /* the original trace */
   int      shared;                        /* a TABLE_REF chunk was written */
} pl_member_sums;

/* Copy the trace of `size` bytes at src_off of src_fd (a loose trace, or
   a member of the archive at src_path, whose TABLE_REF chunks are restored
   first; src_path may be NULL if it has none) to out_fd from out_pos on.
   With tables, its table chunks become TABLE_REF chunks naming entries of
   tables (which grow); without, the original trace is written.  0; 1 if
   it cannot be shared (what was written is to be overwritten); -1 with
   *err filled and *in_src telling whether reading the source failed. */
int pl_member_copy(int src_fd, const char *src_path, uint64_t src_off,
                   uint64_t size, int out_fd, uint64_t out_pos,
                   pl_tables *tables, pl_member_sums *sums, int *in_src,
                   pl_error *err);

#endif
