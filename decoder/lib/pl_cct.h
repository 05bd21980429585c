/* SPDX-License-Identifier: MIT */
/* A calling-context tree: every distinct call path of a program's threads,
   once, with the number of calls that produced exactly that path.

   A node is a path: its parent's path plus one function (a program
   function ID, so the threads of all traces share one tree).  Node 0 is
   the empty path, the root.  A node is added after its parent, so its
   index is larger: one pass in index order meets parents first.

   The tree is built from a thread's events as they are decoded (the
   pl_visitor of pl_program.h).  Memory holds the distinct paths (a
   32-byte node and 8 to 16 bytes of hash table each) and a node index
   per level of the deepest stack, never the events.  Per call: the
   caller's node remembers its last child (loops call the same function
   again and again, and a function called in a loop tends to make the
   same calls each time), otherwise one probe of a hash table keyed by
   (parent node, function); a return costs nothing, as the next call
   gives its own depth. */
#ifndef PL_CCT_H
#define PL_CCT_H

#include <stddef.h>
#include <stdint.h>

#include "pl_program.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
   uint32_t parent;     /* parent node; 0 for the root itself */
   uint32_t fn;         /* program function ID; 0 for the root */
   uint64_t calls;      /* calls whose stack was exactly this path */
   uint64_t tag;        /* the path's stack tag (pl_paths.h); root: 0 */
   uint32_t last_fn;    /* the builder's cache: function of the child last
                           looked up (0: none) ... */
   uint32_t last_child; /* ... and that child */
   uint64_t cost;       /* with costs (since 0.9): what the events cost
                           while this path was the stack (exclusive) */
} pl_cct_node;

typedef struct pl_cct pl_cct;

/* An empty tree (just the root); NULL if out of memory. */
pl_cct *pl_cct_new(void);
void    pl_cct_free(pl_cct *c);

/* Start a thread of program p whose trace function IDs map to program IDs
   by fn_map (both must stay valid until the thread's last events).  Its
   first `inherited` calls re-create the stack of a forked parent: their
   paths are added, but not counted as calls. */
void pl_cct_begin(pl_cct *c, const pl_program *p, const uint32_t *fn_map,
                  uint32_t inherited);
/* Add a batch of the thread's events (as checked by pl_events_next: a
   call at depth d follows a frame at depth d-1).  0, or -1 if out of
   memory or beyond 2^32-1 paths. */
int  pl_cct_events(pl_cct *c, const pl_event *ev, size_t n);
/* The same with each event's cost (pl_view_costs()), which goes to the
   path that was the stack before the event (the root's: before the first
   call).  (Since libparlot 0.9.) */
int  pl_cct_events_costs(pl_cct *c, const pl_event *ev,
                         const uint64_t *cost, size_t n);
/* Whether any events came with costs.  (Since libparlot 0.9.) */
int  pl_cct_has_costs(const pl_cct *c);

/* A visitor calling the functions above (with pl_thread.inherited), for
   pl_program_read(). */
void pl_cct_visitor(pl_cct *c, pl_visitor *v);

/* The nodes, root included: nodes[0..size-1]. */
size_t             pl_cct_size(const pl_cct *c);
const pl_cct_node *pl_cct_nodes(const pl_cct *c);

/* Length of node's path (the root's is 0). */
uint32_t pl_cct_depth(const pl_cct *c, uint32_t node);
/* node's functions, outermost first, into fns (room for pl_cct_depth());
   returns the depth. */
uint32_t pl_cct_path(const pl_cct *c, uint32_t node, uint32_t *fns);

/* ---- Trees between processes (since libparlot 0.5) ---------------------

   A tree built by another process (an MPI rank) from later traces: it
   packs its tree into bytes (pl_cct_pack: 0, or -1 if out of memory;
   *buf is malloc'ed), this process merges its program
   (pl_program_merge_map) and then the bytes, mapping the packed tree's
   function IDs through map (nmap + 1 entries).  The result is the tree
   reading those traces after c's would have built, node for node.  0; 1
   if the bytes are not such a tree (what came before the fault is
   merged); -1 if out of memory. */
int pl_cct_pack(const pl_cct *c, unsigned char **buf, size_t *len);
int pl_cct_merge(pl_cct *c, const unsigned char *buf, size_t len,
                 const uint32_t *map, uint32_t nmap);

#ifdef __cplusplus
}
#endif

#endif
