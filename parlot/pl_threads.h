/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-thread tracing state: shadow call stack, encoder, output buffer. */
#ifndef PL_THREADS_H
#define PL_THREADS_H

#include "pub_tool_basics.h"
#include "pl_codec.h"
#include "pl_costs.h"
#include "pl_times.h"
#include "pl_worker.h"

typedef struct {
   Addr sp;       /* stack pointer at the entry: the frame's identity */
   UInt fn;
   UInt recorded; /* its entry is in the stream (its exit will be) */
} pl_frame;

/* A signal handler running on top of frames it must not end: correction
   never pops below 'floor' while the handler runs.  The handler's stack is
   [lo, hi): the alternate signal stack, or everything below the SP it
   interrupted.  An event outside it means the handler was left by a
   longjmp, so the barrier goes. */
typedef struct {
   UWord floor;
   UWord rec_floor;   /* the stream's depth when the handler was entered */
   Addr  lo, hi;
} pl_barrier;

/* What an event does, besides the shadow stack's push or pop: join the
   batch, join it with its cost, or more (pl_threads.c, encode). */
enum { PL_PATH_BATCH, PL_PATH_BATCH_COST, PL_PATH_OTHER };

typedef struct {
   UInt      number;        /* 1, 2, ... per process, never reused */
   UInt      parent;        /* number of the creating thread, 0 if none */
   ThreadId  tid;           /* Valgrind's slot (reused after exit) */
   Int       lwp;           /* OS thread id, 0 until known */
   pl_frame *stack;         /* stack[-1] is a sentinel above every SP */
   UWord     depth, cap;
   /* cap while an event may take the fast path (every call recorded, no
      signal handler running), else 0: one comparison for all three */
   UWord     fast_cap;
   UWord     max_depth;
   UWord     floor;         /* frames below it belong to interrupted code */
   UWord     jump_sp;       /* pl_jump_sp while another thread runs */
   pl_barrier *barriers;    /* one per signal handler running */
   UInt      n_barriers, cap_barriers;
   UChar    *buf;           /* chunk header + stream prefix + encoder output */
   ULong     events_at_sync;
   Bool      in_wait;       /* in a system call that may wait long */
   /* selective tracing (pl_control.c): every frame is on the stack, only
      the recorded ones are in the stream */
   Bool      active;        /* recording now */
   Int       user_state;    /* thread requests: 1 on, -1 off, 0 as the
                               process */
   UWord     rec_depth;     /* recorded frames open, once pl_selective
                               (before, every frame is: depth) */
   UWord     toggle_inside; /* open frames of --toggle-trace functions */
   struct pl_mark_count *marks;   /* occurrences per label */
   UInt      n_marks, cap_marks;
   pl_costs *costs;         /* --collect-insns, else NULL */
   pl_times *times;         /* --collect-time, else NULL */
   ULong     events;        /* batching: the events of the parts
                               handed over (pl_thread_events()) */
   /* The events (and their costs, pl_costs.h) wait in a batch of
      PL_PARTS parts, coded a part at a time into enc.  With the encoder
      thread (pl_worker.h) the client side fills one part while jobs code
      the others, in order; enc is the client side's only when its jobs
      are done.  Without it a full part is coded at once, and without
      costs either the events are coded as they happen. */
   Bool      offload;       /* the encoder thread codes the events */
   Bool      batching;      /* offload, or costs are collected */
   UChar     path;          /* what an event does: PL_PATH_* */
   UInt      batch_part;    /* the part being filled */
   UInt      batch_n;       /* events in it */
   UInt     *batch_fill;    /* batch[batch_part], so that an event's
                               store needs no address arithmetic (two
                               instructions of the per-event path) */
   UInt      code_part;     /* the part whose events jobs code next */
   UInt      cost_part;     /* the part whose costs cost_jobs code next */
   UInt      part_n[PL_PARTS];  /* events in each part handed over */
   pl_job    jobs[PL_PARTS];    /* jobs[p] codes part p's events */
   pl_job    cost_jobs[PL_PARTS];   /* and cost_jobs[p] their costs */
   volatile UInt coding, cost_coding;   /* their lock words (pl_worker.h) */
   pl_encoder enc;
   UInt      batch[PL_PARTS][PL_BATCH];
} pl_thread;

/* The thread whose client code is running (Valgrind runs one at a time). */
extern pl_thread *pl_cur;

/* Events in t's stream so far, coded or not. */
static inline ULong pl_thread_events(const pl_thread *t)
{
   return t->batching ? t->events + t->batch_n : t->enc.events;
}

/* Recording rules (pl_control.c sets them): False while every call of
   every thread is recorded, which keeps the per-event path short; once
   True, it stays (pl_threads_become_selective). */
