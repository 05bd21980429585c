/* SPDX-License-Identifier: MIT */
/* count_calls: calls per function of every thread of ParLoT traces.

   usage: count_calls TRACE|ARCHIVE...
   Prints, per thread in thread-number order and per function in
   function-ID order, "PID<TAB>THREAD<TAB>CALLS<TAB>OBJECT<TAB>FUNCTION".
   A forked child's trace begins with calls that re-create the stack it
   inherited (pl_thread_info.inherited_depth): they are events, not calls
   the child made, and are not counted.  Names are demangled and escaped
   as parlot-decode prints them.  A damaged trace is counted up to the
   damage, then reported as "count_calls: FILE: offset N: message", and
   the exit status is 1.

   Build: cc count_calls.c $(pkg-config --cflags --libs parlot) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parlot/parlot.h>

static void print_name(const char *s, size_t len)
{
   char *buf = malloc(pl_escaped_len(s, len) + 1);
   if (!buf)
      return;
   *pl_put_escaped(buf, s, len) = '\0';
   fputs(buf, stdout);
   free(buf);
}

/* Count the calls of thread `index`; 0, or -1 with *err set. */
static int count_thread(const pl_trace *t, size_t index, uint64_t *calls,
                        pl_error *err)
{
   const pl_thread_info *ti = pl_trace_thread(t, index);
   uint64_t skip = ti->inherited_depth;
   pl_events *it = pl_events_open(t, index, err);
   const pl_event *ev;
   long n, i;

   if (!it)
      return -1;
   while ((n = pl_events_next(it, &ev, err)) > 0)
      for (i = 0; i < n; i++)
         if (ev[i].kind == PL_EV_CALL) {
            if (skip > 0)
               skip--;
            else
               calls[ev[i].fn]++;
         }
   pl_events_close(it);
   return n < 0 ? -1 : 0;
}

static void print_counts(const pl_trace *t, uint32_t number,
                         const uint64_t *calls)
{
   uint32_t id, nfns = pl_trace_nfunctions(t);

   for (id = 1; id <= nfns; id++) {
      const pl_function *f = pl_trace_function(t, id);
      const pl_name *obj = pl_trace_object(t, f->obj);
      char *shown;

      if (!calls[id])
         continue;
      printf("%s\t%u\t%llu\t", pl_trace_process_get(t, "pid"), number,
             (unsigned long long)calls[id]);
      print_name(obj->str, obj->len);
      putchar('\t');
      shown = pl_demangle(f->name.str, f->name.len);
      if (shown) {
         print_name(shown, strlen(shown));
         free(shown);
      } else {
         print_name(f->name.str, f->name.len);
      }
      putchar('\n');
   }
}

/* Count and print one trace; 0, or 1 if it is damaged or unreadable. */
static int count_trace(const pl_input *in)
{
   pl_error err;
   pl_trace *t = pl_input_open(in, &err);
   uint64_t *calls;
   size_t i;
   int status = 0;

   if (!t) {
      fprintf(stderr, "count_calls: %s: offset %llu: %s\n", in->name,
              (unsigned long long)err.offset, err.msg);
      return 1;
   }
   calls = malloc(((size_t)pl_trace_nfunctions(t) + 1) * sizeof *calls);
   for (i = 0; calls && i < pl_trace_nthreads(t); i++) {
      memset(calls, 0, ((size_t)pl_trace_nfunctions(t) + 1) * sizeof *calls);
      if (count_thread(t, i, calls, &err) < 0)
         status = 1;
      print_counts(t, pl_trace_thread(t, i)->number, calls);
      if (status)
         break;
   }
   if (!calls) {
      status = 1;
      pl_error_set(&err, 0, "out of memory");
   } else if (!status && pl_trace_damage(t)) {
      status = 1;
      err = *pl_trace_damage(t);
   }
   if (status) {
      fflush(stdout);
      fprintf(stderr, "count_calls: %s: offset %llu: %s\n", in->name,
              (unsigned long long)err.offset, err.msg);
   }
   free(calls);
   pl_trace_close(t);
   return status;
}

int main(int argc, char **argv)
{
   pl_inputs inputs;
   pl_error err;
   size_t i;
   int status = 0, a;

   if (argc < 2) {
      fprintf(stderr, "usage: count_calls TRACE|ARCHIVE...\n");
      return 2;
   }
   memset(&inputs, 0, sizeof inputs);
   for (a = 1; a < argc; a++) {
      int r = pl_inputs_add(&inputs, argv[a], &err);
      if (r != 0) {
         fprintf(stderr, "count_calls: %s: offset %llu: %s\n", argv[a],
                 (unsigned long long)err.offset, err.msg);
         status = 1;
         if (r < 0)
            break;
      }
   }
   for (i = 0; i < inputs.n; i++)
      status |= count_trace(&inputs.v[i]);
   pl_inputs_free(&inputs);
   return fflush(stdout) == 0 ? status : 1;
}
