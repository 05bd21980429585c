/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The encoder thread: a host thread of the tool's own that codes the
   threads' events while the client runs.

   Valgrind runs one client thread at a time, so on a machine with a
   second core that core is idle; coding events there takes the codec's
   time (most of the tool's, outside CCM's runs) off the client's path.
   The thread is not a client thread: Valgrind's scheduler never sees it,
   it blocks every signal, and it calls nothing of Valgrind's core (no
   allocation, no messages), only the codec on memory the jobs hand it and
   write(2) on the trace file.  amd64 Linux only; elsewhere, or with
   --encoder-thread=no, jobs are not used and the events are coded as
   they happen. */
#ifndef PL_WORKER_H
#define PL_WORKER_H

#include "pub_tool_basics.h"

/* Events a thread hands the encoder thread at a time: each of the
   PL_PARTS parts of its batch (pl_threads.h).  More than two parts let
   the client side run ahead while the encoder thread codes a burst of
   irregular events, and give the encoder thread work while the client
   makes few events.  bench's threads workload (4 threads), 5 runs
   alternating: 2 parts 6.46 s, 4 parts 6.06 s, 8 parts 5.75 s (median;
   --tool=none 2.21 s), the client waiting for a part 5,150, 3,270 and
   1,900 times.  A thread's parts are coded one at a time, so while one
   thread runs, its stream is coded no faster than one core codes it;
   more parts leave more of the other threads' parts for the client to
   code while it would wait (pl_worker_help).  Measured again with CCM
   codec 7, 5 runs alternating: 8 parts 4.33 s, 16 parts 4.28 s; with
   pl_worker_help, 16 parts 4.14 s, 32 parts 4.06 s, 64 parts 4.16 s
   (3 runs; --tool=none 2.13 s); the client's waits 1,241 (638 ms) with
   8 parts, 271 (155 ms) with 32 and help.  Each part costs a busy
   thread 32 KiB (with costs 64 KiB more), fresh pages touched only as
   the thread's events fill them: bench/run's memory figure (64 threads
   of the threads workload), 658 KiB a thread with 8 parts, 876 KiB
   with 16, 1,368 KiB with 32: so 16. */
#define PL_BATCH 8192
#define PL_PARTS 16

/* A job: run(owner), on the encoder thread, or on the client side when
   the client would otherwise wait for it (pl_worker_run_here).  Jobs
   that work on the same thing (a thread's events; its costs) share a
   lock word, serial, held while one of them runs, so that they run one
   at a time and in the order they were queued.
   done is 1 while the job is not queued or running (its owner may touch
   what it works on); state is 2 × seq while the seq-th submission is
   queued and no side has begun it, 2 × seq + 1 once one has. */
typedef struct pl_job {
   void (*run)(void *owner);
   void *owner;
   volatile UInt *serial;
   UInt seq;                 /* submissions so far */
   UInt entry;               /* the queue entry of the latest */
   volatile UInt state;
   volatile UInt done;
} pl_job;

/* --encoder-thread: whether to start the thread (set from the options). */
extern Bool pl_worker_wanted;

/* Start the thread if wanted and not yet started; whether it runs. */
Bool pl_worker_start(void);

/* Whether the caller runs on the encoder thread. */
Bool pl_worker_self(void);

/* A job that has never been queued; serial: its lock word (0). */
void pl_job_init(pl_job *j, void (*run)(void *owner), void *owner,
                 volatile UInt *serial);

/* Queue j (it must be done), to run after the jobs queued before it. */
void pl_worker_submit(pl_job *j);

/* Until j is done. */
void pl_worker_wait(pl_job *j);

/* On the client side, rather than wait for a job the encoder thread is
   running: run the oldest queued job that no side has begun and whose
   lock word is free (another thread's part); whether it ran one. */
Bool pl_worker_help(void);

/* Whether j is done. */
Bool pl_job_done(const pl_job *j);

/* On the client side: run j here if it is queued and the encoder thread
   has not begun it (it then skips it); whether it ran.  Jobs sharing a
   lock word must be run in the order they were queued. */
Bool pl_worker_run_here(pl_job *j);

/* Until every queued job is done (before fork: the child has no thread). */
void pl_worker_drain(void);

/* Until the encoder thread has passed every queue entry of j (one may
   still be queued after the client side ran j): before j's memory is
   freed. */
void pl_worker_forget(pl_job *j);

/* --stats=yes (after every job is done): jobs run on the encoder thread
   and on the client side; the times the client side waited for one and
   how long in all; how long the thread waited for work, of the time
   since it started. */
typedef struct {
   ULong ran_there, ran_here, waits;
   ULong wait_ms, idle_ms, running_ms;
} pl_worker_figures;
void pl_worker_stats(pl_worker_figures *f);

/* In a forked child: no thread runs, nothing is queued; the next
   pl_worker_start starts one. */
void pl_worker_forked_child(void);

/* A lock both threads take around each whole chunk they write, so that
   chunks never interleave in the file. */
void pl_out_lock(void);
void pl_out_unlock(void);

#endif
