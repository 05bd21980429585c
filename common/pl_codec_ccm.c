/* SPDX-License-Identifier: MIT */
/* CCM, the default ParLoT stream codec (docs/codec.md, section 11): each
   event is predicted, not searched for.  Two matchers (the values that
   followed the latest earlier occurrences of the last 20 and of the last
   6 values) and the call context (what followed the same function with
   the same last callees and caller before; what the function called
   before) offer candidates, one at a time; a binary decision says whether
   the event is the candidate, and only an event none of them predicts is
   spelt out.  The decisions are coded by LZRC's range coder
   (pl_rc.h) with probabilities from adaptive counters, the matchers'
   through a small logistic mixer.  Inside a long match (256 values or
   more; in ccm also 64 where the last run begun in the same call context
   was not short) the events that go on following it form a run, coded by
   its length when it ends, like an LZ match: there an event is a
   comparison and a few stores, and that is where most events of a
   regular program are.  The revisions, all read, differ in four places:
   where runs start (run_starts: ccm1, codec 4, only at 256), whether the
   tables start small and grow (grows: ccm3, codec 6, and later), how a
   matcher's candidate is modelled (lean: ccm4, codec 7, and ccm mix three
   inputs instead of five, and their short matcher looks for a source
   only while the long one has none), and how an event a matcher
   predicts outside a run is coded (light: ccm5, codec 8, and ccm: when
   the long matcher predicts it, one decision, with a counter chosen by
   the function and its last two callees, and the model moved on as in a
   run; docs/codec.md 11.11; light_short: ccm, codec 9, the one written:
   so is an event the short matcher predicts where the long one does
   not, 11.12).

   The decoder rebuilds the call stack from the events, so the model of
   both sides is the same; the work per event is bounded (at most 18
   candidates and a 32-bit literal).  Freestanding like the other codecs:
   no libc, no allocation.  The decoder is a resumable state machine that
   can stop before any input byte and after any output value. */

#include "pl_codec_ccm.h"
#include "pl_hash.h"
#include "pl_rc.h"

#define HMASK      PL_CCM_HMASK
#define BIG        PL_CCM_BIG
/* A long match this long starts a run; the run length's counters are
   chosen by bucket(length) - 12 in ccm1, which needs bucket(RUN_LEN) = 12. */
#define RUN_LEN    256u
/* ccm: a long match this long starts a run too, unless the last run begun
   in the same call context ended before RUN_KEEP events; the counters are
   then chosen by min(bucket(length), 14) - 11 (bucket(RUN_LOW) = 11). */
#define RUN_LOW    64u
#define RUN_KEEP   192u
#define MAX_RUN    PL_CCM_MAX_RUN
#define CHECK      64u          /* values a matcher checks back */
#define LIMIT      127u         /* counters' count limit: rate 1/128.5 */
#define W_INIT     19661        /* mixer weights start at 0.3 */
#define BIAS       256          /* the mixer's constant input */
#define MAX_DIST   ((1u << PL_CCM_HIST_BITS) - CHECK)
#define FNV        PL_FNV1A_PRIME

/* The matchers' minimum lengths, long then short. */
static const unsigned min_len[2] = { 20, 6 };

/* What the current candidate is (pl_ccm_model.how). */
enum { HOW_LONG = 1, HOW_SHORT = 2, HOW_SLOT = 3 };
/* Where candidates come from, in order (pl_ccm_model.src). */
enum { SRC_LONG = 0, SRC_SHORT, SRC_O2, SRC_O1, SRC_CALLEES, SRC_END };

/* ---- Model shared by encoder and decoder -------------------------------- */

/* A length's bucket (docs/codec.md 11.2): itself below 8, then 8 .. 15
   below 16, 32, 64, 128, 512, 2048, 16384 and above; by the length's
   bit length, without a loop. */
static inline unsigned bucket(uint32_t len)
{
   static const uint8_t by_log2[32] = {
      0, 0, 0, 8, 9, 10, 11, 12, 12, 13, 13, 14, 14, 14, 15, 15,
      15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15
   };
   return len < 8 ? len : by_log2[31 - __builtin_clz(len)];
}

/* Context keys: the values folded into a 64-bit hash from a seed; the top
   bits pick the entry, the low 32 (with bit 0 set, so never 0) are its
   tag. */
static inline uint64_t key_step(uint64_t h, uint32_t v)
{
   return (h + v + 1u) * PL_GOLDEN64;
}

static inline uint64_t key_end(uint64_t h)
{
   return h ^ (h >> 29);
}

static inline uint32_t key_tag(uint64_t h)
{
   return (uint32_t)h | 1u;
}

/* Table growth (ccm, docs/codec.md 11.9).  A table's index is the top
   bits of its key's hash, so doubling it sends the keys of entry i to
   2i or 2i + 1, by a bit of the hash the entry does not keep: the entry
   is copied to both.  The copy at the index its key does not have is
   never found (its tag differs from every key's there; for the matchers,
   the history at its position does not match) and acts as an empty
   entry.  From the top down, so that no entry is overwritten unread. */
#define DOUBLE_TABLE(t, n)                        \
   do {                                           \
      uint32_t i_;                                \
      for (i_ = (n); i_-- > 0; ) {                \
         (t)[2u * i_ + 1u] = (t)[i_];             \
         (t)[2u * i_] = (t)[i_];                  \
      }                                           \
   } while (0)

/* A tagged table doubles once its entries took a new tag half as many
   times as it has entries (evictions count: they say it is crowded). */
static inline int crowded(uint32_t fills, unsigned bits, unsigned max_bits)
{
   return bits < max_bits && fills >= 1u << (bits - 1u);
}

/* Codec 8's table of matched events' contexts has a quarter as many
   entries as the slots, and doubles with them. */
static inline unsigned light_bits(const pl_ccm_model *m)
{
   return m->slot_bits - (PL_CCM_SLOT_BITS - PL_CCM_LIGHT_BITS);
}

/* After an event outside a run, its entries no longer in use. */
static void grow_contexts(pl_ccm_model *m)
{
   if (crowded(m->slot_fills, m->slot_bits, PL_CCM_SLOT_BITS)) {
      DOUBLE_TABLE(m->slot, 1u << m->slot_bits);
      if (m->light)
         DOUBLE_TABLE(m->light_tab, 1u << light_bits(m));
      m->slot_bits++;
   }
   if (crowded(m->callee_fills, m->callee_bits, PL_CCM_CALLEE_BITS)) {
      DOUBLE_TABLE(m->callees, 1u << m->callee_bits);
      m->callee_bits++;
   }
}

/* The hash of the `len` values before position p: the matcher's hash
   when it recorded p (history_add keeps it rolling). */
