/* SPDX-License-Identifier: MIT */
/* make_trace: write a synthetic ParLoT trace for decoder tests.

   It drives the shared encoder (pl_codec.c) and chunk writer (pl_format.c)
   the way the Valgrind tool does: several threads, their STREAM chunks
   interleaved, each chunk ending at a ZE group with its raw_end, streams
   synced (pl_enc_sync) at random points as by --flush-interval, functions
   defined in FUNCTIONS chunks just before first use, EXEC chunks before
   exec calls.  Alongside it writes its own listing of the events it
   generated, in parlot-decode --events format, from its model of each
   thread's stack and not from any decoding: the test compares the two.
   Function names include mangled C++ names; the listing shows them
   demangled (from a hand-written table, not from a demangler) unless
   --raw-names 1 is given.

   A variant damages the trace on purpose; a third file then says what
   parlot-decode must report:
     line 1: "exact"  - stdout must equal the listing
             "prefix" - each thread's lines must be a prefix of its listing
     line 2: an extended regex for the message after "FILE: " on stderr,
             empty when the trace is valid (exit status 0).
     line 3: the file offsets (space-separated, possibly none) right after
             each EXEC chunk: a copy of the trace cut there is complete.

   usage: make_trace [options] TRACE LISTING EXPECT   (LISTING may be "none")
     --seed N  --threads N  --events N (per thread)  --functions N
     --codec lzze|raw|lzrc|ccm|ccm5|ccm4|ccm3|ccm2|ccm1|mixed (mixed: LZZE and RAW)  --chunk N (max data bytes per STREAM chunk,
     0 = random per thread; a chunk holds at least one ZE group)
     --fork N (inherited depth of thread 1)  --raw-names 0|1 (listing with
     the names as recorded, i.e. for parlot-decode --no-demangle)
     --variant NAME (see variants[] below)
   and, for tests that need more than the --events listing (the defaults
   leave the output as it always was):
     --pid N (the process ID recorded, default 4242)
     --deep N (depth of thread 3's one deep recursion, default 20000;
     0 = none)
     --ids 1 (a seventh listing column: the function's ID in the trace, so
     that functions with the same object and name can be told apart)
     --table FILE (the functions defined, one per line:
     ID<TAB>OBJECT<TAB>NAME AS RECORDED<TAB>NAME AS SHOWN, escaped as in the
     listing)
     --marks 1 (now and then a MARK chunk, or a TRACING chunk that stops
     or restarts recording, format 1.2, for the fuzzers' seeds: the
     listing shows neither)
     --twin ID (ID > 1: function ID gets the object and name of function ID-1, as
     two static functions of the same name in one library: same identity,
     so their call paths share stack tags)
     --pack 0 (tables in plain OBJECTS, FUNCTIONS and ALIASES chunks, format
     1.4, instead of PACKED_TABLE chunks, format 2.0) */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_codec.h"
#include "pl_format.h"
#include "pl_table_pack.h"

#define ENC_BUF (64u << 10)

enum variant {
   V_OK, V_EXTRAS, V_EXEC, V_EXEC_FAILED,
   /* these act once G.kill_at events were generated */
   V_KILLED, V_KILLED_SYNCED, V_ZERO_TAIL, V_BAD_EXIT, V_BAD_ID, V_CRC,
   V_MISSING, V_BAD_LEN, V_RAW_LONG, V_RAW_SHORT, V_RAW_STUCK, V_EMPTY_CHUNK,
   V_HUGE_MATCH, V_EXEC_MID_EVENT,
   /* the others */
   V_BAD_INHERIT, V_AFTER_END, V_OPEN_FRAMES, V_COUNT, V_END_RAW,
   V_BAD_ALIAS, V_BAD_PACKED
};

static const char *const variants[] = {
   "ok",          /* a valid trace */
   "extras",      /* valid, with what readers must skip: higher minor version,
                     header/chunk flags, unknown chunk types and keys, longer
                     fixed-size payloads; and aliases of some functions
                     (ALIASES chunks, format 1.4: the names shown stay) */
   "exec",        /* valid: ends with the EXEC chunk of a successful exec
                     (threads without THREAD_END, frames open), after some
                     failed ones */
   "exec-failed", /* valid: EXEC chunks of failed execs, then the streams go
                     on and the process exits */
   "killed",      /* the process was killed: no THREAD_END/PROCESS_END */
   "killed-synced", /* killed right after a thread wrote its last STREAM
                     chunk, before its THREAD_END, all streams synced: every
                     event decodes */
   "zero-tail",   /* killed, and the file ends in zero bytes */
   "bad-exit",    /* an exit with an empty call stack */
   "bad-id",      /* an entry of an undefined function */
   "crc",         /* a STREAM payload byte flipped after its CRC was taken */
   "missing",     /* a STREAM chunk left out */
   "bad-len",     /* a chunk header with an absurd payload length */
   "raw-long",    /* a STREAM chunk's raw_end 8 beyond what its bytes hold */
   "raw-short",   /* a STREAM chunk's raw_end 8 short of what its bytes hold */
   "raw-stuck",   /* a STREAM chunk's raw_end equal to the previous one */
   "empty-chunk", /* a STREAM chunk without stream bytes */
   "huge-match",  /* killed (no THREAD_END) right after a STREAM chunk whose
                     open match is declared 2^40 words long, as an encoder
                     would write it (LZZE: the length; LZRC: the length and
                     raw_end): hours of copying for a reader that believes
                     it */
   "exec-mid-event", /* a final EXEC, but a stream ends inside an event */
   "bad-inherit", /* an exit among a forked thread's inherited entries */
   "after-end",   /* a chunk after PROCESS_END */
   "open-frames", /* a thread ends with frames still open */
   "count",       /* THREAD_END records one event too many */
   "end-raw",     /* THREAD_END raw bytes differ from the last raw_end */
   "bad-alias",   /* an ALIASES entry of a function not defined yet */
   "bad-packed",  /* the second PACKED_TABLE chunk of functions lacks its
                     last coded byte (its CRC matches) */
};

typedef struct {
   uint32_t fn, depth;
   uint32_t ret;
} rec;

typedef struct gthread {
   uint32_t   number;
   int        codec;
   int        begun, ended;
   pl_encoder enc;
   uint8_t    buf[ENC_BUF];
   uint64_t   stream_off;      /* stream bytes written so far */
   uint64_t   raw_written;     /* raw_end of the last STREAM chunk */
   uint64_t   raw_shift;       /* raw-long/raw-short: added to raw_ends */
   uint64_t   noted;           /* --marks: position of the last one + 1 */
   uint32_t   nmarks;
   int        stopped;         /* --marks: the last TRACING chunk stopped */
   uint32_t   sync_every;      /* sync after 1 in this many events (0: no) */
   uint32_t  *stack;
   size_t     sp, scap;
   uint64_t   max_depth;
   uint64_t   target;          /* events to generate */
   uint64_t   inherited;
   size_t     chunk_max;
   int        deep_done;
   rec       *log;
   size_t     nlog, logcap;
   int        skip_next_stream;  /* "missing": drop the next data chunk */
} gthread;

