/* SPDX-License-Identifier: MIT */
/* Tests of the LZRC stream codec (pl_codec_lzrc.c, docs/codec.md
   section 5):

   - round trips through the API (random alphabets, large IDs, recursion,
     a loop, a repetition longer than the longest match), each under
     several sync rates, buffer sizes and start positions (near the 2^32
     wrap too), every chunk ending at a sync and decoded in random pieces;
     an event never grows the output by more than PL_ENC_MAX_EVENT_BYTES;
   - every stream decoded again by an independent decoder written from
     docs/codec.md section 5 alone (spec_rc_decode below);
   - LZRC smaller than LZZE on structured streams;
   - damaged chunks (a byte more or less, a wrong raw_end, bit flips) end
     with an error or decode to at most the values raw_end allows.

   Building and running: test_events.h. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_codec.h"
#include "test_check.h"
#include "test_events.h"
#include "test_stream.h"
#include "test_vec.h"

/* ---- LZRC: every chunk ends at a sync ------------------------------------ */

typedef struct { size_t off, len; uint64_t raw_end; } lzrc_chunk;
typedef struct { vec8 bytes; lzrc_chunk *ch; size_t n, cap; } lzrc_stream;

static void lzrc_free(lzrc_stream *s)
{
   v8_free(&s->bytes);
   free(s->ch);
   memset(s, 0, sizeof *s);
}

/* Encode ev[0..n) as the tool does: a chunk of everything up to a sync
   whenever less than PL_ENC_MAX_EVENT_BYTES are free, and after every
   sync_every events (0: never).  Checks the per-event bound, that events
   leave the ready bytes alone, and the totals. */
static void lzrc_encode(const char *name, const uint32_t *ev, size_t n,
                        size_t sync_every, size_t bufcap, uint32_t start_pos,
                        lzrc_stream *s)
{
   uint8_t *buf = xrealloc(0, bufcap);
   pl_encoder *e = xrealloc(0, sizeof *e);
   size_t k;

   pl_enc_init(e, PL_CODEC_LZRC, buf, bufcap);
   e->rc.pos = start_pos;
   for (k = 0; k <= n; k++) {
      if (k == n || e->out_cap - e->out_len < PL_ENC_MAX_EVENT_BYTES
          || (sync_every && k && k % sync_every == 0)) {
         size_t before = e->out_len, r;
         pl_enc_sync(e);
         CHECK(e->out_len - before <= PL_ENC_MAX_EVENT_BYTES,
               "%s: sync grew %zu bytes", name, e->out_len - before);
         r = pl_enc_ready(e);
         CHECK(r == e->out_len, "%s: %zu bytes after a sync not ready", name,
               e->out_len - r);
         CHECK(pl_enc_ready_raw(e) == 2 * e->words, "%s: ready raw %llu for "
               "%llu words", name, (unsigned long long)pl_enc_ready_raw(e),
               (unsigned long long)e->words);
         if (r) {
            if (s->n == s->cap) {
               s->cap = s->cap ? 2 * s->cap : 64;
               s->ch = xrealloc(s->ch, s->cap * sizeof *s->ch);
            }
            s->ch[s->n].off = s->bytes.n;
            s->ch[s->n].len = r;
            s->ch[s->n].raw_end = pl_enc_ready_raw(e);
            s->n++;
            v8_append(&s->bytes, e->out, r);
            pl_enc_consume(e, r);
         }
      }
      if (k == n)
         break;
      {
         size_t before = e->out_len, ready = pl_enc_ready(e);
         put_event(e, ev[k]);
         if (e->out_len - before > PL_ENC_MAX_EVENT_BYTES)
            CHECK(0, "%s: event %zu grew the buffer by %zu", name, k,
                  e->out_len - before);
         if (pl_enc_ready(e) != ready)
            CHECK(0, "%s: event %zu changed the ready bytes", name, k);
      }
   }
   CHECK(e->events == n, "%s: %llu events", name,
         (unsigned long long)e->events);
   CHECK(e->out_total == s->bytes.n, "%s: out_total", name);
   CHECK(e->raw_bytes == 2 * e->words, "%s: raw_bytes", name);
   free(buf);
   free(e);
}

/* Decode s chunk by chunk, in random pieces (often a few bytes) and random
   output sizes.  Returns 0 with the values in *out, or -1 with the
   decoder's message in *err (-2: it stopped making progress). */
