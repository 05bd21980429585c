/* SPDX-License-Identifier: MIT */
/* Calls to lines, with nested-loop folding (pl_fold.h).

   Each open frame holds the elements its completed callees became, in a
   list whose element hashes sit in a parallel array, so that the search
   for a repeat (is the last element equal to the one k back?) scans 8-byte
   words.  Elements are equal when their hashes are: a hash covers the
   function, the loop count and, Merkle-style, the hashes of everything
   inside, so equal hashes of different elements need a 64-bit collision.

   Frames form a prefix of "streamed" ones, whose call line has been
   written: only they write their finished elements.  A frame that is not
   streamed holds all its elements, because its own line (and whether it
   joins a loop) is not known until it returns.  When more than the held
   budget is held, the outermost frame that is not streamed becomes
   streamed (what its parent held is written first); when all are, the
   deepest frame writes its oldest elements. */

#include <stdlib.h>
#include <string.h>

#include "pl_alloc.h"
#include "pl_fold.h"
#include "pl_hash.h"

#define HELD_PER_WINDOW 256    /* elements held across frames, per body
                                  element of the window */
#define MAX_VARIANTS    8      /* iterations kept as variants, per loop */
#define MAX_HELD_FRAMES 4096   /* open frames that are not streamed */

typedef struct elem elem;

typedef struct {
   elem    **v;
   uint64_t *h;          /* h[i] = v[i]->hash */
   size_t   *body;       /* body[i]: v[i]'s body length if a loop, else 0 */
   size_t    n, cap;
} elist;

typedef struct {
   uint64_t iter;        /* from 1 */
   elist    body;
} variant;

struct elem {
   int      loop;
   uint32_t fn;          /* a call's function */
   uint64_t number;      /* event number of its first event */
   uint64_t count;       /* a loop's iterations */
   uint64_t bhash;       /* a loop's body-list hash */
   uint64_t hash;
   size_t   size;        /* elements in this one, itself included */
   elist    kids;        /* a call's callees; a loop's body (its first
                            iteration) */
   elist    last;        /* a loop's last iteration (equal to the body):
                            an iteration that follows it and differs may
                            belong to it */
   variant *var;
   size_t   nvar;
   elem    *next_free;   /* in the pool */
};

typedef struct {
   uint32_t fn;
   uint64_t number;
   uint32_t child_indent;   /* streamed: display level of its callees */
   elist    kids;
   size_t   held;           /* sizes of kids, summed */
} frame;

struct pl_fold {
   size_t   window;         /* longest body; 0 = no folding */
   size_t   keep;           /* elements a streamed frame keeps for folding */
   size_t   budget;         /* elements held across frames */
   frame   *fr;             /* fr[0] the thread, fr[1..depth] open calls */
   size_t   fr_cap, fr_init, depth;   /* fr[0..fr_init) initialised */
   size_t   streamed;       /* fr[0..streamed] are streamed */
   size_t   held;
   pl_line *out;
   size_t   nout, out_cap;
   elem    *pool;           /* released elements, their lists' arrays kept */
};

/* ---- Elements ------------------------------------------------------------ */

/* Elements come from a pool and go back to it with their lists' arrays:
   a call and its return then cost no allocation once the pool has grown
   to what is held at most. */

static void elist_clear(pl_fold *f, elist *l);

static elem *elem_new(pl_fold *f)
{
   elem *e = f->pool;
   elist kids, last;

   if (!e)
      return calloc(1, sizeof *e);
   f->pool = e->next_free;
   kids = e->kids;
   last = e->last;
   memset(e, 0, sizeof *e);
   e->kids = kids;
   e->last = last;
   return e;
}

static void elist_destroy(pl_fold *f, elist *l)
{
   elist_clear(f, l);
   free(l->v);
   free(l->h);
   free(l->body);
   memset(l, 0, sizeof *l);
}

/* e and everything in it go back to the pool. */
static void elem_release(pl_fold *f, elem *e)
{
   size_t i;
   elist_clear(f, &e->kids);
   elist_clear(f, &e->last);
   for (i = 0; i < e->nvar; i++)
      elist_destroy(f, &e->var[i].body);
   free(e->var);
   e->var = NULL;
   e->nvar = 0;
   e->next_free = f->pool;
   f->pool = e;
}

