/* SPDX-License-Identifier: MIT */
/* ParLoT archives: reading the index, writing archives, and the input
   lists of the decoder's programs.  Format: docs/trace-format.md,
   "Archives". */

#define _FILE_OFFSET_BITS 64
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl_archive.h"
#include "pl_archive_member.h"
#include "pl_archive_private.h"
#include "pl_format.h"
#include "pl_alloc.h"

#define ULL(x) ((unsigned long long)(x))


/* Read exactly n bytes at off: 0, or -1 (errno set; 0 if the file is
   shorter). */
int pl_archive_read_at(int fd, void *buf, size_t n, uint64_t off)
{
   size_t got = 0;
   while (got < n) {
      ssize_t k = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
      if (k < 0) {
         if (errno == EINTR)
            continue;
         return -1;
      }
      if (k == 0) {
         errno = 0;
         return -1;
      }
      got += (size_t)k;
   }
   return 0;
}

static int write_at(int fd, const void *buf, size_t n, uint64_t off)
{
   size_t done = 0;
   while (done < n) {
      ssize_t k = pwrite(fd, (const char *)buf + done, n - done,
                         (off_t)(off + done));
      if (k < 0) {
         if (errno == EINTR)
            continue;
         return -1;
      }
      done += (size_t)k;
   }
   return 0;
}

static const char *read_why(void)
{
   return errno ? strerror(errno) : "unexpected end of file";
}

int pl_archive_name_ok(const char *name, size_t len)
{
   size_t i;
   if (len == 0 || len > PL_AR_NAME_MAX)
      return 0;
   if ((len == 1 && name[0] == '.')
       || (len == 2 && name[0] == '.' && name[1] == '.'))
      return 0;
   for (i = 0; i < len; i++) {
      unsigned char c = (unsigned char)name[i];
      if (c == '/' || c < 0x20 || c == 0x7f)
         return 0;
   }
   return 1;
}

int pl_is_archive(const char *path)
{
   char m[PL_AR_MAGIC_LEN];
   struct stat st;
   int fd = open(path, O_RDONLY), r = 0;
   if (fd < 0)
      return 0;
   if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
       && pl_archive_read_at(fd, m, sizeof m, 0) == 0
       && memcmp(m, PL_AR_MAGIC, PL_AR_MAGIC_LEN) == 0)
      r = 1;
   close(fd);
   return r;
}

void pl_archive_free(pl_archive *a)
{
   size_t i;
   if (!a)
      return;
   for (i = 0; i < a->n; i++)
      free(a->members[i].name);
   free(a->members);
   free(a->traces);
   free(a->path);
   free(a);
}

static int cmp_names(const void *x, const void *y)
{
   const pl_member *a = *(const pl_member *const *)x;
   const pl_member *b = *(const pl_member *const *)y;
   return strcmp(a->name, b->name);
}

/* Member header sizes of each major version. */
static size_t member_size(unsigned major)
{
   return major == 1 ? PL_AR_MEMBER_SIZE : PL_AR_MEMBER_SIZE2;
}

/* The member header before m's data must describe m (and, in 2.x, what it
   restores to, tr). */
static int check_member_header(int fd, unsigned major, const pl_member *m,
                               const pl_member_trace *tr, size_t nlen,
                               pl_error *err)
{
   size_t hs = member_size(major);
   uint64_t hoff = m->offset - hs - nlen;
   uint8_t *h = malloc(hs + nlen);
   int r = -1;

   if (!h) {
      pl_error_set(err, 0, "out of memory");
      return -1;
   }
   if (pl_archive_read_at(fd, h, hs + nlen, hoff) < 0)
      pl_error_set(err, hoff, "member '%s': cannot read its header: %s",
                m->name, read_why());
   else if (memcmp(h, PL_AR_MEMBER_MAGIC, 4) != 0)
      pl_error_set(err, hoff, "member '%s': no member header before offset "
                "%llu (bad offset in the index)", m->name, ULL(m->offset));
   else if (pl_crc32(pl_crc32(0, h, hs - 4), h + hs, nlen)
            != pl_get32(h + hs - 4))
      pl_error_set(err, hoff, "member '%s': member header CRC mismatch",
                m->name);
   else if (pl_get16(h + 4) != nlen || pl_get64(h + 8) != m->size
            || pl_get32(h + 16) != m->crc
            || (major > 1 && (pl_get16(h + 6) != tr->flags
                              || pl_get64(h + 20) != tr->size
                              || pl_get32(h + 28) != tr->crc))
            || memcmp(h + hs, m->name, nlen) != 0)
      pl_error_set(err, hoff, "member '%s': member header disagrees with the "
                "index", m->name);
   else
      r = 0;
   free(h);
   return r;
}

