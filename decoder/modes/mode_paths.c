/* SPDX-License-Identifier: MIT */
/* Call paths: parlot-decode --paths, --path-of=TAG and --folded.

   --paths and --folded build the calling-context tree of all the threads
   (pl_cct.h) while the traces are read, then write it:
     --paths    "# calls<TAB>tag<TAB>path", then one row per path called at
                least once, "COUNT<TAB>0xTAG<TAB>f1;f2;...;fn", by
                decreasing count, then by path; --top=N rows (0 = all).
                Then every tag that two or more paths share, as
                "# collision: tag 0xTAG is shared by N paths" and one
                "#<TAB>COUNT<TAB>path" line per path, with a warning on
                stderr (the exit status stays 0).
     --folded   "f1;f2;...;fn COUNT" per path called at least once, by
                path: the input of flamegraph.pl.
   --path-of=TAG needs no tree: it keeps the tag of every frame on the
   stack and records the stacks whose tag is TAG (rows as in --paths).

   Paths are written outermost first, as function labels (pl_program.h)
   escaped as everywhere in line output (pl_names.h), with ';' in a label
   written as ':' so that ';' only separates frames.  "By path" means
   frame by frame, each compared bytewise as written (a path before its
   extensions). */
#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_cct.h"
#include "pl_modes.h"
#include "pl_names.h"
#include "pl_paths.h"

/* ---- Labels as written ---------------------------------------------------- */

typedef struct {
   char     *arena;
   size_t   *at;        /* [fn]: offset in arena; [nfns+1]: end */
   uint32_t *rank;      /* [fn]: position in the order of the labels */
   uint32_t  nfns;
} labels;

static void labels_free(labels *l)
{
   free(l->arena);
   free(l->at);
   free(l->rank);
   memset(l, 0, sizeof *l);
}

static const labels *sort_labels;

static int by_label(const void *a, const void *b)
{
   uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
   const labels *l = sort_labels;
   size_t lx = l->at[x + 1] - l->at[x], ly = l->at[y + 1] - l->at[y];
   int c = memcmp(l->arena + l->at[x], l->arena + l->at[y],
                  lx < ly ? lx : ly);
   if (c)
      return c;
   if (lx != ly)
      return lx < ly ? -1 : 1;
   return x < y ? -1 : x > y;
}

static int labels_build(labels *l, const pl_program *p)
{
   uint32_t n = p->nfns, f, *order;
   size_t total = 0;
   char *q;

   memset(l, 0, sizeof *l);
   l->nfns = n;
   l->at = malloc(((size_t)n + 2) * sizeof *l->at);
   l->rank = malloc(((size_t)n + 1) * sizeof *l->rank);
   order = malloc(((size_t)n + 1) * sizeof *order);
   if (!l->at || !l->rank || !order)
      goto fail;
   for (f = 1; f <= n; f++)
      total += pl_escaped_len(p->fns[f].label, strlen(p->fns[f].label));
   l->arena = malloc(total + 1);
   if (!l->arena)
      goto fail;
   q = l->arena;
   l->at[0] = l->at[1] = 0;
   for (f = 1; f <= n; f++) {
      char *s = q, *e;
      e = pl_put_escaped(q, p->fns[f].label, strlen(p->fns[f].label));
      for (; s < e; s++)
         if (*s == ';')
            *s = ':';
      q = e;
      l->at[f + 1] = (size_t)(q - l->arena);
   }
   for (f = 0; f < n; f++)
      order[f] = f + 1;
   sort_labels = l;
   qsort(order, n, sizeof *order, by_label);
   l->rank[0] = 0;
   for (f = 0; f < n; f++)
      l->rank[order[f]] = f + 1;
   free(order);
   return 0;
fail:
   free(order);
   labels_free(l);
   return -1;
}

static void put_label(outbuf *o, const labels *l, uint32_t fn)
{
   outbuf_write(o, l->arena + l->at[fn], l->at[fn + 1] - l->at[fn]);
}

static void put_path(outbuf *o, const labels *l, const uint32_t *fns,
                     uint32_t depth)
{
   uint32_t k;
   for (k = 0; k < depth; k++) {
      if (k)
         outbuf_write(o, ";", 1);
      put_label(o, l, fns[k]);
   }
}

static void put_u64(outbuf *o, uint64_t v)
{
   char b[24], *p = b + sizeof b;
   do
      *--p = (char)('0' + v % 10);
   while (v /= 10);
   outbuf_write(o, p, (size_t)(b + sizeof b - p));
}

