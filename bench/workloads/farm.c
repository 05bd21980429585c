/* SPDX-License-Identifier: MIT */
/* MPI workload whose ranks behave differently: a task farm.  Rank 0 hands
   out tasks of three kinds and sizes to whichever worker asks first
   (MPI_ANY_SOURCE) and collects the results; workers run a different code
   path per kind (sorting with a comparator, hashing strings, a recursive
   search), so each rank's trace is its own mix, decided at run time.  The
   shape of dynamic load balancing, where "which rank did what" is the
   question a trace answers.

     farm [TASKS [SIZE]]   (defaults 400, 2000)

   Rank 0 prints a checksum of the results, which does not depend on which
   worker ran which task. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_TASK = 1, TAG_RESULT = 2, TAG_STOP = 3 };

typedef struct { int id, kind, size; } task;

__attribute__((noinline)) static int cmp_int(const void *a, const void *b)
{
   int x = *(const int *)a, y = *(const int *)b;
   return (x > y) - (x < y);
}

__attribute__((noinline)) static long run_sort(int id, int size)
{
   int *v = malloc(sizeof *v * (size_t)size);
   long s = 0;
   for (int i = 0; i < size; i++)
      v[i] = (int)((unsigned)(i + id) * 2654435761u % 100000);
   qsort(v, (size_t)size, sizeof *v, cmp_int);
   for (int i = 0; i < size; i += size / 8 + 1)
      s += v[i];
   free(v);
   return s;
}

__attribute__((noinline)) static unsigned hash_str(const char *s)
{
   unsigned h = 2166136261u;
   for (; *s; s++)
      h = (h ^ (unsigned char)*s) * 16777619u;
   return h;
}

__attribute__((noinline)) static long run_hash(int id, int size)
{
   char buf[32];
   long s = 0;
   for (int i = 0; i < size; i++) {
      snprintf(buf, sizeof buf, "key-%d-%d", id, i);
      s += hash_str(buf) % 1000;
   }
   return s;
}

__attribute__((noinline)) static long search(int depth, int width, long seed)
{
   long best = seed % 97;
   if (depth == 0)
      return best;
   for (int i = 0; i < width; i++) {
      long v = search(depth - 1, width, seed * 31 + i);
      if (v > best)
         best = v;
   }
   return best;
}

__attribute__((noinline)) static long run_search(int id, int size)
{
   return search(3 + size % 3, 4 + id % 3, id);
}

static long run_task(const task *t)
{
   switch (t->kind) {
   case 0:  return run_sort(t->id, t->size);
   case 1:  return run_hash(t->id, t->size);
   default: return run_search(t->id, t->size);
   }
}

static long master(int workers, int ntasks, int size)
{
   long sum = 0;
   int sent = 0, done = 0;
   char *heard = calloc((size_t)workers + 1, 1);
   MPI_Status st;
   long result;

   /* every worker asks first with a result of -1 ("ready") */
   while (done < ntasks) {
      MPI_Recv(&result, 1, MPI_LONG, MPI_ANY_SOURCE, TAG_RESULT,
               MPI_COMM_WORLD, &st);
      heard[st.MPI_SOURCE] = 1;
      if (result >= 0)
         sum += result, done++;
      if (sent < ntasks) {
         task t = { sent, sent % 3, size / 2 + (sent * 7919) % size };
         MPI_Send(&t, 3, MPI_INT, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
         sent++;
      }
   }
   for (int w = 1; w <= workers; w++) {
      task stop = { -1, 0, 0 };
      if (!heard[w])    /* started after the work was done: its "ready" */
         MPI_Recv(&result, 1, MPI_LONG, w, TAG_RESULT, MPI_COMM_WORLD, &st);
      MPI_Send(&stop, 3, MPI_INT, w, TAG_STOP, MPI_COMM_WORLD);
   }
   free(heard);
   return sum;
}

static void worker(void)
{
   long result = -1;    /* "ready" */
   for (;;) {
      task t;
      MPI_Status st;
      MPI_Send(&result, 1, MPI_LONG, 0, TAG_RESULT, MPI_COMM_WORLD);
      MPI_Recv(&t, 3, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      if (st.MPI_TAG == TAG_STOP)
         return;
      result = run_task(&t);
   }
}

int main(int argc, char **argv)
{
   int rank, size;
   int ntasks = argc > 1 ? atoi(argv[1]) : 400;
   int tsize = argc > 2 ? atoi(argv[2]) : 2000;

   MPI_Init(&argc, &argv);
   MPI_Comm_rank(MPI_COMM_WORLD, &rank);
   MPI_Comm_size(MPI_COMM_WORLD, &size);
   if (size < 2) {
      if (rank == 0)
         fprintf(stderr, "farm: needs at least 2 ranks\n");
      MPI_Finalize();
      return 1;
   }
   if (rank == 0)
      printf("checksum %ld\n", master(size - 1, ntasks, tsize));
   else
      worker();
   MPI_Finalize();
   return 0;
}