static uint64_t hash_before(const pl_ccm_model *m, uint32_t p, uint32_t len)
{
   uint64_t h = 0;
   uint32_t q;
   for (q = len; q > 0; q--)
      h = h * FNV + m->hist[(p - q) & HMASK] + 1u;
   return h;
}

/* The matchers' position tables double once they took as many new or
   stale positions as one has entries (half full on average).  Their
   entries have no tag, so each is placed again by the hash of the values
   before its position, which the history still holds; a position too old
   to be used again is dropped. */
static void grow_matchers(pl_ccm_model *m)
{
   unsigned k, b = m->match_bits;
   uint32_t i;
   if (b >= PL_CCM_MATCH_BITS || m->match_fills < 1u << b)
      return;
   for (k = 0; k < 2; k++) {
      uint32_t *t = m->mtab[k];
      for (i = 1u << b; i-- > 0; ) {
         uint32_t c = t[i];
         t[2u * i] = t[2u * i + 1u] = 0;
         if (c != 0 && m->pos - c <= MAX_DIST)
            t[pl_golden_slot(hash_before(m, c, min_len[k]), b + 1u)] = c;
      }
   }
   m->match_bits = b + 1u;
}

/* A fresh model of codec kind.  zeroed: its bytes are all zero already,
   and the tables (which start as zeros) are not written.  Growing tables
   are cleared only as far as they start: growth writes every entry it
   adds. */
static void model_init(pl_ccm_model *m, int zeroed, int kind)
{
   unsigned i, j, k, l;

   m->grows = kind >= PL_CODEC_CCM3;
   m->lean = kind >= PL_CODEC_CCM4;
   m->light = kind >= PL_CODEC_CCM5;
   m->light_short = kind >= PL_CODEC_CCM;
   m->slot_bits = m->grows ? PL_CCM_SLOT_BITS0 : PL_CCM_SLOT_BITS;
   m->callee_bits = m->grows ? PL_CCM_CALLEE_BITS0 : PL_CCM_CALLEE_BITS;
   m->runmem_bits = m->grows ? PL_CCM_RUNMEM_BITS0 : PL_CCM_RUNMEM_BITS;
   m->match_bits = m->grows ? PL_CCM_MATCH_BITS0 : PL_CCM_MATCH_BITS;
   m->slot_fills = m->callee_fills = m->runmem_fills = m->match_fills = 0;
   for (k = 0; k < 2; k++) {
      for (i = 0; !zeroed && i < (1u << m->match_bits); i++)
         m->mtab[k][i] = 0;
      m->mt[k].ptr = 0;
      m->mt[k].len = 0;
      m->mt[k].hash = 0;
      m->mpow[k] = 1;
      for (i = 0; i < min_len[k]; i++)
         m->mpow[k] *= FNV;
   }
   for (i = 0; !zeroed && i < (1u << m->slot_bits); i++)
      m->slot[i].tag = 0;
   for (i = 0; !zeroed && i < (1u << m->callee_bits); i++)
      m->callees[i].tag = 0;
   for (i = 0; !zeroed && i < (1u << m->runmem_bits); i++)
      m->runmem[i].tag = 0;
   for (i = 0; m->light && i < (1u << light_bits(m)); i++) {
      m->light_tab[i].last = 0;
      for (j = 0; j < 3; j++)
         m->light_tab[i].c[j][0] = m->light_tab[i].c[j][1]
            = m->light_tab[i].s[j][0] = m->light_tab[i].s[j][1]
            = PL_CM_COUNTER_INIT;
   }
   m->run_memory = kind != PL_CODEC_CCM1;
   m->rm = &m->runmem[0];
   m->rm_tag = 0;
   m->frame[0].fn = m->frame[0].c1 = m->frame[0].c2 = 0;
   m->depth = 0;
   m->pos = 0;
   m->max_id = 0;
   m->in_run = 0;
   m->run_ctx = 0;
   m->run_len = 0;
   m->fast_n = 0;
   m->fast_stop = PL_CCM_GOING;
   m->keys_ok = 0;
   for (i = 0; i < 17; i++) {
      for (k = 0; k < 4; k++)
         m->c_rl_unary[k][i] = PL_CM_COUNTER_INIT;
      for (j = 0; j < 16; j++)
         m->c_rl_mant[i][j] = PL_CM_COUNTER_INIT;
   }
   for (i = 0; i < 16; i++) {
      for (k = 0; k < 2; k++) {
         m->c_len[k][i] = m->c_state[k][i] = PL_CM_COUNTER_INIT;
         for (j = 0; j < 5; j++)
            m->w[k][i][j] = W_INIT;
      }
   }
   for (k = 0; k < 2; k++)
      for (i = 0; i < 4; i++)
         m->c_agree[k][i] = PL_CM_COUNTER_INIT;
   for (i = 0; i < sizeof m->c_match / sizeof m->c_match[0][0][0][0]; i++)
      (&m->c_match[0][0][0][0])[i] = PL_CM_COUNTER_INIT;
   for (i = 0; i < 3; i++)
      for (j = 0; j < PL_CCM_CALLEES; j++)
         for (k = 0; k < 4; k++)
            for (l = 0; l < 3; l++)
               m->c_cand[i][j][k][l] = PL_CM_COUNTER_INIT;
   m->c_exit[0] = m->c_exit[1] = m->c_new = PL_CM_COUNTER_INIT;
   for (i = 0; i < 64; i++)
      m->c_nbits[i] = PL_CM_COUNTER_INIT;
   for (i = 0; i < 4096; i++)
      m->c_lit[i] = PL_CM_COUNTER_INIT;
   pl_cm_stretch_init(m->stretch);
   pl_cm_rate_init(m->rate);
}

/* P(bit = 1) of a counter, 12-bit, as the coder takes it (1..4095). */
static inline unsigned ctr_p1(uint32_t c)
{
   unsigned p = pl_cm_p12(c);
   return p ? p : 1u;
}

/* The key of the o2 context (11.4): the top frame and its parent. */
static inline uint64_t o2_key(const pl_ccm_model *m)
{
   static const pl_ccm_frame none = { 0, 0, 0 };
   const pl_ccm_frame *t = &m->frame[pl_ccm_frame_ix(m->depth)];
   const pl_ccm_frame *pa = m->depth == 0 ? &none
                            : &m->frame[pl_ccm_frame_ix(m->depth - 1u)];
   return key_end(key_step(key_step(key_step(key_step(key_step(2, t->fn),
                  t->c1), t->c2), pa->fn), pa->c1));
}

/* The keys of the three contexts of the next event (11.4): the
   encoder's end of an event outside a run makes them (to prefetch their
   entries), and an event coded by 11.4 uses them unless something came in
   between that cleared keys_ok (a run, a matched event); else it makes
   them itself. */
