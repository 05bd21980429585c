/* SPDX-License-Identifier: MIT */
/* Tests of the CCM stream codec (docs/codec.md section 11):

   - round trips through the API on generated streams (random, large IDs,
     recursion deeper than the model's frames, exits below the first
     frame, loops with data-dependent calls, a repetition longer than the
     longest run, IDs near 2^32), synced at random points (inside runs
     too), each chunk decoded in random pieces into outputs of random
     sizes; the values must be the input and every chunk must end on an
     event boundary;
   - every chunk decoded again by an independent decoder written from
     docs/codec.md section 11 alone (spec_decode below, whole chunks, no
     resumption): the same values, so the document describes the stream
     the reference encoder writes;
   - the chunk bound of 11.8 holds for every chunk, and an event never
     grows the output by more than PL_ENC_MAX_EVENT_BYTES;
   - the tool's fast paths (pl_enc_fast_event per event, and
     pl_enc_fast_events over batches of random sizes) write the same
     bytes and counts as pl_enc_enter/exit;
   - damaged chunks (bit flips, cut bytes, wrong raw_end) end with a
     one-line error or decode to at most the values raw_end allows: never
     a crash, a hang or more values. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_codec.h"
#include "pl_codec_ccm.h"
#include "pl_enc_fast.h"
#include "test_check.h"
#include "test_prng.h"
#include "test_vec.h"

static prng rng = { 0x2545F4914F6CDD1Dull };
/* The revision under test (PL_CODEC_CCM down to PL_CODEC_CCM1). */
static int kind = PL_CODEC_CCM;

static uint64_t rnd_below(uint64_t n)
{
   return prng_below(&rng, n);
}

/* ---- encoding into chunks ------------------------------------------------ */

typedef struct { size_t off, len; uint64_t raw_end, events; } chunk;
typedef struct { vec8 bytes; chunk *ch; size_t n, cap; } stream;

static void stream_free(stream *s)
{
   free(s->bytes.v);
   free(s->ch);
   memset(s, 0, sizeof *s);
}

static size_t max_growth;

/* Encode ev[0..n) with a sync after 1 in sync_every events, and now and
   then inside a long run (sync_every 0: only when the buffer is full and
   at the end, as the tool writes a stream); one chunk per sync. */
static void encode(const uint32_t *ev, size_t n, uint64_t sync_every,
                   stream *s)
{
   size_t cap = 2 * PL_ENC_MAX_EVENT_BYTES + rnd_below(8192);
   uint8_t *buf = xrealloc(0, cap);
   pl_encoder *e = xrealloc(0, sizeof *e);
   size_t k;

   memset(s, 0, sizeof *s);
   pl_enc_init(e, kind, buf, cap);
   for (k = 0; k <= n; k++) {
      int sync = k == n;
      if (k < n) {
         size_t before = e->out_len;
         if (ev[k])
            pl_enc_enter(e, ev[k]);
         else
            pl_enc_exit(e);
         if (e->out_len - before > max_growth)
            max_growth = e->out_len - before;
         sync = (sync_every && rnd_below(sync_every) == 0)
                || e->out_cap - e->out_len < PL_ENC_MAX_EVENT_BYTES
                || (sync_every && e->ccm.in_run && pl_ccm_run_length(&e->ccm) > 300
                    && rnd_below(4096) == 0);
      }
      if (!sync)
         continue;
      pl_enc_sync(e);
      if (pl_enc_ready(e)) {
         if (s->n == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 64;
            s->ch = xrealloc(s->ch, s->cap * sizeof *s->ch);
         }
         s->ch[s->n].off = s->bytes.n;
         s->ch[s->n].len = pl_enc_ready(e);
         s->ch[s->n].raw_end = pl_enc_ready_raw(e);
         s->ch[s->n].events = e->events;
         s->n++;
         v8_append(&s->bytes, e->out, pl_enc_ready(e));
         pl_enc_consume(e, pl_enc_ready(e));
      }
      CHECK(e->out_len == 0, "bytes left after a sync");
   }
   free(buf);
   free(e);
}

/* Decode chunk by chunk through the API, in random pieces; -1 with *err
   on an error (the values before it are in out). */
static int api_decode(const stream *s, vec32 *out, const char **err,
                      int check_events)
{
   pl_decoder *d = xrealloc(0, sizeof *d);
   uint32_t vals[300];
   size_t c;
   int rc = 0;

   pl_dec_init(d, kind);
   for (c = 0; c < s->n && rc == 0; c++) {
      const uint8_t *p = s->bytes.v + s->ch[c].off, *end = p + s->ch[c].len;
      pl_dec_set_raw_limit(d, s->ch[c].raw_end);
      for (;;) {
         size_t piece = rnd_below(3) ? (size_t)-1 : 1 + rnd_below(9);
         size_t vcap = rnd_below(3) ? sizeof vals / sizeof vals[0]
                                     : 1 + rnd_below(5);
         const uint8_t *pend = (size_t)(end - p) < piece ? end : p + piece;
         long r = pl_dec_run(d, &p, pend, vals, vcap), i;
         if (r < 0) {
            rc = -1;
            break;
         }
         for (i = 0; i < r; i++)
            v32_push(out, vals[i]);
         if (d->error) {
            rc = -1;
            break;
         }
         if (p == end && (size_t)r < vcap)
            break;
      }
      if (rc == 0 && pl_dec_end_chunk(d) != 0)
         rc = -1;
      if (rc == 0 && check_events
          && (out->n != s->ch[c].events || !pl_dec_at_boundary(d))) {
         *err = "chunk does not end on its events' boundary";
         free(d);
         return -1;
      }
   }
   if (rc)
      *err = d->error ? d->error : "?";
   free(d);
   return rc;
}

