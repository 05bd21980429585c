/* SPDX-License-Identifier: MIT */
/* parlot-decode --stacks: where each thread was when its trace ended.

   Every selected thread of every trace is decoded to its end (through the
   filter: frames it hides are left out of the stack), and its call stack
   there is added to one call-prefix tree, as STAT merges stack traces:
   a node is a call path, and it lists the threads whose stack starts with
   that path.  The threads whose stack is exactly a node's path form an
   equivalence class; the classes are listed after the tree.  Threads are
   written in STAT's range notation: MPI ranks ("[0-3,5]"), "R.T" for a
   rank's thread T other than its first, "pPID" and "pPID.T" where there
   is no rank.

   Then how each process ended (pl_ending.h), and the progress view: the
   threads that run the program's code, in classes of the same position
   (progress.h), least progressed first, each with its call numbers and
   its last MPI call.

   Functions are the same across traces when their object and name are
   (pl_program.h).  Memory: the tree, and per thread its stack. */

#define _XOPEN_SOURCE 700     /* strdup */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_alloc.h"
#include "pl_archive.h"
#include "pl_hash.h"
#include "pl_ending.h"
#include "pl_modes.h"
#include "pl_parallel.h"
#include "pl_runtime.h"
#include "progress.h"
#include "trace_labels.h"

typedef struct {
   char    *label;          /* escaped shown name */
   char    *key;            /* object "\0" raw name */
   size_t   keylen;
} sfn;

typedef struct {
   uint32_t fn;             /* sfn index; 0: the root */
   size_t   parent;
   size_t  *kids;
   size_t   nkids, kids_cap;
   size_t  *threads;        /* thread indices, increasing */
   size_t   nthreads, threads_cap;
   size_t   ends;           /* threads whose stack ends here */
} snode;

typedef struct {
   char    *pid;
   char    *rank;           /* NULL if none */
   uint32_t number;
   size_t   proc;           /* its process, an index in procs */
   size_t   leaf;           /* node where its stack ends */
   progress_frame *pos;     /* its position: [0] the root, [1..npos] */
   size_t   npos;
   progress_frame mpi, mpi_caller;  /* its last MPI call (fn 0: none) */
   progress_frame mpi_prev, mpi_prev_caller;   /* the one before, no poll */
   progress_frame before_poll;      /* where the innermost frame is one of
                                       MPI's polls: its caller's last
                                       other call (fn 0: none) */
   size_t   exit_npos;      /* frames open when its process exited, which
                               the tool closed (pos[npos + 1..exit_npos]
                               kept), 0 if none or not so */
   int      exited;         /* its position is where its process exited
                               early (early_exits): npos is exit_npos */
   progress_frame handler;  /* a signal handler still running when a
                               fatal signal ended the thread (a runtime's
                               that prints a backtrace and raises the
                               signal again): its first shown frame,
                               above the position (fn 0: none) */
} sthread;

typedef struct {
   char     *pid;
   char     *rank;          /* NULL if none */
   pl_ending ending;
} sproc;

typedef struct {
   sfn      *fns;           /* [1..nfns] */
   uint32_t  nfns;
   size_t    fns_cap;
   uint32_t *fn_slot;       /* hash index of fns: 0 = empty */
   unsigned  fn_bits;
   snode    *nodes;         /* [0] the root */
   size_t    nnodes, nodes_cap;
   sthread  *threads;
   size_t    nthreads, threads_cap;
   sproc    *procs;
   size_t    nprocs, procs_cap;
   size_t    ntraces;
   size_t    nselective;  /* traces that record selectively */
} stacks;

/* ---- Functions across traces --------------------------------------------- */

static uint64_t key_hash(const char *k, size_t n)
{
   return pl_fnv1a(PL_FNV1A_INIT, k, n);
}

static int fn_index_grow(stacks *s)
{
   unsigned bits = s->fn_bits ? s->fn_bits + 1 : 10;
   uint32_t *slot = calloc((size_t)1 << bits, sizeof *slot), id;
   if (!slot)
      return -1;
   for (id = 1; id <= s->nfns; id++) {
      uint64_t i = pl_golden_slot(key_hash(s->fns[id].key, s->fns[id].keylen),
                                  bits);
      while (slot[i])
         i = (i + 1) & (((uint64_t)1 << bits) - 1);
      slot[i] = id;
   }
   free(s->fn_slot);
   s->fn_slot = slot;
   s->fn_bits = bits;
   return 0;
}

/* The ID of the function with this key (object "\0" raw name; taken:
   freed if known) and label, added if new; 0 if out of memory. */
static uint32_t intern_key(stacks *s, char *key, size_t klen,
                           const char *label)
{
   uint64_t mask, i;
   sfn *e;

   if (!s->fn_slot || 2 * ((size_t)s->nfns + 1) > ((size_t)1 << s->fn_bits))
      if (fn_index_grow(s) < 0) {
         free(key);
         return 0;
      }
   mask = ((uint64_t)1 << s->fn_bits) - 1;
   for (i = pl_golden_slot(key_hash(key, klen), s->fn_bits); s->fn_slot[i];
        i = (i + 1) & mask) {
      e = &s->fns[s->fn_slot[i]];
      if (e->keylen == klen && memcmp(e->key, key, klen) == 0) {
         free(key);
         return s->fn_slot[i];
      }
   }
   if (pl_grow(&s->fns, &s->fns_cap, (size_t)s->nfns + 2, sizeof *s->fns) < 0
       || !(s->fns[s->nfns + 1].label = strdup(label))) {
      free(key);
      return 0;
   }
   e = &s->fns[++s->nfns];
   e->key = key;
   e->keylen = klen;
   s->fn_slot[i] = s->nfns;
   return s->nfns;
}

/* The ID of function id of t, added if new; 0 if out of memory. */
static uint32_t intern(stacks *s, const pl_trace *t, uint32_t id,
                       const trace_labels *nm)
{
   const pl_function *f = pl_trace_function(t, id);
   const pl_name *o = pl_trace_object(t, f->obj);
   size_t klen = o->len + 1 + f->name.len;
   char *key = malloc(klen);

   if (!key)
      return 0;
   memcpy(key, o->str, o->len + 1);
   memcpy(key + o->len + 1, f->name.str, f->name.len);
   return intern_key(s, key, klen, trace_label(nm, id));
}

/* ---- The tree ------------------------------------------------------------ */

/* Child fn of node p (created if new): its index, or (size_t)-1. */
static size_t child(stacks *s, size_t p, uint32_t fn)
{
   size_t i, c;
   snode *n;

   for (i = 0; i < s->nodes[p].nkids; i++)
      if (s->nodes[s->nodes[p].kids[i]].fn == fn)
         return s->nodes[p].kids[i];
   if (pl_grow(&s->nodes, &s->nodes_cap, s->nnodes + 1, sizeof *s->nodes) < 0)
      return (size_t)-1;
   c = s->nnodes++;
   n = &s->nodes[c];
   memset(n, 0, sizeof *n);
   n->fn = fn;
   n->parent = p;
   if (pl_grow(&s->nodes[p].kids, &s->nodes[p].kids_cap, s->nodes[p].nkids + 1,
               sizeof *s->nodes[p].kids) < 0)
      return (size_t)-1;
   s->nodes[p].kids[s->nodes[p].nkids++] = c;
   return c;
}