static int lzrc_decode(const lzrc_stream *s, uint32_t start_pos, vec32 *out,
                       const char **err)
{
   pl_decoder *d = xrealloc(0, sizeof *d);
   uint32_t vals[300];
   size_t c;
   int rc = 0;

   pl_dec_init(d, PL_CODEC_LZRC);
   d->rc.pos = start_pos;
   for (c = 0; c < s->n && rc == 0; c++) {
      const uint8_t *p = s->bytes.v + s->ch[c].off, *end = p + s->ch[c].len;
      pl_dec_set_raw_limit(d, s->ch[c].raw_end);
      for (;;) {
         const uint8_t *pe = rnd_below(2) ? p + rnd_below(9) : end;
         const uint8_t *before = p;
         size_t cap = 1 + rnd_below(sizeof vals / sizeof vals[0]), k;
         long r;
         if (pe > end)
            pe = end;
         r = pl_dec_run(d, &p, pe, vals, cap);
         if (r < 0) {
            rc = -1;
            break;
         }
         for (k = 0; k < (size_t)r; k++)
            v32_push(out, vals[k]);
         if (p == end && (size_t)r < cap)
            break;
         if (r == 0 && p == before && pe == end) {
            rc = -2;
            break;
         }
      }
      if (rc == 0 && (pl_dec_end_chunk(d) < 0 || !pl_dec_at_boundary(d)))
         rc = -1;
   }
   *err = d->error ? d->error : rc == -2 ? "no progress" : 0;
   free(d);
   return rc;
}

/* ---- independent LZRC decoder (from docs/codec.md section 5) ------------ */

/* Written from the specification alone, whole chunks at a time and without
   the reference decoder's resumable state machine, so that the reference
   encoder and decoder are checked against the document. */
#define SPEC_W (1u << 17)
#define SPEC_M (SPEC_W - 1u)
typedef struct {
   uint16_t hist[SPEC_W];
   uint32_t table[4096][8];
   uint32_t pos;
   uint64_t words;
   uint16_t max_word, excl_word;
   int last_token, excl, esc, err;
   uint16_t p_pick[3][8], p_unary[16], p_mant[16][16], p_new, p_hi[256],
            p_lo[256];
   uint32_t low, range, code, acc;
   const uint8_t *p, *end;
   vec32 *out;
} spec_rc;

static void spec_rc_init(spec_rc *s, uint32_t start_pos, vec32 *out)
{
   int i, k;
   memset(s, 0, sizeof *s);
   s->pos = start_pos;
   s->out = out;
   for (i = 0; i < 3; i++)
      for (k = 0; k < 8; k++)
         s->p_pick[i][k] = 2048;
   for (i = 0; i < 16; i++) {
      s->p_unary[i] = 2048;
      for (k = 0; k < 16; k++)
         s->p_mant[i][k] = 2048;
   }
   s->p_new = 2048;
   for (i = 0; i < 256; i++)
      s->p_hi[i] = s->p_lo[i] = 2048;
}

static int spec_in(spec_rc *s)
{
   if (s->p == s->end) {
      s->err = 1;
      return 0;
   }
   return *s->p++;
}

static void spec_norm(spec_rc *s)
{
   for (;;) {
      int agree = (s->low >> 24) == ((uint32_t)(s->low + s->range) >> 24);
      if (!agree && s->range >= 65536)
         return;
      if (!agree)
         s->range = (0u - s->low) & 0xFFFF;
      s->code = (s->code << 8) | (uint32_t)spec_in(s);
      s->low <<= 8;
      s->range <<= 8;
   }
}

static int spec_bit(spec_rc *s, uint16_t *p)
{
   uint32_t bound;
   spec_norm(s);
   bound = (s->range >> 12) * *p;
   if ((uint32_t)(s->code - s->low) < bound) {
      s->range = bound;
      *p = (uint16_t)(*p + ((4096 - *p) >> 5));
      return 0;
   }
   s->low += bound;
   s->range -= bound;
   *p = (uint16_t)(*p - (*p >> 5));
   return 1;
}

static int spec_direct(spec_rc *s)
{
   int b;
   spec_norm(s);
   s->range >>= 1;
   b = (uint32_t)(s->code - s->low) >= s->range;
   if (b)
      s->low += s->range;
   return b;
}

