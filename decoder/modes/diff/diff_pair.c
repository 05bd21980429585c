/* SPDX-License-Identifier: MIT */
/* Comparing two threads' lines (diff_pair.h). */

#include <stdlib.h>
#include <string.h>

#include "diff_pair.h"
#include "call_numbers.h"
#include "diff_report.h"
#include "pl_alloc.h"
#include "pl_filter.h"
#include "pl_hash.h"

#define SYNC_LINES  3      /* equal lines that end a hunk */

/* One side's look-ahead: lines [head, n) of v. */
typedef struct {
   diff_side *s;
   call_numbers nums;      /* the lines passed, numbered (without loops) */
   int        numbered;
   pl_line   *v;
   uint64_t  *key;
   size_t     head, n, cap;
   int        ended;
   uint64_t   last;        /* event number of the last line passed */
   uint8_t   *entry_at;    /* [depth]: the last call there is a library's
                              (the program's view: pl_filter.h) */
   size_t     entry_cap;
   pl_line    held;        /* a callback waiting for the line after it */
   int        holding;
} side_buf;

static uint64_t line_key(const diff_side *s, const pl_line *l, int ignore)
{
   uint64_t h = pl_fnv1a_step(PL_FNV1A_INIT, l->kind);
   h = pl_fnv1a_step(h, l->depth);
   h = pl_fnv1a_step(h, l->indent);
   if (l->kind == PL_LINE_CALL)
      h = pl_fnv1a_step(h, s->ident[l->fn]);
   else if (l->kind == PL_LINE_MARK)
      h = pl_fnv1a(pl_fnv1a_step(h, l->count), l->label, strlen(l->label));
   else if (!ignore)
      h = pl_fnv1a_step(h, l->count);
   return h;
}

/* Append line l to b: 0, or -1 if out of memory. */
static int push_line(side_buf *b, const pl_line *l, int ignore)
{
   if (b->n == b->cap && b->head > 0) {
      memmove(b->v, b->v + b->head, (b->n - b->head) * sizeof *b->v);
      memmove(b->key, b->key + b->head, (b->n - b->head) * sizeof *b->key);
      b->n -= b->head;
      b->head = 0;
   }
   if (b->n == b->cap) {
      size_t cap = b->cap;
      if (pl_grow(&b->v, &cap, b->n + 1, sizeof *b->v) < 0)
         return -1;
      cap = b->cap;
      if (pl_grow(&b->key, &cap, b->n + 1, sizeof *b->key) < 0)
         return -1;
      b->cap = cap;
   }
   b->v[b->n] = *l;
   b->key[b->n++] = line_key(b->s, l, ignore);
   return 0;
}

/* Whether call line l is the program's code called back by a library
   call (qsort's comparator, std::sort's): in the program's view, a call
   whose caller's line is a library's. */
static int callback(const side_buf *b, const pl_line *l)
{
   const uint8_t *keep = b->s->keep;
   return keep && l->kind == PL_LINE_CALL && l->depth >= 2
          && l->depth - 1 < b->entry_cap && b->entry_at[l->depth - 1]
          && keep[l->fn] != PL_KEEP_ENTRY;
}

/* Take line l from the source: a callback that makes no call shown (a
   comparator) is the library call's detail, as many as its data has it
   in any run, and is left out; so it waits for the next line, which
   says whether it made one.  0, or -1 if out of memory. */
static int take_line(side_buf *b, const pl_line *l, int ignore)
{
   if (b->holding) {
      b->holding = 0;
      if (l->depth > b->held.depth && push_line(b, &b->held, ignore) < 0)
         return -1;
   }
   if (b->s->keep && l->kind == PL_LINE_CALL) {
      if (pl_grow(&b->entry_at, &b->entry_cap, (size_t)l->depth + 1, 1) < 0)
         return -1;
      b->entry_at[l->depth] = b->s->keep[l->fn] == PL_KEEP_ENTRY;
      if (callback(b, l)) {
         b->held = *l;
         b->holding = 1;
         return 0;
      }
   }
   return push_line(b, l, ignore);
}

