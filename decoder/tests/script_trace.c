/* SPDX-License-Identifier: MIT */
/* script_trace: write a ParLoT trace from a small text script, so that
   tests can use traces whose every event is known and counted by hand.

   usage: script_trace SCRIPT TRACE      (SCRIPT "-" reads standard input)

   It writes the trace with the shared encoder (pl_codec.c) and chunk
   writer (pl_format.c), as the Valgrind tool does, and the result is a
   valid trace (docs/trace-format.md): dense object and function IDs,
   definitions before the STREAM chunks that use them, threads numbered in
   creation order, every STREAM chunk ending at a ZE group with its
   raw_end, THREAD_END with the true totals (events, words, raw and
   encoded bytes, max depth), PROCESS_END with threads, functions and
   events.  A script that would break a rule of the format is refused.

   The script: one command per line; blank lines and lines starting with
   '#' are ignored.  Words are separated by blanks; inside a word, \s is a
   space, \t a tab, \n a newline, \\ a backslash and \xHH any byte.

     process KEY=VALUE...
         The first command: the PROCESS chunk, with these pairs in this
         order (pid= is required).  If there are argN keys and no argc,
         argc is added (the highest N + 1).  E.g.
           process pid=100 ppid=1 exe=/bin/app arg0=./app arg1=-v
           mpi_rank=3
     object PATH
         Define an object; objects get IDs 1, 2, ... in script order.
     function NAME [OBJECT] [addr=ADDRESS]
         Define a function of OBJECT (a path defined by `object`; ??? or
         nothing: the unknown object); functions get IDs 1, 2, ... in
         script order.  The address defaults to 0x1000 times the ID.
         Consecutive definitions go into one OBJECTS or FUNCTIONS chunk,
         written before the next chunk of any other kind.
     alias F NAME...
         Function F (a name or #ID, as in call) has these other names too:
         ALIASES entries (format 1.4), pending like definitions.
     thread N [parent=P] [codec=lzze|raw] [inherited=K] [tid=T] [lwp=L]
         THREAD_BEGIN: thread N starts (N = 1, 2, 3, ... in order).  The
         parent defaults to 0 for thread 1 and 1 for the others, the codec
         to lzze, the Valgrind ThreadId to N, the LWP (recorded in
         THREAD_END) to 0.  With inherited=K the thread belongs to a forked
         child: its first K calls re-create the inherited stack.
     call N F [F...]
         Thread N calls F: a function name (the first defined with that
         name) or #ID.  More names call further in: "call 1 main f" is main
         calling f.
     return N [COUNT]
         Thread N returns from its innermost frame, COUNT times (default 1).
     sync [N]
         The stream of thread N (of every running thread) so far goes into
         STREAM chunks ending on an event boundary (the tool's periodic
         flush).  Chunks are also written, unsynced, every 4 kB of stream.
     exit N
         Thread N exits: its open frames are closed (their returns are
         recorded, innermost first, as the tool does), then THREAD_END
         (reason: the thread exited).
     exec PATH
         Every stream is synced, then an EXEC chunk.  If it is the last
         command, the exec succeeded: the trace is complete, threads
         without THREAD_END keep their frames open.  Otherwise it failed and
         the threads go on.
     end [STATUS]
         The process exits with STATUS (default 0): every running thread's
         open frames are closed and it gets its THREAD_END (reason: still
         running at the end), then PROCESS_END.  Nothing may follow.
     kill
         The process is killed: the file ends here, without THREAD_END or
         PROCESS_END, and what no STREAM chunk holds yet (after the last
         sync) is lost.  Nothing may follow.
     crash SIGNAL NAME N [handler=D]
         A fatal signal (its number, its name) delivered to thread N kills
         the process, as the tool records it: every running thread's
         THREAD_END (reason: a fatal signal), its frames left open, and
         thread N's saying that a signal handler was entered at stream
         depth D and still ran, if given; then PROCESS_END.  Nothing may
         follow.

   A script must end with end, exec, kill or crash.  Errors go to stderr as
   "script_trace: SCRIPT:LINE: message"; the exit status is then 2. */

