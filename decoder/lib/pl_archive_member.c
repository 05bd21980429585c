/* SPDX-License-Identifier: MIT */
/* Copying one trace into or out of an archive, chunk by chunk
   (pl_archive_member.h). */

#define _FILE_OFFSET_BITS 64
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pl_archive_member.h"
#include "pl_format.h"

#define COPY_BUF (1u << 20)

typedef struct {
   int src_fd;
   const char *src_path;
   uint64_t src_off, size;
   int out_fd;
   uint64_t out_pos;
   pl_member_sums *s;
   int *in_src;
   pl_error *err;
   uint8_t *buf;                   /* COPY_BUF bytes */
} walk;

/* Source bytes [at, at + n); counted (in the sums) unless only peeked. */
static int src_read(walk *w, void *p, size_t n, uint64_t at, int count)
{
   size_t got = 0;
   while (got < n) {
      ssize_t k = pread(w->src_fd, (char *)p + got, n - got,
                        (off_t)(w->src_off + at + got));
      if (k < 0 && errno == EINTR)
         continue;
      if (k <= 0) {
         *w->in_src = 1;
         pl_error_set(w->err, at + got, "read error: %s",
                      k < 0 ? strerror(errno) : "the file shrank while "
                      "being read");
         return -1;
      }
      got += (size_t)k;
   }
   if (count) {
      w->s->in_crc = pl_crc32(w->s->in_crc, p, n);
      w->s->in_size += n;
   }
   return 0;
}

/* Write n bytes that the original trace has too (orig) or not. */
static int out_write(walk *w, const void *p, size_t n, int orig)
{
   uint64_t at = w->out_pos + w->s->out_size;
   size_t done = 0;
   while (done < n) {
      ssize_t k = pwrite(w->out_fd, (const char *)p + done, n - done,
                         (off_t)(at + done));
      if (k < 0 && errno == EINTR)
         continue;
      if (k < 0) {
         pl_error_set(w->err, at + done, "write error: %s", strerror(errno));
         return -1;
      }
      done += (size_t)k;
   }
   w->s->out_crc = pl_crc32(w->s->out_crc, p, n);
   w->s->out_size += n;
   if (orig) {
      w->s->orig_crc = pl_crc32(w->s->orig_crc, p, n);
      w->s->orig_size += n;
   }
   return 0;
}

/* The source's bytes [at, at + n), as they are. */
static int copy_as_is(walk *w, uint64_t at, uint64_t n)
{
   while (n > 0) {
      size_t k = n < COPY_BUF ? (size_t)n : COPY_BUF;
      if (src_read(w, w->buf, k, at, 1) < 0 || out_write(w, w->buf, k, 1) < 0)
         return -1;
      at += k;
      n -= k;
   }
   return 0;
}

static int oom(walk *w)
{
   pl_error_set(w->err, 0, "out of memory");
   return -1;
}

/* A table chunk of the original trace, c[0..n): written as it is, or as a
   TABLE_REF chunk.  0, 1 (cannot share), -1. */
static int put_table(walk *w, const uint8_t *c, size_t n, unsigned major,
                     pl_tref_state *share, pl_tref_state *check,
                     pl_tpack **model)
{
   const uint8_t *p = c + PL_CHUNK_HEADER_SIZE;
   size_t plen = n - PL_CHUNK_HEADER_SIZE, raw_len;
   unsigned type = c[0], form = PL_TREF_PLAIN;
   uint8_t *raw = (uint8_t *)p, *back = NULL, h[PL_CHUNK_HEADER_SIZE];
   pl_wbuf ref = { 0 };
   size_t back_len;
   const char *why;
   int rc;

   if (!share || c[1] || pl_get16(c + 2))
      return share ? 1 : out_write(w, c, n, 1);
   raw_len = plen;
   if (type == PL_CHUNK_PACKED_TABLE) {
      if (major < 2 || plen < PL_PACKED_PREFIX_SIZE || !pl_tpack_type_ok(p[0])
          || pl_get32(p + 4) > PL_TPACK_MAX_RAW)
         return 1;
      form = PL_TREF_PACKED;
      type = p[0];
      raw_len = pl_get32(p + 4);
      if (!*model) {
         if (!(*model = malloc(sizeof **model)))
            return oom(w);
         pl_tpack_init(*model);
      }
      if (!(raw = malloc(raw_len + 1)))
         return oom(w);
      if (pl_tpack_decode(*model, type, p + PL_PACKED_PREFIX_SIZE,
                          plen - PL_PACKED_PREFIX_SIZE, raw, raw_len,
                          &why) < 0) {
         free(raw);
         return 1;
      }
   }
   rc = pl_tref_share(share, type, raw, raw_len, form, (uint32_t)plen, &ref);
   if (raw != p)
      free(raw);
   /* written only if it restores to the very bytes it stands for */
   if (rc == 0)
      rc = pl_tref_restore(check, ref.b, ref.len, &back, &back_len, &why);
   if (rc == 0 && (back_len != n || memcmp(back, c, n) != 0))
      rc = 1;
   free(back);
   if (rc == 0) {
      pl_chunk_header(h, PL_CHUNK_TABLE_REF, 0, ref.b, (uint32_t)ref.len);
      w->s->shared = 1;
      if (out_write(w, h, sizeof h, 0) < 0
          || out_write(w, ref.b, ref.len, 0) < 0)
         rc = -1;
      else {
         w->s->orig_crc = pl_crc32(w->s->orig_crc, c, n);
         w->s->orig_size += n;
      }
   } else if (rc < 0) {
      oom(w);
   }
   free(ref.b);
   return rc;
}

