/* SPDX-License-Identifier: MIT */
/* The per-event cost model (pl_cost_codec.h, docs/codec.md 12).

   Costs repeat by call context, and which of a context's few usual costs
   comes next depends on the path the code took, which the costs of the
   events before often tell.  So, as PPM does for bytes: four contexts,
   longest first,
     C3 = C2 and the costs of the two events before the previous one,
     C2 = (value, top of the stack, previous event, previous cost),
     C1 = (value, top of the stack, previous event),
     C0 = (value, top of the stack),
   each a slot of up to PL_COST_WAYS costs with counts.  The cost is coded
   as one of the longest context's costs (a binary decision per
   candidate) or an escape, then the next context's costs not tried yet,
   then literally; only the contexts the coding reached learn the cost
   (PPM's update exclusion), which spares a cost predicted by the longest
   context three table updates.  A candidate's probability starts from the counts (its
   count over the counts left plus one per cost left, the escape, as
   PPM's method C) and is refined by an adaptive table (secondary
   estimation) indexed by the context's order, its number of costs and
   that probability's logit in 64 steps: the table learns how often such
   a guess is right, which the counts alone misjudge (deterministic
   contexts, recent changes of path).  The literal: its bit length (a 7-bit tree whose
   probabilities depend on the length of C0's most frequent cost), the 3
   bits below the top bit (by length), the rest at 1/2.  Every context's
   slot learns the cost. */

#include "pl_cost_codec.h"
#include "pl_cm.h"
#include "pl_hash.h"

#define NCTX PL_COST_CONTEXTS
#define P_INIT    2048u
#define P_SHIFT   4          /* literal bits: 1/16 of the distance */
#define P_MIN     15u
#define APM_SHIFT 6
#define COUNT_MAX 60u

static void prob_update(uint16_t *p, unsigned bit)
{
   if (bit)
      *p = (uint16_t)(*p + ((4096u - *p) >> P_SHIFT));
   else
      *p = (uint16_t)(*p - (*p >> P_SHIFT));
}

static void clear_slots(pl_cost_slot *s, size_t n)
{
   size_t i;
   for (i = 0; i < n; i++)
      s[i].tag = 0;
}

void pl_cost_model_init(pl_cost_model *m, int zeroed)
{
   size_t i, j;
   pl_cm_stretch_init(m->stretch);
   if (!zeroed) {
      clear_slots(m->c3, 1u << PL_COST_C3_BITS);
      clear_slots(m->c2, 1u << PL_COST_C2_BITS);
      clear_slots(m->c1, 1u << PL_COST_C1_BITS);
      clear_slots(m->c0, 1u << PL_COST_C0_BITS);
   }
   m->depth = 0;
   m->last = 0;
   m->last_exit = 0;
   m->last_cost = 0;
   m->last_cost2 = 0;
   m->last_cost3 = 0;
   for (i = 0; i < NCTX; i++)
      for (j = 0; j < PL_COST_WAYS; j++) {
         unsigned b;
         for (b = 0; b < 64; b++)
            m->apm[i][j][b] =
               (uint32_t)pl_cm_squash((int)b * 64 - 2048 + 32) << 4;
      }
   for (i = 0; i < 65; i++) {
      for (j = 0; j < 128; j++)
         m->p_nbits[i][j] = P_INIT;
      for (j = 0; j < 8; j++)
         m->p_mant[i][j] = P_INIT;
   }
}

static unsigned bit_length(uint64_t v)
{
   return v ? 64u - (unsigned)__builtin_clzll(v) : 0u;
}

/* The function on top of the stack, 0 if none. */
static uint32_t top(const pl_cost_model *m)
{
   uint32_t d = m->depth < PL_COST_FRAMES ? m->depth : PL_COST_FRAMES;
   return d ? m->stack[d - 1] : 0;
}

/* The slot of `table` (2^bits slots) for context hash h; one that belongs
   to another context (a 32-bit tag, never 0) is taken over, empty. */
static pl_cost_slot *find_slot(pl_cost_slot *table, unsigned bits,
                               uint64_t h)
{
   uint32_t tag = (uint32_t)(h >> 32) | 1u;
   pl_cost_slot *s = &table[pl_golden_slot(h, bits)];
   if (s->tag != tag) {
      s->tag = tag;
      s->n = 0;
   }
   return s;
}

/* The event's contexts, longest first: their hashes, and their slots as
   far as the coding has looked (a slot is found, and taken over if it
   belongs to another context, only when the coding reaches it). */
typedef struct {
   uint64_t      h[NCTX];
   pl_cost_slot *s[NCTX];
   unsigned      used;          /* slots s[0..used) found */
} contexts_t;