static struct {
   FILE     *f;
   uint64_t  off;
   uint64_t  rng;
   enum variant variant;
   int       extras;
   int       marks;           /* --marks: MARK and TRACING chunks */
   uint32_t  nfns_max;        /* function IDs used: 1..nfns_max */
   uint32_t  defined;         /* functions defined so far */
   int       objs2_defined;
   int       listing;
   int       damage_done;     /* the one-shot damage has been placed */
   uint64_t  events_total;    /* over all threads, for the kill point */
   uint64_t  kill_at;
   int       killed;          /* the file ends now (kill or exec) */
   int       kill_in_end;     /* killed-synced: at the next THREAD_END */
   uint64_t  next_failed_exec;   /* events_total of the next failed exec */
   int       failed_execs;    /* left to do */
   int       raw_names;       /* listing with names as recorded */
   int       ids;             /* listing with function IDs */
   uint32_t  deep;            /* depth of thread 3's deep recursion */
   uint32_t  twin;            /* this function is named as the one before */
   char      exec_ends[200];  /* offsets after EXEC chunks, for line 3 */
   struct gthread *threads;
   uint32_t  nthreads;
   int       all_raw;         /* --codec raw */
   char      expect_mode[8];
   char      expect_re[300];
   /* exact listings end inside this thread, after this many events */
   uint32_t  stop_thread;
   size_t    stop_events;
   int       pack;            /* --pack: tables as PACKED_TABLE (format 2.0) */
   int       packed_fns;      /* FUNCTIONS chunks packed so far */
} G;

static pl_tpack packer;       /* the file's table model, with --pack 1 */

static void die(const char *msg)
{
   fprintf(stderr, "make_trace: %s\n", msg);
   exit(2);
}

static uint64_t rnd(void)
{
   G.rng ^= G.rng >> 12;
   G.rng ^= G.rng << 25;
   G.rng ^= G.rng >> 27;
   return G.rng * 0x2545F4914F6CDD1Dull;
}

static uint64_t rnd_below(uint64_t n) { return n ? rnd() % n : 0; }

static void *xrealloc(void *p, size_t n)
{
   p = realloc(p, n);
   if (!p)
      die("out of memory");
   return p;
}

static void write_bytes(const void *p, size_t n)
{
   if (n && fwrite(p, 1, n, G.f) != n)
      die("write failed");
   G.off += n;
}

/* One chunk; returns its offset.  flip: damage a payload byte after the
   CRC is computed. */
static uint64_t put_chunk_ex(unsigned type, uint32_t thread, const void *p,
                             uint32_t len, int flip)
{
   uint8_t h[PL_CHUNK_HEADER_SIZE];
   uint64_t at = G.off;
   pl_chunk_header(h, type, thread, p, len);
   if (G.extras) {
      h[1] = (uint8_t)rnd();       /* flags and reserved: readers ignore */
      h[2] = (uint8_t)rnd();
      h[3] = (uint8_t)rnd();
   }
   write_bytes(h, sizeof h);
   if (flip && len > 0) {
      uint8_t *q = xrealloc(NULL, len);
      memcpy(q, p, len);
      q[len - 1 - rnd_below(len)] ^= (uint8_t)(1u << rnd_below(8));
      write_bytes(q, len);
      free(q);
   } else {
      write_bytes(p, len);
   }
   return at;
}

static uint64_t put_chunk(unsigned type, uint32_t thread, const void *p,
                          uint32_t len)
{
   return put_chunk_ex(type, thread, p, len, 0);
}

static void expect(const char *mode, const char *fmt, ...)
   __attribute__((format(printf, 2, 3)));

/* A table chunk (OBJECTS, FUNCTIONS, ALIASES): as it is, or packed. */
static uint64_t put_table(unsigned type, const void *p, uint32_t len)
{
   uint8_t *q;
   size_t n;
   uint64_t at;

   if (!G.pack)
      return put_chunk(type, 0, p, len);
   if (len > PL_TPACK_MAX_RAW)
      die("table chunk too large to pack");
   q = xrealloc(NULL, PL_PACKED_PREFIX_SIZE + PL_TPACK_MAX_OUT(len));
   n = pl_tpack_encode(&packer, type, p, len, q + PL_PACKED_PREFIX_SIZE);
   if (G.variant == V_BAD_PACKED && type == PL_CHUNK_FUNCTIONS
       && !G.damage_done && ++G.packed_fns == 2) {
      n--;
      expect("prefix", "^offset %" PRIu64 ": PACKED_TABLE chunk: the coded "
             "bytes end before the table does$", G.off);
      G.damage_done = 1;
   }
   q[0] = (uint8_t)type;
   /* reserved: readers ignore */
   q[1] = q[2] = q[3] = G.extras ? (uint8_t)rnd() : 0;
   pl_put32(q + 4, len);
   at = put_chunk(PL_CHUNK_PACKED_TABLE, 0, q,
                  (uint32_t)(PL_PACKED_PREFIX_SIZE + n));
   free(q);
   return at;
}

/* An unknown chunk type with junk, which readers must skip. */
static void put_unknown_chunk(void)
{
   uint8_t junk[40];
   size_t i, n = rnd_below(sizeof junk);
   for (i = 0; i < n; i++)
      junk[i] = (uint8_t)rnd();
   /* types 9 (MARK) and 10 (TRACING) exist since format 1.2, 11 (ALIASES)
      since 1.4, 12 (PACKED_TABLE) since 2.0, 14 (COSTS) and 15 (TIMES)
      since 2.5; 13 (TABLE_REF) only in archive members */
   unsigned type = 13 + (unsigned)rnd_below(241);
   if (type >= 14)
      type += 2;
   put_chunk(type, (uint32_t)rnd_below(3), junk, (uint32_t)n);
}

static void expect(const char *mode, const char *fmt, ...)
{
   va_list ap;
   snprintf(G.expect_mode, sizeof G.expect_mode, "%s", mode);
   va_start(ap, fmt);
   vsnprintf(G.expect_re, sizeof G.expect_re, fmt, ap);
   va_end(ap);
}

/* ---- Names -------------------------------------------------------------- */

static const char *const objects[] = {
   NULL,
   "/usr/bin/app",
   "/lib/x86_64-linux-gnu/libc.so.6",
   "/opt/my lib/libsp ace.so",
   /* defined later, in a second OBJECTS chunk */
   "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
   "/tmp/odd\tpath\\x.so",
};
#define NOBJS 5

static uint32_t fn_object(uint32_t id)    /* 0: unknown */
{
   if (id == G.twin && id > 1)
      id--;
   return id % 6;
}

/* The name of function id: as recorded in the trace (shown = 0), or as
   parlot-decode prints it by default (shown = 1: mangled C++ names
   demangled, by this hand-written table of the Itanium ABI forms used). */
