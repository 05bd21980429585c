/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The trace file of this process: naming, opening, chunk writing.

   All writes go through write_all(), which stops tracing loudly (one
   message, trace marked incomplete in the summary) on the first failure
   such as a full disk, rather than dropping data silently. */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_vkiscnums.h"
#include "pub_core_libcfile.h"    /* VG_(fcntl) */
#include "pub_core_syscall.h"     /* VG_(do_syscall2) */

#include "pl_format.h"
#include "pl_grow.h"
#include "pl_output.h"
#include "pl_table_pack.h"
#include "pl_worker.h"

/* Core function, not in the tool headers but stable since 3.0: moves a
   descriptor above the client's range (so the client cannot close or
   reuse it) and sets close-on-exec.  Every tool that keeps a file open
   while the client runs needs exactly this. */
extern Int VG_(safe_fd)(Int oldfd);

static Int    out_fd = -1;
static HChar *out_name;
static UInt   out_seq;
static ULong  out_bytes;
static Bool   out_failed;
static Int    out_failed_err;   /* its errno, 0: no progress */
static Bool   out_failure_told; /* the message is out */
static Bool   out_not_created;  /* the file could not even be created */
static Bool   pack_tables = True;
static pl_tpack *packer;        /* the table model of this file */
static Bool   packer_fresh;     /* needs pl_tpack_init before use */

/* ---- pl_buf ---------------------------------------------------------- */

static void buf_reserve(pl_buf *b, SizeT n)
{
   if (b->len + n <= b->cap)
      return;
   SizeT cap = pl_grow_cap(b->cap, b->len + n, 4096, 1);
   if (cap == 0)
      VG_(tool_panic)("parlot: output buffer too large");
   b->data = VG_(realloc)("pl.buf", b->data, cap);
   b->cap = cap;
}

void pl_buf_bytes(pl_buf *b, const void *p, SizeT n)
{
   buf_reserve(b, n);
   VG_(memcpy)(b->data + b->len, p, n);
   b->len += n;
}

void pl_buf_u32(pl_buf *b, UInt v)
{
   buf_reserve(b, 4);
   pl_put32(b->data + b->len, v);
   b->len += 4;
}

void pl_buf_u64(pl_buf *b, ULong v)
{
   buf_reserve(b, 8);
   pl_put64(b->data + b->len, v);
   b->len += 8;
}

void pl_buf_str(pl_buf *b, const HChar *s)
{
   pl_buf_bytes(b, s, VG_(strlen)(s) + 1);
}

void pl_buf_kv(pl_buf *b, const HChar *key, const HChar *value)
{
   pl_buf_str(b, key);
   pl_buf_str(b, value);
}

void pl_buf_kv_num(pl_buf *b, const HChar *key, ULong value)
{
   HChar num[32];
   VG_(sprintf)(num, "%llu", value);
   pl_buf_kv(b, key, num);
}

void pl_buf_free(pl_buf *b)
{
   if (b->data)
      VG_(free)(b->data);
   b->data = NULL;
   b->len = b->cap = 0;
}

/* ---- file ------------------------------------------------------------ */

/* The tool library has no strerror: name the errors a trace file meets. */
static const HChar *err_text(Int err)
{
   switch (err) {
   case VKI_ENOSPC: return "No space left on device";
   case VKI_EFBIG:  return "File too large";
   case VKI_EIO:    return "Input/output error";
   case VKI_EACCES: return "Permission denied";
   case VKI_EPERM:  return "Operation not permitted";
   case VKI_ENOENT: return "No such file or directory";
   case VKI_ENOTDIR: return "Not a directory";
   case VKI_EISDIR: return "Is a directory";
   case VKI_EROFS:  return "Read-only file system";
   case VKI_EEXIST: return "File exists";
   case VKI_EBADF:  return "Bad file descriptor";
   default:         return "system error";
   }
}

/* The first failure stops tracing, with one message: the encoder
   thread cannot print, so the client side says it at its next write. */
static void tell_failure(void)
{
   if (!out_failed || out_failure_told || pl_worker_self())
      return;
   out_failure_told = True;
   VG_(umsg)("ParLoT: error: writing trace file '%s' failed (%s); "
             "tracing stops, the trace is incomplete\n", out_name,
             out_failed_err ? err_text(out_failed_err) : "no progress");
}

static void write_all(const void *buf, SizeT len)
{
   const UChar *p = buf;
   if (out_fd < 0 || out_failed)
      return;
   while (len > 0) {
      Int n = VG_(write)(out_fd, p, len > (1u << 30) ? (1u << 30) : (Int)len);
      if (n < 0 && -n == VKI_EINTR)
         continue;
      if (n <= 0) {
         out_failed_err = n < 0 ? -n : 0;
         out_failed = True;
         return;
      }
      p += n;
      len -= n;
      out_bytes += n;
   }
}

