/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Deep recursion: DEPTH (default 100000) nested frames of down(), twice,
   so the shadow stack grows past 100,000 frames, shrinks to main, and grows
   again.  No fixed stack-depth limit may truncate or wrap anything. */
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) long leaf(long n)
{
   sink += n;
   return n & 1;
}

__attribute__((noinline)) long down(long n)
{
   if (n <= 1)
      return leaf(n);
   return down(n - 1) + 1;
}

int main(int argc, char **argv)
{
   long depth = argc > 1 ? atol(argv[1]) : 100000;
   long r = down(depth);
   r += down(depth / 2);
   return r == 0 ? 1 : 0;
}