static int add_thread_to(snode *n, size_t th)
{
   if (pl_grow(&n->threads, &n->threads_cap, n->nthreads + 1,
               sizeof *n->threads) < 0)
      return -1;
   n->threads[n->nthreads++] = th;
   return 0;
}

/* Add thread th's stack (global function IDs, outermost first). */
static int add_stack(stacks *s, size_t th, const uint32_t *fns, size_t depth)
{
   size_t node = 0, i;

   if (add_thread_to(&s->nodes[0], th) < 0)
      return -1;
   for (i = 0; i < depth; i++) {
      node = child(s, node, fns[i]);
      if (node == (size_t)-1 || add_thread_to(&s->nodes[node], th) < 0)
         return -1;
   }
   s->nodes[node].ends++;
   s->threads[th].leaf = node;
   return 0;
}

/* ---- Reading ------------------------------------------------------------- */

static void *stacks_create(const pl_decode_opts *o)
{
   stacks *s = calloc(1, sizeof *s);
   (void)o;
   if (!s)
      return NULL;
   if (pl_grow(&s->nodes, &s->nodes_cap, 1, sizeof *s->nodes) < 0) {
      free(s);
      return NULL;
   }
   memset(&s->nodes[0], 0, sizeof s->nodes[0]);
   s->nnodes = 1;
   return s;
}

static void stacks_destroy(void *state)
{
   stacks *s = state;
   size_t i;
   uint32_t f;

   for (f = 1; f <= s->nfns; f++) {
      free(s->fns[f].label);
      free(s->fns[f].key);
   }
   for (i = 0; i < s->nnodes; i++) {
      free(s->nodes[i].kids);
      free(s->nodes[i].threads);
   }
   for (i = 0; i < s->nthreads; i++) {
      free(s->threads[i].pid);
      free(s->threads[i].rank);
      free(s->threads[i].pos);
   }
   for (i = 0; i < s->nprocs; i++) {
      free(s->procs[i].pid);
      free(s->procs[i].rank);
   }
   free(s->procs);
   free(s->fns);
   free(s->fn_slot);
   free(s->nodes);
   free(s->threads);
   free(s);
}

/* Frame x of a position with the function as a global ID; -1 if out of
   memory. */
static int globalize(stacks *s, progress_frame *x, const pl_trace *t,
                     const trace_labels *nm, uint32_t *map)
{
   if (x->fn && !map[x->fn] && !(map[x->fn] = intern(s, t, x->fn, nm)))
      return -1;
   x->fn = x->fn ? map[x->fn] : 0;
   return 0;
}

/* Thread st's position where its trace ended (none if the view never
   showed a call: a thread that runs no code of the program's). */
static int keep_position(stacks *s, sthread *st, const progress *pg,
                         size_t at_exit, size_t below_handler,
                         const pl_trace *t, const trace_labels *nm,
                         uint32_t *map)
{
   size_t d, kept;

   if (pg->broken || !pg->f || pg->f[0].started == 0)
      return pg->broken ? -1 : 0;
   st->npos = pg->depth;
   /* the position is the interrupted code's; the handler is noted */
   if (below_handler && below_handler - 1 < pg->depth) {
      st->npos = below_handler - 1;
      st->handler = pg->f[below_handler];
   }
   /* the frames the tool closed at the exit: no call came after them, so
      they are still in place above the depth */
   st->exit_npos = at_exit > pg->depth && at_exit < pg->cap ? at_exit : 0;
   kept = st->exit_npos > pg->depth ? st->exit_npos : pg->depth;
   st->pos = malloc((kept + 1) * sizeof *st->pos);
   if (!st->pos)
      return -1;
   memcpy(st->pos, pg->f, (kept + 1) * sizeof *st->pos);
   st->mpi = pg->mpi;
   st->mpi_caller = pg->mpi_caller;
   st->mpi_prev = pg->mpi_prev;
   st->mpi_prev_caller = pg->mpi_prev_caller;
   if (pg->depth && pg->f[pg->depth].poll) {
      st->before_poll.fn = pg->f[pg->depth - 1].last_fn;
      st->before_poll.num = pg->f[pg->depth - 1].last_num;
   }
   for (d = 1; d <= kept; d++)
      if (globalize(s, &st->pos[d], t, nm, map) < 0)
         return -1;
   if (globalize(s, &st->handler, t, nm, map) < 0
       || globalize(s, &st->mpi, t, nm, map) < 0
       || globalize(s, &st->mpi_caller, t, nm, map) < 0
       || globalize(s, &st->mpi_prev, t, nm, map) < 0
       || globalize(s, &st->mpi_prev_caller, t, nm, map) < 0
       || globalize(s, &st->before_poll, t, nm, map) < 0)
      return -1;
   return 0;
}

/* pl_thread_info's end_reasons of a thread whose frames the tool closed
   when it ended: it exited (the one that ended its process too), or was
   still running when its process exited */
#define END_THREAD_EXIT  1
#define END_PROCESS_EXIT 2

/* Decode thread i of t to its end; its shown stack there into s.
   fn_kind[fn]: progress_call's kind of function fn. */