static int parse_index(pl_archive *a, int fd, const uint8_t *ix,
                       uint64_t ixoff, uint64_t ixsize, uint64_t count,
                       pl_error *err)
{
   size_t head = a->major == 1 ? PL_AR_INDEX_HEAD : PL_AR_INDEX_HEAD2;
   size_t esize = a->major == 1 ? PL_AR_ENTRY_SIZE : PL_AR_ENTRY_SIZE2;
   size_t hs = member_size(a->major);
   uint64_t pos = head, prev_end = PL_AR_HEADER_SIZE;
   const pl_member **sorted;
   size_t i;

   if (count > (ixsize - head - 4) / esize) {
      pl_error_set(err, ixoff + 8, "archive index: %llu members do not fit in "
                "%llu bytes", ULL(count), ULL(ixsize));
      return -1;
   }
   a->members = calloc(count ? (size_t)count : 1, sizeof *a->members);
   a->traces = calloc(count ? (size_t)count : 1, sizeof *a->traces);
   if (!a->members || !a->traces) {
      pl_error_set(err, 0, "out of memory");
      return -1;
   }
   for (i = 0; i < count; i++) {
      const uint8_t *e = ix + pos;
      pl_member *m = &a->members[i];
      pl_member_trace *tr = &a->traces[i];
      size_t nlen;
      uint64_t eoff = ixoff + pos;

      if (ixsize - 4 - pos < esize) {
         pl_error_set(err, eoff, "archive index: entry %zu is cut short", i);
         return -1;
      }
      nlen = pl_get16(e + 20);
      if (ixsize - 4 - pos - esize < nlen) {
         pl_error_set(err, eoff, "archive index: entry %zu is cut short", i);
         return -1;
      }
      if (!pl_archive_name_ok((const char *)e + esize, nlen)
          || memchr(e + esize, 0, nlen)) {
         pl_error_set(err, eoff, "archive index: entry %zu has an invalid "
                   "member name", i);
         return -1;
      }
      m->name = malloc(nlen + 1);
      if (!m->name) {
         pl_error_set(err, 0, "out of memory");
         return -1;
      }
      memcpy(m->name, e + esize, nlen);
      m->name[nlen] = 0;
      a->n = i + 1;
      m->offset = pl_get64(e);
      m->size = pl_get64(e + 8);
      m->crc = pl_get32(e + 16);
      tr->size = m->size;
      tr->crc = m->crc;
      if (a->major > 1) {
         tr->flags = pl_get16(e + 22);
         tr->size = pl_get64(e + 24);
         tr->crc = pl_get32(e + 32);
         if (tr->flags & ~(uint32_t)PL_AR_SHARED
             || (!(tr->flags & PL_AR_SHARED)
                 && (tr->size != m->size || tr->crc != m->crc))) {
            pl_error_set(err, eoff, "archive index: member '%s' has unknown "
                         "flags or a whole member's sizes disagree", m->name);
            return -1;
         }
      }
      /* its header and data lie between the previous member and the
         index */
      if (m->offset > ixoff || m->size > ixoff - m->offset
          || m->offset < prev_end
          || m->offset - prev_end < hs + nlen) {
         pl_error_set(err, eoff, "archive index: member '%s' has a bad offset "
                   "or size (%llu bytes at %llu)", m->name, ULL(m->size),
                   ULL(m->offset));
         return -1;
      }
      if (check_member_header(fd, a->major, m, tr, nlen, err) < 0)
         return -1;
      prev_end = m->offset + m->size;
      pos += esize + nlen;
   }
   if (a->major > 1) {   /* the tables: after the members, before the index */
      a->tables_offset = pl_get64(ix + 16);
      a->tables_size = pl_get64(ix + 24);
      if ((a->tables_size || a->tables_offset)
          && (a->tables_offset < prev_end || a->tables_offset > ixoff
              || a->tables_size > ixoff - a->tables_offset
              || a->tables_size == 0)) {
         pl_error_set(err, ixoff + 16, "archive index: bad tables section "
                      "(%llu bytes at %llu)", ULL(a->tables_size),
                      ULL(a->tables_offset));
         return -1;
      }
      for (i = 0; i < a->n; i++)
         if ((a->traces[i].flags & PL_AR_SHARED) && !a->tables_size) {
            pl_error_set(err, ixoff + 16, "archive index: member '%s' has "
                         "shared tables, the archive none",
                         a->members[i].name);
            return -1;
         }
   }
   if (pos != ixsize - 4) {
      pl_error_set(err, ixoff + pos, "archive index: %llu bytes after the last "
                "entry", ULL(ixsize - 4 - pos));
      return -1;
   }
   /* names are unique: split restores them as files */
   sorted = malloc((a->n ? a->n : 1) * sizeof *sorted);
   if (!sorted) {
      pl_error_set(err, 0, "out of memory");
      return -1;
   }
   for (i = 0; i < a->n; i++)
      sorted[i] = &a->members[i];
   qsort(sorted, a->n, sizeof *sorted, cmp_names);
   for (i = 1; i < a->n; i++)
      if (strcmp(sorted[i - 1]->name, sorted[i]->name) == 0) {
         pl_error_set(err, ixoff, "archive index: two members named '%s'",
                   sorted[i]->name);
         free(sorted);
         return -1;
      }
   free(sorted);
   return 0;
}

