/* SPDX-License-Identifier: MIT */
/* stack_at: the call stack of one thread just after one of its events.

   usage: stack_at TRACE THREAD INDEX
   THREAD is a ParLoT thread number (1 = the process's first thread) and
   INDEX a 1-based event index in that thread: event INDEX is the thread's
   INDEX-th line in `parlot-decode --events`.  Prints the frames open
   after that event, outermost first, one per line:
   "DEPTH<TAB>OBJECT<TAB>FUNCTION", names as recorded (C++ names mangled,
   as `parlot-decode --events --no-demangle` prints them) and escaped.  Exit status 1 if the thread does
   not exist, has fewer events, or the trace is damaged before the event.

   Build: cc stack_at.c $(pkg-config --cflags --libs parlot) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parlot/parlot.h>

static void print_name(const pl_name *nm)
{
   char *buf = malloc(pl_escaped_len(nm->str, nm->len) + 1);
   if (!buf)
      return;
   *pl_put_escaped(buf, nm->str, nm->len) = '\0';
   fputs(buf, stdout);
   free(buf);
}

static int fail(const char *path, const pl_error *err)
{
   fprintf(stderr, "stack_at: %s: offset %llu: %s\n", path,
           (unsigned long long)err->offset, err->msg);
   return 1;
}

/* The stack after event `index` (1-based) of the events it yields:
   replay the calls and returns (each event carries its frame's depth). */
static int stack_after(pl_events *it, uint64_t index, uint32_t **stack,
                       uint32_t *depth, pl_error *err)
{
   uint64_t seen = 0;
   uint32_t cap = 0;
   const pl_event *ev;
   long n, i;

   *depth = 0;
   while (seen < index && (n = pl_events_next(it, &ev, err)) > 0) {
      for (i = 0; i < n && seen < index; i++, seen++) {
         if (ev[i].kind == PL_EV_RETURN) {
            *depth = ev[i].depth - 1;
            continue;
         }
         if (ev[i].depth > cap) {
            uint32_t *s;
            cap = ev[i].depth * 2;
            s = realloc(*stack, (size_t)cap * sizeof *s);
            if (!s) {
               pl_error_set(err, 0, "out of memory");
               return -1;
            }
            *stack = s;
         }
         (*stack)[ev[i].depth - 1] = ev[i].fn;
         *depth = ev[i].depth;
      }
      if (n < 0)
         return -1;
   }
   if (seen < index) {
      if (n < 0)
         return -1;
      pl_error_set(err, 0, "the thread has %llu events, not %llu",
                   (unsigned long long)seen, (unsigned long long)index);
      return -1;
   }
   return 0;
}

int main(int argc, char **argv)
{
   unsigned long thread;
   unsigned long long index;
   char *end1, *end2;
   pl_error err;
   pl_trace *t;
   pl_events *it;
   uint32_t *stack = NULL, depth, d;
   size_t i;
   int status = 0;

   if (argc != 4) {
      fprintf(stderr, "usage: stack_at TRACE THREAD INDEX\n");
      return 2;
   }
   thread = strtoul(argv[2], &end1, 10);
   index = strtoull(argv[3], &end2, 10);
   if (*end1 || *end2 || !*argv[2] || !*argv[3] || index == 0) {
      fprintf(stderr, "stack_at: THREAD and INDEX are numbers, INDEX >= 1\n");
      return 2;
   }
   t = pl_trace_open(argv[1], &err);
   if (!t)
      return fail(argv[1], &err);
   for (i = 0; i < pl_trace_nthreads(t); i++)
      if (pl_trace_thread(t, i)->number == thread)
         break;
   if (i == pl_trace_nthreads(t)) {
      fprintf(stderr, "stack_at: %s: no thread %lu\n", argv[1], thread);
      pl_trace_close(t);
      return 1;
   }
   it = pl_events_open(t, i, &err);
   if (!it || stack_after(it, index, &stack, &depth, &err) < 0) {
      status = fail(argv[1], &err);
   } else {
      for (d = 0; d < depth; d++) {
         const pl_function *f = pl_trace_function(t, stack[d]);
         printf("%u\t", d + 1);
         print_name(pl_trace_object(t, f->obj));
         putchar('\t');
         print_name(&f->name);
         putchar('\n');
      }
   }
   pl_events_close(it);
   free(stack);
   pl_trace_close(t);
   return status;
}