static int read_thread(stacks *s, pl_trace *t, size_t i, const uint8_t *keep,
                       const trace_labels *nm, const uint8_t *fn_kind,
                       uint32_t *map, const pl_decode_opts *opts,
                       pl_error *err)
{
   const pl_filter *f = opts->filter;
   pl_view *v = pl_view_open(t, i, f, keep, err);
   const pl_vevent *ev;
   const uint32_t *stack;
   uint32_t *shown = NULL;
   size_t depth, d, n = 0, th;
   int caller_own = 0;
   const char *rank = pl_trace_process_get(t, "mpi_rank");
   progress pg = { 0 };
   const pl_thread_info *info;
   size_t at_exit = 0;           /* frames open when the process exited */
   size_t below_handler = 0;     /* 1 + shown frames below a handler */
   sthread *st;
   long r, k;
   int ret = -1;

   const pl_progress_hooks *hooks = opts->progress;
   uint64_t done = 0;

   if (!v)
      return -1;
   pl_view_skip_costs(v);
   if (hooks && hooks->thread)
      hooks->thread(hooks->ctx, i, pl_trace_nthreads(t),
                    pl_trace_stream_bytes(t, i));
   while ((r = pl_view_next(v, &ev, err)) > 0) {
      for (k = 0; k < r; k++)
         if (ev[k].kind == PL_EV_CALL)
            progress_call(&pg, ev[k].depth, ev[k].fn, fn_kind[ev[k].fn]);
         else
            progress_return(&pg, ev[k].depth);
      done += (uint64_t)r;
      if (hooks && hooks->update)       /* the status line, if one is due */
         hooks->update(hooks->ctx, pl_view_position(v), done);
   }
   if (r < 0)
      goto out;
   info = pl_trace_thread(t, i);
   if (info->ended && (info->end_reason == END_THREAD_EXIT
                       || info->end_reason == END_PROCESS_EXIT))
      at_exit = pl_view_last_call_depth(v);
   stack = pl_view_stack(v, &depth);
   shown = malloc((depth + 1) * sizeof *shown);
   if (!shown)
      goto oom;
   for (d = 0; d < depth; d++) {
      uint32_t id = stack[d];
      if (info->ended && info->handler_depth == d + 1)
         below_handler = n + 1;        /* the handler's frames begin */
      if (!pl_keep_frame(keep, id, caller_own, &caller_own))
         continue;
      if (pl_filter_max_depth(f) && n == pl_filter_max_depth(f))
         break;
      if (!map[id] && !(map[id] = intern(s, t, id, nm)))
         goto oom;
      shown[n++] = map[id];
   }
   if (pl_grow(&s->threads, &s->threads_cap, s->nthreads + 1,
               sizeof *s->threads) < 0)
      goto oom;
   th = s->nthreads++;
   st = &s->threads[th];
   memset(st, 0, sizeof *st);
   st->number = pl_trace_thread(t, i)->number;
   st->proc = s->nprocs - 1;          /* added by stacks_file */
   st->pid = strdup(pl_trace_process_get(t, "pid"));
   st->rank = rank ? strdup(rank) : NULL;
   if (!st->pid || (rank && !st->rank) || add_stack(s, th, shown, n) < 0
       || keep_position(s, st, &pg, at_exit, below_handler, t, nm, map) < 0)
      goto oom;
   ret = 0;
   goto out;
oom:
   pl_error_set(err, 0, "out of memory");
out:
   progress_free(&pg);
   free(shown);
   pl_view_close(v);
   return ret;
}

/* How t's process ended, for the endings. */
static int add_process(stacks *s, const pl_trace *t)
{
   const char *rank = pl_trace_process_get(t, "mpi_rank");
   const char *pid = pl_trace_process_get(t, "pid");
   sproc *p;

   if (pl_grow(&s->procs, &s->procs_cap, s->nprocs + 1, sizeof *s->procs) < 0)
      return -1;
   p = &s->procs[s->nprocs++];
   memset(p, 0, sizeof *p);
   pl_trace_ending(t, &p->ending);
   p->pid = strdup(pid ? pid : "");
   p->rank = rank ? strdup(rank) : NULL;
   return !p->pid || (rank && !p->rank) ? -1 : 0;
}

static int stacks_file(void *state, pl_trace *t, pl_error *err,
                       const pl_decode_opts *opts)
{
   stacks *s = state;
   const char *pid = pl_trace_process_get(t, "pid");
   size_t i, nthreads = pl_trace_nthreads(t);
   uint8_t *keep = pl_filter_functions(opts->filter, t, opts->demangle);
   uint32_t nfns = pl_trace_nfunctions(t), f;
   uint32_t *map = calloc((size_t)nfns + 1, sizeof *map);
   /* once per trace: the names' test costs two string comparisons, and
      the threads' calls would repeat it for every call */
   uint8_t *fn_kind = malloc((size_t)nfns + 1);
   trace_labels nm;
   int ret = 0;

   s->ntraces++;
   s->nselective += pl_trace_recording(t) != NULL;
   if (add_process(s, t) < 0 || !keep || !map || !fn_kind
       || trace_labels_load(&nm, t, opts->demangle) < 0) {
      free(keep);
      free(map);
      free(fn_kind);
      pl_error_set(err, 0, "out of memory");
      return -1;
   }
   for (f = 0; f <= nfns; f++) {
      const char *name = trace_label(&nm, f);
      fn_kind[f] = (uint8_t)(pl_runtime_mpi_interface(name)
                            ? PROGRESS_MPI | (pl_runtime_mpi_poll(name)
                                              ? PROGRESS_POLL : 0)
                            : keep[f] == PL_KEEP_YES ? PROGRESS_OWN : 0);
   }
   for (i = 0; i < nthreads && ret == 0; i++)
      if (pl_select_match(&opts->select, pid, pl_trace_thread(t, i)->number))
         ret = read_thread(s, t, i, keep, &nm, fn_kind, map, opts, err);
   trace_labels_free(&nm);
   free(keep);
   free(map);
   free(fn_kind);
   return ret;
}

/* ---- Traces read in other threads ------------------------------------------ */

static void map_frame(progress_frame *x, const uint32_t *map)
{
   x->fn = x->fn ? map[x->fn] : 0;
}

/* Part's thread k into s: its stack and position, functions mapped. */
static int merge_thread(stacks *s, stacks *part, size_t k,
                        const uint32_t *map, size_t proc_base)
{
   sthread *pt = &part->threads[k], *st;
   size_t depth = 0, node, d, th, kept;
   uint32_t *fns;
   int r;

   for (node = pt->leaf; node != 0; node = part->nodes[node].parent)
      depth++;
   fns = malloc((depth + 1) * sizeof *fns);
   if (!fns || pl_grow(&s->threads, &s->threads_cap, s->nthreads + 1,
                       sizeof *s->threads) < 0) {
      free(fns);
      return -1;
   }
   d = depth;
   for (node = pt->leaf; node != 0; node = part->nodes[node].parent)
      fns[--d] = map[part->nodes[node].fn];
   th = s->nthreads++;
   st = &s->threads[th];
   *st = *pt;                     /* pid, rank and position move over */
   st->proc += proc_base;
   pt->pid = pt->rank = NULL;
   pt->pos = NULL;
   kept = st->exit_npos > st->npos ? st->exit_npos : st->npos;
   for (d = 1; st->pos && d <= kept; d++)
      map_frame(&st->pos[d], map);
   map_frame(&st->handler, map);
   map_frame(&st->mpi, map);
   map_frame(&st->mpi_caller, map);
   map_frame(&st->mpi_prev, map);
   map_frame(&st->mpi_prev_caller, map);
   map_frame(&st->before_poll, map);
   r = add_stack(s, th, fns, depth);
   free(fns);
   return r;
}

static int stacks_merge(void *state, void *partv)
{
   stacks *s = state, *part = partv;
   uint32_t *map = calloc((size_t)part->nfns + 1, sizeof *map), f;
   size_t i, base;
   int ret = -1;

   if (!map)
      goto out;
   /* in part's order, which is the order reading the trace would have
      met them in: the IDs come out the same */
   for (f = 1; f <= part->nfns; f++) {
      sfn *e = &part->fns[f];
      if (!(map[f] = intern_key(s, e->key, e->keylen, e->label))) {
         e->key = NULL;
         goto out;
      }
      e->key = NULL;               /* taken */
   }
   if (pl_grow(&s->procs, &s->procs_cap, s->nprocs + part->nprocs,
               sizeof *s->procs) < 0)
      goto out;
   memcpy(s->procs + s->nprocs, part->procs, part->nprocs * sizeof *s->procs);
   base = s->nprocs;
   s->nprocs += part->nprocs;
   part->nprocs = 0;
   for (i = 0; i < part->nthreads; i++)
      if (merge_thread(s, part, i, map, base) < 0)
         goto out;
   s->ntraces += part->ntraces;
   s->nselective += part->nselective;
   ret = 0;
out:
   free(map);
   stacks_destroy(part);
   return ret;
}

