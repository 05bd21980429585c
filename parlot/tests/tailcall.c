/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tail calls.  Compiled with -O2 -foptimize-sibling-calls and without
   instrumentation: tc_a jumps to tc_b, which jumps to tc_c; tc_mix calls
   tc_c and then jumps to tc_b; even_t/odd_t jump to each other n times;
   tc_lib jumps to puts (a library function reached through the PLT);
   tc_frame pops the register it saved and jumps to tc_push, whose first
   instruction pushes one (the SP the jump leaves is overwritten before
   any memory access: inside a block chased by VEX, tc_push's entry would
   see the SP from before the pop, its frame 8 bytes too low), and
   tc_push pops and jumps to tc_c in turn (where such a frame would look
   ended: "return tc_push, call tc_c").
   main also calls fopen and qsort, which tail-call __fopen_internal and
   qsort_r inside libc, and with an argument N runs even_t(N): a chain of
   N + 1 tail calls, one frame each.

   Documented semantics (as Callgrind attributes them): a tail call
   "f -> jmp g" makes g a callee of f, and both end at g's return.  So
   main's call of tc_a(x) must decode as
       call tc_a, call tc_b, call tc_c, return tc_c, return tc_b, return tc_a
   at depths main+1, +2, +3.  The checker (parlot_check.py tailcall) holds
   this model and verifies with objdump that the compiler really emitted
   the jumps; the vgtest also compares every edge of the program and of
   libc with Callgrind's. */
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;

__attribute__((noinline, noipa)) int tc_c(int x) { sink += x; return x * 3 + 1; }
__attribute__((noinline, noipa)) int tc_b(int x) { return tc_c(x + 1); }
__attribute__((noinline, noipa)) int tc_a(int x) { return tc_b(x * 2); }

__attribute__((noinline, noipa)) int tc_mix(int x)
{
   int y = tc_c(x);
   sink += y;
   return tc_b(y);
}

__attribute__((noinline, noipa)) int tc_push(int x)
{
   int y = tc_c(x);
   return tc_c(y + x);
}
__attribute__((noinline, noipa)) int tc_frame(int x)
{
   int y = tc_c(x);
   return tc_push(y + x);
}

__attribute__((noinline, noipa)) int odd_t(unsigned n);
__attribute__((noinline, noipa)) int even_t(unsigned n)
{
   if (n == 0) return 1;
   return odd_t(n - 1);
}
__attribute__((noinline, noipa)) int odd_t(unsigned n)
{
   if (n == 0) return 0;
   return even_t(n - 1);
}

__attribute__((noinline, noipa)) int tc_lib(const char *s) { return puts(s); }

static int by_value(const void *a, const void *b)
{
   int x = *(const int *)a, y = *(const int *)b;
   return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
   int i, s = 0, v[32];
   FILE *f;

   for (i = 0; i < 3; i++)
      s += tc_a(i);
   s += tc_mix(7);
   s += tc_frame(3);
   s += even_t(5);
   s += tc_lib("tail");
   f = fopen("/dev/null", "r");
   if (f)
      fclose(f);
   for (i = 0; i < 32; i++)
      v[i] = (i * 7919) % 32;
   qsort(v, 32, sizeof v[0], by_value);
   if (argc > 1)
      s += even_t((unsigned)strtoul(argv[1], NULL, 10));
   sink += s + v[0];
   printf("%d\n", sink);
   return 0;
}
