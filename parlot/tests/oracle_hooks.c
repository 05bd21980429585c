/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Ground-truth oracle for the ParLoT regression tests.

   The test programs are compiled with -finstrument-functions: GCC calls
   __cyg_profile_func_enter/exit at the entry and exit of every function of
   the instrumented sources.  These hooks (never instrumented themselves:
   no_instrument_function on every function of this file, plus
   -finstrument-functions-exclude-file-list=oracle_hooks in the Makefile)
   log every event with one raw write(2) per line, so the log is unbuffered,
   survives a crash, and lines of concurrent threads never interleave
   (O_APPEND, one write per line).

   Log file: $PARLOT_ORACLE_LOG.<pid>.<n> (prefix "oracle" if unset), where
   <n> is the smallest integer for which O_EXCL creation succeeds, so an
   exec'd image with the same pid, or a rerun, never appends to an old log.
   The log is reopened in a forked child (pthread_atfork).

   Line format (all numbers hex except pid/ppid/thread, which are decimal):
     P <pid> <ppid> <forkseq>     first line of every log; <forkseq> is 0,
                                  or in a forked child the number of the
                                  parent's F line that created it
     E <thread> <fn> <entry-sp>   function <fn> entered
     X <thread> <fn> <entry-sp>   function <fn> about to return
     F <thread> <seq> <sp>        this thread is calling fork() (the seq-th
                                  fork of this process; <sp> is the entry
                                  SP of the fork handler, below the frames
                                  that the child inherits)
   <thread> is a per-process counter (1 = first thread that ran an
   instrumented function, never reused).  <entry-sp> is the stack pointer
   at the function's first instruction (the address of its return address):
   the frame pointer of the instrumented function (-O0 code keeps one) + 8.
   It lets the checker know which frames are still live after a longjmp or
   an exception without guessing.  */

#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define NOINSTR __attribute__((no_instrument_function))
/* Everything on the per-event path is inlined into the two hooks and
   writes with a raw system call, so that logging an event adds a single
   function (the hook itself) to what ParLoT records. */
#define INLINE static inline __attribute__((always_inline, no_instrument_function))

/* __builtin_frame_address(1) is what we want: the frame of the function
   that called the hook; every function here keeps a frame pointer. */
#pragma GCC diagnostic ignored "-Wframe-address"

static int log_fd = -1;
static volatile int log_lock;          /* spin lock for the (re)open only */
static int thread_counter;
static int fork_count;
static __thread int my_thread;

INLINE char *oracle_put_dec(char *p, unsigned long v)
{
   char tmp[24];
   int n = 0;
   do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
   while (n) *p++ = tmp[--n];
   return p;
}

INLINE char *oracle_put_hex(char *p, unsigned long v)
{
   char tmp[24];
   int n = 0;
   do { tmp[n++] = "0123456789abcdef"[v & 15]; v >>= 4; } while (v);
   while (n) *p++ = tmp[--n];
   return p;
}

INLINE long oracle_sys_write(int fd, const char *buf, size_t len)
{
#if defined(__x86_64__) && defined(__linux__)
   long ret;
   __asm__ volatile ("syscall"
                     : "=a"(ret)
                     : "0"(1L /* __NR_write */), "D"((long)fd), "S"(buf),
                       "d"(len)
                     : "rcx", "r11", "memory");
   return ret;
#else
   return write(fd, buf, len);
#endif
}

INLINE void oracle_write_all(int fd, const char *buf, size_t len)
{
   while (len > 0) {
      long r = oracle_sys_write(fd, buf, len);
      if (r <= 0) return;
      buf += r; len -= (size_t)r;
   }
}

