/* SPDX-License-Identifier: MIT */
/* Per-thread call graph builder (pl_callgraph.h).

   Per call: find the caller->callee edge (first in a one-entry cache per
   caller function: loops and recursion call the same callee again and
   again; then in an open-addressing hash table), count it, push a frame.
   Per return: add the frame's subtree to its edge (and, for the
   outermost activation of the edge, to its outer figures: recursion nests
   activations of one edge, whose events would otherwise count many times
   over), and for the outermost activation of the function to the
   function's inclusive events. */
#include <stdlib.h>
#include <string.h>

#include "pl_callgraph.h"
#include "pl_alloc.h"
#include "pl_hash.h"

#define NO_EDGE UINT32_MAX
#define EMPTY   UINT64_MAX

typedef struct {
   uint32_t caller, callee;
   uint32_t active;        /* activations on the stack */
   uint64_t calls, incl_calls, incl_events, outer_calls, outer_events;
   uint64_t incl_cost, outer_cost;
} local_edge;

typedef struct {
   uint32_t fn;
   uint32_t edge;          /* NO_EDGE for an inherited frame */
   uint64_t ev0;           /* index of the call event */
   uint64_t calls0;        /* calls before it */
   uint64_t cost0;         /* the thread's cost up to it */
} frame;

struct pl_cg_builder {
   uint32_t    nfns;
   uint32_t   *onstack;    /* [fn]: activations on the stack */
   uint64_t   *incl;       /* [fn]: inclusive events */
   uint64_t   *self_cost;  /* [fn]: cost while on top, with costs */
   uint64_t   *incl_cost;  /* [fn]: cost while on the stack */
   uint32_t   *last_callee;   /* [caller fn]: its last callee ... */
   uint32_t   *last_edge;     /* ... and the edge to it, or NO_EDGE */
   uint64_t   *keys;       /* edge table: caller << 32 | callee, or EMPTY */
   uint32_t   *slots;      /* edge index per key */
   unsigned    bits;       /* table size 2^bits */
   local_edge *edges;
   size_t      nedges, edges_cap;
   frame      *frames;     /* [depth]; [0] stands for "no caller" */
   size_t      frames_cap;
   uint64_t    depth, max_depth, events, calls;
   uint64_t    cost;       /* of the thread's events so far */
   int         costs;      /* events came with costs */
   uint32_t    inherited;  /* inherited calls still to come */
};

pl_cg_builder *pl_cg_new(uint32_t nfns)
{
   pl_cg_builder *b = calloc(1, sizeof *b);
   if (!b)
      return NULL;
   b->nfns = nfns;
   b->onstack = calloc((size_t)nfns + 1, sizeof *b->onstack);
   b->incl = calloc((size_t)nfns + 1, sizeof *b->incl);
   b->self_cost = calloc((size_t)nfns + 1, sizeof *b->self_cost);
   b->incl_cost = calloc((size_t)nfns + 1, sizeof *b->incl_cost);
   b->last_callee = calloc((size_t)nfns + 1, sizeof *b->last_callee);
   b->last_edge = malloc(((size_t)nfns + 1) * sizeof *b->last_edge);
   b->bits = 10;
   b->keys = malloc(sizeof *b->keys << b->bits);
   b->slots = malloc(sizeof *b->slots << b->bits);
   b->frames_cap = 256;
   b->frames = malloc(b->frames_cap * sizeof *b->frames);
   if (!b->onstack || !b->incl || !b->self_cost || !b->incl_cost
       || !b->last_callee || !b->last_edge || !b->keys || !b->slots || !b->frames) {
      pl_cg_free(b);
      return NULL;
   }
   return b;
}

void pl_cg_free(pl_cg_builder *b)
{
   if (!b)
      return;
   free(b->onstack);
   free(b->incl);
   free(b->self_cost);
   free(b->incl_cost);
   free(b->last_callee);
   free(b->last_edge);
   free(b->keys);
   free(b->slots);
   free(b->edges);
   free(b->frames);
   free(b);
}

void pl_cg_begin(pl_cg_builder *b, uint32_t inherited)
{
   memset(b->keys, 0xff, sizeof *b->keys << b->bits);
   b->nedges = 0;
   b->depth = b->max_depth = b->events = b->calls = b->cost = 0;
   b->costs = 0;
   b->inherited = inherited;
   b->frames[0].fn = 0;
   b->frames[0].edge = NO_EDGE;
   memset(b->last_edge, 0xff, ((size_t)b->nfns + 1) * sizeof *b->last_edge);
}

void pl_cg_recreated(pl_cg_builder *b, uint32_t n)
{
   b->inherited += n;
}

static inline size_t slot_of(uint64_t key, unsigned bits)
{
   return (size_t)pl_golden_slot(key, bits);
}

