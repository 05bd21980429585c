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
   bits below the top bit (by length), the rest at 1/2.

   Revision 1 adds runs.  A table keeps each C3 context's last cost (its
   guess); once the guesses have been right RUN_MIN times in a row, the
   events that follow form a run for as long as they stay right, coded by
   its length when it ends (or at the chunk's end): there an event costs a
   hash, a comparison and a few stores, and no coding, which is where most
   events of a regular program are.  A run's length is coded first as
   "as long as the last run that began in the same context", which loops
   make likely, else by its bit length and bits.

   Revision 2 takes the guess from an earlier point of the stream where
   the last PL_COST_WINDOW values were the same (the source, found as
   CCM's long matcher finds it, and followed while the values go on
   agreeing): the cost there, if any, else C3's last.  A loop whose costs
   change from one iteration to the next but repeat with the program's
   larger pattern is then guessed right, and an event of a run costs
   sequential reads and writes instead of a hash and a slot. */

#include "pl_cost_codec.h"
#include "pl_cm.h"
#include "pl_hash.h"

#define NCTX PL_COST_CONTEXTS
#define P_INIT    2048u
#define P_SHIFT   4          /* literal bits: 1/16 of the distance */
#define P_MIN     15u
#define APM_SHIFT 6
#define COUNT_MAX 60u
#define RUN_MIN   16u        /* right guesses in a row that start a run */

/* An event's steps, inline in the encoder and the decoder: as calls, their
   register saves and restores were a tenth of an event's instructions. */
#define STEP static inline __attribute__((always_inline))

static void prob_update(uint16_t *p, unsigned bit)
{
   if (bit)
      *p = (uint16_t)(*p + ((4096u - *p) >> P_SHIFT));
   else
      *p = (uint16_t)(*p - (*p >> P_SHIFT));
}

static unsigned bit_length(uint64_t v)
{
   return v ? 64u - (unsigned)__builtin_clzll(v) : 0u;
}

/* A number, as the literal cost and a run's length are coded: its bit
   length nb by a tree of `depth` decisions (probabilities tree[node]),
   then the bits below its top one, the first 3 with mant[nb][node], the
   rest at 1/2; the probabilities used learn their bits. */
static void encode_number(pl_rcc_enc *e, uint16_t *tree, unsigned depth,
                          uint16_t (*mant)[8], uint64_t v)
{
   unsigned nb = bit_length(v), node = 1;
   int k;
   for (k = (int)depth - 1; k >= 0; k--) {
      unsigned bit = (nb >> k) & 1u;
      pl_rcc_enc_bit(e, tree[node], bit);
      prob_update(&tree[node], bit);
      node = node * 2 + bit;
   }
   node = 1;
   for (k = (int)nb - 2; k >= 0; k--) {
      unsigned bit = (unsigned)(v >> k) & 1u;
      if (node < 8) {
         pl_rcc_enc_bit(e, mant[nb][node], bit);
         prob_update(&mant[nb][node], bit);
         node = node * 2 + bit;
      } else {
         pl_rcc_enc_bit(e, 2048u, bit);
      }
   }
}

/* The decoder's side; a bit length above max_nb is damage
   (d->short_input). */
static uint64_t decode_number(pl_rcc_dec *d, uint16_t *tree, unsigned depth,
                              uint16_t (*mant)[8], unsigned max_nb)
{
   unsigned nb, node = 1;
   uint64_t v;
   int k;
   for (k = (int)depth - 1; k >= 0; k--) {
      unsigned bit = pl_rcc_dec_bit(d, tree[node]);
      prob_update(&tree[node], bit);
      node = node * 2 + bit;
   }
   nb = node & ((1u << depth) - 1u);
   if (nb > max_nb) {
      d->short_input = 1;
      nb = max_nb;
   }
   v = nb ? 1 : 0;
   node = 1;
   for (k = (int)nb - 2; k >= 0; k--) {
      unsigned bit;
      if (node < 8) {
         bit = pl_rcc_dec_bit(d, mant[nb][node]);
         prob_update(&mant[nb][node], bit);
         node = node * 2 + bit;
      } else {
         bit = pl_rcc_dec_bit(d, 2048u);
      }
      v = v << 1 | bit;
   }
   return v;
}

static void clear_slots(pl_cost_slot *s, size_t n)
{
   size_t i;
   for (i = 0; i < n; i++)
      s[i].tag = 0;
}

void pl_cost_model_init(pl_cost_model *m, int zeroed, unsigned revision)
{
   size_t i, j;
   pl_cm_stretch_init(m->stretch);
   if (!zeroed) {
      clear_slots(m->c3, 1u << PL_COST_C3_BITS);
      clear_slots(m->c2, 1u << PL_COST_C2_BITS);
      clear_slots(m->c1, 1u << PL_COST_C1_BITS);
      clear_slots(m->c0, 1u << PL_COST_C0_BITS);
      for (i = 0; i < (1u << PL_COST_RUNS_BITS); i++)
         m->runs[i].tag = 0;
   }
   m->revision = revision;
   for (i = 1; i < PL_COST_RECIPROCALS; i++)   /* ceil(2^32 / i) */
      m->reciprocal[i] = ((1ull << 32) + i - 1) / i;
   m->reciprocal[0] = 0;
   m->streak = m->run = m->run_len = m->run_ctx = 0;
   m->run_key = 0;
   m->last_same = 0;
   m->window = 0;
   m->pos = m->src = m->matching = 0;
   if (!zeroed)
      for (i = 0; i < (1u << PL_COST_ENDS_BITS); i++)
         m->ends[i] = 0;
   m->p_same[0] = m->p_same[1] = P_INIT;
   for (i = 0; i < 33; i++) {
      for (j = 0; j < 64; j++)
         m->p_run[i][j] = P_INIT;
      for (j = 0; j < 8; j++)
         m->p_run_mant[i][j] = P_INIT;
   }
   m->at = (pl_cost_path){ 0, 0, 0, 0, 0, 0 };
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

/* The function on top of the stack, 0 if none.  The path functions
   take the stack and the path apart, so that the run loop can keep its
   path in locals. */
static inline uint32_t path_top(const uint32_t *stack, const pl_cost_path *p)
{
   uint32_t d = p->depth < PL_COST_FRAMES ? p->depth : PL_COST_FRAMES;
   return d ? stack[d - 1] : 0;
}

/* The stack and the last costs follow an event. */
static inline void path_follow(uint32_t *stack, pl_cost_path *p,
                               uint32_t value, uint64_t cost)
{
   if (value) {
      if (p->depth < PL_COST_FRAMES)
         stack[p->depth] = value;
      p->depth++;
      p->last = value;
      p->last_exit = 0;
   } else {
      p->last = path_top(stack, p);
      p->last_exit = 1;
      if (p->depth)
         p->depth--;
   }
   p->last_cost3 = p->last_cost2;
   p->last_cost2 = p->last_cost;
   p->last_cost = cost;
}

static uint32_t top(const pl_cost_model *m)
{
   return path_top(m->stack, &m->at);
}

/* ---- Revision 2: sources ---------------------------------------------- */

#define HISTORY_MASK ((1u << PL_COST_HISTORY_BITS) - 1u)
#define COST_UNKNOWN 0xFFFFFFFFu     /* a cost the history cannot hold */

/* The window's hash after one more value. */
static inline uint64_t window_next(uint64_t window, uint32_t value)
{
   return window << 3 ^ ((uint64_t)value + 1) * PL_GOLDEN64;
}

/* Whether the PL_COST_WINDOW values before position a are those before
   b. */
static int window_repeats(const uint32_t *hist, uint32_t a, uint32_t b)
{
   unsigned k;
   for (k = 1; k <= PL_COST_WINDOW; k++)
      if (hist[(a - k) & HISTORY_MASK] != hist[(b - k) & HISTORY_MASK])
         return 0;
   return 1;
}

/* An event of value v and cost c (COST_UNKNOWN if the history cannot
   hold it) joins the history at *pos and the window; returns the window
   end's slot. */
static inline uint32_t *history_push(pl_cost_model *m, uint32_t *pos,
                                     uint64_t *window, uint32_t v,
                                     uint32_t c)
{
   m->hist_value[*pos & HISTORY_MASK] = v;
   m->hist_cost[*pos & HISTORY_MASK] = c;
   ++*pos;
   *window = window_next(*window, v);
   return &m->ends[pl_golden_slot(*window, PL_COST_ENDS_BITS)];
}

/* The cost at position src of the history for an event of value v: the
   guess, or COST_UNKNOWN if the values differ or the history could not
   hold the cost. */
static inline uint32_t source_cost(const pl_cost_model *m, uint32_t src,
                                   uint32_t v)
{
   uint32_t i = src & HISTORY_MASK;
   return m->hist_value[i] == v ? m->hist_cost[i] : COST_UNKNOWN;
}

/* The history and the source follow an event: the source goes on while
   its values agree; without one, the window's last end is a candidate. */
STEP void source_follow(pl_cost_model *m, uint32_t value, uint64_t cost)
{
   uint32_t *end, cand;
   if (m->matching) {
      if (m->hist_value[m->src & HISTORY_MASK] == value)
         m->src++;
      else
         m->matching = 0;
   }
   end = history_push(m, &m->pos, &m->window, value,
                      cost < COST_UNKNOWN ? (uint32_t)cost : COST_UNKNOWN);
   if (m->matching) {            /* enough to find the way back later */
      if (m->pos % PL_COST_STRIDE == 0)
         *end = m->pos;
      return;
   }
   cand = *end;
   *end = m->pos;
   if (cand >= PL_COST_WINDOW
       && m->pos - cand <= HISTORY_MASK + 1 - PL_COST_WINDOW
       && window_repeats(m->hist_value, cand, m->pos)) {
      m->src = cand;
      m->matching = 1;
   }
}

/* The source's cost for an event of this value: 1 with *cost, or 0. */
static inline int source_guess(const pl_cost_model *m, uint32_t value,
                               uint64_t *cost)
{
   uint32_t c;
   if (!m->matching || (c = source_cost(m, m->src, value)) == COST_UNKNOWN)
      return 0;
   *cost = c;
   return 1;
}

STEP void follow(pl_cost_model *m, uint32_t value, uint64_t cost)
{
   path_follow(m->stack, &m->at, value, cost);
   if (m->revision >= PL_COST_REV_SOURCES)
      source_follow(m, value, cost);
}

/* A slot's tag for context hash h (never 0, which marks an empty one). */
static inline uint32_t slot_tag(uint64_t h)
{
   return (uint32_t)(h >> 32) | 1u;
}

/* The slot of `table` (2^bits slots) for context hash h; one that belongs
   to another context (a 32-bit tag, never 0) is taken over, empty. */
static pl_cost_slot *find_slot(pl_cost_slot *table, unsigned bits,
                               uint64_t h)
{
   uint32_t tag = slot_tag(h);
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
   uint32_t      value;
   int           chained;       /* h[1..3] made (C3's own is h[0]) */
} contexts_t;

/* Revision 1's hash of C3: cheaper than the chain of the others, as it
   is all an event of a run computes. */
static inline uint64_t path_key(const uint32_t *stack, const pl_cost_path *p,
                                uint32_t value)
{
   uint64_t k = value * 0x9E3779B97F4A7C15ull
              ^ path_top(stack, p) * 0xC2B2AE3D27D4EB4Full
              ^ ((uint64_t)p->last << 1 | p->last_exit) * 0x165667B19E3779F9ull
              ^ p->last_cost * 0xD6E8FEB86659FD93ull
              ^ p->last_cost2 * 0xFF51AFD7ED558CCDull
              ^ p->last_cost3 * 0xC4CEB9FE1A85EC53ull;
   k ^= k >> 29;
   return k * PL_GOLDEN64;
}

static uint64_t guess_key(const pl_cost_model *m, uint32_t value)
{
   return path_key(m->stack, &m->at, value);
}

/* The event's guess (revision 1 and later). */
typedef struct {
   uint64_t cost;
   int      have;
   pl_cost_slot *known;         /* C3's slot, if the guess is C3's */
   uint64_t key;                /* guess_key's, once has_key */
   int      has_key;
} guess_t;

STEP uint64_t key_of(const pl_cost_model *m, uint32_t value, guess_t *q)
{
   if (!q->has_key) {
      q->key = guess_key(m, value);
      q->has_key = 1;
   }
   return q->key;
}

/* The hashes of C2, C1 and C0, which chain. */
static void chain(const pl_cost_model *m, contexts_t *c)
{
   c->h[3] = pl_fnv1a_step(pl_fnv1a_step(PL_FNV1A_INIT, c->value), top(m));
   c->h[2] = pl_fnv1a_step(c->h[3], (uint64_t)m->at.last << 1 | m->at.last_exit);
   c->h[1] = pl_fnv1a_step(c->h[2], m->at.last_cost);
   c->chained = 1;
}

/* Revision 1 on: C3's hash is the guess's key, and the others are made
   only if the coding goes past C3 (most events' does not). */
STEP void contexts(const pl_cost_model *m, uint32_t value, guess_t *q,
                   contexts_t *c)
{
   c->value = value;
   c->chained = 0;
   if (m->revision >= PL_COST_REV_RUNS) {
      c->h[0] = key_of(m, value, q);
   } else {
      chain(m, c);
      c->h[0] = pl_fnv1a_step(pl_fnv1a_step(c->h[1], m->at.last_cost2),
                              m->at.last_cost3);
   }
   c->used = 0;
}

STEP pl_cost_slot *slot(pl_cost_model *m, contexts_t *c, unsigned k)
{
   static const unsigned bits[NCTX] = { PL_COST_C3_BITS, PL_COST_C2_BITS,
                                        PL_COST_C1_BITS, PL_COST_C0_BITS };
   if (k > 0 && !c->chained)
      chain(m, c);
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

/* P(the cost is candidate i of a slot | not those before it), from its
   count, total (the counts of the candidates from i on not tried yet)
   and the escape's weight: one per cost of the slot but those from i on
   already tried. */
static uint32_t candidate_p(const pl_cost_model *m, uint32_t count,
                            uint32_t total, uint32_t escape)
{
   uint32_t p;
   total += escape;
   /* count × 4096 / total, by the reciprocal: a division would be most
      of the walk's time */
   p = total < PL_COST_RECIPROCALS
       ? (uint32_t)(((uint64_t)count << 12) * m->reciprocal[total] >> 32)
       : (uint32_t)(((uint64_t)count << 12) / total);
   return p < P_MIN ? P_MIN : p > 4096u - P_MIN ? 4096u - P_MIN : p;
}

/* The slot learns cost: its count grows, or it replaces the rarest.
   Its costs differ, so the last one's being it says where it is. */
STEP void slot_learn(pl_cost_slot *s, uint64_t cost)
{
   unsigned i, low = 0;
   if (s->n && s->v[s->last] == cost)
      i = s->last;
   else
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
   s->last = (uint8_t)i;
   if (s->count[i] > COUNT_MAX)
      for (low = 0; low < s->n; low++)
         s->count[low] = (uint16_t)((s->count[low] + 1) >> 1);
}

/* After an event coded by the contexts: its cost joins the slots the
   coding reached. */
STEP void learn(pl_cost_model *m, const contexts_t *c, uint32_t value,
                uint64_t cost)
{
   unsigned k;
   for (k = 0; k < c->used; k++)
      slot_learn(c->s[k], cost);
   follow(m, value, cost);
}

/* ---- Revision 1: runs -------------------------------------------------- */

/* The runs table's tag for a context hash (its low half: the table is
   indexed by the top bits). */
static uint32_t key_tag(uint64_t k)
{
   return (uint32_t)k | 1u;
}

/* C3's slot for hash k, or NULL if it holds another context's costs. */
static pl_cost_slot *c3_slot(pl_cost_model *m, uint64_t k)
{
   pl_cost_slot *s = &m->c3[pl_golden_slot(k, PL_COST_C3_BITS)];
   return s->tag == slot_tag(k) && s->n ? s : NULL;
}

/* The guess: C3's last cost, if it has one: its slot with *cost. */
static pl_cost_slot *guessed(pl_cost_model *m, uint64_t k, uint64_t *cost)
{
   pl_cost_slot *s = c3_slot(m, k);
   if (s)
      *cost = s->v[s->last];
   return s;
}

/* An event of a run: C3 learns that its last cost came again. */
static void run_learn(pl_cost_slot *s)
{
   unsigned i;
   s->count[s->last] += 2;
   if (s->count[s->last] > COUNT_MAX)
      for (i = 0; i < s->n; i++)
         s->count[i] = (uint16_t)((s->count[i] + 1) >> 1);
}

/* After an event coded by the contexts: enough right guesses in a row
   start a run. */
static void guess_update(pl_cost_model *m, int right)
{
   if (!right)
      m->streak = 0;
   else if (++m->streak >= RUN_MIN)
      m->run = 1;
}

/* A run that was due begins with this event, of context hash k: it is
   under way. */
static void run_begins(pl_cost_model *m, uint64_t k)
{
   m->run = 2;
   m->run_key = k;
}

/* The guess for an event of this value: the source's cost (revision 2),
   else C3's last. */
STEP void make_guess(pl_cost_model *m, uint32_t value, guess_t *q)
{
   q->known = NULL;
   q->has_key = 0;
   if (m->revision >= PL_COST_REV_SOURCES
       && source_guess(m, value, &q->cost)) {
      q->have = 1;
      return;
   }
   q->known = guessed(m, key_of(m, value, q), &q->cost);
   q->have = q->known != NULL;
}

/* A run's end where the guess was wrong (not where a chunk cut it). */
static void run_missed(pl_cost_model *m)
{
   m->run = 0;
   m->streak = 0;
}

/* A run's length: whether it is that of the last run that began in the
   same context; if not, its bit length (a 6-bit tree whose
   probabilities depend on the last run's), the 3 bits below the top bit
   (by length), the rest at 1/2.  Both sides then remember it. */
static void encode_run(pl_cost_model *m, pl_rcc_enc *e, uint32_t len)
{
   pl_cost_run *r = &m->runs[m->run_key >> (64 - PL_COST_RUNS_BITS)];
   m->run = 0;
   if (r->tag == key_tag(m->run_key)) {
      unsigned same = r->len == len;
      pl_rcc_enc_bit(e, m->p_same[m->last_same], same);
      prob_update(&m->p_same[m->last_same], same);
      m->last_same = same;
      if (same)
         return;
   }
   r->tag = key_tag(m->run_key);
   r->len = len;
   encode_number(e, m->p_run[m->run_ctx], 6, m->p_run_mant, len);
   m->run_ctx = bit_length(len);
}

static uint32_t decode_run(pl_cost_model *m, pl_rcc_dec *d)
{
   pl_cost_run *r = &m->runs[m->run_key >> (64 - PL_COST_RUNS_BITS)];
   uint32_t len;
   if (r->tag == key_tag(m->run_key)) {
      unsigned same = pl_rcc_dec_bit(d, m->p_same[m->last_same]);
      prob_update(&m->p_same[m->last_same], same);
      m->last_same = same;
      if (same)
         return r->len;
   }
   /* no 32-bit length is longer than 32 bits */
   len = (uint32_t)decode_number(d, m->p_run[m->run_ctx], 6, m->p_run_mant,
                                 32);
   m->run_ctx = bit_length(len);
   r->tag = key_tag(m->run_key);
   r->len = len;
   return len;
}

/* ---- The contexts' candidates and the literal -------------------------- */

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
   costs already tried (the first nseen of seen: the wrong guess that
   ended a run); 1 with *cost when decide() says one is it.  Inline in
   the encoder and the decoder, each with its own decide(). */
STEP int walk(pl_cost_model *m, contexts_t *c, uint64_t *cost,
              decide_fn decide, void *ctx, uint64_t *seen, unsigned nseen)
{
   unsigned k, i;

   for (k = 0; k < NCTX; k++) {
      pl_cost_slot *s = slot(m, c, k);
      uint8_t skip[PL_COST_WAYS];
      unsigned skipped = 0;         /* those from i on */
      uint32_t total = 0;           /* the counts of the costs left */
      for (i = 0; i < s->n; i++) {
         skip[i] = (uint8_t)tried(seen, nseen, s->v[i]);
         skipped += skip[i];
         total += skip[i] ? 0 : s->count[i];
      }
      for (i = 0; i < s->n; i++) {
         uint32_t *entry, p;
         unsigned bit;
         if (skip[i]) {
            skipped--;
            continue;
         }
         p = refine(m, k, s->n,
                    candidate_p(m, s->count[i], total, s->n - skipped),
                    &entry);
         bit = decide(ctx, p, s->v[i]);
         refine_update(entry, bit);
         if (bit) {
            *cost = s->v[i];
            return 1;
         }
         total -= s->count[i];
         seen[nseen++] = s->v[i];
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

STEP void encode_cost(pl_cost_model *m, pl_rcc_enc *e, uint32_t value,
                      uint64_t cost)
{
   contexts_t cx;
   enc_ctx c = { e, cost };
   uint64_t found, seen[NCTX * PL_COST_WAYS];
   unsigned nseen = 0;
   guess_t q = { 0, 0, NULL, 0, 0 };

   if (m->revision >= PL_COST_REV_RUNS) {
      make_guess(m, value, &q);
      if (m->run) {
         if (m->run == 1) {
            run_begins(m, key_of(m, value, &q));
            m->run_len = 0;
         }
         if (q.have && q.cost == cost) {
            m->run_len++;
            if (q.known)
               run_learn(q.known);
            follow(m, value, cost);
            return;
         }
         encode_run(m, e, m->run_len);
         run_missed(m);
         if (q.have)                  /* the run's end says it is not it */
            seen[nseen++] = q.cost;
      }
   }
   contexts(m, value, &q, &cx);
   if (!walk(m, &cx, &found, enc_decide, &c, seen, nseen))
      encode_number(e, m->p_nbits[literal_ctx(cx.s[NCTX - 1])], 7, m->p_mant,
                    cost);
   learn(m, &cx, value, cost);
   if (m->revision >= PL_COST_REV_RUNS)
      guess_update(m, q.have && q.cost == cost);
}

STEP uint64_t decode_cost(pl_cost_model *m, pl_rcc_dec *d, uint32_t value)
{
   contexts_t cx;
   uint64_t cost = 0, seen[NCTX * PL_COST_WAYS];
   unsigned nseen = 0;
   guess_t q = { 0, 0, NULL, 0, 0 };

   if (m->revision >= PL_COST_REV_RUNS) {
      make_guess(m, value, &q);
      if (m->run) {
         if (m->run == 1) {           /* how long */
            run_begins(m, key_of(m, value, &q));
            m->run_len = decode_run(m, d);
         }
         if (m->run_len) {
            m->run_len--;
            if (q.known)
               run_learn(q.known);
            if (!q.have)
               d->short_input = 1;   /* damage: no guess to follow */
            follow(m, value, q.cost);
            return q.cost;
         }
         run_missed(m);               /* it ran out: the guess was wrong */
         if (q.have)
            seen[nseen++] = q.cost;
      }
   }
   contexts(m, value, &q, &cx);
   if (!walk(m, &cx, &cost, dec_decide, d, seen, nseen))
      /* no 64-bit cost is longer than 64 bits */
      cost = decode_number(d, m->p_nbits[literal_ctx(cx.s[NCTX - 1])], 7,
                           m->p_mant, 64);
   learn(m, &cx, value, cost);
   if (m->revision >= PL_COST_REV_RUNS)
      guess_update(m, q.have && q.cost == cost);
   return cost;
}

/* One event's cost, as a call; pl_cost_encode_some and
   pl_cost_decode_some have these steps inline. */
void pl_cost_encode(pl_cost_model *m, pl_rcc_enc *e, uint32_t value,
                    uint64_t cost)
{
   encode_cost(m, e, value, cost);
}

uint64_t pl_cost_decode(pl_cost_model *m, pl_rcc_dec *d, uint32_t value)
{
   return decode_cost(m, d, value);
}

void pl_cost_encode_cut(pl_cost_model *m, pl_rcc_enc *e)
{
   if (m->run == 2) {
      encode_run(m, e, m->run_len);
      m->run = 1;                     /* not missed: the next one runs */
   }
}

int pl_cost_decode_cut(pl_cost_model *m)
{
   if (m->run == 2) {
      if (m->run_len)
         return -1;
      m->run = 1;
   }
   return 0;
}

/* The encoder's fast path: the events of a run, as long as the guesses
   are right: pl_cost_encode's steps for them, with the path in locals.
   Returns how many.  Revision 1: C3's guesses. */
static size_t run_stretch(pl_cost_model *m, const uint32_t *values,
                          const uint64_t *costs, size_t n)
{
   pl_cost_path at = m->at;
   size_t i;

   for (i = 0; i < n; i++) {
      uint64_t k = path_key(m->stack, &at, values[i]);
      pl_cost_slot *s = c3_slot(m, k);
      if (!s || s->v[s->last] != costs[i])
         break;
      if (m->run == 1) {
         run_begins(m, k);
         m->run_len = 0;
      }
      run_learn(s);
      path_follow(m->stack, &at, values[i], costs[i]);
   }
   m->at = at;
   m->run_len += (uint32_t)i;
   return i;
}

/* The state a run of the source's guesses changes, in locals. */
typedef struct {
   pl_cost_path at;
   uint32_t src, pos;
   uint64_t window;
} source_run;

static inline void source_run_load(const pl_cost_model *m, source_run *s)
{
   s->at = m->at;
   s->src = m->src;
   s->pos = m->pos;
   s->window = m->window;
}

static inline void source_run_store(pl_cost_model *m, const source_run *s)
{
   m->at = s->at;
   m->src = s->src;
   m->pos = s->pos;
   m->window = s->window;
}

/* follow() for an event whose cost c was the source's guess: the source
   goes on, and matching stays 1. */
static inline void source_run_follow(pl_cost_model *m, source_run *s,
                                     uint32_t v, uint32_t c)
{
   uint32_t *end;
   s->src++;
   path_follow(m->stack, &s->at, v, c);
   end = history_push(m, &s->pos, &s->window, v, c);
   if (s->pos % PL_COST_STRIDE == 0)
      *end = s->pos;
}

/* Revision 2: the source's guesses, while it has them (an event it has
   none for, which C3 may guess, is pl_cost_encode's). */
static size_t source_stretch(pl_cost_model *m, const uint32_t *values,
                             const uint64_t *costs, size_t n)
{
   source_run s;
   uint64_t g;
   size_t i;

   if (!source_guess(m, values[0], &g) || g != costs[0])
      return 0;
   if (m->run == 1) {
      run_begins(m, guess_key(m, values[0]));
      m->run_len = 0;
   }
   source_run_load(m, &s);
   for (i = 0; i < n; i++) {
      uint32_t g32 = source_cost(m, s.src, values[i]);
      if (g32 == COST_UNKNOWN || g32 != costs[i])
         break;
      source_run_follow(m, &s, values[i], g32);
   }
   source_run_store(m, &s);
   m->run_len += (uint32_t)i;
   return i;
}

size_t pl_cost_encode_some(pl_cost_model *m, pl_rcc_enc *e,
                           const uint32_t *values, const uint64_t *costs,
                           size_t n)
{
   size_t i = !m->run ? 0
              : m->revision >= PL_COST_REV_SOURCES
              ? source_stretch(m, values, costs, n)
              : run_stretch(m, values, costs, n);
   if (i < n) {
      encode_cost(m, e, values[i], costs[i]);
      i++;
   }
   return i;
}

/* The decoder's fast path: the events left in a run under way, while
   the source guesses them (revision 2). */
static size_t source_run_decode(pl_cost_model *m, const uint32_t *values,
                                uint64_t *costs, size_t n)
{
   source_run s;
   size_t i, left = n < m->run_len ? n : m->run_len;

   if (!m->matching)
      return 0;
   source_run_load(m, &s);
   for (i = 0; i < left; i++) {
      uint32_t g32 = source_cost(m, s.src, values[i]);
      if (g32 == COST_UNKNOWN)
         break;
      costs[i] = g32;
      source_run_follow(m, &s, values[i], g32);
   }
   source_run_store(m, &s);
   m->run_len -= (uint32_t)i;
   return i;
}

size_t pl_cost_decode_some(pl_cost_model *m, pl_rcc_dec *d,
                           const uint32_t *values, uint64_t *costs, size_t n)
{
   size_t i = m->revision >= PL_COST_REV_SOURCES && m->run == 2
              ? source_run_decode(m, values, costs, n) : 0;
   if (i < n) {
      costs[i] = decode_cost(m, d, values[i]);
      i++;
   }
   return i;
}