static void fn_name_as(uint32_t id, char *buf, size_t n, int shown)
{
   char ident[32];
   int il;
   if (id == G.twin && id > 1)
      id--;
   if (id == 1)
      snprintf(buf, n, "main");
   else if (id == 2)
      snprintf(buf, n, "i");   /* a demangler would make a type of it */
   else if (id == 3)
      snprintf(buf, n, "tab\there");
   else if (id == 4)
      snprintf(buf, n, "ctl\x01\x7f\\back");
   else if (id % 11 == 0 || id % 11 == 5) {
      il = snprintf(ident, sizeof ident, "m_%" PRIu32, id);
      if (id % 11 == 0 && shown)         /* a member function */
         snprintf(buf, n, "ns::%s(int)", ident);
      else if (id % 11 == 0)
         snprintf(buf, n, "_ZN2ns%d%sEi", il, ident);
      else if (shown)                    /* a variadic function */
         snprintf(buf, n, "%s(char const*, ...)", ident);
      else
         snprintf(buf, n, "_Z%d%sPKcz", il, ident);
   }
   else if (id % 17 == 0)                /* a compiler-made clone */
      snprintf(buf, n, "%s", shown ? "std::vector<int, std::allocator<int> >"
               "::push_back(int const&) [clone .cold]"
               : "_ZNSt6vectorIiSaIiEE9push_backERKi.cold");
   else if (id % 19 == 0)                /* a symbol version */
      snprintf(buf, n, "%s", shown ? "operator delete(void*)@@GLIBCXX_3.4"
               : "_ZdlPv@@GLIBCXX_3.4");
   else if (id % 23 == 0)                /* not a valid mangling: as is */
      snprintf(buf, n, "_Zbogus_%" PRIu32, id);
   else if (id % 7 == 0)
      snprintf(buf, n, "ns::Klass<std::vector<int> >::method_%" PRIu32
               "(int, char const*)", id);
   else if (id % 13 == 0)
      snprintf(buf, n, "%" PRIu32 "_%s", id,
               "a_rather_long_function_name_to_exercise_buffers_"
               "0123456789012345678901234567890123456789");
   else
      snprintf(buf, n, "fn_%" PRIu32, id);
}

static void fn_name(uint32_t id, char *buf, size_t n)
{
   fn_name_as(id, buf, n, 0);
}

/* ---- Definitions ---------------------------------------------------------- */

static void put_kv(uint8_t **p, size_t *len, size_t *cap, const char *k,
                   const char *v)
{
   size_t kl = strlen(k) + 1, vl = strlen(v) + 1;
   if (*len + kl + vl > *cap) {
      *cap = (*len + kl + vl) * 2;
      *p = xrealloc(*p, *cap);
   }
   memcpy(*p + *len, k, kl);
   memcpy(*p + *len + kl, v, vl);
   *len += kl + vl;
}

static void put_objects(uint32_t first, uint32_t last)
{
   uint8_t buf[512];
   size_t n = 0;
   uint32_t id;
   for (id = first; id <= last; id++) {
      size_t l = strlen(objects[id]) + 1;
      pl_put32(buf + n, id);
      memcpy(buf + n + 4, objects[id], l);
      n += 4 + l;
   }
   put_table(PL_CHUNK_OBJECTS, buf, (uint32_t)n);
}

/* With extras, every third function of first..last gets one or two other
   names; bad-alias names the next function, not defined yet, instead. */
static void put_aliases(uint32_t first, uint32_t last)
{
   uint8_t buf[1024];
   size_t n = 0;
   uint32_t id;

   if (G.variant == V_BAD_ALIAS && !G.damage_done) {
      pl_put32(buf, last + 1);
      memcpy(buf + 4, "early", 6);
      /* a packed entry's damage is reported at its chunk */
      expect("prefix", "^offset %" PRIu64 ": ALIASES: function %" PRIu32
             " is not defined$",
             G.off + (G.pack ? 0 : PL_CHUNK_HEADER_SIZE), last + 1);
      put_table(PL_CHUNK_ALIASES, buf, 10);
      G.damage_done = 1;
      return;
   }
   if (!G.extras)
      return;
   for (id = first; id <= last; id++) {
      char name[200];
      int k, m = (int)rnd_below(2) + 1;
      if (id % 3)
         continue;
      fn_name(id, name, sizeof name);
      for (k = 0; k < m; k++) {
         size_t l = (size_t)snprintf((char *)buf + n + 4, sizeof buf - n - 4,
                                     "__alias%d_%.40s", k, name) + 1;
         pl_put32(buf + n, id);
         n += 4 + l;
         if (sizeof buf - n < 4 + 60) {
            put_table(PL_CHUNK_ALIASES, buf, (uint32_t)n);
            n = 0;
         }
      }
   }
   if (n)
      put_table(PL_CHUNK_ALIASES, buf, (uint32_t)n);
}

/* Define functions up to `id`, at most 4096 per chunk. */
static void define_upto(uint32_t id)
{
   static uint8_t *buf;
   static size_t cap;
   while (G.defined < id) {
      size_t n = 0;
      uint32_t k;
      for (k = 0; k < 4096 && G.defined < id; k++) {
         char name[200];
         uint32_t f = G.defined + 1;
         size_t l;
         if (fn_object(f) >= 4 && !G.objs2_defined) {
            if (n)     /* objects must come before the functions using them */
               break;
            put_objects(4, NOBJS);
            G.objs2_defined = 1;
         }
         fn_name(f, name, sizeof name);
         l = strlen(name) + 1;
         if (n + 16 + l > cap) {
            cap = (n + 16 + l) * 2 + 4096;
            buf = xrealloc(buf, cap);
         }
         pl_put32(buf + n, f);
         pl_put32(buf + n + 4, fn_object(f));
         pl_put64(buf + n + 8, 0x400000u + 16u * f);
         memcpy(buf + n + 16, name, l);
         n += 16 + l;
         G.defined = f;
      }
      put_table(PL_CHUNK_FUNCTIONS, buf, (uint32_t)n);
      put_aliases(G.defined - k + 1, G.defined);
   }
}

/* ---- Threads -------------------------------------------------------------- */

static void log_event(gthread *t, uint32_t fn, uint32_t depth, int ret)
{
   if (!G.listing)
      return;
   if (t->nlog == t->logcap) {
      t->logcap = t->logcap ? t->logcap * 2 : 1024;
      t->log = xrealloc(t->log, t->logcap * sizeof *t->log);
   }
   t->log[t->nlog].fn = fn;
   t->log[t->nlog].depth = depth;
   t->log[t->nlog].ret = (uint32_t)ret;
   t->nlog++;
}

/* One STREAM chunk of thread t: n stream bytes at p ending at raw position
   raw_end, with the one-shot damage of some variants. */
