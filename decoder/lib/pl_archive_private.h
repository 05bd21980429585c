/* SPDX-License-Identifier: MIT */
/* Inside libparlot's archive reader (not installed): what pl_archive.c
   defines for the files that read archives beside it
   (pl_archive_recover.c, and pl_tables.c for the shared tables). */
#ifndef PL_ARCHIVE_PRIVATE_H
#define PL_ARCHIVE_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "pl_trace.h"

/* Read n bytes at off of fd, whatever pread returns short (a read past
   the end: errno 0).  0, or -1. */
int pl_archive_read_at(int fd, void *buf, size_t n, uint64_t off);

/* Where the archive open on fd (of fsize bytes) keeps its tables section
   (read from its header, trailer and index head).  0, or -1 with *err
   filled. */
int pl_archive_tables_at(int fd, uint64_t fsize, uint64_t *off,
                         uint64_t *size, pl_error *err);

#endif
