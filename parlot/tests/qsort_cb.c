/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Callbacks from libc: qsort and bsearch call an instrumented comparator
   (which calls a helper), and an atexit handler runs after main returns.
   With --images=all the comparator's caller is a libc function; the
   decoded main-image sequence must still equal the oracle's. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int key_of(const int *p) { return *p % 1000; }

__attribute__((noinline)) static int cmp_int(const void *a, const void *b)
{
   int x = key_of(a), y = key_of(b);
   return (x > y) - (x < y);
}

__attribute__((noinline)) static void at_exit_handler(void)
{
   fflush(stdout);
}

int main(void)
{
   enum { N = 300 };
   static int v[N];
   unsigned s = 12345;
   int i, found = 0;
   for (i = 0; i < N; i++) {
      s = s * 1103515245u + 12345u;
      v[i] = (int)((s >> 8) % 100000);
   }
   atexit(at_exit_handler);
   qsort(v, N, sizeof v[0], cmp_int);
   for (i = 0; i < N; i += 7)
      found += bsearch(&v[i], v, N, sizeof v[0], cmp_int) != NULL;
   printf("%d\n", found);
   return 0;
}
