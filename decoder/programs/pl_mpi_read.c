/* SPDX-License-Identifier: MIT */
/* Reading many traces with the ranks of an MPI job (pl_mpi_read.h).

   What a rank sends up the tree, one message (its length first, as
   MPI_UINT64_T, then the bytes in pieces of at most 1 GiB, MPI counts
   being ints):
     u64 files; per file: u32 result (pl_program_read's, as unsigned),
                          u64 error offset, u32 length, message bytes
     the packed program (pl_program_pack), possibly empty */
#define _FILE_OFFSET_BITS 64
#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pl_alloc.h"
#include "pl_mpi_read.h"

#define PIECE (1u << 30)
#define TAG_LEN  1
#define TAG_DATA 2

/* One file's outcome, until rank 0 reports it. */
typedef struct {
   int      r;
   pl_error err;
} result;

typedef struct {
   result *v;
   size_t  n, cap;
} results;

static int results_add(results *rs, int r, const pl_error *err)
{
   if (pl_grow(&rs->v, &rs->cap, rs->n + 1, sizeof *rs->v) < 0)
      return -1;
   rs->v[rs->n].r = r;
   rs->v[rs->n].err = *err;
   rs->n++;
   return 0;
}

/* The done hook of this rank's reading: keep each result. */
typedef struct {
   results *rs;
   int      oom;
} collect;

static void collect_done(void *ctx, size_t i, const char *path, int r,
                         const pl_error *err)
{
   collect *c = ctx;
   (void)i;
   (void)path;
   if (results_add(c->rs, r, err) < 0)
      c->oom = 1;
}

/* Results for `count` files that this rank could not deliver. */
static int results_fail(results *rs, size_t count, const char *why, int rank)
{
   pl_error e;
   memset(&e, 0, sizeof e);
   snprintf(e.msg, sizeof e.msg, "%s on MPI rank %d", why, rank);
   for (size_t k = 0; k < count; k++)
      if (results_add(rs, -1, &e) < 0)
         return -1;
   return 0;
}

/* ---- the share of each rank ---------------------------------------- */

static uint64_t input_bytes(const pl_input *in)
{
   struct stat sb;
   if (in->size != PL_TRACE_WHOLE_FILE)
      return in->size;
   return stat(in->path, &sb) == 0 && sb.st_size > 0
          ? (uint64_t)sb.st_size : 0;
}

/* first[r] .. first[r + 1] - 1: rank r's files.  File i goes to the rank
   in whose slice of the total bytes its first byte falls (a file counts
   one byte more than it has, so that empty files spread too; without
   memory for the sizes, every file counts one). */
static void cut_shares(const pl_input *in, size_t n, int ranks, int rank,
                       MPI_Comm comm, uint64_t *first)
{
   if (rank == 0) {
      uint64_t *sizes = malloc((n ? n : 1) * sizeof *sizes);
      unsigned __int128 total = 0, at = 0;
      int r = 0;
      for (size_t i = 0; i < n; i++)
         total += sizes ? (sizes[i] = input_bytes(&in[i]) + 1) : 1;
      first[0] = 0;
      for (size_t i = 0; i < n; i++) {
         int owner = (int)(at * (unsigned)ranks / (total ? total : 1));
         while (r < owner)
            first[++r] = i;
         at += sizes ? sizes[i] : 1;
      }
      while (r < ranks)
         first[++r] = n;
      free(sizes);
   }
   MPI_Bcast(first, ranks + 1, MPI_UINT64_T, 0, comm);
}

/* ---- messages ---------------------------------------------------------- */

typedef struct {
   unsigned char *b;
   size_t len, cap;
   int    failed;
} msg;

static void msg_put(msg *m, const void *src, size_t n)
{
   if (m->failed || pl_grow(&m->b, &m->cap, m->len + n, 1) < 0) {
      m->failed = 1;
      return;
   }
   memcpy(m->b + m->len, src, n);
   m->len += n;
}