/* ---- Thread sets in range notation --------------------------------------- */

/* The thread set th[0..n-1] in range notation (trace_labels.h). */
static int put_set(outbuf *o, const stacks *s, const size_t *th, size_t n)
{
   thread_key *k = malloc((n + 1) * sizeof *k);
   size_t i;
   int r;

   if (!k)
      return -1;
   for (i = 0; i < n; i++) {
      const sthread *t = &s->threads[th[i]];
      thread_key_set(&k[i], t->pid, t->rank, t->number);
   }
   r = put_thread_set(o, k, n);
   free(k);
   return r;
}

/* ---- Output -------------------------------------------------------------- */

static const stacks *sort_ctx;

static int by_label(const void *a, const void *b)
{
   const snode *x = &sort_ctx->nodes[*(const size_t *)a];
   const snode *y = &sort_ctx->nodes[*(const size_t *)b];
   int c = strcmp(sort_ctx->fns[x->fn].label, sort_ctx->fns[y->fn].label);
   return c ? c : (x->fn < y->fn ? -1 : x->fn > y->fn);
}

static void sort_kids(stacks *s)
{
   size_t i;
   sort_ctx = s;
   for (i = 0; i < s->nnodes; i++)
      if (s->nodes[i].nkids > 1)
         qsort(s->nodes[i].kids, s->nodes[i].nkids, sizeof (size_t),
               by_label);
}

/* The tree, depth first, with an explicit stack (stacks can be deep). */
static int put_tree(outbuf *o, const stacks *s)
{
   size_t *todo = malloc((s->nnodes + 1) * sizeof *todo), n = 0, i;
   uint32_t *depth = malloc((s->nnodes + 1) * sizeof *depth);

   if (!todo || !depth) {
      free(todo);
      free(depth);
      return -1;
   }
   for (i = s->nodes[0].nkids; i > 0; i--) {
      todo[n] = s->nodes[0].kids[i - 1];
      depth[todo[n++]] = 0;
   }
   while (n > 0 && !o->err) {
      const snode *x = &s->nodes[todo[--n]];
      uint32_t d = depth[x - s->nodes], k;
      for (k = 0; k < d; k++)
         outbuf_str(o, "  ");
      outbuf_printf(o, "%s  %zu:", s->fns[x->fn].label, x->nthreads);
      if (put_set(o, s, x->threads, x->nthreads) < 0)
         goto oom;
      outbuf_str(o, "\n");
      for (i = x->nkids; i > 0; i--) {
         todo[n] = x->kids[i - 1];
         depth[todo[n++]] = d + 1;
      }
   }
   free(todo);
   free(depth);
   return 0;
oom:
   free(todo);
   free(depth);
   return -1;
}

/* "main > solve > exchange" for node x; a recursion's frames of one
   function as one ("descend x998"). */
static int put_path(outbuf *o, const stacks *s, size_t x)
{
   size_t n = 0, node, *path;
   for (node = x; node != 0; node = s->nodes[node].parent)
      n++;
   path = malloc((n + 1) * sizeof *path);
   if (!path)
      return -1;
   n = 0;
   for (node = x; node != 0; node = s->nodes[node].parent)
      path[n++] = node;
   while (n > 0) {
      uint32_t fn = s->nodes[path[--n]].fn;
      size_t same = 1;
      while (n > 0 && s->nodes[path[n - 1]].fn == fn) {
         n--;
         same++;
      }
      outbuf_str(o, s->fns[fn].label);
      if (same > 1)
         outbuf_printf(o, " x%zu", same);
      if (n)
         outbuf_str(o, " > ");
   }
   free(path);
   return 0;
}

typedef struct {
   size_t leaf, size, first;
} sclass;

static int by_size(const void *a, const void *b)
{
   const sclass *x = a, *y = b;
   if (x->size != y->size)
      return x->size > y->size ? -1 : 1;
   return x->first < y->first ? -1 : x->first > y->first;
}

/* The classes: threads whose stacks end at the same node. */
static int put_classes(outbuf *o, const stacks *s)
{
   sclass *c = malloc((s->nnodes + 1) * sizeof *c);
   size_t *members = malloc((s->nthreads + 1) * sizeof *members);
   size_t nc = 0, i, j, m;

   if (!c || !members)
      goto oom;
   for (i = 0; i < s->nnodes; i++)
      if (s->nodes[i].ends) {
         c[nc].leaf = i;
         c[nc].size = s->nodes[i].ends;
         c[nc].first = s->nthreads;
         nc++;
      }
   for (i = 0; i < nc; i++)
      for (j = 0; j < s->nthreads; j++)
         if (s->threads[j].leaf == c[i].leaf) {
            c[i].first = j;
            break;
         }
   if (nc > 1)
      qsort(c, nc, sizeof *c, by_size);
   outbuf_printf(o, "\n== %zu class%s (threads whose stacks end alike)\n",
                 nc, nc == 1 ? "" : "es");
   for (i = 0; i < nc && !o->err; i++) {
      for (m = 0, j = c[i].first; j < s->nthreads; j++)
         if (s->threads[j].leaf == c[i].leaf)
            members[m++] = j;
      outbuf_printf(o, "%zu: %zu:", i + 1, m);
      if (put_set(o, s, members, m) < 0)
         goto oom;
      outbuf_str(o, "  ");
      if (c[i].leaf == 0)
         outbuf_str(o, "(no call open)");
      else if (put_path(o, s, c[i].leaf) < 0)
         goto oom;
      outbuf_str(o, "\n");
   }
   free(c);
   free(members);
   return 0;
oom:
   free(c);
   free(members);
   return -1;
}

/* ---- How the processes ended --------------------------------------------- */

/* How p ended, in words ("exit status 1"), the thread a signal was
   delivered to aside. */
static void put_ending(outbuf *o, const sproc *p)
{
   char text[128];
   pl_ending e = p->ending;
   e.signal_thread = 0;
   pl_ending_text(&e, text, sizeof text);
   outbuf_str_escaped(o, text);
}

/* Processes with one ending (the thread a signal was delivered to aside),
   each group's processes and, for a signal, those threads. */