static void put_tag(outbuf *o, uint64_t tag)
{
   static const char hex[] = "0123456789abcdef";
   char b[18];
   int i;
   b[0] = '0';
   b[1] = 'x';
   for (i = 0; i < 16; i++)
      b[2 + i] = hex[(tag >> (60 - 4 * i)) & 15];
   outbuf_write(o, b, sizeof b);
}

/* A row: "COUNT<TAB>0xTAG<TAB>path\n", or with lead "#\t" and no tag. */
static void put_row(outbuf *o, const labels *l, uint64_t calls, uint64_t tag,
                    int comment, const uint32_t *fns, uint32_t depth)
{
   if (comment)
      outbuf_write(o, "#\t", 2);
   put_u64(o, calls);
   outbuf_write(o, "\t", 1);
   if (!comment) {
      put_tag(o, tag);
      outbuf_write(o, "\t", 1);
   }
   put_path(o, l, fns, depth);
   outbuf_write(o, "\n", 1);
}

static const char header[] = "# calls\ttag\tpath\n";

/* ---- --paths and --folded: the tree ------------------------------------- */

typedef struct {
   pl_cct  *cct;
   uint32_t *path;      /* a node's functions, for writing */
   size_t    path_cap;
} tree_state;

static void *tree_create(const pl_decode_opts *o)
{
   tree_state *s = calloc(1, sizeof *s);
   (void)o;
   if (!s)
      return NULL;
   s->cct = pl_cct_new();
   if (!s->cct) {
      free(s);
      return NULL;
   }
   return s;
}

static void tree_visitor(void *state, pl_visitor *v)
{
   pl_cct_visitor(((tree_state *)state)->cct, v);
}

static void tree_destroy(void *state)
{
   tree_state *s = state;
   pl_cct_free(s->cct);
   free(s->path);
   free(s);
}

/* The functions of node into s->path; its depth, or -1 if out of memory. */
static long node_path(tree_state *s, uint32_t node)
{
   uint32_t d = pl_cct_depth(s->cct, node);
   if (d > s->path_cap) {
      size_t cap = d + 64;
      uint32_t *np = realloc(s->path, cap * sizeof *np);
      if (!np)
         return -1;
      s->path = np;
      s->path_cap = cap;
   }
   return (long)pl_cct_path(s->cct, node, s->path);
}

static int u64_order(const void *a, const void *b)
{
   uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
   return x < y ? -1 : x > y;
}

/* The nodes in path order (a path before its extensions, siblings by
   label): a preorder walk with each node's children sorted by the rank of
   their function's label.  *out gets all n nodes, the root first; 0, or
   -1 if out of memory. */
static int path_order(const pl_cct *c, const labels *l, uint32_t **out)
{
   const pl_cct_node *nd = pl_cct_nodes(c);
   size_t n = pl_cct_size(c), i, k, sp = 0, stack_cap = 64;
   uint32_t *first = calloc(n + 1, sizeof *first);
   uint32_t *kids = malloc(n * sizeof *kids);
   uint32_t *order = malloc(n * sizeof *order);
   uint32_t *st_node = malloc(stack_cap * sizeof *st_node);
   uint32_t *st_next = malloc(stack_cap * sizeof *st_next);
   uint64_t *tmp = NULL;
   size_t tmp_cap = 0;
   int ret = -1;

   if (!first || !kids || !order || !st_node || !st_next)
      goto out;
   /* children lists (CSR): first[p] .. first[p+1] in kids */
   for (i = 1; i < n; i++)
      first[nd[i].parent + 1]++;
   for (i = 1; i <= n; i++)
      first[i] += first[i - 1];
   for (i = 1; i < n; i++)
      kids[first[nd[i].parent]++] = (uint32_t)i;
   for (i = n; i > 0; i--)
      first[i] = first[i - 1];
   first[0] = 0;
   /* each list by label rank: insertion sort for the many short lists,
      packed (rank, node) keys and qsort for long ones */
   for (i = 0; i < n; i++) {
      uint32_t a = first[i], b = first[i + 1];
      if (b - a <= 16) {
         uint32_t x, y;
         for (x = a + 1; x < b; x++) {
            uint32_t v = kids[x], rv = l->rank[nd[v].fn];
            for (y = x; y > a && l->rank[nd[kids[y - 1]].fn] > rv; y--)
               kids[y] = kids[y - 1];
            kids[y] = v;
         }
      } else {
         if (b - a > tmp_cap) {
            uint64_t *t = realloc(tmp, (b - a) * sizeof *t);
            if (!t)
               goto out;
            tmp = t;
            tmp_cap = b - a;
         }
         for (k = a; k < b; k++)
            tmp[k - a] = (uint64_t)l->rank[nd[kids[k]].fn] << 32 | kids[k];
         qsort(tmp, b - a, sizeof *tmp, u64_order);
         for (k = a; k < b; k++)
            kids[k] = (uint32_t)tmp[k - a];
      }
   }
   /* preorder */
   k = 0;
   order[k++] = 0;
   st_node[0] = 0;
   st_next[0] = first[0];
   for (;;) {
      uint32_t v = st_node[sp];
      if (st_next[sp] < first[v + 1]) {
         uint32_t w = kids[st_next[sp]++];
         order[k++] = w;
         if (++sp == stack_cap) {
            uint32_t *a2 = realloc(st_node, 2 * stack_cap * sizeof *a2);
            uint32_t *b2;
            if (!a2)
               goto out;
            st_node = a2;
            b2 = realloc(st_next, 2 * stack_cap * sizeof *b2);
            if (!b2)
               goto out;
            st_next = b2;
            stack_cap *= 2;
         }
         st_node[sp] = w;
         st_next[sp] = first[w];
      } else if (sp == 0) {
         break;
      } else {
         sp--;
      }
   }
   *out = order;
   order = NULL;
   ret = 0;
out:
   free(first);
   free(kids);
   free(order);
   free(st_node);
   free(st_next);
   free(tmp);
   return ret;
}