pl_archive *pl_archive_open(const char *path, pl_error *err)
{
   uint8_t h[PL_AR_HEADER_SIZE], tr[PL_AR_TRAILER_SIZE], *ix = NULL;
   uint64_t ixoff, ixsize, count, toff;
   pl_archive *a = calloc(1, sizeof *a);
   struct stat st;
   unsigned major;
   int fd;

   if (!a || !(a->path = strdup(path))) {
      free(a);
      pl_error_set(err, 0, "out of memory");
      return NULL;
   }
   fd = open(path, O_RDONLY);
   if (fd < 0) {
      pl_error_set(err, 0, "cannot open: %s", strerror(errno));
      pl_archive_free(a);
      return NULL;
   }
   if (fstat(fd, &st) < 0) {
      pl_error_set(err, 0, "cannot stat: %s", strerror(errno));
      goto fail;
   }
   if (!S_ISREG(st.st_mode)) {
      pl_error_set(err, 0, "not a regular file");
      goto fail;
   }
   a->size = (uint64_t)st.st_size;
   if (a->size < PL_AR_HEADER_SIZE) {
      pl_error_set(err, a->size, "truncated archive: header needs %u bytes, "
                "%llu present", PL_AR_HEADER_SIZE, ULL(a->size));
      goto fail;
   }
   if (pl_archive_read_at(fd, h, sizeof h, 0) < 0) {
      pl_error_set(err, 0, "read error: %s", read_why());
      goto fail;
   }
   if (memcmp(h, PL_MAGIC, PL_MAGIC_LEN) == 0) {
      pl_error_set(err, 0, "a ParLoT trace, not an archive");
      goto fail;
   }
   if (memcmp(h, PL_AR_MAGIC, PL_AR_MAGIC_LEN) != 0) {
      pl_error_set(err, 0, "not a ParLoT archive (bad magic)");
      goto fail;
   }
   major = pl_get16(h + 8);
   a->minor = pl_get16(h + 10);
   if (major < 1 || major > PL_AR_VERSION_MAJOR) {
      pl_error_set(err, 8, "unsupported archive version %u.%u (this reader "
                "reads 1.x and %u.x)", major, a->minor, PL_AR_VERSION_MAJOR);
      goto fail;
   }
   a->major = major;
   if (a->size < PL_AR_HEADER_SIZE + PL_AR_TRAILER_SIZE) {
      pl_error_set(err, a->size, "truncated archive: no trailer");
      goto fail;
   }
   toff = a->size - PL_AR_TRAILER_SIZE;
   if (pl_archive_read_at(fd, tr, sizeof tr, toff) < 0) {
      pl_error_set(err, toff, "read error: %s", read_why());
      goto fail;
   }
   if (memcmp(tr + 28, PL_AR_TRAILER_MAGIC, 4) != 0) {
      pl_error_set(err, a->size, "truncated or damaged archive: no trailer at "
                "the end");
      goto fail;
   }
   if (pl_get32(tr + 24) != pl_crc32(0, tr, 24)) {
      pl_error_set(err, toff, "archive trailer: CRC mismatch");
      goto fail;
   }
   ixoff = pl_get64(tr);
   ixsize = pl_get64(tr + 8);
   count = pl_get64(tr + 16);
   if (ixoff < PL_AR_HEADER_SIZE || ixoff > toff || ixsize != toff - ixoff
       || ixsize < (major == 1 ? PL_AR_INDEX_HEAD : PL_AR_INDEX_HEAD2) + 4) {
      pl_error_set(err, toff, "archive trailer: bad index position (%llu "
                "bytes at %llu)", ULL(ixsize), ULL(ixoff));
      goto fail;
   }
   if (ixsize > PL_AR_INDEX_MAX || ixsize > SIZE_MAX) {
      pl_error_set(err, toff, "archive index of %llu bytes: too large",
                ULL(ixsize));
      goto fail;
   }
   ix = malloc((size_t)ixsize);
   if (!ix) {
      pl_error_set(err, 0, "out of memory");
      goto fail;
   }
   if (pl_archive_read_at(fd, ix, (size_t)ixsize, ixoff) < 0) {
      pl_error_set(err, ixoff, "read error: %s", read_why());
      goto fail;
   }
   if (memcmp(ix, PL_AR_INDEX_MAGIC, 4) != 0) {
      pl_error_set(err, ixoff, "archive index: bad magic");
      goto fail;
   }
   if (pl_get32(ix + ixsize - 4) != pl_crc32(0, ix, (size_t)ixsize - 4)) {
      pl_error_set(err, ixoff, "archive index: CRC mismatch");
      goto fail;
   }
   if (pl_get64(ix + 8) != count) {
      pl_error_set(err, ixoff + 8, "archive index: %llu members, the trailer "
                "says %llu", ULL(pl_get64(ix + 8)), ULL(count));
      goto fail;
   }
   if (parse_index(a, fd, ix, ixoff, ixsize, count, err) < 0)
      goto fail;
   free(ix);
   close(fd);
   return a;
fail:
   free(ix);
   close(fd);
   pl_archive_free(a);
   return NULL;
}

