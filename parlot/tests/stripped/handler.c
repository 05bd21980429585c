/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A signal handler that only its own object's symbol table names: once
   stripped (and with --unwind-names=no), the tool knows it as a function
   only because the program installed it with sigaction. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int seen;

static void on_usr1(int sig)
{
   (void)sig;
   seen += getpid() > 0;
}

int main(void)
{
   struct sigaction sa;

   memset(&sa, 0, sizeof sa);
   sa.sa_handler = on_usr1;
   sigaction(SIGUSR1, &sa, NULL);
   for (int i = 0; i < 3; i++)
      raise(SIGUSR1);
   printf("%d signals handled\n", seen);
   return 0;
}
