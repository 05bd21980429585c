/* SPDX-License-Identifier: MIT */
/* ParLoT trace file container: file header and chunk layout.  Specified in
   docs/trace-format.md; the stream inside STREAM chunks in docs/codec.md.

   Shared, freestanding code (see pl_codec.h): used by the Valgrind tool to
   write traces and by the decoder to read them. */
#ifndef PL_FORMAT_H
#define PL_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* File header: 16 bytes.
     0  8  magic  "\x89PARLOT\n"
     8  2  format major version (readers reject other majors)
    10  2  format minor version (readers accept any minor)
    12  4  header flags (0; readers ignore unknown bits) */
#define PL_MAGIC          "\x89PARLOT\n"
#define PL_MAGIC_LEN      8
#define PL_VERSION_MAJOR  2     /* what the tool writes, and the newest read */
#define PL_VERSION_MINOR  12
/* What the tool writes with --pack-tables=no: the newest version without
   PACKED_TABLE chunks, which 1.x readers read. */
#define PL_VERSION_PLAIN_MAJOR 1
#define PL_VERSION_PLAIN_MINOR 13
#define PL_FILE_HEADER_SIZE 16

/* Chunk header: 16 bytes, little-endian, followed by payload_len bytes.
     0  1  type  (enum pl_chunk_type)
     1  1  flags (0)
     2  2  reserved (0)
     4  4  payload_len (<= PL_MAX_PAYLOAD)
     8  4  thread number (1-based, per process; 0 for process-level chunks)
    12  4  CRC-32 (IEEE, as zlib's crc32) of the payload */
#define PL_CHUNK_HEADER_SIZE 16
#define PL_MAX_PAYLOAD (16u << 20)

enum pl_chunk_type {
   PL_CHUNK_PROCESS      = 1, /* key\0value\0 pairs describing the process */
   PL_CHUNK_OBJECTS      = 2, /* { u32 obj_id; name\0 } ... */
   PL_CHUNK_FUNCTIONS    = 3, /* { u32 fn_id; u32 obj_id; u64 addr; name\0 } ... */
   PL_CHUNK_THREAD_BEGIN = 4, /* struct below */
   PL_CHUNK_STREAM       = 5, /* u64 stream offset, then encoded bytes */
   PL_CHUNK_THREAD_END   = 6, /* struct below */
   PL_CHUNK_PROCESS_END  = 7, /* key\0value\0 pairs: exit status, totals */
   PL_CHUNK_EXEC         = 8, /* key\0value\0 pairs; see below */
   PL_CHUNK_MARK         = 9, /* 1.2: u64 position; u32 occurrence; label\0 */
   PL_CHUNK_TRACING      = 10, /* 1.2: struct below */
   PL_CHUNK_ALIASES      = 11, /* 1.4: { u32 fn_id; name\0 } ...: a defined
                                  function's other names */
   PL_CHUNK_PACKED_TABLE = 12, /* 2.0: an OBJECTS, FUNCTIONS or ALIASES
                                  payload, coded (pl_table_pack.h) */
   /* 13 is an archive member's TABLE_REF (decoder/lib/pl_tables.h) */
   PL_CHUNK_COSTS        = 14, /* 2.5: the costs of a run of a thread's
                                  events (pl_cost_codec.h) */
   PL_CHUNK_TIMES        = 15  /* 2.5: wall-clock stamps of a thread's
                                  stream, below */
};

/* TIMES (2.5): "after the first P events of the stream, the clock said
   T", stamps in increasing P.
     0  4  count of stamps (>= 1)
     4  4  clock: PL_TIMES_REALTIME (ns since the Unix epoch)
     8     per stamp, ULEB128 numbers: the first P and T as they are; each
           next one's P minus the previous P, and T minus the previous T
           zigzag-coded ((d << 1) ^ (d >> 63), so that a clock set back
           still fits) */
#define PL_TIMES_PREFIX_SIZE 8
#define PL_TIMES_REALTIME    1u

/* PACKED_TABLE (2.0):
     0  1  the type of the table chunk it stands for (2, 3 or 11)
     1  3  reserved (0)
     4  4  raw_len: bytes of that chunk's payload (<= PL_TPACK_MAX_RAW)
     8     coded bytes (docs/table-pack.md)
   It is read exactly as that chunk, at its place in the file. */
#define PL_PACKED_PREFIX_SIZE 8

/* MARK (1.2): a point of interest of the thread (PARLOT_MARK): after the
   first `position` events of its stream, the `occurrence`-th mark of this
   label in the stream (from 1).  At least 13 bytes. */
#define PL_MARK_MIN_SIZE 13