int pl_archive_tables_at(int fd, uint64_t fsize, uint64_t *off,
                         uint64_t *size, pl_error *err)
{
   uint8_t h[PL_AR_HEADER_SIZE], tr[PL_AR_TRAILER_SIZE], ix[PL_AR_INDEX_HEAD2];
   uint64_t ixoff;

   if (fsize < PL_AR_HEADER_SIZE + PL_AR_TRAILER_SIZE
       || pl_archive_read_at(fd, h, sizeof h, 0) < 0
       || memcmp(h, PL_AR_MAGIC, PL_AR_MAGIC_LEN) != 0
       || pl_get16(h + 8) != PL_AR_VERSION_MAJOR) {
      pl_error_set(err, 0, "not in an archive of version %u",
                   PL_AR_VERSION_MAJOR);
      return -1;
   }
   if (pl_archive_read_at(fd, tr, sizeof tr, fsize - sizeof tr) < 0
       || memcmp(tr + 28, PL_AR_TRAILER_MAGIC, 4) != 0
       || (ixoff = pl_get64(tr)) > fsize - sizeof tr - sizeof ix
       || pl_archive_read_at(fd, ix, sizeof ix, ixoff) < 0
       || memcmp(ix, PL_AR_INDEX_MAGIC, 4) != 0) {
      pl_error_set(err, 0, "archive: cannot find its index");
      return -1;
   }
   *off = pl_get64(ix + 16);
   *size = pl_get64(ix + 24);
   if (*size == 0 || *off > ixoff || *size > ixoff - *off) {
      pl_error_set(err, ixoff + 16, "archive index: no tables section, or a "
                   "bad one (%llu bytes at %llu)", ULL(*size), ULL(*off));
      return -1;
   }
   return 0;
}

