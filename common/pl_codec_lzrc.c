/* SPDX-License-Identifier: MIT */
/* LZRC, a ParLoT stream codec (docs/codec.md, section 5): LZ over
   16-bit words whose decisions (which candidate a match copies from, how
   long it is, a literal's value) are coded by an adaptive binary range
   coder.  Each new position has up to PL_RC_WAYS candidates, the latest
   positions that followed the same three words; the encoder races them
   while words arrive and codes the one that matched longest, so it never
   looks ahead and does a bounded amount of work per word.

   Freestanding like the other codecs: no libc, no allocation.  The decoder is a
   resumable state machine: it can stop before any input byte and after any
   output value. */

#include "pl_codec_lzrc.h"
#include "pl_rc.h"

/* Largest distance back to a candidate: its three context words and the
   word it predicts must still be in history. */
#define RC_MAX_DIST  (PL_RC_WINDOW - 4u)
#define PROB_ONE     (1u << PL_RC_PROB_BITS)
#define MOVE_BITS    5          /* adaptation speed of the probabilities */
#define UNARY_CTX(k) ((k) < PL_RC_UNARY_CTX ? (k) : PL_RC_UNARY_CTX - 1u)


enum { TOKEN_NONE = 0, TOKEN_MATCH = 1, TOKEN_LITERAL = 2 };

/* ---- Model shared by encoder and decoder -------------------------------- */

static void model_init(pl_rc_model *m)
{
   unsigned i, k;
   for (i = 0; i < PL_LZ_HASH_SIZE; i++)
      for (k = 0; k < PL_RC_WAYS; k++)
         m->table[i][k] = 0;
   m->pos = 0;
   m->max_word = 0;
   m->last_token = TOKEN_NONE;
   m->excl = 0;
   m->excl_word = 0;
   for (i = 0; i < 3; i++)
      for (k = 0; k < PL_RC_WAYS; k++)
         m->p_pick[i][k] = PROB_ONE / 2;
   for (i = 0; i < PL_RC_UNARY_CTX; i++) {
      m->p_unary[i] = PROB_ONE / 2;
      for (k = 0; k < 16; k++)
         m->p_mant[i][k] = PROB_ONE / 2;
   }
   m->p_new = PROB_ONE / 2;
   for (i = 0; i < 256; i++)
      m->p_hi[i] = m->p_lo[i] = PROB_ONE / 2;
}

/* The candidates of position i (at least three words precede it): the
   slot's positions, most recent first, whose three preceding words equal
   those before i, that are close enough, and that do not predict the
   excluded word.  Fills c[] and returns their number; then records i as
   the slot's most recent position and clears the exclusion. */
static unsigned lookup(pl_rc_model *m, uint32_t i, uint32_t *c)
{
   const uint16_t *h = m->hist;
   uint32_t a = h[(i - 3) & RC_MASK];
   uint32_t b = h[(i - 2) & RC_MASK];
   uint32_t cc = h[(i - 1) & RC_MASK];
   uint32_t *row = m->table[pl_ctx_hash(a, b, cc)];
   unsigned n = 0, k;

   for (k = 0; k < PL_RC_WAYS; k++) {
      uint32_t j = row[k];
      /* d = i - j in [1, RC_MAX_DIST]; d - 1 wraps for j == i */
      if (j == 0 || (uint32_t)(i - j - 1u) >= RC_MAX_DIST)
         continue;
      if (h[(j - 1) & RC_MASK] != cc || h[(j - 2) & RC_MASK] != b
          || h[(j - 3) & RC_MASK] != a)
         continue;
      if (m->excl && h[j & RC_MASK] == m->excl_word)
         continue;
      c[n++] = j;
   }
   for (k = PL_RC_WAYS - 1; k > 0; k--)
      row[k] = row[k - 1];
   row[0] = i;
   m->excl = 0;
   return n;
}


static inline void adapt(uint16_t *p, unsigned bit)
{
   if (bit)
      *p = (uint16_t)(*p - (*p >> MOVE_BITS));
   else
      *p = (uint16_t)(*p + ((PROB_ONE - *p) >> MOVE_BITS));
}

/* ---- Encoder ------------------------------------------------------------ */

/* One copy of the decision coder, not one per call site: the slow path
   runs after long matches with its code out of the caches, and fetching
   half as much of it made the longest events (a match of a million words
   ending) about a quarter shorter, at no measurable cost per event. */
static PL_NOINLINE void enc_bit(pl_encoder *e, uint16_t *p, unsigned bit)
{
   pl_rc_enc_bit(e, *p, bit);
   adapt(p, bit);
}

