/* SPDX-License-Identifier: MIT */
/* Process and thread selections (pl_select.h). */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_select.h"

static int parse_num(const char *s, const char *end, uint32_t *v)
{
   uint64_t x = 0;
   if (s == end)
      return -1;
   for (; s < end; s++) {
      if (*s < '0' || *s > '9')
         return -1;
      x = x * 10 + (uint64_t)(*s - '0');
      if (x > UINT32_MAX)
         return -1;
   }
   *v = (uint32_t)x;
   return 0;
}

static int parse_item(pl_sel_item *it, const char *s, const char *end)
{
   const char *colon = memchr(s, ':', (size_t)(end - s)), *dash;
   const char *pe = colon ? colon : end;
   uint32_t dummy;

   it->pid = NULL;
   it->lo = 0;
   it->hi = UINT32_MAX;
   if (pe - s == 1 && *s == '*') {
      if (!colon)
         return -1;                /* "*" alone: say nothing, select all */
   } else {
      if (parse_num(s, pe, &dummy) < 0)
         return -1;
      it->pid = strndup(s, (size_t)(pe - s));
      if (!it->pid)
         return -1;
   }
   if (!colon)
      return 0;
   s = colon + 1;
   if (end - s == 1 && *s == '*')
      return 0;
   dash = memchr(s, '-', (size_t)(end - s));
   if (parse_num(s, dash ? dash : end, &it->lo) < 0
       || parse_num(dash ? dash + 1 : s, end, &it->hi) < 0
       || it->lo == 0 || it->hi < it->lo) {
      free(it->pid);
      it->pid = NULL;
      return -1;
   }
   return 0;
}

int pl_select_parse(pl_select *s, const char *spec, char *why, size_t whylen)
{
   const char *p = spec;

   for (;;) {
      const char *end = strchr(p, ',');
      pl_sel_item *items;
      if (!end)
         end = p + strlen(p);
      items = realloc(s->items, (s->n + 1) * sizeof *items);
      if (!items) {
         snprintf(why, whylen, "out of memory");
         return -1;
      }
      s->items = items;
      if (parse_item(&s->items[s->n], p, end) < 0) {
         snprintf(why, whylen, "bad selection '%.*s' in '%s' (want PID, "
                  "PID:N, PID:N-M or *:N)", (int)(end - p), p, spec);
         return -1;
      }
      s->n++;
      if (!*end)
         return 0;
      p = end + 1;
   }
}

int pl_select_match(const pl_select *s, const char *pid, uint32_t thread)
{
   size_t i;
   if (s->n == 0)
      return 1;
   for (i = 0; i < s->n; i++) {
      const pl_sel_item *it = &s->items[i];
      if ((!it->pid || strcmp(it->pid, pid) == 0)
          && thread >= it->lo && thread <= it->hi)
         return 1;
   }
   return 0;
}

int pl_select_match_process(const pl_select *s, const char *pid)
{
   size_t i;
   if (s->n == 0)
      return 1;
   for (i = 0; i < s->n; i++)
      if (!s->items[i].pid || strcmp(s->items[i].pid, pid) == 0)
         return 1;
   return 0;
}

void pl_select_free(pl_select *s)
{
   size_t i;
   for (i = 0; i < s->n; i++)
      free(s->items[i].pid);
   free(s->items);
   s->items = NULL;
   s->n = 0;
}
