/* SPDX-License-Identifier: MIT */
/* Reader for ParLoT trace files (docs/trace-format.md).

   pl_trace_open() reads the file once: it checks every chunk (header,
   CRC, payload layout), loads the process information and the object and
   function tables, and remembers where each thread's STREAM chunks are.
   Stream data is not kept: pl_events_*() decodes one thread at a time,
   chunk by chunk, into fixed-size batches, so memory depends on the tables
   and the call depth, never on the length of the trace.

   Damage (truncation, a bad CRC, an inconsistent chunk) does not make
   pl_trace_open() fail once the file header is valid: the file is read as
   if it ended at the first bad chunk, everything before it stays
   decodable, and pl_trace_damage() says what is wrong and where.

   A pl_trace is read-only after opening; several pl_events iterators may
   run on it at once, from different threads. */
#ifndef PL_TRACE_H
#define PL_TRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An error in a trace file: a byte offset in the file and a one-line
   message without the file name. */
typedef struct {
   uint64_t offset;
   char     msg[240];
} pl_error;

/* Fill *e with an offset and a printf-formatted message. */
void pl_error_set(pl_error *e, uint64_t off, const char *fmt, ...)
   __attribute__((format(printf, 3, 4)));

/* A name as recorded (object path or function name): NUL-terminated bytes,
   len excluding the NUL. */
typedef struct {
   const char *str;
   size_t      len;
} pl_name;

typedef struct {
   pl_name  name;
   uint32_t obj;       /* object ID; 0 = unknown object */
   uint64_t addr;      /* address of the function's first instruction */
} pl_function;

/* One key/value pair of a PROCESS or PROCESS_END chunk. */
typedef struct {
   const char *key;
   const char *value;
} pl_kv;

typedef struct {
   uint32_t number;          /* thread number, 1-based */
   uint32_t parent;          /* parent thread number, 0 if none */
   uint32_t vg_tid;          /* Valgrind ThreadId (reused by later threads) */
   uint32_t codec;           /* enum pl_codec_kind */
   uint32_t inherited_depth; /* leading entries re-creating a forked stack */
   int      ended;           /* a THREAD_END chunk was read; if not, the
                                fields below are 0 */
   uint32_t end_reason;      /* 1: the thread exited; 2: running when
                                the process exited; 3 (format 2.3):
                                running when a fatal signal killed the
                                process, its frames left open */
   uint32_t lwp;             /* OS thread id, 0 if unknown */
   uint64_t events;          /* entries + exits */
   uint64_t words;           /* 16-bit words fed to LZ */
   uint64_t raw_bytes;       /* LZ output bytes (ZE input) */
   uint64_t encoded_bytes;   /* stream bytes in STREAM chunks */
   uint64_t max_depth;       /* deepest call depth reached */
   uint32_t end_signal;      /* end reason 3 (format 2.4): the fatal
                                signal's number; 0 if not recorded */
   uint32_t handler_depth;   /* end reason 3 (format 1.13, 2.12): 1 + the
                                stream's depth when the signal handler
                                still running was entered (the frames
                                above it are the handler's); 0 if none
                                ran or not recorded.  Since 0.14. */
} pl_thread_info;

typedef struct pl_trace pl_trace;

/* Open and index a trace.  On failure (cannot read it, not a trace, an
   unsupported major version, out of memory) returns NULL and fills *err. */
pl_trace *pl_trace_open(const char *path, pl_error *err);
void      pl_trace_close(pl_trace *t);

/* Open a trace stored at [offset, offset + size) of the file at path (a
   member of an archive, pl_archive.h); size PL_TRACE_WHOLE_FILE (offset
   0) is the whole file, as pl_trace_open.  Offsets in errors and damage
   reports are relative to offset; pl_trace_path() returns name (e.g.
   "ARCHIVE:MEMBER"), or path if name is NULL. */
#define PL_TRACE_WHOLE_FILE UINT64_MAX
pl_trace *pl_trace_open_member(const char *path, uint64_t offset,
                               uint64_t size, const char *name,
                               pl_error *err);

const char *pl_trace_path(const pl_trace *t);
/* The trace's format version (file header): 1.0 to 2.x. */
unsigned    pl_trace_version_major(const pl_trace *t);
unsigned    pl_trace_version_minor(const pl_trace *t);

/* NULL for a complete, consistent trace; otherwise the first problem
   found.  The trace is usable up to that offset. */
const pl_error *pl_trace_damage(const pl_trace *t);