/* Walk the chunks; see pl_member_copy. */
static int walk_chunks(walk *w, pl_tables *tables)
{
   uint8_t h[PL_CHUNK_HEADER_SIZE], *c = NULL;
   uint64_t at = 0;
   unsigned major = 0;
   int src_shared = 0;
   const pl_tables *src_tables = NULL;
   pl_tref_state src, share, check;
   pl_tpack *model = NULL;
   int rc = 0;

   memset(&src, 0, sizeof src);
   if (tables) {
      pl_tref_writing(&share, tables);
      pl_tref_reading(&check, tables);
   }
   /* the file header: the trace's, with the magic of the form written */
   if (w->size >= PL_FILE_HEADER_SIZE) {
      if (src_read(w, h, PL_FILE_HEADER_SIZE, 0, 1) < 0)
         goto fail;
      src_shared = memcmp(h, PL_SHARED_MAGIC, PL_MAGIC_LEN) == 0;
      if (src_shared || memcmp(h, PL_MAGIC, PL_MAGIC_LEN) == 0) {
         major = pl_get16(h + 8);
         memcpy(h, PL_MAGIC, PL_MAGIC_LEN);
      }
      if (major && tables) {
         w->s->orig_crc = pl_crc32(w->s->orig_crc, h, sizeof h);
         w->s->orig_size += sizeof h;
         memcpy(h, PL_SHARED_MAGIC, PL_MAGIC_LEN);
      }
      if (out_write(w, h, PL_FILE_HEADER_SIZE, !(major && tables)) < 0)
         goto fail;
      at = PL_FILE_HEADER_SIZE;
   }
   /* a trace copied as it is needs no walk: only sharing or restoring
      touches its chunks */
   if (!tables && !src_shared)
      major = 0;
   while (w->size - at >= PL_CHUNK_HEADER_SIZE && major) {
      uint32_t len, thread;
      unsigned type;
      if (src_read(w, h, sizeof h, at, 0) < 0)
         goto fail;
      type = h[0];
      len = pl_get32(h + 4);
      thread = pl_get32(h + 8);
      if (len > PL_MAX_PAYLOAD || len > w->size - at - sizeof h)
         break;                        /* the rest as it is */
      if (type == PL_CHUNK_TABLE_REF && !src_shared && tables) {
         rc = 1;       /* an unknown chunk that would read as a TABLE_REF */
         goto done;
      }
      if (thread != 0 || !(pl_tpack_type_ok(type)
                           || type == PL_CHUNK_PACKED_TABLE
                           || (type == PL_CHUNK_TABLE_REF && src_shared))) {
         w->s->in_crc = pl_crc32(w->s->in_crc, h, sizeof h);
         w->s->in_size += sizeof h;
         if (out_write(w, h, sizeof h, 1) < 0
             || copy_as_is(w, at + sizeof h, len) < 0)
            goto fail;
         at += sizeof h + (uint64_t)len;
         continue;
      }
      free(c);
      if (!(c = malloc(sizeof h + (size_t)len))) {
         oom(w);
         goto fail;
      }
      memcpy(c, h, sizeof h);
      if (src_read(w, c + sizeof h, len, at + sizeof h, 0) < 0)
         goto fail;
      if (pl_crc32(0, c + sizeof h, len) != pl_get32(c + 12))
         break;      /* damage: readers stop here, and so do references */
      w->s->in_crc = pl_crc32(w->s->in_crc, c, sizeof h + (size_t)len);
      w->s->in_size += sizeof h + (uint64_t)len;
      at += sizeof h + (uint64_t)len;
      if (type == PL_CHUNK_TABLE_REF) {      /* the original chunk first */
         uint8_t *orig;
         size_t olen;
         const char *why;
         int r;
         if (!src_tables) {
            if (!w->src_path) {
               *w->in_src = 1;
               pl_error_set(w->err, at - sizeof h - len, "TABLE_REF chunk "
                            "outside an archive");
               goto fail;
            }
            if (!(src_tables = pl_tables_of_archive(w->src_fd, w->src_path,
                                                    w->err))) {
               *w->in_src = 1;
               goto fail;
            }
            pl_tref_reading(&src, src_tables);
         }
         r = pl_tref_restore(&src, c + sizeof h, len, &orig, &olen, &why);
         if (r != 0) {
            *w->in_src = r > 0;
            if (r > 0)
               pl_error_set(w->err, at - sizeof h - len, "%s", why);
            else
               oom(w);
            goto fail;
         }
         free(c);
         c = orig;
         len = (uint32_t)(olen - sizeof h);
      }
      rc = put_table(w, c, sizeof h + (size_t)len, major,
                     tables ? &share : NULL, &check, &model);
      if (rc != 0)
         goto done;
   }
   /* the rest: bytes that are not whole chunks, or after damage */
   if (copy_as_is(w, at, w->size - at) < 0)
      goto fail;
   goto done;
fail:
   rc = -1;
done:
   free(c);
   free(model);
   if (src_tables) {
      pl_tref_done(&src);
      pl_tables_release(src_tables);
   }
   if (tables) {
      pl_tref_done(&share);
      pl_tref_done(&check);
   }
   return rc;
}

int pl_member_copy(int src_fd, const char *src_path, uint64_t src_off,
                   uint64_t size, int out_fd, uint64_t out_pos,
                   pl_tables *tables, pl_member_sums *sums, int *in_src,
                   pl_error *err)
{
   walk w = { src_fd, src_path, src_off, size, out_fd, out_pos, sums,
              in_src, err, malloc(COPY_BUF) };
   int rc;

   memset(sums, 0, sizeof *sums);
   *in_src = 0;
   if (!w.buf)
      return oom(&w);
   rc = walk_chunks(&w, tables);
   free(w.buf);
   return rc;
}