#define _POSIX_C_SOURCE 200809L    /* getline */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_codec.h"
#include "pl_format.h"

#define ENC_BUF     (64u << 10)
#define CHUNK_BYTES 4096        /* write unsynced chunks at this size */
#define MAX_WORDS   64

typedef struct {
   uint32_t   number;
   int        codec;
   int        ended;
   pl_encoder enc;
   uint8_t    buf[ENC_BUF];
   uint64_t   stream_off;      /* stream bytes written */
   uint64_t   depth;           /* frames open */
   uint64_t   max_depth;
   uint32_t   inherited;       /* inherited calls still to come */
   uint32_t   lwp;
} sthread;

static struct {
   const char *script;
   unsigned    line;
   FILE       *f;
   int         started;        /* the PROCESS chunk is out */
   int         finished;       /* end, exec (so far last) or kill */
   int         exec_last;      /* the last command was exec */
   char      **objects;        /* [1..nobjects] */
   uint32_t    nobjects;
   char      **fns;            /* names, [1..nfns] */
   uint32_t    nfns;
   uint8_t    *pending;        /* definitions not yet written */
   size_t      plen, pcap;
   unsigned    ptype;          /* their chunk type, 0 if none */
   sthread   **threads;        /* [0..nthreads) = numbers 1.. */
   uint32_t    nthreads;
   uint32_t    threads_ended;
   uint64_t    events;         /* over ended threads */
} S;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2),
                                                     noreturn));

static void die(const char *fmt, ...)
{
   va_list ap;
   if (S.line)
      fprintf(stderr, "script_trace: %s:%u: ", S.script, S.line);
   else
      fprintf(stderr, "script_trace: ");
   va_start(ap, fmt);
   vfprintf(stderr, fmt, ap);
   va_end(ap);
   fputc('\n', stderr);
   exit(2);
}

static void *xrealloc(void *p, size_t n)
{
   p = realloc(p, n ? n : 1);
   if (!p)
      die("out of memory");
   return p;
}

static char *xstrdup(const char *s)
{
   size_t n = strlen(s) + 1;
   return memcpy(xrealloc(NULL, n), s, n);
}

/* ---- Words -------------------------------------------------------------- */

static int hexval(int c)
{
   if (c >= '0' && c <= '9')
      return c - '0';
   if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
   if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
   return -1;
}

/* Split line into words in place, undoing escapes; returns the count. */
static int split(char *line, char **w)
{
   int n = 0;
   char *p = line;
   for (;;) {
      char *out;
      while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
         p++;
      if (!*p)
         return n;
      if (n == MAX_WORDS)
         die("more than %d words", MAX_WORDS);
      w[n++] = out = p;
      while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
         if (*p != '\\') {
            *out++ = *p++;
            continue;
         }
         switch (p[1]) {
         case 's': *out++ = ' '; p += 2; break;
         case 't': *out++ = '\t'; p += 2; break;
         case 'n': *out++ = '\n'; p += 2; break;
         case '\\': *out++ = '\\'; p += 2; break;
         case 'x':
            if (hexval(p[2]) < 0 || hexval(p[3]) < 0
                || (hexval(p[2]) | hexval(p[3])) == 0)
               die("bad escape (\\xHH, not \\x00)");
            *out++ = (char)(hexval(p[2]) << 4 | hexval(p[3]));
            p += 4;
            break;
         default:
            die("bad escape '\\%c'", p[1] ? p[1] : ' ');
         }
      }
      if (*p)
         p++;
      *out = 0;
   }
}

static uint64_t number(const char *s, const char *what)
{
   char *end;
   uint64_t v;
   if (!*s || *s == '-')
      die("bad %s '%s'", what, s);
   v = strtoull(s, &end, 0);
   if (*end)
      die("bad %s '%s'", what, s);
   return v;
}