/* Have at least want lines buffered, or all that are left: 0, or -1. */
static int fill(side_buf *b, size_t want, int ignore, pl_error *err)
{
   if (b->head > 0 && b->head == b->n)
      b->head = b->n = 0;
   while (!b->ended && b->n - b->head < want) {
      const pl_line *l;
      int r = thread_lines_next(b->s->src, &l, err);
      if (r < 0)
         return -1;
      if (r == 0) {
         b->ended = 1;
         /* the thread stopped there (a crash in a comparator) */
         if (b->holding && push_line(b, &b->held, ignore) < 0)
            goto oom;
         b->holding = 0;
         break;
      }
      if (take_line(b, l, ignore) < 0)
         goto oom;
   }
   return 0;
oom:
   pl_error_set(err, 0, "out of memory");
   return -1;
}

static size_t avail(const side_buf *b)
{
   return b->n - b->head;
}

static int same(const side_buf *a, size_t i, const side_buf *b, size_t j)
{
   return a->key[a->head + i] == b->key[b->head + j];
}

/* How many lines A from i and B from j agree for, at most limit and up
   to the end of the shorter look-ahead; SIZE_MAX if they agree to the
   end of both runs. */
static size_t agree_for(const side_buf *a, size_t i, const side_buf *b,
                        size_t j, size_t limit)
{
   size_t na = avail(a), nb = avail(b), k;
   for (k = 0; k < limit && i + k < na && j + k < nb
               && same(a, i + k, b, j + k); k++)
      ;
   return i + k == na && j + k == nb && a->ended && b->ended ? SIZE_MAX : k;
}

/* Whether A from i and B from j agree again: for SYNC_LINES lines, or
   up to the end of both. */
static int agree(const side_buf *a, size_t i, const side_buf *b, size_t j)
{
   return agree_for(a, i, b, j, SYNC_LINES) >= SYNC_LINES;
}

/* The first mark of A's look-ahead that B's holds too: 1 with their
   positions in *ma and *mb, else 0. */
static int common_mark(const side_buf *a, const side_buf *b, size_t *ma,
                       size_t *mb)
{
   size_t na = avail(a), nb = avail(b), i, j;
   for (i = 0; i < na; i++) {
      if (a->v[a->head + i].kind != PL_LINE_MARK)
         continue;
      for (j = 0; j < nb; j++)
         if (b->v[b->head + j].kind == PL_LINE_MARK && same(a, i, b, j)) {
            *ma = i;
            *mb = j;
            return 1;
         }
   }
   return 0;
}

/* The nearest re-synchronisation point: *ri lines of A and *rj of B to
   skip.  Nearest: the fewest lines skipped on the side that skips more
   (max(i, j)); then the point from which the sides agree longest (in a
   loop of one call, a call inserted after its 7th pass agrees to the
   loop's end as an insertion, but as two passes replaced only up to
   the two passes the other side then has more); then the two sides
   skipping alike (|i - j| least: a call replaced, or two swapped, stays
   one hunk instead of an insertion here and a deletion further on);
   then the fewest in all.  Only points with
   i <= lim_a and j <= lim_b count.  Found: 1; none within the
   look-ahead: 0; -1 if out of memory.  B's positions are
   chained by key, so each line of A visits only the lines of B that equal
   it. */