/* Open a new log file for this process and write its header line. */
NOINSTR static void oracle_open_log(void)
{
   const char *prefix = getenv("PARLOT_ORACLE_LOG");
   char path[4096], line[64], *p;
   size_t plen;
   unsigned n;
   int fd = -1;

   if (prefix == NULL || prefix[0] == '\0') prefix = "oracle";
   plen = strlen(prefix);
   if (plen > sizeof(path) - 64) plen = sizeof(path) - 64;
   for (n = 0; n < 10000 && fd < 0; n++) {
      memcpy(path, prefix, plen);
      p = path + plen;
      *p++ = '.';
      p = oracle_put_dec(p, (unsigned long)getpid());
      *p++ = '.';
      p = oracle_put_dec(p, n);
      *p = '\0';
      fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
   }
   if (fd < 0) {
      static const char msg[] = "oracle_hooks: cannot create oracle log\n";
      oracle_write_all(2, msg, sizeof msg - 1);
      _exit(99);
   }
   p = line;
   *p++ = 'P'; *p++ = ' ';
   p = oracle_put_dec(p, (unsigned long)getpid());
   *p++ = ' ';
   p = oracle_put_dec(p, (unsigned long)getppid());
   *p++ = ' ';
   p = oracle_put_dec(p, (unsigned long)fork_count);
   *p++ = '\n';
   oracle_write_all(fd, line, (size_t)(p - line));
   log_fd = fd;
}

INLINE int oracle_get_fd(void)
{
   if (__atomic_load_n(&log_fd, __ATOMIC_ACQUIRE) < 0) {
      while (__atomic_exchange_n(&log_lock, 1, __ATOMIC_ACQUIRE)) { }
      if (log_fd < 0) oracle_open_log();
      __atomic_store_n(&log_lock, 0, __ATOMIC_RELEASE);
   }
   return log_fd;
}

INLINE int oracle_get_thread(void)
{
   if (my_thread == 0)
      my_thread = __atomic_add_fetch(&thread_counter, 1, __ATOMIC_SEQ_CST);
   return my_thread;
}

INLINE void oracle_log_event(char kind, void *fn, unsigned long entry_sp)
{
   char line[80], *p = line;
   int fd = oracle_get_fd();
   *p++ = kind; *p++ = ' ';
   p = oracle_put_dec(p, (unsigned long)oracle_get_thread());
   *p++ = ' ';
   p = oracle_put_hex(p, (unsigned long)fn);
   *p++ = ' ';
   p = oracle_put_hex(p, entry_sp);
   *p++ = '\n';
   oracle_write_all(fd, line, (size_t)(p - line));
}

/* The frame of the instrumented function: its frame pointer (-O0 code
   always sets up rbp/ebp/x29) is one word below its entry SP on x86
   (push %rbp just after the return address was pushed).  */
#if defined(__x86_64__) || defined(__i386__)
#  define ENTRY_SP(fp) ((unsigned long)(fp) + sizeof(void *))
#else
#  define ENTRY_SP(fp) ((unsigned long)(fp))
#endif

NOINSTR static void oracle_before_fork(void)
{
   char line[80], *p = line;
   int fd = oracle_get_fd();
   fork_count++;
   *p++ = 'F'; *p++ = ' ';
   p = oracle_put_dec(p, (unsigned long)oracle_get_thread());
   *p++ = ' ';
   p = oracle_put_dec(p, (unsigned long)fork_count);
   *p++ = ' ';
   p = oracle_put_hex(p, ENTRY_SP(__builtin_frame_address(0)));
   *p++ = '\n';
   oracle_write_all(fd, line, (size_t)(p - line));
}

NOINSTR static void oracle_in_child(void)
{
   /* New process: new log, the forking thread becomes thread 1. */
   if (log_fd >= 0) close(log_fd);
   log_fd = -1;
   log_lock = 0;
   thread_counter = 1;
   my_thread = 1;
   oracle_open_log();
}

__attribute__((constructor)) NOINSTR static void oracle_init(void)
{
   pthread_atfork(oracle_before_fork, NULL, oracle_in_child);
   (void)oracle_get_fd();
}

NOINSTR void __cyg_profile_func_enter(void *fn, void *call_site)
{
   (void)call_site;
   oracle_log_event('E', fn, ENTRY_SP(__builtin_frame_address(1)));
}

NOINSTR void __cyg_profile_func_exit(void *fn, void *call_site)
{
   (void)call_site;
   oracle_log_event('X', fn, ENTRY_SP(__builtin_frame_address(1)));
}
