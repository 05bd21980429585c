/* SPDX-License-Identifier: MIT */
/* Reading traces into a program (pl_program.h): the process records, the
   program-wide function table, and each selected thread's call graph. */
#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_callgraph.h"
#include "pl_frames.h"
#include "pl_hash.h"
#include "pl_names.h"
#include "pl_archive.h"
#include "pl_alloc.h"
#include "pl_paths.h"
#include "pl_program.h"
#include "pl_program_private.h"
#include "pl_runtime.h"
#include "pl_view.h"
#include "pl_view_ahead.h"

/* What pl_program keeps behind its `internal` pointer: program function
   IDs by (object, name, dup), open addressing over the IDs keyed by a
   hash of the three; and the filter reads go through. */
struct pl_program_internal {
   uint32_t        *slot;         /* function ID, 0 = empty */
   size_t           cap;          /* power of two */
   const pl_filter *filter;       /* NULL: everything */
   struct proc_extra *procs;      /* [proc]: what pl_process lacks */
   size_t           procs_cap;
   int              read_ahead;    /* pl_program_set_read_ahead */
};

/* Per process, kept here so that pl_process keeps its layout. */
struct proc_extra {
   char     *recording;           /* pl_trace_recording(), or NULL */
   pl_ending ending;
   uint64_t  order_mpi;           /* pl_program_order_mpi */
};

/* p->internal, allocated on first use; NULL if out of memory. */
static struct pl_program_internal *get_internal(pl_program *p)
{
   if (!p->internal)
      p->internal = calloc(1, sizeof *p->internal);
   return p->internal;
}

/* Process proc's extra slot, made on first use; NULL if out of memory. */
static struct proc_extra *extra_of(pl_program *p, size_t proc)
{
   struct pl_program_internal *in = get_internal(p);
   size_t old;
   if (!in)
      return NULL;
   old = in->procs_cap;
   if (pl_grow(&in->procs, &in->procs_cap, proc + 1, sizeof *in->procs) < 0)
      return NULL;
   memset(in->procs + old, 0, (in->procs_cap - old) * sizeof *in->procs);
   return &in->procs[proc];
}

int pl_program_set_process(pl_program *p, size_t proc, const char *recording,
                           const pl_ending *ending)
{
   struct proc_extra *x = extra_of(p, proc);
   if (!x)
      return -1;
   free(x->recording);
   x->recording = NULL;
   x->ending = *ending;
   return recording && !(x->recording = strdup(recording)) ? -1 : 0;
}

int pl_program_set_order_mpi(pl_program *p, size_t proc, uint64_t order)
{
   struct proc_extra *x = extra_of(p, proc);
   if (!x)
      return -1;
   x->order_mpi = order;
   return 0;
}

uint64_t pl_program_order_mpi(const pl_program *p, size_t proc)
{
   const struct pl_program_internal *in = p->internal;
   return in && proc < in->procs_cap ? in->procs[proc].order_mpi : 0;
}

const char *pl_program_recording(const pl_program *p, size_t proc)
{
   const struct pl_program_internal *in = p->internal;
   return in && proc < in->procs_cap ? in->procs[proc].recording : NULL;
}

void pl_program_ending(const pl_program *p, size_t proc, pl_ending *e)
{
   const struct pl_program_internal *in = p->internal;
   if (in && proc < in->procs_cap) {
      *e = in->procs[proc].ending;
      return;
   }
   memset(e, 0, sizeof *e);      /* cut short: nothing known */
   e->status = -1;
}

int pl_program_set_filter(pl_program *p, const pl_filter *f)
{
   if (!get_internal(p))
      return -1;
   p->internal->filter = pl_filter_active(f) ? f : NULL;
   return 0;
}

int pl_program_set_read_ahead(pl_program *p, int on)
{
   if (!get_internal(p))
      return -1;
   p->internal->read_ahead = on;
   return 0;
}

const pl_filter *pl_program_filter(const pl_program *p)
{
   return p->internal ? p->internal->filter : NULL;
}