/* Is 'name' a trace written by process 'pid'?  The tool writes the pid as
   the first key of the PROCESS chunk that follows the file header.  (Its
   own descriptor: to be closed before the file is locked, as closing any
   descriptor of a file drops the process's locks on it.) */
static Bool is_trace_of_pid(const HChar *name, Int pid)
{
   UChar b[PL_FILE_HEADER_SIZE + PL_CHUNK_HEADER_SIZE + 32];
   HChar want[32];
   /* non-blocking: a FIFO's open would wait for a writer (this process) */
   SysRes sr = VG_(open)(name, VKI_O_RDONLY | VKI_O_NONBLOCK, 0);
   if (sr_isError(sr))
      return False;
   Int n = VG_(read)(sr_Res(sr), b, sizeof b);
   VG_(close)(sr_Res(sr));
   VG_(memcpy)(want, "pid", 4);                           /* key and NUL */
   Int len = 4 + VG_(sprintf)(want + 4, "%d", pid) + 1;   /* value and NUL */
   return n == (Int)sizeof b
          && VG_(memcmp)(b, PL_MAGIC, PL_MAGIC_LEN) == 0
          && b[PL_FILE_HEADER_SIZE] == PL_CHUNK_PROCESS
          && VG_(memcmp)(b + PL_FILE_HEADER_SIZE + PL_CHUNK_HEADER_SIZE,
                         want, len) == 0;
}

/* Linux's lock types (Valgrind's vki headers do not name them). */
#define PL_F_WRLCK 1
#define PL_F_UNLCK 2

/* The process, other than this one, that holds the write lock on the open
   file fd (-1 if its pid is not known here), or 0 after this process took
   the lock: a trace file is locked while it is written. */
static Int lock_holder(Int fd)
{
   struct vki_flock lk;
   VG_(memset)(&lk, 0, sizeof lk);
   lk.l_type = PL_F_WRLCK;               /* whole file, from offset 0 */
   if (VG_(fcntl)(fd, VKI_F_SETLK, (Addr)&lk) == 0)
      return 0;
   VG_(memset)(&lk, 0, sizeof lk);
   lk.l_type = PL_F_WRLCK;
   if (VG_(fcntl)(fd, VKI_F_GETLK, (Addr)&lk) < 0 || lk.l_type == PL_F_UNLCK)
      return 0;                          /* a file system without locks */
   return lk.l_pid > 0 ? lk.l_pid : -1;
}

/* Create name (exclusive: only if it does not exist) or replace it, and
   lock it.  Not replaced, EEXIST as for an existing file with exclusive
   (so that the next name is tried): a file another live process is
   writing (it holds the lock, and *holder says which: the ranks of an MPI
   job given one fixed name, a parent and its children), and a trace of
   this very pid (the image before an exec under --trace-children=yes).
   The descriptor is moved out of the client's range (closed on exec)
   before the lock is taken: closing any descriptor of a file drops the
   process's locks on it. */
static SysRes create(const HChar *name, Bool exclusive, Int *holder)
{
   SysRes sr;
   Int fd, held_by;
   *holder = 0;
   if (!exclusive && is_trace_of_pid(name, VG_(getpid)()))
      return VG_(mk_SysRes_Error)(VKI_EEXIST);
   sr = VG_(open)(name, VKI_O_CREAT | VKI_O_WRONLY
                        | (exclusive ? VKI_O_EXCL : 0),
                  VKI_S_IRUSR | VKI_S_IWUSR | VKI_S_IRGRP | VKI_S_IROTH);
   if (sr_isError(sr))
      return sr;
   fd = VG_(safe_fd)(sr_Res(sr));
   held_by = lock_holder(fd);
   if (exclusive)                      /* a new file: nothing to empty */
      return VG_(mk_SysRes_Success)(fd);
   if (held_by != 0) {
      *holder = held_by;
      VG_(close)(fd);
      return VG_(mk_SysRes_Error)(VKI_EEXIST);
   }
   /* a regular file is emptied; a device (/dev/null) or a pipe cannot be,
      nor needs to */
   struct vg_stat st;
   if (VG_(fstat)(fd, &st) == 0 && VKI_S_ISREG(st.mode)) {
      sr = VG_(do_syscall2)(__NR_ftruncate, fd, 0);
      if (sr_isError(sr)) {
         VG_(close)(fd);
         return sr;
      }
   }
   return VG_(mk_SysRes_Success)(fd);
}

