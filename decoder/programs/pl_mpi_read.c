/* SPDX-License-Identifier: MIT */
/* Reading many traces with the ranks of an MPI job (pl_mpi_read.h).

   What a rank sends up the tree, one message (its length first, as
   MPI_UINT64_T, then the bytes in pieces of at most 1 GiB, MPI counts
   being ints), little-endian:
     u64 files; per file: u32 result (pl_program_read's, as unsigned),
                          u64 error offset, u32 length, message bytes
     u8 1 if what was read follows (0: the rank could not keep it, its
        files' results say why), then
     u64 length, the packed program (pl_program_pack), and the rest of the
     message: the packed state, if there is one (pl_backend_state). */
#define _FILE_OFFSET_BITS 64
#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "pl_mpi_read.h"
#include "pl_wire.h"

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

/* Results for `count` files that rank could not deliver. */
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

/* The hooks of this rank's reading: each result is kept, and the
   caller's visitor sees the file's index in the whole list. */
typedef struct {
   results             *rs;
   const pl_read_hooks *user;
   size_t               first;
   int                  oom;
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

static int collect_visitor(void *ctx, size_t i, pl_visitor *v)
{
   collect *c = ctx;
   return c->user->visitor(c->user->ctx, c->first + i, v);
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

/* The message for results rs and, if p is not NULL, p and the state.  0,
   or -1 if out of memory. */
static int make_message(pl_wbuf *m, const results *rs, const pl_program *p,
                        const pl_backend_state *ms)
{
   unsigned char *b = NULL;
   size_t blen = 0;
   pl_wire_u64(m, rs->n);
   for (size_t k = 0; k < rs->n; k++) {
      size_t l = strnlen(rs->v[k].err.msg, sizeof rs->v[k].err.msg - 1);
      pl_wire_u32(m, (uint32_t)rs->v[k].r);
      pl_wire_u64(m, rs->v[k].err.offset);
      pl_wire_u32(m, (uint32_t)l);
      pl_wire_put(m, rs->v[k].err.msg, l);
   }
   pl_wire_put(m, p ? "\1" : "\0", 1);
   if (!p)
      return m->failed ? -1 : 0;
   if (pl_program_pack(p, &b, &blen) < 0)
      return -1;
   pl_wire_u64(m, blen);
   pl_wire_put(m, b, blen);
   free(b);
   if (ms) {
      b = NULL;
      blen = 0;
      if (ms->pack(ms->state, &b, &blen) < 0)
         return -1;
      pl_wire_put(m, b, blen);
      free(b);
   }
   return m->failed ? -1 : 0;
}

void pl_mpi_wait(MPI_Request *req)
{
   const struct timespec nap = { 0, 200 * 1000 };      /* 0.2 ms */
   int done = 0;
   for (;;) {
      MPI_Test(req, &done, MPI_STATUS_IGNORE);
      if (done)
         return;
      nanosleep(&nap, NULL);
   }
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

/* A message from rank `from`: *b malloc'ed (NULL if out of memory: the
   bytes are then received and dropped). */
static void recv_bytes(unsigned char **b, uint64_t *len, int from,
                       MPI_Comm comm)
{
   static unsigned char sink[1 << 16];
   MPI_Request req;
   /* the child may read for a while yet: wait without taking a core */
   MPI_Irecv(len, 1, MPI_UINT64_T, from, TAG_LEN, comm, &req);
   pl_mpi_wait(&req);
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

/* Merge the program and state of a message (at..end) into p and ms: 0;
   1 if they are not such bytes, -1 if out of memory. */
static int merge_data(pl_program *p, const pl_backend_state *ms,
                      const unsigned char *at, const unsigned char *end)
{
   pl_rbuf r = { at, end, 0, 0 };
   uint64_t plen = pl_wire_get_u64(&r);
   const unsigned char *prog;
   pl_program part;
   uint32_t *map = NULL, nmap;
   int u;

   if (r.bad || plen > (uint64_t)(end - r.p))
      return 1;
   prog = pl_wire_take(&r, (size_t)plen);
   pl_program_init(&part, p->demangle);
   u = pl_program_unpack(&part, prog, (size_t)plen);
   nmap = part.nfns;
   if (u == 0 && pl_program_merge_map(p, &part, &map) < 0)
      u = -1;
   pl_program_free(&part);
   if (u == 0 && ms)
      u = ms->merge(ms->state, r.p, (size_t)(end - r.p), map, nmap);
   else if (u == 0 && r.p != end)
      u = 1;
   free(map);
   return u;
}

/* Append the child's message (for `files` files) to rs, p and ms.  A
   message that cannot be taken makes its files fail. */
static int take_message(results *rs, pl_program *p, const pl_backend_state *ms,
                        const unsigned char *b, uint64_t len, size_t files,
                        int child)
{
   pl_rbuf r = { b, b + len, 0, 0 };
   size_t before = rs->n;
   const unsigned char *has;
   int u;

   if (!b)
      return results_fail(rs, files, "out of memory receiving the results",
                          child);
   if (pl_wire_get_u64(&r) != files)
      goto bad;
   for (size_t k = 0; k < files; k++) {
      pl_error e;
      uint32_t res = pl_wire_get_u32(&r), l;
      const unsigned char *msg;
      memset(&e, 0, sizeof e);
      e.offset = pl_wire_get_u64(&r);
      l = pl_wire_get_u32(&r);
      if (l >= sizeof e.msg || !(msg = pl_wire_take(&r, l)))
         goto bad;
      memcpy(e.msg, msg, l);
      if (results_add(rs, (int)res, &e) < 0)
         return -1;
   }
   if (!(has = pl_wire_take(&r, 1)))
      goto bad;
   if (!*has)
      return 0;                     /* the child could not send its data */
   if ((u = merge_data(p, ms, r.p, r.end)) == 0)
      return 0;
   rs->n = before;
   return results_fail(rs, files, u > 0 ? "bad data received"
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
                      const pl_read_hooks *hooks, const pl_backend_state *ms,
                      MPI_Comm comm, pl_mpi_stats *st)
{
   int rank, ranks, ret = 0, failed = 0;
   uint64_t *first;
   results rs = { 0 };
   collect c = { &rs, hooks, 0, 0 };
   pl_read_hooks mine = { &c, hooks && hooks->visitor ? collect_visitor
                                                      : NULL, collect_done };
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
   c.first = (size_t)first[rank];
   for (size_t i = (size_t)first[rank]; i < first[rank + 1]; i++)
      local.share_bytes += input_bytes(&in[i]);
   /* a visitor wants the program's own IDs: one thread (pl_parallel.h) */
   if (pl_program_read_files(p, in + first[rank], local.files, sel,
                             mine.visitor ? 1 : jobs, &mine) < 0 || c.oom) {
      empty(p);
      failed = 1;
      rs.n = 0;
      if (results_fail(&rs, local.files, "out of memory", rank) < 0)
         ret = -1;
   }
   local.read_s = MPI_Wtime() - t0;

   t0 = MPI_Wtime();
   for (int step = 1; step < ranks; step <<= 1) {
      if (rank & step) {               /* send to the parent, then done */
         int parent = rank - step;
         pl_wbuf m = { 0 };
         size_t files = (size_t)(first[rank + step < ranks ? rank + step
                                                            : ranks]
                                 - first[rank]);
         if (make_message(&m, &rs, failed ? NULL : p, ms) < 0) {
            free(m.b);
            memset(&m, 0, sizeof m);
            rs.n = 0;
            results_fail(&rs, files, "out of memory", rank);
            make_message(&m, &rs, NULL, NULL);
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
         size_t files = (size_t)(first[last] - first[child]);
         recv_bytes(&b, &len, child, comm);
         local.bytes_received += len;
         /* a rank that lost its own files has lost its state too: what
            it receives cannot be merged into it, and is reported lost */
         if ((failed ? results_fail(&rs, files, "out of memory", rank)
                     : take_message(&rs, p, ms, b, len, files, child)) < 0)
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