/* ---- an independent decoder, from docs/codec.md section 11 -------------- */

#define S_HB 17
#define S_HM ((1u << S_HB) - 1u)
#define S_BIG 0xFFFFu
#define S_G 0x9E3779B97F4A7C15ull
#define S_P 0x100000001B3ull

typedef struct { uint32_t tag, v[4], n, hits, mh, own; } s_slot;
typedef struct { uint32_t tag, v[8], n; } s_callees;
typedef struct { uint32_t fn, c1, c2; } s_frame;

typedef struct {
   uint16_t hist[1u << S_HB];
   uint32_t pos, max_id, depth;
   uint32_t mtab[2][1u << 15], ptr[2], len[2];
   s_slot slot[1u << 14];
   s_callees callees[1u << 12];
   s_frame frame[1024];
   uint32_t c_len[2][16], c_state[2][16], c_agree[2][4], c_cand[3][8][4][3];
   uint32_t c_exit[2], c_new, c_nbits[64], c_lit[4096];
   uint32_t c_rl_unary[4][17], c_rl_mant[17][16];
   int32_t w[2][16][5];
   int16_t stretch[4096];
   /* ccm (not ccm1): the run memory, and the open run's entry */
   int run_memory;
   struct { uint32_t tag, len; } rm[1u << 12];
   uint32_t rm_ix, rm_tag;
   /* ccm3 and later (codecs 6 to 9, 11.9): the tables' index bits now, and
      their fills */
   int grows;
   /* ccm4 and later (codecs 7 to 9, 11.10): the matchers' three-input
      mixer, and the short matcher idle while the long one matches */
   int lean;
   uint32_t c_match[2][16][16][4];
   /* ccm5 and ccm (codecs 8 and 9, 11.11): events the long matcher
      predicts; ccm (11.12): and the short one, with the counters s */
   int light, light_short;
   struct { uint32_t last, c[3][2], s[3][2]; } lt[1u << 12];
   unsigned bits_slot, bits_callees, bits_rm, bits_mtab;
   uint32_t fill_slot, fill_callees, fill_rm, fill_mtab;
   /* range decoder */
   const uint8_t *in, *end;
   uint32_t low, range, code;
   int bad;
} spec;

static const int K[33] = {
   1, 2, 4, 6, 10, 17, 27, 45, 74, 120, 194, 311, 488, 747, 1102, 1546, 2048,
   2550, 2994, 3349, 3608, 3785, 3902, 3976, 4022, 4051, 4069, 4079, 4086,
   4090, 4092, 4094, 4095
};

static int s_squash(int64_t x)
{
   int i, w;
   if (x > 2047) x = 2047;
   if (x < -2047) x = -2047;
   i = (int)((x + 2048) >> 7);
   w = (int)((x + 2048) & 127);
   return (K[i] * (128 - w) + K[i + 1] * w + 64) >> 7;
}

static void s_init(spec *m)
{
   int p, x;
   uint32_t *all[] = { &m->c_len[0][0], &m->c_state[0][0], &m->c_agree[0][0],
                       &m->c_cand[0][0][0][0], m->c_exit, &m->c_new,
                       m->c_nbits, m->c_lit, &m->c_rl_unary[0][0],
                       &m->c_rl_mant[0][0] };
   size_t sizes[] = { 32, 32, 8, 288, 2, 1, 64, 4096, 68, 272 }, i, j;

   memset(m, 0, sizeof *m);
   for (i = 0; i < 10; i++)
      for (j = 0; j < sizes[i]; j++)
         all[i][j] = 0x80000000u;
   for (i = 0; i < 2 * 16 * 5; i++)
      (&m->w[0][0][0])[i] = 19661;
   for (i = 0; i < 2 * 16 * 16 * 4; i++)
      (&m->c_match[0][0][0][0])[i] = 0x80000000u;
   for (i = 0; i < 4096 * 6; i++)
      (&m->lt[i / 6].c[0][0])[i % 6] = (&m->lt[i / 6].s[0][0])[i % 6]
         = 0x80000000u;
   for (p = 0; p < 4096; p++) {
      m->stretch[p] = 2047;
      for (x = -2047; x <= 2047; x++)
         if (s_squash(x) >= p) {
            m->stretch[p] = (int16_t)x;
            break;
         }
   }
}

static void s_norm(spec *m)
{
   while (!((m->low ^ (m->low + m->range)) >= (1u << 24)
            && m->range >= (1u << 16))) {
      if ((m->low ^ (m->low + m->range)) >= (1u << 24))
         m->range = (0u - m->low) & 0xFFFFu;
      if (m->in == m->end) {
         m->bad = 1;
         return;
      }
      m->code = (m->code << 8) | *m->in++;
      m->low <<= 8;
      m->range <<= 8;
   }
}

/* A decision whose P(bit = 1) is p1 / 4096. */
static unsigned s_bit(spec *m, unsigned p1)
{
   uint32_t bound;
   s_norm(m);
   bound = (m->range >> 12) * (4096u - p1);
   if (m->code - m->low < bound) {
      m->range = bound;
      return 0;
   }
   m->low += bound;
   m->range -= bound;
   return 1;
}

