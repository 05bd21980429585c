/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tail calls.  Compiled with -O2 -foptimize-sibling-calls and without
   instrumentation: tc_a jumps to tc_b, which jumps to tc_c; tc_mix calls
   tc_c and then jumps to tc_b; even_t/odd_t jump to each other n times;
   tc_lib jumps to puts (a library function reached through the PLT).

   Documented semantics: a tail call "f -> jmp g" is recorded as the return
   from f followed by the call of g, at the same depth as f.  So main's
   call of tc_a(x) must decode as
       call tc_a, return tc_a, call tc_b, return tc_b, call tc_c, return tc_c
   all at depth(main)+1.  The checker (parlot_check.py tailcall) holds
   this model and verifies with objdump that the compiler really emitted
   the jumps. */
#include <stdio.h>

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

int main(void)
{
   int i, s = 0;
   for (i = 0; i < 3; i++)
      s += tc_a(i);
   s += tc_mix(7);
   s += even_t(5);
   s += tc_lib("tail");
   sink += s;
   printf("%d\n", sink);
   return 0;
}