static void contexts(const pl_cost_model *m, uint32_t value, contexts_t *c)
{
   c->h[3] = pl_fnv1a_step(pl_fnv1a_step(PL_FNV1A_INIT, value), top(m));
   c->h[2] = pl_fnv1a_step(c->h[3], (uint64_t)m->last << 1 | m->last_exit);
   c->h[1] = pl_fnv1a_step(c->h[2], m->last_cost);
   c->h[0] = pl_fnv1a_step(pl_fnv1a_step(c->h[1], m->last_cost2),
                           m->last_cost3);
   c->used = 0;
}

static pl_cost_slot *slot(pl_cost_model *m, contexts_t *c, unsigned k)
{
   static const unsigned bits[NCTX] = { PL_COST_C3_BITS, PL_COST_C2_BITS,
                                        PL_COST_C1_BITS, PL_COST_C0_BITS };
   while (c->used <= k) {
      unsigned j = c->used++;
      pl_cost_slot *table = j == 0 ? m->c3 : j == 1 ? m->c2 : j == 2 ? m->c1
                                                                     : m->c0;
      c->s[j] = find_slot(table, bits[j], c->h[j]);
   }
   return c->s[k];
}

/* Costs already tried in longer contexts are skipped (they were not it). */
static int tried(const uint64_t *seen, unsigned nseen, uint64_t v)
{
   unsigned i;
   for (i = 0; i < nseen; i++)
      if (seen[i] == v)
         return 1;
   return 0;
}

/* P(the cost is candidate i of s | not those before it), from the counts
   of the candidates left (skip: tried) and the escape's weight. */
static uint32_t candidate_p(const pl_cost_slot *s, unsigned i,
                            const uint8_t *skip)
{
   uint32_t left = s->n, k, total = 0, p;
   for (k = i; k < s->n; k++)
      if (!skip[k])
         total += s->count[k];
      else
         left--;
   total += left;                     /* escape: one per cost left */
   p = (uint32_t)(((uint64_t)s->count[i] << 12) / total);
   return p < P_MIN ? P_MIN : p > 4096u - P_MIN ? 4096u - P_MIN : p;
}

/* The slot learns cost: its count grows, or it replaces the rarest. */
static void slot_learn(pl_cost_slot *s, uint64_t cost)
{
   unsigned i, low = 0;
   for (i = 0; i < s->n; i++)
      if (s->v[i] == cost)
         break;
   if (i == s->n) {
      if (s->n < PL_COST_WAYS) {
         s->n++;
      } else {
         for (i = 1; i < PL_COST_WAYS; i++)
            if (s->count[i] < s->count[low])
               low = i;
         i = low;
      }
      s->v[i] = cost;
      s->count[i] = 0;
   }
   s->count[i] += 2;
   if (s->count[i] > COUNT_MAX)
      for (low = 0; low < s->n; low++)
         s->count[low] = (uint16_t)((s->count[low] + 1) >> 1);
}

/* After an event: its cost joins the slots, the stack follows it. */
static void learn(pl_cost_model *m, const contexts_t *c, uint32_t value,
                  uint64_t cost)
{
   unsigned k;
   for (k = 0; k < c->used; k++)     /* the contexts the coding reached */
      slot_learn(c->s[k], cost);
   if (value) {
      if (m->depth < PL_COST_FRAMES)
         m->stack[m->depth] = value;
      m->depth++;
      m->last = value;
      m->last_exit = 0;
   } else {
      m->last = top(m);
      m->last_exit = 1;
      if (m->depth)
         m->depth--;
   }
   m->last_cost3 = m->last_cost2;
   m->last_cost2 = m->last_cost;
   m->last_cost = cost;
}

/* The literal's length context: C0's most frequent cost's length. */
static unsigned literal_ctx(const pl_cost_slot *c0)
{
   unsigned i, best = 0;
   if (c0->n == 0)
      return 0;
   for (i = 1; i < c0->n; i++)
      if (c0->count[i] > c0->count[best])
         best = i;
   return bit_length(c0->v[best]);
}

/* The candidates in order, as both sides walk them: calls back
   decide(ctx, p) for each, which says whether it is the cost. */
typedef unsigned (*decide_fn)(void *ctx, uint32_t p1, uint64_t candidate);

/* The refined probability of a guess whose counts say p: its table
   entry, in *entry for the update. */
static uint32_t refine(pl_cost_model *m, unsigned order, unsigned n,
                       uint32_t p, uint32_t **entry)
{
   uint32_t q;
   *entry = &m->apm[order][n - 1][(m->stretch[p] + 2048) >> 6];
   q = **entry >> 4;
   return q < P_MIN ? P_MIN : q > 4096u - P_MIN ? 4096u - P_MIN : q;
}