static inline void context_keys(pl_ccm_model *m)
{
   const pl_ccm_frame *t = &m->frame[pl_ccm_frame_ix(m->depth)];
   m->keys[0] = o2_key(m);
   m->keys[1] = key_end(key_step(key_step(1, t->fn), t->c1));
   m->keys[2] = key_end(key_step(3, t->fn));
   m->keys_ok = 1;
}

/* Whether a run starts at this event (11.3): the long matcher predicts a
   short ID, and has matched at least RUN_LEN values, or (ccm) at least
   RUN_LOW where the last run begun in this call context was not short.
   ccm keeps the run's context entry (rm) to record its length. */
static inline int run_starts(pl_ccm_model *m)
{
   uint32_t len = m->mt[0].len;
   uint64_t key;
   /* the length first: without a match, hist[ptr] may be unwritten */
   if (len < (m->run_memory ? RUN_LOW : RUN_LEN)
       || m->hist[m->mt[0].ptr & HMASK] == BIG)
      return 0;
   if (!m->run_memory)
      return 1;
   /* only the o2 key: most such events are matched ones, which need no
      other */
   key = m->keys_ok ? m->keys[0] : o2_key(m);
   m->rm = &m->runmem[key >> (64 - m->runmem_bits)];
   m->rm_tag = key_tag(key);
   return len >= RUN_LEN || m->rm->tag != m->rm_tag || m->rm->len >= RUN_KEEP;
}

/* The run length's counters, chosen when the run starts (0..3). */
static inline unsigned run_context(const pl_ccm_model *m)
{
   unsigned b = bucket(m->mt[0].len);
   if (!m->run_memory)
      return b - 12u;
   return (b < 14u ? b : 14u) - 11u;
}

/* A run of len events ended (ccm): its context remembers it. */
static inline void run_ended(pl_ccm_model *m, uint32_t len)
{
   if (!m->run_memory)
      return;
   m->runmem_fills += m->rm->tag != m->rm_tag;
   m->rm->tag = m->rm_tag;
   m->rm->len = len;
   if (m->grows && crowded(m->runmem_fills, m->runmem_bits,
                           PL_CCM_RUNMEM_BITS)) {
      DOUBLE_TABLE(m->runmem, 1u << m->runmem_bits);
      m->runmem_bits++;
      m->rm = &m->runmem[0];       /* the next run_starts sets it */
   }
}

/* Matcher k's rolling hash of its last min_len values, after w joined
   the history (pos counts it). */
static inline void hash_roll(pl_ccm_model *m, unsigned k, uint32_t w)
{
   pl_ccm_matcher *mt = &m->mt[k];
   mt->hash = mt->hash * FNV + w + 1u;
   if (m->pos > min_len[k])
      mt->hash -= (m->hist[(m->pos - 1u - min_len[k]) & HMASK] + 1u)
                  * m->mpow[k];
}

/* ---- Codec 8: events the long matcher predicts (docs/codec.md 11.11) -- */

/* Whether the event is coded by one decision: the long matcher matches
   and predicts a short ID (checked after run_starts said no run). */
static inline int light_applies(const pl_ccm_model *m)
{
   return m->light && m->mt[0].len != 0
          && m->hist[m->mt[0].ptr & HMASK] != BIG;
}

/* The entry of the top frame's function and last two callees. */
static inline pl_ccm_light *light_entry(pl_ccm_model *m)
{
   const pl_ccm_frame *t = pl_ccm_frame_at(m, m->depth);
   uint64_t h = key_end(key_step(key_step(key_step(4, t->fn), t->c1),
                                 t->c2));
   return &m->light_tab[h >> (64 - light_bits(m))];
}

/* The decision's counter for the long matcher's value w: by its length's
   group and by whether the entry's last value agrees. */
static inline void light_prepare(pl_ccm_model *m, uint32_t w)
{
   unsigned b = bucket(m->mt[0].len);
   pl_ccm_light *e = light_entry(m);
   m->light_e = e;
   m->light_c = &e->c[(b < 11u ? b : 11u) - 9u][e->last == w];
}

/* The decision said the event is w: the entry keeps it, the model moves
   on as in a run, and the matchers' hashes roll; the long matcher's
   table records the position (the short one's does not, as in a run). */
static void light_hit(pl_ccm_model *m, uint32_t w)
{
   m->light_e->last = w;
   pl_ccm_run_step(m, w);
   hash_roll(m, 0, w);
   hash_roll(m, 1, w);
   m->mtab[0][pl_golden_slot(m->mt[0].hash, m->match_bits)] = m->pos;
   m->keys_ok = 0;
}

/* An event outside a run starts: the contexts are looked up, the
   candidates follow (next_candidate).  has_excl: excl cannot be the
   event (the long matcher's value at the end of a run). */
static void prepare_normal(pl_ccm_model *m, int has_excl, uint32_t excl)
{
   const uint64_t *h = m->keys;
   pl_ccm_slot *sc;

   if (!m->keys_ok)
      context_keys(m);
   m->keys_ok = 0;
   m->s2 = &m->slot[h[0] >> (64 - m->slot_bits)];
   m->s1 = &m->slot[h[1] >> (64 - m->slot_bits)];
   m->s0 = &m->callees[h[2] >> (64 - m->callee_bits)];
   m->t2 = key_tag(h[0]);
   m->t1 = key_tag(h[1]);
   m->t0 = key_tag(h[2]);
   m->v2 = m->s2->tag == m->t2;
   m->v1 = m->s1->tag == m->t1;
   m->v0 = m->s0->tag == m->t0;
   sc = m->v2 ? m->s2 : m->v1 ? m->s1 : 0;
   m->sc = sc;
   m->mstate = sc ? (m->v2 ? 8u : 0u) + (sc->mh & 3u) + 4u * (sc->hits > 1)
                  : 0u;
   m->exit_ctx = pl_ccm_frame_at(m, m->depth)->c1 != 0;
   m->src = SRC_LONG;
   m->r = 0;
   /* the excluded value counts as offered */
   m->nseen = 0;
   m->zero_seen = 0;
   if (has_excl) {
      m->seen[m->nseen++] = excl;
      m->zero_seen = excl == 0;
   }
   m->by_matcher = 0;
   m->hp = 0;
}

/* The long matcher's value w was not the event (a run or a matched
   event ends by a miss): its match ends, and the event is coded outside
   a run knowing it is not w (unless w is BIG, which is never offered). */
static void long_match_missed(pl_ccm_model *m, uint32_t w)
{
   m->mt[0].len = 0;
   prepare_normal(m, w != BIG, w);
}

/* Whether v was offered already (or excluded); if not, it is now. */
static int offered(pl_ccm_model *m, uint32_t v)
{
   unsigned i;
   for (i = 0; i < m->nseen; i++)
      if (m->seen[i] == v)
         return 1;
   m->seen[m->nseen++] = v;
   if (v == 0)
      m->zero_seen = 1;
   return 0;
}