static void spec_store(spec_rc *s, uint16_t w)
{
   s->hist[s->pos & SPEC_M] = w;
   s->pos++;
   s->words++;
   if (w != 0xFFFF && w > s->max_word)
      s->max_word = w;
   if (s->esc == 0) {
      if (w == 0xFFFF) {
         s->esc = 2;
         s->acc = 0;
      } else {
         v32_push(s->out, w);
      }
   } else {
      s->acc = (s->acc << 16) | w;
      if (--s->esc == 0) {
         if (s->acc <= 0xFFFE)
            s->err = 2;
         v32_push(s->out, s->acc);
      }
   }
}

/* One chunk; 0 if it decodes as the specification says. */
static int spec_rc_chunk(spec_rc *s, const uint8_t *b, size_t n,
                         uint64_t raw_end)
{
   int k;
   s->p = b;
   s->end = b + n;
   s->low = 0;
   s->range = 0xFFFFFFFFu;
   s->code = 0;
   s->excl = 0;
   if (raw_end % 2 || raw_end / 2 < s->words)
      return 10;
   for (k = 0; k < 4; k++)
      s->code = (s->code << 8) | (uint32_t)spec_in(s);
   while (s->words < raw_end / 2) {
      uint32_t i = s->pos, cand[8];
      int nc = 0, r, picked = -1;
      if (s->err)
         return s->err;
      if (s->words >= 3) {
         uint32_t a = s->hist[(i - 3) & SPEC_M], bb = s->hist[(i - 2) & SPEC_M];
         uint32_t c = s->hist[(i - 1) & SPEC_M];
         uint32_t *row = s->table[hash_like_format(a, bb, c)];
         for (k = 0; k < 8; k++) {
            uint32_t j = row[k], d = i - j;
            if (j == 0 || d < 1 || d > SPEC_W - 4)
               continue;
            if (s->hist[(j - 3) & SPEC_M] != a || s->hist[(j - 2) & SPEC_M] != bb
                || s->hist[(j - 1) & SPEC_M] != c)
               continue;
            if (s->excl && s->hist[j & SPEC_M] == s->excl_word)
               continue;
            cand[nc++] = j;
         }
         memmove(row + 1, row, 7 * sizeof *row);
         row[0] = i;
         s->excl = 0;
      }
      for (r = 0; r < nc; r++)
         if (spec_bit(s, &s->p_pick[s->last_token][r])) {
            picked = r;
            break;
         }
      if (picked >= 0) {
         unsigned bl = 0, t, node = 1, q;
         uint64_t len, m;
         uint32_t src = cand[picked];
         while (spec_bit(s, &s->p_unary[bl < 15 ? bl : 15]))
            if (++bl == 16)   /* L > 65535 (5.6) */
               return 3;
         t = bl < 4 ? bl : 4;
         for (q = 0; q < t; q++)
            node = node * 2 + (unsigned)spec_bit(s, &s->p_mant[bl < 15 ? bl : 15][node]);
         len = node;
         for (q = t; q < bl; q++)
            len = len * 2 + (uint64_t)spec_direct(s);
         if (len > raw_end / 2 - s->words)
            return 4;
         for (m = 0; m < len; m++)
            spec_store(s, s->hist[(src + m) & SPEC_M]);
         s->excl = 1;
         s->excl_word = s->hist[(src + (uint32_t)len) & SPEC_M];
         s->last_token = 1;
      } else {
         uint16_t w;
         if (spec_bit(s, &s->p_new)) {
            w = (uint16_t)(s->max_word + 1);
         } else {
            unsigned node = 1, hi;
            while (node < 256)
               node = node * 2 + (unsigned)spec_bit(s, &s->p_hi[node]);
            hi = node - 256;
            node = 1;
            while (node < 256)
               node = node * 2 + (unsigned)spec_bit(s, &s->p_lo[node]);
            w = (uint16_t)((hi << 8) | (node - 256));
         }
         spec_store(s, w);
         s->last_token = 2;
      }
   }
   if (s->err)
      return s->err;
   spec_norm(s);
   if (s->err)
      return 5;
   if (s->p != s->end)
      return 6;
   return s->code == s->low ? 0 : 7;
}

/* The whole stream through the independent decoder: 0 and the values in
   *out, or the code of the first failing rule. */
static int spec_rc_decode(const lzrc_stream *st, uint32_t start_pos, vec32 *out)
{
   spec_rc *s = xrealloc(0, sizeof *s);
   size_t c;
   int rc = 0;
   spec_rc_init(s, start_pos, out);
   for (c = 0; c < st->n && rc == 0; c++)
      rc = spec_rc_chunk(s, st->bytes.v + st->ch[c].off, st->ch[c].len,
                         st->ch[c].raw_end);
   free(s);
   return rc;
}

