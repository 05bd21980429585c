/* SPDX-License-Identifier: MIT */
/* The pass/fail counting of the codec and table tests (test_codec.c,
   test_table_pack.c, test_ccm.c): CHECK counts a passed assertion or
   reports a failed one on stderr; the program prints its totals. */
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

#endif