static PL_NOINLINE void enc_direct(pl_encoder *e, unsigned bit)
{
   pl_rc_enc_direct(e, bit);
}

/* 8 bits, most significant first, through a binary tree of probabilities. */
static void enc_byte(pl_encoder *e, uint16_t *tree, unsigned v)
{
   unsigned node = 1, k;
   for (k = 8; k-- > 0;) {
      unsigned bit = (v >> k) & 1u;
      enc_bit(e, &tree[node], bit);
      node = node * 2 + bit;
   }
}

/* L >= 1 as b = floor(log2 L) in unary, the (up to 4) bits below the
   leading one through a tree chosen by b, the rest as direct bits.
   At most 16 + 4 + 11 decisions, as L <= PL_MAX_MATCH. */
static void enc_len(pl_encoder *e, uint64_t len)
{
   pl_rc_model *m = &e->rc;
   unsigned b = 63u - (unsigned)__builtin_clzll(len), t, k, node = 1;

   for (k = 0; k < b; k++)
      enc_bit(e, &m->p_unary[UNARY_CTX(k)], 1);
   enc_bit(e, &m->p_unary[UNARY_CTX(b)], 0);
   t = b < 4 ? b : 4;
   for (k = 0; k < t; k++) {
      unsigned bit = (unsigned)(len >> (b - 1 - k)) & 1u;
      enc_bit(e, &m->p_mant[UNARY_CTX(b)][node], bit);
      node = node * 2 + bit;
   }
   for (k = t; k < b; k++)
      enc_direct(e, (unsigned)(len >> (b - 1 - k)) & 1u);
}

/* The open match ends: code which candidate (the lowest-ranked one still
   matching) and the length.  The word the winner would have copied next
   cannot start the next position (unless a sync ended the match). */
static void close_match(pl_encoder *e)
{
   pl_rc_model *m = &e->rc;
   unsigned w = (unsigned)__builtin_ctz(e->alive), k;
   uint16_t *pick = m->p_pick[m->last_token];

   for (k = 0; k < w; k++)
      enc_bit(e, &pick[k], 0);
   enc_bit(e, &pick[w], 1);
   enc_len(e, e->match_len);
   m->excl = 1;
   m->excl_word = m->hist[(e->cand[w] + (uint32_t)e->match_len) & RC_MASK];
   m->last_token = TOKEN_MATCH;
   e->match_len = 0;
}

void pl_lzrc_enc_init(pl_encoder *e)
{
   model_init(&e->rc);
   e->match_len = 0;
   e->ncand = 0;
   e->alive = 0;
   e->far = 0;
   e->checked = 0;
   pl_rc_enc_start(e);
   e->sync_at = 0;
   e->sync_raw = 0;
}

/* A word that does not extend the open match (pl_lzrc_word, inline in
   pl_codec_lzrc.h, handles the words that do): the match ends, and the word
   starts a new position: it opens a match if a candidate predicts it, else
   it is a literal.  Decisions per word (bounds PL_ENC_MAX_EVENT_BYTES):
   closing a match (8 picks + at most 16 + 4 + 11 for the length of at
   most PL_MAX_MATCH words), then at most 8 picks and a literal (1 + 16):
   64, each writing at most 4 bytes; an event is at most 3 words (768
   bytes), a sync at most 39 decisions and 4 bytes.  (The length code
   itself reaches 2^64: 64 + 4 + 59 decisions, 160 per word, the bound
   PL_ENC_MAX_EVENT_BYTES was set for.) */
void pl_lzrc_word_slow(pl_encoder *e, uint32_t v)
{
   pl_rc_model *m = &e->rc;
   unsigned k;

   if (e->match_len)
      close_match(e);
   if (PL_LIKELY(e->words >= 3)) {
      unsigned n = lookup(m, m->pos, e->cand), alive = 0;
      for (k = 0; k < n; k++)
         if (m->hist[e->cand[k] & RC_MASK] == v)
            alive |= 1u << k;
      e->ncand = n;
      if (alive) {
         /* far: a candidate whose words could leave the window before a
            batch checks them (pl_lzrc_check reads PL_RC_BATCH back) */
         unsigned far = 0;
         for (k = 0; k < n; k++)
            if (m->pos - e->cand[k] > PL_RC_WINDOW - PL_RC_BATCH)
               far |= 1u << k;
         e->alive = alive;
         e->far = far;
         e->checked = 1;
         e->match_len = 1;
         pl_lzrc_store(e, v);
         return;
      }
      for (k = 0; k < n; k++)
         enc_bit(e, &m->p_pick[m->last_token][k], 0);
   }
   {
      unsigned is_new = v == (uint16_t)(m->max_word + 1u);
      enc_bit(e, &m->p_new, is_new);
      if (!is_new) {
         enc_byte(e, m->p_hi, v >> 8);
         enc_byte(e, m->p_lo, v & 0xFFu);
      }
   }
   m->last_token = TOKEN_LITERAL;
   pl_lzrc_store(e, v);
}

