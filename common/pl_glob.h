/* SPDX-License-Identifier: MIT */
/* Glob patterns on function and object names, Callgrind's syntax: '*'
   matches any run of characters (none included), '?' any one character,
   everything else itself.  No libc: the tool can use it too.

   One pass with backtracking to the last '*' only: time O(len(pattern) x
   len(name)) at worst, never exponential. */
#ifndef PL_GLOB_H
#define PL_GLOB_H

#include <stddef.h>

static inline int pl_glob_match(const char *pat, const char *s)
{
   const char *star = NULL, *resume = NULL;

   while (*s) {
      if (*pat == '*') {
         star = pat++;
         resume = s;
      } else if (*pat == '?' || *pat == *s) {
         pat++;
         s++;
      } else if (star) {
         pat = star + 1;
         s = ++resume;
      } else {
         return 0;
      }
   }
   while (*pat == '*')
      pat++;
   return *pat == '\0';
}

#endif