/* Round trip; returns the encoded size. */
static size_t lzrc_roundtrip(const char *name, const uint32_t *ev, size_t n,
                             size_t sync_every, size_t bufcap,
                             uint32_t start_pos)
{
   lzrc_stream s = {0};
   vec32 got = {0};
   const char *err = 0;
   size_t bytes;
   int rc;

   lzrc_encode(name, ev, n, sync_every, bufcap, start_pos, &s);
   rc = lzrc_decode(&s, start_pos, &got, &err);
   CHECK(rc == 0, "%s (sync every %zu, buffer %zu): decode failed: %s", name,
         sync_every, bufcap, err ? err : "?");
   CHECK(got.n == n, "%s: %zu values decoded, %zu encoded", name, got.n, n);
   if (got.n == n && n)
      CHECK(memcmp(got.v, ev, n * sizeof *ev) == 0, "%s: values differ", name);
   got.n = 0;
   rc = spec_rc_decode(&s, start_pos, &got);
   CHECK(rc == 0, "%s (sync every %zu): the decoder written from the "
         "specification fails (rule %d)", name, sync_every, rc);
   if (rc == 0)
      CHECK(got.n == n && (n == 0 || memcmp(got.v, ev, n * sizeof *ev) == 0),
            "%s: the decoder written from the specification disagrees", name);
   bytes = s.bytes.n;
   lzrc_free(&s);
   v32_free(&got);
   return bytes;
}

/* Each input under several sync rates, buffer sizes and start positions
   (near the 2^32 wrap of positions too). */
static size_t lzrc_roundtrips(const char *name, const uint32_t *ev, size_t n)
{
   static const size_t every[] = { 0, 1, 3, 1000 };
   size_t k, plain = lzrc_roundtrip(name, ev, n, 0, 1 << 16, 0);
   for (k = 0; k < sizeof every / sizeof every[0]; k++)
      lzrc_roundtrip(name, ev, n, every[k], 2 * PL_ENC_MAX_EVENT_BYTES,
                     k % 2 ? 0xFFFFFFFFu - (uint32_t)rnd_below(n + 10) : 0);
   return plain;
}

/* An LZZE encoding's size, for comparisons. */
static size_t lzze_size(const uint32_t *ev, size_t n)
{
   vec8 sink = {0};
   enc_totals t;
   enc_opts o = {0};
   encode(PL_CODEC_LZZE, ev, n, &o, &sink, &t);
   v8_free(&sink);
   return (size_t)t.out_total;
}

static void test_lzrc_roundtrip(void)
{
   static const uint32_t alpha[] = { 2, 17, 300, 0xFFFE, 70000, 0 };
   size_t a, k, rc_bytes, ze_bytes;

   lzrc_roundtrips("lzrc empty", 0, 0);
   for (a = 0; a < sizeof alpha / sizeof alpha[0]; a++) {
      gen.n = 0;
      for (k = 0; k < 50000; k++)
         v32_push(&gen, alpha[a] ? (uint32_t)rnd_below(alpha[a] + 1)
                                 : (uint32_t)rnd());
      lzrc_roundtrips("lzrc random", gen.v, gen.n);
   }
   gen.n = 0;
   for (k = 0; k < 50000; k++) {
      static const uint32_t ids[] = { 0xFFFF, 0x10000, 0xFFFFFFFF, 0xFFFE, 1 };
      if (rnd_below(3)) ev_enter(ids[rnd_below(5)]); else ev_exit();
   }
   lzrc_roundtrips("lzrc large ids", gen.v, gen.n);

   /* structured inputs: LZRC must also beat LZZE on them */
   gen.n = 0;
   fib_ids[0] = 7; fib_ids[1] = 7;
   ev_enter(1); fib(25); ev_exit();
   rc_bytes = lzrc_roundtrips("lzrc fib(25)", gen.v, gen.n);
   ze_bytes = lzze_size(gen.v, gen.n);
   printf("  fib(25): LZRC %zu bytes, LZZE %zu\n", rc_bytes, ze_bytes);
   CHECK(rc_bytes < ze_bytes, "fib: LZRC %zu >= LZZE %zu", rc_bytes, ze_bytes);
   gen.n = 0;
   fib_ids[0] = 0x12345; fib_ids[1] = 9;
   fib(20);
   lzrc_roundtrips("lzrc fib escaped", gen.v, gen.n);
   gen.n = 0;
   app(100000, 10);
   rc_bytes = lzrc_roundtrips("lzrc app", gen.v, gen.n);
   ze_bytes = lzze_size(gen.v, gen.n);
   printf("  app loop: LZRC %zu bytes, LZZE %zu\n", rc_bytes, ze_bytes);
   CHECK(rc_bytes < ze_bytes, "app: LZRC %zu >= LZZE %zu", rc_bytes, ze_bytes);

   /* > 2^22 words of one pattern: matches of PL_MAX_MATCH words, each
      followed by a literal (the exclusion drops the candidate that would
      go on): at most 8 bytes each */
   gen.n = 0;
   for (k = 0; k < (1u << 22) + 4321; k++) { ev_enter(5); ev_exit(); }
   rc_bytes = lzrc_roundtrip("lzrc long run", gen.v, gen.n, 0, 1 << 16, 0);
   printf("  long run: %zu events -> %zu bytes\n", gen.n, rc_bytes);
   CHECK(rc_bytes < 64 + 8 * (gen.n / PL_MAX_MATCH),
         "long run encodes to %zu bytes", rc_bytes);
}

