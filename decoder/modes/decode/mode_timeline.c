/* SPDX-License-Identifier: MIT */
/* parlot-decode --chrome and --speedscope: every selected thread's calls
   as a timeline, for Perfetto / chrome://tracing (the Trace Event Format:
   "B" and "E" events in a JSON document) and for speedscope (its file
   format, one "evented" profile per thread).

   The time axis is the wall clock where the trace has stamps
   (--collect-time; µs since the origin below, shared by every thread and
   process): an event's time is interpolated between the stamps around it
   in proportion to the instructions (with costs) or the events between
   them.  Else it is the thread's own: its instructions where the trace
   has costs (--collect-insns; on Chrome's axis, 1 µs stands for 1,000
   instructions), else its events (1 µs, or 1 unit, per event).  The
   document says which.  Events are written as they are decoded, through
   the filters (--select, --range and --depth bound the output), so memory
   holds the open frames and, for speedscope, one entry per distinct
   function: its frame table, written after the profiles (JSON does not
   order an object's members).  Frames still open where a stream ends are
   closed at its last time. */

#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pl_alloc.h"
#include "pl_hash.h"
#include "pl_modes.h"
#include "trace_labels.h"

/* A thread's time axis; the document's is the union of its threads'. */
enum { AXIS_NONE = 0, AXIS_EVENTS = 1, AXIS_INSNS = 2, AXIS_WALL = 4 };

/* speedscope's frames: (object, function) pairs, numbered as first met. */
typedef struct {
   char    **name, **file;
   uint64_t *hash;
   size_t    n, cap;
   uint32_t *slot;          /* open addressing: index + 1, 0 empty */
   size_t    slots;
} frame_table;

/* Calls beyond which the end of a document notes how to bound it. */
#define PL_TIMELINE_MANY_CALLS 2000000u

/* The wall-clock axis' 0: a whole second, an hour before the first
   thread written starts, so that the traces of one run given in any order
   count up from it (one started earlier yet gets negative times), and a
   viewer's double keeps the times exact to the ns for weeks, where µs
   since the epoch would keep a quarter of a µs.  Set by the first thread
   with stamps: no file is read twice. */
#define ORIGIN_BEFORE_NS 3600000000000ull

/* The document being written, across the files. */
static struct {
   int         format;      /* PL_TIMELINE_* */
   int         axis;        /* the axes of the threads so far (bits) */
   uint64_t    written;     /* events and profiles written: commas */
   uint64_t    calls;       /* frames opened, over the document */
   uint64_t    origin;      /* the wall-clock axis' 0: ns since the epoch
                               (0: no thread on it yet) */
   const char *view;        /* the filters, as parlot-decode describes them
                               ("" for every call) */
   frame_table frames;
   uint32_t   *open;        /* the open frames of the thread (speedscope:
                               frame numbers; Chrome: depth only) */
   size_t      open_cap;
} tl;

void pl_timeline_begin(outbuf *o, int format, const char *view)
{
   memset(&tl, 0, sizeof tl);
   tl.format = format;
   tl.view = view;
   if (format == PL_TIMELINE_CHROME)
      outbuf_str(o, "{\"traceEvents\":[\n");
   else
      outbuf_str(o, "{\"$schema\":\"https://www.speedscope.app/"
                    "file-format-schema.json\",\n\"profiles\":[\n");
}

static const char *axis_name(int axis)
{
   return axis == AXIS_WALL ? "wall-clock" : axis == AXIS_INSNS
          ? "instructions" : axis == AXIS_EVENTS ? "events"
          : axis == AXIS_NONE ? "none" : "mixed";
}

static void free_frames(frame_table *f)
{
   for (size_t i = 0; i < f->n; i++) {
      free(f->name[i]);
      free(f->file[i]);
   }
   free(f->name);
   free(f->file);
   free(f->hash);
   free(f->slot);
}