static void refine_update(uint32_t *entry, unsigned bit)
{
   if (bit)
      *entry += (65536u - *entry) >> APM_SHIFT;
   else
      *entry -= *entry >> APM_SHIFT;
}

/* Walk the candidates of the contexts, longest first, skipping
   costs already tried; 1 with *cost when decide() says one is it. */
static int walk(pl_cost_model *m, contexts_t *c, uint64_t *cost,
                decide_fn decide, void *ctx)
{
   uint64_t seen[NCTX * PL_COST_WAYS];
   unsigned nseen = 0, k, i;
   pl_cost_slot *s[NCTX];

   for (k = 0; k < NCTX; k++) {
      uint8_t skip[PL_COST_WAYS];
      unsigned left = 0;
      s[k] = slot(m, c, k);
      for (i = 0; i < s[k]->n; i++) {
         skip[i] = (uint8_t)tried(seen, nseen, s[k]->v[i]);
         left += !skip[i];
      }
      for (i = 0; i < s[k]->n && left; i++) {
         uint32_t *entry, p;
         unsigned bit;
         if (skip[i])
            continue;
         p = refine(m, k, s[k]->n, candidate_p(s[k], i, skip), &entry);
         bit = decide(ctx, p, s[k]->v[i]);
         refine_update(entry, bit);
         if (bit) {
            *cost = s[k]->v[i];
            return 1;
         }
         skip[i] = 1;
         left--;
         seen[nseen++] = s[k]->v[i];
      }
   }
   return 0;
}

typedef struct {
   pl_rcc_enc *e;
   uint64_t cost;
} enc_ctx;

static unsigned enc_decide(void *ctx, uint32_t p1, uint64_t candidate)
{
   enc_ctx *c = ctx;
   unsigned bit = candidate == c->cost;
   pl_rcc_enc_bit(c->e, p1, bit);
   return bit;
}

static unsigned dec_decide(void *ctx, uint32_t p1, uint64_t candidate)
{
   (void)candidate;
   return pl_rcc_dec_bit(ctx, p1);
}

void pl_cost_encode(pl_cost_model *m, pl_rcc_enc *e, uint32_t value,
                    uint64_t cost)
{
   contexts_t cx;
   enc_ctx c = { e, cost };
   uint64_t found;

   contexts(m, value, &cx);
   if (!walk(m, &cx, &found, enc_decide, &c)) {
      unsigned nb = bit_length(cost), ctx = literal_ctx(cx.s[NCTX - 1]);
      unsigned node = 1;
      int k;
      for (k = 6; k >= 0; k--) {
         unsigned bit = (nb >> k) & 1u;
         pl_rcc_enc_bit(e, m->p_nbits[ctx][node], bit);
         prob_update(&m->p_nbits[ctx][node], bit);
         node = node * 2 + bit;
      }
      node = 1;
      for (k = (int)nb - 2; k >= 0; k--) {
         unsigned bit = (unsigned)(cost >> k) & 1u;
         if (node < 8) {
            pl_rcc_enc_bit(e, m->p_mant[nb][node], bit);
            prob_update(&m->p_mant[nb][node], bit);
            node = node * 2 + bit;
         } else {
            pl_rcc_enc_bit(e, 2048u, bit);
         }
      }
   }
   learn(m, &cx, value, cost);
}

uint64_t pl_cost_decode(pl_cost_model *m, pl_rcc_dec *d, uint32_t value)
{
   contexts_t cx;
   uint64_t cost = 0;

   contexts(m, value, &cx);
   if (!walk(m, &cx, &cost, dec_decide, d)) {
      unsigned nb, ctx = literal_ctx(cx.s[NCTX - 1]), node = 1;
      int k;
      for (k = 6; k >= 0; k--) {
         unsigned bit = pl_rcc_dec_bit(d, m->p_nbits[ctx][node]);
         prob_update(&m->p_nbits[ctx][node], bit);
         node = node * 2 + bit;
      }
      nb = node & 127u;
      if (nb > 64) {           /* no 64-bit cost is that long */
         d->short_input = 1;
         nb = 64;
      }
      cost = nb ? 1 : 0;
      node = 1;
      for (k = (int)nb - 2; k >= 0; k--) {
         unsigned bit;
         if (node < 8) {
            bit = pl_rcc_dec_bit(d, m->p_mant[nb][node]);
            prob_update(&m->p_mant[nb][node], bit);
            node = node * 2 + bit;
         } else {
            bit = pl_rcc_dec_bit(d, 2048u);
         }
         cost = cost << 1 | bit;
      }
   }
   learn(m, &cx, value, cost);
   return cost;
}