/* The next candidate, in this order: the long matcher's value, the short
   matcher's, the values of the full call context (o2), of the function
   and its last callee (o1), and the function's callees; each value only
   once.  0 when there is none left. */
static int next_candidate(pl_ccm_model *m)
{
   for (;;) {
      switch (m->src) {
      case SRC_LONG:
      case SRC_SHORT: {
         unsigned k = m->src;
         const pl_ccm_matcher *mt = &m->mt[k];
         m->src++;
         if (mt->len == 0 || m->hist[mt->ptr & HMASK] == BIG)
            continue;
         if (offered(m, m->hist[mt->ptr & HMASK]))
            continue;
         if (!m->hp)
            m->hp = 2u - k;
         m->cur = m->hist[mt->ptr & HMASK];
         m->how = k == 0 ? HOW_LONG : HOW_SHORT;
         return 1;
      }
      case SRC_O2:
      case SRC_O1: {
         unsigned ord = m->src - SRC_O2;
         const pl_ccm_slot *s = ord == 0 ? m->s2 : m->s1;
         if (!(ord == 0 ? m->v2 : m->v1) || m->r >= s->n) {
            m->src++;
            m->r = 0;
            continue;
         }
         m->cur = s->v[m->r];
         m->cur_ctr = &m->c_cand[ord][m->r][s->hits < 3 ? s->hits : 3][m->hp];
         m->r++;
         if (offered(m, m->cur))
            continue;
         m->how = HOW_SLOT;
         return 1;
      }
      case SRC_CALLEES:
         if (!m->v0 || m->r >= m->s0->n) {
            m->src++;
            continue;
         }
         m->cur = m->s0->v[m->r];
         m->cur_ctr = &m->c_cand[2][m->r][0][m->hp];
         m->r++;
         if (offered(m, m->cur))
            continue;
         m->how = HOW_SLOT;
         return 1;
      default:
         return 0;
      }
   }
}

/* How many inputs a matcher's candidate mixes (ccm: 3, docs/codec.md
   11.10; before: 5). */
static inline unsigned inputs(const pl_ccm_model *m)
{
   return m->lean ? 3u : 5u;
}

/* P(bit = 1), 12-bit, of the decision "the event is the candidate". */
static unsigned candidate_p1(pl_ccm_model *m)
{
   unsigned k, ag, i, b;
   const pl_ccm_slot *s2 = m->s2;
   const int32_t *w;
   int64_t dot = 0;

   if (m->how == HOW_SLOT)
      return ctr_p1(*m->cur_ctr);
   /* a matcher's value: its length, the state of the call context, the
      context's own record of the matchers, and whether the o2 context
      agrees, mixed */
   k = m->how - HOW_LONG;
   b = bucket(m->mt[k].len);
   if (!m->v2)
      ag = 3;
   else if (s2->v[0] == m->cur)
      ag = 0;
   else {
      ag = 2;
      for (i = 1; i < s2->n; i++)
         if (s2->v[i] == m->cur)
            ag = 1;
   }
   if (m->lean) {
      /* ccm: one counter for the length, state and agreement together */
      m->st[0] = m->stretch[pl_cm_p12(m->c_match[k][b][m->mstate][ag])];
      m->st[1] = m->sc ? m->stretch[pl_cm_p12(m->sc->own)] : 0;
      m->st[2] = BIAS;
   } else {
      m->st[0] = m->stretch[pl_cm_p12(m->c_len[k][b])];
      m->st[1] = m->stretch[pl_cm_p12(m->c_state[k][m->mstate])];
      m->st[2] = m->sc ? m->stretch[pl_cm_p12(m->sc->own)] : 0;
      m->st[3] = m->stretch[pl_cm_p12(m->c_agree[k][ag])];
      m->st[4] = BIAS;
   }
   w = m->w[k][b];
   for (i = 0; i < inputs(m); i++)
      dot += (int64_t)m->st[i] * w[i];
   m->p = pl_cm_squash((int)(dot >> 16));
   m->agree_ix = ag;
   m->bucket_ix = b;
   return (unsigned)m->p;
}

static void candidate_learn(pl_ccm_model *m, unsigned bit)
{
   unsigned k, i, b;
   int32_t *w;
   int err;

   if (m->how == HOW_SLOT) {
      *m->cur_ctr = pl_cm_count(*m->cur_ctr, bit, LIMIT, m->rate);
      return;
   }
   k = m->how - HOW_LONG;
   b = m->bucket_ix;
   w = m->w[k][b];
   err = (((int)bit << 12) - m->p) >> 2;
   if (bit)
      m->by_matcher = 1;
   for (i = 0; i < inputs(m); i++)
      w[i] = pl_cm_learn(w[i], m->st[i], err);
   if (m->sc)
      m->sc->own = pl_cm_count(m->sc->own, bit, LIMIT, m->rate);
   if (m->lean) {
      uint32_t *c = &m->c_match[k][b][m->mstate][m->agree_ix];
      *c = pl_cm_count(*c, bit, LIMIT, m->rate);
      return;
   }
   m->c_len[k][b] = pl_cm_count(m->c_len[k][b], bit, LIMIT, m->rate);
   m->c_state[k][m->mstate] = pl_cm_count(m->c_state[k][m->mstate], bit,
                                          LIMIT, m->rate);
   m->c_agree[k][m->agree_ix] = pl_cm_count(m->c_agree[k][m->agree_ix], bit,
                                            LIMIT, m->rate);
}

/* x moves to the front of the n values of v (at most ways). */
static void move_to_front(uint32_t *v, unsigned *n, unsigned ways, uint32_t x)
{
   unsigned r = 0;
   while (r < *n && v[r] != x)
      r++;
   if (r == *n) {
      if (*n < ways)
         (*n)++;
      else
         r = ways - 1u;
   }
   for (; r > 0; r--)
      v[r] = v[r - 1u];
   v[0] = x;
}

/* x followed the context of entry s (its tag); 1 if s took the tag. */
static int slot_update(pl_ccm_slot *s, uint32_t tag, uint32_t x)
{
   unsigned n;
   if (s->tag != tag) {
      s->tag = tag;
      s->v[0] = x;
      s->n = 1;
      s->hits = 0;
      s->mh = 3;
      s->own = PL_CM_COUNTER_INIT;
      return 1;
   }
   if (s->v[0] == x) {
      if (s->hits < 255)
         s->hits++;
      return 0;
   }
   s->hits = 0;
   n = s->n;
   move_to_front(s->v, &n, PL_CCM_WAYS, x);
   s->n = (uint8_t)n;
   return 0;
}