static void elist_clear(pl_fold *f, elist *l)
{
   size_t i;
   for (i = 0; i < l->n; i++)
      elem_release(f, l->v[i]);
   l->n = 0;
}

static int elist_push(elist *l, elem *e)
{
   if (l->n == l->cap) {
      size_t cap = l->cap ? 2 * l->cap : 4;
      elem **v = realloc(l->v, cap * sizeof *v);
      uint64_t *h = v ? realloc(l->h, cap * sizeof *h) : NULL;
      size_t *body = h ? realloc(l->body, cap * sizeof *body) : NULL;
      if (v)
         l->v = v;
      if (h)
         l->h = h;
      if (!body)
         return -1;
      l->body = body;
      l->cap = cap;
   }
   l->v[l->n] = e;
   l->body[l->n] = e->loop ? e->kids.n : 0;
   l->h[l->n++] = e->hash;
   return 0;
}

/* Move elements [from, from + n) of src into the empty list *dst (src
   still owns them if this fails). */
static int elist_take(elist *dst, elist *src, size_t from, size_t n)
{
   size_t i;
   for (i = 0; i < n; i++)
      if (elist_push(dst, src->v[from + i]) < 0) {
         dst->n = 0;
         return -1;
      }
   return 0;
}

static uint64_t list_hash(const uint64_t *h, size_t n)
{
   uint64_t x = pl_fnv1a_step(PL_FNV1A_INIT, n);
   size_t i;
   for (i = 0; i < n; i++)
      x = pl_fnv1a_step(x, h[i]);
   return x;
}

static int lists_equal(const uint64_t *a, const uint64_t *b, size_t n)
{
   return memcmp(a, b, n * sizeof *a) == 0;
}

static void loop_rehash(elem *e)
{
   uint64_t x = pl_fnv1a_step(pl_fnv1a_step(2, e->count), e->bhash);
   size_t i;
   for (i = 0; i < e->nvar; i++)
      x = pl_fnv1a_step(pl_fnv1a_step(x, e->var[i].iter),
                        list_hash(e->var[i].body.h, e->var[i].body.n));
   e->hash = x;
}

static size_t list_size(const elist *l, size_t from, size_t n)
{
   size_t s = 0, i;
   for (i = 0; i < n; i++)
      s += l->v[from + i]->size;
   return s;
}

/* ---- Lines --------------------------------------------------------------- */

static int add_line(pl_fold *f, uint32_t kind, uint32_t fn, uint32_t depth,
                    uint32_t indent, uint64_t count, uint64_t number)
{
   pl_line *l;
   if (pl_grow(&f->out, &f->out_cap, f->nout + 1, sizeof *f->out) < 0)
      return -1;
   l = &f->out[f->nout++];
   l->kind = kind;
   l->fn = fn;
   l->depth = depth;
   l->indent = indent;
   l->count = count;
   l->number = number;
   return 0;
}

static int merge_variant(pl_fold *f, frame *fr);
static int reduce(pl_fold *f, frame *fr);

/* The second phase of folding, on a list whose elements are final (about
   to be written): where a loop, a few elements Y and another loop of the
   same body follow each other, Y becomes a variant iteration of one loop
   (merge_variant).  Loops are first folded as they come, nested as far
   as they go, without variants: a body that varies with a period (an
   extra call every 5th iteration) folds into a loop of loops instead of
   one loop with a variant per period; what stays unfolded after that is
   a single iteration that differs.  The held-element counts are left as
   they were: the list is written and released next.  0, or -1 if out of
   memory. */
static int settle_variants(pl_fold *f, elist *l)
{
   frame fake;
   size_t i, loops = 0, held = f->held;
   elist old = *l;
   int ret = 0;

   for (i = 0; i < l->n; i++)
      loops += l->v[i]->loop;
   if (loops < 2)
      return 0;
   memset(&fake, 0, sizeof fake);
   for (i = 0; i < old.n; i++) {
      int r = 0;
      if (elist_push(&fake.kids, old.v[i]) < 0) {
         ret = -1;
         break;
      }
      /* a merge can leave calls that are one more copy of the body */
      if (fake.kids.v[fake.kids.n - 1]->loop
          && ((r = merge_variant(f, &fake)) < 0
              || (r > 0 && reduce(f, &fake) < 0))) {
         ret = -1;
         i++;
         break;
      }
      if (!r && reduce(f, &fake) < 0) {
         ret = -1;
         i++;
         break;
      }
   }
   /* out of memory: the elements not yet moved follow (those that cannot
      are lost, not released twice) */
   for (; i < old.n; i++)
      if (elist_push(&fake.kids, old.v[i]) < 0)
         break;
   f->held = held;
   free(old.v);
   free(old.h);
   free(old.body);
   *l = fake.kids;
   return ret;
}