int pl_timeline_end(outbuf *o)
{
   char origin[32] = "", name[640];
   if (tl.axis & AXIS_WALL) {          /* UTC, to the second */
      time_t sec = (time_t)(tl.origin / 1000000000u);
      struct tm tm;
      if (gmtime_r(&sec, &tm))
         strftime(origin, sizeof origin, "%Y-%m-%dT%H:%M:%SZ", &tm);
   }
   if (tl.format == PL_TIMELINE_CHROME) {
      outbuf_printf(o, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":"
                    "{\"creator\":\"parlot-decode\",\"time_axis\":\"%s\","
                    "\"time_unit\":\"%s\"", axis_name(tl.axis),
                    tl.axis == AXIS_WALL ? "us since time_origin "
                    "(CLOCK_REALTIME)" : tl.axis == AXIS_INSNS
                    ? "1 us = 1000 instructions of the thread"
                    : tl.axis == AXIS_EVENTS ? "1 us = 1 event of the thread"
                    : "see each thread's args");
      if (tl.axis & AXIS_WALL)
         outbuf_printf(o, ",\"time_origin\":\"%s\",\"time_origin_ns\":"
                       "\"%llu\"", origin, (unsigned long long)tl.origin);
      outbuf_str(o, ",\"view\":");
      outbuf_json_str(o, *tl.view ? tl.view : "all",
                      strlen(*tl.view ? tl.view : "all"));
      outbuf_str(o, "}}\n");
   } else {
      outbuf_str(o, "\n],\n\"shared\":{\"frames\":[");
      for (size_t i = 0; i < tl.frames.n; i++) {
         outbuf_str(o, i ? ",\n{\"name\":" : "\n{\"name\":");
         outbuf_json_str(o, tl.frames.name[i], strlen(tl.frames.name[i]));
         outbuf_str(o, ",\"file\":");
         outbuf_json_str(o, tl.frames.file[i], strlen(tl.frames.file[i]));
         outbuf_str(o, "}");
      }
      /* the document's name is where speedscope shows what it holds */
      outbuf_str(o, "]},\n\"name\":");
      snprintf(name, sizeof name, "ParLoT timeline (%s%s%s; %s)",
               axis_name(tl.axis), *origin ? ", from " : "", origin,
               *tl.view ? tl.view : "every call");
      outbuf_json_str(o, name, strlen(name));
      outbuf_str(o, ",\"activeProfileIndex\":0,"
                    "\"exporter\":\"parlot-decode\"}\n");
   }
   /* Perfetto's and speedscope's viewers load a few hundred MB of JSON
      (some 2 M frames, 2 events each) at most: say how to bound a larger document */
   if (tl.calls > PL_TIMELINE_MANY_CALLS)
      fprintf(stderr, "parlot-decode: note: the timeline has %llu calls, "
              "more than viewers load; --images, --max-depth, --range, "
              "--from-mark, --to-mark or --select bound it\n",
              (unsigned long long)tl.calls);
   free_frames(&tl.frames);
   free(tl.open);
   memset(&tl, 0, sizeof tl);
   return 0;
}

/* The frame number of (file, name), added if new; -1 if out of memory. */
static long frame_of(frame_table *f, const char *file, const char *name)
{
   uint64_t h = pl_fnv1a(pl_fnv1a(PL_FNV1A_INIT, file, strlen(file) + 1),
                         name, strlen(name));
   size_t s;

   if (2 * (f->n + 1) > f->slots) {
      size_t slots = f->slots ? 2 * f->slots : 1024, i;
      uint32_t *t = calloc(slots, sizeof *t);
      if (!t)
         return -1;
      for (i = 0; i < f->n; i++) {
         s = (size_t)pl_golden_slot(f->hash[i], 63) & (slots - 1);
         while (t[s])
            s = (s + 1) & (slots - 1);
         t[s] = (uint32_t)i + 1;
      }
      free(f->slot);
      f->slot = t;
      f->slots = slots;
   }
   s = (size_t)pl_golden_slot(h, 63) & (f->slots - 1);
   for (; f->slot[s]; s = (s + 1) & (f->slots - 1)) {
      size_t i = f->slot[s] - 1;
      if (f->hash[i] == h && strcmp(f->name[i], name) == 0
          && strcmp(f->file[i], file) == 0)
         return (long)i;
   }
   if (pl_grow(&f->name, &f->cap, f->n + 1, sizeof *f->name) < 0)
      return -1;
   f->file = realloc(f->file, f->cap * sizeof *f->file);
   f->hash = realloc(f->hash, f->cap * sizeof *f->hash);
   if (!f->file || !f->hash)
      return -1;
   f->name[f->n] = strdup(name);
   f->file[f->n] = strdup(file);
   if (!f->name[f->n] || !f->file[f->n])
      return -1;
   f->hash[f->n] = h;
   f->slot[s] = (uint32_t)f->n + 1;
   return (long)f->n++;
}

/* A thread's time: ns since the epoch as µs since the origin, its
   instructions (/1000 for Chrome's µs) or its events. */
