/* SPDX-License-Identifier: MIT */
/* --paths and --folded build the calling-context tree of all the threads
   (pl_cct.h) while the traces are read, then write it in path order. */
#ifndef PATH_TREE_H
#define PATH_TREE_H

#include <stdint.h>

#include "path_labels.h"
#include "pl_cct.h"
#include "pl_modes.h"

typedef struct {
   pl_cct   *cct;
   uint32_t *path;      /* a node's functions, for writing */
   size_t    path_cap;
} path_tree;

/* The pl_program_mode create, visitor, destroy, pack and merge of both
   modes. */
void *path_tree_create(const pl_decode_opts *o);
void  path_tree_visitor(void *state, pl_visitor *v);
void  path_tree_destroy(void *state);
int   path_tree_pack(void *state, unsigned char **buf, size_t *len);
int   path_tree_merge(void *state, const unsigned char *buf, size_t len,
                      const uint32_t *map, uint32_t nmap);

/* --weight=insns needs the traces' costs: 0, or -1 after saying on
   stderr that there are none. */
int path_tree_check_weight(const path_tree *s, const pl_decode_opts *o);

/* The functions of node into s->path, outermost first; its depth, or -1
   if out of memory. */
long path_tree_path(path_tree *s, uint32_t node);

/* The nodes in path order (a path before its extensions, siblings by
   label): a preorder walk with each node's children sorted by the rank of
   their function's label.  *out gets all the nodes, the root first; 0, or
   -1 if out of memory. */
int path_tree_order(const pl_cct *c, const path_labels *l, uint32_t **out);

#endif
