/* SPDX-License-Identifier: MIT */
/* count_calls: how often each thread called each function, in ParLoT
   traces (valgrind --tool=parlot).  An example of libparlot.

   usage: count_calls TRACE|ARCHIVE...

   One line per (thread, function called), tab-separated:

       PID  THREAD  CALLS  OBJECT  FUNCTION

   Traces in the order given (an archive's members in archive order),
   threads in thread-number order, then functions by decreasing CALLS,
   ties in the order the trace defines them.  C++ names are demangled and
   names escaped (\t, \n, \\, \xHH) as `parlot-decode --events` prints
   them.  A forked child's first thread begins with calls that re-create
   the stack it inherited from its parent (inherited_depth of them):
   those are not calls the child made and are not counted, as in the call
   counts of parlot-annotate and parlot-decode --xml.

   An unreadable or damaged trace is counted up to the damage, then
   reported as "count_calls: FILE: offset N: message"; the exit status is
   then 1 (0 if every trace was complete).

   Build: cc count_calls.c $(pkg-config --cflags --libs parlot) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parlot/parlot.h>

typedef struct {
   uint64_t calls;
   uint32_t fn;                 /* function ID */
} count;

static void report(const char *file, const pl_error *err)
{
   fflush(stdout);              /* what was counted comes first */
   fprintf(stderr, "count_calls: %s: offset %llu: %s\n", file,
           (unsigned long long)err->offset, err->msg);
}

/* "OBJECT<TAB>FUNCTION" of function id, demangled and escaped; malloc'ed,
   NULL if out of memory. */
static char *label(const pl_trace *t, uint32_t id)
{
   const pl_function *f = pl_trace_function(t, id);
   const pl_name *obj = pl_trace_object(t, f->obj);
   char *dem = pl_demangle(f->name.str, f->name.len); /* NULL: not C++ */
   const char *name = dem ? dem : f->name.str;
   size_t len = dem ? strlen(dem) : f->name.len;
   char *s = malloc(pl_escaped_len(obj->str, obj->len) + 1 +
                    pl_escaped_len(name, len) + 1);

   if (s) {
      char *p = pl_put_escaped(s, obj->str, obj->len);
      *p++ = '\t';
      *pl_put_escaped(p, name, len) = '\0';
   }
   free(dem);
   return s;
}

static int by_calls(const void *a, const void *b)
{
   const count *x = a, *y = b;
   if (x->calls != y->calls)
      return x->calls < y->calls ? 1 : -1;
   return (x->fn > y->fn) - (x->fn < y->fn);
}

/* Add the calls of thread `index` to c[function ID].  0, or -1 with *err
   set (the calls before the error are counted). */
static int count_thread(const pl_trace *t, size_t index, count *c,
                        pl_error *err)
{
   uint32_t inherited = pl_trace_thread(t, index)->inherited_depth;
   pl_events *it = pl_events_open(t, index, err);
   const pl_event *ev;
   long n, i;

   if (!it)
      return -1;
   while ((n = pl_events_next(it, &ev, err)) > 0)
      for (i = 0; i < n; i++) {
         if (ev[i].kind != PL_EV_CALL)
            continue;
         if (inherited > 0)
            inherited--;        /* re-enters a frame of the parent's */
         else
            c[ev[i].fn].calls++;
      }
   pl_events_close(it);
   return n < 0 ? -1 : 0;
}

/* Count and print one trace; 0, or 1 if it is unreadable or damaged. */
static int count_trace(const pl_input *in)
{
   pl_error err;
   pl_trace *t = pl_input_open(in, &err);
   uint32_t nfns, id;
   char **labels;
   count *c;
   size_t i;
   int failed = 0;

   if (!t) {
      report(in->name, &err);
      return 1;
   }
   nfns = pl_trace_nfunctions(t);            /* IDs 1..nfns */
   labels = calloc((size_t)nfns + 1, sizeof *labels);
   c = malloc(((size_t)nfns + 1) * sizeof *c);
   for (id = 1; labels && id <= nfns; id++)
      if (!(labels[id] = label(t, id)))
         break;
   if (!labels || !c || id <= nfns) {
      pl_error_set(&err, 0, "out of memory");
      failed = 1;
   }
   for (i = 0; !failed && i < pl_trace_nthreads(t); i++) {
      for (id = 0; id <= nfns; id++) {
         c[id].calls = 0;
         c[id].fn = id;
      }
      failed = count_thread(t, i, c, &err) < 0;
      qsort(c, (size_t)nfns + 1, sizeof *c, by_calls);
      for (id = 0; id <= nfns && c[id].calls > 0; id++)
         printf("%s\t%u\t%llu\t%s\n", pl_trace_process_get(t, "pid"),
                pl_trace_thread(t, i)->number,
                (unsigned long long)c[id].calls, labels[c[id].fn]);
   }
   if (!failed && pl_trace_damage(t)) {
      err = *pl_trace_damage(t);
      failed = 1;
   }
   if (failed)
      report(in->name, &err);
   for (id = 0; labels && id <= nfns; id++)
      free(labels[id]);
   free(labels);
   free(c);
   pl_trace_close(t);
   return failed;
}

int main(int argc, char **argv)
{
   pl_inputs in = { 0 };
   pl_error err;
   int status = 0, a;
   size_t i;

   if (argc < 2) {
      fprintf(stderr, "usage: count_calls TRACE|ARCHIVE...\n");
      return 2;
   }
   /* every path given: a loose trace, or an archive's members */
   for (a = 1; a < argc; a++) {
      int r = pl_inputs_add(&in, argv[a], &err);
      if (r != 0) {             /* 1: a bad archive index, -1: no memory */
         report(argv[a], &err);
         status = 1;
         if (r < 0)
            break;
      }
   }
   for (i = 0; i < in.n; i++)
      status |= count_trace(&in.v[i]);
   pl_inputs_free(&in);
   if (fflush(stdout) != 0) {
      perror("count_calls: standard output");
      return 1;
   }
   return status;
}