/* TRACING (1.2): the thread's recording started or stopped.
     0  8  position: events of the thread's stream before this point
     8  4  flags: PL_TRACING_ON if it started, 0 if it stopped
    12  4  re-created entries: the next N events (all entries) record
           frames that were already open, outermost first (0 when stopping)
   Marks and TRACING chunks of a thread come in increasing position. */
#define PL_TRACING_SIZE 16
#define PL_TRACING_ON   1u

/* EXEC: the process is calling exec (payload: "path" = the program).  Every
   stream was synced just before, so all events so far are in the file.  If
   the exec succeeds this is the last chunk, and streams without THREAD_END
   simply end here (frames may still be open: the process image was
   replaced).  If it fails, tracing goes on in the same streams and more
   chunks follow. */

/* THREAD_BEGIN payload (24 bytes):
     0  4  thread number
     4  4  parent thread number (0: none / initial thread)
     8  4  Valgrind ThreadId (slots are reused; the thread number is not)
    12  4  codec (enum pl_codec_kind)
    16  4  inherited depth: the first N entries of the stream re-create the
           call stack a forked child inherited (0 otherwise)
    20  4  flags (0) */
#define PL_THREAD_BEGIN_SIZE 24

/* THREAD_END payload (48 bytes):
     0  8  events (entries + exits)
     8  8  words fed to LZ
    16  8  raw bytes (LZ output; the decoder's ZE limit)
    24  8  encoded bytes (sum of STREAM payload data)
    32  4  OS thread id (LWP), 0 if never known
    36  4  end reason (enum pl_thread_end_reason)
    40  8  max call depth
    48  4  2.4: the fatal signal's number for end reason PL_END_SIGNAL, else
           0 (so that a trace cut short while ending still says it)
    52  4  1.13, 2.12: for end reason PL_END_SIGNAL, 1 + the stream's depth
           when the innermost signal handler still running was entered
           (the frames above it are the handler's: a runtime's that
           prints a backtrace and raises the signal again); 0 if none
           ran */
#define PL_THREAD_END_SIZE 48          /* the least a reader accepts */
#define PL_THREAD_END_SIGNAL 48        /* offset of the 2.4 field */
#define PL_THREAD_END_HANDLER 52       /* offset of the 2.12 field */
#define PL_THREAD_END_WRITTEN 56       /* what the tool writes */

enum pl_thread_end_reason {
   PL_END_THREAD_EXIT  = 1, /* the thread exited */
   PL_END_PROCESS_EXIT = 2, /* still running when the process ended */
   PL_END_SIGNAL       = 3  /* 2.3: running when a fatal signal killed the
                               process; the frames open then stay open
                               (no exits are made up for them) */
};

/* STREAM payload (16-byte prefix, then the encoded bytes):
     0  8  offset of these bytes within the thread's encoded stream (lets a
           reader detect a missing chunk)
     8  8  raw_end: the raw (ZE input) byte position of the stream where
           these bytes end.  The writer always ends a chunk at the end of a
           ZE group, which may be short (pl_enc_sync): the reader decodes up
           to raw_end, then starts a new group with the next chunk.  So every
           chunk decodes without knowing what follows it. */
#define PL_STREAM_PREFIX_SIZE 16

/* Little-endian access. */
static inline void pl_put16(uint8_t *p, uint16_t v)
{ p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void pl_put32(uint8_t *p, uint32_t v)
{ pl_put16(p, (uint16_t)v); pl_put16(p + 2, (uint16_t)(v >> 16)); }
static inline void pl_put64(uint8_t *p, uint64_t v)
{ pl_put32(p, (uint32_t)v); pl_put32(p + 4, (uint32_t)(v >> 32)); }
static inline uint16_t pl_get16(const uint8_t *p)
{ return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t pl_get32(const uint8_t *p)
{ return pl_get16(p) | ((uint32_t)pl_get16(p + 2) << 16); }
static inline uint64_t pl_get64(const uint8_t *p)
{ return pl_get32(p) | ((uint64_t)pl_get32(p + 4) << 32); }

/* CRC-32 (IEEE 802.3 polynomial, reflected; crc32(0, buf, n) as zlib). */
uint32_t pl_crc32(uint32_t crc, const void *buf, size_t n);

/* Fill the 16-byte file header of format version major.minor. */
void pl_file_header(uint8_t out[PL_FILE_HEADER_SIZE], unsigned major,
                    unsigned minor);

/* Fill a chunk header for the given payload (computes its CRC). */
void pl_chunk_header(uint8_t out[PL_CHUNK_HEADER_SIZE], unsigned type,
                     uint32_t thread, const void *payload, uint32_t len);

#endif
