/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Waits until the file named by its argument exists (2 minutes at most), so
   that a test can keep several traced processes alive at once, then makes
   a few calls and exits 0. */
#include <stdio.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void step(int i) { sink += i; }

int main(int argc, char **argv)
{
   for (int tries = 0; argc > 1 && access(argv[1], F_OK) != 0; tries++) {
      if (tries == 2400)
         return 2;
      usleep(50000);
   }
   for (int i = 0; i < 100; i++)
      step(i);
   return 0;
}