static unsigned s_direct(spec *m)
{
   s_norm(m);
   m->range >>= 1;
   if (m->code - m->low < m->range)
      return 0;
   m->low += m->range;
   return 1;
}

static void s_count(uint32_t *c, unsigned bit)
{
   uint32_t n = *c & 1023u;
   int64_t p = *c >> 10, target = bit ? (1 << 22) - 1 : 0;
   p += ((target - p) * (int64_t)(131072u / (2u * n + 3u))) >> 17;
   if (n < 127)
      n++;
   *c = (uint32_t)p << 10 | n;
}

static unsigned s_p1(uint32_t c)
{
   return (c >> 20) ? (c >> 20) : 1u;
}

static unsigned s_counted(spec *m, uint32_t *c)
{
   unsigned bit = s_bit(m, s_p1(*c));
   s_count(c, bit);
   return bit;
}

static unsigned s_bucket(uint32_t len)
{
   if (len < 8) return len;
   if (len < 16) return 8;
   if (len < 32) return 9;
   if (len < 64) return 10;
   if (len < 128) return 11;
   if (len < 512) return 12;
   if (len < 2048) return 13;
   if (len < 16384) return 14;
   return 15;
}

static s_frame *s_fr(spec *m, uint32_t d)
{
   return &m->frame[d < 1023 ? d : 1023];
}

static void s_stack(spec *m, uint32_t x)
{
   s_frame *t;
   if (x == 0) {
      if (m->depth > 0)
         m->depth--;
      return;
   }
   t = s_fr(m, m->depth);
   t->c2 = t->c1;
   t->c1 = x;
   if (m->depth < 0xFFFFFFFFu)
      m->depth++;
   t = s_fr(m, m->depth);
   t->fn = x;
   t->c1 = t->c2 = 0;
}

static uint64_t s_key(uint64_t seed, const uint32_t *v, int k)
{
   uint64_t h = seed;
   int i;
   for (i = 0; i < k; i++)
      h = (h + v[i] + 1) * S_G;
   return h ^ (h >> 29);
}

static void s_mtf(uint32_t *v, uint32_t *n, uint32_t ways, uint32_t x)
{
   uint32_t r;
   for (r = 0; r < *n && v[r] != x; r++)
      ;
   if (r == *n) {
      if (*n < ways) {
         (*n)++;
      } else {
         r = ways - 1;
      }
   }
   for (; r > 0; r--)
      v[r] = v[r - 1];
   v[0] = x;
}

/* 11.9: a table of 2^bits entries of size sz becomes 2^(bits + 1):
   new entry j is old entry j >> 1. */
static void s_double(void *table, size_t sz, unsigned bits)
{
   size_t n = (size_t)1 << bits, j;
   uint8_t *old = xrealloc(0, n * sz), *t = table;
   memcpy(old, t, n * sz);
   for (j = 0; j < 2 * n; j++)
      memcpy(t + j * sz, old + (j >> 1) * sz, sz);
   free(old);
}

/* 11.9: a tagged table grows once it took new tags 2^(bits - 1) times. */
static void s_grow(void *table, size_t sz, unsigned *bits, unsigned max,
                   uint32_t fills)
{
   if (*bits < max && fills >= 1u << (*bits - 1)) {
      s_double(table, sz, *bits);
      ++*bits;
   }
}

/* 11.5 step 5: the hash H of the L values before position p. */
static uint64_t s_hash(const spec *m, uint32_t p, uint32_t L)
{
   uint64_t H = 0, pw = 1;
   uint32_t q;
   for (q = 1; q <= L; q++) {
      H += (m->hist[(p - q) & S_HM] + 1ull) * pw;
      pw *= S_P;
   }
   return H;
}

static void s_history(spec *m, uint32_t x)
{
   static const uint32_t L[2] = { 20, 6 };
   uint32_t w = x < S_BIG ? x : S_BIG;
   int k;
   for (k = 0; k < 2; k++)
      if (m->len[k] > 0) {
         if (m->hist[m->ptr[k] & S_HM] == w) {
            if (m->len[k] < 65535) m->len[k]++;
            m->ptr[k]++;
         } else {
            m->len[k] = 0;
         }
      }
   m->hist[m->pos & S_HM] = (uint16_t)w;
   m->pos++;
   for (k = 0; k < 2; k++) {
      uint32_t e, c;
      /* 11.10: from codec 7 on the short matcher does not look while the long
         one matches (its source found just now included) */
      int idle = m->len[k] == 0 && !(m->lean && k == 1 && m->len[0] > 0);
      if (m->pos < L[k])
         continue;
      e = (uint32_t)((s_hash(m, m->pos, L[k]) * S_G) >> (64 - m->bits_mtab));
      c = m->mtab[k][e];
      m->mtab[k][e] = m->pos;
      if (idle && c != 0 && m->pos - c <= (1u << S_HB) - 64) {
         uint32_t n = 0;
         while (n < 64 && n < c
                && m->hist[(c - 1 - n) & S_HM] == m->hist[(m->pos - 1 - n) & S_HM])
            n++;
         if (n >= L[k]) {
            m->len[k] = n;
            m->ptr[k] = c;
         }
      } else if (idle) {
         m->fill_mtab++;
      }
   }
   /* 11.9: the position tables grow, each entry placed by the hash of the
      values before it; those too old for 11.5's distance test go */
   if (m->grows && m->bits_mtab < 15 && m->fill_mtab >= 1u << m->bits_mtab) {
      for (k = 0; k < 2; k++) {
         uint32_t old[1u << 15], j;
         memcpy(old, m->mtab[k], sizeof old);
         memset(m->mtab[k], 0, sizeof m->mtab[k]);
         for (j = 0; j < 1u << m->bits_mtab; j++) {
            if (old[j] == 0 || m->pos - old[j] > (1u << S_HB) - 64)
               continue;
            m->mtab[k][(s_hash(m, old[j], L[k]) * S_G)
                       >> (64 - (m->bits_mtab + 1))] = old[j];
         }
      }
      m->bits_mtab++;
   }
}

