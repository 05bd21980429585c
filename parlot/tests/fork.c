/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fork: the child (and a grandchild forked from deeper in the child's
   stack) must each write their own trace, whose thread stream begins with
   calls recreating the stack inherited from the parent at the fork, and
   then continues consistently (the child returns through the inherited
   frames c, b, a and main). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void leaf(int v) { sink += v; }

__attribute__((noinline)) void in_grandchild(void) { leaf(3); }

__attribute__((noinline)) void in_child(int n)
{
   if (n > 0) {
      in_child(n - 1);
      return;
   }
   pid_t p = fork();
   if (p == 0) {
      in_grandchild();
      return;
   }
   waitpid(p, NULL, 0);
   leaf(2);
}

__attribute__((noinline)) void c(void)
{
   pid_t p = fork();
   if (p == 0) {
      in_child(4);
      return;
   }
   waitpid(p, NULL, 0);
   leaf(1);
}

__attribute__((noinline)) void b(void) { leaf(0); c(); leaf(0); }
__attribute__((noinline)) void a(void) { b(); }

int main(void)
{
   a();
   leaf(5);
   return 0;
}