static uint32_t number32(const char *s, const char *what)
{
   uint64_t v = number(s, what);
   if (v > UINT32_MAX)
      die("%s '%s' is too large", what, s);
   return (uint32_t)v;
}

/* The value of "key=value" if w is one, else NULL. */
static const char *option(const char *w, const char *key)
{
   size_t n = strlen(key);
   return strncmp(w, key, n) == 0 && w[n] == '=' ? w + n + 1 : NULL;
}

/* ---- Chunks ------------------------------------------------------------- */

static void write_bytes(const void *p, size_t n)
{
   if (n && fwrite(p, 1, n, S.f) != n)
      die("cannot write the trace");
}

static void flush_definitions(void);

static void put_chunk(unsigned type, uint32_t thread, const void *p,
                      size_t len)
{
   uint8_t h[PL_CHUNK_HEADER_SIZE];
   if (type != PL_CHUNK_OBJECTS && type != PL_CHUNK_FUNCTIONS
       && type != PL_CHUNK_ALIASES)
      flush_definitions();
   if (len > PL_MAX_PAYLOAD)
      die("chunk too large");
   pl_chunk_header(h, type, thread, p, (uint32_t)len);
   write_bytes(h, sizeof h);
   write_bytes(p, len);
}

/* A table entry: its fixed part, then the name and its NUL; whole in one
   chunk. */
static void pending_entry(unsigned type, const void *fixed, size_t n,
                          const char *name)
{
   size_t len = n + strlen(name) + 1;
   if (S.ptype != type || S.plen + len > PL_MAX_PAYLOAD)
      flush_definitions();
   S.ptype = type;
   if (S.plen + len > S.pcap) {
      S.pcap = 2 * (S.plen + len) + 256;
      S.pending = xrealloc(S.pending, S.pcap);
   }
   memcpy(S.pending + S.plen, fixed, n);
   memcpy(S.pending + S.plen + n, name, len - n);
   S.plen += len;
}

static void flush_definitions(void)
{
   unsigned type = S.ptype;
   if (!type)
      return;
   S.ptype = 0;
   put_chunk(type, 0, S.pending, S.plen);
   S.plen = 0;
}

/* key\0value\0 pairs. */
typedef struct {
   uint8_t *p;
   size_t   len, cap;
} kvbuf;

static void kv_add(kvbuf *kv, const char *k, const char *v)
{
   size_t kl = strlen(k) + 1, vl = strlen(v) + 1;
   if (kv->len + kl + vl > kv->cap) {
      kv->cap = 2 * (kv->len + kl + vl);
      kv->p = xrealloc(kv->p, kv->cap);
   }
   memcpy(kv->p + kv->len, k, kl);
   memcpy(kv->p + kv->len + kl, v, vl);
   kv->len += kl + vl;
}

/* ---- Streams ------------------------------------------------------------ */

/* Write every ready stream byte in one STREAM chunk: whole ZE groups, the
   last one possibly short after a sync; pl_enc_ready_raw() is where they
   end in the raw stream. */
static void flush_stream(sthread *t)
{
   size_t n = pl_enc_ready(&t->enc);
   uint8_t *p;
   if (n == 0)
      return;
   p = xrealloc(NULL, PL_STREAM_PREFIX_SIZE + n);
   pl_put64(p, t->stream_off);
   pl_put64(p + 8, pl_enc_ready_raw(&t->enc));
   memcpy(p + PL_STREAM_PREFIX_SIZE, t->enc.out, n);
   put_chunk(PL_CHUNK_STREAM, t->number, p, PL_STREAM_PREFIX_SIZE + n);
   free(p);
   t->stream_off += n;
   pl_enc_consume(&t->enc, n);
}

static void sync_thread(sthread *t)
{
   pl_enc_sync(&t->enc);
   flush_stream(t);
   if (pl_enc_ready_raw(&t->enc) != t->enc.raw_bytes)
      die("internal error: raw bytes left after a sync");
}