static void put_time(outbuf *o, int axis, uint64_t t)
{
   if (axis == AXIS_WALL) {
      if (t < tl.origin) {
         outbuf_str(o, "-");
         t = tl.origin - t;
      } else {
         t -= tl.origin;
      }
   }
   if (axis == AXIS_WALL
       || (axis == AXIS_INSNS && tl.format == PL_TIMELINE_CHROME))
      outbuf_printf(o, "%llu.%03llu", (unsigned long long)(t / 1000),
                    (unsigned long long)(t % 1000));
   else
      outbuf_u64(o, t);
}

/* One begin or end of a frame. */
static void put_event(outbuf *o, int call, uint32_t frame, const char *name,
                      size_t nlen, const char *pid, uint32_t tid, int axis,
                      uint64_t t)
{
   outbuf_str(o, tl.written++ ? ",\n" : "");
   tl.calls += call != 0;
   if (tl.format == PL_TIMELINE_CHROME) {
      outbuf_str(o, call ? "{\"ph\":\"B\",\"name\":" : "{\"ph\":\"E\"");
      if (call)
         outbuf_json_str(o, name, nlen);
      outbuf_printf(o, ",\"pid\":%s,\"tid\":%u,\"ts\":", pid, tid);
      put_time(o, axis, t);
      outbuf_str(o, "}");
   } else {
      outbuf_printf(o, "{\"type\":\"%s\",\"frame\":%u,\"at\":",
                    call ? "O" : "C", frame);
      put_time(o, axis, t);
      outbuf_str(o, "}");
   }
}

/* The names of a process and a thread (Chrome's metadata events). */
static void put_names(outbuf *o, const char *pid, const char *rank,
                      const char *label, uint32_t tid, int axis, int first)
{
   if (first) {
      outbuf_str(o, tl.written++ ? ",\n" : "");
      outbuf_printf(o, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%s,"
                    "\"args\":{\"name\":", pid);
      if (rank) {
         char b[96];
         snprintf(b, sizeof b, "rank %s (pid %s)", rank, pid);
         outbuf_json_str(o, b, strlen(b));
      } else {
         char b[64];
         snprintf(b, sizeof b, "pid %s", pid);
         outbuf_json_str(o, b, strlen(b));
      }
      outbuf_str(o, "}}");
      if (rank)
         outbuf_printf(o, ",\n{\"ph\":\"M\",\"name\":\"process_sort_index\","
                       "\"pid\":%s,\"args\":{\"sort_index\":%s}}", pid, rank);
   }
   outbuf_str(o, tl.written++ ? ",\n" : "");
   outbuf_printf(o, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%s,"
                 "\"tid\":%u,\"args\":{\"name\":", pid, tid);
   outbuf_json_str(o, label, strlen(label));
   outbuf_printf(o, ",\"time_axis\":\"%s\"}}", axis_name(axis));
}

/* The pid, as a JSON number ("0" if the trace has none). */
static const char *pid_of(const pl_trace *t)
{
   const char *pid = pl_trace_process_get(t, "pid");
   return pid && *pid && strspn(pid, "0123456789") == strlen(pid) ? pid : "0";
}

static const char *object_of(const pl_trace *t, uint32_t fn)
{
   return pl_trace_object(t, pl_trace_function(t, fn)->obj)->str;
}

/* The thread being written. */
typedef struct {
   outbuf     *o;
   pl_trace   *t;
   const trace_labels *nm;
   long       *frames;
   const char *pid;
   uint32_t    tid;
   int         axis;
   size_t      depth;        /* open frames */
   uint64_t    now;          /* the time of the last event written */
   uint64_t    x;            /* the thread's instructions (with costs) or
                                its last event's number, so far */
   uint64_t    x_before;     /* x before the event being taken */
   /* AXIS_WALL: the stamps; events wait until the next stamp's time is
      known, then take times in proportion to x between two stamps */
   const pl_time_stamp *st;
   size_t      nst, next;    /* next: the first stamp not yet passed */
   uint64_t    x_prev;       /* x at the last stamp passed ... */
   uint64_t    t_prev;       /* ... and its time */
   double      rate;         /* ns per unit of x so far: for events after
                                the last stamp */
   uint32_t   *p_fn;         /* the waiting events: function (0: a return) */
   uint64_t   *p_x;          /* and x after each */
   size_t      np, p_cap;
} thread_out;