static int callees_update(pl_ccm_callees *s, uint32_t tag, uint32_t x)
{
   unsigned n;
   if (s->tag != tag) {
      s->tag = tag;
      s->v[0] = x;
      s->n = 1;
      return 1;
   }
   n = s->n;
   move_to_front(s->v, &n, PL_CCM_CALLEES, x);
   s->n = n;
   return 0;
}

/* How many values before positions a and b agree, counting back from
   a - 1 and b - 1, at most limit (<= a).  Four values are compared at
   once where neither stretch wraps around the history; the first to
   differ is then the highest of the four that differ (little-endian). */
static uint32_t agree_back(const uint16_t *hist, uint32_t a, uint32_t b,
                           uint32_t limit)
{
   uint32_t n = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
   while (n + 4u <= limit) {
      uint32_t ia = (a - 4u - n) & HMASK, ib = (b - 4u - n) & HMASK;
      uint64_t va, vb;
      if (ia > HMASK - 3u || ib > HMASK - 3u)
         break;
      __builtin_memcpy(&va, &hist[ia], sizeof va);
      __builtin_memcpy(&vb, &hist[ib], sizeof vb);
      if (va != vb)
         return n + (uint32_t)__builtin_clzll(va ^ vb) / 16u;
      n += 4u;
   }
#endif
   while (n < limit
          && hist[(a - 1u - n) & HMASK] == hist[(b - 1u - n) & HMASK])
      n++;
   return n;
}

/* The value x (stored form w) of an event outside a run joins the
   history; the matchers go on or stop, their hashes roll, a matcher that
   has stopped looks for a new source, and both record the position. */
static void history_add(pl_ccm_model *m, uint32_t w)
{
   unsigned k;
   uint32_t pos;

   pl_ccm_follow(m, 0, w);
   pl_ccm_follow(m, 1, w);
   m->hist[m->pos & HMASK] = (uint16_t)w;
   pos = ++m->pos;
   for (k = 0; k < 2; k++) {
      pl_ccm_matcher *mt = &m->mt[k];
      uint32_t l = min_len[k], slot, c;
      hash_roll(m, k, w);
      if (pos < l)
         continue;
      slot = (uint32_t)pl_golden_slot(mt->hash, m->match_bits);
      /* the old entry is not needed (a store alone does not wait for its
         line) while the matcher matches, and in ccm for the short matcher
         while the long one does (its candidate would mostly be the
         same) */
      if (mt->len || (k == 1 && m->lean && m->mt[0].len)) {
         m->mtab[k][slot] = pos;
         continue;
      }
      c = m->mtab[k][slot];
      m->mtab[k][slot] = pos;
      if (c != 0 && pos - c <= MAX_DIST) {
         uint32_t n = agree_back(m->hist, c, pos, c < CHECK ? c : CHECK);
         if (n >= l) {
            mt->len = n;
            mt->ptr = c;
         }
      } else {
         m->match_fills++;       /* a new or stale entry taken */
      }
   }
   if (m->grows)
      grow_matchers(m);
}

static inline uint32_t stored(uint32_t x)
{
   return x < BIG ? x : BIG;
}

/* The matchers' hashes of the last values, after a run. */
static void rehash(pl_ccm_model *m)
{
   unsigned k;
   for (k = 0; k < 2; k++) {
      uint32_t q = m->pos < min_len[k] ? m->pos : min_len[k];
      uint64_t h = 0;
      for (; q > 0; q--)
         h = h * FNV + m->hist[(m->pos - q) & HMASK] + 1u;
      m->mt[k].hash = h;
   }
}

/* The event x coded outside a run: the model learns it.  prefetch: the
   encoder's, whose next event comes after the program ran on (the
   decoder's comes at once, and makes the keys only if it needs them). */
static void finish_normal(pl_ccm_model *m, uint32_t x, int prefetch)
{
   if (m->hp) {
      if (m->v2)
         m->s2->mh = (uint8_t)(((m->s2->mh << 1) | m->by_matcher) & 3u);
      if (m->v1)
         m->s1->mh = (uint8_t)(((m->s1->mh << 1) | m->by_matcher) & 3u);
   }
   m->slot_fills += slot_update(m->s1, m->t1, x);
   m->slot_fills += slot_update(m->s2, m->t2, x);
   m->callee_fills += callees_update(m->s0, m->t0, x);
   if (m->light)
      light_entry(m)->last = x;
   if (x > m->max_id)
      m->max_id = x;
   history_add(m, stored(x));
   pl_ccm_stack(m, x);
   if (m->grows)
      grow_contexts(m);
   if (!prefetch)
      return;
   /* The next event's entries, most likely needed (unless a run starts),
      start coming into the cache now: in the tool, while the program
      runs on to its next call or return. */
   context_keys(m);
   __builtin_prefetch(&m->slot[m->keys[0] >> (64 - m->slot_bits)]);
   __builtin_prefetch(&m->slot[m->keys[1] >> (64 - m->slot_bits)]);
   __builtin_prefetch(&m->callees[m->keys[2] >> (64 - m->callee_bits)]);
}

/* ---- Codec 9: events the short matcher predicts (docs/codec.md 11.12) - */

/* Whether the event is one decision on the short matcher's value
   (checked after light_applies said no): it matches and predicts a short
   ID. */
static inline int short_applies(const pl_ccm_model *m)
{
   return m->light_short && m->mt[1].len != 0
          && m->hist[m->mt[1].ptr & HMASK] != BIG;
}

/* The decision's counter for the short matcher's value w: from the same
   entry as light_prepare's, by the length's group (below 8, below 32,
   longer) and whether the entry's last value agrees. */
static inline void short_prepare(pl_ccm_model *m, uint32_t w)
{
   uint32_t len = m->mt[1].len;
   pl_ccm_light *e = light_entry(m);
   m->light_e = e;
   m->light_c = &e->s[len < 8u ? 0 : len < 32u ? 1 : 2][e->last == w];
}

/* The decision said the event is w: the entry keeps it, and w joins the
   history and the stack as an event outside a run does, but the call
   contexts' slots and callees do not learn it (the long matcher may find
   a source now). */
static void short_hit(pl_ccm_model *m, uint32_t w)
{
   m->light_e->last = w;
   history_add(m, w);
   pl_ccm_stack(m, w);
   m->keys_ok = 0;
}

/* ---- Encoder ------------------------------------------------------------ */

void pl_ccm_enc_init(pl_encoder *e, int zeroed)
{
   model_init(&e->ccm, zeroed, e->kind);
   pl_rc_enc_start(e);
   e->sync_at = 0;
   e->sync_raw = 0;
}

static inline void enc_counted(pl_encoder *e, uint32_t *c, unsigned bit)
{
   pl_rc_enc_bit(e, 4096u - ctr_p1(*c), bit);
   *c = pl_cm_count(*c, bit, LIMIT, e->ccm.rate);
}