/* 11.11: the entry of the top frame's function and last two callees (the
   table has a quarter as many entries as the slots). */
static uint32_t s_light_ix(spec *m)
{
   const s_frame *t = s_fr(m, m->depth);
   uint32_t v[3] = { t->fn, t->c1, t->c2 };
   return (uint32_t)(s_key(4, v, 3) >> (64 - (m->bits_slot - 2)));
}

/* One event outside a run (11.4, 11.5); excl < 2^32 + 1 means none. */
/* The o2 context's key (11.4): the top frame and its parent. */
static uint64_t s_key2(spec *m)
{
   static const s_frame none = { 0, 0, 0 };
   const s_frame *t = s_fr(m, m->depth);
   const s_frame *a = m->depth ? s_fr(m, m->depth - 1) : &none;
   uint32_t k2v[5] = { t->fn, t->c1, t->c2, a->fn, a->c1 };
   return s_key(2, k2v, 5);
}

static uint32_t s_event(spec *m, int has_excl, uint32_t excl)
{
   const s_frame *t = s_fr(m, m->depth);
   uint32_t k1v[2] = { t->fn, t->c1 };
   uint64_t h2 = s_key2(m), h1 = s_key(1, k1v, 2), h0 = s_key(3, &t->fn, 1);
   s_slot *S2 = &m->slot[h2 >> (64 - m->bits_slot)];
   s_slot *S1 = &m->slot[h1 >> (64 - m->bits_slot)], *SC;
   s_callees *S0 = &m->callees[h0 >> (64 - m->bits_callees)];
   uint32_t tag2 = (uint32_t)h2 | 1, tag1 = (uint32_t)h1 | 1, tag0 = (uint32_t)h0 | 1;
   int v2 = S2->tag == tag2, v1 = S1->tag == tag1, v0 = S0->tag == tag0;
   unsigned mstate, hp = 0, ok = 0, src;
   uint32_t offered[20], noff = 0, x = 0, i;
   int found = 0, zero = 0;

   SC = v2 ? S2 : v1 ? S1 : NULL;
   mstate = SC ? (v2 ? 8u : 0u) + (SC->mh & 3u) + (SC->hits > 1 ? 4u : 0u) : 0u;
   if (has_excl) {
      offered[noff++] = excl;
      zero = excl == 0;
   }
   for (src = 0; src < 5 && !found; src++) {
      uint32_t cnt = src < 2 ? 1 : src == 2 ? (v2 ? S2->n : 0)
                   : src == 3 ? (v1 ? S1->n : 0) : (v0 ? S0->n : 0);
      uint32_t r;
      for (r = 0; r < cnt && !found; r++) {
         uint32_t y, j;
         int dup = 0;
         unsigned bit;
         if (src < 2) {
            if (m->len[src] == 0 || m->hist[m->ptr[src] & S_HM] == S_BIG)
               continue;
            y = m->hist[m->ptr[src] & S_HM];
         } else {
            y = src == 2 ? S2->v[r] : src == 3 ? S1->v[r] : S0->v[r];
         }
         for (j = 0; j < noff; j++)
            dup |= offered[j] == y;
         if (dup)
            continue;
         offered[noff++] = y;
         zero |= y == 0;
         if (src < 2) {
            unsigned kk = src, b = s_bucket(m->len[kk]), ag;
            int64_t st[5], dot = 0;
            int p, err, q, n_in;
            if (!hp)
               hp = 2 - kk;
            if (!v2)
               ag = 3;
            else if (S2->v[0] == y)
               ag = 0;
            else {
               ag = 2;
               for (j = 1; j < S2->n; j++)
                  if (S2->v[j] == y)
                     ag = 1;
            }
            if (m->lean) {          /* 11.10 */
               st[0] = m->stretch[m->c_match[kk][b][mstate][ag] >> 20];
               st[1] = SC ? m->stretch[SC->own >> 20] : 0;
               st[2] = 256;
               n_in = 3;
            } else {
               st[0] = m->stretch[m->c_len[kk][b] >> 20];
               st[1] = m->stretch[m->c_state[kk][mstate] >> 20];
               st[2] = SC ? m->stretch[SC->own >> 20] : 0;
               st[3] = m->stretch[m->c_agree[kk][ag] >> 20];
               st[4] = 256;
               n_in = 5;
            }
            for (q = 0; q < n_in; q++)
               dot += st[q] * m->w[kk][b][q];
            p = s_squash(dot >> 16);
            bit = s_bit(m, (unsigned)p);
            err = (((int)bit << 12) - p) >> 2;
            for (q = 0; q < n_in; q++)
               m->w[kk][b][q] += (int32_t)((st[q] * err) >> 10);
            if (SC)
               s_count(&SC->own, bit);
            if (m->lean) {
               s_count(&m->c_match[kk][b][mstate][ag], bit);
            } else {
               s_count(&m->c_len[kk][b], bit);
               s_count(&m->c_state[kk][mstate], bit);
               s_count(&m->c_agree[kk][ag], bit);
            }
            ok |= bit;
         } else {
            unsigned o = src - 2;
            uint32_t hits = o == 0 ? S2->hits : o == 1 ? S1->hits : 0;
            bit = s_counted(m, &m->c_cand[o][r][hits < 3 ? hits : 3][hp]);
         }
         if (bit) {
            x = y;
            found = 1;
         }
      }
   }
   if (!found && !zero && s_counted(m, &m->c_exit[t->c1 != 0])) {
      x = 0;
      found = 1;
   }
   if (!found && m->max_id < 0xFFFFFFFFu && s_counted(m, &m->c_new)) {
      x = m->max_id + 1;
      found = 1;
   }
   if (!found) {
      unsigned node = 1, nb, b;
      uint32_t q = 1;
      for (b = 0; b < 6; b++)
         node = 2 * node + s_counted(m, &m->c_nbits[node]);
      nb = node - 64;
      if (nb == 0 || nb > 32) {
         m->bad = 1;
         return 0;
      }
      for (b = 1; b < nb; b++)
         q = 2 * q + (q < 4096 ? s_counted(m, &m->c_lit[q]) : s_direct(m));
      x = q;
   }
   /* 11.5 */
   if (hp) {
      if (v2) S2->mh = ((S2->mh << 1) | ok) & 3;
      if (v1) S1->mh = ((S1->mh << 1) | ok) & 3;
   }
   {
      s_slot *u[2] = { S1, S2 };
      uint32_t tg[2] = { tag1, tag2 };
      for (i = 0; i < 2; i++) {
         s_slot *s = u[i];
         if (s->tag != tg[i]) {
            s->tag = tg[i]; s->v[0] = x; s->n = 1; s->hits = 0; s->mh = 3;
            s->own = 0x80000000u;
            m->fill_slot++;
         } else if (s->v[0] == x) {
            if (s->hits < 255) s->hits++;
         } else {
            s->hits = 0;
            s_mtf(s->v, &s->n, 4, x);
         }
      }
   }
   if (S0->tag != tag0) {
      S0->tag = tag0; S0->v[0] = x; S0->n = 1;
      m->fill_callees++;
   } else {
      s_mtf(S0->v, &S0->n, 8, x);
   }
   if (m->light)
      m->lt[s_light_ix(m)].last = x;
   if (x > m->max_id)
      m->max_id = x;
   s_history(m, x);
   s_stack(m, x);
   if (m->grows) {
      unsigned sb = m->bits_slot;
      s_grow(m->slot, sizeof m->slot[0], &m->bits_slot, 14, m->fill_slot);
      if (m->light && m->bits_slot != sb)     /* 11.11: with the slots */
         s_double(m->lt, sizeof m->lt[0], sb - 2);
      s_grow(m->callees, sizeof m->callees[0], &m->bits_callees, 12,
             m->fill_callees);
   }
   return x;
}