/* Write e, whose calls are at view depth `depth`, at display level
   `indent`.  The nesting is bounded by the held budget. */
static int emit(pl_fold *f, elem *e, uint32_t indent, uint32_t depth)
{
   size_t i, j;

   if (settle_variants(f, &e->kids) < 0)
      return -1;
   if (!e->loop) {
      if (add_line(f, PL_LINE_CALL, e->fn, depth, indent, 0, e->number) < 0)
         return -1;
      for (i = 0; i < e->kids.n; i++)
         if (emit(f, e->kids.v[i], indent + 1, depth + 1) < 0)
            return -1;
      return 0;
   }
   if (add_line(f, PL_LINE_LOOP, 0, depth, indent, e->count, e->number) < 0)
      return -1;
   for (i = 0; i < e->kids.n; i++)
      if (emit(f, e->kids.v[i], indent + 1, depth) < 0)
         return -1;
   for (j = 0; j < e->nvar; j++) {
      elist *b = &e->var[j].body;
      if (settle_variants(f, b) < 0)
         return -1;
      if (add_line(f, PL_LINE_VARIANT, 0, depth, indent + 1, e->var[j].iter,
                   b->n ? b->v[0]->number : 0) < 0)
         return -1;
      for (i = 0; i < b->n; i++)
         if (emit(f, b->v[i], indent + 2, depth) < 0)
            return -1;
      if (add_line(f, PL_LINE_VARIANT_END, 0, depth, indent + 1, 0, 0) < 0)
         return -1;
   }
   return add_line(f, PL_LINE_LOOP_END, 0, depth, indent, 0, 0);
}

/* Write and free the first n elements of streamed frame d. */
static int emit_front(pl_fold *f, size_t d, size_t n)
{
   frame *fr = &f->fr[d];
   size_t i;

   /* variants among the elements written now, when they are all of the
      frame's (a long frame writes its oldest while the rest still fold) */
   if (n == fr->kids.n) {
      size_t before = list_size(&fr->kids, 0, fr->kids.n), after;
      int r = settle_variants(f, &fr->kids);
      after = list_size(&fr->kids, 0, fr->kids.n);
      fr->held -= before - after;       /* merged loops released some */
      f->held -= before - after;
      if (r < 0)
         return -1;
      n = fr->kids.n;
   }

   for (i = 0; i < n; i++) {
      elem *e = fr->kids.v[i];
      if (emit(f, e, fr->child_indent, (uint32_t)d + 1) < 0)
         return -1;
      fr->held -= e->size;
      f->held -= e->size;
      elem_release(f, e);
   }
   if (fr->kids.n > n) {         /* (no arrays yet when nothing came) */
      memmove(fr->kids.v, fr->kids.v + n,
              (fr->kids.n - n) * sizeof *fr->kids.v);
      memmove(fr->kids.h, fr->kids.h + n,
              (fr->kids.n - n) * sizeof *fr->kids.h);
      memmove(fr->kids.body, fr->kids.body + n,
              (fr->kids.n - n) * sizeof *fr->kids.body);
   }
   fr->kids.n -= n;
   return 0;
}

/* ---- Folding ------------------------------------------------------------- */

/* Whether body b (k hashes) is body a rotated by r: b = a[r..] a[..r]. */
static int rotated(const uint64_t *a, const uint64_t *b, size_t k, size_t r)
{
   return memcmp(b, a + r, (k - r) * sizeof *a) == 0
          && memcmp(b + k - r, a, r * sizeof *a) == 0;
}

/* Whether the m hashes at y are the k of body b in another order (two
   calls swapped); bodies longer than 64 are not compared. */
