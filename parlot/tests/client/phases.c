/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A run in phases separated by marks, for run_client_tests.sh.

     phases SETUP ITERS [fork | skip K]
     phases wait FILE


   setup() runs SETUP times (so two runs differ before the first mark),
   then ITERS iterations of solve(), each after a mark "iteration", with a
   "phase" mark before and after the loop; with "fork", a child process
   (fork) makes two more iterations, its marks counted anew; with "skip K",
   iteration K (from 1) does not call solve().  Recording is
   stopped around noise(), which never shows.  With "wait", it calls
   tick() every 2 ms until FILE exists (at most 60 s): a process to send
   monitor commands to.  Prints nothing. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "parlot.h"

#define NOINLINE __attribute__((noinline))

static volatile int sink;

NOINLINE void setup(int i) { sink += i; }
NOINLINE void noise(void) { sink ^= 1; }
NOINLINE void exchange(int i) { sink += 2 * i; }
NOINLINE void smooth(int i) { sink -= i; }

NOINLINE void solve(int i)
{
   exchange(i);
   smooth(i);
}

static int skipped;           /* iteration not solved, 0 = none */

NOINLINE void iterate(int from, int n)
{
   for (int i = from; i < from + n; i++) {
      PARLOT_MARK("iteration");
      if (i + 1 != skipped)
         solve(i);
      PARLOT_STOP_THREAD_TRACE;
      noise();
      PARLOT_START_THREAD_TRACE;
   }
}

NOINLINE void tick(void) { sink++; }

static int wait_for(const char *file)
{
   struct timespec ts = { 0, 2000000 };
   for (int i = 0; i < 30000 && access(file, F_OK) != 0; i++) {
      tick();
      nanosleep(&ts, NULL);
   }
   return access(file, F_OK) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
   if (argc == 3 && strcmp(argv[1], "wait") == 0)
      return wait_for(argv[2]);
   int setups = argc > 1 ? atoi(argv[1]) : 1;
   int iters = argc > 2 ? atoi(argv[2]) : 3;

   if (argc > 4 && strcmp(argv[3], "skip") == 0)
      skipped = atoi(argv[4]);
   for (int i = 0; i < setups; i++)
      setup(i);
   PARLOT_MARK("phase");
   iterate(0, iters);
   PARLOT_MARK("phase");
   if (argc > 3 && strcmp(argv[3], "fork") == 0) {
      pid_t pid = fork();
      if (pid == 0) {
         iterate(iters, 2);
         PARLOT_FLUSH;
         _exit(0);
      }
      waitpid(pid, NULL, 0);
   }
   return 0;
}