/* A value no candidate predicted: exit or not (unless 0 was a candidate),
   the next new ID or not, then the bit length (6 bits) and the bits below
   the leading 1, through a tree while the prefix is below 4096. */
static void enc_literal(pl_encoder *e, uint32_t x)
{
   pl_ccm_model *m = &e->ccm;
   unsigned nb, node = 1, k;
   int b;

   if (!m->zero_seen) {
      enc_counted(e, &m->c_exit[m->exit_ctx], x == 0);
      if (x == 0)
         return;
   }
   if (m->max_id != 0xFFFFFFFFu) {
      enc_counted(e, &m->c_new, x == m->max_id + 1u);
      if (x == m->max_id + 1u)
         return;
   }
   nb = 32u - (unsigned)__builtin_clz(x);
   for (k = 6; k-- > 0;) {
      unsigned bit = (nb >> k) & 1u;
      enc_counted(e, &m->c_nbits[node], bit);
      node = node * 2 + bit;
   }
   for (b = (int)nb - 2; b >= 0; b--) {
      unsigned bit = (x >> b) & 1u, prefix = x >> (b + 1);
      if (prefix < 4096u)
         enc_counted(e, &m->c_lit[prefix], bit);
      else
         pl_rc_enc_direct(e, bit);
   }
}

static inline void enc_candidate(pl_encoder *e, unsigned bit)
{
   pl_rc_enc_bit(e, 4096u - candidate_p1(&e->ccm), bit);
   candidate_learn(&e->ccm, bit);
}

static uint32_t saturated_add(uint32_t len, uint32_t n)
{
   return len + n < PL_CCM_MAX_LEN ? len + n : PL_CCM_MAX_LEN;
}

size_t pl_ccm_run_events(pl_encoder *e, const uint32_t *x, size_t n)
{
   pl_ccm_model *m = &e->ccm;
   if (!m->in_run)
      return 0;
   const uint32_t src = m->mt[0].ptr, src1 = m->mt[1].ptr, at = m->pos;
   const uint32_t room = m->run_len + 1u < PL_CCM_MAX_RUN
                         ? PL_CCM_MAX_RUN - 1u - m->run_len : 0u;
   uint32_t k = m->fast_n, stop = m->fast_stop, depth = m->depth;
   int follow = m->mt[1].len && stop == PL_CCM_GOING;
   size_t i;
   for (i = 0; i < n; i++) {
      uint32_t w = m->hist[(src + k) & HMASK];
      if (x[i] != w || w == BIG || k >= room)
         break;
      if (follow && m->hist[(src1 + k) & HMASK] != w) {
         stop = k;
         follow = 0;
      }
      m->hist[(at + k) & HMASK] = (uint16_t)w;
      depth = pl_ccm_stack_from(m, depth, w);
      k++;
   }
   m->fast_n = k;
   m->fast_stop = stop;
   m->depth = depth;
   e->events += i;
   return i;
}

/* n run events were written to the history and the stack alone: the
   matchers and pos move on as n run steps would have moved them (the
   short matcher stopped at step stop, unless PL_CCM_GOING). */
static void run_advance(pl_ccm_model *m, uint32_t n, uint32_t stop)
{
   pl_ccm_matcher *sm = &m->mt[1];
   m->mt[0].len = saturated_add(m->mt[0].len, n);
   m->mt[0].ptr += n;
   if (sm->len && stop != PL_CCM_GOING) {
      sm->ptr += stop;
      sm->len = 0;
   } else if (sm->len) {
      sm->ptr += n;
      sm->len = saturated_add(sm->len, n);
   }
   m->pos += n;
}

void pl_ccm_settle(pl_encoder *e)
{
   pl_ccm_model *m = &e->ccm;
   uint32_t n = m->fast_n;
   if (n == 0)
      return;
   run_advance(m, n, m->fast_stop);
   m->run_len += n;
   e->words += n;                 /* short IDs: one word each */
   e->raw_bytes += 2u * (uint64_t)n;
   m->fast_n = 0;
   m->fast_stop = PL_CCM_GOING;
}

/* A run of L events (0 <= L <= MAX_RUN) ends: v = L + 1 as b =
   floor(log2 v) in unary (no closing 0 when b = 16), the up to 4 bits
   below the leading 1 through a tree chosen by b, the rest as direct
   bits.  The counters are chosen by the long matcher's length when the
   run started, which the decoder knows before it reads the length. */
static void close_run(pl_encoder *e)
{
   pl_ccm_model *m = &e->ccm;
   uint32_t v = m->run_len + 1u;
   unsigned b = 31u - (unsigned)__builtin_clz(v), t = b < 4 ? b : 4, k;
   unsigned node = 1;

   for (k = 0; k < b; k++)
      enc_counted(e, &m->c_rl_unary[m->run_ctx][k], 1);
   if (b < 16)
      enc_counted(e, &m->c_rl_unary[m->run_ctx][b], 0);
   for (k = 0; k < t; k++) {
      unsigned bit = (v >> (b - 1 - k)) & 1u;
      enc_counted(e, &m->c_rl_mant[b][node], bit);
      node = node * 2 + bit;
   }
   for (k = t; k < b; k++)
      pl_rc_enc_direct(e, (v >> (b - 1 - k)) & 1u);
   m->in_run = 0;
   run_ended(m, m->run_len);
   rehash(m);
}

/* Decisions per event (bounds PL_ENC_MAX_EVENT_BYTES): the end of a run
   (at most 16 + 4 + 12), at most 2 + 2 x 4 + 8 candidates, exit, new ID,
   6 + 31 literal bits: 89, each writing at most 4 bytes. */
void pl_ccm_event(pl_encoder *e, uint32_t x)
{
   pl_ccm_model *m = &e->ccm;

   pl_ccm_settle(e);

   e->words += x <= PL_MAX_SHORT_ID ? 1 : 3;
   e->raw_bytes += x <= PL_MAX_SHORT_ID ? 2 : 6;
   if (!m->in_run && run_starts(m)) {
      m->in_run = 1;
      m->run_len = 0;
      m->run_ctx = run_context(m);
      m->keys_ok = 0;
   }
   if (m->in_run) {
      uint32_t w = m->hist[m->mt[0].ptr & HMASK];
      if (PL_LIKELY(x == w && w != BIG)) {
         pl_ccm_run_step(m, w);
         if (PL_UNLIKELY(++m->run_len == MAX_RUN))
            close_run(e);
         return;
      }
      close_run(e);
      long_match_missed(m, w);
   } else if (light_applies(m)) {
      uint32_t w = m->hist[m->mt[0].ptr & HMASK];
      light_prepare(m, w);
      enc_counted(e, m->light_c, x == w);
      if (x == w) {
         light_hit(m, w);
         return;
      }
      long_match_missed(m, w);
   } else if (short_applies(m)) {
      uint32_t w = m->hist[m->mt[1].ptr & HMASK];
      short_prepare(m, w);
      enc_counted(e, m->light_c, x == w);
      if (x == w) {
         short_hit(m, w);
         return;
      }
      prepare_normal(m, 1, w);
   } else {
      prepare_normal(m, 0, 0);
   }
   while (next_candidate(m)) {
      enc_candidate(e, x == m->cur);
      if (x == m->cur) {
         finish_normal(m, x, 1);
         return;
      }
   }
   enc_literal(e, x);
   finish_normal(m, x, 1);
}