/* How the trace ends.  A complete trace ends with PROCESS_END (the process
   exited) or with an EXEC chunk (the process image was replaced: threads
   without THREAD_END end there, frames possibly still open).  Anything
   else is a truncated or damaged trace (pl_trace_damage() says which). */
enum pl_trace_end {
   PL_TRACE_TRUNCATED = 0,
   PL_TRACE_EXITED    = 1,
   PL_TRACE_EXECED    = 2
};
int pl_trace_end(const pl_trace *t);

/* The "path" of the last EXEC chunk read (NULL if there was none, or if it
   had no path), and in *nexec (if not NULL) the number of EXEC chunks: all
   but a final one are exec calls that failed. */
const char *pl_trace_exec_path(const pl_trace *t, uint64_t *nexec);

/* The PROCESS chunk's pairs, in file order, and the value of one key (NULL
   if absent; the first occurrence wins).  pid is always present. */
const pl_kv *pl_trace_process(const pl_trace *t, size_t *n);
const char  *pl_trace_process_get(const pl_trace *t, const char *key);
/* The same for PROCESS_END; n is 0 / NULL when the trace has none. */
const pl_kv *pl_trace_process_end(const pl_trace *t, size_t *n);
const char  *pl_trace_process_end_get(const pl_trace *t, const char *key);

/* IDs are dense: functions 1..pl_trace_nfunctions(), objects
   1..pl_trace_nobjects().  pl_trace_object(t, 0) is the unknown object,
   named "???". */
uint32_t           pl_trace_nfunctions(const pl_trace *t);
const pl_function *pl_trace_function(const pl_trace *t, uint32_t id);
uint32_t           pl_trace_nobjects(const pl_trace *t);
/* The other names of function id (format 1.4's ALIASES chunks: symbols of
   the same address, docs/trace-format.md 4.11), k = 0, 1, ... in file
   order; NULL past the last, and for traces without aliases.  Filters
   match them; reports show pl_function's name.  (Since libparlot 0.3.) */
const pl_name     *pl_trace_function_alias(const pl_trace *t, uint32_t id,
                                           size_t k);
const pl_name     *pl_trace_object(const pl_trace *t, uint32_t id);

/* Threads in increasing thread-number order. */
size_t                pl_trace_nthreads(const pl_trace *t);
const pl_thread_info *pl_trace_thread(const pl_trace *t, size_t index);

/* ---- Marks and recording changes (format 1.2, libparlot 0.2) ---------- */

/* A point of interest the program named (PARLOT_MARK): after the first
   `position` events of the thread's stream, the occurrence-th mark with
   this label in the thread (from 1). */
typedef struct {
   uint64_t    position;
   uint32_t    occurrence;
   uint32_t    seq;          /* order among the thread's marks and
                                recording changes, from 0 */
   const char *label;        /* valid while the trace is open */
} pl_mark;

/* The thread's recording started (on) or stopped at `position`; when it
   started, the next `recreated` events are entries recording frames that
   were already open (outermost first): they are not calls made there. */
typedef struct {
   uint64_t position;
   int      on;
   uint32_t recreated;
   uint32_t seq;             /* as pl_mark's */
} pl_tracing;

/* "arg0 arg1 ..." from the PROCESS keys argc and argN ("" if none): a
   malloc'ed string, NULL if out of memory.  (Since libparlot 0.2.) */
char *pl_trace_command(const pl_trace *t);

/* Bytes of the trace (the file, or the archive member), and how many of
   them the object and function tables take (OBJECTS and FUNCTIONS chunks,
   headers included).  (Since libparlot 0.2.) */
uint64_t pl_trace_size(const pl_trace *t);
uint64_t pl_trace_table_bytes(const pl_trace *t);

/* The chunks of the trace, of every type, and their framing: the bytes of
   their headers and of the STREAM chunks' prefixes (stream offset and
   raw end), what cutting the data into chunks costs.  Table bytes count
   their chunks' headers too.  (Since libparlot 0.10.) */
uint64_t pl_trace_chunks(const pl_trace *t);
uint64_t pl_trace_framing_bytes(const pl_trace *t);

/* NULL if the trace records every call of every thread from the start;
   else what it leaves out, as a line for report headers (e.g.
   "only=MPI_* max-depth=3; recording started or stopped 4 times"). */
const char *pl_trace_recording(const pl_trace *t);

/* Thread `index`'s marks and recording changes, in position order; NULL
   and *n = 0 if none. */
const pl_mark    *pl_trace_marks(const pl_trace *t, size_t index, size_t *n);
const pl_tracing *pl_trace_tracing(const pl_trace *t, size_t index,
                                   size_t *n);

/* Bytes of stream data the thread has in the file (what pl_events_
   position() counts up to). */
