/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How a process ends, with calls open in two threads: main blocks inside
   nested calls, and a second thread, once main is blocked,
     term / int  sends the process SIGTERM / SIGINT from inside nested
                 calls, then blocks there too (a hung program ended by
                 timeout(1) or Ctrl-C);
     abort       calls abort() from inside nested calls;
     kill        forks a child that sends the process SIGKILL a second
                 later, which nobody catches, then blocks too;
     kill_exit   as kill, but a third thread computes while the other two
                 begin to wait, and exits before the kill: the last thread
                 that runs leaves instead of waiting;
     kill_poll   as kill, four seconds later, but the second thread polls
                 with a 300 ms timeout forever instead of blocking (a
                 progress loop), and main blocks half a second after it
                 began (a hang while the progress loop goes on).
   The default action kills the process: every frame open then must stay
   open in the trace (the oracle logs no exit for them), and the trace
   must say which signal ended the process.  After SIGKILL the trace is
   cut short where the tool last wrote: with every thread waiting, that
   is after each thread's last event.
   No signal is sent before main is blocked for good, and the thread that
   sends one makes no instrumented call after it: the oracle logs each
   call with a system call of its own, during which Valgrind runs the
   other thread, so a signal in between would end the process after the
   tool saw a call and before the oracle logged it. */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* the system call poll(2) makes (ppoll where there is no poll) */
#ifdef SYS_poll
#define POLL_NR SYS_poll
#else
#define POLL_NR SYS_ppoll
#endif

static int never[2], ready[2];
static volatile int sink;
static int signo, polling;

/* Block for good: nobody writes to never.  No instrumented function runs
   after the caller's last entry. */
__attribute__((noinline)) void wait_here(void)
{
   char c;
   sink += (int)read(never[0], &c, 1);
}

/* Wake up every 300 ms, for good. */
__attribute__((noinline)) void poll_forever(void)
{
   for (;;)
      sink += poll(NULL, 0, 300);
}

__attribute__((noinline)) void stuck(int n)
{
   char c = 'r';
   if (n > 0) {
      stuck(n - 1);
      return;
   }
   sink += (int)write(ready[1], &c, 1);     /* main is about to block */
   wait_here();
}

/* Wait until thread tid of process pid is in the system call its
   /proc/PID/task/TID/syscall line begins with (the call's number and
   first argument, as "0 0x3 "), as the kernel shows it.  Where the kernel
   does not show it (or denies it), a pause long enough for a test. */
__attribute__((noinline)) void until_waiting(int pid, int tid,
                                             const char *want)
{
   char path[64], got[128];
   size_t len = strlen(want);

   snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", pid, tid);
   for (int tries = 0; tries < 60000; tries++) {    /* a minute at most */
      int fd = open(path, O_RDONLY);
      ssize_t n = fd < 0 ? -1 : read(fd, got, sizeof got - 1);
      if (fd >= 0)
         close(fd);
      if (n <= 0) {
         sleep(2);
         return;
      }
      got[n] = '\0';
      if (strncmp(got, want, len) == 0)
         return;
      usleep(1000);
   }
}

__attribute__((noinline)) void give_up(int n)
{
   char c, in_read[32], in_poll[32];
   int pid, me;

   if (n > 0) {
      give_up(n - 1);
      return;
   }
   pid = (int)getpid();
   me = (int)syscall(SYS_gettid);
   snprintf(in_read, sizeof in_read, "%d 0x%x ", SYS_read, (unsigned)never[0]);
   snprintf(in_poll, sizeof in_poll, "%d 0x0 ", POLL_NR);
   if (!polling)
      until_waiting(pid, pid, in_read);          /* main, in wait_here */
   if (signo == SIGABRT)
      abort();
   if (signo != SIGKILL) {
      kill(pid, signo);
      sink += (int)read(never[0], &c, 1);       /* wait_here, inlined */
      return;
   }
   if (fork() == 0) {
      /* this thread too waits for good before the time runs */
      until_waiting(pid, me, polling ? in_poll : in_read);
      sleep(polling ? 4 : 1);
      kill(pid, SIGKILL);
      _exit(0);
   }
   if (polling)
      poll_forever();
   wait_here();
}

__attribute__((noinline)) void *second_thread(void *arg)
{
   char c;
   (void)arg;
   if (!polling && read(ready[0], &c, 1) != 1)
      return NULL;
   give_up(4);
   return NULL;
}

static double seconds(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Computes for half a second (long enough for the others to begin their
   waits, well before the kill), with no call of its own, then exits. */
__attribute__((noinline)) void *last_runner(void *arg)
{
   double end = seconds() + 0.5;
   (void)arg;
   while (seconds() < end)
      for (int i = 0; i < 100000; i++)
         sink += i;
   return NULL;
}

int main(int argc, char **argv)
{
   pthread_t t, runner;
   const char *how = argc > 1 ? argv[1] : "term";

   signo = strcmp(how, "int") == 0 ? SIGINT
           : strcmp(how, "abort") == 0 ? SIGABRT
           : strncmp(how, "kill", 4) == 0 ? SIGKILL : SIGTERM;
   /* a test run in the background may inherit SIGINT ignored */
   signal(SIGINT, SIG_DFL);
   if (pipe(never) != 0 || pipe(ready) != 0)
      return 1;
   polling = strcmp(how, "kill_poll") == 0;
   if (strcmp(how, "kill_exit") == 0)
      pthread_create(&runner, NULL, last_runner, NULL);
   pthread_create(&t, NULL, second_thread, NULL);
   if (polling)
      usleep(500000);
   stuck(3);
   return 0;
}