/* After an event: write a chunk's worth, keep room for the next event. */
static void after_event(sthread *t)
{
   if (pl_enc_ready(&t->enc) >= CHUNK_BYTES
       || t->enc.out_cap - t->enc.out_len < 2 * PL_ENC_MAX_EVENT_BYTES)
      flush_stream(t);
}

static sthread *thread_arg(const char *s)
{
   uint32_t n = number32(s, "thread number");
   sthread *t;
   if (n == 0 || n > S.nthreads)
      die("no thread %s", s);
   t = S.threads[n - 1];
   if (t->ended)
      die("thread %s has exited", s);
   return t;
}

static uint32_t function_arg(const char *s)
{
   uint32_t id;
   if (s[0] == '#') {
      id = number32(s + 1, "function ID");
      if (id == 0 || id > S.nfns)
         die("no function %s", s);
      return id;
   }
   for (id = 1; id <= S.nfns; id++)
      if (strcmp(S.fns[id], s) == 0)
         return id;
   die("no function '%s' (define it with 'function')", s);
}

static void do_call(sthread *t, uint32_t fn)
{
   pl_enc_enter(&t->enc, fn);
   if (++t->depth > t->max_depth)
      t->max_depth = t->depth;
   if (t->inherited)
      t->inherited--;
   after_event(t);
}

static void do_return(sthread *t)
{
   if (t->depth == 0)
      die("thread %" PRIu32 " returns with an empty stack", t->number);
   if (t->inherited)
      die("thread %" PRIu32 " returns before its %" PRIu32 " inherited calls"
          " are made", t->number, t->inherited);
   pl_enc_exit(&t->enc);
   t->depth--;
   after_event(t);
}

/* Close the open frames (unless a fatal signal ends the thread), sync,
   THREAD_END: of the 2.4 and 2.12 size with a signal's number and where
   a handler was entered (1 + its depth, 0 none). */
static void end_thread_as(sthread *t, uint32_t reason, uint32_t signo,
                          uint32_t handler)
{
   uint8_t p[PL_THREAD_END_WRITTEN];
   uint32_t len = reason == PL_END_SIGNAL ? PL_THREAD_END_WRITTEN
                                          : PL_THREAD_END_SIZE;
   if (t->inherited)
      die("thread %" PRIu32 " ends before its %" PRIu32 " inherited calls "
          "are made", t->number, t->inherited);
   while (t->depth > 0 && reason != PL_END_SIGNAL)
      do_return(t);
   sync_thread(t);
   memset(p, 0, sizeof p);
   pl_put32(p + PL_THREAD_END_SIGNAL, signo);
   pl_put32(p + PL_THREAD_END_HANDLER, handler);
   pl_put64(p, t->enc.events);
   pl_put64(p + 8, t->enc.words);
   pl_put64(p + 16, t->enc.raw_bytes);
   pl_put64(p + 24, t->stream_off);
   pl_put32(p + 32, t->lwp);
   pl_put32(p + 36, reason);
   pl_put64(p + 40, t->max_depth);
   put_chunk(PL_CHUNK_THREAD_END, t->number, p, len);
   t->ended = 1;
   S.threads_ended++;
   S.events += t->enc.events;
}

static void end_thread(sthread *t, uint32_t reason)
{
   end_thread_as(t, reason, 0, 0);
}

/* ---- Commands ----------------------------------------------------------- */