static uint64_t key_hash(const char *obj, const char *name, uint32_t dup)
{
   uint64_t h = PL_FNV1A_INIT;
   h = pl_fnv1a(h, obj, strlen(obj) + 1);
   h = pl_fnv1a(h, name, strlen(name) + 1);
   return pl_fnv1a(h, &dup, sizeof dup);
}

void pl_program_init(pl_program *p, int demangle)
{
   memset(p, 0, sizeof *p);
   p->demangle = demangle;
}

void pl_graph_free(pl_graph *g)
{
   free(g->fns);
   free(g->edges);
   memset(g, 0, sizeof *g);
}

void pl_gfunc_free(pl_gfunc *f)
{
   if (f->label != f->shown)
      free(f->label);
   if (f->shown != f->name)
      free(f->shown);
   free(f->name);
   free(f->object);
}

void pl_program_free(pl_program *p)
{
   uint32_t i;
   size_t k;

   for (i = 1; i <= p->nfns; i++)
      pl_gfunc_free(&p->fns[i]);
   free(p->fns);
   for (k = 0; k < p->nprocs; k++) {
      pl_process *pr = &p->procs[k];
      free(pr->path);
      free(pr->pid);
      free(pr->ppid);
      free(pr->exe);
      free(pr->cmd);
      free(pr->rank);
      free(pr->role);
   }
   free(p->procs);
   for (k = 0; k < p->nthreads; k++)
      pl_graph_free(&p->threads[k].g);
   free(p->threads);
   if (p->internal) {
      for (k = 0; k < p->internal->procs_cap; k++)
         free(p->internal->procs[k].recording);
      free(p->internal->procs);
      free(p->internal->slot);
   }
   free(p->internal);
   memset(p, 0, sizeof *p);
}

static int index_insert(struct pl_program_internal *ix, const pl_gfunc *fns,
                        uint32_t id)
{
   const pl_gfunc *f = &fns[id];
   size_t s = key_hash(f->object, f->name, f->dup) & (ix->cap - 1);
   while (ix->slot[s])
      s = (s + 1) & (ix->cap - 1);
   ix->slot[s] = id;
   return 0;
}

static int index_grow(pl_program *p)
{
   struct pl_program_internal *ix = p->internal;
   size_t cap = ix->cap ? 2 * ix->cap : 1024;
   uint32_t id;

   free(ix->slot);
   ix->slot = calloc(cap, sizeof *ix->slot);
   if (!ix->slot)
      return -1;
   ix->cap = cap;
   for (id = 1; id <= p->nfns; id++)
      index_insert(ix, p->fns, id);
   return 0;
}

/* The program ID of (object, name, dup), added if new; 0 if out of
   memory. */
static uint32_t intern(pl_program *p, const char *obj, const pl_name *name,
                       uint32_t dup)
{
   size_t s;
   pl_gfunc *f;

   if (!get_internal(p))
      return 0;
   if (p->internal->cap) {
      s = key_hash(obj, name->str, dup) & (p->internal->cap - 1);
      for (; p->internal->slot[s]; s = (s + 1) & (p->internal->cap - 1)) {
         f = &p->fns[p->internal->slot[s]];
         if (f->dup == dup && strcmp(f->name, name->str) == 0
             && strcmp(f->object, obj) == 0)
            return p->internal->slot[s];
      }
   }
   if (pl_grow(&p->fns, &p->fns_cap, (size_t)p->nfns + 2, sizeof *p->fns) < 0)
      return 0;
   if (p->nfns == 0)
      memset(&p->fns[0], 0, sizeof p->fns[0]);
   if (2 * ((size_t)p->nfns + 1) > p->internal->cap && index_grow(p) < 0)
      return 0;
   f = &p->fns[p->nfns + 1];
   memset(f, 0, sizeof *f);
   f->object = strdup(obj);
   f->name = strdup(name->str);
   if (!f->object || !f->name) {
      free(f->object);
      free(f->name);
      return 0;
   }
   f->shown = p->demangle ? pl_demangle(name->str, name->len) : NULL;
   if (!f->shown)
      f->shown = f->name;
   f->dup = dup;
   f->label = f->shown;
   if (dup) {
      size_t n = strlen(f->shown) + 16;
      f->label = malloc(n);
      if (f->label)
         snprintf(f->label, n, "%s #%u", f->shown, dup + 1);
      else
         f->label = f->shown;
   }
   f->ident = pl_path_ident(f->name, f->object);
   p->nfns++;
   index_insert(p->internal, p->fns, p->nfns);
   return p->nfns;
}

