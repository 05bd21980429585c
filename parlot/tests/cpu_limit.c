/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A real SIGKILL for the tests that need one (sigkill.c, mpi_abort_kill.c):
   nobody can catch or see it coming, not even Valgrind (a kill() of
   itself would go through Valgrind's syscall wrapper, which exits
   cleanly); the kernel sends it when the process reaches its hard CPU
   time limit, which this sets `seconds` (and up to one more) ahead. */
#include <sys/resource.h>
#include <sys/time.h>

#include "cpu_limit.h"

__attribute__((noinline)) void arm_cpu_limit(long seconds)
{
   struct rusage ru;
   struct rlimit rl;
   getrusage(RUSAGE_SELF, &ru);
   rl.rlim_cur = rl.rlim_max =
      (rlim_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1 + seconds);
   setrlimit(RLIMIT_CPU, &rl);
}