static void cmd_process(char **w, int n)
{
   uint8_t hdr[PL_FILE_HEADER_SIZE];
   kvbuf kv = { NULL, 0, 0 };
   int i, have_pid = 0, have_argc = 0;
   long max_arg = -1;

   if (S.started)
      die("a second 'process'");
   for (i = 1; i < n; i++) {
      char *eq = strchr(w[i], '=');
      if (!eq || eq == w[i])
         die("'%s' is not KEY=VALUE", w[i]);
      *eq = 0;
      if (strspn(w[i], "abcdefghijklmnopqrstuvwxyz0123456789_")
          != strlen(w[i]))
         die("key '%s' is not [a-z0-9_]", w[i]);
      have_pid |= strcmp(w[i], "pid") == 0;
      have_argc |= strcmp(w[i], "argc") == 0;
      if (strncmp(w[i], "arg", 3) == 0 && w[i][3] >= '0' && w[i][3] <= '9') {
         long a = (long)number32(w[i] + 3, "argument number");
         if (a > max_arg)
            max_arg = a;
      }
      kv_add(&kv, w[i], eq + 1);
   }
   if (!have_pid)
      die("'process' needs pid=");
   if (max_arg >= 0 && !have_argc) {
      char num[24];
      snprintf(num, sizeof num, "%ld", max_arg + 1);
      kv_add(&kv, "argc", num);
   }
   pl_file_header(hdr, PL_VERSION_PLAIN_MAJOR, PL_VERSION_PLAIN_MINOR);
   write_bytes(hdr, sizeof hdr);
   put_chunk(PL_CHUNK_PROCESS, 0, kv.p, kv.len);
   free(kv.p);
   S.started = 1;
}

static void cmd_object(char **w, int n)
{
   uint8_t id[4];
   uint32_t k;
   if (n != 2)
      die("usage: object PATH");
   if (strcmp(w[1], "???") == 0)
      die("??? is the unknown object, not a path");
   for (k = 1; k <= S.nobjects; k++)
      if (strcmp(S.objects[k], w[1]) == 0)
         die("object '%s' is already defined", w[1]);
   S.objects = xrealloc(S.objects, (S.nobjects + 2) * sizeof *S.objects);
   S.objects[++S.nobjects] = xstrdup(w[1]);
   pl_put32(id, S.nobjects);
   pending_entry(PL_CHUNK_OBJECTS, id, 4, w[1]);
}

static void cmd_function(char **w, int n)
{
   uint8_t e[16];
   uint32_t obj = 0, id = S.nfns + 1;
   uint64_t addr = 0x1000ull * id;
   int i;

   if (n < 2)
      die("usage: function NAME [OBJECT] [addr=ADDRESS]");
   for (i = 2; i < n; i++) {
      const char *a = option(w[i], "addr");
      if (a) {
         addr = number(a, "address");
      } else if (i == 2 && strcmp(w[i], "???") != 0) {
         for (obj = 1; obj <= S.nobjects; obj++)
            if (strcmp(S.objects[obj], w[i]) == 0)
               break;
         if (obj > S.nobjects)
            die("no object '%s' (define it with 'object')", w[i]);
      } else if (i != 2) {
         die("unexpected '%s'", w[i]);
      }
   }
   S.fns = xrealloc(S.fns, (id + 1) * sizeof *S.fns);
   S.fns[id] = xstrdup(w[1]);
   S.nfns = id;
   pl_put32(e, id);
   pl_put32(e + 4, obj);
   pl_put64(e + 8, addr);
   pending_entry(PL_CHUNK_FUNCTIONS, e, sizeof e, w[1]);
}