/* Sort order for dup numbering: object, name, then address (then the
   trace's ID, so that the order never depends on qsort).  The keys carry
   their strings: no global sort context, so traces can be read by
   several threads at once (pl_parallel.h). */
typedef struct {
   const char *obj, *name;
   uint64_t    addr;
   uint32_t    id;
} fn_key;

static int by_obj_name_addr(const void *a, const void *b)
{
   const fn_key *x = a, *y = b;
   int c;
   if (x->obj != y->obj) {
      c = strcmp(x->obj, y->obj);
      if (c)
         return c;
   }
   c = strcmp(x->name, y->name);
   if (c)
      return c;
   if (x->addr != y->addr)
      return x->addr < y->addr ? -1 : 1;
   return x->id < y->id ? -1 : x->id > y->id;
}

/* fn_map[trace ID] = program ID for every function of t. */
static uint32_t *map_functions(pl_program *p, const pl_trace *t)
{
   uint32_t n = pl_trace_nfunctions(t), i, dup = 0;
   fn_key *order = malloc(((size_t)n + 1) * sizeof *order);
   uint32_t *map = calloc((size_t)n + 1, sizeof *map);

   if (!order || !map)
      goto fail;
   for (i = 0; i < n; i++) {
      const pl_function *f = pl_trace_function(t, i + 1);
      order[i].obj = pl_trace_object(t, f->obj)->str;
      order[i].name = f->name.str;
      order[i].addr = f->addr;
      order[i].id = i + 1;
   }
   qsort(order, n, sizeof *order, by_obj_name_addr);
   for (i = 0; i < n; i++) {
      const pl_function *f = pl_trace_function(t, order[i].id);
      if (i > 0) {
         if (strcmp(order[i - 1].name, order[i].name) == 0
             && strcmp(order[i - 1].obj, order[i].obj) == 0)
            dup++;
         else
            dup = 0;
      }
      map[order[i].id] = intern(p, order[i].obj, &f->name, dup);
      if (!map[order[i].id])
         goto fail;
   }
   free(order);
   return map;
fail:
   free(order);
   free(map);
   return NULL;
}

static char *dup_or_empty(const char *s)
{
   return strdup(s ? s : "");
}

static int add_process(pl_program *p, const pl_trace *t, const char *path)
{
   pl_process *pr;
   const char *rank = pl_trace_process_get(t, "mpi_rank");
   const char *role = pl_trace_process_get(t, "role");
   pl_ending ending;

   if (pl_grow(&p->procs, &p->procs_cap, p->nprocs + 1, sizeof *p->procs) < 0)
      return -1;
   pr = &p->procs[p->nprocs];
   memset(pr, 0, sizeof *pr);
   pr->path = strdup(path);
   pr->pid = dup_or_empty(pl_trace_process_get(t, "pid"));
   pr->ppid = dup_or_empty(pl_trace_process_get(t, "ppid"));
   pr->exe = dup_or_empty(pl_trace_process_get(t, "exe"));
   pr->cmd = pl_trace_command(t);
   pr->rank = rank ? strdup(rank) : NULL;
   pr->role = role ? strdup(role) : NULL;
   pr->end = pl_trace_end(t);
   pr->first_thread = p->nthreads;
   pr->nthreads_all = pl_trace_nthreads(t);
   p->nprocs++;
   pl_trace_ending(t, &ending);
   if (pl_program_set_process(p, p->nprocs - 1, pl_trace_recording(t),
                              &ending) < 0)
      return -1;
   if (!pr->path || !pr->pid || !pr->ppid || !pr->exe || !pr->cmd
       || (rank && !pr->rank) || (role && !pr->role))
      return -1;
   return 0;
}

static void oom(pl_error *err)
{
   err->offset = 0;
   snprintf(err->msg, sizeof err->msg, "out of memory");
}

