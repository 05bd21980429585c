/* SPDX-License-Identifier: MIT */
/* Calling-context tree (pl_cct.h).

   The child table is open addressing over node indices (0 = empty slot):
   a slot holds only the index, and a probe compares the node's own parent
   and function, which costs no extra memory traffic because a hit goes on
   to count the call in that very node.  The table stays at most half
   full.  Per thread, frames[d] is the node of the frame at depth d. */
#include <stdlib.h>
#include <string.h>

#include "pl_cct.h"
#include "pl_alloc.h"
#include "pl_hash.h"
#include "pl_paths.h"
#include "pl_wire.h"

struct pl_cct {
   pl_cct_node    *nodes;
   size_t          n, cap;
   uint32_t       *slot;   /* child table: node index, 0 = empty */
   unsigned        bits;   /* 2^bits slots */
   uint32_t       *frames; /* [depth]: node; [0] is the root */
   size_t          frames_cap;
   const pl_gfunc *fns;    /* the program's functions, for their idents */
   const uint32_t *fn_map; /* trace ID -> program ID */
   uint32_t        inherited;   /* inherited calls still to come */
   uint32_t        depth;  /* of the stack after the last event */
   int             costs;  /* events came with costs */
};

static inline size_t slot_of(uint32_t parent, uint32_t fn, unsigned bits)
{
   uint64_t key = (uint64_t)parent << 32 | fn;
   return (size_t)pl_golden_slot(key, bits);
}

pl_cct *pl_cct_new(void)
{
   pl_cct *c = calloc(1, sizeof *c);
   if (!c)
      return NULL;
   c->cap = 1024;
   c->nodes = malloc(c->cap * sizeof *c->nodes);
   c->bits = 11;
   c->slot = calloc((size_t)1 << c->bits, sizeof *c->slot);
   c->frames_cap = 256;
   c->frames = malloc(c->frames_cap * sizeof *c->frames);
   if (!c->nodes || !c->slot || !c->frames) {
      pl_cct_free(c);
      return NULL;
   }
   memset(&c->nodes[0], 0, sizeof c->nodes[0]);
   c->n = 1;
   return c;
}

void pl_cct_free(pl_cct *c)
{
   if (!c)
      return;
   free(c->nodes);
   free(c->slot);
   free(c->frames);
   free(c);
}

void pl_cct_begin(pl_cct *c, const pl_program *p, const uint32_t *fn_map,
                  uint32_t inherited)
{
   c->fns = p->fns;
   c->fn_map = fn_map;
   c->inherited = inherited;
   c->frames[0] = 0;
   c->depth = 0;
}

static int grow_table(pl_cct *c)
{
   unsigned bits = c->bits + 1;
   size_t mask = ((size_t)1 << bits) - 1, i;
   uint32_t *slot = calloc((size_t)1 << bits, sizeof *slot);

   if (!slot)
      return -1;
   for (i = 1; i < c->n; i++) {
      size_t s = slot_of(c->nodes[i].parent, c->nodes[i].fn, bits);
      while (slot[s])
         s = (s + 1) & mask;
      slot[s] = (uint32_t)i;
   }
   free(c->slot);
   c->slot = slot;
   c->bits = bits;
   return 0;
}

/* The child of parent for program function fn, added if new (with the
   tag *tag, or if tag is NULL the one made from fn's ident); 0 if out of
   memory (or of node indices). */
static uint32_t child(pl_cct *c, uint32_t parent, uint32_t fn,
                      const uint64_t *tag)
{
   size_t mask = ((size_t)1 << c->bits) - 1, s;
   pl_cct_node *nd;
   uint32_t i;

   for (s = slot_of(parent, fn, c->bits); (i = c->slot[s]) != 0;
        s = (s + 1) & mask)
      if (c->nodes[i].parent == parent && c->nodes[i].fn == fn)
         return i;
   if (c->n >= UINT32_MAX)
      return 0;
   if (pl_grow(&c->nodes, &c->cap, c->n + 1, sizeof *c->nodes) < 0)
      return 0;
   if (2 * (c->n + 1) > mask + 1) {
      if (grow_table(c) < 0)
         return 0;
      mask = ((size_t)1 << c->bits) - 1;
      for (s = slot_of(parent, fn, c->bits); c->slot[s]; s = (s + 1) & mask)
         ;
   }
   i = (uint32_t)c->n++;
   c->slot[s] = i;
   nd = &c->nodes[i];
   nd->parent = parent;
   nd->fn = fn;
   nd->calls = 0;
   nd->tag = tag ? *tag : pl_path_mix(c->nodes[parent].tag, c->fns[fn].ident);
   nd->last_fn = 0;
   nd->last_child = 0;
   nd->cost = 0;
   return i;
}

int pl_cct_events(pl_cct *c, const pl_event *ev, size_t n)
{
   return pl_cct_events_costs(c, ev, NULL, n);
}

int pl_cct_has_costs(const pl_cct *c)
{
   return c->costs;
}