static void put_stream(gthread *t, const uint8_t *data, size_t n,
                       uint64_t raw_end, int full_groups)
{
   uint8_t *p = xrealloc(NULL, PL_STREAM_PREFIX_SIZE + n);
   uint64_t raw_prev = t->raw_written, written;
   int armed = !G.damage_done && G.events_total > G.kill_at;

   if (armed && (G.variant == V_RAW_LONG || G.variant == V_RAW_SHORT)) {
      int lng = G.variant == V_RAW_LONG;
      if (t->codec == PL_CODEC_LZZE && full_groups
          && raw_end - raw_prev >= 16 && raw_end - raw_prev + 8 <= 8 * n) {
         /* 8 raw bytes (a group) more / fewer than the bytes hold; the
            thread's later raw_ends and THREAD_END are shifted alike, so
            that only the decoder notices */
         G.damage_done = 1;
         t->raw_shift = lng ? 8 : (uint64_t)-8;
         if (lng)
            expect("prefix", "^offset %" PRIu64 ": thread %" PRIu32 ": "
                   "corrupt stream: chunk data ends before its raw_end",
                   G.off, t->number);
         else
            expect("prefix", "^offset [0-9]+: thread %" PRIu32 ": corrupt "
                   "stream: data after the end", t->number);
      } else if (t->codec == PL_CODEC_RAW && G.all_raw) {
         /* RAW: the index sees it, raw_end must grow by the data length */
         G.damage_done = 1;
         t->raw_shift = lng ? 2 : (uint64_t)-2;
         if (!lng && raw_end - raw_prev == 2)
            expect("prefix", "^offset %" PRIu64 ": thread %" PRIu32 ": STREAM"
                   " chunk raw_end %" PRIu64 " does not follow", G.off,
                   t->number, raw_prev);
         else
            expect("prefix", "^offset %" PRIu64 ": thread %" PRIu32 ": STREAM"
                   " chunk of %zu bytes cannot hold %" PRIu64 " raw bytes$",
                   G.off, t->number, n, raw_end + t->raw_shift - raw_prev);
      }
   }
   written = raw_end + t->raw_shift;
   if (armed && G.variant == V_RAW_STUCK) {
      G.damage_done = 1;
      written = raw_prev;
      expect("prefix", "^offset %" PRIu64 ": thread %" PRIu32 ": STREAM chunk "
             "raw_end %" PRIu64 " does not follow the previous raw_end %"
             PRIu64 "$", G.off, t->number, raw_prev, raw_prev);
   }
   if (armed && G.variant == V_EMPTY_CHUNK) {
      uint8_t e[PL_STREAM_PREFIX_SIZE];
      G.damage_done = 1;
      pl_put64(e, t->stream_off);
      pl_put64(e + 8, raw_prev);
      expect("prefix", "^offset %" PRIu64 ": thread %" PRIu32 ": STREAM chunk "
             "without stream bytes$", G.off, t->number);
      put_chunk(PL_CHUNK_STREAM, t->number, e, sizeof e);
   }

   pl_put64(p, t->stream_off);
   pl_put64(p + 8, written);
   memcpy(p + PL_STREAM_PREFIX_SIZE, data, n);
   if (t->skip_next_stream) {
      /* "missing": the chunk is lost; the thread's next chunk is where
         a reader notices */
      t->skip_next_stream = 0;
      expect("prefix", "^offset [0-9]+: (thread %" PRIu32 ": STREAM chunk "
             "at stream offset %" PRIu64 ", expected %" PRIu64 " |THREAD_END"
             " of thread %" PRIu32 " records)", t->number,
             t->stream_off + n, t->stream_off, t->number);
   } else if (G.variant == V_CRC && armed) {
      uint64_t at = G.off;
      G.damage_done = 1;
      put_chunk_ex(PL_CHUNK_STREAM, t->number, p,
                   (uint32_t)(PL_STREAM_PREFIX_SIZE + n), 1);
      expect("prefix", "^offset %" PRIu64 ": STREAM chunk: CRC mismatch", at);
   } else {
      put_chunk(PL_CHUNK_STREAM, t->number, p,
                (uint32_t)(PL_STREAM_PREFIX_SIZE + n));
   }
   free(p);
   t->stream_off += n;
   t->raw_written = raw_end;
   if (G.extras && rnd_below(50) == 0)
      put_unknown_chunk();
}

/* Write ready stream bytes: all of them, or only while a chunk's worth is
   there.  A chunk ends at the end of a ZE group and says where in the raw
   stream that is: 8 raw bytes per group, except that the last ready group
   may be short after pl_enc_sync, when pl_enc_ready_raw() tells.  (So a
   sync must be followed by writing everything out, before the next event:
   a short group must end its chunk.)  RAW has no groups: any even split.
   LZRC: everything up to the last sync, one chunk (a sync is always
   followed by a flush of everything). */
static void flush_stream(gthread *t, int all)
{
   for (;;) {
      size_t ready = pl_enc_ready(&t->enc), n = 0;
      uint64_t raw_end, ready_raw = pl_enc_ready_raw(&t->enc);
      const uint8_t *o = t->enc.out;
      int full = 1;

      if (ready == 0 || (!all && ready < t->chunk_max))
         return;
      if (t->codec == PL_CODEC_LZRC || pl_codec_is_ccm(t->codec)) {
         n = ready;
         raw_end = ready_raw;
      } else if (t->codec == PL_CODEC_RAW) {
         n = t->chunk_max & ~(size_t)1;
         if (n < 2)
            n = 2;
         if (n > ready)
            n = ready;
         raw_end = t->raw_written + n;
      } else {
         uint64_t groups = 0;
         /* whole groups, as many as fit in chunk_max (at least one) */
         while (n < ready) {
            unsigned b = o[n], k = 0;
            while (b) {
               k += b & 1u;
               b >>= 1;
            }
            if (groups > 0 && n + 1 + k > t->chunk_max)
               break;
            n += 1 + k;
            groups++;
         }
         if (n > ready)
            die("a ZE group runs past the ready bytes");
         raw_end = t->raw_written + 8 * groups;
         if (n == ready) {
            /* the last group may be short (sync) */
            if (ready_raw > raw_end || ready_raw + 8 <= raw_end)
               die("ready_raw does not match the ready groups");
            full = ready_raw == raw_end;
            raw_end = ready_raw;
         }
      }
      if (n == ready && raw_end != ready_raw)
         die("raw_end of the ready bytes differs from pl_enc_ready_raw");
      put_stream(t, o, n, raw_end, full);
      pl_enc_consume(&t->enc, n);
   }
}

/* pl_enc_sync, then everything out: the stream so far decodes completely
   without its THREAD_END (the tool's --flush-interval and exec). */
static void sync_thread(gthread *t)
{
   pl_enc_sync(&t->enc);
   flush_stream(t, 1);
   if (pl_enc_ready_raw(&t->enc) != t->enc.raw_bytes)
      die("raw bytes left after a sync");
}