int pl_program_read(pl_program *p, const char *path, const pl_select *sel,
                    const pl_visitor *v, pl_error *err)
{
   pl_input in;
   memset(&in, 0, sizeof in);
   in.path = in.name = (char *)path;
   in.size = PL_TRACE_WHOLE_FILE;
   return pl_program_read_input(p, &in, sel, v, err);
}

/* Whether thread i's recording restarted inside calls (its stream then
   has entries that re-create open frames: frames, not calls). */
static int recreates(const pl_trace *t, size_t i)
{
   size_t n, k;
   const pl_tracing *g = pl_trace_tracing(t, i, &n);
   for (k = 0; k < n; k++)
      if (g[k].recreated)
         return 1;
   return 0;
}

/* Hand a batch to the visitor: with its costs if it has them and the
   visitor takes them. */
static int visit(const pl_visitor *v, const pl_event *ev, const uint64_t *cost,
                 size_t n)
{
   if (cost && v->events_costs)
      return v->events_costs(v->ctx, ev, cost, n);
   return v->events ? v->events(v->ctx, ev, n) : 0;
}

/* The next batch of a thread that re-creates frames: as pl_event in *ev
   for the visitor, and to the graph builder with each run of re-created
   entries announced first.  The count, 0 at the end, -1 (*err set), or
   -2 if out of memory. */
static long next_recreating(pl_view *view, pl_cg_builder *b,
                            const pl_event **ev, pl_error *err)
{
   const pl_vevent *ve;
   long n = pl_view_next(view, &ve, err), i, j;

   if (n <= 0)
      return n;
   if (!(*ev = pl_view_batch_events(view)))
      return -2;
   for (i = 0; i < n; i = j) {
      uint32_t rec = ve[i].flags & PL_VEV_RECREATED;
      for (j = i + 1; j < n && (ve[j].flags & PL_VEV_RECREATED) == rec; j++)
         ;
      const uint64_t *c = pl_view_costs(view);
      if (rec)
         pl_cg_recreated(b, (uint32_t)(j - i));
      if (pl_cg_events_costs(b, *ev + i, c ? c + i : NULL,
                             (size_t)(j - i)) < 0)
         return -2;
   }
   return n;
}

/* How many of the `inherited` leading calls of thread i (a forked child's
   re-created stack) f shows: they are the first events of the stream. */
static uint32_t shown_inherited(const pl_trace *t, size_t i,
                                const pl_filter *f, const uint8_t *keep,
                                uint32_t inherited)
{
   pl_error e;
   pl_view *v;
   const pl_vevent *ev;
   uint32_t shown = 0;
   long n, k;

   if (!f || !inherited)
      return inherited;
   if (!(v = pl_view_open(t, i, f, keep, &e)))
      return 0;
   pl_view_skip_costs(v);
   while (pl_view_events(v) < inherited
          && (n = pl_view_next(v, &ev, &e)) > 0)
      for (k = 0; k < n; k++)
         if (ev[k].number <= inherited)
            shown++;
   pl_view_close(v);
   return shown;
}

/* The order of a thread's calls in the program's view, hashed as the
   events go by (pl_thread.order): each shown call's depth among shown
   calls and its function's identity, which is the same in every trace
   and every worker's program.  Beside it the order of the shown calls
   that lead to an MPI call, hashed as they return, so that a call is
   known to lead to one (pl_program_order_mpi): the root's order without
   its own work (pl_outliers.h).  Raw events only (no filter). */
typedef struct {
   uint64_t ident;
   int      mpi;           /* it is, or a call inside it was, MPI's */
} order_frame;

typedef struct {
   const uint8_t *keep;    /* the program's view of the trace */
   const uint8_t *stop;    /* pl_frames_stops of keep */
   const uint8_t *mpi;     /* [trace fn]: the MPI interface */
   pl_frames      frames;
   order_frame   *open;    /* the shown calls open, [depth - 1] */
   size_t         cap;
   uint32_t       depth;   /* shown calls open */
   uint64_t       h, h_mpi;
   int            broken;  /* out of memory: no order */
} order_sig;

