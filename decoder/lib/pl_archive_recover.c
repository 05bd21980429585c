/* SPDX-License-Identifier: MIT */
/* The members of a damaged archive, found from their own headers
   (pl_archive.h: pl_archive_recover).

   An archive cut short (a full disk, a copy interrupted) has no trailer
   and no index, and a damaged member header makes the index disagree: the
   archive is then rejected as a whole.  Yet each member's header carries
   its name, sizes and CRCs, and the headers chain from the archive header
   on (docs/trace-format.md 11.2).  Walk them: every member whose header
   checks out and whose data lies in the file is kept; past a damaged
   header, the walk looks for the next "PLMB" whose header checks out; a
   member cut by the end of the file is lost.  The walk ends at the tables
   section (a trace) or the index ("PLIX").  A member stored with shared
   tables is kept only if the archive's index still gives its tables
   section (a damaged member header elsewhere); cut short, the archive
   has lost it with its end. */
#define _FILE_OFFSET_BITS 64
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl_archive.h"
#include "pl_archive_private.h"
#include "pl_format.h"

#define ULL(x) ((unsigned long long)(x))
#define SCAN_WINDOW (64 * 1024)

/* The member header at off, if it checks out (magic, name, CRC, flags)
   and its data lies in the file: its data offset, size, CRC, what it
   restores to, and its name (malloc'ed) into m and tr.  1 if so, 0 if
   not a valid header there, -1 if out of memory. */
static int member_at(int fd, uint64_t fsize, unsigned major, uint64_t off,
                     pl_member *m, pl_member_trace *tr, int *cut)
{
   size_t hs = major == 1 ? PL_AR_MEMBER_SIZE : PL_AR_MEMBER_SIZE2;
   uint8_t h[PL_AR_MEMBER_SIZE2 + PL_AR_NAME_MAX];
   size_t nlen;

   *cut = 0;
   if (off > fsize || fsize - off < hs || pl_archive_read_at(fd, h, hs, off) < 0
       || memcmp(h, PL_AR_MEMBER_MAGIC, 4) != 0)
      return 0;
   nlen = pl_get16(h + 4);
   if (nlen == 0 || nlen > PL_AR_NAME_MAX || fsize - off - hs < nlen
       || pl_archive_read_at(fd, h + hs, nlen, off + hs) < 0
       || pl_crc32(pl_crc32(0, h, hs - 4), h + hs, nlen) != pl_get32(h + hs - 4)
       || !pl_archive_name_ok((const char *)h + hs, nlen)
       || memchr(h + hs, 0, nlen))
      return 0;
   m->offset = off + hs + nlen;
   m->size = pl_get64(h + 8);
   m->crc = pl_get32(h + 16);
   tr->size = m->size;
   tr->crc = m->crc;
   tr->flags = 0;
   if (major > 1) {
      tr->flags = pl_get16(h + 6);
      tr->size = pl_get64(h + 20);
      tr->crc = pl_get32(h + 28);
      if (tr->flags & ~(uint32_t)PL_AR_SHARED
          || (!(tr->flags & PL_AR_SHARED)
              && (tr->size != m->size || tr->crc != m->crc)))
         return 0;
   }
   if (m->size > fsize - m->offset) {
      *cut = 1;                    /* a true header, its data cut short */
      return 0;
   }
   if (!(m->name = malloc(nlen + 1)))
      return -1;
   memcpy(m->name, h + hs, nlen);
   m->name[nlen] = 0;
   return 1;
}

/* The offset of the next "PLMB" at or after from, or fsize if none;
   buf: SCAN_WINDOW bytes to read into. */
static uint64_t next_magic(int fd, uint64_t fsize, uint64_t from,
                           uint8_t *buf)
{
   while (from + 4 <= fsize) {
      size_t n = fsize - from < SCAN_WINDOW ? (size_t)(fsize - from)
                                            : SCAN_WINDOW;
      if (pl_archive_read_at(fd, buf, n, from) < 0)
         return fsize;
      for (size_t i = 0; i + 4 <= n; i++)
         if (memcmp(buf + i, PL_AR_MEMBER_MAGIC, 4) == 0)
            return from + i;
      from += n - 3;             /* a magic across two windows */
   }
   return fsize;
}

static int has_name(const pl_archive *a, const char *name)
{
   for (size_t i = 0; i < a->n; i++)
      if (strcmp(a->members[i].name, name) == 0)
         return 1;
   return 0;
}