/* Sort entries: a key (calls or tag), then path order. */
typedef struct {
   uint64_t key;
   uint32_t rank;       /* position in path order */
   uint32_t node;
} entry;

static int by_calls_then_path(const void *a, const void *b)
{
   const entry *x = a, *y = b;
   if (x->key != y->key)
      return x->key > y->key ? -1 : 1;
   return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int by_tag_then_path(const void *a, const void *b)
{
   const entry *x = a, *y = b;
   if (x->key != y->key)
      return x->key < y->key ? -1 : 1;
   return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int paths_write(void *state, const pl_program *p, outbuf *o,
                       const pl_decode_opts *opts)
{
   tree_state *s = state;
   const pl_cct_node *nd = pl_cct_nodes(s->cct);
   size_t n = pl_cct_size(s->cct), i, j, k, nrows = 0, top, ncoll = 0;
   uint32_t *order = NULL, *rank = NULL;
   entry *e = NULL;
   labels l;
   int ret = -1;

   if (labels_build(&l, p) < 0)
      return -1;
   if (path_order(s->cct, &l, &order) < 0
       || !(rank = malloc(n * sizeof *rank))
       || !(e = malloc(n * sizeof *e)))
      goto out;
   for (i = 0; i < n; i++)
      rank[order[i]] = (uint32_t)i;
   free(order);
   order = NULL;

   for (i = 1; i < n; i++)
      if (nd[i].calls) {
         e[nrows].key = nd[i].calls;
         e[nrows].rank = rank[i];
         e[nrows].node = (uint32_t)i;
         nrows++;
      }
   qsort(e, nrows, sizeof *e, by_calls_then_path);
   top = opts->top && opts->top < nrows ? opts->top : nrows;
   outbuf_str(o, header);
   for (i = 0; i < top; i++) {
      uint32_t v = e[i].node;
      long d = node_path(s, v);
      if (d < 0)
         goto out;
      put_row(o, &l, nd[v].calls, nd[v].tag, 0, s->path, (uint32_t)d);
   }

   /* collisions: every tag of two or more paths, called or not */
   for (i = 1; i < n; i++) {
      e[i - 1].key = nd[i].tag;
      e[i - 1].rank = rank[i];
      e[i - 1].node = (uint32_t)i;
   }
   qsort(e, n - 1, sizeof *e, by_tag_then_path);
   for (i = 0; i + 1 < n; i = j) {
      for (j = i + 1; j + 1 < n && e[j].key == e[i].key; j++)
         ;
      if (j - i < 2)
         continue;
      ncoll++;
      outbuf_str(o, "# collision: tag ");
      put_tag(o, e[i].key);
      outbuf_printf(o, " is shared by %zu paths\n", j - i);
      for (k = i; k < j; k++) {
         uint32_t v = e[k].node;
         long d = node_path(s, v);
         if (d < 0)
            goto out;
         put_row(o, &l, nd[v].calls, 0, 1, s->path, (uint32_t)d);
      }
   }
   if (ncoll)
      fprintf(stderr, "%s: warning: %zu stack tag%s shared by more than one "
              "call path (listed at the end of the output)\n", opts->prog,
              ncoll, ncoll == 1 ? " is" : "s are");
   ret = 0;
out:
   free(order);
   free(rank);
   free(e);
   labels_free(&l);
   return ret;
}

static int folded_write(void *state, const pl_program *p, outbuf *o,
                        const pl_decode_opts *opts)
{
   tree_state *s = state;
   const pl_cct_node *nd = pl_cct_nodes(s->cct);
   size_t n = pl_cct_size(s->cct), i, sp = 0, stack_cap = 64, cap = 4096;
   uint32_t *order = NULL, *st_node = malloc(stack_cap * sizeof *st_node);
   size_t *st_len = malloc(stack_cap * sizeof *st_len);
   char *buf = malloc(cap);
   labels l;
   int ret = -1;

   (void)opts;
   memset(&l, 0, sizeof l);
   if (!st_node || !st_len || !buf || labels_build(&l, p) < 0
       || path_order(s->cct, &l, &order) < 0)
      goto out;
   /* the stack of the walk: node and the length of its path in buf */
   st_node[0] = 0;
   st_len[0] = 0;
   for (i = 1; i < n; i++) {
      uint32_t v = order[i], fn = nd[v].fn;
      size_t len, ll = l.at[fn + 1] - l.at[fn];
      while (st_node[sp] != nd[v].parent)
         sp--;
      len = st_len[sp];
      if (len + ll + 1 > cap) {
         char *nb;
         while (len + ll + 1 > cap)
            cap *= 2;
         if (!(nb = realloc(buf, cap)))
            goto out;
         buf = nb;
      }
      if (sp)
         buf[len++] = ';';
      memcpy(buf + len, l.arena + l.at[fn], ll);
      len += ll;
      if (++sp == stack_cap) {
         uint32_t *a2 = realloc(st_node, 2 * stack_cap * sizeof *a2);
         size_t *b2;
         if (!a2)
            goto out;
         st_node = a2;
         if (!(b2 = realloc(st_len, 2 * stack_cap * sizeof *b2)))
            goto out;
         st_len = b2;
         stack_cap *= 2;
      }
      st_node[sp] = v;
      st_len[sp] = len;
      if (nd[v].calls) {
         outbuf_write(o, buf, len);
         outbuf_write(o, " ", 1);
         put_u64(o, nd[v].calls);
         outbuf_write(o, "\n", 1);
      }
   }
   ret = 0;
out:
   free(order);
   free(st_node);
   free(st_len);
   free(buf);
   labels_free(&l);
   return ret;
}

const pl_program_mode pl_mode_paths = {
   tree_create, tree_visitor, paths_write, tree_destroy
};

const pl_program_mode pl_mode_folded = {
   tree_create, tree_visitor, folded_write, tree_destroy
};

/* ---- --path-of: tags on the stack --------------------------------------- */

#define NO_MATCH UINT32_MAX

typedef struct {
   uint64_t tag;
   uint32_t fn;         /* program ID */
   uint32_t last_fn;    /* trace ID of the last callee whose path had the
                           tag (0: none) ... */
   uint32_t last_match; /* ... and that path's entry in matches */
} tframe;

typedef struct {
   uint32_t *fns;       /* the path, outermost first */
   uint32_t  depth;
   uint64_t  hash;      /* of fns, to tell paths apart quickly */
   uint64_t  calls;
} match;

typedef struct {
   uint64_t        target;
   tframe         *frames;    /* [depth]; [0] is the empty path */
   size_t          frames_cap;
   match          *m;
   size_t          nm, mcap;
   const pl_gfunc *fns;
   const uint32_t *fn_map;
   uint32_t        inherited;
} tagger;

static void *tagger_create(const pl_decode_opts *o)
{
   tagger *t = calloc(1, sizeof *t);
   if (!t)
      return NULL;
   t->target = o->tag;
   t->frames_cap = 256;
   t->frames = malloc(t->frames_cap * sizeof *t->frames);
   if (!t->frames) {
      free(t);
      return NULL;
   }
   return t;
}

static void tagger_destroy(void *state)
{
   tagger *t = state;
   size_t i;
   for (i = 0; i < t->nm; i++)
      free(t->m[i].fns);
   free(t->m);
   free(t->frames);
   free(t);
}

static int tagger_begin(void *ctx, const pl_program *p, size_t thread,
                        const uint32_t *fn_map)
{
   tagger *t = ctx;
   t->fns = p->fns;
   t->fn_map = fn_map;
   t->inherited = p->threads[thread].inherited;
   memset(&t->frames[0], 0, sizeof t->frames[0]);
   return 0;
}

/* The entry of the path on the stack at frames[1..d], added if new;
   NO_MATCH if out of memory.  A tag has few paths: a linear search. */
static uint32_t find_match(tagger *t, uint32_t d)
{
   uint64_t h = 0xcbf29ce484222325ull;
   uint32_t k;
   size_t i;
   match *m;

   for (k = 1; k <= d; k++)
      h = (h ^ t->frames[k].fn) * 0x100000001b3ull;
   for (i = 0; i < t->nm; i++) {
      m = &t->m[i];
      if (m->hash != h || m->depth != d)
         continue;
      for (k = 0; k < d && m->fns[k] == t->frames[k + 1].fn; k++)
         ;
      if (k == d)
         return (uint32_t)i;
   }
   if (t->nm == t->mcap) {
      size_t cap = t->mcap ? 2 * t->mcap : 8;
      match *nm;
      if (cap >= NO_MATCH || !(nm = realloc(t->m, cap * sizeof *nm)))
         return NO_MATCH;
      t->m = nm;
      t->mcap = cap;
   }
   m = &t->m[t->nm];
   m->fns = malloc((size_t)d * sizeof *m->fns);
   if (!m->fns)
      return NO_MATCH;
   for (k = 0; k < d; k++)
      m->fns[k] = t->frames[k + 1].fn;
   m->depth = d;
   m->hash = h;
   m->calls = 0;
   return (uint32_t)t->nm++;
}

static int tagger_events(void *ctx, const pl_event *ev, size_t n)
{
   tagger *t = ctx;
   const uint32_t *fn_map = t->fn_map;
   const pl_gfunc *fns = t->fns;
   uint64_t target = t->target;
   tframe *fr = t->frames;
   size_t i;

   for (i = 0; i < n; i++) {
      uint32_t f = ev[i].fn, d = ev[i].depth, pf;
      uint64_t tag;

      if (ev[i].kind != PL_EV_CALL)
         continue;
      if (d >= t->frames_cap) {
         size_t cap = t->frames_cap;
         while (cap <= d)
            cap *= 2;
         if (!(fr = realloc(t->frames, cap * sizeof *fr)))
            return -1;
         t->frames = fr;
         t->frames_cap = cap;
      }
      pf = fn_map[f];
      tag = pl_path_mix(fr[d - 1].tag, fns[pf].ident);
      fr[d].tag = tag;
      fr[d].fn = pf;
      fr[d].last_fn = 0;
      if (tag == target) {
         tframe *up = &fr[d - 1];
         uint32_t k;
         if (up->last_fn == f) {
            k = up->last_match;
         } else {
            k = find_match(t, d);
            if (k == NO_MATCH)
               return -1;
            up->last_fn = f;
            up->last_match = k;
         }
         if (!t->inherited)
            t->m[k].calls++;
      }
      if (t->inherited)
         t->inherited--;
   }
   return 0;
}

static void tagger_visitor(void *state, pl_visitor *v)
{
   v->ctx = state;
   v->thread_begin = tagger_begin;
   v->events = tagger_events;
   v->thread_end = NULL;
}

static int by_calls_then_match_path(const void *a, const void *b)
{
   const match *x = a, *y = b;
   const uint32_t *rank = sort_labels->rank;
   uint32_t k;
   if (x->calls != y->calls)
      return x->calls > y->calls ? -1 : 1;
   for (k = 0; k < x->depth && k < y->depth; k++)
      if (x->fns[k] != y->fns[k])
         return rank[x->fns[k]] < rank[y->fns[k]] ? -1 : 1;
   return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static int path_of_write(void *state, const pl_program *p, outbuf *o,
                         const pl_decode_opts *opts)
{
   tagger *t = state;
   labels l;
   size_t i;

   if (t->nm == 0) {
      fprintf(stderr, "%s: tag 0x%016llx occurs in none of the traces\n",
              opts->prog, (unsigned long long)t->target);
      return 1;
   }
   if (labels_build(&l, p) < 0)
      return -1;
   sort_labels = &l;
   qsort(t->m, t->nm, sizeof *t->m, by_calls_then_match_path);
   outbuf_str(o, header);
   for (i = 0; i < t->nm; i++)
      put_row(o, &l, t->m[i].calls, t->target, 0, t->m[i].fns,
              t->m[i].depth);
   labels_free(&l);
   if (t->nm > 1)
      fprintf(stderr, "%s: warning: tag 0x%016llx is shared by %zu call "
              "paths\n", opts->prog, (unsigned long long)t->target, t->nm);
   return 0;
}

const pl_program_mode pl_mode_path_of = {
   tagger_create, tagger_visitor, path_of_write, tagger_destroy
};