static int same_calls(const uint64_t *y, size_t m, const uint64_t *b,
                      size_t k)
{
   unsigned char used[64] = { 0 };
   size_t i, j;
   if (m != k || k > 64)
      return 0;
   for (i = 0; i < m; i++) {
      for (j = 0; j < k && (used[j] || b[j] != y[i]); j++)
         ;
      if (j == k)
         return 0;
      used[j] = 1;
   }
   return 1;
}

/* Whether a and b are calls of one function (their callees may differ):
   an iteration that starts or ends with such a call is that iteration
   changed, not another call added next to it. */
static int same_function(const elem *a, const elem *b)
{
   return !a->loop && !b->loop && a->fn == b->fn;
}

/* A loop's size: itself, its body, last iteration and variants. */
static void loop_resize(elem *l)
{
   size_t i;
   l->size = 1 + list_size(&l->kids, 0, l->kids.n)
             + list_size(&l->last, 0, l->last.n);
   for (i = 0; i < l->nvar; i++)
      l->size += list_size(&l->var[i].body, 0, l->var[i].body.n);
}

/* kids ends with a loop l2 just formed (count 2).  If a loop l1 of the
   same body B comes shortly before it, with elements Y between them, the
   two may be one loop with one iteration that differs:
     l1 Y l2 = B^c1 Y B[r..] B^(c2-1) B[..r]    (l2's body is B rotated)
   Which iteration differs, from what Y looks like:
     - Y starts or ends as B does (the same element, or a call of the same
       function whose callees differ), or is B's calls in another order
       (and l2 is not rotated): Y is iteration c1+1;
     - else, if l2 is not rotated, Y was added at the end of iteration c1,
       which becomes B Y (l1's last iteration, kept for this);
     - else Y B[r..] is iteration c1+1 (a call added inside it), and
       B[..r] stays after the loop, where the next calls continue it.
   Returns 1 if merged, 0 if not, -1 if out of memory. */
static int merge_variant(pl_fold *f, frame *fr)
{
   enum { SELF, AFTER_PREV, BEFORE_NEXT } how;
   elist *kids = &fr->kids;
   elem *l2 = kids->v[kids->n - 1], *l1;
   size_t k = l2->kids.n, m, p, r, i, tail;
   variant *nv;

   for (m = 1; m <= 2 * k + 1 && m + 2 <= kids->n; m++) {
      p = kids->n - 2 - m;
      l1 = kids->v[p];
      if (!l1->loop || l1->kids.n != k || l1->nvar >= MAX_VARIANTS)
         continue;
      for (r = 0; r < k; r++) {
         const uint64_t *y = kids->h + p + 1, *b = l1->kids.h;
         elem *const *ye = kids->v + p + 1, *const *be = l1->kids.v;
         int starts = y[0] == b[0] || same_function(ye[0], be[0]);
         int ends = y[m - 1] == b[k - 1]
                    || same_function(ye[m - 1], be[k - 1]);
         int short_y = m <= 2;
         if (!rotated(b, l2->kids.h, k, r))
            continue;
         if (r == 0 && (starts || ends || same_calls(y, m, b, k)))
            how = SELF;
         else if (r == 0 && (starts || short_y) && l1->last.n == k)
            how = AFTER_PREV;
         else if (starts || short_y)
            how = BEFORE_NEXT;
         else
            continue;
         nv = realloc(l1->var, (l1->nvar + 1) * sizeof *nv);
         if (!nv)
            return -1;
         l1->var = nv;
         nv = &l1->var[l1->nvar];
         memset(nv, 0, sizeof *nv);
         if (how == AFTER_PREV) {
            if (elist_take(&nv->body, &l1->last, 0, k) < 0)
               return -1;
            l1->last.n = 0;
         }
         if (elist_take(&nv->body, kids, p + 1, m) < 0)
            return -1;
         tail = how == BEFORE_NEXT ? k - r : 0;
         for (i = 0; i < tail; i++)
            if (elist_push(&nv->body, l2->kids.v[i]) < 0)
               return -1;
         nv->iter = how == AFTER_PREV ? l1->count : l1->count + 1;
         l1->nvar++;
         l1->count += how == SELF ? 1 + l2->count : l2->count;
         /* the loop's last iteration is now l2's, if it is aligned */
         elist_clear(f, &l1->last);
         if (r == 0) {
            if (elist_take(&l1->last, &l2->last, 0, l2->last.n) < 0)
               return -1;
            l2->last.n = 0;
         }
         loop_resize(l1);
         loop_rehash(l1);
         kids->h[p] = l1->hash;
         kids->n = p + 1;
         /* what is left of l2: B[..r] after the loop, when rotated */
         for (i = tail; i < k && tail; i++)
            if (elist_push(kids, l2->kids.v[i]) < 0)
               return -1;
         if (tail)
            l2->kids.n = 0;      /* its body moved */
         elem_release(f, l2);
         f->held -= fr->held;
         fr->held = list_size(kids, 0, kids->n);
         f->held += fr->held;
         return 1;
      }
   }
   return 0;
}