static void cmd_thread(char **w, int n)
{
   uint8_t p[PL_THREAD_BEGIN_SIZE];
   uint32_t num, parent, tid;
   sthread *t;
   int i;

   if (n < 2)
      die("usage: thread N [parent=P] [codec=lzze|raw] [inherited=K] "
          "[tid=T] [lwp=L]");
   num = number32(w[1], "thread number");
   if (num != S.nthreads + 1)
      die("thread %s: the next thread is number %" PRIu32, w[1],
          S.nthreads + 1);
   t = calloc(1, sizeof *t);
   if (!t)
      die("out of memory");
   t->number = num;
   t->codec = PL_CODEC_LZZE;
   parent = num == 1 ? 0 : 1;
   tid = num;
   for (i = 2; i < n; i++) {
      const char *v;
      if ((v = option(w[i], "parent")))
         parent = number32(v, "parent");
      else if ((v = option(w[i], "tid")))
         tid = number32(v, "tid");
      else if ((v = option(w[i], "lwp")))
         t->lwp = number32(v, "lwp");
      else if ((v = option(w[i], "inherited")))
         t->inherited = number32(v, "inherited depth");
      else if ((v = option(w[i], "codec"))) {
         if (strcmp(v, "lzze") == 0)
            t->codec = PL_CODEC_LZZE;
         else if (strcmp(v, "raw") == 0)
            t->codec = PL_CODEC_RAW;
         else
            die("codec is lzze or raw, not '%s'", v);
      } else {
         die("unexpected '%s'", w[i]);
      }
   }
   if (parent >= num)
      die("thread %" PRIu32 ": parent %" PRIu32 " does not exist yet", num,
          parent);
   memset(p, 0, sizeof p);
   pl_put32(p, num);
   pl_put32(p + 4, parent);
   pl_put32(p + 8, tid);
   pl_put32(p + 12, (uint32_t)t->codec);
   pl_put32(p + 16, t->inherited);
   put_chunk(PL_CHUNK_THREAD_BEGIN, num, p, sizeof p);
   pl_enc_init(&t->enc, t->codec, t->buf, sizeof t->buf);
   S.threads = xrealloc(S.threads, (S.nthreads + 1) * sizeof *S.threads);
   S.threads[S.nthreads++] = t;
}

static void sync_all(void)
{
   uint32_t i;
   for (i = 0; i < S.nthreads; i++)
      if (!S.threads[i]->ended)
         sync_thread(S.threads[i]);
}

/* PROCESS_END: how the process ended (the pairs in kv, freed), then the
   totals. */
static void process_end(kvbuf *kv)
{
   char num[24];
   snprintf(num, sizeof num, "%" PRIu32, S.threads_ended);
   kv_add(kv, "threads", num);
   snprintf(num, sizeof num, "%" PRIu32, S.nfns);
   kv_add(kv, "functions", num);
   snprintf(num, sizeof num, "%" PRIu64, S.events);
   kv_add(kv, "events", num);
   put_chunk(PL_CHUNK_PROCESS_END, 0, kv->p, kv->len);
   free(kv->p);
   S.finished = 1;
}

static void cmd_end(char **w, int n)
{
   kvbuf kv = { NULL, 0, 0 };
   uint32_t i;

   if (n > 2)
      die("usage: end [STATUS]");
   for (i = 0; i < S.nthreads; i++)
      if (!S.threads[i]->ended)
         end_thread(S.threads[i], PL_END_PROCESS_EXIT);
   kv_add(&kv, "ending", "exit");       /* as the tool writes since 2.3 */
   kv_add(&kv, "exit_status", n == 2 ? w[1] : "0");
   process_end(&kv);
}

static void cmd_crash(char **w, int n)
{
   kvbuf kv = { NULL, 0, 0 };
   char num[24];
   uint32_t i, signo, thr, handler = 0;

   if (n < 4 || n > 5 || (n == 5 && strncmp(w[4], "handler=", 8) != 0))
      die("usage: crash SIGNAL NAME N [handler=D]");
   signo = (uint32_t)number(w[1], "signal");
   thr = (uint32_t)number(w[3], "thread");
   if (n == 5)
      handler = (uint32_t)number(w[4] + 8, "handler depth") + 1;
   for (i = 0; i < S.nthreads; i++)
      if (!S.threads[i]->ended)
         end_thread_as(S.threads[i], PL_END_SIGNAL, signo,
                       S.threads[i]->number == thr ? handler : 0);
   kv_add(&kv, "ending", "signal");
   snprintf(num, sizeof num, "%" PRIu32, signo);
   kv_add(&kv, "signal", num);
   kv_add(&kv, "signal_name", w[2]);
   snprintf(num, sizeof num, "%" PRIu32, thr);
   kv_add(&kv, "signal_thread", num);
   process_end(&kv);
}

