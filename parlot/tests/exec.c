/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exec under --trace-children=yes: stage 1 execs the same program with the
   argument "stage2"; the pid stays the same, so the two traces must both
   exist under different names (the default name never overwrites). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void s1_leaf(void) { sink++; }
__attribute__((noinline)) void s2_leaf(void) { sink++; }

__attribute__((noinline)) int stage2(int n)
{
   if (n > 0)
      return stage2(n - 1) + 1;
   s2_leaf();
   return 0;
}

__attribute__((noinline)) void stage1_exec(const char *self)
{
   s1_leaf();
   execl(self, self, "stage2", (char *)NULL);
   perror("execl");
}

__attribute__((noinline)) void stage1(const char *self)
{
   s1_leaf();
   stage1_exec(self);
}

int main(int argc, char **argv)
{
   if (argc > 1 && strcmp(argv[1], "stage2") == 0)
      return stage2(5) == 5 ? 0 : 1;
   stage1(argv[0]);
   return 2;   /* exec failed */
}
