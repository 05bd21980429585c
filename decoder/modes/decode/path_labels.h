/* SPDX-License-Identifier: MIT */
/* Call paths as parlot-decode writes them (--paths, --path-of, --folded):
   outermost frame first, as function labels (pl_program.h) escaped as
   everywhere in line output (pl_names.h), with ';' in a label written as
   ':' so that ';' only separates frames.  "By path" means frame by frame,
   each compared bytewise as written (a path before its extensions). */
#ifndef PATH_LABELS_H
#define PATH_LABELS_H

#include <stdint.h>

#include "pl_modes.h"

/* The rows' header of --paths and --path-of: "# calls<TAB>tag<TAB>path",
   with insns "# calls<TAB>insns<TAB>tag<TAB>path", after "# filter: ..."
   when p was read through a filter. */
void path_put_header(outbuf *o, const pl_program *p, int insns);

/* The labels of a program's functions as written, and their order. */
typedef struct {
   char     *arena;
   size_t   *at;        /* [fn]: offset in arena; [nfns+1]: end */
   uint32_t *rank;      /* [fn]: position in the order of the labels */
   uint32_t  nfns;
} path_labels;

/* 0, or -1 if out of memory (l is then empty). */
int  path_labels_build(path_labels *l, const pl_program *p);
void path_labels_free(path_labels *l);

/* "0x" and 16 hex digits. */
void path_put_tag(outbuf *o, uint64_t tag);

/* A row "COUNT<TAB>0xTAG<TAB>path\n" of the path fns[0..depth-1], with
   "INSNS<TAB>" after COUNT unless insns is PATH_NO_INSNS; with comment
   set, "#<TAB>COUNT<TAB>path\n" (no tag, no insns). */
#define PATH_NO_INSNS UINT64_MAX
void path_put_row(outbuf *o, const path_labels *l, uint64_t calls,
                  uint64_t insns, uint64_t tag, int comment,
                  const uint32_t *fns, uint32_t depth);

#endif