static void command(char **w, int n)
{
   const char *c = w[0];
   if (S.finished && !S.exec_last)
      die("nothing may follow end or kill");
   S.finished = S.exec_last = 0;        /* an exec followed: it failed */
   if (!S.started && strcmp(c, "process") != 0)
      die("the script must start with 'process'");
   if (strcmp(c, "process") == 0) {
      cmd_process(w, n);
   } else if (strcmp(c, "object") == 0) {
      cmd_object(w, n);
   } else if (strcmp(c, "function") == 0) {
      cmd_function(w, n);
   } else if (strcmp(c, "alias") == 0) {
      uint8_t id[4];
      int i;
      if (n < 3)
         die("usage: alias F NAME...");
      pl_put32(id, function_arg(w[1]));
      for (i = 2; i < n; i++)
         pending_entry(PL_CHUNK_ALIASES, id, 4, w[i]);
   } else if (strcmp(c, "thread") == 0) {
      cmd_thread(w, n);
   } else if (strcmp(c, "call") == 0) {
      sthread *t;
      int i;
      if (n < 3)
         die("usage: call N F [F...]");
      t = thread_arg(w[1]);
      for (i = 2; i < n; i++)
         do_call(t, function_arg(w[i]));
   } else if (strcmp(c, "return") == 0) {
      sthread *t;
      uint64_t k, count = 1;
      if (n < 2 || n > 3)
         die("usage: return N [COUNT]");
      t = thread_arg(w[1]);
      if (n == 3)
         count = number(w[2], "count");
      for (k = 0; k < count; k++)
         do_return(t);
   } else if (strcmp(c, "sync") == 0) {
      if (n > 2)
         die("usage: sync [N]");
      if (n == 2)
         sync_thread(thread_arg(w[1]));
      else
         sync_all();
   } else if (strcmp(c, "exit") == 0) {
      if (n != 2)
         die("usage: exit N");
      end_thread(thread_arg(w[1]), PL_END_THREAD_EXIT);
   } else if (strcmp(c, "exec") == 0) {
      kvbuf kv = { NULL, 0, 0 };
      if (n != 2)
         die("usage: exec PATH");
      sync_all();
      kv_add(&kv, "path", w[1]);
      put_chunk(PL_CHUNK_EXEC, 0, kv.p, kv.len);
      free(kv.p);
      S.finished = S.exec_last = 1;
   } else if (strcmp(c, "end") == 0) {
      cmd_end(w, n);
   } else if (strcmp(c, "crash") == 0) {
      cmd_crash(w, n);
   } else if (strcmp(c, "kill") == 0) {
      if (n != 1)
         die("usage: kill");
      S.finished = 1;
   } else {
      die("unknown command '%s'", c);
   }
}

int main(int argc, char **argv)
{
   FILE *in;
   char *line = NULL;
   size_t cap = 0;
   uint32_t i;

   if (argc != 3) {
      fprintf(stderr, "usage: script_trace SCRIPT TRACE   (SCRIPT - : "
              "standard input; the script language is described in "
              "script_trace.c)\n");
      return 2;
   }
   S.script = argv[1];
   in = strcmp(argv[1], "-") == 0 ? stdin : fopen(argv[1], "r");
   if (!in)
      die("cannot open %s", argv[1]);
   S.f = fopen(argv[2], "wb");
   if (!S.f)
      die("cannot create %s", argv[2]);
   while (getline(&line, &cap, in) >= 0) {
      char *w[MAX_WORDS];
      int n;
      S.line++;
      n = split(line, w);
      if (n == 0 || w[0][0] == '#')
         continue;
      command(w, n);
   }
   if (ferror(in))
      die("cannot read the script");
   if (!S.finished)
      die("the script must end with end, exec, kill or crash");
   S.line = 0;
   if (fclose(S.f) != 0)
      die("cannot write %s", argv[2]);
   if (in != stdin)
      fclose(in);
   free(line);
   for (i = 1; i <= S.nobjects; i++)
      free(S.objects[i]);
   free(S.objects);
   for (i = 1; i <= S.nfns; i++)
      free(S.fns[i]);
   free(S.fns);
   for (i = 0; i < S.nthreads; i++)
      free(S.threads[i]);
   free(S.threads);
   free(S.pending);
   return 0;
}
