/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The encoder thread (pl_worker.h).

   A single queue, one producer (the tool's client side, which Valgrind's
   lock serialises) and one consumer (the encoder thread).  Waiting is by
   futex on the words that change: the thread sleeps on `head` while the
   queue is empty, the client side on a job's `done` or on `tail`.  Each
   submission and each finished job costs one wake-up system call; a job
   codes thousands of events, so that is a small part of its time.

   The client side may run a queued job itself rather than wait for it
   (while the thread codes another job): whichever side
   moves the job's state from queued to begun runs it, under the job's
   lock word, and the other skips it.  A queue entry keeps the submission it
   was made for, so that an entry whose job was run by the client side
   and queued again is skipped too.  While the job the client side needs
   is running on the thread, the client side runs the oldest queued job
   whose lock word is free instead (pl_worker_help), taking the lock word
   only if it is free, so that it never waits there.

   The thread is made with a raw clone(2) into a stack of its own: it
   shares the address space, files and signal handlers, and is part of the
   process (exit_group and exec end it), but Valgrind does not know it. */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#include "pl_worker.h"

#define QUEUE      1024                /* jobs queued at most (2^k) */
#define STACK_SIZE (1024 * 1024)

Bool pl_worker_wanted = True;

static Bool          running;
static UChar        *stack;           /* the thread's */
static struct { pl_job *job; UInt seq; } queue[QUEUE];
static volatile UInt head;             /* jobs ever queued (client side) */
static volatile UInt tail;             /* jobs ever finished (thread) */
static volatile UInt lock_word;        /* 0 free, 1 held, 2 held, waited */
/* --stats=yes: jobs run by each side, and the client side's waits; the
   time-stamp counter's cycles the client side waited for a job and the
   thread waited for work, and its reading (and the clock's) at the start */
static ULong ran_there, ran_here, waits;
static ULong wait_cycles, idle_cycles, start_cycles;
static UInt  start_ms;

#if defined(VGA_amd64) && defined(VGO_linux)

/* The time-stamp counter: a clock without a system call, which the
   thread may read (it calls nothing of Valgrind's). */
static inline ULong cycles(void)
{
   UInt lo, hi;
   __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
   return (ULong)hi << 32 | lo;
}

static Long sys6(Long n, Long a, Long b, Long c, Long d, Long e, Long f)
{
   register Long r10 __asm__("r10") = d;
   register Long r8 __asm__("r8") = e;
   register Long r9 __asm__("r9") = f;
   Long ret;
   __asm__ volatile("syscall"
                    : "=a"(ret)
                    : "0"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8),
                      "r"(r9)
                    : "rcx", "r11", "memory");
   return ret;
}

static void futex_wait(volatile UInt *word, UInt value)
{
   sys6(__NR_futex, (Long)word, VKI_FUTEX_WAIT | VKI_FUTEX_PRIVATE_FLAG,
        value, 0, 0, 0);
}

static void futex_wake(volatile UInt *word)
{
   sys6(__NR_futex, (Long)word, VKI_FUTEX_WAKE | VKI_FUTEX_PRIVATE_FLAG,
        0x7fffffff, 0, 0, 0);
}

static Bool run_job(pl_job *j, UInt seq, Bool wait);

static __attribute__((noreturn)) void thread_main(void)
{
   ULong all = ~0ull;                  /* the kernel's sigset: 64 bits */
   sys6(__NR_rt_sigprocmask, VKI_SIG_SETMASK, (Long)&all, 0, sizeof all,
        0, 0);
   for (;;) {
      UInt t = tail, h;
      if (__atomic_load_n(&head, __ATOMIC_ACQUIRE) == t) {
         ULong since = cycles();
         while ((h = __atomic_load_n(&head, __ATOMIC_ACQUIRE)) == t)
            futex_wait(&head, h);
         idle_cycles += cycles() - since;
      }
      run_job(queue[t % QUEUE].job, queue[t % QUEUE].seq, True);
      __atomic_store_n(&tail, t + 1, __ATOMIC_SEQ_CST);
      futex_wake(&tail);
   }
}