/* 11.3: one event of a run, w. */
static void s_run_step(spec *m, uint32_t w)
{
   if (m->len[1] > 0) {
      if (m->hist[m->ptr[1] & S_HM] == w) {
         if (m->len[1] < 65535) m->len[1]++;
         m->ptr[1]++;
      } else {
         m->len[1] = 0;
      }
   }
   if (m->len[0] < 65535) m->len[0]++;
   m->ptr[0]++;
   m->hist[m->pos & S_HM] = (uint16_t)w;
   m->pos++;
   s_stack(m, w);
}

/* An event coded outside a run (11.4, excl excluded if has_excl) goes
   out; -1 on damage. */
static int s_coded(spec *m, int has_excl, uint32_t excl, uint64_t raw_end,
                   uint64_t *raw, vec32 *out)
{
   uint32_t x = s_event(m, has_excl, excl);
   if (m->bad || raw_end - *raw < (x < 0xFFFF ? 2u : 6u))
      return -1;
   v32_push(out, x);
   *raw += x < 0xFFFF ? 2 : 6;
   return 0;
}

/* 11.11, 11.12: a matcher's value w was the event: it goes out, and
   entry ix keeps it; -1 on damage. */
static int s_matched(spec *m, uint32_t ix, uint32_t w, uint64_t raw_end,
                     uint64_t *raw, vec32 *out)
{
   if (raw_end - *raw < 2)
      return -1;
   v32_push(out, w);
   *raw += 2;
   m->lt[ix].last = w;
   return 0;
}

/* 11.11: an event the long matcher predicts, w; -1 on damage. */
static int s_light(spec *m, uint64_t raw_end, uint64_t *raw, vec32 *out)
{
   uint32_t w = m->hist[m->ptr[0] & S_HM], ix = s_light_ix(m);
   unsigned g = (s_bucket(m->len[0]) < 11 ? s_bucket(m->len[0]) : 11) - 9;

   if (!s_counted(m, &m->lt[ix].c[g][m->lt[ix].last == w])) {
      m->len[0] = 0;
      return s_coded(m, 1, w, raw_end, raw, out);
   }
   if (s_matched(m, ix, w, raw_end, raw, out) < 0)
      return -1;
   s_run_step(m, w);
   m->mtab[0][(s_hash(m, m->pos, 20) * S_G) >> (64 - m->bits_mtab)] = m->pos;
   return 0;
}