static int resync(const side_buf *a, const side_buf *b, size_t lim_a,
                  size_t lim_b, size_t *ri, size_t *rj)
{
   size_t na = avail(a), nb = avail(b), i, j, mask;
   size_t best = SIZE_MAX, best_d = SIZE_MAX, best_sum = SIZE_MAX;
   size_t best_len = 0;
   int len_known = 0;        /* best_len is the best point's agreement */
   size_t *slot, *next;
   unsigned bits = 4;

   while (((size_t)1 << bits) < 2 * nb + 2)
      bits++;
   mask = ((size_t)1 << bits) - 1;
   slot = malloc(((size_t)1 << bits) * sizeof *slot);
   next = malloc((nb + 1) * sizeof *next);
   if (!slot || !next) {
      free(slot);
      free(next);
      return -1;
   }
   memset(slot, 0xff, ((size_t)1 << bits) * sizeof *slot);
   for (j = nb; j-- > 0;) {          /* chains in increasing order */
      uint64_t key = b->key[b->head + j];
      size_t s = (size_t)pl_golden_slot(key, bits);
      while (slot[s] != SIZE_MAX && b->key[b->head + slot[s]] != key)
         s = (s + 1) & mask;
      next[j] = slot[s];
      slot[s] = j;
   }
   for (i = 0; i < na && i <= best && i <= lim_a; i++) {
      uint64_t key = a->key[a->head + i];
      size_t s = (size_t)pl_golden_slot(key, bits);
      while (slot[s] != SIZE_MAX && b->key[b->head + slot[s]] != key)
         s = (s + 1) & mask;
      for (j = slot[s]; j != SIZE_MAX && j <= best && j <= lim_b;
           j = next[j]) {
         size_t mx = i > j ? i : j, d = i > j ? i - j : j - i, len = 0;
         if (mx > best || !agree(a, i, b, j))
            continue;
         if (mx == best) {         /* a tie: the longer agreement first */
            if (!len_known) {
               best_len = agree_for(a, *ri, b, *rj, SIZE_MAX);
               len_known = 1;
            }
            len = agree_for(a, i, b, j, SIZE_MAX);
            if (len < best_len
                || (len == best_len
                    && (d > best_d || (d == best_d && i + j >= best_sum))))
               continue;
         }
         len_known = mx == best;
         best_len = len;
         best = mx;
         best_d = d;
         best_sum = i + j;
         *ri = i;
         *rj = j;
      }
   }
   free(slot);
   free(next);
   if (best != SIZE_MAX)
      return 1;
   if (a->ended && b->ended) {     /* nothing agrees again: all differs */
      *ri = na;
      *rj = nb;
      return 1;
   }
   return 0;
}

/* resync(), bounded by the first mark both look-aheads hold when
   aligning on marks: if the sides do not agree again before it, they are
   re-synchronised at it. */
static int resync_marks(const side_buf *a, const side_buf *b, int align,
                        size_t *ri, size_t *rj)
{
   size_t ma = SIZE_MAX, mb = SIZE_MAX;
   int anchored = align && common_mark(a, b, &ma, &mb);
   int r = resync(a, b, ma, mb, ri, rj);

   if (r >= 0 && anchored && (!r || *ri > ma || *rj > mb)) {
      *ri = ma;
      *rj = mb;
      r = 1;
   }
   return r;
}

/* ---- Output -------------------------------------------------------------- */

#define OUTER_MAX 8        /* calls named around a hunk's context */

typedef struct {
   pl_line  *ring;         /* last equal lines of A, for context */
   uint64_t *ring_num;     /* their call numbers (0: none known) */
   pl_line  *ring_parent;  /* the call each is inside of (depth 0: none) */
   uint64_t *ring_parent_num;
   size_t    n, next, cap;
   pl_line  *last;         /* [depth - 1]: A's last call line at depth */
   uint64_t *last_num;     /* its number */
   size_t    last_cap, last_num_cap;
   size_t    path_len;     /* A's calls open: last[0 .. path_len) */
   pl_line   outer[OUTER_MAX];      /* a hunk's calls around its context */
   uint64_t  outer_num[OUTER_MAX];
} context;

/* A's line l (number num) was passed: the calls open and the last call at
   its depth follow it.  0, or -1 if out of memory. */
static int track(context *c, const pl_line *l, uint64_t num)
{
   if (l->kind != PL_LINE_CALL)
      return 0;
   if (pl_grow(&c->last, &c->last_cap, l->depth, sizeof *c->last) < 0
       || pl_grow(&c->last_num, &c->last_num_cap, l->depth,
                  sizeof *c->last_num) < 0)
      return -1;
   c->path_len = l->depth;
   c->last[l->depth - 1] = *l;
   c->last_num[l->depth - 1] = num;
   return 0;
}

