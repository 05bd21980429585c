/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Functions with several names (symbols at one address), as MPI libraries
   define them: MPI_Work is a weak alias of the profiling name PMPI_Work
   (Valgrind prefers the latter), mpi_work_ and mpi_work of pmpi_work_ (a
   Fortran binding's spellings), compute of compute_impl (an internal and
   a public name).  The program calls them by one name or another, argv[1]
   times each, and writes how often it called each name to the file named
   by $PARLOT_ALIAS_COUNTS ("NAME COUNT" lines): the oracle of
   parlot_check.py aliases. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

NOINLINE int PMPI_Work(int x) { return x + 1; }
int MPI_Work(int x) __attribute__((weak, alias("PMPI_Work")));

NOINLINE int pmpi_work_(const int *x) { return *x * 2; }
int mpi_work_(const int *x) __attribute__((weak, alias("pmpi_work_")));
int mpi_work(const int *x) __attribute__((weak, alias("pmpi_work_")));

NOINLINE int compute_impl(int x) { return x * x; }
int compute(int x) __attribute__((alias("compute_impl")));

/* called through volatile pointers, so that each name is really used */
static int (*volatile by_public)(int) = MPI_Work;
static int (*volatile by_profiling)(int) = PMPI_Work;
static int (*volatile f_public)(const int *) = mpi_work_;
static int (*volatile f_bare)(const int *) = mpi_work;
static int (*volatile c_public)(int) = compute;
static int (*volatile c_internal)(int) = compute_impl;

int main(int argc, char **argv)
{
   int n = argc > 1 ? atoi(argv[1]) : 3, s = 0;
   const char *log = getenv("PARLOT_ALIAS_COUNTS");
   FILE *f;

   for (int i = 0; i < n; i++) {
      s += by_public(i) + f_public(&i) + c_public(i);
      if (i % 2 == 0)
         s += by_profiling(i) + f_bare(&i) + c_internal(i);
   }
   if (!log || !(f = fopen(log, "w")))
      return 1;
   fprintf(f, "MPI_Work %d\nPMPI_Work %d\n", n, (n + 1) / 2);
   fprintf(f, "mpi_work_ %d\nmpi_work %d\n", n, (n + 1) / 2);
   fprintf(f, "compute %d\ncompute_impl %d\n", n, (n + 1) / 2);
   fclose(f);
   printf("sum %d\n", s);
   return 0;
}