/* 11.12: an event the short matcher predicts, w, where the long one
   predicts no short ID; -1 on damage. */
static int s_short(spec *m, uint64_t raw_end, uint64_t *raw, vec32 *out)
{
   uint32_t w = m->hist[m->ptr[1] & S_HM], ix = s_light_ix(m);
   unsigned g = m->len[1] < 8 ? 0 : m->len[1] < 32 ? 1 : 2;

   if (!s_counted(m, &m->lt[ix].s[g][m->lt[ix].last == w]))
      return s_coded(m, 1, w, raw_end, raw, out);
   if (s_matched(m, ix, w, raw_end, raw, out) < 0)
      return -1;
   s_history(m, w);
   s_stack(m, w);
   return 0;
}

/* 11.3: whether a run starts; ccm notes its call context's entry. */
static int s_run_starts(spec *m)
{
   uint64_t h2;

   if (m->hist[m->ptr[0] & S_HM] == S_BIG)
      return 0;
   if (!m->run_memory)
      return m->len[0] >= 256;
   if (m->len[0] < 64)
      return 0;
   h2 = s_key2(m);
   m->rm_ix = (uint32_t)(h2 >> (64 - m->bits_rm));
   m->rm_tag = (uint32_t)h2 | 1;
   return m->len[0] >= 256 || m->rm[m->rm_ix].tag != m->rm_tag
          || m->rm[m->rm_ix].len >= 192;
}

/* Decode one chunk (raw bytes so far: *raw) into out; 0 or -1. */
static int spec_chunk(spec *m, const uint8_t *p, size_t n, uint64_t raw_end,
                      uint64_t *raw, vec32 *out)
{
   int k;
   if (n < 4 || raw_end % 2 || raw_end < *raw)
      return -1;
   m->in = p + 4;
   m->end = p + n;
   m->low = 0;
   m->range = 0xFFFFFFFFu;
   m->code = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
   while (*raw < raw_end && !m->bad) {
      if (s_run_starts(m)) {
         unsigned lb = s_bucket(m->len[0]), b = 0, t, node = 1;
         unsigned rc = m->run_memory ? (lb < 14 ? lb : 14) - 11 : lb - 12;
         uint32_t v, L, j;
         while (b < 16 && s_counted(m, &m->c_rl_unary[rc][b]))
            b++;
         t = b < 4 ? b : 4;
         for (k = 0; k < (int)t; k++)
            node = 2 * node + s_counted(m, &m->c_rl_mant[b][node]);
         v = node;
         for (k = (int)t; k < (int)b; k++)
            v = 2 * v + s_direct(m);
         L = v - 1;
         for (j = 0; j < L; j++) {
            uint32_t w = m->hist[m->ptr[0] & S_HM];
            if (w == S_BIG || raw_end - *raw < 2)
               return -1;
            v32_push(out, w);
            *raw += 2;
            s_run_step(m, w);
         }
         if (m->run_memory) {
            m->fill_rm += m->rm[m->rm_ix].tag != m->rm_tag;
            m->rm[m->rm_ix].tag = m->rm_tag;
            m->rm[m->rm_ix].len = L;
            if (m->grows)
               s_grow(m->rm, sizeof m->rm[0], &m->bits_rm, 12, m->fill_rm);
         }
         if (L != 65535 && *raw != raw_end) {
            uint32_t mm = m->hist[m->ptr[0] & S_HM];
            m->len[0] = 0;
            if (s_coded(m, mm != S_BIG, mm, raw_end, raw, out) < 0)
               return -1;
         }
      } else if (m->light && m->len[0] > 0
                 && m->hist[m->ptr[0] & S_HM] != S_BIG) {
         if (s_light(m, raw_end, raw, out) < 0)
            return -1;
      } else if (m->light_short && m->len[1] > 0
                 && m->hist[m->ptr[1] & S_HM] != S_BIG) {
         if (s_short(m, raw_end, raw, out) < 0)
            return -1;
      } else if (s_coded(m, 0, 0, raw_end, raw, out) < 0) {
         return -1;
      }
   }
   if (m->bad)
      return -1;
   s_norm(m);
   if (m->bad || m->in != m->end || m->code != m->low)
      return -1;
   return 0;
}

static int spec_decode(const stream *s, vec32 *out)
{
   spec *m = xrealloc(0, sizeof *m);
   uint64_t raw = 0;
   size_t c;
   int rc = 0;
   s_init(m);
   m->run_memory = kind != PL_CODEC_CCM1;
   m->grows = kind >= PL_CODEC_CCM3;
   m->lean = kind >= PL_CODEC_CCM4;
   m->light = kind >= PL_CODEC_CCM5;
   m->light_short = kind == PL_CODEC_CCM;
   m->bits_slot = m->grows ? 8 : 14;
   m->bits_callees = m->grows ? 6 : 12;
   m->bits_rm = m->grows ? 6 : 12;
   m->bits_mtab = m->grows ? 9 : 15;
   for (c = 0; c < s->n && rc == 0; c++)
      rc = spec_chunk(m, s->bytes.v + s->ch[c].off, s->ch[c].len,
                      s->ch[c].raw_end, &raw, out);
   free(m);
   return rc;
}

/* ---- the round trip ------------------------------------------------------- */

