/* SPDX-License-Identifier: MIT */
/* Compute-bound: a long arithmetic loop with almost no calls. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
   long n = argc > 1 ? atol(argv[1]) : 300000000L;
   unsigned long x = 88172645463325252UL, acc = 0;
   for (long i = 0; i < n; i++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      acc += x & 0xff;
   }
   printf("%lu\n", acc);
   return 0;
}