/* Whether the n words from position a equal those from position b, in
   the history (eight bytes at a time where neither range wraps). */
static int same_words(const uint16_t *h, uint32_t a, uint32_t b, uint32_t n)
{
   uint32_t i = 0;
   if ((a & RC_MASK) + n <= PL_RC_WINDOW && (b & RC_MASK) + n <= PL_RC_WINDOW) {
      const uint16_t *x = h + (a & RC_MASK), *y = h + (b & RC_MASK);
      for (; i + 4 <= n; i += 4) {
         uint64_t u, w;
         __builtin_memcpy(&u, x + i, 8);
         __builtin_memcpy(&w, y + i, 8);
         if (u != w)
            return 0;
      }
   }
   for (; i < n; i++)
      if (h[(a + i) & RC_MASK] != h[(b + i) & RC_MASK])
         return 0;
   return 1;
}

/* The ranks behind the leader (not far) are checked over the words of the
   open match since e->checked; those that differ leave e->alive.  Their
   words are still in the history: at most PL_RC_BATCH words since the
   last check, and their distance is at most PL_RC_WINDOW - PL_RC_BATCH
   (else they are far). */
void pl_lzrc_check(pl_encoder *e)
{
   uint32_t len = (uint32_t)e->match_len, start = e->rc.pos - len;
   unsigned rest = e->alive & (e->alive - 1u) & ~e->far;

   while (rest) {
      unsigned k = (unsigned)__builtin_ctz(rest);
      rest &= rest - 1u;
      if (!same_words(e->rc.hist, e->cand[k] + e->checked, start + e->checked,
                      len - e->checked))
         e->alive &= ~(1u << k);
   }
   e->checked = len;
}

/* The leader of the open match (the lowest rank in e->alive) does not
   predict v: the next rank in e->alive takes over, the lowest first, that
   predicts v and matched every word so far (a far rank was checked at
   every word; the others since e->checked now, fewer than PL_RC_BATCH
   words).  1 if one did (it leads; the ranks below it are dropped), 0 if
   the match ends (the leader stays the lowest: it is coded, as the lowest
   rank that matched every word).  So the decisions are those of checking
   every candidate at every word. */
int pl_lzrc_promote(pl_encoder *e, uint32_t v)
{
   const uint16_t *h = e->rc.hist;
   uint32_t len = (uint32_t)e->match_len, start = e->rc.pos - len;
   unsigned rest = e->alive & (e->alive - 1u);

   while (rest) {
      unsigned k = (unsigned)__builtin_ctz(rest);
      uint32_t src = e->cand[k];
      rest &= rest - 1u;
      if (!(e->far & (1u << k))
          && (h[(src + len) & RC_MASK] != v
              || !same_words(h, src + e->checked, start + e->checked,
                             len - e->checked))) {
         e->alive &= ~(1u << k);
         continue;
      }
      e->alive &= ~((1u << k) - 1u);
      return 1;
   }
   return 0;
}

/* Close the open match and flush the range coder (4 bytes: low), so that
   a chunk can end here; the model goes on.  Nothing if no word came since
   the last sync. */
void pl_lzrc_sync(pl_encoder *e)
{
   if (e->match_len) {
      close_match(e);
      e->rc.excl = 0;
   }
   if (e->raw_bytes == e->sync_raw)
      return;
   pl_rc_enc_flush(e);
   e->sync_at = e->out_len;
   e->sync_raw = e->raw_bytes;
}

/* ---- Decoder ------------------------------------------------------------ */

/* rc_step: where the decoder is.  Every decision is preceded by the
   normalisation that the encoder did after the previous one, so the
   decoder can stop for input before any decision without undoing it. */
