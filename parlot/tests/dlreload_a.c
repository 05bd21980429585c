/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Library A of the dlreload test (not instrumented): entry -> a_only.
   Functions are 64-byte aligned so that library B, loaded later where A
   was, has its functions exactly where A had its own: B's b_second where
   A's a_only was, B's b_first where A's entry was. */
static volatile int sink;

__attribute__((noinline, aligned(64))) int a_only(int x)
{
   sink += x;
   return x * 2;
}

__attribute__((noinline, aligned(64))) int entry(int x)
{
   return a_only(x) + 1;
}