/* The top shown call returns. */
static void order_close(order_sig *o)
{
   order_frame *f = &o->open[--o->depth];
   if (!f->mpi)
      return;
   o->h_mpi = pl_fnv1a_step(pl_fnv1a_step(o->h_mpi, o->depth + 1), f->ident);
   if (o->depth)
      o->open[o->depth - 1].mpi = 1;
}

static void order_feed(order_sig *o, const pl_program *p,
                       const uint32_t *fn_map, const pl_event *ev, long n)
{
   long i;
   for (i = 0; i < n && !o->broken; i++) {
      uint32_t d = ev[i].depth;
      uint64_t ident;
      if (ev[i].kind != PL_EV_CALL) {
         if (pl_frames_return(&o->frames, d) && o->depth)
            order_close(o);
         d--;
      } else {
         switch (pl_frames_call(&o->frames, o->keep, ev[i].fn, d)) {
         case -1:
            o->broken = 1;
            break;
         case 1:
            if (pl_grow(&o->open, &o->cap, o->depth + 1,
                        sizeof *o->open) < 0) {
               o->broken = 1;
               break;
            }
            ident = p->fns[fn_map[ev[i].fn]].ident;
            o->open[o->depth++] = (order_frame){ ident, o->mpi[ev[i].fn] };
            o->h = pl_fnv1a_step(pl_fnv1a_step(o->h, o->depth), ident);
            break;
         }
      }
      /* what a library call does inside shows nothing (d: the top) */
      if (!pl_frames_own(&o->frames, d))
         i += (long)pl_frames_inside(ev + i + 1, (size_t)(n - i - 1), d,
                                     o->stop);
   }
}

/* The calls still open at the end (a run that did not finish) return:
   th's order, and the order of its calls that lead to MPI (0 if not
   known). */
static uint64_t order_finish(order_sig *o, pl_thread *th)
{
   uint64_t h_mpi = 0;
   while (o->depth)
      order_close(o);
   if (!o->broken) {
      th->order = o->h ? o->h : 1;
      h_mpi = o->h_mpi ? o->h_mpi : 1;
   }
   free(o->frames.st);
   free(o->open);
   return h_mpi;
}

/* [id]: whether trace function id is the MPI interface; NULL if out of
   memory.  MPI's polls leave the program's view (keep) of the order: how
   many a rank makes is the timing's. */
static uint8_t *mpi_functions(pl_trace *t, uint8_t *keep)
{
   uint32_t id, n = pl_trace_nfunctions(t);
   uint8_t *mpi = malloc((size_t)n + 1);
   if (!mpi)
      return NULL;
   mpi[0] = 0;
   for (id = 1; id <= n; id++) {
      const char *name = pl_trace_function(t, id)->name.str;
      mpi[id] = (uint8_t)pl_runtime_mpi_interface(name);
      if (pl_runtime_mpi_poll(name))
         keep[id] = 0;
   }
   return mpi;
}