static int put_endings(outbuf *o, const stacks *s)
{
   thread_key *procs = malloc((s->nprocs + 1) * sizeof *procs);
   thread_key *took = malloc((s->nprocs + 1) * sizeof *took);
   char *done = calloc(s->nprocs + 1, 1);
   size_t i, j, np, nt;
   int ret = -1;

   if (!procs || !took || !done)
      goto out;
   outbuf_printf(o, "\n== how %zu process%s ended\n", s->nprocs,
                 s->nprocs == 1 ? "" : "es");
   for (i = 0; i < s->nprocs && !o->err; i++) {
      if (done[i])
         continue;
      for (np = nt = 0, j = i; j < s->nprocs; j++) {
         const sproc *p = &s->procs[j];
         if (done[j] || !pl_ending_same(&s->procs[i].ending, &p->ending))
            continue;
         done[j] = 1;
         thread_key_set(&procs[np++], p->pid, p->rank, 1);
         if (p->ending.signal_thread)
            thread_key_set(&took[nt++], p->pid, p->rank,
                           p->ending.signal_thread);
      }
      outbuf_printf(o, "%zu:", np);
      if (put_thread_set(o, procs, np) < 0)
         goto out;
      outbuf_str(o, "  ");
      put_ending(o, &s->procs[i]);     /* the threads are listed after it */
      if (nt) {
         outbuf_str(o, ", delivered to ");
         if (put_thread_set(o, took, nt) < 0)
            goto out;
      }
      outbuf_str(o, "\n");
   }
   ret = 0;
out:
   free(procs);
   free(took);
   free(done);
   return ret;
}

/* ---- Progress ------------------------------------------------------------ */

static int by_progress(const void *a, const void *b)
{
   const sthread *x = &sort_ctx->threads[*(const size_t *)a];
   const sthread *y = &sort_ctx->threads[*(const size_t *)b];
   int comparable;
   int c = progress_compare(x->pos, x->npos, y->pos, y->npos, &comparable);
   return c ? c : (*(const size_t *)a < *(const size_t *)b ? -1 : 1);
}

static void put_frame(outbuf *o, const stacks *s, const progress_frame *f)
{
   outbuf_str(o, s->fns[f->fn].label);
   if (f->num > 1)
      outbuf_printf(o, " #%llu", (unsigned long long)f->num);
}

/* A position's path on one line however deep: a recursion's frames of
   one function with one number as one ("descend x998"), and of a path
   still longer than PATH_SHOWN such steps the first PATH_HEAD and the
   last PATH_SHOWN - PATH_HEAD - 1 with how many steps are left out
   between them. */
#define PATH_SHOWN 16u
#define PATH_HEAD  4u

/* Whether two frames are the same call: function and number. */
static int same_frame(const progress_frame *a, const progress_frame *b)
{
   return a->fn == b->fn && a->num == b->num;
}

/* The frames pos[d..] that repeat pos[d] (the same call). */
static size_t same_frames(const sthread *t, size_t d)
{
   size_t e = d + 1;
   while (e <= t->npos && same_frame(&t->pos[e], &t->pos[d]))
      e++;
   return e - d;
}

static void put_position_path(outbuf *o, const stacks *s, const sthread *t)
{
   size_t d, steps = 0, step = 0, tail_from;

   for (d = 1; d <= t->npos; d += same_frames(t, d))
      steps++;
   tail_from = steps > PATH_SHOWN ? steps - (PATH_SHOWN - PATH_HEAD - 1) : 0;
   for (d = 1; d <= t->npos; d += same_frames(t, d), step++) {
      size_t n = same_frames(t, d);
      if (tail_from && step >= PATH_HEAD && step < tail_from) {
         if (step == PATH_HEAD)
            outbuf_printf(o, " > ... (%zu more)", tail_from - PATH_HEAD);
         continue;
      }
      outbuf_str(o, d > 1 ? " > " : "");
      put_frame(o, s, &t->pos[d]);
      if (n > 1)
         outbuf_printf(o, " x%zu", n);
   }
}

/* Whether no frame of t's position has a number that says which pass of
   a loop it is in ("main > MPI_Finalize"). */
static int names_no_pass(const sthread *t)
{
   size_t d;
   for (d = 1; d <= t->npos; d++)
      if (t->pos[d].num > 1)
         return 0;
   return 1;
}

/* " in CALLER" after an MPI call made by caller (fn 0: none known). */
static void put_caller(outbuf *o, const stacks *s, const progress_frame *c)
{
   if (c->fn) {
      outbuf_str(o, " in ");
      put_frame(o, s, c);
   }
}

/* One position: "main > conj_grad #7 > MPI_Recv", where the thread runs a
   frame's own code the calls it has made there, where it polls the call
   before, and the last MPI call where the thread is not in one; where it
   is in one and the path names no pass (a rank that left the main loop
   for MPI_Finalize, or aborted from main), the MPI call before it, if
   prev (the threads shown at this position made the same). */
static void put_position(outbuf *o, const stacks *s, const sthread *t,
                         int prev)
{
   const progress_frame *leaf = &t->pos[t->npos];
   int in_mpi = t->npos && pl_runtime_mpi_interface(s->fns[leaf->fn].label);

   put_position_path(o, s, t);
   if (t->npos == 0)
      outbuf_str(o, "(no call open)");
   else if (leaf->started)
      outbuf_printf(o, ", after %llu call%s", (unsigned long long)leaf->started,
                    leaf->started == 1 ? "" : "s");
   if (t->handler.fn) {         /* the interrupted code's position */
      outbuf_str(o, "; in a signal handler: ");
      put_frame(o, s, &t->handler);
   }
   if (t->before_poll.fn) {     /* how far it got before it began polling */
      outbuf_str(o, ", polling since ");
      put_frame(o, s, &t->before_poll);
   }
   if (t->mpi.fn && !in_mpi) {
      outbuf_str(o, "; last MPI call ");
      put_frame(o, s, &t->mpi);
      put_caller(o, s, &t->mpi_caller);
   } else if (prev && in_mpi && t->mpi_prev.fn && !t->before_poll.fn
              && names_no_pass(t)) {
      outbuf_str(o, "; previous MPI call ");
      put_frame(o, s, &t->mpi_prev);
      put_caller(o, s, &t->mpi_prev_caller);
   }
}

/* Thread t and its position: "[2.4]  sweep._omp_fn.0 #6 > omp_set_lock".
   0, or -1 if out of memory. */
static int put_thread_position(outbuf *o, const stacks *s, const sthread *t)
{
   thread_key k;
   thread_key_set(&k, t->pid, t->rank, t->number);
   if (put_thread_set(o, &k, 1) < 0)
      return -1;
   outbuf_str(o, "  ");
   put_position(o, s, t, 1);
   return 0;
}

/* The threads that ran the program's code, in classes of one position,
   least progressed first; unless always, only where there is something
   to compare (two such threads, one of them inside a call).  of names
   the run in the title (parlot-diff's "B"), NULL for none. */
/* The threads with a position, by progress (order[0..n-1]), in classes
   at the same point (class c: order[first[c]..first[c+1]-1]); cmp and
   comparable: how the first class compares with the second. */
typedef struct {
   size_t *order, *first;
   size_t  n, nclasses, open;
   int     cmp, comparable;
} progress_classes;

static void progress_classes_free(progress_classes *pc)
{
   free(pc->order);
   free(pc->first);
}

/* The threads of processes that exited early are where their process
   exited (the calls the tool closed then) instead of nowhere.  A process
   exited early if it exited (not by a signal) with a status other than
   0, or while other processes of the run did not finish (a rank's error
   stop, with the launcher ending the others). */
