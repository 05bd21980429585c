/* SPDX-License-Identifier: MIT */
/* stack_at: the call stack of one thread of a ParLoT trace just after one
   of its events.  An example of libparlot.

   usage: stack_at TRACE THREAD INDEX

   THREAD is a ParLoT thread number (1 = the process's initial thread,
   then in creation order).  INDEX counts that thread's events from 1:
   event INDEX is the thread's INDEX-th line of `parlot-decode --events
   TRACE` (lines of other threads not counted).  Prints the frames open
   just after that event, outermost first, one per line, tab-separated:

       DEPTH  OBJECT  FUNCTION

   (DEPTH 1 is the outermost frame; nothing if the stack is empty), names
   demangled and escaped as parlot-decode prints them.  In a forked
   child, the first events re-create the stack inherited from the parent;
   they count as events here, as in parlot-decode --events.

   A trace that cannot be read, no thread THREAD, fewer than INDEX events
   (a damaged trace: fewer before the damage): one line on stderr, exit
   status 1.  A bad command line: exit status 2.

   Build: cc stack_at.c $(pkg-config --cflags --libs parlot) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parlot/parlot.h>

static int fail(const char *file, const pl_error *err)
{
   fprintf(stderr, "stack_at: %s: offset %llu: %s\n", file,
           (unsigned long long)err->offset, err->msg);
   return 1;
}

/* Print s (len bytes) escaped as parlot-decode prints names. */
static void print_escaped(const char *s, size_t len)
{
   char *esc = malloc(pl_escaped_len(s, len));

   if (esc)
      fwrite(esc, 1, (size_t)(pl_put_escaped(esc, s, len) - esc), stdout);
   else
      fwrite(s, 1, len, stdout);
   free(esc);
}

/* Replay thread `index` of t up to its event number `at` (from 1).  The
   frames then open go to (*stack)[0 .. *depth - 1] (function IDs,
   outermost first), the events replayed to *seen.  0; 1 if the thread
   has fewer events; -1 with *err set. */
static int replay(const pl_trace *t, size_t index, uint64_t at,
                  uint32_t **stack, uint32_t *depth, uint64_t *seen,
                  pl_error *err)
{
   pl_events *it = pl_events_open(t, index, err);
   const pl_event *ev;
   uint32_t cap = 0;
   long n = 0, i;

   *depth = 0;
   *seen = 0;
   if (!it)
      return -1;
   while (*seen < at && (n = pl_events_next(it, &ev, err)) > 0)
      for (i = 0; i < n && *seen < at; i++, (*seen)++) {
         /* Every event carries its frame's depth: after a call at depth d
            the stack has d frames, the callee on top; after a return,
            d - 1.  (pl_events_stack() gives the stack after a whole
            batch.) */
         if (ev[i].kind == PL_EV_RETURN) {
            *depth = ev[i].depth - 1;
            continue;
         }
         if (ev[i].depth > cap) {
            uint32_t *s = realloc(*stack, 2 * (size_t)ev[i].depth * sizeof *s);
            if (!s) {
               pl_events_close(it);
               pl_error_set(err, 0, "out of memory");
               return -1;
            }
            *stack = s;
            cap = 2 * ev[i].depth;
         }
         (*stack)[ev[i].depth - 1] = ev[i].fn;
         *depth = ev[i].depth;
      }
   pl_events_close(it);
   if (n < 0)                   /* a corrupt stream before event `at` */
      return -1;
   return *seen < at;
}

int main(int argc, char **argv)
{
   const char *path;
   unsigned long thread;
   unsigned long long at;
   char *end1, *end2;
   pl_error err;
   pl_trace *t;
   uint32_t *stack = NULL, depth, d;
   uint64_t seen;
   size_t i;
   int r;

   if (argc != 4) {
      fprintf(stderr, "usage: stack_at TRACE THREAD INDEX\n");
      return 2;
   }
   path = argv[1];
   thread = strtoul(argv[2], &end1, 10);
   at = strtoull(argv[3], &end2, 10);
   if (*end1 || *end2 || end1 == argv[2] || end2 == argv[3] || at == 0 ||
       argv[2][0] == '-' || argv[3][0] == '-') {
      fprintf(stderr, "stack_at: THREAD and INDEX are numbers, INDEX from 1\n");
      return 2;
   }
   t = pl_trace_open(path, &err);
   if (!t)
      return fail(path, &err);
   for (i = 0; i < pl_trace_nthreads(t); i++)   /* by thread number */
      if (pl_trace_thread(t, i)->number == thread)
         break;
   if (i == pl_trace_nthreads(t)) {
      fprintf(stderr, "stack_at: %s: no thread %lu (the trace has %zu)\n",
              path, thread, pl_trace_nthreads(t));
      r = 1;
   } else if ((r = replay(t, i, at, &stack, &depth, &seen, &err)) < 0) {
      r = fail(path, &err);
   } else if (r > 0 && pl_trace_damage(t)) {
      err = *pl_trace_damage(t);
      fprintf(stderr, "stack_at: %s: offset %llu: %s (thread %lu has %llu "
              "events before it)\n", path, (unsigned long long)err.offset,
              err.msg, thread, (unsigned long long)seen);
   } else if (r > 0) {
      fprintf(stderr, "stack_at: %s: thread %lu has %llu events, not %llu\n",
              path, thread, (unsigned long long)seen, at);
   } else {
      for (d = 0; d < depth; d++) {
         const pl_function *f = pl_trace_function(t, stack[d]);
         const pl_name *obj = pl_trace_object(t, f->obj);
         char *dem = pl_demangle(f->name.str, f->name.len); /* C++ */

         printf("%u\t", d + 1);
         print_escaped(obj->str, obj->len);
         putchar('\t');
         if (dem)
            print_escaped(dem, strlen(dem));
         else
            print_escaped(f->name.str, f->name.len);
         putchar('\n');
         free(dem);
      }
   }
   free(stack);
   pl_trace_close(t);
   if (fflush(stdout) != 0) {
      perror("stack_at: standard output");
      return 1;
   }
   return r;
}
