/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-thread tracing: the shadow call stack with stack-pointer correction
   and the incremental encoder feeding the thread's stream.

   Correction (x86/amd64, stack grows down; a frame is known by the SP at
   its entry, which points at its return address):
   - entry at SP s reached by a call: every open frame whose entry SP is
     <= s cannot still be live (a live caller's frame lies above the
     callee's) — it ended without a visible return (longjmp, exception):
     emit its exit first.
   - entry at SP s reached by a jump: frames whose entry SP is < s have
     ended; a frame entered at exactly s is the function that jumped (a tail
     call: it left its return address in place), so the new frame is its
     callee, as Callgrind attributes it, and both end at the one return.  A
     jump to the entry of the function on top at that SP is a loop in it,
     not a call.
   - return leaving SP s after the ret: every frame whose entry SP is < s
     has returned, the matching one, the tail-callers below it at the same
     SP and any stale ones above it.
   So the stream always replays as a valid stack. */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_stacktrace.h"

#include "pl_control.h"
#include "pl_enc_fast.h"
#include "pl_ending.h"
#include "pl_format.h"
#include "pl_grow.h"
#include "pl_output.h"
#include "pl_functions.h"
#include "pl_threads.h"

/* Output buffer: 16-byte chunk header, 8-byte stream offset, then the
   encoder's bytes, so that a chunk leaves in one write. */
#define PL_PREFIX   (PL_CHUNK_HEADER_SIZE + PL_STREAM_PREFIX_SIZE)
#define PL_OUT_CAP  (64 * 1024)
#define THREAD_MAP_SIZE VG_PGROUNDUP(sizeof(pl_thread))

/* Occurrences of a label in one thread. */
struct pl_mark_count {
   HChar *label;
   UInt   count;
};

pl_thread *pl_cur;
pl_totals  pl_total;
UWord      pl_jump_sp;
Bool       pl_selective;
UWord      pl_max_depth;
Bool       pl_instrumenting = True;
Bool       pl_collecting;

static Int  codec_kind;
static UInt next_number = 1;

void pl_threads_init(Int kind)
{
   codec_kind = kind;
}

void pl_threads_new_process(void)
{
   next_number = 1;
   VG_(memset)(&pl_total, 0, sizeof pl_total);
}

/* Write the encoder's ready bytes as a STREAM chunk.  The functions its
   events name must be in the file before it: with the encoder thread,
   the client side writes their definitions before a job codes them. */
static void write_stream(pl_thread *t)
{
   SizeT n = pl_enc_ready(&t->enc);
   if (n == 0)
      return;
   if (!t->offload)
      pl_fn_flush_defs();
   UChar *prefix = t->buf + PL_CHUNK_HEADER_SIZE;
   pl_put64(prefix, t->enc.out_total);
   pl_put64(prefix + 8, pl_enc_ready_raw(&t->enc));
   pl_chunk_header(t->buf, PL_CHUNK_STREAM, t->number,
                   prefix, PL_STREAM_PREFIX_SIZE + n);
   pl_out_write(t->buf, PL_PREFIX + n);
   pl_enc_consume(&t->enc, n);
}

void pl_thread_stamp(pl_thread *t)
{
   if (t->times)
      pl_times_stamp(t->times, t->number, pl_thread_events(t));
}

/* Write the costs and stamps the thread has kept. */
static void flush_extras(pl_thread *t)
{
   if (t->costs)
      pl_costs_flush(t->costs);
   if (t->times)
      pl_times_flush(t->times, t->number);
}

static void settle(pl_thread *t);

void pl_thread_sync(pl_thread *t)
{
   settle(t);
   flush_extras(t);
   if (t->enc.events == t->events_at_sync)
      return;
   t->events_at_sync = t->enc.events;
   pl_enc_sync(&t->enc);
   write_stream(t);
}

/* A full buffer is written out as a chunk, which ends at a sync (LZRC
   chunks must; for LZZE it costs a few bytes per buffer). */
static inline void room_for_event(pl_thread *t)
{
   if (UNLIKELY(t->enc.out_cap - t->enc.out_len < PL_ENC_MAX_EVENT_BYTES)) {
      t->events_at_sync = t->enc.events;
      pl_enc_sync(&t->enc);
      write_stream(t);
   }
}

static __attribute__((noinline)) void encode_slow(pl_thread *t, UInt x)
{
   room_for_event(t);
   if (x)
      pl_enc_enter(&t->enc, x);
   else
      pl_enc_exit(&t->enc);
}

/* Code a part of the batch into the thread's stream (the encoder's common
   case, events of an open CCM run, in one loop). */
static void code_events(pl_thread *t, UInt part, UInt n)
{
   const UInt *x = t->batch[part];
   UInt i = 0;
   while (i < n) {
      i += (UInt)pl_enc_fast_events(&t->enc, x + i, n - i);
      if (i < n)
         encode_slow(t, x[i++]);
   }
}

/* A part's events and their costs, on the client side. */
static void code_batch(pl_thread *t, UInt part, UInt n)
{
   code_events(t, part, n);
   if (t->costs)
      pl_costs_code(t->costs, t->batch[part], part, n);
}

/* The jobs: the thread's next part's events, and its costs (another
   model, another chunk: the two sides may code them at once), each on
   the encoder thread or on the client side (wait_part).  Each kind runs
   in the order it was queued, which is the order the parts were
   filled. */
static void code_job(void *owner)
{
   pl_thread *t = owner;
   UInt p = t->code_part;
   code_events(t, p, t->part_n[p]);
   __atomic_store_n(&t->code_part, (p + 1) % PL_PARTS, __ATOMIC_RELEASE);
}

static void cost_job(void *owner)
{
   pl_thread *t = owner;
   UInt p = t->cost_part;
   pl_costs_code(t->costs, t->batch[p], p, t->part_n[p]);
   __atomic_store_n(&t->cost_part, (p + 1) % PL_PARTS, __ATOMIC_RELEASE);
}

/* Until part p is coded.  The thread's jobs up to p that the encoder
   thread has not begun (it codes other threads' parts, or the other kind
   of this thread's) run here, in order, rather than wait: on the threads
   workload the client waited about 1,900 times for a part while the
   second core was busy; with --collect-insns, cpp waited 2,500 times. */
static void wait_part(pl_thread *t, UInt p)
{
   while (!pl_job_done(&t->jobs[p]) || !pl_job_done(&t->cost_jobs[p])) {
      UInt q = __atomic_load_n(&t->code_part, __ATOMIC_ACQUIRE);
      UInt r = __atomic_load_n(&t->cost_part, __ATOMIC_ACQUIRE);
      if (pl_worker_run_here(&t->jobs[q])
          || pl_worker_run_here(&t->cost_jobs[r]) || pl_worker_help())
         continue;
      if (!pl_job_done(&t->jobs[p]))
         pl_worker_wait(&t->jobs[q]);
      else
         pl_worker_wait(&t->cost_jobs[r]);
   }
}

/* The filled part goes to the encoder thread, and the client goes on with
   the next once it is coded; without the encoder thread the part is
   coded here. */
static __attribute__((noinline)) void batch_full(pl_thread *t)
{
   UInt p = t->batch_part;
   if (t->offload) {
      pl_fn_flush_defs();
      t->part_n[p] = t->batch_n;
      pl_worker_submit(&t->jobs[p]);
      if (t->costs)
         pl_worker_submit(&t->cost_jobs[p]);
      p = (p + 1) % PL_PARTS;
      wait_part(t, p);
      t->batch_part = p;
      t->batch_fill = t->batch[p];
   } else {
      code_batch(t, p, t->batch_n);
   }
   t->events += t->batch_n;
   t->batch_n = 0;
}

/* Every event of the thread coded into enc, which is the client side's
   again: the jobs done, the part being filled coded here (the encoder
   thread's next part is still that one, filled again from its start). */
static void settle(pl_thread *t)
{
   for (UInt p = 0; p < PL_PARTS; p++)
      wait_part(t, p);
   if (t->batch_n) {
      if (t->offload)
         pl_fn_flush_defs();
      code_batch(t, t->batch_part, t->batch_n);
      t->events += t->batch_n;
      t->batch_n = 0;
   }
}

void pl_threads_before_fork(void)
{
   pl_worker_drain();
}

static pl_thread **threads;
static UInt        n_thread_slots;

void pl_threads_forked_child(void)
{
   pl_worker_forked_child();
   for (UInt i = 0; i < n_thread_slots; i++)
      if (threads[i]) {
         threads[i]->offload = False;
         threads[i]->batching = threads[i]->costs != NULL;
         threads[i]->path = PL_PATH_OTHER;
         threads[i]->batch_n = 0;     /* restarts in a new stream */
      }
}

/* --collect-insns and --collect-time: the cost of the event joining the
   batch, inline (a few stores); a stamp every PL_TIMES_EVERY events, out
   of line. */
static __attribute__((noinline)) void stamp_time(pl_thread *t, ULong events)
{
   pl_times_stamp(t->times, t->number, events);
}

/* Before the event joins the batch: with its count. */
static inline __attribute__((always_inline))
void encode_extras(pl_thread *t)
{
   if (t->costs)
      pl_costs_event(t->costs, t->batch_part, t->batch_n);
   if (UNLIKELY(t->times)) {
      ULong events = pl_thread_events(t) + 1;
      if ((events & (PL_TIMES_EVERY - 1)) == 0)
         stamp_time(t, events);
   }
}

static inline __attribute__((always_inline))
void batch_add(pl_thread *t, UInt x)
{
   UInt n = t->batch_n;
   t->batch_fill[n] = x;
   t->batch_n = ++n;
   if (UNLIKELY(n == PL_BATCH))
      batch_full(t);
}

/* Every event goes into the stream here: x, 0 an exit, else the trace ID
   entered.  It joins the batch; or, with neither the encoder thread nor
   costs, it is coded now, the codec's common case (an event of an open
   CCM run) inline, which writes no bytes, so only the other events make
   room (a batch coded here costs fib(35) 7 % more).  The events are
   counted by the batch (pl_thread_events), not one by one.  All but the
   batch, with costs or not, is out of line, so that the helpers need no
   frame. */
static __attribute__((noinline)) void encode_other(pl_thread *t, UInt x)
{
   if (UNLIKELY(pl_collecting))
      encode_extras(t);
   if (t->batching)
      batch_add(t, x);
   else if (!pl_enc_fast_event(&t->enc, x))
      encode_slow(t, x);
}

static inline __attribute__((always_inline))
void encode(pl_thread *t, UInt x)
{
   if (LIKELY(t->path == PL_PATH_BATCH)) {
      batch_add(t, x);
   } else if (t->path == PL_PATH_BATCH_COST) {
      pl_costs_event(t->costs, t->batch_part, t->batch_n);
      batch_add(t, x);
   } else {
      encode_other(t, x);
   }
}

static void update_fast_cap(pl_thread *t)
{
   t->fast_cap = !pl_selective && t->n_barriers == 0 ? t->cap : 0;
}

/* Room for one more frame.  The sentinel below the first frame, entered
   above every SP, spares the fast paths a test for an empty stack. */
static __attribute__((noinline)) void grow_stack(pl_thread *t)
{
   pl_frame *base = t->stack ? t->stack - 1 : NULL;
   SizeT n = pl_grow_cap(base ? t->cap + 1 : 0, t->depth + 2, 256,
                         sizeof *base);
   if (n == 0)
      VG_(tool_panic)("parlot: call stack too deep");
   base = VG_(realloc)("pl.thread.stack", base, n * sizeof *base);
   t->cap = n - 1;
   base[0].sp = ~(Addr)0;
   base[0].fn = 0;
   base[0].recorded = 0;
   t->stack = base + 1;
   update_fast_cap(t);
}

void pl_threads_become_selective(void)
{
   if (pl_selective)
      return;
   pl_selective = True;
   for (UInt i = 0; i < pl_thread_slots(); i++) {
      pl_thread *t = pl_thread_at(i);
      if (t) {
         t->rec_depth = t->depth;   /* every frame so far was recorded */
         update_fast_cap(t);
      }
   }
}

static inline void raise_max_depth(pl_thread *t, UWord recorded)
{
   if (UNLIKELY(recorded > t->max_depth))
      t->max_depth = recorded;
}

/* The entry of a frame into the stream, under its trace ID (the frame is
   pushed). */
static inline void record_entry(pl_thread *t, UInt trace_id)
{
   raise_max_depth(t, pl_selective ? ++t->rec_depth : t->depth);
   encode(t, trace_id);
}

/* Frame d (the new top) is fn's, entered at sp.  Through a local:
   Valgrind builds without strict aliasing, so each store through
   t->stack would make the compiler load t's fields again. */
static inline __attribute__((always_inline))
void put_frame(pl_thread *t, UWord d, UInt fn, Addr sp, UInt recorded)
{
   pl_frame *f = &t->stack[d];
   f->sp = sp;
   f->fn = fn;
   f->recorded = recorded;
   t->depth = d + 1;
}

/* Push a frame of function fn; trace_id: its ID in the trace if the call
   is recorded, 0 if not.  (When not selective every function is recorded
   and its trace ID is fn.) */
static inline void push_frame(pl_thread *t, UInt fn, Addr sp, UInt trace_id)
{
   UWord d = t->depth;
   if (UNLIKELY(d == t->cap))
      grow_stack(t);
   put_frame(t, d, fn, sp, trace_id != 0);
   if (trace_id)
      record_entry(t, trace_id);
}

/* Whether a call of fn entered now is recorded. */
static inline UInt records(const pl_thread *t, UInt fn)
{
   return t->active && (pl_fn_flags[fn] & PL_FN_RECORD)
          && (pl_max_depth == 0 || t->rec_depth < pl_max_depth);
}

static void push_selective(pl_thread *t, UInt fn, Addr sp)
{
   if (pl_fn_flags[fn] & PL_FN_TOGGLE && t->toggle_inside++ == 0)
      pl_thread_update_recording(t, False);   /* frames below first */
   push_frame(t, fn, sp, records(t, fn) ? pl_fn_trace_id[fn] : 0);
}

static inline void push(pl_thread *t, UInt fn, Addr sp)
{
   if (LIKELY(!pl_selective))
      push_frame(t, fn, sp, fn);
   else
      push_selective(t, fn, sp);
}

static __attribute__((noinline))
void pop_selective(pl_thread *t, const pl_frame *f)
{
   if (f->recorded) {
      t->rec_depth--;
      encode(t, 0);
   }
   if (pl_fn_flags[f->fn] & PL_FN_TOGGLE && --t->toggle_inside == 0)
      pl_thread_update_recording(t, False);
}

/* The top frame ends: its exit goes in the stream if its entry did (when
   not selective, every frame's did). */
static inline void pop(pl_thread *t)
{
   const pl_frame *f = &t->stack[--t->depth];
   if (UNLIKELY(pl_selective)) {
      pop_selective(t, f);
      return;
   }
   encode(t, 0);
}

static void set_floor(pl_thread *t)
{
   t->floor = t->n_barriers ? t->barriers[t->n_barriers - 1].floor : 0;
   update_fast_cap(t);
}

/* Pop the frames above the floor that SP says have ended: with entry SPs
   at or below sp_limit (inclusive for an entry, exclusive for a return). */
static inline void end_frames(pl_thread *t, Addr sp, Bool inclusive)
{
   while (t->depth > t->floor &&
          (t->stack[t->depth - 1].sp < sp ||
           (inclusive && t->stack[t->depth - 1].sp == sp)))
      pop(t);
}

/* Barriers of handlers the thread has left by longjmp. */
static void drop_left_handlers(pl_thread *t, Addr sp)
{
   while (t->n_barriers > 0) {
      pl_barrier *b = &t->barriers[t->n_barriers - 1];
      if (sp >= b->lo && sp < b->hi)
         break;
      t->n_barriers--;
      set_floor(t);
   }
}

/* The general entry: correction, loops, barriers, selective recording. */
static __attribute__((noinline))
void enter(pl_thread *t, UInt fn, Addr sp, Bool jumped)
{
   if (UNLIKELY(t->n_barriers))
      drop_left_handlers(t, sp);
   end_frames(t, sp, !jumped);
   if (jumped && t->depth > t->floor && t->stack[t->depth - 1].sp == sp
       && t->stack[t->depth - 1].fn == fn)
      return;                         /* a loop back to its own entry */
   push(t, fn, sp);
}

/* Most events take the fast paths below: every call is recorded (not
   selective), no signal handler runs, the stack has room (all three
   say fast_cap > depth), and an entry ends no frame (a return exactly
   one).  They are push_frame and pop for that case, with what it makes
   constant left out (whether the frame is recorded, the recorded depth
   being the depth): a few instructions of each event's two dozen.  The
   rest is out of line, so that the helpers save no registers.

   An entry: whether it was reached by a call or a jump (through a PLT
   stub, most often) matters only when a frame ends or the entry is a
   loop, and neither can be when the frame on top was entered above sp. */
VG_REGPARM(2) void pl_on_entry(UWord fn, UWord sp)
{
   pl_thread *t = pl_cur;
   UWord d = t->depth;
   if (LIKELY(d < t->fast_cap && t->stack[d - 1].sp > sp)) {
      pl_jump_sp = 0;
      put_frame(t, d, (UInt)fn, sp, 1);
      raise_max_depth(t, d + 1);
      encode(t, (UInt)fn);
      return;
   }
   Bool jumped = pl_jump_sp == sp;
   pl_jump_sp = 0;
   enter(t, (UInt)fn, sp, jumped);
}

static __attribute__((noinline))
void return_slow(pl_thread *t, Addr sp_after)
{
   if (UNLIKELY(t->n_barriers))
      drop_left_handlers(t, sp_after);
   end_frames(t, sp_after, False);
}

VG_REGPARM(1) void pl_on_return(UWord sp_after)
{
   pl_thread *t = pl_cur;
   UWord d = t->depth;
   if (LIKELY(t->fast_cap)) {
      if (t->stack[d - 1].sp >= sp_after)
         return;                      /* ends no frame */
      if (LIKELY(t->stack[d - 2].sp >= sp_after)) {
         t->depth = d - 1;
         encode(t, 0);
         return;
      }
   }
   return_slow(t, sp_after);
}

void pl_thread_signal_enter(pl_thread *t, Addr lo, Addr hi)
{
   if (t->n_barriers == t->cap_barriers) {
      t->cap_barriers = (UInt)pl_grow_cap(t->cap_barriers,
                                          (SizeT)t->n_barriers + 1, 4,
                                          sizeof *t->barriers);
      t->barriers = VG_(realloc)("pl.thread.barriers", t->barriers,
                                 t->cap_barriers * sizeof *t->barriers);
   }
   t->barriers[t->n_barriers].floor = t->depth;
   t->barriers[t->n_barriers].rec_floor = pl_thread_recorded_depth(t);
   t->barriers[t->n_barriers].lo = lo;
   t->barriers[t->n_barriers].hi = hi;
   t->n_barriers++;
   set_floor(t);
}

/* After sigreturn: whatever the handler left open (the sigreturn
   trampoline it returned into) ends now. */
void pl_thread_signal_return(pl_thread *t)
{
   if (t->n_barriers == 0)
      return;
   while (t->depth > t->floor)
      pop(t);
   t->n_barriers--;
   set_floor(t);
}

/* fresh: t's encoder is in never-written (zero) pages. */
static void begin_stream(pl_thread *t, UInt inherited_depth, Bool fresh)
{
   UChar p[PL_THREAD_BEGIN_SIZE];
   t->number = next_number++;
   t->events = 0;
   t->batch_n = 0;
   t->batch_part = t->code_part = t->cost_part = 0;
   t->batch_fill = t->batch[0];
   t->offload = pl_worker_start();
   t->batching = t->offload || pl_collect_insns;
   t->path = !t->batching ? PL_PATH_OTHER
             : !pl_collecting ? PL_PATH_BATCH
             : pl_collect_insns && !pl_collect_time ? PL_PATH_BATCH_COST
             : PL_PATH_OTHER;
   for (UInt k = 0; k < PL_PARTS; k++) {
      pl_job_init(&t->jobs[k], code_job, t, &t->coding);
      pl_job_init(&t->cost_jobs[k], cost_job, t, &t->cost_coding);
   }
   if (fresh)
      pl_enc_init_zeroed(&t->enc, codec_kind, t->buf + PL_PREFIX, PL_OUT_CAP);
   else
      pl_enc_init(&t->enc, codec_kind, t->buf + PL_PREFIX, PL_OUT_CAP);
   t->events_at_sync = 0;
   pl_put32(p + 0, t->number);
   pl_put32(p + 4, t->parent);
   pl_put32(p + 8, t->tid);
   pl_put32(p + 12, (UInt)codec_kind);
   pl_put32(p + 16, inherited_depth);
   pl_put32(p + 20, 0);
   pl_out_chunk(PL_CHUNK_THREAD_BEGIN, t->number, p, sizeof p);
}

pl_thread *pl_thread_new(ThreadId tid, UInt parent_number)
{
   /* A mapping of its own, not the arena: VG_(free) fills a freed block
      with junk, which would bring every page of the codec model into
      memory when the thread ends, and calloc all of it when it starts.
      Fresh anonymous pages read as zero and are in memory only once
      written, so a thread costs the model pages its codec reaches (LZZE
      never reaches the larger parts of the union; CCM's tables are left
      to these zero pages, pl_enc_init_zeroed), and munmap gives them
      back. */
   pl_thread *t = VG_(am_shadow_alloc)(THREAD_MAP_SIZE);
   if (!t)
      VG_(out_of_memory_NORETURN)("pl.thread", THREAD_MAP_SIZE);
   t->tid = tid;
   t->parent = parent_number;
   t->buf = VG_(malloc)("pl.thread.buf", PL_PREFIX + PL_OUT_CAP);
   grow_stack(t);
   begin_stream(t, 0, True);
   t->costs = pl_costs_new(t->number);
   t->times = pl_times_new();
   pl_thread_stamp(t);
   t->active = pl_thread_should_record(t);
   return t;
}

void pl_thread_end(pl_thread *t, UInt reason)
{
   UInt handlers = t->n_barriers;   /* the end record says where one ran */
   t->n_barriers = 0;
   set_floor(t);
   while (t->depth > 0 && reason != PL_END_SIGNAL)
      pop(t);
   settle(t);
   pl_enc_sync(&t->enc);
   write_stream(t);
   pl_thread_stamp(t);
   flush_extras(t);

   UChar p[PL_THREAD_END_WRITTEN];
   pl_put64(p + 0, t->enc.events);
   pl_put64(p + 8, t->enc.words);
   pl_put64(p + 16, t->enc.raw_bytes);
   pl_put64(p + 24, t->enc.out_total);
   pl_put32(p + 32, (UInt)t->lwp);
   pl_put32(p + 36, reason);
   pl_put64(p + 40, t->max_depth);
   pl_put32(p + PL_THREAD_END_SIGNAL,
            reason == PL_END_SIGNAL ? (UInt)pl_fatal_signal() : 0);
   /* where the handler still running was entered: the frames above it
      are the handler's, the crash site is below */
   pl_put32(p + PL_THREAD_END_HANDLER,
            reason == PL_END_SIGNAL && handlers
            ? (UInt)t->barriers[handlers - 1].rec_floor + 1 : 0);
   pl_out_chunk(PL_CHUNK_THREAD_END, t->number, p, sizeof p);

   pl_total.threads++;
   pl_total.events += t->enc.events;
   pl_total.words += t->enc.words;
   pl_total.encoded_bytes += t->enc.out_total;
}

/* The child's stream re-creates the recorded frames of the stack. */
void pl_thread_restart(pl_thread *t)
{
   for (UInt i = 0; i < t->n_marks; i++)     /* counted per stream */
      VG_(free)(t->marks[i].label);
   t->n_marks = 0;
   t->max_depth = pl_thread_recorded_depth(t);
   begin_stream(t, (UInt)t->max_depth, False);
   if (t->costs)
      pl_costs_restart(t->costs, t->number);
   if (t->times) {
      pl_times_restart(t->times);
      pl_thread_stamp(t);
   }
   for (UWord i = 0; i < t->depth; i++)
      if (t->stack[i].recorded) {
         encode(t, pl_fn_trace_id[t->stack[i].fn]);
      }
}

/* Record the open frames that pass the filters and are not recorded yet:
   they all lie above the topmost recorded frame (a frame left unrecorded
   below a recorded one was filtered out, or beyond --max-depth, and stays
   so).  Returns how many. */
static UInt recreate_stack(pl_thread *t)
{
   UWord i = t->depth, k;
   UInt n = 0;

   while (i > 0 && !t->stack[i - 1].recorded)
      i--;
   for (k = i; k < t->depth; k++) {
      pl_frame *f = &t->stack[k];
      if (!records(t, f->fn))
         continue;
      f->recorded = 1;
      record_entry(t, pl_fn_trace_id[f->fn]);
      n++;
   }
   return n;
}

#define MAX_UNWIND 65536

void pl_thread_reconcile(pl_thread *t)
{
   static Addr *ips, *sps;
   static UInt *ufn;
   static Addr *usp;
   UInt n, m = 0, k = 0;

   if (!ips) {
      ips = VG_(malloc)("pl.unwind.ips", MAX_UNWIND * sizeof *ips);
      sps = VG_(malloc)("pl.unwind.sps", MAX_UNWIND * sizeof *sps);
      ufn = VG_(malloc)("pl.unwind.fns", MAX_UNWIND * sizeof *ufn);
      usp = VG_(malloc)("pl.unwind.entry", MAX_UNWIND * sizeof *usp);
   }
   n = VG_(get_StackTrace)(t->tid, ips, MAX_UNWIND, sps, NULL, 0);
   /* outermost first; frame i's entry SP is its caller's SP before the
      call (sps[i + 1], the CFA) less the return address */
   for (UInt i = n; i-- > 0;) {
      UInt fn = pl_fn_containing(ips[i]);
      if (!fn)
         continue;
      ufn[m] = fn;
      usp[m] = i + 1 < n ? sps[i + 1] - sizeof(Addr) : ~(Addr)0;
      m++;
   }
   /* Shadow frames sharing an entry SP are one machine frame, the last of
      a chain of tail calls: the unwind sees only the innermost.  The
      outermost frame's entry SP is the unwinder's guess (a program's entry
      point is jumped to, not called): its function alone identifies it. */
   UWord kept = 0;
   while (kept < t->depth && k < m) {
      UWord top = kept;
      while (top + 1 < t->depth && t->stack[top + 1].sp == t->stack[kept].sp)
         top++;
      if (t->stack[top].fn != ufn[k]
          || (t->stack[top].sp != usp[k] && k != 0))
         break;
      kept = top + 1;
      k++;
   }
   t->n_barriers = 0;        /* handlers left while uninstrumented */
   set_floor(t);
   while (t->depth > kept)
      pop(t);
   for (UInt j = k; j < m; j++)
      push_frame(t, ufn[j], usp[j], 0);
}

/* TRACING payload: u64 position (events of the thread before), u32
   flags (PL_TRACING_ON), u32 entries re-creating the stack. */
static void write_tracing(pl_thread *t, Bool on, ULong position,
                          UInt recreated)
{
   UChar p[PL_TRACING_SIZE];
   pl_put64(p, position);
   pl_put32(p + 8, on ? PL_TRACING_ON : 0);
   pl_put32(p + 12, recreated);
   pl_out_chunk(PL_CHUNK_TRACING, t->number, p, sizeof p);
}

void pl_thread_update_recording(pl_thread *t, Bool explicit)
{
   Bool on = pl_thread_should_record(t);
   ULong position = pl_thread_events(t);
   UInt n = 0;

   if (on == t->active) {
      if (explicit)
         write_tracing(t, on, position, 0);
      return;
   }
   t->active = on;
   if (on)
      n = recreate_stack(t);
   if (explicit || n)
      write_tracing(t, on, position, n);
}

void pl_thread_mark(pl_thread *t, const HChar *label)
{
   struct pl_mark_count *m = NULL;
   pl_buf b = { 0 };
   UInt i;

   /* frames that ended while uninstrumented end before the mark */
   if (!pl_instrumenting)
      pl_thread_reconcile(t);
   /* labels are few (phases, iterations named alike): a linear search */
   for (i = 0; i < t->n_marks; i++)
      if (VG_(strcmp)(t->marks[i].label, label) == 0) {
         m = &t->marks[i];
         break;
      }
   if (!m) {
      if (t->n_marks == t->cap_marks) {
         t->cap_marks = (UInt)pl_grow_cap(t->cap_marks, t->n_marks + 1, 8,
                                          sizeof *t->marks);
         t->marks = VG_(realloc)("pl.thread.marks", t->marks,
                                 t->cap_marks * sizeof *t->marks);
      }
      m = &t->marks[t->n_marks++];
      m->label = VG_(strdup)("pl.thread.mark", label);
      m->count = 0;
   }
   m->count++;
   pl_buf_u64(&b, pl_thread_events(t));
   pl_buf_u32(&b, m->count);
   pl_buf_str(&b, label);
   pl_out_chunk(PL_CHUNK_MARK, t->number, b.data, b.len);
   pl_buf_free(&b);
}

void pl_thread_free(pl_thread *t)
{
   if (pl_cur == t)
      pl_cur = NULL;
   if (t->barriers)
      VG_(free)(t->barriers);
   for (UInt i = 0; i < t->n_marks; i++)
      VG_(free)(t->marks[i].label);
   if (t->marks)
      VG_(free)(t->marks);
   VG_(free)(t->stack - 1);
   VG_(free)(t->buf);
   pl_costs_free(t->costs);
   pl_times_free(t->times);
   for (UInt p = 0; p < PL_PARTS; p++) {
      pl_worker_forget(&t->jobs[p]);
      pl_worker_forget(&t->cost_jobs[p]);
   }
   SysRes r = VG_(am_munmap_valgrind)((Addr)t, THREAD_MAP_SIZE);
   tl_assert(!sr_isError(r));
}

/* ---- the threads by Valgrind slot ------------------------------------ */

/* threads: indexed by Valgrind ThreadId.  A slot is cleared at thread
   exit, so a new thread in a reused slot gets a new stream. */

pl_thread *pl_thread_of(ThreadId tid)
{
   return tid < n_thread_slots ? threads[tid] : NULL;
}

UInt pl_thread_slots(void)
{
   return n_thread_slots;
}

pl_thread *pl_thread_at(UInt slot)
{
   return threads[slot];
}

void pl_thread_set(ThreadId tid, pl_thread *t)
{
   if (tid >= n_thread_slots) {
      UInt n = (UInt)pl_grow_cap(n_thread_slots, (SizeT)tid + 1, 16,
                                 sizeof *threads);
      threads = VG_(realloc)("pl.threads", threads, n * sizeof *threads);
      VG_(memset)(threads + n_thread_slots, 0,
                  (n - n_thread_slots) * sizeof *threads);
      n_thread_slots = n;
   }
   threads[tid] = t;
}

void pl_sync_all_threads(void)
{
   for (UInt i = 0; i < n_thread_slots; i++)
      if (threads[i])
         pl_thread_sync(threads[i]);
}

Bool pl_other_thread_running(const pl_thread *t)
{
   for (UInt i = 0; i < n_thread_slots; i++)
      if (threads[i] && threads[i] != t && !threads[i]->in_wait)
         return True;
   return False;
}