enum {
   D_IDLE = PL_RC_DEC_IDLE,  /* between chunks */
   D_INIT = PL_RC_DEC_INIT,  /* reading the chunk's first 4 bytes */
   D_NEW,       /* a new position: lookup not done */
   D_PICK,      /* deciding whether candidate rc_rank is the one */
   D_UNARY,     /* length: rc_bits ones read so far */
   D_MANT,      /* length: tree bits, rc_node so far, rc_rank bits left */
   D_DIRECT,    /* length: len_acc so far, rc_rank direct bits left */
   D_LIT_NEW,   /* literal: is it max_word + 1? */
   D_LIT_HI,    /* literal: high byte, rc_node so far */
   D_LIT_LO,    /* literal: low byte, rc_node so far, high byte in rc_bits */
   D_COPY,      /* copying copy_left words from copy_src */
   D_DRAIN,     /* all the chunk's words are out: last normalisation */
   D_DONE       /* the chunk is complete */
};

static const char err_long[]    = "LZRC match longer than 65535 words";
static const char err_len64[]   = "LZRC match length of 2^64 or more";
static const char err_overrun[] = "LZRC match runs past the chunk's raw_end";
static const char err_escape[]  = "escaped function ID below 0xFFFF";
static const char err_final[]   = "LZRC range coder does not end as flushed";
static const char err_limit[]   = "LZRC raw_end is odd or behind the stream";
static const char err_split[]   = "LZRC chunk ends inside an escaped ID";

void pl_lzrc_dec_init(pl_decoder *d)
{
   model_init(&d->rc);
   pl_rc_dec_init(d);
   d->ncand = 0;
}

void pl_lzrc_begin_chunk(pl_decoder *d)
{
   pl_rc_dec_start(d);
   d->rc.excl = 0;   /* a chunk starts after a sync */
}

static inline unsigned dec_bit(pl_decoder *d, uint16_t *p)
{
   unsigned bit = pl_rc_dec_bit(d, *p);
   adapt(p, bit);
   return bit;
}

