/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Library B of the dlreload test (not instrumented), loaded where library
   A was: b_second sits where A's a_only was, b_first where A's entry was,
   and B's entry after them.  entry -> b_first -> b_second. */
static volatile int sink;

__attribute__((noinline, aligned(64))) int b_second(int x)
{
   sink -= x;
   return x + 5;
}

__attribute__((noinline, aligned(64))) int b_first(int x)
{
   return b_second(x) * 3;
}

__attribute__((noinline, aligned(64))) int entry(int x)
{
   return b_first(x) - 1;
}