static size_t roundtrip(const char *name, const vec32 *ev, uint64_t sync_every)
{
   stream s;
   vec32 got = {0}, spec_got = {0};
   const char *err = 0;
   size_t c, k, bytes;
   uint64_t prev = 0;

   encode(ev->v, ev->n, sync_every, &s);
   CHECK(api_decode(&s, &got, &err, 1) == 0, "%s: decode error: %s", name,
         err ? err : "?");
   for (k = 0; k < ev->n && k < got.n && got.v[k] == ev->v[k]; k++)
      ;
   CHECK(got.n == ev->n && k == ev->n, "%s: %zu values, want %zu, first "
         "difference at %zu", name, got.n, ev->n, k);
   CHECK(spec_decode(&s, &spec_got) == 0, "%s: the spec decoder fails", name);
   for (k = 0; k < ev->n && k < spec_got.n && spec_got.v[k] == ev->v[k]; k++)
      ;
   CHECK(spec_got.n == ev->n && k == ev->n, "%s: spec decoder: %zu values, "
         "want %zu, first difference at %zu", name, spec_got.n, ev->n, k);
   for (c = 0; c < s.n; c++) {
      CHECK(s.ch[c].raw_end - prev
            <= pl_codec_max_raw(kind, s.ch[c].len),
            "%s: chunk %zu: %llu raw bytes in %zu bytes", name, c,
            (unsigned long long)(s.ch[c].raw_end - prev), s.ch[c].len);
      prev = s.ch[c].raw_end;
   }
   bytes = s.bytes.n;
   stream_free(&s);
   free(got.v);
   free(spec_got.v);
   return bytes;
}

static void roundtrips(const char *name, const vec32 *ev)
{
   static const uint64_t every[] = { 0, 3, 97, 20000 };
   size_t i;
   for (i = 0; i < sizeof every / sizeof every[0]; i++)
      roundtrip(name, ev, every[i]);
}

/* ---- generators ------------------------------------------------------------ */

static vec32 g;

static void call(uint32_t id) { v32_push(&g, id); }
static void ret(void) { v32_push(&g, 0); }

static void fib(unsigned n)
{
   call(7);
   if (n >= 2) {
      fib(n - 1);
      fib(n - 2);
   }
   ret();
}

/* A time-step loop: each step calls solve, which calls one of three
   kernels chosen by the data, and now and then an irregular function. */
static void app(unsigned steps)
{
   unsigned s, i;
   call(1);
   for (s = 0; s < steps; s++) {
      call(2);
      for (i = 0; i < 20; i++) {
         call(3 + (uint32_t)rnd_below(3));
         if (rnd_below(50) == 0) { call(9 + (uint32_t)rnd_below(40)); ret(); }
         ret();
      }
      ret();
   }
   ret();
}

static void test_streams(void)
{
   size_t k;
   uint32_t depth = 0;

   g.n = 0;
   roundtrips("empty", &g);

   g.n = 0;
   for (k = 0; k < 200000; k++) {
      if (depth && rnd_below(2)) { ret(); depth--; }
      else { call(1 + (uint32_t)rnd_below(1000)); depth++; }
   }
   roundtrips("random", &g);

   g.n = 0;
   for (k = 0; k < 50000; k++) {
      if (rnd_below(3) == 0) ret();
      else call(rnd_below(2) ? 0xFFFFFFFFu - (uint32_t)rnd_below(3)
                              : 0xFFFEu + (uint32_t)rnd_below(4));
   }
   roundtrips("large ids and exits at depth 0", &g);

   g.n = 0;
   fib(22);
   roundtrips("fib(22)", &g);

   g.n = 0;
   for (k = 0; k < 5000; k++) call((uint32_t)(k % 3) + 1);
   for (k = 0; k < 5000; k++) ret();
   roundtrips("recursion deeper than the frames", &g);

   g.n = 0;
   app(3000);
   roundtrips("app loop", &g);

   /* phases: a fixed block of 150 events broken by a random call, so that
      runs begun at a long match of 64 end early and their contexts learn
      to wait (ccm), and one of 900 where runs go on */
   g.n = 0;
   for (k = 0; k < 600; k++) {
      size_t j, len = k % 40 < 20 ? 150 : 900;
      call(60);
      for (j = 0; j < len; j++) {
         call(61 + (uint32_t)(j % 5));
         ret();
      }
      call(70 + (uint32_t)rnd_below(8));
      ret();
      ret();
   }
   roundtrips("phases", &g);

   /* one repetition much longer than a run can be (65,535 events) */
   g.n = 0;
   for (k = 0; k < 200000; k++) { call(5); ret(); }
   roundtrips("long repetition", &g);

   /* large IDs inside a long repetition: runs stop at them */
   g.n = 0;
   for (k = 0; k < 40000; k++) {
      call(k % 7 == 3 ? 0x12345678u : 11);
      ret();
   }
   roundtrips("large IDs in a repetition", &g);

   CHECK(max_growth <= PL_ENC_MAX_EVENT_BYTES, "an event added %zu bytes",
         max_growth);
}

/* The model predicts: regular streams must cost a small fraction of raw. */
static void test_ratio(void)
{
   size_t bytes;
   g.n = 0;
   fib(22);
   bytes = roundtrip("fib(22) ratio", &g, 0);
   printf("  fib(22): %zu events, %zu bytes\n", g.n, bytes);
   CHECK(bytes * 1000 < 2 * g.n, "fib(22): %zu bytes for %zu events", bytes,
         g.n);
}