/* Write one event at time `when`. */
static int write_event(thread_out *w, uint32_t fn, uint64_t when,
                       pl_error *err)
{
   w->now = when;
   if (fn) {
      if (w->frames[fn] < 0
          && (w->frames[fn] = frame_of(&tl.frames, object_of(w->t, fn),
                                       trace_label(w->nm, fn))) < 0)
         goto oom;
      if (pl_grow(&tl.open, &tl.open_cap, w->depth + 1, sizeof *tl.open) < 0)
         goto oom;
      tl.open[w->depth++] = (uint32_t)w->frames[fn];
      put_event(w->o, 1, (uint32_t)w->frames[fn], trace_label(w->nm, fn),
                trace_label_len(w->nm, fn), w->pid, w->tid, w->axis, when);
   } else if (w->depth > 0) {
      w->depth--;
      put_event(w->o, 0, tl.open[w->depth], NULL, 0, w->pid, w->tid,
                w->axis, when);
   }
   return 0;
oom:
   pl_error_set(err, 0, "out of memory");
   return -1;
}

/* The waiting events, between the last stamp passed and one at time
   t_next after x_next; or, with no stamp after them (a thread cut short),
   at the thread's average rate. */
static int flush_waiting(thread_out *w, int have_next, uint64_t x_next,
                         uint64_t t_next, pl_error *err)
{
   for (size_t i = 0; i < w->np; i++) {
      uint64_t when;
      if (!have_next)
         when = w->t_prev + (uint64_t)(w->rate * (double)(w->p_x[i] - w->x_prev));
      else if (x_next > w->x_prev)
         when = w->t_prev + (uint64_t)((double)(t_next - w->t_prev)
                * (double)(w->p_x[i] - w->x_prev)
                / (double)(x_next - w->x_prev));
      else        /* no progress of x: spread by count */
         when = w->t_prev + (t_next - w->t_prev) * (i + 1) / w->np;
      if (when < w->now)      /* a clock set back: never back */
         when = w->now;
      if (write_event(w, w->p_fn[i], when, err) < 0)
         return -1;
   }
   w->np = 0;
   return 0;
}

/* Event number `number` (its function, 0 for a return) with x after it. */
static int take_event(thread_out *w, uint32_t fn, uint64_t number,
                      pl_error *err)
{
   if (w->axis != AXIS_WALL)
      return write_event(w, fn, w->x, err);
   /* stamps taken before this event end the waiting events' segment */
   while (w->next < w->nst && w->st[w->next].position < number) {
      const pl_time_stamp *s = &w->st[w->next++];
      if (flush_waiting(w, 1, w->x_before, (uint64_t)s->ns, err) < 0)
         return -1;
      w->x_prev = w->x_before;
      w->t_prev = (uint64_t)s->ns;
      if (w->x_prev > 0)
         w->rate = (double)(w->t_prev - (uint64_t)w->st[0].ns)
                   / (double)w->x_prev;
   }
   if (pl_grow(&w->p_fn, &w->p_cap, w->np + 1, sizeof *w->p_fn) < 0
       || (w->p_x = realloc(w->p_x, w->p_cap * sizeof *w->p_x)) == NULL) {
      pl_error_set(err, 0, "out of memory");
      return -1;
   }
   w->p_fn[w->np] = fn;
   w->p_x[w->np++] = w->x;
   return 0;
}

/* Whether a thread's stamps make a time axis (two, the clock moving),
   which then starts at the first (the document's origin follows the
   first such thread). */
static int wall_axis(thread_out *w)
{
   if (w->nst < 2 || w->st[w->nst - 1].ns <= w->st[0].ns
       || w->st[0].ns < 0)
      return 0;
   w->t_prev = (uint64_t)w->st[0].ns;
   w->x_prev = 0;
   if (!tl.origin)
      tl.origin = w->t_prev / 1000000000u * 1000000000u
                  - (w->t_prev > ORIGIN_BEFORE_NS ? ORIGIN_BEFORE_NS : 0);
   return 1;
}