int pl_cct_events_costs(pl_cct *c, const pl_event *ev, const uint64_t *cost,
                        size_t n)
{
   const uint32_t *fn_map = c->fn_map;
   uint32_t *frames = c->frames;
   size_t i;

   if (cost)
      c->costs = 1;
   for (i = 0; i < n; i++) {
      uint32_t f, d = ev[i].depth, up, ch;
      pl_cct_node *u;

      /* the path on top before the event: depth d - 1 before a call */
      if (cost)
         c->nodes[frames[ev[i].kind == PL_EV_CALL ? d - 1 : d]].cost
            += cost[i];
      c->depth = ev[i].kind == PL_EV_CALL ? d : d - 1;
      if (ev[i].kind != PL_EV_CALL)
         continue;
      if (d >= c->frames_cap) {
         if (pl_grow(&c->frames, &c->frames_cap, (size_t)d + 1,
                     sizeof *c->frames) < 0)
            return -1;
         frames = c->frames;
      }
      f = fn_map[ev[i].fn];
      up = frames[d - 1];
      u = &c->nodes[up];
      if (u->last_fn == f) {
         ch = u->last_child;
      } else {
         ch = child(c, up, f, NULL);
         if (!ch)
            return -1;
         u = &c->nodes[up];         /* child() may move the nodes */
         u->last_fn = f;
         u->last_child = ch;
      }
      if (c->inherited)
         c->inherited--;
      else
         c->nodes[ch].calls++;
      frames[d] = ch;
   }
   return 0;
}

static int visit_begin(void *ctx, const pl_program *p, size_t thread,
                       const uint32_t *fn_map)
{
   pl_cct_begin(ctx, p, fn_map, p->threads[thread].inherited);
   return 0;
}

static int visit_events(void *ctx, const pl_event *ev, size_t n)
{
   return pl_cct_events(ctx, ev, n);
}

static int visit_events_costs(void *ctx, const pl_event *ev,
                              const uint64_t *cost, size_t n)
{
   return pl_cct_events_costs(ctx, ev, cost, n);
}

void pl_cct_visitor(pl_cct *c, pl_visitor *v)
{
   v->ctx = c;
   v->thread_begin = visit_begin;
   v->events = visit_events;
   v->thread_end = NULL;
   v->events_costs = visit_events_costs;
}

size_t pl_cct_size(const pl_cct *c)
{
   return c->n;
}

const pl_cct_node *pl_cct_nodes(const pl_cct *c)
{
   return c->nodes;
}

uint32_t pl_cct_depth(const pl_cct *c, uint32_t node)
{
   uint32_t d = 0;
   for (; node; node = c->nodes[node].parent)
      d++;
   return d;
}

uint32_t pl_cct_path(const pl_cct *c, uint32_t node, uint32_t *fns)
{
   uint32_t d = pl_cct_depth(c, node), k = d;
   for (; node; node = c->nodes[node].parent)
      fns[--k] = c->nodes[node].fn;
   return d;
}

/* ---- Trees between processes ------------------------------------------ */

/* Layout: u32 whether there were costs, u64 the root's cost, u64 nodes
   (the root excluded), then per node from 1 on: u32 parent, u32 fn, u64
   calls, u64 tag (a tag is the same in every program: it is made of the
   functions' idents), u64 cost. */
int pl_cct_pack(const pl_cct *c, unsigned char **buf, size_t *len)
{
   pl_wbuf w = { 0 };
   pl_wire_u32(&w, (uint32_t)c->costs);
   pl_wire_u64(&w, c->nodes[0].cost);
   pl_wire_u64(&w, c->n - 1);
   for (size_t i = 1; i < c->n; i++) {
      pl_wire_u32(&w, c->nodes[i].parent);
      pl_wire_u32(&w, c->nodes[i].fn);
      pl_wire_u64(&w, c->nodes[i].calls);
      pl_wire_u64(&w, c->nodes[i].tag);
      pl_wire_u64(&w, c->nodes[i].cost);
   }
   return pl_wire_finish(&w, buf, len);
}

/* A packed tree's nodes are visited in index order, so parents first; its
   new paths are added in that order, which is the order reading its
   threads after c's would have added them. */
int pl_cct_merge(pl_cct *c, const unsigned char *buf, size_t len,
                 const uint32_t *map, uint32_t nmap)
{
   pl_rbuf r = { buf, buf + len, 0, 0 };
   int costs = (int)pl_wire_get_u32(&r);
   uint64_t root_cost = pl_wire_get_u64(&r);
   size_t n = pl_wire_count(&r, 32), i;
   uint32_t *idx;
   int ret = 0;

   if (r.bad)
      return 1;
   c->costs |= costs != 0;
   c->nodes[0].cost += root_cost;
   if (!(idx = malloc((n + 1) * sizeof *idx)))
      return -1;
   idx[0] = 0;
   for (i = 1; i <= n; i++) {
      uint32_t parent = pl_wire_get_u32(&r), fn = pl_wire_get_u32(&r);
      uint64_t calls = pl_wire_get_u64(&r), tag = pl_wire_get_u64(&r);
      uint64_t cost = pl_wire_get_u64(&r);
      if (r.bad || parent >= i || fn == 0 || fn > nmap || !map[fn]) {
         ret = 1;
         break;
      }
      if (!(idx[i] = child(c, idx[parent], map[fn], &tag))) {
         ret = -1;
         break;
      }
      c->nodes[idx[i]].calls += calls;
      c->nodes[idx[i]].cost += cost;
   }
   free(idx);
   return ret != 0 ? ret : r.p == r.end ? 0 : 1;
}
