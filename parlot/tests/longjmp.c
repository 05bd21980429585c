/* SPDX-License-Identifier: GPL-2.0-or-later */
/* longjmp and siglongjmp: frames skipped by a longjmp never return, the
   oracle (-finstrument-functions) sees no exit for them, and ParLoT must
   emit their exits (call-stack correction by SP) at the jump to the
   landing, before the thread's next event.  Covers a jump over several frames, a jump from a nested setjmp
   context to an outer one, a jump to a frame that then calls functions at
   the same stack addresses as the dead frames, and a siglongjmp out of a
   signal handler. */
#pragma GCC diagnostic ignored "-Winfinite-recursion"
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static jmp_buf outer, inner;
static sigjmp_buf sigbuf;
static volatile int counter;

__attribute__((noinline)) void thrower(int n, jmp_buf *where)
{
   if (n > 0) {
      thrower(n - 1, where);
      counter++;
      return;
   }
   longjmp(*where, 1);
}

__attribute__((noinline)) void after_jump(int n)
{
   counter += n;
}

__attribute__((noinline)) void middle(int n)
{
   if (setjmp(inner) == 0) {
      thrower(n, &inner);        /* back to here */
   } else {
      after_jump(n);             /* same stack addresses as thrower's */
   }
   thrower(n + 2, &outer);       /* jumps over middle itself */
   counter = -1000;              /* never reached */
}

__attribute__((noinline)) void on_segv_like(int sig)
{
   (void)sig;
   after_jump(100);
   siglongjmp(sigbuf, 1);
}

__attribute__((noinline)) void raise_deep(int n)
{
   if (n > 0) {
      raise_deep(n - 1);
      return;
   }
   raise(SIGUSR1);
}

__attribute__((noinline)) void level(int n)
{
   if (setjmp(outer) == 0)
      middle(n);
   else
      after_jump(-n);
}

int main(void)
{
   struct sigaction sa;
   int i;
   for (i = 0; i < 4; i++)
      level(i + 1);
   memset(&sa, 0, sizeof sa);
   sa.sa_handler = on_segv_like;
   sigaction(SIGUSR1, &sa, NULL);
   for (i = 0; i < 3; i++) {
      if (sigsetjmp(sigbuf, 1) == 0)
         raise_deep(3 + i);
      else
         after_jump(i);
   }
   printf("%d\n", counter);
   return 0;
}