long pl_lzrc_run(pl_decoder *d, const uint8_t **in, const uint8_t *in_end,
                 uint32_t *values, size_t cap)
{
   pl_rc_model *m = &d->rc;
   const uint8_t *p = *in;
   size_t out = 0;
   const char *err = 0;
   int esc = d->esc_words;
   uint32_t acc = d->esc_acc;
   /* words the chunk still holds (raw_end counts 2 bytes per word) */
   uint64_t left = d->raw_limit / 2 - d->words;
   uint32_t w;

   if (d->rc_step != D_IDLE && d->rc_step != D_INIT
       && (d->raw_limit % 2 != 0 || d->raw_limit / 2 < d->words)) {
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
         if (d->raw_limit % 2 != 0 || d->raw_limit / 2 < d->words) {
            err = err_limit;
            goto fail;
         }
         left = d->raw_limit / 2 - d->words;
         d->rc_step = D_NEW;
         continue;
      case D_NEW:
         if (out >= cap)
            goto suspend;
         if (left == 0) {
            d->rc_step = D_DRAIN;
            continue;
         }
         if (PL_LIKELY(d->words >= 3)) {
            d->ncand = lookup(m, m->pos, d->cand);
            d->rc_rank = 0;
            d->rc_step = d->ncand ? D_PICK : D_LIT_NEW;
         } else {
            d->rc_step = D_LIT_NEW;
         }
         continue;
      case D_PICK:
         NORM();
         if (dec_bit(d, &m->p_pick[m->last_token][d->rc_rank])) {
            d->copy_src = d->cand[d->rc_rank];
            d->rc_bits = 0;
            d->rc_step = D_UNARY;
         } else if (++d->rc_rank == d->ncand) {
            d->rc_step = D_LIT_NEW;
         }
         continue;
      case D_UNARY:
         NORM();
         if (dec_bit(d, &m->p_unary[UNARY_CTX(d->rc_bits)])) {
            /* L >= 2^16: more than PL_MAX_MATCH, which encoders since
               format 1.3 never write (a crafted length would copy for
               hours); earlier ones wrote up to 2^64 - 1 */
            if (++d->rc_bits == (d->long_matches ? 64u : 16u)) {
               err = d->long_matches ? err_len64 : err_long;
               goto fail;
            }
            continue;
         }
         d->rc_node = 1;
         d->rc_rank = d->rc_bits < 4 ? d->rc_bits : 4;  /* tree bits */
         d->rc_step = D_MANT;
         continue;
      case D_MANT:
         if (d->rc_rank) {
            NORM();
            d->rc_node = d->rc_node * 2
               + dec_bit(d, &m->p_mant[UNARY_CTX(d->rc_bits)][d->rc_node]);
            d->rc_rank--;
            continue;
         }
         d->len_acc = d->rc_node;
         d->rc_rank = d->rc_bits - (d->rc_bits < 4 ? d->rc_bits : 4);
         d->rc_step = D_DIRECT;
         continue;
      case D_DIRECT:
         if (d->rc_rank) {
            NORM();
            d->len_acc = d->len_acc * 2 + pl_rc_dec_direct(d);
            d->rc_rank--;
            continue;
         }
         if (d->len_acc > left) {
            err = err_overrun;
            goto fail;
         }
         d->copy_left = d->len_acc;
         d->rc_step = D_COPY;
         continue;
      case D_COPY: {
         /* The hot loop: most words of a compressible stream are copied.
            Source and destination may overlap (distance 1 repeats). */
         uint64_t n = d->copy_left;
         uint32_t s = d->copy_src, pos = m->pos;
         uint16_t *h = m->hist;
         unsigned maxw = m->max_word;
         while (n && out < cap) {
            uint32_t cw = h[s & RC_MASK];
            h[pos & RC_MASK] = (uint16_t)cw;
            s++;
            pos++;
            n--;
            if (PL_LIKELY(cw != PL_WORD_ESCAPE)) {
               if (PL_UNLIKELY(cw > maxw))
                  maxw = cw;
               if (PL_LIKELY(esc == 0)) {
                  values[out++] = cw;
                  continue;
               }
            }
            if (esc == 0) {
               esc = 2;
               acc = 0;
            } else {
               acc = (acc << 16) | cw;
               if (--esc == 0) {
                  if (acc <= PL_MAX_SHORT_ID) {
                     err = err_escape;
                     break;
                  }
                  values[out++] = acc;
               }
            }
         }
         d->words += d->copy_left - n;
         left -= d->copy_left - n;
         d->copy_left = n;
         d->copy_src = s;
         m->pos = pos;
         m->max_word = (uint16_t)maxw;
         if (err)
            goto fail;
         if (n)
            goto suspend;   /* output full */
         m->excl = 1;
         m->excl_word = h[s & RC_MASK];
         m->last_token = TOKEN_MATCH;
         d->rc_step = D_NEW;
         continue;
      }
      case D_LIT_NEW:
         NORM();
         if (dec_bit(d, &m->p_new)) {
            w = (uint16_t)(m->max_word + 1u);
            goto literal;
         }
         d->rc_node = 1;
         d->rc_step = D_LIT_HI;
         continue;
      case D_LIT_HI:
      case D_LIT_LO:
         while (d->rc_node < 256) {
            NORM();
            d->rc_node = d->rc_node * 2 + dec_bit(d,
               &(d->rc_step == D_LIT_HI ? m->p_hi : m->p_lo)[d->rc_node]);
         }
         if (d->rc_step == D_LIT_HI) {
            d->rc_bits = d->rc_node - 256;
            d->rc_node = 1;
            d->rc_step = D_LIT_LO;
            continue;
         }
         w = (d->rc_bits << 8) | (d->rc_node - 256);
      literal:
         pl_rc_store(m, w);
         d->words++;
         left--;
         m->last_token = TOKEN_LITERAL;
         d->rc_step = D_NEW;
         if (PL_LIKELY(esc == 0 && w != PL_WORD_ESCAPE)) {
            values[out++] = w;
         } else if (esc == 0) {
            esc = 2;
            acc = 0;
         } else {
            acc = (acc << 16) | w;
            if (--esc == 0) {
               if (acc <= PL_MAX_SHORT_ID) {
                  err = err_escape;
                  goto fail;
               }
               values[out++] = acc;
            }
         }
         continue;
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
   }
#undef NORM

fail:
   d->error = err;
suspend:
   *in = p;
   d->esc_words = esc;
   d->esc_acc = acc;
   d->raw_bytes = 2 * d->words;
   if (d->error)
      return out ? (long)out : PL_DEC_CORRUPT;
   return (long)out;
}

int pl_lzrc_end_chunk(pl_decoder *d)
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
   /* A chunk ends at a sync, so between two events. */
   if (d->esc_words) {
      d->error = err_split;
      return PL_DEC_CORRUPT;
   }
   d->rc_step = D_IDLE;
   return 0;
}

int pl_lzrc_at_boundary(const pl_decoder *d)
{
   if (d->error || d->esc_words)
      return 0;
   return d->rc_step == D_IDLE || d->rc_step == D_INIT
          || d->rc_step == D_NEW || d->rc_step == D_DRAIN
          || d->rc_step == D_DONE;
}