static int remember(context *c, const pl_line *l, uint64_t num)
{
   /* the last call one level up is the one l is inside of */
   int parent = l->kind == PL_LINE_CALL && l->depth >= 2
                && l->depth - 1 <= c->path_len;
   if (c->cap) {
      c->ring_parent[c->next].depth = 0;
      if (parent) {
         c->ring_parent[c->next] = c->last[l->depth - 2];
         c->ring_parent_num[c->next] = c->last_num[l->depth - 2];
      }
   }
   if (track(c, l, num) < 0)
      return -1;
   if (!c->cap)
      return 0;
   c->ring[c->next] = *l;
   c->ring_num[c->next] = num;
   c->next = (c->next + 1) % c->cap;
   if (c->n < c->cap)
      c->n++;
   return 0;
}

/* Pass n lines of b; if rec, rec[i] gets the i-th line's number among
   its caller's calls of its function (0: not a call, or not known). */
static void skip(side_buf *b, size_t n, uint64_t *rec)
{
   size_t i;
   for (i = 0; i < n; i++) {
      const pl_line *l = &b->v[b->head + i];
      if (l->number)
         b->last = l->number;
      if (rec)
         rec[i] = 0;
      if (b->numbered && l->kind == PL_LINE_CALL) {
         uint64_t num = call_numbers_call(&b->nums, l->depth, l->fn);
         if (rec)
            rec[i] = num;
      }
   }
   b->head += n;
}

/* The numbers of b's open calls at depths 1..len into num: 1, or 0 when
   they are not known (loops folded: a line stands for many calls). */
static int path_numbers(const side_buf *b, size_t len, uint64_t *num)
{
   size_t i;
   if (!b->numbered || b->nums.broken)
      return 0;
   for (i = 0; i < len; i++)
      if (!(num[i] = call_numbers_open(&b->nums, (uint32_t)i + 1)))
         return 0;
   return 1;
}

/* Side b's last mark at or before event `after` (NULL if none). */
static const pl_mark *mark_before(const side_buf *b, uint64_t after)
{
   const pl_mark *m = NULL;
   size_t i;
   for (i = 0; i < b->s->nmarks && b->s->marks[i].position <= after; i++)
      m = &b->s->marks[i];
   return m;
}

/* The calls ring line k is inside of, from the difference's depth on,
   into h (outer first): its parent, kept with it, then each last call one
   level up that began before the call below it (a later one at that
   depth has replaced the one that enclosed it: the chain stops). */
static void outer_calls(context *c, size_t k, size_t depth, diff_hunk *h)
{
   size_t n = 0, d;
   const pl_line *inner = &c->ring_parent[k];
   if (c->ring[k].depth <= depth || !inner->depth)
      return;
   c->outer[OUTER_MAX - ++n] = *inner;
   c->outer_num[OUTER_MAX - n] = c->ring_parent_num[k];
   for (d = inner->depth - 1; d >= depth && d >= 1 && n < OUTER_MAX; d--) {
      if (c->last[d - 1].number >= inner->number)
         break;
      inner = &c->last[d - 1];
      c->outer[OUTER_MAX - ++n] = *inner;
      c->outer_num[OUTER_MAX - n] = c->last_num[d - 1];
   }
   h->outer = &c->outer[OUTER_MAX - n];
   h->outer_num = &c->outer_num[OUTER_MAX - n];
   h->nouter = n;
}

/* Whether line l, numbered num, can name the pass at depth: a call made
   there that is not its caller's first of that function. */
static int names_pass(const pl_line *l, uint64_t num, size_t depth)
{
   return l->kind == PL_LINE_CALL && l->depth == depth && num >= 2;
}

/* h's step (diff_hunk.step): a loop written inline in its caller (a
   main program's time steps) numbers none of the calls open, so the
   calls it makes say which pass it is in.  The context's lines from the
   last back to the call open at depth - 1, that is, in the same call;
   the program's own call first, also one the context begins inside of
   (h->outer: `exchange #5` around the context's MPI calls), then a
   library call. */