static void msg_u32(msg *m, uint32_t v)
{
   unsigned char x[4];
   for (int i = 0; i < 4; i++)
      x[i] = (unsigned char)(v >> 8 * i);
   msg_put(m, x, 4);
}

static void msg_u64(msg *m, uint64_t v)
{
   unsigned char x[8];
   for (int i = 0; i < 8; i++)
      x[i] = (unsigned char)(v >> 8 * i);
   msg_put(m, x, 8);
}

static uint64_t get_le(const unsigned char *x, int bytes)
{
   uint64_t v = 0;
   for (int i = 0; i < bytes; i++)
      v |= (uint64_t)x[i] << 8 * i;
   return v;
}

/* The message for results rs and program p (NULL: none).  0, or -1 if
   out of memory. */
static int make_message(msg *m, const results *rs, const pl_program *p)
{
   unsigned char *prog = NULL;
   size_t plen = 0;
   msg_u64(m, rs->n);
   for (size_t k = 0; k < rs->n; k++) {
      size_t l = strnlen(rs->v[k].err.msg, sizeof rs->v[k].err.msg - 1);
      msg_u32(m, (uint32_t)rs->v[k].r);
      msg_u64(m, rs->v[k].err.offset);
      msg_u32(m, (uint32_t)l);
      msg_put(m, rs->v[k].err.msg, l);
   }
   if (p && pl_program_pack(p, &prog, &plen) < 0)
      m->failed = 1;
   else if (plen)
      msg_put(m, prog, plen);
   free(prog);
   return m->failed ? -1 : 0;
}

static void send_bytes(const unsigned char *b, uint64_t len, int to,
                       MPI_Comm comm)
{
   MPI_Send(&len, 1, MPI_UINT64_T, to, TAG_LEN, comm);
   for (uint64_t at = 0; at < len; at += PIECE) {
      uint64_t k = len - at < PIECE ? len - at : PIECE;
      MPI_Send(b + at, (int)k, MPI_BYTE, to, TAG_DATA, comm);
   }
}

/* A message from rank `from`: *b malloc'ed (NULL and *len the length if
   out of memory: the bytes are then received and dropped). */
static void recv_bytes(unsigned char **b, uint64_t *len, int from,
                       MPI_Comm comm)
{
   static unsigned char sink[1 << 16];
   MPI_Recv(len, 1, MPI_UINT64_T, from, TAG_LEN, comm, MPI_STATUS_IGNORE);
   *b = *len <= SIZE_MAX ? malloc(*len ? (size_t)*len : 1) : NULL;
   for (uint64_t at = 0; at < *len; ) {
      uint64_t k = *len - at;
      if (!*b && k > sizeof sink)
         k = sizeof sink;
      else if (k > PIECE)
         k = PIECE;
      MPI_Recv(*b ? *b + at : sink, (int)k, MPI_BYTE, from, TAG_DATA, comm,
               MPI_STATUS_IGNORE);
      at += k;
   }
}

/* Append the child's message (for `files` files) to rs and p.  A message
   that cannot be taken makes its files fail. */
static int take_message(results *rs, pl_program *p, const unsigned char *b,
                        uint64_t len, size_t files, int child)
{
   const unsigned char *at = b, *end = b + len;
   size_t before = rs->n;
   uint64_t count;
   pl_program part;
   int u;

   if (!b)
      return results_fail(rs, files, "out of memory receiving the results",
                          child);
   if (len < 8 || (count = get_le(at, 8)) != files)
      goto bad;
   at += 8;
   for (uint64_t k = 0; k < count; k++) {
      pl_error e;
      uint32_t r, l;
      if (end - at < 16)
         goto bad;
      r = (uint32_t)get_le(at, 4);
      memset(&e, 0, sizeof e);
      e.offset = get_le(at + 4, 8);
      l = (uint32_t)get_le(at + 12, 4);
      at += 16;
      if (l >= sizeof e.msg || (size_t)(end - at) < l)
         goto bad;
      memcpy(e.msg, at, l);
      at += l;
      if (results_add(rs, (int)r, &e) < 0)
         return -1;
   }
   if (at == end)
      return 0;                     /* the child could not send a program */
   pl_program_init(&part, p->demangle);
   u = pl_program_unpack(&part, at, (size_t)(end - at));
   if (u == 0 && pl_program_merge(p, &part) == 0) {
      pl_program_free(&part);
      return 0;
   }
   pl_program_free(&part);
   rs->n = before;
   return results_fail(rs, files, u > 0 ? "bad program bytes received"
                                        : "out of memory merging", child);
bad:
   rs->n = before;
   return results_fail(rs, files, "bad results received", child);
}