extern Bool  pl_selective;
/* pl_selective becomes True: the threads start counting their recorded
   frames, and leave the fast path. */
void pl_threads_become_selective(void);

/* Recorded frames open in t. */
static inline UWord pl_thread_recorded_depth(const pl_thread *t)
{
   return pl_selective ? t->rec_depth : t->depth;
}
extern UWord pl_max_depth;     /* --max-depth: recorded levels, 0 = all */
/* False while no thread can record (everything stopped, no
   --toggle-trace): code is then translated without instrumentation, as
   under --tool=none, and the shadow stacks are not kept up to date;
   pl_thread_reconcile() brings one back from an unwind of the real stack
   (pl_control.c switches). */
extern Bool  pl_instrumenting;

/* Make t's shadow stack the thread's real call stack, unwound with the
   debug info: frames it still has are kept (same function and entry SP;
   a chain of tail calls, which shares one machine frame, as its last),
   the others end (their returns are recorded if their calls were) and the
   frames found above the kept ones are pushed, unrecorded.  Up to 65,536
   frames are unwound. */
void pl_thread_reconcile(pl_thread *t);

/* Make t record or not, per pl_thread_should_record().  Starting records
   the open frames that pass the filters and are not recorded yet, as
   entries re-creating the stack, and writes a TRACING chunk if it
   re-created any or if `explicit` (a request or monitor command). */
void pl_thread_update_recording(pl_thread *t, Bool explicit);

/* A MARK chunk for t at this point of its stream. */
void pl_thread_mark(pl_thread *t, const HChar *label);

void pl_threads_init(Int codec_kind);

/* A forked child starts its own numbering and totals. */
void pl_threads_new_process(void);

/* Start a stream for a thread (writes THREAD_BEGIN). */
pl_thread *pl_thread_new(ThreadId tid, UInt parent_number);

/* End the thread's stream: exits for the frames still open (none when a
   fatal signal ends it, reason PL_END_SIGNAL: they stay open), THREAD_END.
   Frees nothing. */
void pl_thread_end(pl_thread *t, UInt reason);

/* Continue the thread in a fresh stream with a new number whose first
   entries re-create the call stack it has (a forked child). */
void pl_thread_restart(pl_thread *t);

void pl_thread_free(pl_thread *t);

/* Write everything the thread recorded so far (ends a pending match and
   the open group: costs a little compression, so only for the periodic
   flush and exec).  Nothing to do for a thread idle since the last sync. */
void pl_thread_sync(pl_thread *t);

/* A signal handler starts running on [lo, hi) / has returned. */
void pl_thread_signal_enter(pl_thread *t, Addr lo, Addr hi);
void pl_thread_signal_return(pl_thread *t);

/* The SP of the running thread's last jump that may have reached a
   function entry (instrumented code stores it; pl_on_entry consumes it);
   pl_main.c keeps one per thread across thread switches. */
extern UWord pl_jump_sp;

/* Event helpers called from instrumented code: an entry reached by a call
   or a jump (a tail call if pl_jump_sp says so); a return, or a computed
   jump to a stack pointer set from elsewhere (longjmp, an exception's
   landing pad), which ends every frame entered below sp_after. */
VG_REGPARM(2) void pl_on_entry(UWord fn, UWord sp);
VG_REGPARM(1) void pl_on_return(UWord sp_after);

/* --collect-insns or --collect-time: the per-event path does more than
   encode (pl_main.c sets it from the options). */
extern Bool pl_collecting;

/* The threads by Valgrind slot: the thread in slot tid, or NULL; the
   number of slots, and slot i's thread (NULL if free); put t (NULL: none)
   in slot tid.  A slot is cleared at thread exit, so a new thread in a
   reused slot gets a new stream. */
pl_thread *pl_thread_of(ThreadId tid);
UInt       pl_thread_slots(void);
pl_thread *pl_thread_at(UInt slot);
void       pl_thread_set(ThreadId tid, pl_thread *t);
/* A wall-clock stamp of t's stream here (--collect-time; else nothing). */
void       pl_thread_stamp(pl_thread *t);
/* pl_thread_sync() every thread. */
void       pl_sync_all_threads(void);
/* Before fork: no job runs (the child has no encoder thread).  In the
   child: the threads code their events as they happen until a stream
   starts again (pl_thread_restart). */
void       pl_threads_before_fork(void);
void       pl_threads_forked_child(void);
/* Whether a thread other than t runs client code (is not in_wait). */
Bool       pl_other_thread_running(const pl_thread *t);

/* Process totals over ended streams, for the summary. */
typedef struct {
   ULong threads, events, words, encoded_bytes;
} pl_totals;
extern pl_totals pl_total;

#endif