/* clone(2) onto stack_top; the child calls thread_main, which never
   returns.  The parent gets the child's id or -errno. */
static Long clone_thread(void *stack_top)
{
   const Long flags = VKI_CLONE_VM | VKI_CLONE_FS | VKI_CLONE_FILES
                      | VKI_CLONE_SIGHAND | VKI_CLONE_THREAD
                      | VKI_CLONE_SYSVSEM;
   register Long r10 __asm__("r10") = 0;          /* no child tid */
   register Long r8 __asm__("r8") = 0;            /* no TLS */
   register void (*fn)(void) __asm__("r12") = thread_main;
   Long ret;
   __asm__ volatile("syscall\n\t"
                    "testq %%rax, %%rax\n\t"
                    "jnz 1f\n\t"
                    "xorl %%ebp, %%ebp\n\t"      /* the child: new stack */
                    "call *%%r12\n\t"
                    "hlt\n"
                    "1:\n"
                    : "=a"(ret)
                    : "0"((Long)__NR_clone), "D"(flags), "S"(stack_top),
                      "d"(0L), "r"(r10), "r"(r8), "r"(fn)
                    : "rcx", "r11", "memory");
   return ret;
}

/* The CPUs the process may run on (at most 1024 counted): a process bound
   to one core (mpirun --bind-to core, taskset) has no idle core for the
   thread, which would only take turns with the client. */
static UInt cpus_allowed(void)
{
   ULong mask[16];
   Long n = sys6(__NR_sched_getaffinity, 0, sizeof mask, (Long)mask, 0, 0, 0);
   UInt count = 0;
   for (Long i = 0; i < n / 8; i++)
      count += (UInt)__builtin_popcountll(mask[i]);
   return n > 0 ? count : 2;
}

Bool pl_worker_start(void)
{
   static Bool failed;
   if (running || !pl_worker_wanted || failed)
      return running;
   if (cpus_allowed() < 2) {
      failed = True;                   /* code events as they happen */
      return False;
   }
   if (!stack)
      stack = VG_(am_shadow_alloc)(STACK_SIZE);
   start_cycles = cycles();
   start_ms = VG_(read_millisecond_timer)();
   if (stack && clone_thread(stack + STACK_SIZE - 64) > 0)
      running = True;
   else
      failed = True;                   /* code events as they happen */
   return running;
}

#else  /* no encoder thread on this platform */

static void futex_wait(volatile UInt *word, UInt value) { }
static void futex_wake(volatile UInt *word) { }
static inline ULong cycles(void) { return 0; }

Bool pl_worker_start(void)
{
   return False;
}

#endif

Bool pl_worker_self(void)
{
   UChar *sp = __builtin_frame_address(0);
   return running && sp >= stack && sp < stack + STACK_SIZE;
}

void pl_job_init(pl_job *j, void (*run)(void *owner), void *owner,
                 volatile UInt *serial)
{
   j->run = run;
   j->owner = owner;
   j->serial = serial;
   j->seq = 0;
   j->state = 1;
   j->done = 1;
}

void pl_worker_submit(pl_job *j)
{
   UInt h = head, t;
   tl_assert(running && j->done);
   while (h - (t = __atomic_load_n(&tail, __ATOMIC_ACQUIRE)) >= QUEUE)
      futex_wait(&tail, t);
   j->seq++;
   j->done = 0;
   __atomic_store_n(&j->state, 2 * j->seq, __ATOMIC_SEQ_CST);
   j->entry = h;
   queue[h % QUEUE].job = j;
   queue[h % QUEUE].seq = j->seq;
   __atomic_store_n(&head, h + 1, __ATOMIC_SEQ_CST);
   futex_wake(&head);
}

Bool pl_job_done(const pl_job *j)
{
   return __atomic_load_n(&j->done, __ATOMIC_ACQUIRE) != 0;
}