/* One thread: its events, then the frames left open closed. */
static int write_thread(outbuf *o, pl_trace *t, size_t index,
                        const trace_labels *nm, long *frames,
                        const pl_decode_opts *opts, const uint8_t *keep,
                        int first, pl_error *err)
{
   const char *rank = pl_trace_process_get(t, "mpi_rank");
   int costs = pl_trace_cost_events(t, index) != 0;
   thread_out w;
   char label[128];
   const pl_vevent *ev;
   pl_view *v;
   long n;

   memset(&w, 0, sizeof w);
   w.o = o;
   w.t = t;
   w.nm = nm;
   w.frames = frames;
   w.pid = pid_of(t);
   w.tid = pl_trace_thread(t, index)->number;
   w.st = pl_trace_times(t, index, &w.nst);
   w.axis = wall_axis(&w) ? AXIS_WALL : costs ? AXIS_INSNS : AXIS_EVENTS;
   thread_label(label, sizeof label, w.pid, rank, w.tid);
   if (!(v = pl_view_open(t, index, opts->filter, keep, err)))
      return -1;
   tl.axis |= w.axis;
   if (tl.format == PL_TIMELINE_CHROME) {
      put_names(o, w.pid, rank, label, w.tid, w.axis, first);
   } else {
      char name[192];
      if (rank)
         snprintf(name, sizeof name, "%s (pid %s)", label, w.pid);
      else
         snprintf(name, sizeof name, "%s", label);
      outbuf_str(o, tl.written++ ? ",\n" : "");
      outbuf_str(o, "{\"type\":\"evented\",\"name\":");
      outbuf_json_str(o, name, strlen(name));
      outbuf_printf(o, ",\"unit\":\"%s\",\"startValue\":",
                    w.axis == AXIS_WALL ? "microseconds" : "none");
      put_time(o, w.axis, w.axis == AXIS_WALL ? w.t_prev : 0);
      outbuf_str(o, ",\"events\":[\n");
      tl.written = 0;
   }
   w.now = w.axis == AXIS_WALL ? w.t_prev : 0;
   while ((n = pl_view_next(v, &ev, err)) > 0 && !o->err) {
      const uint64_t *cost = pl_view_costs(v);
      for (long i = 0; i < n; i++) {
         w.x_before = w.x;
         w.x = costs ? w.x + (cost ? cost[i] : 0) : ev[i].number;
         if (take_event(&w, ev[i].kind == PL_EV_CALL ? ev[i].fn : 0,
                        ev[i].number, err) < 0) {
            n = -1;
            break;
         }
      }
      if (n < 0)
         break;
   }
   if (w.axis == AXIS_WALL && n == 0) {
      /* the stamp after the last events, if any (the thread's end) */
      int have = w.next < w.nst;
      if (flush_waiting(&w, have, w.x, have ? (uint64_t)w.st[w.nst - 1].ns
                                            : 0, err) < 0)
         n = -1;
   }
   while (w.depth > 0)
      write_event(&w, 0, w.now, err);
   pl_view_close(v);
   free(w.p_fn);
   free(w.p_x);
   if (tl.format == PL_TIMELINE_SPEEDSCOPE) {
      outbuf_str(o, "],\"endValue\":");
      put_time(o, w.axis, w.now);
      outbuf_str(o, "}");
      tl.written = 1;       /* the next profile takes a comma */
   }
   return n < 0 ? -1 : 0;
}

int pl_mode_timeline_file(pl_trace *t, outbuf *o, pl_error *err,
                          const pl_decode_opts *opts)
{
   const char *pid = pid_of(t);
   size_t i, nthreads = pl_trace_nthreads(t);
   uint32_t nfns = pl_trace_nfunctions(t), id;
   trace_labels nm;
   long *frames = NULL;
   uint8_t *keep = NULL;
   int ret = 0, first = 1;

   if (nthreads == 0)
      return 0;
   if (trace_labels_load(&nm, t, opts->demangle) < 0
       || !(frames = calloc((size_t)nfns + 1, sizeof *frames))
       || !(keep = pl_filter_functions(opts->filter, t, opts->demangle))) {
      ret = -1;
      goto oom;
   }
   /* speedscope's frame numbers, found at each function's first call */
   for (id = 1; id <= nfns; id++)
      frames[id] = tl.format == PL_TIMELINE_SPEEDSCOPE ? -1 : 0;
   for (i = 0; i < nthreads && ret == 0 && !o->err; i++) {
      uint32_t number = pl_trace_thread(t, i)->number;
      if (!pl_select_match(&opts->select, pid, number))
         continue;
      ret = write_thread(o, t, i, &nm, frames, opts, keep, first, err);
      first = 0;
   }
   trace_labels_free(&nm);
   free(frames);
   free(keep);
   return ret;
oom:
   trace_labels_free(&nm);
   free(frames);
   free(keep);
   pl_error_set(err, 0, "out of memory");
   return -1;
}