/* Damaged LZRC chunks: errors, never a crash, a hang or extra values. */
static void test_lzrc_corrupt(void)
{
   lzrc_stream s = {0}, bad = {0};
   vec32 got = {0};
   const char *err;
   size_t k, last;

   gen.n = 0;
   app(2000, 10);
   lzrc_encode("lzrc corrupt", gen.v, gen.n, 0, 1 << 16, 0, &s);
   CHECK(s.n == 1, "one chunk expected, %zu", s.n);
   last = s.ch[0].len;

   /* a byte more, a byte less, a raw_end 2 bytes off or odd */
   {
      static const struct { long dlen; long draw; const char *what; } v[] = {
         { 1, 0, "trailing byte" }, { -1, 0, "missing byte" },
         { 0, 2, "raw_end too large" }, { 0, -2, "raw_end too small" },
         { 0, 1, "odd raw_end" } };
      for (k = 0; k < sizeof v / sizeof v[0]; k++) {
         lzrc_free(&bad);
         v8_append(&bad.bytes, s.bytes.v, last);
         if (v[k].dlen > 0) v8_append(&bad.bytes, (const uint8_t *)"\x5a", 1);
         if (v[k].dlen < 0) bad.bytes.n--;
         bad.ch = xrealloc(0, sizeof *bad.ch);
         bad.n = bad.cap = 1;
         bad.ch[0].off = 0;
         bad.ch[0].len = bad.bytes.n;
         bad.ch[0].raw_end = s.ch[0].raw_end + (uint64_t)v[k].draw;
         got.n = 0;
         /* A raw_end too small goes unnoticed when the word it drops was
            coded by 0 decisions that wrote no byte (low unchanged, so the
            flush still matches): here the last word, an exit, once the
            stream's longest repetition is cut into matches of
            PL_MAX_MATCH words.  Then the values are one word short. */
         CHECK(lzrc_decode(&bad, 0, &got, &err) == -1
               || (v[k].draw == -2 && got.n == bad.ch[0].raw_end / 2
                   && got.v[got.n - 1] == gen.v[got.n - 1]),
               "%s: not reported", v[k].what);
         CHECK(got.n <= bad.ch[0].raw_end / 2, "%s: %zu values", v[k].what,
               got.n);
      }
   }
   /* random damage: always ends, never more values than raw_end allows */
   for (k = 0; k < 3000; k++) {
      size_t flips = 1 + rnd_below(3), f;
      lzrc_free(&bad);
      v8_append(&bad.bytes, s.bytes.v, last);
      for (f = 0; f < flips; f++)
         bad.bytes.v[rnd_below(last)] ^= (uint8_t)(1u << rnd_below(8));
      bad.ch = xrealloc(0, sizeof *bad.ch);
      bad.n = bad.cap = 1;
      bad.ch[0] = s.ch[0];
      got.n = 0;
      if (lzrc_decode(&bad, 0, &got, &err) == 0)
         CHECK(got.n == gen.n, "damaged chunk decoded to %zu values", got.n);
      else
         CHECK(got.n <= gen.n, "damaged chunk gave %zu values", got.n);
   }
   lzrc_free(&s);
   lzrc_free(&bad);
   v32_free(&got);
}

int main(int argc, char **argv)
{
   seed_option(argc, argv);
   RUN(test_lzrc_roundtrip);
   RUN(test_lzrc_corrupt);
   return end_tests("lzrc");
}