/* Fold the end of frame fr's list as far as it goes.  Returns 0, or -1 if
   out of memory. */
static int reduce(pl_fold *f, frame *fr)
{
   elist *kids = &fr->kids;

   for (;;) {
      size_t n = kids->n, k, kmax = n < f->window ? n : f->window;
      int changed = 0;

      for (k = 1; k <= kmax && !changed; k++) {
         /* one more copy of a loop's body: count it */
         if (n >= k + 1 && kids->body[n - k - 1] == k) {
            elem *l = kids->v[n - k - 1];
            if (l->kids.h[k - 1] == kids->h[n - 1]
                && lists_equal(l->kids.h, kids->h + n - k, k)) {
               /* the copy becomes the loop's last iteration */
               size_t s = list_size(&l->last, 0, l->last.n);
               elist_clear(f, &l->last);
               if (elist_take(&l->last, kids, n - k, k) < 0)
                  return -1;
               kids->n = n - k;
               fr->held -= s;
               f->held -= s;
               loop_resize(l);
               l->count++;
               loop_rehash(l);
               kids->h[n - k - 1] = l->hash;
               changed = 1;
               continue;
            }
         }
         /* the last k repeat the k before them: a loop of 2 */
         if (n >= 2 * k && kids->h[n - 1] == kids->h[n - 1 - k]
             && lists_equal(kids->h + n - 2 * k, kids->h + n - k, k)) {
            elem *l = elem_new(f);
            if (!l)
               return -1;
            if (elist_take(&l->kids, kids, n - 2 * k, k) < 0
                || elist_take(&l->last, kids, n - k, k) < 0) {
               l->kids.n = 0;
               elem_release(f, l);
               return -1;
            }
            l->loop = 1;
            l->count = 2;
            l->number = l->kids.v[0]->number;
            l->bhash = list_hash(l->kids.h, k);
            loop_resize(l);
            loop_rehash(l);
            kids->n = n - 2 * k;
            fr->held += 1;
            f->held += 1;
            if (elist_push(kids, l) < 0) {
               elem_release(f, l);
               return -1;
            }
            changed = 1;
         }
      }
      if (!changed)
         return 0;
   }
}

/* Frame d (its parent streamed) becomes streamed: what the parent holds
   comes before it, then its own line. */
static int stream_frame(pl_fold *f, size_t d)
{
   frame *p = &f->fr[d - 1], *fr = &f->fr[d];
   uint32_t indent = p->child_indent;

   if (emit_front(f, d - 1, p->kids.n) < 0)
      return -1;
   if (add_line(f, PL_LINE_CALL, fr->fn, (uint32_t)d, indent, 0,
                fr->number) < 0)
      return -1;
   fr->child_indent = indent + 1;
   f->streamed = d;
   return 0;
}

/* A streamed frame writes what can no longer fold. */
static int settle(pl_fold *f, size_t d)
{
   frame *fr = &f->fr[d];
   if (d <= f->streamed && fr->kids.n > 2 * f->keep)
      return emit_front(f, d, fr->kids.n - f->keep);
   return 0;
}

static int enforce_budget(pl_fold *f)
{
   while (f->held > f->budget) {
      if (f->streamed < f->depth) {
         if (stream_frame(f, f->streamed + 1) < 0 || settle(f, f->streamed) < 0)
            return -1;
      } else {
         frame *fr = &f->fr[f->depth];
         if (fr->kids.n == 0)
            break;
         if (emit_front(f, f->depth, 1) < 0)
            return -1;
      }
   }
   return 0;
}

