/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gone TRACE DIR: remove this process's trace file and its directory,
   then fork: the child's trace cannot be created.  The child prints a
   line and exits with status 3; the parent prints what it saw. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
   int st = 0;
   pid_t p;

   if (argc != 3 || unlink(argv[1]) != 0 || rmdir(argv[2]) != 0) {
      perror("gone");
      return 1;
   }
   fflush(stdout);
   p = fork();
   if (p == 0) {
      printf("child runs\n");
      fflush(stdout);
      _exit(3);
   }
   waitpid(p, &st, 0);
   printf("parent sees %d\n", WEXITSTATUS(st));
   return 0;
}