static void early_exits(stacks *s)
{
   size_t i;
   int unfinished = 0;
   for (i = 0; i < s->nprocs; i++)
      unfinished |= s->procs[i].ending.kind == PL_ENDING_SIGNAL
                    || s->procs[i].ending.kind == PL_ENDING_CUT_SHORT;
   for (i = 0; i < s->nthreads; i++) {
      sthread *t = &s->threads[i];
      const pl_ending *e = &s->procs[t->proc].ending;
      if (!t->exited && t->exit_npos > t->npos && e->kind == PL_ENDING_EXIT
          && (e->status > 0 || unfinished)) {
         t->npos = t->exit_npos;
         t->exited = 1;
      }
   }
}

/* Whether t is in MPI_Abort. */
static int aborting(const stacks *s, const sthread *t)
{
   return t->pos && t->npos
          && pl_runtime_mpi_abort(s->fns[t->pos[t->npos].fn].label);
}

/* A hash of t's position that positions at one point share (as
   progress_compare has it: the same calls, a poll's number aside, and
   the same calls started in the innermost). */
static uint64_t point_hash(const sthread *t)
{
   uint64_t h = pl_fnv1a_step(PL_FNV1A_INIT, t->npos);
   size_t d;
   for (d = 1; d <= t->npos; d++)
      h = pl_fnv1a_step(pl_fnv1a_step(h, t->pos[d].fn),
                        t->pos[d].poll ? 0 : t->pos[d].num);
   h = pl_fnv1a_step(h, t->pos[t->npos].started_own);
   return pl_fnv1a_step(h, t->pos[t->npos].started);
}

/* 0, or -1 if out of memory. */
static int classify_progress(stacks *s, progress_classes *pc)
{
   size_t i, j, c, *cls, *rep, *size, *slot;
   unsigned bits = 4;

   early_exits(s);
   memset(pc, 0, sizeof *pc);
   pc->comparable = 1;
   pc->order = malloc((s->nthreads + 1) * sizeof *pc->order);
   pc->first = malloc((s->nthreads + 2) * sizeof *pc->first);
   if (!pc->order || !pc->first) {
      progress_classes_free(pc);
      return -1;
   }
   for (i = 0; i < s->nthreads; i++)
      if (s->threads[i].pos) {
         pc->order[pc->n++] = i;
         pc->open += s->threads[i].npos > 0;
      }
   sort_ctx = s;
   if (pc->n > 1)
      qsort(pc->order, pc->n, sizeof *pc->order, by_progress);
   /* Classes of the threads at one point, in the order of their first
      threads.  The comparison is no total order (threads that ran other
      calls at one point compare by the calls their caller made, or not
      at all), so threads at one point need not be neighbours after the
      sort: ranks waiting in one reduction, and a rank that skipped it
      sorted between them by the root's extra prints. */
   while (((size_t)1 << bits) < 2 * pc->n + 2)
      bits++;
   cls = malloc((pc->n + 1) * sizeof *cls);
   rep = malloc((pc->n + 1) * sizeof *rep);
   size = calloc(pc->n + 1, sizeof *size);
   slot = malloc(((size_t)1 << bits) * sizeof *slot);
   if (!cls || !rep || !size || !slot) {
      free(cls);
      free(rep);
      free(size);
      free(slot);
      progress_classes_free(pc);
      return -1;
   }
   memset(slot, 0xff, ((size_t)1 << bits) * sizeof *slot);
   for (i = 0; i < pc->n; i++) {     /* a table of the classes by point */
      const sthread *b = &s->threads[pc->order[i]];
      size_t h = (size_t)pl_golden_slot(point_hash(b), bits);
      int cm;
      while ((c = slot[h]) != SIZE_MAX
             && progress_compare(s->threads[rep[c]].pos,
                                 s->threads[rep[c]].npos, b->pos, b->npos,
                                 &cm) != 0)
         h = (h + 1) & (((size_t)1 << bits) - 1);
      if (c == SIZE_MAX) {
         c = slot[h] = pc->nclasses++;
         rep[c] = pc->order[i];
      }
      cls[i] = c;
      size[c]++;
   }
   for (c = 0, j = 0; c < pc->nclasses; c++) {   /* where each starts */
      pc->first[c] = j;
      j += size[c];
      size[c] = pc->first[c];                     /* its next place */
   }
   pc->first[pc->nclasses] = pc->n;
   for (i = 0; i < pc->n; i++)                     /* rep: the new order */
      rep[size[cls[i]]++] = pc->order[i];
   memcpy(pc->order, rep, pc->n * sizeof *pc->order);
   if (pc->nclasses > 1) {
      const sthread *a = &s->threads[pc->order[0]];
      const sthread *b = &s->threads[pc->order[pc->first[1]]];
      pc->cmp = progress_compare(a->pos, a->npos, b->pos, b->npos,
                                 &pc->comparable);
   }
   free(cls);
   free(rep);
   free(size);
   free(slot);
   return 0;
}

/* Whether t's position may be older than where it stopped: its trace was
   cut short (SIGKILL: what it did since its last flush is lost) while
   other processes' traces end where they ended (a launcher killing the
   other ranks after one crashed); where every trace was cut short, the
   endings say so once. */
static int stale_position(const stacks *s, const sthread *t)
{
   size_t i;
   if (s->procs[t->proc].ending.kind != PL_ENDING_CUT_SHORT)
      return 0;
   for (i = 0; i < s->nprocs; i++)
      if (s->procs[i].ending.kind != PL_ENDING_CUT_SHORT)
         return 1;
   return 0;
}

/* Whether threads th[0..n-1] made the same MPI call before their last. */
static int same_previous_call(const stacks *s, const size_t *th, size_t n)
{
   const sthread *a = &s->threads[th[0]];
   size_t j;
   for (j = 1; j < n; j++) {
      const sthread *b = &s->threads[th[j]];
      if (!same_frame(&a->mpi_prev, &b->mpi_prev)
          || !same_frame(&a->mpi_prev_caller, &b->mpi_prev_caller))
         return 0;
   }
   return 1;
}

/* Class c's threads in range notation, two spaces, and their position. */
static int put_progress_class(outbuf *o, stacks *s, const progress_classes *pc,
                              size_t c)
{
   size_t lo = pc->first[c], hi = pc->first[c + 1], j;
   thread_key *k = malloc((hi - lo + 1) * sizeof *k);
   if (!k)
      return -1;
   for (j = lo; j < hi; j++) {
      const sthread *b = &s->threads[pc->order[j]];
      thread_key_set(&k[j - lo], b->pid, b->rank, b->number);
   }
   if (put_thread_set(o, k, hi - lo) < 0) {
      free(k);
      return -1;
   }
   free(k);
   outbuf_str(o, "  ");
   put_position(o, s, &s->threads[pc->order[lo]],
                same_previous_call(s, pc->order + lo, hi - lo));
   if (stale_position(s, &s->threads[pc->order[lo]]))
      outbuf_str(o, "  (as of its last flush: trace cut short)");
   return 0;
}

/* Whether p died of its own fault (a crash), not of a kill from
   outside. */