static void begin_thread(gthread *t, uint32_t parent)
{
   uint8_t p[PL_THREAD_BEGIN_SIZE + 8];
   uint32_t len = PL_THREAD_BEGIN_SIZE;
   memset(p, 0, sizeof p);
   pl_put32(p, t->number);
   pl_put32(p + 4, parent);
   pl_put32(p + 8, t->number * 2 - 1);      /* a Valgrind ThreadId */
   pl_put32(p + 12, (uint32_t)t->codec);
   pl_put32(p + 16, (uint32_t)t->inherited);
   if (G.extras) {
      len += 8;                              /* fields of a later minor */
      p[PL_THREAD_BEGIN_SIZE] = 0xAB;
   }
   put_chunk(PL_CHUNK_THREAD_BEGIN, t->number, p, len);
   pl_enc_init(&t->enc, t->codec, t->buf, sizeof t->buf);
   t->begun = 1;
}

/* After each event: write a chunk's worth, and now and then sync the
   stream, which can fall anywhere: inside a long match, after an escaped
   ID, right after a ZE group was completed. */
static void after_event(gthread *t)
{
   G.events_total++;
   if (G.marks && t->enc.events >= t->noted && rnd_below(100) == 0) {
      uint8_t p[PL_TRACING_SIZE + 8];
      pl_put64(p, t->enc.events);
      if (rnd_below(4)) {
         pl_put32(p + 8, ++t->nmarks);
         memcpy(p + 12, "phase", 6);
         put_chunk(PL_CHUNK_MARK, t->number, p, 18);
      } else {
         t->stopped = !t->stopped;
         pl_put32(p + 8, t->stopped ? 0 : PL_TRACING_ON);
         pl_put32(p + 12, 0);
         put_chunk(PL_CHUNK_TRACING, t->number, p, PL_TRACING_SIZE);
      }
      t->noted = t->enc.events + 1;
   }
   if (t->sync_every && rnd_below(t->sync_every) == 0)
      sync_thread(t);
   else
      flush_stream(t, 0);
}

static void emit_enter(gthread *t, uint32_t fn)
{
   define_upto(fn);
   pl_enc_enter(&t->enc, fn);
   if (t->sp == t->scap) {
      t->scap = t->scap ? t->scap * 2 : 256;
      t->stack = xrealloc(t->stack, t->scap * sizeof *t->stack);
   }
   t->stack[t->sp++] = fn;
   if (t->sp > t->max_depth)
      t->max_depth = t->sp;
   log_event(t, fn, (uint32_t)t->sp, 0);
   after_event(t);
}

static void emit_exit(gthread *t)
{
   uint32_t fn = t->stack[--t->sp];
   pl_enc_exit(&t->enc);
   log_event(t, fn, (uint32_t)t->sp + 1, 1);
   after_event(t);
}

/* A bad event for the bad-* variants: encoded, but not in the model; the
   exact listing stops right before it. */
static void stop_listing_here(gthread *t)
{
   G.stop_thread = t->number;
   G.stop_events = t->nlog;
   G.damage_done = 1;
}

static uint32_t pick_fn(void)
{
   uint64_t r = rnd_below(100);
   if (r < 60)
      return 1 + (uint32_t)rnd_below(G.nfns_max < 12 ? G.nfns_max : 12);
   if (r < 95)
      return 1 + (uint32_t)rnd_below(G.nfns_max < 300 ? G.nfns_max : 300);
   return 1 + (uint32_t)rnd_below(G.nfns_max);
}

/* "huge-match": the open match of t declared 2^40 words long and written
   out as the encoder writes a match (LZRC: with raw_end counting its
   words), then the process is killed. */
static void huge_match(gthread *t)
{
   uint64_t extra = (1ull << 40) - t->enc.match_len;

   flush_stream(t, 1);
   t->enc.match_len += extra;
   if (t->codec == PL_CODEC_LZRC) {
      t->enc.words += extra;
      t->enc.raw_bytes += 2 * extra;
      expect("prefix", "^offset %" PRIu64 ": thread %" PRIu32 ": STREAM "
             "chunk of [0-9]+ bytes cannot hold [0-9]+ raw bytes \\(LZRC: "
             "at most [0-9]+\\)$", G.off, t->number);
   } else {
      expect("prefix", "^offset [0-9]+: thread %" PRIu32 ": corrupt stream: "
             "match longer than 65535 words", t->number);
   }
   sync_thread(t);
   G.damage_done = 1;
   G.killed = 1;
}

/* Run up to n events of thread t. */
static void run_thread(gthread *t, uint64_t n)
{
   while (n > 0 && t->enc.events < t->target && !G.killed) {
      uint64_t r = rnd_below(1000);

      if (G.events_total >= G.kill_at && !G.damage_done) {
         if (G.variant == V_BAD_EXIT && t->sp == 0 && t->enc.events > 0) {
            stop_listing_here(t);
            pl_enc_exit(&t->enc);
            expect("exact", "^offset [0-9]+: thread %" PRIu32 ", event %"
                   PRIu64 ": exit with an empty call stack$", t->number,
                   t->enc.events);
            continue;
         }
         if (G.variant == V_BAD_ID) {
            stop_listing_here(t);
            pl_enc_enter(&t->enc, G.nfns_max + 1 + (uint32_t)rnd_below(70000));
            expect("exact", "^offset [0-9]+: thread %" PRIu32 ", event %"
                   PRIu64 ": unknown function ID [0-9]+ \\([0-9]+ defined\\)$",
                   t->number, t->enc.events);
            continue;
         }
         if (G.variant == V_MISSING && pl_enc_ready(&t->enc) > 0) {
            G.damage_done = 1;
            t->skip_next_stream = 1;
         }
         if (G.variant == V_BAD_LEN) {
            uint8_t h[PL_CHUNK_HEADER_SIZE] = { PL_CHUNK_STREAM };
            G.damage_done = 1;
            pl_put32(h + 4, 0x7FFFFFFFu);
            pl_put32(h + 8, t->number);
            expect("prefix", "^offset %" PRIu64 ": STREAM chunk: payload "
                   "length 2147483647 exceeds the maximum", G.off);
            write_bytes(h, sizeof h);
         }
         if (G.variant == V_HUGE_MATCH && t->enc.match_len > 0
             && t->codec != PL_CODEC_RAW) {
            huge_match(t);
            return;
         }
         if (G.variant == V_KILLED || G.variant == V_ZERO_TAIL) {
            G.killed = 1;
            return;
         }
         if (G.variant == V_KILLED_SYNCED) {
            G.damage_done = 1;
            G.kill_in_end = 1;   /* at the next THREAD_END */
         }
      }

      if (t->enc.events < t->inherited) {
         if (G.variant == V_BAD_INHERIT && t->enc.events == t->inherited / 2) {
            stop_listing_here(t);
            pl_enc_exit(&t->enc);
            expect("exact", "^offset [0-9]+: thread %" PRIu32 ", event %"
                   PRIu64 ": exit among the %" PRIu64 " inherited entries$",
                   t->number, t->enc.events, t->inherited);
            continue;
         }
         emit_enter(t, pick_fn());
      } else if (t->number == 3 && !t->deep_done && r == 0 && G.deep) {
         /* deep recursion */
         uint32_t fn = pick_fn(), k;
         t->deep_done = 1;
         for (k = 0; k < G.deep; k++)
            emit_enter(t, fn);
         for (k = 0; k < G.deep; k++)
            emit_exit(t);
         n = n > 2 * (uint64_t)G.deep ? n - 2 * (uint64_t)G.deep : 1;
      } else if (r < 8 && t->sp > 0) {
         /* a loop: the same calls many times (long LZ matches) */
         uint32_t a = pick_fn(), b = pick_fn(), k;
         uint64_t reps = 1 + rnd_below(r < 2 ? 40000 : 200);
         for (k = 0; k < reps; k++) {
            emit_enter(t, a);
            emit_enter(t, b);
            emit_exit(t);
            emit_exit(t);
         }
         n = n > 4 * reps ? n - 4 * reps : 1;
      } else if (t->sp == 0 || (r < 520 && t->sp < 200)) {
         emit_enter(t, pick_fn());
      } else {
         emit_exit(t);
      }
      n--;
   }
}