/* ---- Events -------------------------------------------------------------- */

static int call(pl_fold *f, const pl_vevent *e)
{
   frame *fr;
   if (pl_grow(&f->fr, &f->fr_cap, f->depth + 2, sizeof *f->fr) < 0)
      return -1;
   fr = &f->fr[++f->depth];
   if (f->depth == f->fr_init) {
      memset(fr, 0, sizeof *fr);
      f->fr_init++;
   }
   fr->held = 0;
   fr->child_indent = 0;
   fr->kids.n = 0;          /* its arrays are reused */
   fr->fn = e->fn;
   fr->number = e->number;
   /* elements nest as deep as the frames that are not streamed: bounded,
      so that writing and freeing them can recurse */
   if (f->depth - f->streamed > MAX_HELD_FRAMES
       && (stream_frame(f, f->streamed + 1) < 0
           || settle(f, f->streamed) < 0))
      return -1;
   return 0;
}

/* The innermost open frame returns. */
static int ret(pl_fold *f)
{
   size_t d = f->depth;
   frame *fr = &f->fr[d], *p = &f->fr[d - 1];
   elem *e;

   if (d <= f->streamed) {
      if (emit_front(f, d, fr->kids.n) < 0)
         return -1;
      f->streamed = d - 1;
      f->depth--;
      return 0;
   }
   e = elem_new(f);
   if (!e)
      return -1;
   {
      elist spare = e->kids;     /* the frame gets the element's arrays */
      e->kids = fr->kids;
      fr->kids = spare;
   }
   e->fn = fr->fn;
   e->number = fr->number;
   e->size = 1 + fr->held;
   e->hash = pl_fnv1a_step(pl_fnv1a_step(1, e->fn),
                           list_hash(e->kids.h, e->kids.n));
   f->depth--;
   if (elist_push(&p->kids, e) < 0) {
      elem_release(f, e);
      return -1;
   }
   p->held += e->size;
   f->held += 1;
   if (reduce(f, p) < 0 || settle(f, d - 1) < 0)
      return -1;
   return enforce_budget(f);
}

int pl_fold_events(pl_fold *f, const pl_vevent *ev, size_t n)
{
   size_t i;

   for (i = 0; i < n; i++) {
      const pl_vevent *e = &ev[i];
      if (!f->window) {
         if (e->kind == PL_EV_CALL
             && add_line(f, PL_LINE_CALL, e->fn, e->depth, e->depth - 1, 0,
                         e->number) < 0)
            return -1;
         continue;
      }
      if (e->kind == PL_EV_CALL) {
         if (call(f, e) < 0)
            return -1;
      } else if (f->depth > 0) {
         if (ret(f) < 0)
            return -1;
      }
   }
   return 0;
}

int pl_fold_end(pl_fold *f)
{
   if (!f->window)
      return 0;
   while (f->depth > 0)
      if (ret(f) < 0)
         return -1;
   return emit_front(f, 0, f->fr[0].kids.n);
}

const pl_line *pl_fold_take(pl_fold *f, size_t *n)
{
   *n = f->nout;
   f->nout = 0;
   return f->out;
}

pl_fold *pl_fold_new(size_t window)
{
   pl_fold *f = calloc(1, sizeof *f);
   if (!f)
      return NULL;
   f->window = window;
   f->keep = 4 * window + 4;
   f->budget = window * HELD_PER_WINDOW;
   if (window) {
      if (pl_grow(&f->fr, &f->fr_cap, 1, sizeof *f->fr) < 0) {
         free(f);
         return NULL;
      }
      memset(&f->fr[0], 0, sizeof f->fr[0]);
      f->fr_init = 1;
   }
   return f;
}

void pl_fold_free(pl_fold *f)
{
   size_t d;
   if (!f)
      return;
   for (d = 0; d < f->fr_init; d++)
      elist_destroy(f, &f->fr[d].kids);
   while (f->pool) {
      elem *e = f->pool;
      f->pool = e->next_free;
      free(e->kids.v);
      free(e->kids.h);
      free(e->kids.body);
      free(e->last.v);
      free(e->last.h);
      free(e->last.body);
      free(e);
   }
   free(f->fr);
   free(f->out);
   free(f);
}