int pl_program_read_input(pl_program *p, const pl_input *in,
                          const pl_select *sel, const pl_visitor *v,
                          pl_error *err)
{
   const char *path = in->name;
   const pl_filter *filter = pl_program_filter(p);
   pl_trace *t = pl_input_open(in, err);
   uint32_t *fn_map = NULL;
   uint8_t *keep = NULL, *prog_keep = NULL, *prog_stop = NULL, *mpi = NULL;
   pl_filter *prog_view = NULL;
   pl_cg_builder *b = NULL;
   pl_process *pr;
   size_t i, nth;
   uint64_t order_mpi;    /* the process's, its threads' in turn */
   int mpi_known, ret = 0;

   if (!t)
      return -1;
   /* read raw, the order of the program's view can be had on the way; it
      costs a tenth of the read, so only MPI ranks (what outliers compare
      by order) pay for it */
   if (!pl_filter_active(filter) && pl_trace_process_get(t, "mpi_rank")) {
      if (!(prog_view = pl_filter_new())) {
         pl_trace_close(t);
         oom(err);
         return -1;
      }
      pl_filter_default_program(prog_view);
   }
   if (p->progress && p->progress->file)
      p->progress->file(p->progress->ctx, path);
   if (add_process(p, t, path) < 0
       || !(fn_map = map_functions(p, t))
       || (filter && !(keep = pl_filter_functions(filter, t, p->demangle)))
       || (prog_view && !(prog_keep = pl_filter_functions(prog_view, t,
                                                           p->demangle)))
       || (prog_view && !(mpi = mpi_functions(t, prog_keep)))
       || (prog_view && !(prog_stop = pl_frames_stops(prog_keep,
                                                      pl_trace_nfunctions(t))))
       || !(b = pl_cg_new(pl_trace_nfunctions(t)))) {
      oom(err);
      ret = -1;
      goto out;
   }
   pr = &p->procs[p->nprocs - 1];
   order_mpi = PL_FNV1A_INIT;
   mpi_known = prog_view != NULL;
   nth = pl_trace_nthreads(t);
   for (i = 0; i < nth; i++) {
      const pl_thread_info *ti = pl_trace_thread(t, i);
      pl_thread *th;
      pl_view *view;
      pl_view_ahead *ahead = NULL;
      const pl_event *ev;
      const uint64_t *costs;
      uint64_t position;
      int slow;
      pl_error e;
      uint64_t events = 0;
      order_sig os;
      long n;

      if (!pl_select_match(sel, pr->pid, ti->number))
         continue;
      if (pl_grow(&p->threads, &p->threads_cap, p->nthreads + 1,
                  sizeof *p->threads) < 0
          || !(view = pl_view_open(t, i, filter, keep, &e))) {
         oom(err);
         ret = -1;
         goto out;
      }
      th = &p->threads[p->nthreads++];
      memset(th, 0, sizeof *th);
      th->proc = p->nprocs - 1;
      th->number = ti->number;
      th->parent = ti->parent;
      th->inherited = shown_inherited(t, i, filter, keep,
                                      ti->inherited_depth);
      pr->nthreads++;
      if (p->progress && p->progress->thread)
         p->progress->thread(p->progress->ctx, i, nth,
                             pl_trace_stream_bytes(t, i));
      pl_cg_begin(b, th->inherited);
      if (v && v->thread_begin
          && v->thread_begin(v->ctx, p, p->nthreads - 1, fn_map) < 0) {
         pl_view_close(view);
         oom(err);
         ret = -1;
         goto out;
      }
      slow = recreates(t, i);
      if (!slow && p->internal && p->internal->read_ahead)
         ahead = pl_view_ahead_start(view);   /* NULL: read here */
      memset(&os, 0, sizeof os);
      os.keep = prog_keep;
      os.stop = prog_stop;
      os.mpi = mpi;
      os.h = os.h_mpi = PL_FNV1A_INIT;
      for (;;) {
         if (ahead) {
            n = pl_view_ahead_next(ahead, &ev, &costs, &position, &e);
         } else {
            n = slow ? next_recreating(view, b, &ev, &e)
                     : pl_view_next_events(view, &ev, &e);
            costs = pl_view_costs(view);
            position = pl_view_position(view);
         }
         if (n > 0 && !slow
             && pl_cg_events_costs(b, ev, costs, (size_t)n) < 0)
            n = -2;
         if (n <= 0)
            break;
         if (v && visit(v, ev, costs, (size_t)n) < 0) {
            n = -2;
            break;
         }
         if (os.keep)
            order_feed(&os, p, fn_map, ev, n);
         events += (uint64_t)n;
         if (p->progress && p->progress->update)
            p->progress->update(p->progress->ctx, position, events);
      }
      pl_view_ahead_stop(ahead);
      pl_view_close(view);
      if (os.keep) {
         uint64_t h = order_finish(&os, th);
         mpi_known &= h != 0;
         order_mpi = pl_fnv1a_step(pl_fnv1a_step(order_mpi, th->number), h);
      }
      if (v && v->thread_end)
         v->thread_end(v->ctx);
      if (pl_cg_end(b, fn_map, &th->g) < 0 || n == -2) {
         oom(err);
         ret = -1;
         goto out;
      }
      /* with a range: all of the range was read */
      th->complete = n == 0;
      if (n < 0 && ret == 0) {
         /* a corrupt stream: the other threads are still readable */
         *err = e;
         ret = 1;
      }
   }
   if (pl_program_set_order_mpi(p, p->nprocs - 1,
                                !mpi_known ? 0 : order_mpi ? order_mpi : 1) < 0) {
      oom(err);
      ret = -1;
      goto out;
   }
   if (ret == 0 && pl_trace_damage(t)) {
      *err = *pl_trace_damage(t);
      ret = 1;
   }
out:
   pl_cg_free(b);
   free(keep);
   free(prog_keep);
   free(prog_stop);
   free(mpi);
   pl_filter_free(prog_view);
   free(fn_map);
   pl_trace_close(t);
   return ret;
}