/* ---- Writing ------------------------------------------------------------- */

struct pl_archive_writer {
   int       fd;
   uint64_t  pos;         /* where the next member header goes */
   uint8_t  *index;       /* entries so far */
   size_t    ilen, icap;
   uint64_t  count;
   pl_tables *tables;     /* shared tables, NULL: members whole */
};

void pl_archive_writer_free(pl_archive_writer *w)
{
   if (!w)
      return;
   free(w->index);
   if (w->tables) {
      pl_tables_free(w->tables);
      free(w->tables);
   }
   free(w);
}

pl_archive_writer *pl_archive_writer_new(int fd, pl_error *err)
{
   pl_archive_writer *w = calloc(1, sizeof *w);
   uint8_t h[PL_AR_HEADER_SIZE] = { 0 };

   if (!w) {
      pl_error_set(err, 0, "out of memory");
      return NULL;
   }
   w->fd = fd;
   memcpy(h, PL_AR_MAGIC, PL_AR_MAGIC_LEN);
   pl_put16(h + 8, PL_AR_VERSION_MAJOR);
   pl_put16(h + 10, PL_AR_VERSION_MINOR);
   pl_put32(h + 12, 0);
   if (write_at(fd, h, sizeof h, 0) < 0) {
      pl_error_set(err, 0, "write error: %s", strerror(errno));
      pl_archive_writer_free(w);
      return NULL;
   }
   w->pos = PL_AR_HEADER_SIZE;
   return w;
}

int pl_archive_share_tables(pl_archive_writer *w)
{
   if (w->tables)
      return 0;
   if (!(w->tables = malloc(sizeof *w->tables)))
      return -1;
   pl_tables_init(w->tables);
   return 0;
}

/* Add the trace at src_off of src_fd (from the archive at src_path, or
   NULL): shared if it can be, else whole. */
static int add_member(pl_archive_writer *w, const char *name, int src_fd,
                      const char *src_path, uint64_t src_off, uint64_t size,
                      int *in_src, pl_error *err)
{
   size_t nlen = strlen(name);
   uint64_t data = w->pos + PL_AR_MEMBER_SIZE2 + nlen;
   uint8_t h[PL_AR_MEMBER_SIZE2], *e;
   pl_member_sums ms;
   int rc = 1;

   *in_src = 0;
   if (!pl_archive_name_ok(name, nlen)) {
      pl_error_set(err, 0, "invalid member name '%s'", name);
      return -1;
   }
   if (w->tables) {
      pl_tables_mark mark;
      pl_tables_save(w->tables, &mark);
      rc = pl_member_copy(src_fd, src_path, src_off, size, w->fd, data,
                          w->tables, &ms, in_src, err);
      if (rc == 0 && !ms.shared)
         rc = 1;                /* no tables: stored whole */
      if (rc > 0 && pl_tables_undo(w->tables, &mark) < 0) {
         pl_error_set(err, 0, "out of memory");
         return -1;
      }
   }
   if (rc > 0)
      rc = pl_member_copy(src_fd, src_path, src_off, size, w->fd, data, NULL,
                          &ms, in_src, err);
   if (rc < 0)
      return -1;
   /* the data first, then the header (its size and CRC) before it */
   memcpy(h, PL_AR_MEMBER_MAGIC, 4);
   pl_put16(h + 4, (uint16_t)nlen);
   pl_put16(h + 6, ms.shared ? PL_AR_SHARED : 0);
   pl_put64(h + 8, ms.out_size);
   pl_put32(h + 16, ms.out_crc);
   pl_put64(h + 20, ms.orig_size);
   pl_put32(h + 28, ms.orig_crc);
   pl_put32(h + 32, pl_crc32(pl_crc32(0, h, 32), name, nlen));
   if (write_at(w->fd, h, sizeof h, w->pos) < 0
       || write_at(w->fd, name, nlen, w->pos + sizeof h) < 0) {
      pl_error_set(err, w->pos, "write error: %s", strerror(errno));
      return -1;
   }
   /* its index entry */
   if (pl_grow(&w->index, &w->icap, w->ilen + PL_AR_ENTRY_SIZE2 + nlen, 1)) {
      pl_error_set(err, 0, "out of memory");
      return -1;
   }
   e = w->index + w->ilen;
   pl_put64(e, data);
   pl_put64(e + 8, ms.out_size);
   pl_put32(e + 16, ms.out_crc);
   pl_put16(e + 20, (uint16_t)nlen);
   pl_put16(e + 22, ms.shared ? PL_AR_SHARED : 0);
   pl_put64(e + 24, ms.orig_size);
   pl_put32(e + 32, ms.orig_crc);
   memcpy(e + PL_AR_ENTRY_SIZE2, name, nlen);
   w->ilen += PL_AR_ENTRY_SIZE2 + nlen;
   w->count++;
   w->pos = data + ms.out_size;
   return 0;
}