static void step_before(size_t depth, const uint8_t *keep, diff_hunk *h)
{
   size_t i;
   const pl_line *lib = NULL;
   uint64_t lib_num = 0;
   if (!h->ctx_num)
      return;
   for (i = 0; i < h->path_len; i++)
      if (!h->path_num_a || h->path_num_a[i] > 1 || h->path_num_b[i] > 1)
         return;
   for (i = h->nctx; i-- > 0 && h->ctx[i].depth >= depth;) {
      if (!names_pass(&h->ctx[i], h->ctx_num[i], depth))
         continue;
      if (!keep || keep[h->ctx[i].fn] == PL_KEEP_YES) {
         h->step = &h->ctx[i];
         h->step_num = h->ctx_num[i];
         return;
      }
      if (!lib) {          /* a library call, unless an own one comes */
         lib = &h->ctx[i];
         lib_num = h->ctx_num[i];
      }
   }
   for (i = h->nouter; i-- > 0;)
      if (names_pass(&h->outer[i], h->outer_num[i], depth)
          && (!keep || keep[h->outer[i].fn] == PL_KEEP_YES)) {
         h->step = &h->outer[i];
         h->step_num = h->outer_num[i];
         return;
      }
   if (lib) {
      h->step = lib;
      h->step_num = lib_num;
   }
}

/* Give the report the hunk of the next na lines of a and nb of b, and
   pass them if passing (their call numbers are known once passed).  0, or
   -1 if out of memory. */
static int report_hunk(diff_report *rep, context *c, side_buf *a,
                       side_buf *b, size_t na, size_t nb, int passing)
{
   int ret = 0;
   const pl_line *first = na ? &a->v[a->head] : nb ? &b->v[b->head] : NULL;
   size_t depth = first ? first->depth : 1, i;
   pl_line *ctx = malloc((c->n + 1) * sizeof *ctx);
   uint64_t *ctx_num = malloc((c->n + 1) * sizeof *ctx_num);
   uint64_t *num = NULL, *rec = NULL;
   diff_hunk h;

   if (!ctx || !ctx_num
       || (passing && !(rec = malloc((na + nb + 1) * sizeof *rec)))) {
      free(ctx);
      free(ctx_num);
      return -1;
   }
   for (i = 0; i < c->n; i++) {
      size_t k = (c->next + c->cap - c->n + i) % c->cap;
      ctx[i] = c->ring[k];
      ctx_num[i] = c->ring_num[k];
   }
   memset(&h, 0, sizeof h);
   h.ctx = ctx;
   h.nctx = c->n;
   h.ctx_num = a->numbered ? ctx_num : NULL;
   /* the context begins inside calls deeper than the difference: those
      calls, whose numbers say which (an iteration of the loop around) */
   if (c->n && a->numbered)
      outer_calls(c, (c->next + c->cap - c->n) % c->cap, depth, &h);
   h.a = &a->v[a->head];
   h.b = &b->v[b->head];
   h.na_all = na;
   h.nb_all = nb;
   h.na = na < DIFF_HUNK_LINES ? na : DIFF_HUNK_LINES;
   h.nb = nb < DIFF_HUNK_LINES ? nb : DIFF_HUNK_LINES;
   h.a_after = a->last;
   h.b_after = b->last;
   h.mark = mark_before(a, na && h.a[0].number ? h.a[0].number - 1
                                               : a->last);
   /* the calls open in both at that point */
   h.path = c->last;
   h.path_len = c->path_len < depth - 1 ? c->path_len : depth - 1;
   if (h.path_len && (num = malloc(2 * h.path_len * sizeof *num))) {
      if (path_numbers(a, h.path_len, num)
          && path_numbers(b, h.path_len, num + h.path_len)) {
         h.path_num_a = num;
         h.path_num_b = num + h.path_len;
      }
   }
   step_before(depth, a->s->keep, &h);
   h.nm_a = a->s->nm;
   h.nm_b = b->s->nm;
   h.a_stops = a->s->stopped && a->ended && na == avail(a);
   h.b_stops = b->s->stopped && b->ended && nb == avail(b);
   if (passing) {
      skip(a, na, rec);
      skip(b, nb, rec + na);
      if (a->numbered) {
         h.num_a = rec;
         h.num_b = rec + na;
      }
   }
   rep->hunk(rep, &h);
   /* A's lines of the hunk were passed too: the calls open follow them */
   for (i = 0; passing && i < na && ret == 0; i++)
      ret = track(c, &h.a[i], rec[i]);
   free(num);
   free(rec);
   free(ctx);
   free(ctx_num);
   return ret;
}