static int crashed(const sproc *p)
{
   int sig = p->ending.signal;
   return p->ending.kind == PL_ENDING_SIGNAL
          && (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL
              || sig == SIGFPE || sig == SIGABRT || sig == SIGTRAP
              || sig == SIGSYS);
}

static const char *signal_name(const sproc *p)
{
   return p->ending.signal_name[0] ? p->ending.signal_name
                                   : "a fatal signal";
}

/* The signal's name if thread t took its process's crash, else NULL. */
static const char *crash_of(const stacks *s, const sthread *t)
{
   const sproc *p = &s->procs[t->proc];
   return crashed(p) && p->ending.signal_thread == t->number
          ? signal_name(p) : NULL;
}

static int put_progress(outbuf *o, stacks *s, int always, const char *of)
{
   progress_classes pc;
   size_t c;

   if (classify_progress(s, &pc) < 0)
      return -1;
   if (!always && (pc.n < 2 || pc.open == 0)) {   /* nothing to compare */
      progress_classes_free(&pc);
      return 0;
   }
   outbuf_printf(o, "%s== progress%s%s: %zu thread%s in %zu position%s, "
                 "least progressed first (#N: the Nth call from its caller)",
                 of ? "" : "\n", of ? " of " : "", of ? of : "",
                 pc.n, pc.n == 1 ? "" : "s", pc.nclasses,
                 pc.nclasses == 1 ? "" : "s");
   if (pc.n < s->nthreads)
      outbuf_printf(o, "; %zu thread%s that ran none of the program's code "
                    "left out", s->nthreads - pc.n,
                    s->nthreads - pc.n == 1 ? "" : "s");
   outbuf_str(o, "\n");
   for (c = 0; c < pc.nclasses && !o->err; c++) {
      outbuf_printf(o, "%zu: %zu:", c + 1, pc.first[c + 1] - pc.first[c]);
      if (put_progress_class(o, s, &pc, c) < 0) {
         progress_classes_free(&pc);
         return -1;
      }
      if (c == 0 && pc.nclasses == 1 && pc.n > 1)
         outbuf_str(o, "  (all at the same point)");
      else if (c == 0 && pc.cmp < 0 && pc.comparable)
         outbuf_str(o, "  (least progressed)");
      else if (c == 0 && pc.nclasses > 1 && !pc.comparable)
         outbuf_str(o, "  (not comparable with the next: other calls at "
                       "the same point)");
      for (size_t j = pc.first[c]; j < pc.first[c + 1]; j++) {
         const sthread *t = &s->threads[pc.order[j]];
         const char *sig = crash_of(s, t);
         if (sig) {
            outbuf_printf(o, "  (crashed here: %s)", sig);
            break;
         }
         if (aborting(s, t)) {
            outbuf_str(o, "  (aborted here)");
            break;
         }
         if (t->exited) {
            outbuf_str(o, "  (exited here: ");
            put_ending(o, &s->procs[t->proc]);
            outbuf_str(o, ")");
            break;
         }
      }
      outbuf_str(o, "\n");
   }
   progress_classes_free(&pc);
   return 0;
}

/* DOT string contents: the label with '"' and '\' escaped. */
static void put_dot_str(outbuf *o, const char *s)
{
   for (; *s; s++) {
      if (*s == '"' || *s == '\\')
         outbuf_str(o, "\\");
      outbuf_write(o, s, 1);
   }
}

static int put_dot(outbuf *o, const stacks *s)
{
   size_t i;
   outbuf_str(o, "digraph stacks {\n"
                 "  node [shape=box, fontname=\"monospace\"];\n");
   outbuf_printf(o, "  n0 [label=\"%zu threads\\n", s->nodes[0].nthreads);
   if (put_set(o, s, s->nodes[0].threads, s->nodes[0].nthreads) < 0)
      return -1;
   outbuf_str(o, "\"];\n");
   for (i = 1; i < s->nnodes && !o->err; i++) {
      const snode *x = &s->nodes[i];
      outbuf_printf(o, "  n%zu [label=\"", i);
      put_dot_str(o, s->fns[x->fn].label);
      outbuf_printf(o, "\\n%zu:", x->nthreads);
      if (put_set(o, s, x->threads, x->nthreads) < 0)
         return -1;
      outbuf_printf(o, "\"];\n  n%zu -> n%zu;\n", x->parent, i);
   }
   outbuf_str(o, "}\n");
   return 0;
}

static int stacks_write(void *state, outbuf *o, const pl_decode_opts *opts)
{
   stacks *s = state;
   const char *filt = pl_filter_describe(opts->filter);

   sort_kids(s);
   if (opts->dot)
      return put_dot(o, s);
   outbuf_printf(o, "== call stacks at the end of %zu thread%s of %zu "
                 "trace%s", s->nthreads, s->nthreads == 1 ? "" : "s",
                 s->ntraces, s->ntraces == 1 ? "" : "s");
   if (*filt)
      outbuf_printf(o, " [%s]", filt);
   if (s->nselective)       /* a stack may lack frames never recorded */
      outbuf_printf(o, " [%zu trace%s record%s selectively]", s->nselective,
                    s->nselective == 1 ? "" : "s",
                    s->nselective == 1 ? "s" : "");
   outbuf_str(o, "\n");
   if (put_tree(o, s) < 0 || put_classes(o, s) < 0 || put_endings(o, s) < 0
       || put_progress(o, s, 0, NULL) < 0)
      return -1;
   return 0;
}

/* --progress: the endings and the progress view alone (always the
   progress, even where every thread has finished or there is only one). */
static int progress_write(void *state, outbuf *o, const pl_decode_opts *opts)
{
   stacks *s = state;
   const char *filt = pl_filter_describe(opts->filter);

   outbuf_printf(o, "== where %zu thread%s of %zu trace%s got to",
                 s->nthreads, s->nthreads == 1 ? "" : "s", s->ntraces,
                 s->ntraces == 1 ? "" : "s");
   if (*filt)
      outbuf_printf(o, " [%s]", filt);
   outbuf_str(o, "\n");
   return put_endings(o, s) < 0 || put_progress(o, s, 1, NULL) < 0 ? -1 : 0;
}

int pl_mode_progress_view(void *state, outbuf *o, const char *of)
{
   return put_progress(o, state, 1, of);
}

/* Threads of class c's processes that it does not show: the others of
   those processes inside the program's code that began elsewhere (an
   OpenMP worker in its share of a parallel region, a pthread in its
   routine), where the class's thread may wait for them (at the region's
   end, in pthread_join), at most INNER_SHOWN, as "; its thread [2.4]  f
   #6 > omp_set_lock".  0, or -1 if out of memory. */
#define INNER_SHOWN 2