/* End an open run and flush the range coder (4 bytes), so that a chunk
   can end here; the model goes on.  Nothing if no event came since the last sync. */
void pl_ccm_sync(pl_encoder *e)
{
   pl_ccm_settle(e);
   if (e->raw_bytes == e->sync_raw)
      return;
   if (e->ccm.in_run)
      close_run(e);
   pl_rc_enc_flush(e);
   e->sync_at = e->out_len;
   e->sync_raw = e->raw_bytes;
}

/* ---- Decoder ------------------------------------------------------------ */

/* rc_step: where the decoder is.  Every decision is preceded by the
   normalisation the encoder did after the previous one, so the decoder
   can stop for input before any decision without undoing it. */
enum {
   D_IDLE = PL_RC_DEC_IDLE,  /* between chunks */
   D_INIT = PL_RC_DEC_INIT,  /* reading the chunk's first 4 bytes */
   D_EVENT,     /* an event starts */
   D_RL_UNARY,  /* run length: rc_bits ones read so far */
   D_RL_MANT,   /* run length: tree bits, rc_node so far, rc_rank bits left */
   D_RL_DIRECT, /* run length: len_acc so far, rc_rank direct bits left */
   D_COPY,      /* a run: copy_left events still to come */
   D_LIGHT,     /* codec 8: is it the long matcher's value? */
   D_SHORT,     /* codec 9: is it the short matcher's value? */
   D_CAND,      /* the decision on candidate m->cur */
   D_EXIT,      /* literal: is it an exit? */
   D_NEW,       /* literal: is it max_id + 1? */
   D_NBITS,     /* literal: its bit length, tree node rc_node */
   D_BITS,      /* literal: len_acc so far, rc_bits bits left */
   D_EMIT,      /* the event copy_src is decoded, the output was full */
   D_DRAIN,     /* all the chunk's events are out: last normalisation */
   D_DONE       /* the chunk is complete */
};

static const char err_final[]   = "CCM range coder does not end as flushed";
static const char err_limit[]   = "CCM raw_end is odd or behind the stream";
static const char err_nbits[]   = "CCM literal of 0 or more than 32 bits";
static const char err_split[]   = "CCM event runs past the chunk's raw_end";
static const char err_big[]     = "CCM run reaches a value it cannot copy";

void pl_ccm_dec_init(pl_decoder *d)
{
   model_init(&d->ccm, 0, d->kind);
   pl_rc_dec_init(d);
}

void pl_ccm_begin_chunk(pl_decoder *d)
{
   pl_rc_dec_start(d);
}

static inline unsigned dec_counted(pl_decoder *d, uint32_t *c)
{
   unsigned bit = pl_rc_dec_bit(d, 4096u - ctr_p1(*c));
   *c = pl_cm_count(*c, bit, LIMIT, d->ccm.rate);
   return bit;
}

static inline unsigned dec_candidate(pl_decoder *d)
{
   unsigned bit = pl_rc_dec_bit(d, 4096u - candidate_p1(&d->ccm));
   candidate_learn(&d->ccm, bit);
   return bit;
}

/* Up to n events of a run into values, as run steps would decode them,
   with the model's counters in registers (values may alias nothing of
   the model's then): how many, fewer if a value is BIG. */
static uint32_t dec_copy(pl_ccm_model *m, uint32_t *values, uint32_t n)
{
   const uint32_t src = m->mt[0].ptr, src1 = m->mt[1].ptr, at = m->pos;
   uint32_t k, stop = PL_CCM_GOING, depth = m->depth;
   int follow = m->mt[1].len != 0;
   for (k = 0; k < n; k++) {
      uint32_t w = m->hist[(src + k) & HMASK];
      if (w == BIG)
         break;
      values[k] = w;
      if (follow && m->hist[(src1 + k) & HMASK] != w) {
         stop = k;
         follow = 0;
      }
      m->hist[(at + k) & HMASK] = (uint16_t)w;
      depth = pl_ccm_stack_from(m, depth, w);
   }
   m->depth = depth;
   run_advance(m, k, stop);
   return k;
}