/* ---- Graphs ------------------------------------------------------------- */

static int edge_order(const void *a, const void *b)
{
   const pl_edge *x = a, *y = b;
   if (x->caller != y->caller)
      return x->caller < y->caller ? -1 : 1;
   return x->callee < y->callee ? -1 : x->callee > y->callee;
}

static int fstat_order(const void *a, const void *b)
{
   const pl_fstat *x = a, *y = b;
   return x->fn < y->fn ? -1 : x->fn > y->fn;
}

int pl_graph_sum(pl_graph *out, const pl_graph *const *gs, size_t n)
{
   size_t i, ne = 0, nf = 0, k, j;

   memset(out, 0, sizeof *out);
   for (i = 0; i < n; i++) {
      ne += gs[i]->nedges;
      nf += gs[i]->nfns;
      out->events += gs[i]->events;
      out->calls += gs[i]->calls;
      out->costs |= gs[i]->costs;
      out->cost += gs[i]->cost;
      if (gs[i]->max_depth > out->max_depth)
         out->max_depth = gs[i]->max_depth;
   }
   out->edges = malloc((ne ? ne : 1) * sizeof *out->edges);
   out->fns = malloc((nf ? nf : 1) * sizeof *out->fns);
   if (!out->edges || !out->fns) {
      pl_graph_free(out);
      return -1;
   }
   ne = nf = 0;
   for (i = 0; i < n; i++) {
      memcpy(out->edges + ne, gs[i]->edges, gs[i]->nedges * sizeof *out->edges);
      ne += gs[i]->nedges;
      memcpy(out->fns + nf, gs[i]->fns, gs[i]->nfns * sizeof *out->fns);
      nf += gs[i]->nfns;
   }
   qsort(out->edges, ne, sizeof *out->edges, edge_order);
   qsort(out->fns, nf, sizeof *out->fns, fstat_order);
   for (k = 0, j = 0; j < ne; j++) {
      if (k > 0 && edge_order(&out->edges[k - 1], &out->edges[j]) == 0) {
         out->edges[k - 1].calls += out->edges[j].calls;
         out->edges[k - 1].incl_calls += out->edges[j].incl_calls;
         out->edges[k - 1].incl_events += out->edges[j].incl_events;
         out->edges[k - 1].outer_calls += out->edges[j].outer_calls;
         out->edges[k - 1].outer_events += out->edges[j].outer_events;
         out->edges[k - 1].incl_cost += out->edges[j].incl_cost;
         out->edges[k - 1].outer_cost += out->edges[j].outer_cost;
      } else {
         out->edges[k++] = out->edges[j];
      }
   }
   out->nedges = k;
   for (k = 0, j = 0; j < nf; j++) {
      if (k > 0 && out->fns[k - 1].fn == out->fns[j].fn) {
         out->fns[k - 1].calls += out->fns[j].calls;
         out->fns[k - 1].incl_events += out->fns[j].incl_events;
         out->fns[k - 1].self_cost += out->fns[j].self_cost;
         out->fns[k - 1].incl_cost += out->fns[j].incl_cost;
      } else {
         out->fns[k++] = out->fns[j];
      }
   }
   out->nfns = k;
   return 0;
}

const pl_fstat *pl_graph_fn(const pl_graph *g, uint32_t fn)
{
   pl_fstat key = { fn, 0, 0, 0, 0 };
   return bsearch(&key, g->fns, g->nfns, sizeof key, fstat_order);
}

int pl_program_total(const pl_program *p, pl_graph *out)
{
   const pl_graph **gs = malloc((p->nthreads ? p->nthreads : 1) * sizeof *gs);
   size_t i;
   int r;
   if (!gs)
      return -1;
   for (i = 0; i < p->nthreads; i++)
      gs[i] = &p->threads[i].g;
   r = pl_graph_sum(out, gs, p->nthreads);
   free(gs);
   return r;
}