/* Whether the archive's trailer and index are intact (their CRCs). */
static int index_checks_out(int fd, uint64_t fsize)
{
   uint8_t tr[PL_AR_TRAILER_SIZE], *ix;
   uint64_t ixoff, ixsize;
   int ok;

   if (fsize < PL_AR_HEADER_SIZE + PL_AR_TRAILER_SIZE
       || pl_archive_read_at(fd, tr, sizeof tr, fsize - sizeof tr) < 0
       || memcmp(tr + 28, PL_AR_TRAILER_MAGIC, 4) != 0
       || pl_get32(tr + 24) != pl_crc32(0, tr, 24))
      return 0;
   ixoff = pl_get64(tr);
   ixsize = pl_get64(tr + 8);
   if (ixoff > fsize - sizeof tr || ixsize != fsize - sizeof tr - ixoff
       || ixsize < 8 || ixsize > PL_AR_INDEX_MAX || !(ix = malloc(ixsize)))
      return 0;
   ok = pl_archive_read_at(fd, ix, ixsize, ixoff) == 0
        && pl_get32(ix + ixsize - 4) == pl_crc32(0, ix, ixsize - 4);
   free(ix);
   return ok;
}

/* Shared members need the tables section, which only an intact index
   gives. */
static void drop_unreadable_shared(pl_archive *a, int fd, size_t *lost)
{
   pl_error e;
   size_t i, k = 0;

   if (index_checks_out(fd, a->size)
       && pl_archive_tables_at(fd, a->size, &a->tables_offset,
                               &a->tables_size, &e) == 0)
      return;
   a->tables_offset = a->tables_size = 0;
   for (i = 0; i < a->n; i++) {
      if (a->traces[i].flags & PL_AR_SHARED) {
         free(a->members[i].name);
         (*lost)++;
         continue;
      }
      a->members[k] = a->members[i];
      a->traces[k++] = a->traces[i];
   }
   a->n = k;
}

pl_archive *pl_archive_recover(const char *path, size_t *lost, pl_error *err)
{
   pl_archive *a = calloc(1, sizeof *a);
   uint8_t h[PL_AR_HEADER_SIZE], head[8];
   size_t cap = 0;
   struct stat st;
   uint64_t off = PL_AR_HEADER_SIZE;
   uint8_t *scan = NULL;           /* the window looking past damage */
   int fd = -1, in_damage = 0;

   *lost = 0;
   if (!a || !(a->path = strdup(path)))
      goto oom;
   if ((fd = open(path, O_RDONLY)) < 0 || fstat(fd, &st) < 0
       || pl_archive_read_at(fd, h, sizeof h, 0) < 0
       || memcmp(h, PL_AR_MAGIC, PL_AR_MAGIC_LEN) != 0
       || pl_get16(h + 8) < 1 || pl_get16(h + 8) > PL_AR_VERSION_MAJOR) {
      pl_error_set(err, 0, "not an archive that can be recovered");
      goto fail;
   }
   a->size = (uint64_t)st.st_size;
   a->major = pl_get16(h + 8);
   a->minor = pl_get16(h + 10);
   while (off < a->size) {
      pl_member m;
      pl_member_trace tr;
      int cut, r;

      memset(&m, 0, sizeof m);
      if (a->size - off >= sizeof head && pl_archive_read_at(fd, head, 8, off) == 0
          && (memcmp(head, PL_MAGIC, PL_MAGIC_LEN) == 0
              || memcmp(head, PL_AR_INDEX_MAGIC, 4) == 0))
         break;                  /* the tables section or the index */
      r = member_at(fd, a->size, a->major, off, &m, &tr, &cut);
      if (r < 0)
         goto oom;
      if (r == 0) {              /* damage: on to the next good header */
         *lost += !in_damage || cut;
         in_damage = 1;
         if (cut)
            break;
         if (!scan && !(scan = malloc(SCAN_WINDOW)))
            goto oom;
         off = next_magic(fd, a->size, off + 1, scan);
         continue;
      }
      in_damage = 0;
      if (has_name(a, m.name)) {
         free(m.name);
      } else {
         if (a->n == cap) {
            size_t nc = cap ? 2 * cap : 16;
            pl_member *nm = realloc(a->members, nc * sizeof *nm);
            if (nm)
               a->members = nm;
            pl_member_trace *nt = nm ? realloc(a->traces, nc * sizeof *nt)
                                     : NULL;
            if (nt)
               a->traces = nt;
            if (!nm || !nt) {
               free(m.name);
               goto oom;
            }
            cap = nc;
         }
         a->members[a->n] = m;
         a->traces[a->n++] = tr;
      }
      off = m.offset + m.size;
   }
   drop_unreadable_shared(a, fd, lost);
   free(scan);
   close(fd);
   return a;
oom:
   pl_error_set(err, 0, "out of memory");
fail:
   free(scan);
   if (fd >= 0)
      close(fd);
   pl_archive_free(a);
   return NULL;
}
