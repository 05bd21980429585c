/* SPDX-License-Identifier: MIT */
/* Names of a trace's functions and threads (trace_labels.h). */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_names.h"
#include "trace_labels.h"

void trace_labels_free(trace_labels *l)
{
   free(l->arena);
   free(l->at);
   memset(l, 0, sizeof *l);
}

int trace_labels_load(trace_labels *l, const pl_trace *t, int demangle)
{
   uint32_t n = pl_trace_nfunctions(t), id;
   char **shown = calloc((size_t)n + 1, sizeof *shown);
   size_t total = 1;
   char *p;

   memset(l, 0, sizeof *l);
   if (!shown)
      return -1;
   for (id = 1; id <= n; id++) {
      const pl_function *f = pl_trace_function(t, id);
      shown[id] = demangle ? pl_demangle(f->name.str, f->name.len) : NULL;
      total += 1 + (shown[id] ? pl_escaped_len(shown[id], strlen(shown[id]))
                              : pl_escaped_len(f->name.str, f->name.len));
   }
   l->at = malloc(((size_t)n + 2) * sizeof *l->at);
   l->arena = malloc(total);
   if (!l->at || !l->arena) {
      trace_labels_free(l);
      for (id = 1; id <= n; id++)
         free(shown[id]);
      free(shown);
      return -1;
   }
   p = l->arena;
   l->at[0] = 0;
   *p++ = '\0';               /* ID 0: no function */
   for (id = 1; id <= n; id++) {
      const pl_function *f = pl_trace_function(t, id);
      l->at[id] = (size_t)(p - l->arena);
      p = shown[id] ? pl_put_escaped(p, shown[id], strlen(shown[id]))
                    : pl_put_escaped(p, f->name.str, f->name.len);
      *p++ = '\0';
      free(shown[id]);
   }
   l->at[n + 1] = (size_t)(p - l->arena);
   l->n = n;
   free(shown);
   return 0;
}

void thread_label(char *buf, size_t n, const char *pid, const char *rank,
                  uint32_t thread)
{
   if (rank && thread == 1)
      snprintf(buf, n, "rank %s", rank);
   else if (rank)
      snprintf(buf, n, "rank %s thread %u", rank, thread);
   else
      snprintf(buf, n, "pid %s thread %u", pid, thread);
}

void thread_key_set(thread_key *k, const char *pid, const char *rank,
                    uint32_t thread)
{
   k->by_rank = rank != NULL;
   k->id = strtoull(rank ? rank : pid, NULL, 10);
   k->thread = thread;
}

static int key_order(const void *a, const void *b)
{
   const thread_key *x = a, *y = b;
   if (x->by_rank != y->by_rank)
      return x->by_rank ? -1 : 1;
   if ((x->thread == 1) != (y->thread == 1))     /* ranks before R.T */
      return x->thread == 1 ? -1 : 1;
   if (x->id != y->id)
      return x->id < y->id ? -1 : 1;
   return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/* Append to the string *buf (length *len) what fmt makes: 0, or -1. */
static int append(char **buf, size_t *len, const char *fmt, ...)
   __attribute__((format(printf, 3, 4)));
static int append(char **buf, size_t *len, const char *fmt, ...)
{
   va_list ap;
   char tmp[64], *nb;
   int n;
   va_start(ap, fmt);
   n = vsnprintf(tmp, sizeof tmp, fmt, ap);
   va_end(ap);
   if (n < 0 || !(nb = realloc(*buf, *len + (size_t)n + 1)))
      return -1;
   memcpy(nb + *len, tmp, (size_t)n + 1);
   *buf = nb;
   *len += (size_t)n;
   return 0;
}

static int put_item(char **buf, size_t *len, const thread_key *a,
                    const thread_key *b, int first)
{
   const char *p = a->by_rank ? "" : "p";
   unsigned long long ia = a->id, ib = b->id;
   if (!first && append(buf, len, ",") < 0)
      return -1;
   if (a->thread == 1)
      return b != a ? append(buf, len, "%s%llu-%s%llu", p, ia, p, ib)
                    : append(buf, len, "%s%llu", p, ia);
   return b != a ? append(buf, len, "%s%llu.%u-%u", p, ia, a->thread,
                          b->thread)
                 : append(buf, len, "%s%llu.%u", p, ia, a->thread);
}

char *thread_set_format(thread_key *k, size_t n)
{
   char *buf = NULL;
   size_t len = 0, i, j;

   qsort(k, n, sizeof *k, key_order);
   if (append(&buf, &len, "[") < 0)
      goto oom;
   for (i = 0; i < n; i = j + 1) {
      for (j = i; j + 1 < n && k[j + 1].by_rank == k[i].by_rank; j++)
         if (k[i].thread == 1 ? (k[j + 1].thread != 1
                                 || k[j + 1].id != k[j].id + 1)
                              : (k[j + 1].id != k[i].id
                                 || k[j + 1].thread != k[j].thread + 1))
            break;
      if (put_item(&buf, &len, &k[i], &k[j], i == 0) < 0)
         goto oom;
   }
   if (append(&buf, &len, "]") < 0)
      goto oom;
   return buf;
oom:
   free(buf);
   return NULL;
}

int put_thread_set(outbuf *o, thread_key *k, size_t n)
{
   char *s = thread_set_format(k, n);
   if (!s)
      return -1;
   outbuf_str(o, s);
   free(s);
   return 0;
}