/* ---- Merging programs (pl_parallel.c) ------------------------------------ */

uint32_t pl_program_adopt(pl_program *p, pl_gfunc *f)
{
   pl_gfunc *g;
   size_t s;

   if (!get_internal(p))
      return 0;
   if (p->internal->cap) {
      s = key_hash(f->object, f->name, f->dup) & (p->internal->cap - 1);
      for (; p->internal->slot[s]; s = (s + 1) & (p->internal->cap - 1)) {
         g = &p->fns[p->internal->slot[s]];
         if (g->dup == f->dup && strcmp(g->name, f->name) == 0
             && strcmp(g->object, f->object) == 0)
            return p->internal->slot[s];
      }
   }
   if (pl_grow(&p->fns, &p->fns_cap, (size_t)p->nfns + 2, sizeof *p->fns) < 0)
      return 0;
   if (p->nfns == 0)
      memset(&p->fns[0], 0, sizeof p->fns[0]);
   if (2 * ((size_t)p->nfns + 1) > p->internal->cap && index_grow(p) < 0)
      return 0;
   p->fns[p->nfns + 1] = *f;
   memset(f, 0, sizeof *f);
   p->nfns++;
   index_insert(p->internal, p->fns, p->nfns);
   return p->nfns;
}

/* g's function IDs through map, and back into ID order. */
static void remap_graph(pl_graph *g, const uint32_t *map)
{
   size_t i;
   for (i = 0; i < g->nfns; i++)
      g->fns[i].fn = map[g->fns[i].fn];
   for (i = 0; i < g->nedges; i++) {
      g->edges[i].caller = map[g->edges[i].caller];
      g->edges[i].callee = map[g->edges[i].callee];
   }
   qsort(g->fns, g->nfns, sizeof *g->fns, fstat_order);
   qsort(g->edges, g->nedges, sizeof *g->edges, edge_order);
}

int pl_program_merge(pl_program *p, pl_program *part)
{
   uint32_t *map = NULL;
   int r = pl_program_merge_map(p, part, &map);
   free(map);
   return r;
}

int pl_program_merge_map(pl_program *p, pl_program *part, uint32_t **mapp)
{
   uint32_t *map = calloc((size_t)part->nfns + 1, sizeof *map);
   uint32_t id;
   size_t k;
   int ret = -1;

   *mapp = NULL;
   if (!map)
      goto out;
   /* part's IDs were given in the order its traces' functions were first
      met: interning them in ID order gives what reading the same traces
      into p would have */
   for (id = 1; id <= part->nfns; id++)
      if (!(map[id] = pl_program_adopt(p, &part->fns[id])))
         goto out;
   if (pl_grow(&p->procs, &p->procs_cap, p->nprocs + part->nprocs,
               sizeof *p->procs) < 0 ||
       pl_grow(&p->threads, &p->threads_cap, p->nthreads + part->nthreads,
               sizeof *p->threads) < 0)
      goto out;
   for (k = 0; k < part->nthreads; k++) {
      pl_thread *th = &p->threads[p->nthreads + k];
      *th = part->threads[k];
      th->proc += p->nprocs;
      remap_graph(&th->g, map);
   }
   for (k = 0; k < part->nprocs; k++) {
      pl_process *pr = &p->procs[p->nprocs + k];
      *pr = part->procs[k];
      pr->first_thread += p->nthreads;
      pl_ending ending;
      pl_program_ending(part, k, &ending);
      if (pl_program_set_process(p, p->nprocs + k,
                                 pl_program_recording(part, k), &ending) < 0
          || pl_program_set_order_mpi(p, p->nprocs + k,
                                      pl_program_order_mpi(part, k)) < 0)
         goto out;
   }
   p->nthreads += part->nthreads;
   p->nprocs += part->nprocs;
   part->nthreads = part->nprocs = 0;     /* moved */
   ret = 0;
out:
   if (ret == 0)
      *mapp = map;
   else
      free(map);
   return ret;
}