static int grow_table(pl_cg_builder *b)
{
   unsigned bits = b->bits + 1;
   uint64_t *keys = malloc(sizeof *keys << bits);
   uint32_t *slots = malloc(sizeof *slots << bits);
   size_t i, mask = ((size_t)1 << bits) - 1;

   if (!keys || !slots) {
      free(keys);
      free(slots);
      return -1;
   }
   memset(keys, 0xff, sizeof *keys << bits);
   for (i = 0; i < b->nedges; i++) {
      uint64_t key = (uint64_t)b->edges[i].caller << 32 | b->edges[i].callee;
      size_t s = slot_of(key, bits);
      while (keys[s] != EMPTY)
         s = (s + 1) & mask;
      keys[s] = key;
      slots[s] = (uint32_t)i;
   }
   free(b->keys);
   free(b->slots);
   b->keys = keys;
   b->slots = slots;
   b->bits = bits;
   return 0;
}

/* The edge caller->callee, added if new; NO_EDGE if out of memory. */
static uint32_t find_edge(pl_cg_builder *b, uint32_t caller, uint32_t callee)
{
   uint64_t key = (uint64_t)caller << 32 | callee;
   size_t mask = ((size_t)1 << b->bits) - 1, s = slot_of(key, b->bits);
   local_edge *e;

   while (b->keys[s] != EMPTY) {
      if (b->keys[s] == key)
         return b->slots[s];
      s = (s + 1) & mask;
   }
   if (pl_grow(&b->edges, &b->edges_cap, b->nedges + 1, sizeof *b->edges) < 0)
      return NO_EDGE;
   if (2 * (b->nedges + 1) > ((size_t)1 << b->bits)) {
      if (grow_table(b) < 0)
         return NO_EDGE;
      return find_edge(b, caller, callee);
   }
   b->keys[s] = key;
   b->slots[s] = (uint32_t)b->nedges;
   e = &b->edges[b->nedges];
   e->caller = caller;
   e->callee = callee;
   e->active = 0;
   e->calls = e->incl_calls = e->incl_events = 0;
   e->outer_calls = e->outer_events = 0;
   e->incl_cost = e->outer_cost = 0;
   return (uint32_t)b->nedges++;
}

/* A frame of edge le returns: its subtree (calls made within it, events
   spanned) counts for the edge, and for its outer figures when it is the
   edge's outermost activation. */
static inline void edge_return(local_edge *le, uint64_t calls, uint64_t span,
                               int costs, uint64_t cost)
{
   le->incl_calls += calls;
   le->incl_events += span;
   if (costs)
      le->incl_cost += cost;
   if (--le->active == 0) {
      le->outer_calls += calls;
      le->outer_events += span;
      if (costs)
         le->outer_cost += cost;
   }
}

int pl_cg_events(pl_cg_builder *b, const pl_event *ev, size_t n)
{
   return pl_cg_events_costs(b, ev, NULL, n);
}

/* The counters live in locals for the loop: through b, every store to an
   edge's counters could alias them and force a reload.  An event's cost
   is the frame's on top before it, and counts in the span of every frame
   open after it.  Inline twice, with costs and without (most traces),
   whose loop then has no cost to keep. */
static inline __attribute__((always_inline))
int add_events(pl_cg_builder *b, const pl_event *ev, const uint64_t *cost,
               size_t n)
{
   uint64_t events = b->events, calls = b->calls, max_depth = b->max_depth;
   uint64_t depth = b->depth, total = b->cost;
   uint32_t *onstack = b->onstack, *last_callee = b->last_callee;
   uint32_t *last_edge = b->last_edge;
   uint64_t *incl = b->incl;
   frame *frames = b->frames;
   size_t i;
   int ret = 0;

   if (cost)
      b->costs = 1;
   for (i = 0; i < n; i++, events++) {
      uint32_t f = ev[i].fn, d = ev[i].depth;
      frame *fr;

      if (cost) {
         b->self_cost[frames[depth].fn] += cost[i];
         total += cost[i];
      }
      if (ev[i].kind == PL_EV_CALL) {
         uint32_t e = NO_EDGE, caller;
         if (d >= b->frames_cap) {
            if (pl_grow(&b->frames, &b->frames_cap, (size_t)d + 1,
                        sizeof *b->frames) < 0) {
               ret = -1;
               break;
            }
            frames = b->frames;
         }
         caller = frames[d - 1].fn;
         fr = &frames[d];
         fr->calls0 = calls;
         if (b->inherited) {
            b->inherited--;
         } else {
            if (last_callee[caller] == f && last_edge[caller] != NO_EDGE) {
               e = last_edge[caller];
            } else {
               e = find_edge(b, caller, f);
               if (e == NO_EDGE) {
                  ret = -1;
                  break;
               }
               last_callee[caller] = f;
               last_edge[caller] = e;
            }
            b->edges[e].calls++;
            b->edges[e].active++;
            calls++;
         }
         fr->fn = f;
         fr->edge = e;
         fr->ev0 = events;
         fr->cost0 = total;
         onstack[f]++;
         depth = d;
         if (d > max_depth)
            max_depth = d;
      } else {
         uint64_t span;
         fr = &frames[d];
         span = events - fr->ev0 + 1;
         if (fr->edge != NO_EDGE)
            edge_return(&b->edges[fr->edge], calls - fr->calls0, span,
                        cost != NULL, total - fr->cost0);
         if (--onstack[f] == 0) {
            incl[f] += span;
            if (cost)
               b->incl_cost[f] += total - fr->cost0;
         }
         depth = d - 1;
      }
   }
   b->events = events;
   b->calls = calls;
   b->max_depth = max_depth;
   b->depth = depth;
   b->cost = total;
   return ret;
}