long pl_ccm_run(pl_decoder *d, const uint8_t **in, const uint8_t *in_end,
                uint32_t *values, size_t cap)
{
   pl_ccm_model *m = &d->ccm;
   const uint8_t *p = *in;
   size_t out = 0;
   const char *err = 0;
   uint32_t x;

   if (d->rc_step != D_IDLE && d->rc_step != D_INIT
       && (d->raw_limit % 2 != 0 || d->raw_limit < d->raw_bytes)) {
      err = err_limit;
      goto fail;
   }

#define NORM() do { if (!pl_rc_dec_norm(d, &p, in_end)) goto suspend; } while (0)

   for (;;) {
      switch (d->rc_step) {
      case D_IDLE:
         if (p != in_end) {
            err = pl_codec_err_idle;
            goto fail;
         }
         goto suspend;
      case D_INIT:
         if (!pl_rc_dec_fill(d, &p, in_end))
            goto suspend;
         if (d->raw_limit % 2 != 0 || d->raw_limit < d->raw_bytes) {
            err = err_limit;
            goto fail;
         }
         d->rc_step = D_EVENT;
         continue;
      case D_EVENT:
         if (out >= cap)
            goto suspend;
         if (d->raw_bytes == d->raw_limit) {
            d->rc_step = D_DRAIN;
            continue;
         }
         if (run_starts(m)) {
            m->run_ctx = run_context(m);
            m->keys_ok = 0;
            d->rc_bits = 0;
            d->rc_step = D_RL_UNARY;
            continue;
         }
         if (light_applies(m)) {
            light_prepare(m, m->hist[m->mt[0].ptr & HMASK]);
            d->rc_step = D_LIGHT;
            continue;
         }
         if (short_applies(m)) {
            short_prepare(m, m->hist[m->mt[1].ptr & HMASK]);
            d->rc_step = D_SHORT;
            continue;
         }
         prepare_normal(m, 0, 0);
         d->rc_step = next_candidate(m) ? D_CAND : D_EXIT;
         continue;
      case D_LIGHT:
         NORM();
         x = m->hist[m->mt[0].ptr & HMASK];
         if (dec_counted(d, m->light_c)) {
            /* D_EVENT left room for it: out < cap, and 2 raw bytes */
            values[out++] = x;
            d->raw_bytes += 2;
            d->words++;
            light_hit(m, x);
            d->rc_step = D_EVENT;
            continue;
         }
         long_match_missed(m, x);
         d->rc_step = next_candidate(m) ? D_CAND : D_EXIT;
         continue;
      case D_SHORT:
         NORM();
         x = m->hist[m->mt[1].ptr & HMASK];
         if (dec_counted(d, m->light_c)) {
            values[out++] = x;   /* room: as in D_LIGHT */
            d->raw_bytes += 2;
            d->words++;
            short_hit(m, x);
            d->rc_step = D_EVENT;
            continue;
         }
         prepare_normal(m, 1, x);
         d->rc_step = next_candidate(m) ? D_CAND : D_EXIT;
         continue;
      case D_RL_UNARY:
         while (d->rc_bits < 16) {
            NORM();
            if (!dec_counted(d, &m->c_rl_unary[m->run_ctx][d->rc_bits]))
               break;
            d->rc_bits++;
         }
         d->rc_node = 1;
         d->rc_rank = d->rc_bits < 4 ? d->rc_bits : 4;
         d->rc_step = D_RL_MANT;
         continue;
      case D_RL_MANT:
         while (d->rc_rank) {
            NORM();
            d->rc_node = d->rc_node * 2
               + dec_counted(d, &m->c_rl_mant[d->rc_bits][d->rc_node]);
            d->rc_rank--;
         }
         d->len_acc = d->rc_node;
         d->rc_rank = d->rc_bits - (d->rc_bits < 4 ? d->rc_bits : 4);
         d->rc_step = D_RL_DIRECT;
         continue;
      case D_RL_DIRECT:
         while (d->rc_rank) {
            NORM();
            d->len_acc = d->len_acc * 2 + pl_rc_dec_direct(d);
            d->rc_rank--;
         }
         d->copy_left = d->len_acc - 1u;
         if (d->copy_left > (d->raw_limit - d->raw_bytes) / 2) {
            err = err_split;       /* 2 raw bytes per event of a run */
            goto fail;
         }
         d->rc_step = D_COPY;
         continue;
      case D_COPY: {
         /* The hot loop of a regular program's stream. */
         uint64_t n = d->copy_left;
         uint32_t want = n < cap - out ? (uint32_t)n : (uint32_t)(cap - out);
         uint32_t k = dec_copy(m, values + out, want);
         out += k;
         d->raw_bytes += 2u * (uint64_t)k;
         d->words += k;
         d->copy_left = n - k;
         if (k < want) {              /* a BIG value: dec_copy stopped */
            err = err_big;
            goto fail;
         }
         if (d->copy_left)
            goto suspend;   /* output full */
         run_ended(m, d->len_acc - 1u);
         rehash(m);
         /* Unless it was as long as a run can be or the chunk ends here,
            the run ended because the event was not the long matcher's
            value. */
         if (d->len_acc - 1u == MAX_RUN || d->raw_bytes == d->raw_limit) {
            d->rc_step = D_EVENT;
            continue;
         }
         long_match_missed(m, m->hist[m->mt[0].ptr & HMASK]);
         d->rc_step = next_candidate(m) ? D_CAND : D_EXIT;
         continue;
      }
      case D_CAND:
         NORM();
         if (dec_candidate(d)) {
            x = m->cur;
            goto event;
         }
         if (!next_candidate(m))
            d->rc_step = D_EXIT;
         continue;
      case D_EXIT:
         if (!m->zero_seen) {
            NORM();
            if (dec_counted(d, &m->c_exit[m->exit_ctx])) {
               x = 0;
               goto event;
            }
         }
         d->rc_step = D_NEW;
         continue;
      case D_NEW:
         if (m->max_id != 0xFFFFFFFFu) {
            NORM();
            if (dec_counted(d, &m->c_new)) {
               x = m->max_id + 1u;
               goto event;
            }
         }
         d->rc_node = 1;
         d->rc_step = D_NBITS;
         continue;
      case D_NBITS:
         while (d->rc_node < 64) {
            NORM();
            d->rc_node = d->rc_node * 2 + dec_counted(d, &m->c_nbits[d->rc_node]);
         }
         d->rc_bits = d->rc_node - 64;
         if (d->rc_bits == 0 || d->rc_bits > 32) {
            err = err_nbits;
            goto fail;
         }
         d->rc_bits--;
         d->len_acc = 1;
         d->rc_step = D_BITS;
         continue;
      case D_BITS:
         while (d->rc_bits) {
            unsigned bit;
            NORM();
            if (d->len_acc < 4096u)
               bit = dec_counted(d, &m->c_lit[d->len_acc]);
            else
               bit = pl_rc_dec_direct(d);
            d->len_acc = d->len_acc * 2 + bit;
            d->rc_bits--;
         }
         x = (uint32_t)d->len_acc;
         goto event;
      case D_EMIT:
         if (out >= cap)
            goto suspend;
         x = d->copy_src;
         goto emit;
      case D_DRAIN:
         NORM();
         d->rc_step = D_DONE;
         continue;
      default: /* D_DONE */
         if (p != in_end) {
            err = pl_codec_err_chunk_trailer;
            goto fail;
         }
         goto suspend;
      }
   event:
      /* the end of a run decodes its miss even when the output is full */
      if (out >= cap) {
         d->copy_src = x;
         d->rc_step = D_EMIT;
         goto suspend;
      }
   emit: {
         unsigned raw = x <= PL_MAX_SHORT_ID ? 2u : 6u;
         if (d->raw_limit - d->raw_bytes < raw) {
            err = err_split;
            goto fail;
         }
         values[out++] = x;
         d->raw_bytes += raw;
         d->words += raw / 2;
         finish_normal(m, x, 0);
         d->rc_step = D_EVENT;
      }
   }
#undef NORM

fail:
   d->error = err;
suspend:
   *in = p;
   if (d->error)
      return out ? (long)out : PL_DEC_CORRUPT;
   return (long)out;
}

int pl_ccm_end_chunk(pl_decoder *d)
{
   if (d->error)
      return PL_DEC_CORRUPT;
   if (d->rc_step != D_DONE) {
      d->error = pl_codec_err_short;
      return PL_DEC_CORRUPT;
   }
   if (!pl_rc_dec_flushed(d)) {
      d->error = err_final;
      return PL_DEC_CORRUPT;
   }
   d->rc_step = D_IDLE;
   return 0;
}

int pl_ccm_at_boundary(const pl_decoder *d)
{
   if (d->error)
      return 0;
   return d->rc_step == D_IDLE || d->rc_step == D_INIT
          || d->rc_step == D_EVENT || d->rc_step == D_DRAIN
          || d->rc_step == D_DONE;
}
