/* SPDX-License-Identifier: MIT */
/* Packed tables: a context-mixing byte model over the entries of OBJECTS,
   FUNCTIONS and ALIASES payloads, and a range coder (docs/table-pack.md).

   Each bit of a byte, most significant first, is predicted by seven
   inputs: order 0; the previous 1, 2, 3 and 5 bytes; a field model (in an
   entry's fixed header: what the previous entry predicts for this byte,
   IDs being dense; in a name: the whole name so far); and an expected
   byte (the header field's, or a match model's in names).  Their
   probabilities are mixed in the logistic domain by weights chosen by the
   entry field the byte belongs to, which learn online; the result drives a
   binary range coder with carry propagation.  Encoder and decoder run the
   same model, with integer arithmetic only, so they agree bit for bit. */

#include "pl_table_pack.h"
#include "pl_cm.h"
#include "pl_format.h"
#include "pl_hash.h"
#include "pl_rc_carry.h"

#define PROB_BITS   12
#define COUNT_LIMIT 255u       /* a context's adaptation rate: 1/(n + 1.5) */
#define MIX_SHIFT   16         /* weights are 16.16 fixed point */
/* Probabilities stay in P_MIN..4096-P_MIN: no bit costs more than 8 bits,
   nor less than 0.0056, so n coded bytes hold at most about 180 n table
   bytes and a crafted chunk cannot make a reader decode for long (about
   2 % larger tables than P_MIN = 1). */
#define P_MIN       16
#define MIX_RATE    2          /* weight learning rate (error multiplier) */
#define EXPECT      (PL_TPACK_INPUTS - 1)   /* the expected-byte input */
#define HIST_MASK   ((1u << PL_TPACK_HIST_BITS) - 1u)
#define MATCH_MIN   5          /* bytes a match needs to start */
#define MATCH_CHECK 32         /* bytes back a candidate is checked */
#define FIELDS      20         /* header bytes 0..15, name bytes 0, 1, 2, 3+ */

/* Fixed entry header of each packed type: u32 obj_id; u32 fn_id, u32
   obj_id, u64 address; u32 fn_id. */
static const unsigned hdr_size[3] = { 4, 16, 4 };

static unsigned type_index(unsigned type)
{
   return type == PL_CHUNK_OBJECTS ? 0 : type == PL_CHUNK_FUNCTIONS ? 1 : 2;
}

int pl_tpack_type_ok(unsigned type)
{
   return type == PL_CHUNK_OBJECTS || type == PL_CHUNK_FUNCTIONS
          || type == PL_CHUNK_ALIASES;
}

size_t pl_tpack_piece(unsigned type, const uint8_t *p, size_t n)
{
   size_t used = 0, hdr = hdr_size[type_index(type)];
   while (used < n) {
      size_t end = used + hdr;
      while (end < n && p[end] != 0)
         end++;
      end++;                                 /* the name's 0 */
      if (used && end > PL_TPACK_MAX_RAW)
         break;
      used = end < n ? end : n;
   }
   return used;
}

void pl_tpack_init(pl_tpack *m)
{
   unsigned i, j;
   for (i = 0; i < PL_TPACK_INPUTS - 2; i++)
      for (j = 0; j < (1u << PL_TPACK_SLOT_BITS); j++)
         m->slots[i][j] = PL_CM_COUNTER_INIT;
   for (i = 0; i < 2; i++)
      for (j = 0; j < 32; j++)
         m->expect_p[i][j] = PL_CM_COUNTER_INIT;
   for (j = 0; j < (1u << PL_TPACK_HIST_BITS); j++)
      m->hist[j] = 0;
   for (j = 0; j < (1u << PL_TPACK_MATCH_BITS); j++)
      m->match_at[j] = 0;
   m->hist_pos = 0;
   m->match_ptr = 0;
   m->match_len = 0;
   for (i = 0; i < 2; i++)
      for (j = 0; j < 256; j++)
         m->order0[i][j] = PL_CM_COUNTER_INIT;
   for (i = 0; i < PL_TPACK_SETS; i++)
      for (j = 0; j < PL_TPACK_INPUTS; j++)
         m->weights[i][j] = 20000;          /* about 0.3 */
   pl_cm_stretch_init(m->stretch);
   pl_cm_rate_init(m->rate);
   for (i = 0; i < 3; i++)
      for (j = 0; j < PL_TPACK_HDR_MAX; j++)
         m->prev_hdr[i][j] = 0;
   m->last = 0;
   m->type_ix = 0;
   m->pos = 0;
   m->name_hash = PL_FNV1A_INIT;
}

static void chunk_start(pl_tpack *m, unsigned type)
{
   m->type_ix = type_index(type);
   m->pos = 0;
   m->name_hash = PL_FNV1A_INIT;
}

static uint64_t hash3(uint64_t a, uint64_t b, uint64_t c)
{
   return pl_fnv1a_step(pl_fnv1a_step(pl_fnv1a_step(PL_FNV1A_INIT, a), b), c);
}

/* What the previous entry says of the header byte at pos: the same byte,
   except that IDs (OBJECTS and FUNCTIONS) are dense, so one more. */