/* ---- the tool's fast paths ------------------------------------------------ */

/* ev[0..n) into one chunk: way 0 through pl_enc_enter/exit, 1 through
   pl_enc_fast_event first, 2 in batches through pl_enc_fast_events. */
static vec8 encode_way(const uint32_t *ev, size_t n, int way,
                       uint64_t counts[3])
{
   size_t cap = 64 + n * PL_ENC_MAX_EVENT_BYTES;
   uint8_t *buf = xrealloc(0, cap);
   pl_encoder *e = xrealloc(0, sizeof *e);
   vec8 out = {0};
   size_t k = 0;

   pl_enc_init(e, kind, buf, cap);
   while (k < n) {
      if (way == 2) {
         size_t batch = 1 + rnd_below(9000), end = k + batch < n ? k + batch : n;
         while (k < end) {
            k += pl_enc_fast_events(e, ev + k, end - k);
            if (k < end) {
               if (ev[k]) pl_enc_enter(e, ev[k]); else pl_enc_exit(e);
               k++;
            }
         }
         continue;
      }
      if (way == 0 || !pl_enc_fast_event(e, ev[k])) {
         if (ev[k]) pl_enc_enter(e, ev[k]); else pl_enc_exit(e);
      }
      k++;
   }
   pl_enc_sync(e);
   v8_append(&out, e->out, pl_enc_ready(e));
   counts[0] = e->events;
   counts[1] = e->words;
   counts[2] = e->raw_bytes;
   free(buf);
   free(e);
   return out;
}

static void fast_paths(const char *name)
{
   uint64_t want[3], got[3];
   vec8 ref = encode_way(g.v, g.n, 0, want);
   for (int way = 1; way <= 2; way++) {
      vec8 b = encode_way(g.v, g.n, way, got);
      CHECK(b.n == ref.n && memcmp(b.v, ref.v, b.n) == 0
            && !memcmp(got, want, sizeof got),
            "%s: fast path %d wrote %zu bytes, %llu events; enter/exit "
            "%zu, %llu", name, way, b.n, (unsigned long long)got[0], ref.n,
            (unsigned long long)want[0]);
      free(b.v);
   }
   free(ref.v);
}

static void test_fast_paths(void)
{
   size_t k;
   g.n = 0;
   fib(22);
   fast_paths("fib(22)");
   g.n = 0;
   app(3000);
   fast_paths("app loop");
   g.n = 0;
   for (k = 0; k < 200000; k++) { call(5); ret(); }
   fast_paths("long repetition");
   g.n = 0;
   for (k = 0; k < 40000; k++) {
      call(k % 7 == 3 ? 0x12345678u : 11);
      ret();
   }
   fast_paths("large IDs in a repetition");
   g.n = 0;
   for (k = 0; k < 5000; k++) call((uint32_t)(k % 3) + 1);
   for (k = 0; k < 5000; k++) ret();
   fast_paths("recursion deeper than the frames");
}

/* ---- damage ---------------------------------------------------------------- */

static void test_damage(void)
{
   stream s, bad;
   vec32 got = {0};
   const char *err;
   size_t k, total;

   g.n = 0;
   app(400);
   encode(g.v, g.n, 0, &s);
   CHECK(s.n == 1, "one chunk");
   total = g.n;
   for (k = 0; k < 2000; k++) {
      unsigned what = (unsigned)rnd_below(3);
      size_t max_values;
      bad.bytes.v = 0;
      bad.bytes.n = bad.bytes.cap = 0;
      v8_append(&bad.bytes, s.bytes.v, s.bytes.n);
      bad.ch = xrealloc(0, sizeof *bad.ch);
      bad.n = bad.cap = 1;
      bad.ch[0] = s.ch[0];
      if (what == 0) {
         unsigned f, flips = 1 + (unsigned)rnd_below(3);
         for (f = 0; f < flips; f++)
            bad.bytes.v[rnd_below(bad.bytes.n)] ^= (uint8_t)(1u << rnd_below(8));
      } else if (what == 1) {
         bad.ch[0].len = rnd_below(bad.ch[0].len);
      } else {
         bad.ch[0].raw_end = 2 * rnd_below(bad.ch[0].raw_end);
      }
      bad.ch[0].events = 0;
      max_values = bad.ch[0].raw_end / 2;
      got.n = 0;
      err = 0;
      if (api_decode(&bad, &got, &err, 0) == 0)
         CHECK(got.n <= max_values && (what != 0 || got.n == total),
               "damage %u: decoded %zu values without an error", what, got.n);
      else
         CHECK(got.n <= max_values && err && strchr(err, '\n') == NULL,
               "damage %u: %zu values, error %s", what, got.n, err ? err : "-");
      stream_free(&bad);
   }
   stream_free(&s);
   free(got.v);
}

int main(int argc, char **argv)
{
   if (argc > 2 && !strcmp(argv[1], "--seed"))
      rng.s = strtoull(argv[2], 0, 0);
   /* the default codec, then the older revisions (old traces) */
   for (kind = PL_CODEC_CCM; kind >= PL_CODEC_CCM1; kind--) {
      printf("%s:\n", pl_codec_name(kind));
      test_streams();
      test_ratio();
      test_fast_paths();
      test_damage();
   }
   free(g.v);
   printf("ccm: %d passed, %d failed\n", n_pass, n_fail);
   return n_fail != 0;
}
