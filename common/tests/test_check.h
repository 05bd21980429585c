/* SPDX-License-Identifier: MIT */
/* The pass/fail counting of the codec, format and table tests
   (common/tests/test_*.c): CHECK counts a passed assertion or reports a
   failed one on stderr; the program prints its totals. */
#ifndef TEST_CHECK_H
#define TEST_CHECK_H

#include <stdio.h>

static int n_pass, n_fail;

#define CHECK(cond, ...)                                             \
   do {                                                              \
      if (cond) n_pass++;                                            \
      else {                                                         \
         n_fail++;                                                   \
         fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
         fprintf(stderr, __VA_ARGS__);                               \
         fputc('\n', stderr);                                        \
      }                                                              \
   } while (0)

/* The program's last line, "NAME: N passed, M failed", and its exit
   status. */
static inline int check_totals(const char *name)
{
   printf("%s: %d passed, %d failed\n", name, n_pass, n_fail);
   return n_fail != 0;
}

#endif