static unsigned expected_hdr_byte(const pl_tpack *m, unsigned pos)
{
   const uint8_t *prev = m->prev_hdr[m->type_ix];
   uint32_t id;
   if (m->type_ix == 2 || pos >= 4)
      return prev[pos];
   id = (uint32_t)prev[0] | (uint32_t)prev[1] << 8 | (uint32_t)prev[2] << 16
        | (uint32_t)prev[3] << 24;
   return ((id + 1u) >> (8 * pos)) & 0xFFu;
}

/* The order-1, 2, 3 and 5 contexts of a byte after the bytes `last`. */
static void order_contexts(uint64_t ctx[4], unsigned t, unsigned in_name,
                           uint64_t last)
{
   ctx[0] = hash3(1, t * 2 + in_name, last & 0xFFu);
   ctx[1] = hash3(2, in_name, last & 0xFFFFu);
   ctx[2] = hash3(3, 0, last & 0xFFFFFFu);
   ctx[3] = hash3(4, 0, last & 0xFFFFFFFFFFull);
}

/* The bucket of hashed context i, key ctx, for a byte's first nibble
   (c0 = 0) or its second (c0 = 1 and the first nibble's bits). */
static uint32_t *bucket_of(pl_tpack *m, unsigned i, uint64_t ctx, unsigned c0)
{
   return m->slots[i] + 16u * pl_golden_slot(ctx + c0,
                                             PL_TPACK_SLOT_BITS - 4);
}

/* The contexts of the next byte. */
static void byte_start(pl_tpack *m)
{
   unsigned hdr = hdr_size[m->type_ix], pos = m->pos, t = m->type_ix;

   m->in_name = pos >= hdr;
   m->set = t * FIELDS + (m->in_name ? 16 + (pos - hdr) : pos);
   order_contexts(m->ctx, t, m->in_name, m->last);
   if (m->in_name) {
      m->ctx[4] = hash3(5, t, m->name_hash);
      m->expect = m->match_len ? m->hist[m->match_ptr & HIST_MASK] : -1;
      m->expect_ctx = m->match_len < 31 ? m->match_len : 31;
   } else {
      unsigned k, same = 1;
      for (k = 0; k < pos; k++)
         same &= m->cur_hdr[k] == expected_hdr_byte(m, k);
      m->expect = (int)expected_hdr_byte(m, pos);
      m->expect_ctx = pos + 16 * same;
      m->ctx[4] = hash3(6 + t, pos + 16 * same, (unsigned)m->expect);
   }
}

/* P(next bit = 1), 12-bit, in P_MIN..4096-P_MIN; c0 is 1 followed by the bits of
   the byte so far. */
static int predict(pl_tpack *m, unsigned c0, int k)
{
   const int32_t *w = m->weights[m->set];
   int64_t dot = 0;
   unsigned i, nib;
   int p;

   m->slot[0] = &m->order0[m->in_name][c0];
   /* The counters of one nibble share a bucket of 16 (one cache line): a
      bucket per context and nibble, found at the nibble's first bit. */
   if (k == 7 || k == 3)
      for (i = 0; i < PL_TPACK_INPUTS - 2; i++)
         m->bucket[i] = bucket_of(m, i, m->ctx[i], k == 7 ? 0u : c0);
   nib = k >= 4 ? c0 : (c0 & ((1u << (3 - k)) - 1u)) | (1u << (3 - k));
   for (i = 0; i < PL_TPACK_INPUTS - 2; i++)
      m->slot[i + 1] = m->bucket[i] + nib;
   /* the expected byte's next bit, while the bits so far agree with it */
   m->slot[EXPECT] = NULL;
   m->st[EXPECT] = 0;
   if (m->expect >= 0 && ((unsigned)m->expect | 256u) >> (k + 1) == c0) {
      m->expect_bit = ((unsigned)m->expect >> k) & 1u;
      m->slot[EXPECT] = &m->expect_p[m->in_name][m->expect_ctx];
   }
   for (i = 0; i < PL_TPACK_INPUTS; i++) {
      if (!m->slot[i])
         continue;
      m->st[i] = m->stretch[pl_cm_p12(*m->slot[i])];
      if (i == EXPECT && !m->expect_bit)
         m->st[i] = -m->st[i];
      dot += (int64_t)m->st[i] * w[i];
   }
   p = pl_cm_squash((int)(dot >> MIX_SHIFT));
   if (p < P_MIN)
      p = P_MIN;
   if (p > 4096 - P_MIN)
      p = 4096 - P_MIN;
   m->p = p;
   return p;
}

static void update(pl_tpack *m, unsigned bit)
{
   int32_t *w = m->weights[m->set];
   int err = (((int)bit << PROB_BITS) - m->p) * MIX_RATE;
   unsigned i;

   for (i = 0; i < PL_TPACK_INPUTS; i++) {
      if (!m->slot[i])
         continue;
      *m->slot[i] = pl_cm_count(*m->slot[i],
                                i == EXPECT ? bit == m->expect_bit : bit,
                                COUNT_LIMIT, m->rate);
      w[i] = pl_cm_learn(w[i], m->st[i], err);
   }
}

