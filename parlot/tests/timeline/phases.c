/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Wall-clock phases with the program's own clock as the oracle: the main
   thread computes, sleeps 300 ms in sleep_phase() and computes again; a
   second thread computes in work_phase() meanwhile, waiting on a
   condition variable in between.  Each phase prints, to stdout,
   "PHASE NAME START_US END_US" read from CLOCK_REALTIME just before the
   call and just after it returns.
     phases */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static volatile double sink;

static long long now_us(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_REALTIME, &ts);
   return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void compute(int n)
{
   double s = 0;
   for (int i = 0; i < n; i++)
      s += i * 0.5;
   sink = s;
}

static void sleep_phase(void)
{
   struct timespec d = { 0, 300 * 1000000L };
   nanosleep(&d, NULL);
}

static void work_phase(void)
{
   for (int i = 0; i < 200; i++)
      compute(20000);
}

static void *worker(void *arg)
{
   long long a = now_us();
   (void)arg;
   work_phase();
   printf("PHASE work_phase %lld %lld\n", a, now_us());
   return NULL;
}

int main(void)
{
   pthread_t t;
   long long a, b;

   compute(100000);
   a = now_us();
   pthread_create(&t, NULL, worker, NULL);
   sleep_phase();
   b = now_us();
   printf("PHASE sleep_phase %lld %lld\n", a, b);
   pthread_join(t, NULL);
   compute(100000);
   return 0;
}