uint64_t pl_trace_stream_bytes(const pl_trace *t, size_t index);
/* The raw bytes its STREAM chunks decode to (the raw_end of the last);
   for every codec but LZZE twice the words, so also known for a thread
   without THREAD_END (an exec, a kill).  (Since libparlot 0.8.) */
uint64_t pl_trace_raw_bytes(const pl_trace *t, size_t index);
/* The thread's STREAM chunks (a flush each: buffer full, --flush-interval,
   a wait, exec, the end).  (Since libparlot 0.10.) */
uint64_t pl_trace_stream_chunks(const pl_trace *t, size_t index);

/* Events of the thread with a recorded cost (format 2.5, a trace made
   with --collect-insns): its first ones; all of them unless the trace was
   cut short; 0 if the thread has no costs.  (Since libparlot 0.9.) */
uint64_t pl_trace_cost_events(const pl_trace *t, size_t index);

/* A wall-clock stamp of a thread's stream (format 2.5, a trace made with
   --collect-time): after its first `position` events, the clock
   (CLOCK_REALTIME) said `ns` nanoseconds since the Unix epoch. */
typedef struct {
   uint64_t position;
   int64_t  ns;
} pl_time_stamp;

/* The thread's stamps, by position (never decreasing): at its start and
   end, every 65,536 events, around the system calls that may have blocked
   and at thread switches; NULL (*n = 0) if it has none.  Valid while the
   trace is open.  (Since libparlot 0.9.) */
const pl_time_stamp *pl_trace_times(const pl_trace *t, size_t index,
                                    size_t *n);

/* ---- Events of one thread ------------------------------------------- */

enum pl_event_kind { PL_EV_CALL = 0, PL_EV_RETURN = 1 };

/* depth is that of the frame: 1 for the outermost; a return carries the
   depth and function of the call it ends. */
typedef struct {
   uint32_t fn;
   uint32_t depth;
   uint32_t kind;     /* enum pl_event_kind */
} pl_event;

typedef struct pl_events pl_events;

/* Start decoding thread number `index` (as for pl_trace_thread). */
pl_events *pl_events_open(const pl_trace *t, size_t index, pl_error *err);
void       pl_events_close(pl_events *it);

/* Next batch of events: returns how many are at *ev (valid until the next
   call), 0 at the end of the thread, or -1 with *err filled.  Every event
   before an error is returned first.  The stream is checked as it goes:
   an exit on an empty stack, an unknown function ID, a STREAM chunk whose
   bytes do not decode to exactly its raw_end, and a stream that disagrees
   with its THREAD_END record are errors.  A thread without a THREAD_END
   record ends exactly where its last STREAM chunk ends, open frames and
   all: after a successful exec (the trace is complete; the stream must
   then end on an event boundary) or in a truncated trace (a partial event
   at the end is dropped; pl_trace_damage() reports the truncation). */
long pl_events_next(pl_events *it, const pl_event **ev, pl_error *err);

/* The costs of the events of the last batch, in the same order: the
   guest instructions the thread executed since its previous event (so an
   event's cost belongs to the frame that was on top before it).  NULL if
   the thread has no costs; events past pl_trace_cost_events() cost 0.
   (Since libparlot 0.9.) */
const uint64_t *pl_events_costs(const pl_events *it);
/* Do not decode the thread's costs: pl_events_costs() then returns NULL.
   Call it before the first pl_events_next(); a reader that never looks at
   costs goes about twice as fast on a trace made with --collect-insns.
   (Since libparlot 0.11.) */
void pl_events_skip_costs(pl_events *it);

/* Consume, without returning them, the events from the next one on that
   stay inside the frames open above raw depth floor (returns of those
   frames, calls of functions stop does not mark), at most max of them:
   a reader that shows nothing inside a frame goes past it without the
   events being made.  stop: pl_trace_nfunctions() + 1 bytes, nonzero for
   the functions whose call must be returned.  The count consumed, *cost
   their costs' sum (0 without costs), *called whether one was a call.
   pl_events_next() goes on with the first event not consumed, and
   returns the error if the stream has one there.  (Since libparlot
   0.16.) */
uint64_t pl_events_skip(pl_events *it, uint32_t floor, const uint8_t *stop,
                        uint64_t max, uint64_t *cost, int *called);

/* Stream data bytes decoded so far, for progress reports. */
uint64_t pl_events_position(const pl_events *it);

/* The call stack (function IDs, outermost first) after the last batch. */
const uint32_t *pl_events_stack(const pl_events *it, size_t *depth);

#ifdef __cplusplus
}
#endif

#endif
