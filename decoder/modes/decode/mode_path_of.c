/* SPDX-License-Identifier: MIT */
/* parlot-decode --path-of=TAG: the call paths whose stack tag (pl_paths.h)
   is TAG, with their counts, as rows of --paths.  It needs no tree: it
   keeps the tag of every frame on the stack while the traces are read and
   records the stacks whose tag is TAG. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path_labels.h"
#include "pl_hash.h"
#include "pl_paths.h"
#include "pl_wire.h"

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
   uint64_t h = PL_FNV1A_INIT;
   uint32_t k;
   size_t i;
   match *m;

   for (k = 1; k <= d; k++)
      h = pl_fnv1a_step(h, t->frames[k].fn);
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

static const path_labels *sort_labels;   /* qsort's context */

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
   path_labels l;
   size_t i;

   if (t->nm == 0) {
      fprintf(stderr, "%s: tag 0x%016llx occurs in none of the traces\n",
              opts->prog, (unsigned long long)t->target);
      return 1;
   }
   if (path_labels_build(&l, p) < 0)
      return -1;
   sort_labels = &l;
   qsort(t->m, t->nm, sizeof *t->m, by_calls_then_match_path);
   path_put_header(o, p, 0);
   for (i = 0; i < t->nm; i++)
      path_put_row(o, &l, t->m[i].calls, PATH_NO_INSNS, t->target, 0,
                   t->m[i].fns, t->m[i].depth);
   path_labels_free(&l);
   if (t->nm > 1)
      fprintf(stderr, "%s: warning: tag 0x%016llx is shared by %zu call "
              "paths\n", opts->prog, (unsigned long long)t->target, t->nm);
   return 0;
}

/* parlot-decode-mpi: u64 paths; per path u32 depth, u64 calls, u32
   functions outermost first. */
static int tagger_pack(void *state, unsigned char **buf, size_t *len)
{
   tagger *t = state;
   pl_wbuf w = { 0 };
   pl_wire_u64(&w, t->nm);
   for (size_t i = 0; i < t->nm; i++) {
      pl_wire_u32(&w, t->m[i].depth);
      pl_wire_u64(&w, t->m[i].calls);
      for (uint32_t k = 0; k < t->m[i].depth; k++)
         pl_wire_u32(&w, t->m[i].fns[k]);
   }
   return pl_wire_finish(&w, buf, len);
}

/* Each packed path, mapped, is looked up as a stack on t->frames (free
   once the traces are read) and its calls added. */
static int tagger_merge(void *state, const unsigned char *buf, size_t len,
                        const uint32_t *map, uint32_t nmap)
{
   tagger *t = state;
   pl_rbuf r = { buf, buf + len, 0, 0 };
   size_t n = pl_wire_count(&r, 12);

   for (size_t i = 0; i < n && !r.bad; i++) {
      uint32_t d = pl_wire_get_u32(&r), k, at;
      uint64_t calls = pl_wire_get_u64(&r);
      if (d == 0 || d > (size_t)(r.end - r.p) / 4)
         return 1;
      if (pl_grow(&t->frames, &t->frames_cap, (size_t)d + 1,
                  sizeof *t->frames) < 0)
         return -1;
      for (k = 1; k <= d; k++) {
         uint32_t fn = pl_wire_get_u32(&r);
         if (fn == 0 || fn > nmap || !map[fn])
            return 1;
         t->frames[k].fn = map[fn];
      }
      if ((at = find_match(t, d)) == NO_MATCH)
         return -1;
      t->m[at].calls += calls;
   }
   return r.bad || r.p != r.end ? 1 : 0;
}

const pl_program_mode pl_mode_path_of = {
   tagger_create, tagger_visitor, path_of_write, tagger_destroy,
   tagger_pack, tagger_merge
};