static void end_thread(gthread *t)
{
   uint8_t p[PL_THREAD_END_SIZE + 8];
   uint32_t len = PL_THREAD_END_SIZE;
   uint64_t events;

   if (!(G.variant == V_OPEN_FRAMES && t->number == 1 && t->sp > 0)) {
      while (t->sp > 0)        /* the writer closes the open frames */
         emit_exit(t);
   }
   if (G.variant == V_BAD_EXIT && !G.damage_done) {
      stop_listing_here(t);
      pl_enc_exit(&t->enc);
      expect("exact", "^offset [0-9]+: thread %" PRIu32 ", event %" PRIu64
             ": exit with an empty call stack$", t->number, t->enc.events);
   }
   sync_thread(t);
   if (G.kill_in_end) {
      /* killed after the last STREAM chunk, before THREAD_END; the other
         streams were synced too (as by --flush-interval), so every event
         of the process is in the file and decodes */
      uint32_t i;
      for (i = 0; i < G.nthreads; i++)
         if (G.threads[i].begun && !G.threads[i].ended)
            sync_thread(&G.threads[i]);
      G.killed = 1;
      return;
   }
   memset(p, 0, sizeof p);
   events = t->enc.events;
   if (G.variant == V_COUNT && t->number == 2)
      events++;
   pl_put64(p, events);
   pl_put64(p + 8, t->enc.words);
   pl_put64(p + 16, t->enc.raw_bytes + t->raw_shift);
   if (G.variant == V_END_RAW && !G.damage_done && t->enc.events > 0) {
      G.damage_done = 1;
      pl_put64(p + 16, t->enc.raw_bytes + 2);
      expect("prefix", "^offset %" PRIu64 ": THREAD_END of thread %" PRIu32
             " records %" PRIu64 " raw bytes, its last STREAM chunk ends at "
             "raw byte %" PRIu64 "$", G.off, t->number, t->enc.raw_bytes + 2,
             t->enc.raw_bytes);
   }
   pl_put64(p + 24, t->stream_off);
   pl_put32(p + 32, 4000 + t->number);
   pl_put32(p + 36, t->number == 1 ? PL_END_PROCESS_EXIT : PL_END_THREAD_EXIT);
   pl_put64(p + 40, t->max_depth);
   if (G.extras)
      len += 8;
   if (G.variant == V_OPEN_FRAMES && t->number == 1 && t->sp > 0) {
      expect("exact", "^offset %" PRIu64 ": thread 1: %zu frames still open "
             "at THREAD_END$", G.off, t->sp);
      G.stop_thread = 1;
      G.stop_events = t->nlog;
   }
   if (G.variant == V_COUNT && t->number == 2) {
      expect("exact", "^offset %" PRIu64 ": thread 2: the stream holds %"
             PRIu64 " events, THREAD_END records %" PRIu64 "$", G.off,
             events - 1, events);
      G.stop_thread = 2;
      G.stop_events = t->nlog;
   }
   put_chunk(PL_CHUNK_THREAD_END, t->number, p, len);
   t->ended = 1;
}

/* The process calls exec: every stream is synced, then the EXEC chunk.
   If the exec fails, the streams simply go on. */
static void do_exec(const char *path)
{
   uint8_t *kv = NULL;
   size_t len = 0, cap = 0;
   uint32_t i;
   size_t used = strlen(G.exec_ends);

   for (i = 0; i < G.nthreads; i++)
      if (G.threads[i].begun && !G.threads[i].ended)
         sync_thread(&G.threads[i]);
   put_kv(&kv, &len, &cap, "path", path);
   put_chunk(PL_CHUNK_EXEC, 0, kv, (uint32_t)len);
   free(kv);
   if (used + 24 < sizeof G.exec_ends)
      snprintf(G.exec_ends + used, sizeof G.exec_ends - used, "%s%" PRIu64,
               used ? " " : "", G.off);
}

/* exec-mid-event: a RAW stream whose last chunk ends inside an escaped
   ID, then a final EXEC.  Returns 0 while no RAW thread is running. */
static int exec_mid_event(void)
{
   static const uint8_t escape[2] = { 0xFF, 0xFF };
   uint32_t i;
   gthread *t = NULL;

   for (i = 0; i < G.nthreads && !t; i++)
      if (G.threads[i].begun && !G.threads[i].ended
          && G.threads[i].codec == PL_CODEC_RAW)
         t = &G.threads[i];
   if (!t)
      return 0;
   for (i = 0; i < G.nthreads; i++)
      if (G.threads[i].begun && !G.threads[i].ended)
         sync_thread(&G.threads[i]);
   put_stream(t, escape, 2, t->raw_written + 2, 1);
   G.damage_done = 1;
   G.stop_thread = t->number;
   G.stop_events = t->nlog;
   expect("exact", "^offset [0-9]+: thread %" PRIu32 ": the stream ends "
          "inside an event at the final EXEC$", t->number);
   do_exec("/bin/true");
   return 1;
}

/* ---- Listing ---------------------------------------------------------------- */

/* The escaping parlot-decode applies to names. */
static void put_name(FILE *f, const char *s)
{
   for (; *s; s++) {
      unsigned char c = (unsigned char)*s;
      if (c == '\t')
         fputs("\\t", f);
      else if (c == '\n')
         fputs("\\n", f);
      else if (c == '\\')
         fputs("\\\\", f);
      else if (c < 0x20 || c == 0x7f)
         fprintf(f, "\\x%02x", c);
      else
         fputc(c, f);
   }
}