Bool pl_worker_run_here(pl_job *j)
{
   return running && run_job(j, j->seq, True);
}

void pl_worker_wait(pl_job *j)
{
   if (pl_job_done(j))
      return;
   ULong since = cycles();
   waits++;
   while (!pl_job_done(j))
      futex_wait(&j->done, 0);
   wait_cycles += cycles() - since;
}

void pl_worker_forget(pl_job *j)
{
   UInt t;
   if (!running || j->seq == 0)
      return;
   while ((Int)((t = __atomic_load_n(&tail, __ATOMIC_ACQUIRE)) - j->entry)
          <= 0)
      futex_wait(&tail, t);
}

void pl_worker_drain(void)
{
   UInt t;
   if (!running)
      return;
   while ((t = __atomic_load_n(&tail, __ATOMIC_ACQUIRE)) != head)
      futex_wait(&tail, t);
}

void pl_worker_stats(pl_worker_figures *f)
{
   /* the time-stamp counter's cycles per ms, by its rate since the start */
   UInt ms = VG_(read_millisecond_timer)() - start_ms;
   ULong per_ms = ms ? (cycles() - start_cycles) / ms : 0;
   f->ran_there = ran_there;
   f->ran_here = ran_here;
   f->waits = waits;
   f->wait_ms = per_ms ? wait_cycles / per_ms : 0;
   f->idle_ms = per_ms ? idle_cycles / per_ms : 0;
   f->running_ms = running ? ms : 0;
}

void pl_worker_forked_child(void)
{
   ran_there = ran_here = waits = 0;
   wait_cycles = idle_cycles = 0;
   running = False;
   head = tail = 0;
   lock_word = 0;
}

/* Drepper's mutex ("Futexes are tricky", mutex 2) on word: 0 free, 1
   held, 2 held and waited for. */
static void mutex_lock(volatile UInt *word)
{
   UInt c = 0;
   if (__atomic_compare_exchange_n(word, &c, 1, False,
                                   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      return;
   if (c != 2)
      c = __atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE);
   while (c != 0) {
      futex_wait(word, 2);
      c = __atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE);
   }
}

static void mutex_unlock(volatile UInt *word)
{
   if (__atomic_exchange_n(word, 0, __ATOMIC_RELEASE) == 2)
      futex_wake(word);
}

/* Run the seq-th submission of j unless it was begun already (or j was
   queued again since).  wait: for j's lock word while the other side
   holds it; else give up at once. */
static Bool run_job(pl_job *j, UInt seq, Bool wait)
{
   UInt queued = 2 * seq, free_word = 0;
   Bool mine;
   if (__atomic_load_n(&j->state, __ATOMIC_ACQUIRE) != queued)
      return False;
   if (wait)
      mutex_lock(j->serial);
   else if (!__atomic_compare_exchange_n(j->serial, &free_word, 1, False,
                                         __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      return False;
   mine = __atomic_compare_exchange_n(&j->state, &queued, queued + 1, False,
                                      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
   if (mine) {
      if (pl_worker_self())
         ran_there++;
      else
         ran_here++;
      j->run(j->owner);
      __atomic_store_n(&j->done, 1, __ATOMIC_SEQ_CST);
      futex_wake(&j->done);
   }
   mutex_unlock(j->serial);
   return mine;
}

Bool pl_worker_help(void)
{
   UInt t, h = head;
   if (!running)
      return False;
   /* the entries from tail to head stay as they are: only this side
      queues; the first not begun of a lock word is its oldest */
   for (t = __atomic_load_n(&tail, __ATOMIC_ACQUIRE); t != h; t++)
      if (run_job(queue[t % QUEUE].job, queue[t % QUEUE].seq, False))
         return True;
   return False;
}

void pl_out_lock(void)
{
   if (running)
      mutex_lock(&lock_word);
}

void pl_out_unlock(void)
{
   if (running)
      mutex_unlock(&lock_word);
}
