/* SPDX-License-Identifier: MIT */
/* Call-heavy: naive recursive Fibonacci (fib(35): ~30 M calls). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long fib(int n)
{
   return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
   int n = argc > 1 ? atoi(argv[1]) : 35;
   printf("fib(%d) = %ld\n", n, fib(n));
   return 0;
}