static void write_listing(const char *path, gthread *th, uint32_t n,
                          uint32_t pid)
{
   FILE *f = fopen(path, "w");
   uint32_t i;
   size_t k;
   if (!f)
      die("cannot create the listing");
   for (i = 0; i < n; i++) {
      gthread *t = &th[i];
      size_t end = t->nlog;
      if (G.stop_thread && t->number > G.stop_thread)
         break;
      if (G.stop_thread == t->number)
         end = G.stop_events;
      for (k = 0; k < end; k++) {
         const rec *e = &t->log[k];
         char name[200];
         fn_name_as(e->fn, name, sizeof name, !G.raw_names);
         fprintf(f, "%" PRIu32 "\t%" PRIu32 "\t%s\t%" PRIu32 "\t", pid,
                 t->number, e->ret ? "return" : "call", e->depth);
         put_name(f, fn_object(e->fn) ? objects[fn_object(e->fn)] : "???");
         fputc('\t', f);
         put_name(f, name);
         if (G.ids)
            fprintf(f, "\t%" PRIu32, e->fn);
         fputc('\n', f);
      }
   }
   if (fclose(f) != 0)
      die("cannot write the listing");
}

/* --table: the functions defined, with both forms of their names. */
static void write_table(const char *path)
{
   FILE *f = fopen(path, "w");
   uint32_t id;
   if (!f)
      die("cannot create the function table");
   for (id = 1; id <= G.defined; id++) {
      char name[200];
      fprintf(f, "%" PRIu32 "\t", id);
      put_name(f, fn_object(id) ? objects[fn_object(id)] : "???");
      fn_name_as(id, name, sizeof name, 0);
      fputc('\t', f);
      put_name(f, name);
      fn_name_as(id, name, sizeof name, 1);
      fputc('\t', f);
      put_name(f, name);
      fputc('\n', f);
   }
   if (fclose(f) != 0)
      die("cannot write the function table");
}