/* ---- The comparison ------------------------------------------------------ */

int diff_pair(diff_report *rep, const char *title, const char *label_a,
              const char *label_b, diff_side *sa, diff_side *sb,
              const diff_opts *opts, diff_result *res, pl_error *err)
{
   side_buf a, b;
   context c;
   int ret = -1, ig = opts->ignore_counts, end = DIFF_END_DONE, side = 0;

   memset(res, 0, sizeof *res);
   memset(&a, 0, sizeof a);
   memset(&b, 0, sizeof b);
   memset(&c, 0, sizeof c);
   a.s = sa;
   b.s = sb;
   a.numbered = b.numbered = !opts->folded;
   c.cap = opts->context;
   if (c.cap && (!(c.ring = malloc(c.cap * sizeof *c.ring))
                 || !(c.ring_num = malloc(c.cap * sizeof *c.ring_num))
                 || !(c.ring_parent = malloc(c.cap * sizeof *c.ring_parent))
                 || !(c.ring_parent_num = malloc(c.cap
                                                 * sizeof *c.ring_parent_num))))
      goto oom;
   rep->pair(rep, title, label_a, label_b);
   for (;;) {
      size_t i = 0, j = 0;
      int r;

      if (fill(&a, 1, ig, err) < 0) {
         res->bad_side = 0;
         goto out;
      }
      if (fill(&b, 1, ig, err) < 0) {
         res->bad_side = 1;
         goto out;
      }
      if (!avail(&a) && !avail(&b))
         break;
      if (avail(&a) && avail(&b) && same(&a, 0, &b, 0)) {
         uint64_t num;
         pl_line l = a.v[a.head];
         skip(&a, 1, &num);
         skip(&b, 1, NULL);
         if (remember(&c, &l, num) < 0)
            goto oom;
         res->lines_a++;
         res->lines_b++;
         continue;
      }
      /* a difference: look ahead on both sides */
      if (fill(&a, opts->lookahead, ig, err) < 0) {
         res->bad_side = 0;
         goto out;
      }
      if (fill(&b, opts->lookahead, ig, err) < 0) {
         res->bad_side = 1;
         goto out;
      }
      r = resync_marks(&a, &b, opts->align_marks, &i, &j);
      if (r < 0)
         goto oom;
      if (res->hunks < opts->max_hunks) {
         if (report_hunk(rep, &c, &a, &b, r ? i : avail(&a),
                         r ? j : avail(&b), r) < 0)
            goto oom;
      } else if (r) {
         size_t k, head = a.head;
         skip(&a, i, NULL);
         skip(&b, j, NULL);
         for (k = 0; k < i; k++)
            if (track(&c, &a.v[head + k], 0) < 0)
               goto oom;
      }
      res->hunks++;
      if (!r) {
         res->gave_up = 1;
         if ((a.ended && !avail(&a)) || (b.ended && !avail(&b))) {
            end = DIFF_END_ONE_ENDS;
            side = avail(&a) ? 1 : 0;
         } else {
            end = DIFF_END_NO_SYNC;
         }
         break;
      }
      res->lines_a += i;
      res->lines_b += j;
      c.n = 0;          /* context after a hunk starts afresh */
   }
   rep->pair_end(rep, res->hunks, res->hunks < opts->max_hunks
                                  ? res->hunks : opts->max_hunks,
                 end, side, opts->lookahead);
   ret = 0;
   goto out;
oom:
   pl_error_set(err, 0, "out of memory");
out:
   free(a.v);
   free(a.key);
   free(b.v);
   free(b.key);
   free(a.entry_at);
   free(b.entry_at);
   call_numbers_free(&a.nums);
   call_numbers_free(&b.nums);
   free(c.ring);
   free(c.ring_num);
   free(c.ring_parent);
   free(c.ring_parent_num);
   free(c.last);
   free(c.last_num);
   return ret;
}