int pl_archive_add(pl_archive_writer *w, const char *name, int src_fd,
                   uint64_t src_off, uint64_t size, int *in_src,
                   pl_error *err)
{
   return add_member(w, name, src_fd, NULL, src_off, size, in_src, err);
}

int pl_archive_add_input(pl_archive_writer *w, const char *name,
                         const char *path, uint64_t offset, uint64_t size,
                         int *in_src, pl_error *err)
{
   struct stat st;
   int fd = open(path, O_RDONLY), rc;

   *in_src = 1;
   if (fd < 0 || fstat(fd, &st) < 0) {
      pl_error_set(err, 0, "cannot open: %s", strerror(errno));
      if (fd >= 0)
         close(fd);
      return -1;
   }
   if (size == PL_TRACE_WHOLE_FILE)
      size = (uint64_t)st.st_size;
   rc = add_member(w, name, fd, path, offset, size, in_src, err);
   close(fd);
   return rc;
}

int pl_archive_finish(pl_archive_writer *w, pl_error *err)
{
   uint8_t head[PL_AR_INDEX_HEAD2], tail[4], tr[PL_AR_TRAILER_SIZE];
   uint64_t ixsize = PL_AR_INDEX_HEAD2 + (uint64_t)w->ilen + 4;
   uint64_t toff = 0;
   pl_wbuf tables = { 0 };
   uint32_t crc;
   int r = -1;

   if (w->tables && (w->tables->n[PL_TK_OBJ] || w->tables->n[PL_TK_FN])) {
      if (pl_tables_write(w->tables, &tables) < 0) {
         pl_error_set(err, 0, "out of memory");
         free(tables.b);
         pl_archive_writer_free(w);
         return -1;
      }
      toff = w->pos;
      if (write_at(w->fd, tables.b, tables.len, toff) < 0) {
         pl_error_set(err, toff, "write error: %s", strerror(errno));
         free(tables.b);
         pl_archive_writer_free(w);
         return -1;
      }
      w->pos += tables.len;
   }
   memcpy(head, PL_AR_INDEX_MAGIC, 4);
   pl_put32(head + 4, 0);
   pl_put64(head + 8, w->count);
   pl_put64(head + 16, toff);
   pl_put64(head + 24, tables.len);
   free(tables.b);
   crc = pl_crc32(pl_crc32(0, head, sizeof head), w->index, w->ilen);
   pl_put32(tail, crc);
   pl_put64(tr, w->pos);
   pl_put64(tr + 8, ixsize);
   pl_put64(tr + 16, w->count);
   pl_put32(tr + 24, pl_crc32(0, tr, 24));
   memcpy(tr + 28, PL_AR_TRAILER_MAGIC, 4);
   if (write_at(w->fd, head, sizeof head, w->pos) < 0
       || write_at(w->fd, w->index, w->ilen, w->pos + sizeof head) < 0
       || write_at(w->fd, tail, 4, w->pos + sizeof head + w->ilen) < 0
       || write_at(w->fd, tr, sizeof tr, w->pos + ixsize) < 0
       || ftruncate(w->fd, (off_t)(w->pos + ixsize + sizeof tr)) < 0)
      pl_error_set(err, w->pos, "write error: %s", strerror(errno));
   else
      r = 0;
   pl_archive_writer_free(w);
   return r;
}