/* ---- Main ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
   uint64_t seed = 1, events = 20000, fork_depth = 0;
   uint32_t nthreads = 3, nfns = 500, pid = 4242, i;
   size_t chunk = 0;
   const char *codec = "mixed", *vname = "ok", *table = NULL;
   uint8_t hdr[PL_FILE_HEADER_SIZE], *kv = NULL;
   size_t kvlen = 0, kvcap = 0;
   gthread *th;
   char num[32];
   int a;
   uint64_t total_events = 0;
   unsigned long deep = 20000;
   FILE *ef;

   G.pack = 1;
   for (a = 1; a < argc && argv[a][0] == '-' && argv[a][1] == '-'; a += 2) {
      const char *o = argv[a] + 2, *v = a + 1 < argc ? argv[a + 1] : NULL;
      if (!v)
         die("option needs a value");
      if (!strcmp(o, "seed")) seed = strtoull(v, NULL, 0);
      else if (!strcmp(o, "threads")) nthreads = (uint32_t)strtoul(v, NULL, 0);
      else if (!strcmp(o, "events")) events = strtoull(v, NULL, 0);
      else if (!strcmp(o, "functions")) nfns = (uint32_t)strtoul(v, NULL, 0);
      else if (!strcmp(o, "codec")) codec = v;
      else if (!strcmp(o, "chunk")) chunk = strtoul(v, NULL, 0);
      else if (!strcmp(o, "fork")) fork_depth = strtoull(v, NULL, 0);
      else if (!strcmp(o, "variant")) vname = v;
      else if (!strcmp(o, "raw-names")) G.raw_names = atoi(v) != 0;
      else if (!strcmp(o, "ids")) G.ids = atoi(v) != 0;
      else if (!strcmp(o, "pid")) pid = (uint32_t)strtoul(v, NULL, 0);
      else if (!strcmp(o, "deep")) deep = strtoul(v, NULL, 0);
      else if (!strcmp(o, "table")) table = v;
      else if (!strcmp(o, "marks")) G.marks = atoi(v);
      else if (!strcmp(o, "twin")) G.twin = (uint32_t)strtoul(v, NULL, 0);
      else if (!strcmp(o, "pack")) G.pack = atoi(v) != 0;
      else die("unknown option");
   }
   if (argc - a != 3)
      die("usage: make_trace [--option value]... TRACE LISTING EXPECT");
   if (!G.pack && !strcmp(vname, "bad-packed"))
      die("variant bad-packed needs packed tables");
   for (i = 0; i < sizeof variants / sizeof variants[0]; i++)
      if (!strcmp(vname, variants[i]))
         break;
   if (i == sizeof variants / sizeof variants[0])
      die("unknown variant");
   G.variant = (enum variant)i;
   G.deep = (uint32_t)deep;
   G.extras = G.variant == V_EXTRAS;
   G.rng = seed * 0x9E3779B97F4A7C15ull + 1;
   G.nfns_max = nfns ? nfns : 1;
   G.listing = strcmp(argv[a + 1], "none") != 0;
   G.kill_at = UINT64_MAX;
   if ((G.variant >= V_KILLED && G.variant <= V_EXEC_MID_EVENT)
       || G.variant == V_EXEC)
      G.kill_at = events * nthreads / 4 + rnd_below(events * nthreads / 2 + 1);
   if (G.variant == V_EXEC || G.variant == V_EXEC_FAILED) {
      /* failed execs (execvp trying PATH entries) before the end */
      uint64_t span = (G.kill_at < UINT64_MAX ? G.kill_at
                       : events * nthreads / 2) + 1;
      G.failed_execs = 1 + (int)rnd_below(3);
      G.next_failed_exec = rnd_below(span / 2);
   }
   if (G.variant == V_BAD_INHERIT && fork_depth < 2)
      fork_depth = 8;
   expect("exact", "%s", "");

   G.f = fopen(argv[a], "wb");
   if (!G.f)
      die("cannot create the trace");

   pl_file_header(hdr, G.pack ? PL_VERSION_MAJOR : PL_VERSION_PLAIN_MAJOR,
                  G.pack ? PL_VERSION_MINOR : PL_VERSION_PLAIN_MINOR);
   pl_tpack_init(&packer);
   if (G.extras) {
      pl_put16(hdr + 10, 9);           /* a later minor version */
      pl_put32(hdr + 12, 0x80000001u); /* unknown header flags */
   }
   write_bytes(hdr, sizeof hdr);

   snprintf(num, sizeof num, "%" PRIu32, pid);
   put_kv(&kv, &kvlen, &kvcap, "pid", num);
   put_kv(&kv, &kvlen, &kvcap, "ppid", "1");
   put_kv(&kv, &kvlen, &kvcap, "exe", "/usr/bin/app");
   put_kv(&kv, &kvlen, &kvcap, "argc", "2");
   put_kv(&kv, &kvlen, &kvcap, "arg0", "app");
   put_kv(&kv, &kvlen, &kvcap, "arg1", "--tab\there");
   put_kv(&kv, &kvlen, &kvcap, "images", "all");
   put_kv(&kv, &kvlen, &kvcap, "codec", codec);
   if (fork_depth)
      put_kv(&kv, &kvlen, &kvcap, "forked_from_pid", "4241");
   if (G.extras)
      put_kv(&kv, &kvlen, &kvcap, "x-future-key", "ignored");
   put_chunk(PL_CHUNK_PROCESS, 0, kv, (uint32_t)kvlen);
   if (G.extras)
      put_unknown_chunk();
   put_objects(1, 3);

   th = calloc(nthreads ? nthreads : 1, sizeof *th);
   if (!th)
      die("out of memory");
   G.threads = th;
   G.nthreads = nthreads;
   G.all_raw = !strcmp(codec, "raw");
   for (i = 0; i < nthreads; i++) {
      gthread *t = &th[i];
      t->number = i + 1;
      if (!strcmp(codec, "raw"))
         t->codec = PL_CODEC_RAW;
      else if (!strcmp(codec, "lzze"))
         t->codec = PL_CODEC_LZZE;
      else if (!strcmp(codec, "lzrc"))
         t->codec = PL_CODEC_LZRC;
      else if (!strcmp(codec, "ccm"))
         t->codec = PL_CODEC_CCM;
      else if (!strcmp(codec, "ccm5"))
         t->codec = PL_CODEC_CCM5;
      else if (!strcmp(codec, "ccm4"))
         t->codec = PL_CODEC_CCM4;
      else if (!strcmp(codec, "ccm3"))
         t->codec = PL_CODEC_CCM3;
      else if (!strcmp(codec, "ccm2"))
         t->codec = PL_CODEC_CCM2;
      else if (!strcmp(codec, "ccm1"))
         t->codec = PL_CODEC_CCM1;
      else
         t->codec = i % 3 == 1 ? PL_CODEC_RAW : PL_CODEC_LZZE;
      t->target = events / 2 + rnd_below(events + 1);
      if (i == 3)
         t->target = 0;           /* a thread that does nothing */
      t->chunk_max = chunk ? chunk
                     : (i % 2 ? 1 + rnd_below(16) : 64 + rnd_below(16384));
      {
         static const uint32_t every[] = { 0, 3, 40, 1000 };
         t->sync_every = every[rnd_below(4)];
      }
      if (i == 0) {
         t->inherited = fork_depth;
         if (t->target < fork_depth)
            t->target = fork_depth;
      }
   }

   /* Thread 1 starts; the others start a little later, one by one; all
      run interleaved in random slices until done. */
   begin_thread(&th[0], 0);
   for (;;) {
      uint32_t live = 0, pick;
      for (i = 0; i < nthreads; i++)
         if (!th[i].ended)
            live++;
      if (live == 0 || G.killed)
         break;
      pick = (uint32_t)rnd_below(nthreads);
      while (th[pick].ended)
         pick = (pick + 1) % nthreads;
      if (!th[pick].begun) {
         if (pick > 0 && !th[pick - 1].begun)
            continue;
         begin_thread(&th[pick], 1);
      }
      run_thread(&th[pick], 1 + rnd_below(rnd_below(4) ? 50 : 3000));
      if (G.killed)
         break;
      if (rnd_below(2))
         flush_stream(&th[pick], 1);
      if (rnd_below(40) == 0)          /* --flush-interval: all streams */
         for (i = 0; i < nthreads; i++)
            if (th[i].begun && !th[i].ended)
               sync_thread(&th[i]);
      if (G.failed_execs > 0 && G.events_total >= G.next_failed_exec) {
         G.failed_execs--;
         G.next_failed_exec = G.events_total + 1
                              + rnd_below(events * nthreads / 8 + 1);
         do_exec("/usr/local/bin/app");   /* ENOENT: execvp tries the next */
      }
      if (G.events_total >= G.kill_at && G.variant == V_EXEC
          && G.failed_execs == 0) {
         do_exec("/usr/bin/app");
         G.killed = 1;
         break;
      }
      if (G.events_total >= G.kill_at && G.variant == V_EXEC_MID_EVENT
          && exec_mid_event()) {
         G.killed = 1;
         break;
      }
      if (th[pick].enc.events >= th[pick].target)
         end_thread(&th[pick]);
      if (G.killed)
         break;
   }

   if (G.killed && (G.variant == V_EXEC || G.variant == V_EXEC_MID_EVENT)) {
      /* the exec succeeded: the trace is complete */
   } else if (G.killed && G.variant == V_HUGE_MATCH) {
      /* the damage is the expected message, not the missing end */
   } else if (G.killed && G.variant == V_KILLED_SYNCED) {
      expect("exact", "^offset %" PRIu64 ": truncated: no PROCESS_END ",
             G.off);
   } else if (G.killed) {
      /* Killed: what the threads had written is all there is. */
      for (i = 0; i < nthreads; i++)
         if (th[i].begun && !th[i].ended && rnd_below(2))
            flush_stream(&th[i], 1);
      if (G.variant == V_ZERO_TAIL) {
         static const uint8_t zeros[100];
         expect("prefix", "^offset %" PRIu64 ": invalid chunk type 0$", G.off);
         write_bytes(zeros, sizeof zeros);
      } else {
         expect("prefix", "^offset %" PRIu64 ": truncated: no PROCESS_END ",
                G.off);
      }
   } else {
      kvlen = 0;
      if (G.variant == V_EXEC)
         die("exec: no place for the final exec (more events?)");
      for (i = 0; i < nthreads; i++)
         total_events += th[i].enc.events;
      put_kv(&kv, &kvlen, &kvcap, "ending", "exit");
      put_kv(&kv, &kvlen, &kvcap, "exit_status", "0");
      put_kv(&kv, &kvlen, &kvcap, "end_time_ms", "1700000000000");
      snprintf(num, sizeof num, "%" PRIu32, nthreads);
      put_kv(&kv, &kvlen, &kvcap, "threads", num);
      snprintf(num, sizeof num, "%" PRIu32, G.defined);
      put_kv(&kv, &kvlen, &kvcap, "functions", num);
      snprintf(num, sizeof num, "%" PRIu64,
               total_events + (G.variant == V_COUNT && nthreads >= 2));
      put_kv(&kv, &kvlen, &kvcap, "events", num);
      if (G.extras)
         put_kv(&kv, &kvlen, &kvcap, "x-another", "");
      put_chunk(PL_CHUNK_PROCESS_END, 0, kv, (uint32_t)kvlen);
      if (G.variant == V_AFTER_END) {
         expect("prefix", "^offset %" PRIu64 ": %s chunk after "
                "PROCESS_END$", G.off, G.pack ? "PACKED_TABLE" : "OBJECTS");
         put_objects(1, 1);
      }
   }
   if (fclose(G.f) != 0)
      die("cannot write the trace");

   if (G.listing)
      write_listing(argv[a + 1], th, nthreads, pid);
   if (table)
      write_table(table);
   ef = fopen(argv[a + 2], "w");
   if (!ef)
      die("cannot create the expect file");
   fprintf(ef, "%s\n%s\n%s\n", G.expect_mode, G.expect_re, G.exec_ends);
   if (fclose(ef) != 0)
      die("cannot write the expect file");
   if (G.variant != V_OK && G.variant != V_EXTRAS && G.variant != V_EXEC
       && G.variant != V_EXEC_FAILED && !G.expect_re[0])
      die("the variant found no place for its damage (more events?)");

   for (i = 0; i < nthreads; i++) {
      free(th[i].stack);
      free(th[i].log);
   }
   free(th);
   free(kv);
   return 0;
}