/* ---- the tree --------------------------------------------------------- */

/* p without its contents (its demangle setting kept). */
static void empty(pl_program *p)
{
   int demangle = p->demangle;
   pl_program_free(p);
   pl_program_init(p, demangle);
}

int pl_mpi_read_files(pl_program *p, const pl_input *in, size_t n,
                      const pl_select *sel, unsigned jobs,
                      const pl_read_hooks *hooks, MPI_Comm comm,
                      pl_mpi_stats *st)
{
   int rank, ranks, ret = 0;
   uint64_t *first;
   results rs = { 0 };
   collect c = { &rs, 0 };
   pl_read_hooks mine = { &c, NULL, collect_done };
   pl_mpi_stats local;
   double t0;

   memset(&local, 0, sizeof local);
   MPI_Comm_rank(comm, &rank);
   MPI_Comm_size(comm, &ranks);
   first = malloc(((size_t)ranks + 1) * sizeof *first);
   if (!first) {              /* the ranks could not agree on the shares */
      fprintf(stderr, "out of memory on MPI rank %d\n", rank);
      MPI_Abort(comm, 1);
   }
   cut_shares(in, n, ranks, rank, comm, first);
   t0 = MPI_Wtime();
   local.files = (size_t)(first[rank + 1] - first[rank]);
   for (size_t i = (size_t)first[rank]; i < first[rank + 1]; i++)
      local.share_bytes += input_bytes(&in[i]);
   if (pl_program_read_files(p, in + first[rank], local.files, sel, jobs,
                             &mine) < 0 || c.oom) {
      empty(p);
      rs.n = 0;
      if (results_fail(&rs, local.files, "out of memory", rank) < 0)
         ret = -1;
   }
   local.read_s = MPI_Wtime() - t0;

   t0 = MPI_Wtime();
   for (int step = 1; step < ranks; step <<= 1) {
      if (rank & step) {               /* send to the parent, then done */
         int parent = rank - step;
         msg m = { 0 };
         size_t files = (size_t)(first[rank + step < ranks ? rank + step
                                                            : ranks]
                                 - first[rank]);
         if (make_message(&m, &rs, p) < 0) {
            free(m.b);
            memset(&m, 0, sizeof m);
            rs.n = 0;
            results_fail(&rs, files, "out of memory", rank);
            make_message(&m, &rs, NULL);
         }
         send_bytes(m.b, m.len, parent, comm);
         local.bytes_sent = m.len;
         free(m.b);
         empty(p);
         break;
      }
      if (rank + step < ranks) {       /* merge the child's files after ours */
         int child = rank + step;
         int last = child + step < ranks ? child + step : ranks;
         unsigned char *b;
         uint64_t len;
         recv_bytes(&b, &len, child, comm);
         local.bytes_received += len;
         if (take_message(&rs, p, b, len,
                          (size_t)(first[last] - first[child]), child) < 0)
            ret = -1;
         free(b);
      }
   }
   local.tree_s = MPI_Wtime() - t0;

   if (rank == 0 && hooks && hooks->done)
      for (size_t i = 0; i < n && i < rs.n; i++)
         hooks->done(hooks->ctx, i, in[i].name, rs.v[i].r, &rs.v[i].err);
   if (st)
      *st = local;
   free(rs.v);
   free(first);
   return ret;
}