int pl_cg_events_costs(pl_cg_builder *b, const pl_event *ev,
                       const uint64_t *cost, size_t n)
{
   return cost ? add_events(b, ev, cost, n) : add_events(b, ev, NULL, n);
}

static int by_edge(const void *a, const void *b)
{
   const pl_edge *x = a, *y = b;
   if (x->caller != y->caller)
      return x->caller < y->caller ? -1 : 1;
   return x->callee < y->callee ? -1 : x->callee > y->callee;
}

static int by_fn(const void *a, const void *b)
{
   const pl_fstat *x = a, *y = b;
   return x->fn < y->fn ? -1 : x->fn > y->fn;
}

int pl_cg_end(pl_cg_builder *b, const uint32_t *fn_map, pl_graph *out)
{
   uint64_t d;
   size_t i, nf = 0;
   uint32_t f;

   memset(out, 0, sizeof *out);
   /* close the frames still open, at the end of the stream */
   for (d = b->depth; d >= 1; d--) {
      frame *fr = &b->frames[d];
      uint64_t span = b->events - fr->ev0;
      if (fr->edge != NO_EDGE)
         edge_return(&b->edges[fr->edge], b->calls - fr->calls0, span, 1,
                     b->cost - fr->cost0);
      if (--b->onstack[fr->fn] == 0) {
         b->incl[fr->fn] += span;
         b->incl_cost[fr->fn] += b->cost - fr->cost0;
      }
   }
   b->depth = 0;

   out->events = b->events;
   out->costs = b->costs;
   out->cost = b->cost;
   out->calls = b->calls;
   out->max_depth = b->max_depth;
   out->edges = malloc((b->nedges ? b->nedges : 1) * sizeof *out->edges);
   if (!out->edges)
      return -1;
   for (i = 0; i < b->nedges; i++) {
      const local_edge *le = &b->edges[i];
      pl_edge *e = &out->edges[i];
      e->caller = le->caller ? fn_map[le->caller] : 0;
      e->callee = fn_map[le->callee];
      e->calls = le->calls;
      e->incl_calls = le->incl_calls;
      e->incl_events = le->incl_events;
      e->outer_calls = le->outer_calls;
      e->outer_events = le->outer_events;
      e->incl_cost = le->incl_cost;
      e->outer_cost = le->outer_cost;
   }
   out->nedges = b->nedges;
   qsort(out->edges, out->nedges, sizeof *out->edges, by_edge);

   /* functions: those called, and those only inherited (inclusive
      events but no calls); onstack is all zero again and marks callees */
   for (i = 0; i < b->nedges; i++)
      b->onstack[b->edges[i].callee] = 1;
   for (f = 1; f <= b->nfns; f++)
      if (b->onstack[f] || b->incl[f])
         nf++;
   out->fns = calloc(nf ? nf : 1, sizeof *out->fns);
   if (!out->fns) {
      free(out->edges);
      out->edges = NULL;
      return -1;
   }
   nf = 0;
   for (f = 1; f <= b->nfns; f++) {
      if (b->onstack[f] || b->incl[f]) {
         out->fns[nf].fn = fn_map[f];
         out->fns[nf].incl_events = b->incl[f];
         out->fns[nf].self_cost = b->self_cost[f];
         out->fns[nf].incl_cost = b->incl_cost[f];
         nf++;
      }
      b->onstack[f] = 0;
      b->incl[f] = 0;
      b->self_cost[f] = b->incl_cost[f] = 0;
   }
   out->nfns = nf;
   qsort(out->fns, nf, sizeof *out->fns, by_fn);
   for (i = 0; i < out->nedges; i++) {
      pl_fstat key = { out->edges[i].callee, 0, 0, 0, 0 }, *s;
      s = bsearch(&key, out->fns, nf, sizeof *s, by_fn);
      s->calls += out->edges[i].calls;
   }
   return 0;
}