int pl_archive_restore(const pl_archive *a, size_t i, int fd, int out_fd,
                       int *in_archive, pl_error *err)
{
   const pl_member *m = &a->members[i];
   const pl_member_trace *t = &a->traces[i];
   pl_member_sums ms;

   if (pl_member_copy(fd, a->path, m->offset, m->size, out_fd, 0, NULL, &ms,
                      in_archive, err) < 0)
      return -1;
   *in_archive = 1;
   if (ms.in_size != m->size || ms.in_crc != m->crc) {
      pl_error_set(err, 0, "CRC mismatch: the member's data is damaged");
      return -1;
   }
   if (ms.out_size != t->size || ms.out_crc != t->crc) {
      pl_error_set(err, 0, "the member restores to %llu bytes of CRC %08x, "
                   "the index says %llu bytes of CRC %08x",
                   ULL(ms.out_size), (unsigned)ms.out_crc, ULL(t->size),
                   (unsigned)t->crc);
      return -1;
   }
   return 0;
}

/* ---- Inputs -------------------------------------------------------------- */

static int add_input(pl_inputs *in, const char *path, uint64_t offset,
                     uint64_t size, const char *member)
{
   pl_input *x;
   size_t plen = strlen(path);

   if (pl_grow(&in->v, &in->cap, in->n + 1, sizeof *in->v) < 0)
      return -1;
   x = &in->v[in->n];
   memset(x, 0, sizeof *x);
   x->path = strdup(path);
   x->offset = offset;
   x->size = size;
   if (member) {
      size_t mlen = strlen(member);
      x->name = malloc(plen + 1 + mlen + 1);
      if (x->name) {
         memcpy(x->name, path, plen);
         x->name[plen] = ':';
         memcpy(x->name + plen + 1, member, mlen + 1);
         x->member = x->name + plen + 1;
      }
   } else {
      x->name = strdup(path);
   }
   if (!x->path || !x->name) {
      free(x->path);
      free(x->name);
      return -1;
   }
   in->n++;
   return 0;
}

int pl_inputs_add(pl_inputs *in, const char *path, pl_error *err)
{
   pl_archive *a;
   size_t k;
   int status = 0;

   if (!pl_is_archive(path)) {
      if (add_input(in, path, 0, PL_TRACE_WHOLE_FILE, NULL) < 0)
         goto oom;
      return 0;
   }
   a = pl_archive_open(path, err);
   if (!a) {
      /* damaged: what its member headers still give, said with the
         damage */
      pl_error why = *err, rerr;
      size_t lost;
      a = pl_archive_recover(path, &lost, &rerr);
      if (!a || a->n == 0) {
         *err = why;
         if (a && lost)
            snprintf(err->msg, sizeof err->msg, "%.180s; no member "
                     "recovered", why.msg);
         pl_archive_free(a);
         return 1;
      }
      snprintf(err->msg, sizeof err->msg, "%.150s; %zu member%s recovered "
               "from %s headers%s", why.msg, a->n, a->n == 1 ? "" : "s",
               a->n == 1 ? "its" : "their",
               lost ? ", the others lost" : "");
      err->offset = why.offset;
      status = 1;
   }
   for (k = 0; k < a->n; k++)
      if (add_input(in, path, a->members[k].offset, a->members[k].size,
                    a->members[k].name) < 0) {
         pl_archive_free(a);
         goto oom;
      }
   pl_archive_free(a);
   return status;
oom:
   pl_error_set(err, 0, "out of memory");
   return -1;
}

void pl_inputs_free(pl_inputs *in)
{
   size_t i;
   for (i = 0; i < in->n; i++) {
      free(in->v[i].path);
      free(in->v[i].name);
   }
   free(in->v);
   memset(in, 0, sizeof *in);
}

pl_trace *pl_input_open(const pl_input *in, pl_error *err)
{
   return pl_trace_open_member(in->path, in->offset, in->size, in->name, err);
}