/* The match model: the byte after the latest earlier occurrence of the
   last MATCH_MIN bytes (checked, up to MATCH_CHECK back) is expected next,
   as long as the bytes go on agreeing. */
static void match_update(pl_tpack *m, unsigned b)
{
   uint32_t slot, cand;

   m->hist[m->hist_pos++ & HIST_MASK] = (uint8_t)b;
   if (m->match_len) {
      if (m->hist[m->match_ptr & HIST_MASK] == b && m->match_len < 65535u) {
         m->match_len++;
         m->match_ptr++;
      } else {
         m->match_len = 0;
      }
   }
   if (m->hist_pos < MATCH_MIN)
      return;
   slot = (uint32_t)pl_golden_slot(m->last & 0xFFFFFFFFFFull,
                                   PL_TPACK_MATCH_BITS);
   cand = m->match_at[slot];
   m->match_at[slot] = m->hist_pos;
   if (!m->match_len && cand && m->hist_pos - cand <= HIST_MASK - MATCH_CHECK) {
      unsigned len = 0;
      while (len < MATCH_CHECK && len < cand
             && m->hist[(cand - 1 - len) & HIST_MASK]
                == m->hist[(m->hist_pos - 1 - len) & HIST_MASK])
         len++;
      if (len >= MATCH_MIN) {
         m->match_len = len;
         m->match_ptr = cand;
      }
   }
}

static void byte_end(pl_tpack *m, unsigned b)
{
   m->last = m->last << 8 | b;
   match_update(m, b);
   if (!m->in_name) {
      m->cur_hdr[m->pos++] = (uint8_t)b;
      return;
   }
   if (b == 0) {               /* the entry ends */
      unsigned i;
      for (i = 0; i < hdr_size[m->type_ix]; i++)
         m->prev_hdr[m->type_ix][i] = m->cur_hdr[i];
      m->pos = 0;
      m->name_hash = PL_FNV1A_INIT;
      return;
   }
   m->name_hash = pl_fnv1a_step(m->name_hash, b);
   if (m->pos < hdr_size[m->type_ix] + 3)
      m->pos++;
}

/* The encoder knows the byte b it starts: the buckets of its second
   nibble, and of the next byte's first nibble as far as b foretells the
   next contexts (in a name or not, and the name so far), start coming into
   the cache while the first nibble is coded.  Each bit reads a bucket per
   context in a 1.3 MB table: without this, the coder mostly waits for
   memory.  A wrong guess only costs a prefetch. */
static void prefetch_buckets(pl_tpack *m, unsigned b)
{
   unsigned i, t = m->type_ix, in_name;
   uint64_t next[PL_TPACK_INPUTS - 2], name_hash = PL_FNV1A_INIT;

   for (i = 0; i < PL_TPACK_INPUTS - 2; i++)
      __builtin_prefetch(bucket_of(m, i, m->ctx[i], 16u | b >> 4));
   in_name = m->in_name ? b != 0 : m->pos + 1 >= hdr_size[t];
   if (m->in_name && b != 0)
      name_hash = pl_fnv1a_step(m->name_hash, b);
   order_contexts(next, t, in_name, m->last << 8 | b);
   next[4] = hash3(5, t, name_hash);
   for (i = 0; i < (in_name ? 5u : 4u); i++)
      __builtin_prefetch(bucket_of(m, i, next[i], 0));
}

size_t pl_tpack_encode(pl_tpack *m, unsigned type, const uint8_t *in,
                       size_t n, uint8_t *out)
{
   pl_rcc_enc e;
   size_t i;
   int k;

   pl_rcc_enc_init(&e, out);
   chunk_start(m, type);
   for (i = 0; i < n; i++) {
      unsigned c0 = 1;
      byte_start(m);
      prefetch_buckets(m, in[i]);
      for (k = 7; k >= 0; k--) {
         unsigned bit = (in[i] >> k) & 1u;
         pl_rcc_enc_bit(&e, (uint32_t)predict(m, c0, k), bit);
         update(m, bit);
         c0 = c0 * 2 + bit;
      }
      byte_end(m, in[i]);
   }
   return pl_rcc_enc_finish(&e);
}

int pl_tpack_decode(pl_tpack *m, unsigned type, const uint8_t *in, size_t n,
                    uint8_t *out, size_t raw_len, const char **error)
{
   pl_rcc_dec d;
   size_t i;
   int k;

   if ((*error = pl_rcc_dec_init(&d, in, n)) != NULL)
      return -1;
   chunk_start(m, type);
   for (i = 0; i < raw_len; i++) {
      unsigned c0 = 1;
      byte_start(m);
      for (k = 7; k >= 0; k--) {
         unsigned bit = pl_rcc_dec_bit(&d, (uint32_t)predict(m, c0, k));
         update(m, bit);
         c0 = c0 * 2 + bit;
      }
      if (d.short_input) {
         *error = "the coded bytes end before the table does";
         return -1;
      }
      out[i] = (uint8_t)(c0 & 0xFFu);
      byte_end(m, out[i]);
   }
   if (d.used != n) {
      *error = "coded bytes left after the table";
      return -1;
   }
   return 0;
}