void pl_out_open(const HChar *name, Bool never_overwrite, Bool fatal)
{
   HChar *try_name = VG_(strdup)("pl.out.name", name);
   Bool exclusive = never_overwrite;
   Int busy = 0, holder;       /* busy: the process writing 'name' */
   SysRes sr;

   for (out_seq = 0; ; out_seq++) {
      sr = create(try_name, exclusive, &holder);
      if (!sr_isError(sr) || sr_Err(sr) != VKI_EEXIST || out_seq >= 100000)
         break;
      if (out_seq == 0)
         busy = holder;
      /* only the name asked for may replace a file left by an earlier
         run: a suffixed one may be the trace of a process of this run
         that has ended */
      exclusive = True;
      VG_(free)(try_name);
      try_name = VG_(malloc)("pl.out.name", VG_(strlen)(name) + 16);
      VG_(sprintf)(try_name, "%s.%u", name, out_seq + 1);
   }
   if (sr_isError(sr) && fatal) {
      VG_(fmsg)("ParLoT: cannot create trace file '%s': %s\n",
                try_name, err_text(sr_Err(sr)));
      VG_(exit)(1);
   }
   if (sr_isError(sr)) {
      /* a process the program started: it runs on, untraced */
      VG_(umsg)("ParLoT: error: cannot create trace file '%s' (%s); this "
                "process runs untraced\n", try_name, err_text(sr_Err(sr)));
      out_fd = -1;
      out_name = try_name;
      out_bytes = 0;
      out_failed = out_not_created = out_failure_told = True;
      return;
   }
   if (busy != 0) {
      HChar pid_text[32];
      const HChar *who = "another process"; /* in another pid namespace */
      if (busy > 0) {
         VG_(sprintf)(pid_text, "process %d", busy);
         who = pid_text;
      }
      VG_(umsg)("ParLoT: trace file '%s' is being written by %s (give "
                "each process its own name: %%p); this process writes "
                "'%s'\n", name, who, try_name);
   }
   out_fd = sr_Res(sr);
   out_name = try_name;
   out_bytes = 0;
   out_failed = out_not_created = out_failure_told = False;

   UChar hdr[PL_FILE_HEADER_SIZE];
   if (pack_tables)
      pl_file_header(hdr, PL_VERSION_MAJOR, PL_VERSION_MINOR);
   else
      pl_file_header(hdr, PL_VERSION_PLAIN_MAJOR, PL_VERSION_PLAIN_MINOR);
   write_all(hdr, sizeof hdr);
   tell_failure();
   packer_fresh = True;
}

void pl_out_set_pack_tables(Bool on)
{
   pack_tables = on;
}

void pl_out_table(UInt type, const UChar *payload, UInt len)
{
   if (!pack_tables) {
      pl_out_chunk(type, 0, payload, len);
      return;
   }
   if (!packer)
      packer = VG_(malloc)("pl.out.packer", sizeof *packer);
   if (packer_fresh) {
      pl_tpack_init(packer);
      packer_fresh = False;
   }
   while (len > 0) {
      SizeT n = pl_tpack_piece(type, payload, len);
      if (n > PL_TPACK_MAX_RAW) {         /* one entry too long to pack */
         pl_out_chunk(type, 0, payload, (UInt)n);
      } else {
         UChar *chunk = VG_(malloc)("pl.out.packed",
                                    PL_PACKED_PREFIX_SIZE
                                    + PL_TPACK_MAX_OUT(n));
         SizeT coded = pl_tpack_encode(packer, type, payload, n,
                                       chunk + PL_PACKED_PREFIX_SIZE);
         chunk[0] = (UChar)type;
         chunk[1] = chunk[2] = chunk[3] = 0;
         pl_put32(chunk + 4, (UInt)n);
         pl_out_chunk(PL_CHUNK_PACKED_TABLE, 0, chunk,
                      (UInt)(PL_PACKED_PREFIX_SIZE + coded));
         VG_(free)(chunk);
      }
      payload += n;
      len -= (UInt)n;
   }
}

void pl_out_chunk(UInt type, UInt thread, const void *payload, UInt len)
{
   UChar hdr[PL_CHUNK_HEADER_SIZE];
   tl_assert(len <= PL_MAX_PAYLOAD);
   pl_chunk_header(hdr, type, thread, payload, len);
   pl_out_lock();
   write_all(hdr, sizeof hdr);
   write_all(payload, len);
   pl_out_unlock();
   tell_failure();
}

void pl_out_write(const void *buf, SizeT len)
{
   pl_out_lock();
   write_all(buf, len);
   pl_out_unlock();
   tell_failure();
}

void pl_out_abandon(void)
{
   if (out_fd >= 0)
      VG_(close)(out_fd);
   out_fd = -1;
   if (out_name)
      VG_(free)(out_name);
   out_name = NULL;
}

void pl_out_close(void)
{
   tell_failure();
   if (out_fd >= 0)
      VG_(close)(out_fd);
   out_fd = -1;
}

const HChar *pl_out_name(void) { return out_name ? out_name : "(none)"; }
UInt  pl_out_seq(void)    { return out_seq; }
ULong pl_out_bytes(void)  { return out_bytes; }
Bool  pl_out_failed(void) { return out_failed; }
Bool  pl_out_not_created(void) { return out_not_created; }
