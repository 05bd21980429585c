/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Mutual recursion: a two-cycle (is_even/is_odd), a three-cycle
   (ping -> pong -> pang -> ping) and a branching recursion (fib), so that
   the same functions appear at many depths and as both caller and callee. */
#include <stdio.h>

__attribute__((noinline)) int is_odd(unsigned n);

__attribute__((noinline)) int is_even(unsigned n)
{
   return n == 0 ? 1 : is_odd(n - 1);
}

__attribute__((noinline)) int is_odd(unsigned n)
{
   return n == 0 ? 0 : is_even(n - 1);
}

__attribute__((noinline)) int pong(int n);
__attribute__((noinline)) int pang(int n);

__attribute__((noinline)) int ping(int n)
{
   return n <= 0 ? 0 : 1 + pong(n - 1);
}

__attribute__((noinline)) int pong(int n)
{
   return n <= 0 ? 0 : 2 + pang(n - 1);
}

__attribute__((noinline)) int pang(int n)
{
   return n <= 0 ? 0 : 3 + ping(n - 1);
}

__attribute__((noinline)) int fib(int n)
{
   return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(void)
{
   int i, s = 0;
   for (i = 0; i < 20; i++)
      s += is_even((unsigned)(i * 7));
   s += ping(50) + pang(31);
   s += fib(15);
   printf("%d\n", s);
   return 0;
}
