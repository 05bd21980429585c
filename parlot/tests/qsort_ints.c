/* SPDX-License-Identifier: GPL-2.0-or-later */
/* threads_sorting's comparator, built without the oracle's hooks: its
   millions of calls would make the oracle log (a write per event) the
   test's whole cost. */
#include <stdlib.h>

static int compare_ints(const void *a, const void *b)
{
   int x = *(const int *)a, y = *(const int *)b;
   return (x > y) - (x < y);
}

void sort_ints(int *v, int n)
{
   qsort(v, (size_t)n, sizeof *v, compare_ints);
}