static int put_inner_threads(outbuf *o, const stacks *s,
                             const progress_classes *pc, size_t c)
{
   size_t lo = pc->first[c], hi = pc->first[c + 1], i, j, n = 0, more = 0;

   for (i = 0; i < s->nthreads; i++) {
      const sthread *u = &s->threads[i];
      int mine = 0;
      if (!u->pos || u->npos == 0)
         continue;
      for (j = lo; j < hi && &s->threads[pc->order[j]] != u; j++) {
         const sthread *t = &s->threads[pc->order[j]];
         mine |= t->proc == u->proc && t->npos
                 && t->pos[1].fn != u->pos[1].fn;
      }
      if (j < hi || !mine)          /* in the class, or not its process's */
         continue;
      if (n == INNER_SHOWN) {
         more++;
         continue;
      }
      outbuf_str(o, n++ ? "; " : "; its thread ");
      if (put_thread_position(o, s, u) < 0)
         return -1;
   }
   if (more)
      outbuf_printf(o, "; %zu more of its threads", more);
   return 0;
}

/* Positions the header names where none is least progressed; the
   --stacks and --progress views list them all. */
#define STOPPED_POSITIONS 3

int pl_mode_progress_least(void *state, outbuf *o)
{
   progress_classes pc;
   size_t c;
   int ret = 0;

   if (classify_progress(state, &pc) < 0)
      return -1;
   if (pc.nclasses > 1 && pc.cmp < 0 && pc.comparable) {
      outbuf_printf(o, "%zu:", pc.first[1]);
      ret = put_progress_class(o, state, &pc, 0) < 0
            || put_inner_threads(o, state, &pc, 0) < 0 ? -1 : 1;
      if (ret > 0)
         outbuf_printf(o, "  (%zu thread%s further on)", pc.n - pc.first[1],
                       pc.n - pc.first[1] == 1 ? "" : "s");
   } else if (pc.nclasses == 1 && pc.n > 1 && pc.open) {
      /* nobody behind: every thread stopped at one point (a deadlock of
         sends, a collective no rank left) */
      outbuf_printf(o, "%zu:", pc.n);
      ret = put_progress_class(o, state, &pc, 0) < 0 ? -1 : 1;
      if (ret > 0)
         outbuf_str(o, "  (all at the same point)");
   } else if (pc.nclasses > 1 && pc.open) {
      /* not comparable: other calls at one point (a master and a worker,
         each in its own loop) */
      outbuf_printf(o, "%zu positions: ", pc.nclasses);
      for (c = 0; c < pc.nclasses && c < STOPPED_POSITIONS && ret >= 0; c++) {
         outbuf_printf(o, "%s%zu:", c ? "; " : "", pc.first[c + 1] - pc.first[c]);
         ret = put_progress_class(o, state, &pc, c) < 0 ? -1 : 2;
      }
      if (ret > 0 && pc.nclasses > STOPPED_POSITIONS)
         outbuf_str(o, "; ...");
   }
   progress_classes_free(&pc);
   return ret;
}

int pl_mode_crash_site(void *state, outbuf *o)
{
   stacks *s = state;
   const sthread *at = NULL;
   const sproc *first = NULL;
   size_t i, ncrashed = 0;
   thread_key k;

   for (i = 0; i < s->nprocs; i++)
      if (crashed(&s->procs[i]) && ncrashed++ == 0)
         first = &s->procs[i];
   if (!first)
      return 0;
   for (i = 0; i < s->nthreads && !at; i++)
      if (&s->procs[s->threads[i].proc] == first
          && s->threads[i].number == first->ending.signal_thread)
         at = &s->threads[i];
   /* the thread the signal went to (not recorded: the process) */
   thread_key_set(&k, first->pid, first->rank,
                  first->ending.signal_thread ? first->ending.signal_thread : 1);
   if (put_thread_set(o, &k, 1) < 0)
      return -1;
   outbuf_str(o, "  ");
   if (at && at->pos)
      put_position(o, s, at, 1);
   else
      outbuf_str(o, "(in none of the program's calls)");
   outbuf_printf(o, "  (%s)", signal_name(first));
   if (ncrashed > 1)
      outbuf_printf(o, "; %zu more process%s crashed", ncrashed - 1,
                    ncrashed == 2 ? "" : "es");
   return 1;
}

int pl_mode_exit_site(void *state, outbuf *o)
{
   stacks *s = state;
   const sthread *at = NULL;
   size_t i, nprocs = 0, last = (size_t)-1;
   int abort = 0;

   early_exits(s);
   /* a rank in MPI_Abort first (however its trace ended: its launcher
      may kill it there), else a process that exited early; of each
      process, its first thread with a position there */
   for (i = 0; i < s->nthreads; i++) {
      const sthread *t = &s->threads[i];
      int a = aborting(s, t);
      if (!a && !t->exited)
         continue;
      if (t->proc != last) {
         nprocs++;
         last = t->proc;
      }
      if (!at || (a && !abort)) {
         at = t;
         abort = a;
      }
   }
   if (!at)
      return 0;
   if (put_thread_position(o, s, at) < 0)
      return -1;
   if (s->procs[at->proc].ending.kind == PL_ENDING_EXIT) {
      outbuf_str(o, "  (");
      put_ending(o, &s->procs[at->proc]);
      outbuf_str(o, ")");
   }
   if (nprocs > 1)
      outbuf_printf(o, "; %zu more process%s %s", nprocs - 1,
                    nprocs == 2 ? "" : "es",
                    abort ? "aborted or exited early" : "exited early");
   return abort ? 2 : 1;
}

const pl_collect_mode pl_mode_stacks = {
   stacks_create, stacks_file, stacks_write, stacks_destroy, stacks_merge
};

const pl_collect_mode pl_mode_progress = {
   stacks_create, stacks_file, progress_write, stacks_destroy, stacks_merge
};

/* ---- Reading a run for its progress (parlot-diff, parlot-annotate) ---- */

typedef struct {
   const pl_input       *in;
   const pl_decode_opts *d;
   void                 *state;
   int                   oom;
} progress_read;

/* A trace that cannot be read to its end was reported by its reader; the
   view shows what could be read.  NULL if out of memory. */
static void *progress_part(void *ctx, size_t i)
{
   progress_read *c = ctx;
   pl_error err;
   void *part = pl_mode_progress.create(c->d);
   pl_trace *t;
   int k;

   if (!part)
      return NULL;
   t = pl_input_open(&c->in[i], &err);
   k = t ? pl_mode_progress.file(part, t, &err, c->d) : 0;
   pl_trace_close(t);
   if (k < 0 && strcmp(err.msg, "out of memory") == 0) {
      pl_mode_progress.destroy(part);
      return NULL;
   }
   return part;
}

static void progress_merge(void *ctx, size_t i, void *part)
{
   progress_read *c = ctx;
   (void)i;
   if (!part || pl_mode_progress.merge(c->state, part) < 0)
      c->oom = 1;                 /* the merge destroyed the part */
}

void *pl_progress_of_inputs(const pl_input *in, size_t n,
                            const pl_decode_opts *d, unsigned jobs)
{
   progress_read c = { in, d, pl_mode_progress.create(d), 0 };
   pl_ordered_work w = { &c, progress_part, progress_merge };

   if (!c.state)
      return NULL;
   pl_run_ordered(n, jobs, &w);
   if (c.oom) {
      pl_mode_progress.destroy(c.state);
      return NULL;
   }
   return c.state;
}
