/* SPDX-License-Identifier: MIT */
/* Tests of the LZZE and RAW stream codecs (pl_codec_lzze.c,
   pl_codec_raw.c, docs/codec.md sections 3 and 4).  RAW is LZZE's value
   layer without LZ and ZE, so every test runs both on the same streams
   against one reference implementation written from the document:

   - round trips through the API (empty, random alphabets, large IDs,
     recursion, a loop, periods around the window size, hash collisions,
     mutated repeats, the match distance limit, positions wrapping at
     2^32), byte for byte against the reference encoder, drained as the
     tool drains, decoded in random pieces, flushed prefixes decoded too;
   - syncs where they are hardest (inside long matches, after escaped
     IDs), each chunk decoded with pl_dec_set_raw_limit/pl_dec_end_chunk;
   - hand-made and damaged streams (bad escapes and lengths, data past
     raw_end, truncation at every byte, garbage compared with the
     reference decoder): an error or the right values, never a hang;
   - the bound on the bytes one event adds (PL_ENC_MAX_EVENT_BYTES).

   Building and running: test_events.h.  More options:
     --long     also run a > 2^31-word match (half a minute)
     --example  print the worked examples of docs/codec.md */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_codec.h"
#include "test_check.h"
#include "test_events.h"
#include "test_stream.h"
#include "test_vec.h"

/* ---- independent reference implementation (from docs/codec.md) --------- */

/* Written from the specification, deliberately simple and non-incremental,
   so that pl_codec.c is checked against the document and not only against
   itself. */

#define R_W 65536u
#define R_M (R_W - 1u)
#define R_MAX_MATCH 65535u   /* the longest match (4.5, 4.6) */

typedef struct {
   uint16_t hist[R_W];
   uint32_t table[4096];
   uint32_t pos;
   uint64_t words;
} ref_lz;

static uint32_t ref_slot(const ref_lz *z)
{
   return hash_like_format(z->hist[(z->pos - 3) & R_M], z->hist[(z->pos - 2) & R_M],
                           z->hist[(z->pos - 1) & R_M]);
}

/* lookup of section 4.3; returns valid, candidate in *j */
static int ref_lookup(ref_lz *z, uint32_t *j)
{
   uint32_t i = z->pos, slot = ref_slot(z), d;
   *j = z->table[slot];
   z->table[slot] = i;
   d = i - *j;
   return *j != 0 && d >= 1 && d <= R_W - 4
          && z->hist[(*j - 3) & R_M] == z->hist[(i - 3) & R_M]
          && z->hist[(*j - 2) & R_M] == z->hist[(i - 2) & R_M]
          && z->hist[(*j - 1) & R_M] == z->hist[(i - 1) & R_M];
}

static void ref_store(ref_lz *z, uint16_t w)
{
   z->hist[z->pos & R_M] = w;
   z->pos++;
   z->words++;
}

static void ref_emit(vec8 *lzbytes, uint32_t w)
{
   uint8_t b[2] = { (uint8_t)w, (uint8_t)(w >> 8) };
   v8_append(lzbytes, b, 2);
}

static void ref_emit_len(vec8 *o, uint64_t len)
{
   while (len >= 0x8000) { ref_emit(o, (uint32_t)(len & 0x7FFF) | 0x8000); len >>= 15; }
   ref_emit(o, (uint32_t)len);
}

/* Encode events the way section 4.6 describes; output the stream bytes.
   Syncs (4.8): after the events flagged in sync_after, a pending match
   length is written and the ZE group is closed, short; LZ and ZE go on
   from there. */
static void ref_encode_sync(int kind, const uint32_t *ev, size_t n,
                            const uint8_t *sync_after, uint32_t start_pos,
                            vec8 *out)
{
   vec8 lz = {0};
   vec32 cuts = {0};           /* LZ byte positions where groups restart */
   size_t k, seg;
   ref_lz *z = calloc(1, sizeof *z);
   uint64_t match_len = 0;
   uint32_t match_src = 0;

   z->pos = start_pos;
   for (k = 0; k < n; k++) {
      uint32_t w3[3];
      size_t nw = 0, i;
      if (ev[k] <= 0xFFFE) w3[nw++] = ev[k];
      else { w3[nw++] = 0xFFFF; w3[nw++] = ev[k] >> 16; w3[nw++] = ev[k] & 0xFFFF; }
      for (i = 0; i < nw; i++) {
         uint16_t v = (uint16_t)w3[i];
         uint32_t j;
         if (kind == PL_CODEC_RAW) { ref_emit(&lz, v); continue; }
         if (match_len) {
            if (match_len < R_MAX_MATCH && z->hist[match_src & R_M] == v) { match_len++; match_src++; ref_store(z, v); continue; }
            ref_emit_len(&lz, match_len);
            match_len = 0;
         }
         if (z->words >= 3 && ref_lookup(z, &j)) {
            if (z->hist[j & R_M] == v) { match_len = 1; match_src = j + 1; ref_store(z, v); continue; }
            ref_emit(&lz, 0);
         }
         ref_emit(&lz, v);
         ref_store(z, v);
      }
      if (sync_after[k]) {
         if (match_len) ref_emit_len(&lz, match_len);
         match_len = 0;
         v32_push(&cuts, (uint32_t)lz.n);
      }
   }
   if (match_len) ref_emit_len(&lz, match_len);
   v32_push(&cuts, (uint32_t)lz.n);
   if (kind == PL_CODEC_RAW) {
      v8_append(out, lz.v, lz.n);
      goto done;
   }
   /* ZE, groups of 8 bytes counted from each cut */
   for (seg = 0, k = 0; seg < cuts.n; seg++) {
      size_t segend = cuts.v[seg];
      while (k < segend) {
         uint8_t grp[9];
         size_t g = 1, b;
         grp[0] = 0;
         for (b = 0; b < 8 && k + b < segend; b++)
            if (lz.v[k + b]) { grp[0] |= (uint8_t)(1u << b); grp[g++] = lz.v[k + b]; }
         v8_append(out, grp, g);
         k += b;
      }
   }
done:
   v8_free(&lz);
   v32_free(&cuts);
   free(z);
}

/* The reference encoder without syncs. */
static void ref_encode(int kind, const uint32_t *ev, size_t n,
                       uint32_t start_pos, vec8 *out)
{
   uint8_t *no_sync = calloc(n + 1, 1);
   ref_encode_sync(kind, ev, n, no_sync, start_pos, out);
   free(no_sync);
}

/* Decode a whole stream per sections 3-6.  Returns 0 (ok, possibly
   truncated), or -1 if corrupt; values before the error are in *out. */
static int ref_decode(int kind, const uint8_t *in, size_t n, uint64_t limit,
                      uint32_t start_pos, uint64_t max_values, vec32 *out,
                      int *boundary)
{
   vec8 raw = {0};
   int garbage = 0, rc = 0, esc = 0;
   size_t k = 0, nw, wi = 0;
   uint32_t acc = 0;
   ref_lz *z = calloc(1, sizeof *z);
   enum { NEW, LIT } st = NEW;
   int mid = 0;           /* inside a length / after a zero length */

   /* 1. bytes of the LZ (or RAW) word sequence, up to the limit */
   if (kind == PL_CODEC_RAW) {
      size_t m = n < limit ? n : (size_t)limit;
      v8_append(&raw, in, m);
      garbage = m < n;
   } else {
      while (raw.n < limit) {
         uint8_t bm, b;
         int bit;
         if (k == n) break;
         bm = in[k++];
         for (bit = 0; bit < 8 && raw.n < limit; bit++) {
            if (bm >> bit & 1) { if (k == n) goto ze_end; b = in[k++]; }
            else b = 0;
            v8_append(&raw, &b, 1);
         }
         if (raw.n == limit && bit < 8 && (bm >> bit) != 0)
            garbage = 1;     /* set bits past the limit */
      }
ze_end:
      if (raw.n == limit && k < n)
         garbage = 1;
   }
   nw = raw.n / 2;
   *boundary = raw.n % 2 == 0;
#define RW(i) ((uint32_t)raw.v[2 * (i)] | (uint32_t)raw.v[2 * (i) + 1] << 8)
#define VALUE(w) do {                                                  \
      uint32_t w_ = (w);                                               \
      if (esc) { acc = acc << 16 | w_;                                 \
                 if (--esc == 0) { if (acc <= 0xFFFE) { rc = -1; goto out; } \
                                   v32_push(out, acc); } }             \
      else if (w_ == 0xFFFF) { esc = 2; acc = 0; }                     \
      else v32_push(out, w_);                                          \
      if (out->n >= max_values) goto out;                              \
   } while (0)

   z->pos = start_pos;
   if (kind == PL_CODEC_RAW) {
      for (wi = 0; wi < nw; wi++) VALUE(RW(wi));
   } else {
      while (wi < nw) {
         uint32_t j;
         if (st == NEW && z->words >= 3 && ref_lookup(z, &j)) {
            uint64_t len = 0;
            int shift = 0, cnt = 0;
            for (;;) {
               uint32_t w;
               if (wi == nw) { mid = 1; goto out; }
               w = RW(wi); wi++; cnt++;
               if (cnt == 5 && w > 0xF) { rc = -1; goto out; }
               len |= (uint64_t)(w & 0x7FFF) << shift;
               if (len > R_MAX_MATCH) { rc = -1; goto out; }
               shift += 15;
               if (!(w & 0x8000)) break;
            }
            if (len == 0) { st = LIT; mid = 1; continue; }
            while (len--) {
               uint16_t w = z->hist[j++ & R_M];
               ref_store(z, w);
               VALUE(w);
            }
            continue;
         }
         st = NEW;
         mid = 0;
         ref_store(z, (uint16_t)RW(wi));
         VALUE(RW(wi));
         wi++;
      }
   }
out:
   if (garbage && out->n < max_values)
      rc = -1;           /* whatever the LZ state: bytes past the limit */
   *boundary = *boundary && !mid && esc == 0;
#undef RW
#undef VALUE
   v8_free(&raw);
   free(z);
   return rc;
}

/* ---- round trip -------------------------------------------------------- */

typedef struct {
   double ratio;         /* raw 2-byte words / encoded bytes */
   size_t encoded;
} rt_result;

static rt_result roundtrip_opts(const char *name, const uint32_t *ev, size_t n,
                                int kind, const enc_opts *o, int tiny)
{
   vec8 sink = {0};
   vec32 got = {0};
   enc_totals t;
   int boundary = 0;
   const char *err = 0;
   int rc;
   rt_result res;

   encode(kind, ev, n, o, &sink, &t);
   if (!o->random_consume) {
      /* byte-exact against the reference encoder written from the spec */
      vec8 ref = {0};
      size_t k;
      ref_encode(kind, ev, n, o->start_pos, &ref);
      for (k = 0; k < ref.n && k < sink.n && ref.v[k] == sink.v[k]; k++)
         ;
      CHECK(ref.n == sink.n && k == ref.n,
            "%s/%s: differs from the reference encoder at byte %zu (%zu/%zu bytes)",
            name, pl_codec_name(kind), k, sink.n, ref.n);
      v8_free(&ref);
   }
   rc = decode_all(kind, sink.v, sink.n, 1, t.raw_bytes, o->start_pos, tiny,
                   &got, &boundary, &err, UINT64_MAX);
   CHECK(rc == 0, "%s/%s: decode error: %s", name, pl_codec_name(kind),
         err ? err : "?");
   CHECK(got.n == n, "%s/%s: decoded %zu values, expected %zu", name,
         pl_codec_name(kind), got.n, n);
   if (got.n == n && n) {
      size_t k;
      for (k = 0; k < n && got.v[k] == ev[k]; k++)
         ;
      CHECK(k == n, "%s/%s: first difference at %zu: got %u want %u", name,
            pl_codec_name(kind), k, got.v[k], ev[k]);
   }
   CHECK(boundary, "%s/%s: not at a boundary at the end", name, pl_codec_name(kind));
   res.encoded = sink.n;
   res.ratio = sink.n ? (double)t.words * 2.0 / (double)sink.n : 0.0;
   v8_free(&sink);
   v32_free(&got);
   return res;
}

/* ---- sync and chunk-by-chunk decoding ---------------------------------- */

/* A STREAM chunk as the tool writes it: bytes [off, off + len) of the
   sink, ending at raw (ZE input) position raw_end.  events >= 0: the chunk
   was written right after a sync, with that many events encoded: decoding
   up to its end must give exactly those, on an event boundary. */
typedef struct {
   size_t off, len;
   uint64_t raw_end;
   int64_t events;
} chunk_rec;
typedef struct { chunk_rec *v; size_t n, cap; } chunk_vec;

static void chunk_push(chunk_vec *c, size_t off, size_t len, uint64_t raw_end,
                       int64_t events)
{
   if (c->n == c->cap) {
      c->cap = c->cap ? c->cap * 2 : 256;
      c->v = xrealloc(c->v, c->cap * sizeof *c->v);
   }
   c->v[c->n].off = off;
   c->v[c->n].len = len;
   c->v[c->n].raw_end = raw_end;
   c->v[c->n].events = events;
   c->n++;
}

/* Coverage of the chunked tests: syncs and chunk ends at awkward places. */
static struct {
   uint64_t syncs, sync_in_match, sync_in_long_match, sync_after_escape,
            sync_after_escape_in_match, chunks, end_mid_event, end_mid_escape,
            end_mid_match_len, empty_syncs;
} cov;

static unsigned popcount8(unsigned b)
{
   unsigned k = 0;
   for (; b; b >>= 1)
      k += b & 1u;
   return k;
}

/* Write out the ready bytes as one or more chunks.  They end at a ZE group
   (maybe short, right after a sync), so they can be split only between
   groups: all groups but the last are full (8 raw bytes).  RAW: any even
   split. */
static void emit_chunks(pl_encoder *e, int kind, vec8 *sink, chunk_vec *cv,
                        uint64_t *raw_done, int64_t sync_events, int split)
{
   size_t ready = pl_enc_ready(e), at = 0;
   uint64_t ready_raw = pl_enc_ready_raw(e);

   if (ready == 0) {
      /* nothing new since the last chunk: it ends at this sync point */
      if (ready_raw != *raw_done)
         CHECK(0, "no ready bytes but raw %llu != %llu",
               (unsigned long long)ready_raw, (unsigned long long)*raw_done);
      if (sync_events >= 0) {
         cov.empty_syncs++;
         if (cv->n)
            cv->v[cv->n - 1].events = sync_events;
         else if (sync_events != 0)
            CHECK(0, "events but no chunk");
      }
      return;
   }
   while (at < ready) {
      size_t n = 0;
      uint64_t raw;
      if (kind == PL_CODEC_RAW) {
         n = ready - at;
         if (split && n > 2)
            n = 2 * (1 + rnd_below(n / 2));
         raw = *raw_done + n;
      } else {
         uint64_t groups = 0, want = split ? 1 + rnd_below(6) : UINT64_MAX;
         while (at + n < ready && groups < want) {
            n += 1 + popcount8(e->out[at + n]);
            groups++;
         }
         if (at + n > ready)
            CHECK(0, "a group runs past the ready bytes");
         raw = *raw_done + 8 * groups;
         if (at + n == ready) {
            if (!(ready_raw <= raw && ready_raw + 8 > raw))
               CHECK(0, "ready_raw %llu does not end the last group (%llu)",
                     (unsigned long long)ready_raw, (unsigned long long)raw);
            raw = ready_raw;
         }
      }
      chunk_push(cv, sink->n, n, raw,
                 at + n == ready ? sync_events : -1);
      v8_append(sink, e->out + at, n);
      *raw_done = raw;
      at += n;
   }
   pl_enc_consume(e, ready);
}

/* Encode ev[0..n) with syncs at random points (rate: 1 in sync_every
   events, plus forced ones inside long matches and after escaped IDs) and
   chunks as the tool writes them; then decode chunk by chunk, with
   set_raw_limit/end_chunk, in random pieces; compare with the events and,
   byte for byte, with the reference encoder given the same sync points. */
static void roundtrip_chunked(const char *name, const uint32_t *ev, size_t n,
                              int kind, uint32_t start_pos, uint64_t sync_every)
{
   size_t cap = 2 * PL_ENC_MAX_EVENT_BYTES + rnd_below(4096);
   uint8_t *buf = xrealloc(0, cap);
   pl_encoder *e = xrealloc(0, sizeof *e);
   pl_decoder *d = xrealloc(0, sizeof *d);
   uint8_t *sync_after = xrealloc(0, n + 1);
   vec8 sink = {0}, ref = {0};
   vec32 got = {0};
   chunk_vec cv = {0};
   uint64_t raw_done = 0;
   uint32_t vals[512];
   size_t k, c, bad = 0;
   int split = (int)rnd_below(2);

   memset(sync_after, 0, n + 1);
   pl_enc_init(e, kind, buf, cap);
   e->lz.pos = start_pos;
   for (k = 0; k < n; k++) {
      int sync = 0;
      if (e->out_cap - e->out_len < PL_ENC_MAX_EVENT_BYTES
          || rnd_below(16) == 0)
         emit_chunks(e, kind, &sink, &cv, &raw_done, -1, split);
      put_event(e, ev[k]);
      if (sync_every && rnd_below(sync_every) == 0)
         sync = 1;
      if (e->match_len > 1000 && rnd_below(64) == 0)
         sync = 1;                       /* in the middle of a long match */
      if (ev[k] > PL_MAX_SHORT_ID && rnd_below(8) == 0)
         sync = 1;                       /* right after an escaped ID */
      if (!sync)
         continue;
      cov.syncs++;
      cov.sync_in_match += e->match_len > 0;
      cov.sync_in_long_match += e->match_len > 1000;
      cov.sync_after_escape += ev[k] > PL_MAX_SHORT_ID;
      cov.sync_after_escape_in_match += ev[k] > PL_MAX_SHORT_ID
                                        && e->match_len > 0;
      if (e->out_cap - e->out_len < PL_ENC_MAX_EVENT_BYTES)
         emit_chunks(e, kind, &sink, &cv, &raw_done, -1, split);
      {
         size_t before = e->out_len;
         pl_enc_sync(e);
         if (e->out_len - before > 12)
            CHECK(0, "sync added %zu bytes (bound 12)", e->out_len - before);
      }
      if (pl_enc_ready(e) != e->out_len || pl_enc_ready_raw(e) != e->raw_bytes)
         CHECK(0, "sync left unready bytes");
      sync_after[k] = 1;
      emit_chunks(e, kind, &sink, &cv, &raw_done, (int64_t)k + 1, split);
   }
   if (e->out_cap - e->out_len < PL_ENC_MAX_EVENT_BYTES)
      emit_chunks(e, kind, &sink, &cv, &raw_done, -1, split);
   pl_enc_sync(e);
   if (n)
      sync_after[n - 1] = 1;
   emit_chunks(e, kind, &sink, &cv, &raw_done, (int64_t)n, split);
   CHECK(raw_done == e->raw_bytes && e->out_total == sink.n,
         "%s/%s chunked: totals", name, pl_codec_name(kind));

   /* the bytes are those of the reference encoder given the same syncs */
   ref_encode_sync(kind, ev, n, sync_after, start_pos, &ref);
   for (k = 0; k < ref.n && k < sink.n && ref.v[k] == sink.v[k]; k++)
      ;
   CHECK(ref.n == sink.n && k == ref.n, "%s/%s chunked: differs from the "
         "reference encoder at byte %zu (%zu/%zu bytes)", name,
         pl_codec_name(kind), k, sink.n, ref.n);

   /* decode chunk by chunk */
   pl_dec_init(d, kind);
   d->lz.pos = start_pos;
   for (c = 0; c < cv.n && !bad; c++) {
      const chunk_rec *ch = &cv.v[c];
      const uint8_t *p = sink.v + ch->off, *end = p + ch->len;
      cov.chunks++;
      if (!(ch->len > 0 && ch->raw_end > (c ? cv.v[c - 1].raw_end : 0)))
         CHECK(0, "chunk %zu: empty or raw_end not increasing", c);
      if (kind == PL_CODEC_RAW
          && ch->raw_end - (c ? cv.v[c - 1].raw_end : 0) != ch->len)
         CHECK(0, "RAW chunk %zu: raw_end - previous != length", c);
      pl_dec_set_raw_limit(d, ch->raw_end);
      for (;;) {
         size_t piece = rnd_below(4) ? (size_t)-1 : 1 + rnd_below(8);
         size_t vcap = rnd_below(4) ? sizeof vals / sizeof vals[0]
                                    : 1 + rnd_below(4);
         const uint8_t *pend = (size_t)(end - p) < piece ? end : p + piece;
         const uint8_t *before = p;
         long r = pl_dec_run(d, &p, pend, vals, vcap);
         long i;
         if (r < 0 || d->error) {
            CHECK(0, "%s/%s chunk %zu: decode error %s", name, pl_codec_name(kind),
                  c, d->error ? d->error : "?");
            bad = 1;
            break;
         }
         for (i = 0; i < r; i++)
            v32_push(&got, vals[i]);
         if (p == end && (size_t)r < vcap)
            break;
         if (r == 0 && p == before && pend != p) {
            CHECK(0, "chunk %zu: no progress", c);
            bad = 1;
            break;
         }
      }
      if (bad)
         break;
      cov.end_mid_event += !pl_dec_at_boundary(d);
      cov.end_mid_escape += d->esc_words != 0;
      cov.end_mid_match_len += d->lz_state != 0 && d->esc_words == 0
                               && !d->have_low;
      if (pl_dec_end_chunk(d) != 0) {
         CHECK(0, "%s/%s chunk %zu: end_chunk: %s", name, pl_codec_name(kind), c,
               d->error ? d->error : "?");
         bad = 1;
         break;
      }
      if (ch->events >= 0
          && (got.n != (size_t)ch->events || !pl_dec_at_boundary(d))) {
         CHECK(0, "%s/%s: after sync chunk %zu: %zu values, expected %lld, "
               "boundary %d", name, pl_codec_name(kind), c, got.n,
               (long long)ch->events, pl_dec_at_boundary(d));
         bad = 1;
      }
   }
   CHECK(!bad, "%s/%s chunked: see above", name, pl_codec_name(kind));
   if (!bad) {
      CHECK(got.n == n, "%s/%s chunked: %zu values, expected %zu", name,
            pl_codec_name(kind), got.n, n);
      for (k = 0; k < n && k < got.n && got.v[k] == ev[k]; k++)
         ;
      CHECK(k == n, "%s/%s chunked: first difference at %zu", name,
            pl_codec_name(kind), k);
   }
   free(buf);
   free(e);
   free(d);
   free(sync_after);
   free(cv.v);
   v8_free(&sink);
   v8_free(&ref);
   v32_free(&got);
}

/* Round trip with both kinds and several feeding patterns. */
static rt_result roundtrip(const char *name, const uint32_t *ev, size_t n)
{
   enc_opts o = {0};
   rt_result r = {0, 0}, res;
   int kind;

   for (kind = PL_CODEC_LZZE; kind <= PL_CODEC_RAW; kind++) {
      /* small buffer, random consumes, prefix decodes, tiny pieces */
      o.bufcap = 2 * PL_ENC_MAX_EVENT_BYTES + rnd_below(64);
      o.random_consume = 1;
      o.prefix_checks = n < 200000 ? 3 : 1;
      roundtrip_opts(name, ev, n, kind, &o, n < 3000000);
      /* large buffer, drained only when full (checks the bytes against
         the reference encoder), random pieces and capacities */
      o.bufcap = kind == PL_CODEC_LZZE ? 1 << 16 : 4096;
      o.random_consume = 0;
      o.prefix_checks = 0;
      res = roundtrip_opts(name, ev, n, kind, &o, 0);
      if (kind == PL_CODEC_LZZE)
         r = res;
      /* synced at random points, decoded chunk by chunk */
      {
         static const uint64_t every[] = { 2, 50, 5000, 0 };
         roundtrip_chunked(name, ev, n, kind, 0, every[rnd_below(4)]);
      }
   }
   return r;                          /* the LZZE result */
}

/* ---- individual tests -------------------------------------------------- */

static void test_empty(void)
{
   rt_result r = roundtrip("empty", 0, 0);
   CHECK(r.encoded == 0, "empty stream encodes to %zu bytes", r.encoded);
}

static void test_random(void)
{
   /* 0: any 32-bit value */
   static const uint32_t alpha[] = { 2, 3, 17, 300, 0xFFFE, 70000, 0 };
   size_t a;
   for (a = 0; a < sizeof alpha / sizeof alpha[0]; a++) {
      size_t n = 200000, k;
      char name[64];
      gen.n = 0;
      for (k = 0; k < n; k++) {
         if (alpha[a] == 0)
            v32_push(&gen, (uint32_t)rnd());         /* any 32-bit value */
         else
            v32_push(&gen, (uint32_t)rnd_below(alpha[a] + 1));
      }
      snprintf(name, sizeof name, "random alphabet %u", alpha[a]);
      roundtrip(name, gen.v, gen.n);
   }
}

static void test_large_ids(void)
{
   static const uint32_t ids[] = { 1, 0xFFFE, 0xFFFF, 0x10000, 0x10001,
                                   0xFFFFFFFF, 0xFFFEFFFF, 0x7FFFFFFF, 0x8000,
                                   0x7FFF, 0xFF00, 0x00FF, 0x0100, 0xFFFF0000 };
   size_t nid = sizeof ids / sizeof ids[0], k;
   gen.n = 0;
   for (k = 0; k < nid; k++) { ev_enter(ids[k]); ev_exit(); }
   roundtrip("large ids, once", gen.v, gen.n);
   /* the same IDs repeated, so escapes and their parts land inside matches
      and at every offset of ZE groups */
   gen.n = 0;
   for (k = 0; k < 100000; k++) {
      uint32_t id = ids[rnd_below(nid)];
      if (rnd_below(3)) ev_enter(id); else ev_exit();
      if (k % 1000 < 500) { ev_enter(0xFFFF); ev_enter(0x10000); ev_exit(); ev_exit(); }
   }
   roundtrip("large ids, mixed", gen.v, gen.n);
   /* only escapes */
   gen.n = 0;
   for (k = 0; k < 50000; k++) ev_enter(0xFFFF);
   roundtrip("all 0xFFFF", gen.v, gen.n);
}

static void test_realistic(void)
{
   rt_result r;
   size_t k;

   gen.n = 0;
   fib_ids[0] = 7; fib_ids[1] = 7;
   ev_enter(1);
   fib(25);
   ev_exit();
   r = roundtrip("fib(25)", gen.v, gen.n);
   printf("  fib(25): %zu events -> %zu bytes, ratio %.0f (vs 2 bytes/word)\n",
          gen.n, r.encoded, r.ratio);

   gen.n = 0;
   fib_ids[0] = 0x12345; fib_ids[1] = 9;
   fib(22);
   r = roundtrip("fib(22) escaped ids", gen.v, gen.n);
   printf("  fib(22) alternating escaped id: %zu events -> %zu bytes, ratio %.0f\n",
          gen.n, r.encoded, r.ratio);

   gen.n = 0;
   app(100000, 10);
   r = roundtrip("app loop", gen.v, gen.n);
   printf("  app loop: %zu events -> %zu bytes, ratio %.0f\n", gen.n, r.encoded,
          r.ratio);

   /* very long run: one pattern repeated for > 2^21 words, a chain of
      matches of PL_MAX_MATCH words (each closed by a 2-word length) */
   gen.n = 0;
   for (k = 0; k < (1u << 21) + 12345; k++) { ev_enter(5); ev_exit(); }
   r = roundtrip("long run", gen.v, gen.n);
   printf("  long run: %zu events -> %zu bytes\n", gen.n, r.encoded);
   CHECK(r.encoded < 64 + 6 * (gen.n / PL_MAX_MATCH),
         "long run encodes to %zu bytes", r.encoded);
}

static void test_adversarial(void)
{
   size_t k;
   static const uint32_t periods[] = { 1, 2, 3, 4, 5, 7, 65530, 65531, 65532,
                                       65533, 65534, 65535, 65536, 65537,
                                       131072 };
   size_t p;

   /* alternating / constant */
   gen.n = 0;
   for (k = 0; k < 100000; k++) v32_push(&gen, k & 1);
   roundtrip("alternating 1,0", gen.v, gen.n);
   gen.n = 0;
   for (k = 0; k < 100000; k++) v32_push(&gen, 0);
   roundtrip("all exits", gen.v, gen.n);
   gen.n = 0;
   for (k = 0; k < 100000; k++) v32_push(&gen, 0x8000 + (k & 1));
   roundtrip("alternating 0x8000,0x8001", gen.v, gen.n);

   /* periodic random patterns around the window size */
   for (p = 0; p < sizeof periods / sizeof periods[0]; p++) {
      uint32_t per = periods[p];
      vec32 base = {0};
      char name[64];
      for (k = 0; k < per; k++)
         v32_push(&base, 1 + (uint32_t)rnd_below(60000));
      gen.n = 0;
      for (k = 0; k < 3 * (size_t)per + 1000; k++)
         v32_push(&gen, base.v[k % per]);
      snprintf(name, sizeof name, "period %u", per);
      rt_result r = roundtrip(name, gen.v, gen.n);
      if (per <= 7)
         CHECK(r.encoded < 40, "period %u not matched: %zu bytes", per,
               r.encoded);
      v32_free(&base);
   }

   /* hash collisions: many distinct contexts in one slot, interleaved, so
      the table keeps pointing at a context that does not match */
   {
      uint32_t tri[64][3];
      int nt = 0;
      uint32_t slot = hash_like_format(1, 2, 3);
      while (nt < 64) {
         uint32_t a = 1 + (uint32_t)rnd_below(200), b = 1 + (uint32_t)rnd_below(200),
                  c = 1 + (uint32_t)rnd_below(2000);
         if (hash_like_format(a, b, c) == slot) {
            tri[nt][0] = a; tri[nt][1] = b; tri[nt][2] = c;
            nt++;
         }
      }
      gen.n = 0;
      for (k = 0; k < 300000; k++) {
         int t = (int)rnd_below(rnd_below(2) ? 4 : 64);
         v32_push(&gen, tri[t][0]);
         v32_push(&gen, tri[t][1]);
         v32_push(&gen, tri[t][2]);
         v32_push(&gen, (uint32_t)rnd_below(3));
      }
      roundtrip("hash collisions", gen.v, gen.n);
   }

   /* mutations: a base pattern copied with random edits, so matches end at
      every kind of place (mid-escape, right after a zero-length, ...) */
   {
      vec32 base = {0};
      for (k = 0; k < 5000; k++) {
         uint32_t x = (uint32_t)rnd_below(10);
         v32_push(&base, x < 4 ? 0 : x < 8 ? x : x == 8 ? 0xFFFF : 0x10000 + x);
      }
      gen.n = 0;
      for (k = 0; k < 600000; k++) {
         uint64_t r = rnd_below(1000);
         if (r < 3)
            v32_push(&gen, (uint32_t)rnd());
         else if (r < 6)
            v32_push(&gen, 0);
         else
            v32_push(&gen, base.v[k % base.n]);
      }
      roundtrip("mutated repeats", gen.v, gen.n);
      v32_free(&base);
   }
}

/* The match distance limit, PL_LZ_WINDOW - 4, observed in the encoder:
   a period of markers A B C D followed by zeros.  In the second period the
   context (A,B,C) at D points exactly one period back (the first lookup
   ever happens at position 3, D of the first period); D starts a match
   iff the period is at most PL_LZ_WINDOW - 4. */
static void test_distance_limit(void)
{
   static const uint32_t periods[] = { 100, PL_LZ_WINDOW - 5, PL_LZ_WINDOW - 4,
                                       PL_LZ_WINDOW - 3, PL_LZ_WINDOW - 1,
                                       PL_LZ_WINDOW, PL_LZ_WINDOW + 1 };
   static const uint32_t mark[4] = { 0x4141, 0x4242, 0x4343, 0x4444 };
   size_t p, k;
   pl_encoder *e = malloc(sizeof *e);
   static uint8_t buf[4096];
   for (p = 0; p < sizeof periods / sizeof periods[0]; p++) {
      uint32_t per = periods[p];
      int started = -1;
      pl_enc_init(e, PL_CODEC_LZZE, buf, sizeof buf);
      gen.n = 0;
      for (k = 0; k < 2 * (size_t)per + 10; k++)
         v32_push(&gen, k % per < 4 ? mark[k % per] : 0);
      for (k = 0; k < gen.n; k++) {
         pl_enc_consume(e, pl_enc_ready(e));
         put_event(e, gen.v[k]);
         if (k == (size_t)per + 3)             /* D of the second period */
            started = e->match_len == 1;
      }
      CHECK(started == (per <= PL_LZ_WINDOW - 4),
            "period %u: match at distance %u %s", per, per,
            started ? "taken" : "not taken");
      roundtrip("distance limit", gen.v, gen.n);
   }
   free(e);
}

/* LZ position wrap: start the LZ position near 2^32 in both encoder and
   decoder (the position is a public field; this changes no stream bytes'
   meaning as long as both sides agree).  Table entries of 0 (position 0
   after the wrap) are "empty", exactly as in a stream longer than 2^32. */
static void test_wrap(void)
{
   static const uint32_t starts[] = { 0xFFFFFFFFu - 5000, 0xFFFFFFFFu - 2,
                                      0xFFFFFFFFu, 0xFFFF0000u, 0x7FFFFFF0u };
   size_t s, k;
   for (s = 0; s < sizeof starts / sizeof starts[0]; s++) {
      enc_opts o = {0};
      int kind;
      gen.n = 0;
      app(3000, 100);
      for (k = 0; k < 30000; k++)                        /* random tail */
         v32_push(&gen, (uint32_t)rnd_below(8));
      app(2000, 100);
      o.start_pos = starts[s];
      for (kind = PL_CODEC_LZZE; kind <= PL_CODEC_RAW; kind++) {
         o.bufcap = 4096;
         roundtrip_opts("wrap", gen.v, gen.n, kind, &o, 0);
         o.bufcap = 2 * PL_ENC_MAX_EVENT_BYTES + 8;   /* the smallest allowed */
         o.random_consume = 1;
         o.prefix_checks = 2;
         roundtrip_opts("wrap", gen.v, gen.n, kind, &o, 1);
         roundtrip_chunked("wrap", gen.v, gen.n, kind, starts[s], 30);
      }
   }
}

/* ZE-encode a list of raw LZ words (for hand-made streams). */
static void ze_words(const uint16_t *w, size_t n, vec8 *out, uint64_t *raw)
{
   size_t k;
   uint8_t grp[9];
   size_t glen = 0;
   unsigned fill = 0;
   for (k = 0; k < 2 * n; k++) {
      uint8_t b = (uint8_t)(k & 1 ? w[k / 2] >> 8 : w[k / 2]);
      if (fill == 0) { glen = 1; grp[0] = 0; }
      if (b) { grp[0] |= (uint8_t)(1u << fill); grp[glen++] = b; }
      if (++fill == 8) { v8_append(out, grp, glen); fill = 0; }
   }
   if (fill) v8_append(out, grp, glen);
   *raw = 2 * n;
}

static int decode_words(int kind, const uint16_t *w, size_t n, vec32 *got,
                        const char **err, uint64_t max_values)
{
   vec8 bytes = {0};
   uint64_t raw;
   int boundary, rc;
   if (kind == PL_CODEC_RAW) {
      size_t k;
      for (k = 0; k < n; k++) {
         uint8_t b[2] = { (uint8_t)w[k], (uint8_t)(w[k] >> 8) };
         v8_append(&bytes, b, 2);
      }
      raw = 2 * n;
   } else {
      ze_words(w, n, &bytes, &raw);
   }
   rc = decode_all(kind, bytes.v, bytes.n, 1, raw, 0, 0, got, &boundary, err,
                   max_values);
   v8_free(&bytes);
   return rc;
}

static void test_corrupt(void)
{
   vec32 got = {0};
   const char *err;
   int rc;

   /* escapes that encode a short ID */
   {
      static const uint16_t w[] = { 7, 0xFFFF, 0x0000, 0x0005 };
      err = 0; got.n = 0;
      rc = decode_words(PL_CODEC_RAW, w, 4, &got, &err, UINT64_MAX);
      CHECK(rc == -1 && err, "raw bad escape accepted");
      CHECK(got.n == 1 && got.v[0] == 7, "values before the error: %zu", got.n);
      err = 0; got.n = 0;
      rc = decode_words(PL_CODEC_LZZE, w, 4, &got, &err, UINT64_MAX);
      CHECK(rc == -1 && err, "lzze bad escape accepted");
      CHECK(got.n == 1 && got.v[0] == 7, "values before the error: %zu", got.n);
   }
   {
      static const uint16_t w[] = { 0xFFFF, 0x0000, 0xFFFE };
      err = 0; got.n = 0;
      rc = decode_words(PL_CODEC_RAW, w, 3, &got, &err, UINT64_MAX);
      CHECK(rc == -1 && got.n == 0, "escaped 0xFFFE accepted");
   }
   {
      static const uint16_t w[] = { 0xFFFF, 0x0000, 0xFFFF, 0xFFFF, 0x0001,
                                    0x0000 };
      err = 0; got.n = 0;
      rc = decode_words(PL_CODEC_RAW, w, 6, &got, &err, UINT64_MAX);
      CHECK(rc == 0 && got.n == 2 && got.v[0] == 0xFFFF && got.v[1] == 0x10000,
            "valid escapes rejected (%d, %zu)", rc, got.n);
   }
   /* Match lengths: 1 2 3 4 1 2 3 | the position after the second "1 2 3"
      has a valid candidate (position 3, distance 4), so a length comes. */
   {
      uint16_t w[16] = { 1, 2, 3, 4, 1, 2, 3 };
      size_t n = 7, k;
      /* six words */
      for (k = 0; k < 5; k++) w[n + k] = 0x8000;
      w[n + 5] = 1;
      err = 0; got.n = 0;
      rc = decode_words(PL_CODEC_LZZE, w, n + 6, &got, &err, UINT64_MAX);
      CHECK(rc == -1 && got.n == 7, "6-word length accepted (%d %zu)", rc, got.n);
      /* five words, too large */
      w[n + 4] = 0x10;
      err = 0; got.n = 0;
      rc = decode_words(PL_CODEC_LZZE, w, n + 5, &got, &err, UINT64_MAX);
      CHECK(rc == -1, "length >= 2^64 accepted");
      /* five words, largest: 0xF << 60 -- would copy for hours; more
         than PL_MAX_MATCH, rejected before any of it is copied */
      w[n + 4] = 0xF;
      err = 0; got.n = 0;
      rc = decode_words(PL_CODEC_LZZE, w, n + 5, &got, &err, 100000);
      CHECK(rc == -1 && got.n == 7, "huge length: rc %d n %zu", rc, got.n);
      /* the longest match, 65535 = 0xFFFF 0x0001: the copy repeats
         4 1 2 3 (from position 3, distance 4); 65536 is rejected */
      w[n] = 0xFFFF; w[n + 1] = 0x0001;
      err = 0; got.n = 0;
      rc = decode_words(PL_CODEC_LZZE, w, n + 2, &got, &err, 100000);
      CHECK(rc == 0 && got.n == 7 + 65535 && got.v[7] == 4 && got.v[8] == 1
            && got.v[65541] == 2 && got.v[65540] == 1,
            "longest match: rc %d n %zu", rc, got.n);
      w[n] = 0x8000; w[n + 1] = 0x0002;
      err = 0; got.n = 0;
      rc = decode_words(PL_CODEC_LZZE, w, n + 2, &got, &err, 100000);
      CHECK(rc == -1 && got.n == 7, "65536-word match: rc %d n %zu", rc,
            got.n);
      /* non-minimal length encodings are accepted: 0x8003 0x0000 = 3 */
      w[n] = 0x8003; w[n + 1] = 0;
      err = 0; got.n = 0;
      rc = decode_words(PL_CODEC_LZZE, w, n + 2, &got, &err, UINT64_MAX);
      CHECK(rc == 0 && got.n == 10 && got.v[7] == 4 && got.v[9] == 2,
            "non-minimal length: rc %d n %zu", rc, got.n);
      /* zero length then a literal */
      w[n] = 0; w[n + 1] = 9;
      err = 0; got.n = 0;
      rc = decode_words(PL_CODEC_LZZE, w, n + 2, &got, &err, UINT64_MAX);
      CHECK(rc == 0 && got.n == 8 && got.v[7] == 9,
            "zero length: rc %d n %zu", rc, got.n);
      /* a literal equal to the candidate is accepted too (our encoder
         would have started a match, but the meaning is unambiguous) */
      w[n] = 0; w[n + 1] = 4;
      err = 0; got.n = 0;
      rc = decode_words(PL_CODEC_LZZE, w, n + 2, &got, &err, UINT64_MAX);
      CHECK(rc == 0 && got.n == 8 && got.v[7] == 4,
            "zero length, literal = candidate: rc %d n %zu", rc, got.n);
      /* a stream ending inside a length or after a zero length: values so
         far, no error, not at a boundary */
      {
         static const struct { uint16_t last; const char *what; } cut[] = {
            { 0x8001, "truncated length" },
            { 0, "truncated after zero length" } };
         pl_decoder d;
         vec8 bytes = {0};
         uint64_t raw;
         const uint8_t *p;
         uint32_t v[16];
         long r;
         for (k = 0; k < 2; k++) {
            bytes.n = 0;
            w[n] = cut[k].last;
            ze_words(w, n + 1, &bytes, &raw);
            pl_dec_init(&d, PL_CODEC_LZZE);
            p = bytes.v;
            r = pl_dec_run(&d, &p, bytes.v + bytes.n, v, 16);
            CHECK(r == 7 && !d.error && !pl_dec_at_boundary(&d),
                  "%s: r %ld", cut[k].what, r);
         }
         v8_free(&bytes);
      }
   }
   /* trailing data after the raw limit */
   {
      uint8_t b[] = { 0x01, 0x05, 0x00 };   /* 1 group: word 5, then junk */
      pl_decoder d;
      const uint8_t *p = b;
      uint32_t v[8];
      long r;
      pl_dec_init(&d, PL_CODEC_LZZE);
      pl_dec_set_raw_limit(&d, 2);
      r = pl_dec_run(&d, &p, b + 3, v, 8);
      CHECK(r == 1 && v[0] == 5 && d.error, "trailing byte: r %ld", r);
      r = pl_dec_run(&d, &p, b + 3, v, 8);
      CHECK(r == PL_DEC_CORRUPT, "error not sticky");
      /* bitmap bits set past the raw limit */
      b[0] = 0x05;  b[2] = 0x07;
      pl_dec_init(&d, PL_CODEC_LZZE);
      pl_dec_set_raw_limit(&d, 2);
      p = b;
      r = pl_dec_run(&d, &p, b + 2, v, 8);
      CHECK(r == 1 && d.error, "set bit past the limit accepted: r %ld", r);
   }
   /* at_boundary in the middle of things */
      /* every truncation point: values so far are right, no error */
   {
      static const uint16_t w[] = { 1, 2, 3, 4, 1, 2, 3, 0x8000, 1 };
      vec8 bytes = {0};
      uint64_t raw;
      pl_decoder d;
      const uint8_t *p;
      uint32_t v[64];
      size_t cut;
      ze_words(w, 9, &bytes, &raw);
      for (cut = 0; cut <= bytes.n; cut++) {
         long r, i;
         pl_dec_init(&d, PL_CODEC_LZZE);
         pl_dec_set_raw_limit(&d, raw);
         p = bytes.v;
         r = pl_dec_run(&d, &p, bytes.v + cut, v, 64);
         if (!(r >= 0 && r <= 64 && p == bytes.v + cut))
            CHECK(0, "cut %zu: r %ld", cut, r);
         for (i = 0; i < r; i++)
            if (v[i] != w[i % 4]) { CHECK(0, "cut %zu: v[%ld] = %u", cut, i, v[i]); break; }
         if (cut == bytes.n)
            CHECK(r == 64 && !pl_dec_at_boundary(&d), "full: r %ld", r);
      }
      /* mid copy: not at a boundary */
      pl_dec_init(&d, PL_CODEC_LZZE);
      p = bytes.v;
      CHECK(pl_dec_at_boundary(&d), "fresh decoder not at boundary");
      CHECK(pl_dec_run(&d, &p, bytes.v + bytes.n, v, 20) == 20
            && !pl_dec_at_boundary(&d), "boundary mid-copy");
      v8_free(&bytes);
   }
   /* mid word and mid escape */
   {
      static const uint16_t w[] = { 0x0101, 0xFFFF, 0x0001, 0x0002 };
      vec8 bytes = {0};
      uint64_t raw;
      pl_decoder d;
      const uint8_t *p;
      uint32_t v[4];
      ze_words(w, 4, &bytes, &raw);   /* 5F 01 01 FF FF 01 02 */
      pl_dec_init(&d, PL_CODEC_LZZE);
      p = bytes.v;
      CHECK(pl_dec_run(&d, &p, bytes.v + 2, v, 4) == 0 && !pl_dec_at_boundary(&d),
            "boundary mid-word");
      CHECK(pl_dec_run(&d, &p, bytes.v + 3, v, 4) == 1 && v[0] == 0x101
            && pl_dec_at_boundary(&d), "not at boundary after a word");
      CHECK(pl_dec_run(&d, &p, bytes.v + 5, v, 4) == 0 && !pl_dec_at_boundary(&d),
            "boundary mid-escape");
      CHECK(pl_dec_run(&d, &p, bytes.v + bytes.n, v, 4) == 1 && v[0] == 0x10002
            && pl_dec_at_boundary(&d), "escape");
      v8_free(&bytes);
   }
   v32_free(&got);
}

/* Syncs where they are hardest, and what pl_dec_end_chunk must reject. */
static void test_sync(void)
{
   size_t k, rep;

   memset(&cov, 0, sizeof cov);
   /* escaped IDs inside long matches, synced every few events: syncs after
      an escaped ID whose words are in an open match */
   gen.n = 0;
   for (k = 0; k < 200000; k++) {
      ev_enter(0x12345);
      ev_enter(7);
      ev_exit();
      if (k % 97 == 0) ev_enter(0xFFFF0001u);
      ev_exit();
      if (k % 97 == 0) ev_exit();
   }
   for (rep = 0; rep < 3; rep++) {
      roundtrip_chunked("escapes in matches", gen.v, gen.n, PL_CODEC_LZZE, 0, 5);
      roundtrip_chunked("escapes in matches", gen.v, gen.n, PL_CODEC_LZZE, 0, 300);
   }
   roundtrip_chunked("escapes in matches", gen.v, gen.n, PL_CODEC_RAW, 0, 5);
   /* one match of millions of words, synced now and then: lengths of two
      words, and the match restarting after each sync */
   gen.n = 0;
   for (k = 0; k < (1u << 20); k++) { ev_enter(5); ev_exit(); }
   roundtrip_chunked("long match", gen.v, gen.n, PL_CODEC_LZZE, 0, 150000);
   roundtrip_chunked("long match", gen.v, gen.n, PL_CODEC_LZZE, 0, 0);
   /* every event synced */
   gen.n = 0;
   fib_ids[0] = 0x10000; fib_ids[1] = 3;
   fib(16);
   roundtrip_chunked("fib, sync each event", gen.v, gen.n, PL_CODEC_LZZE, 0, 1);
   roundtrip_chunked("fib, sync each event", gen.v, gen.n, PL_CODEC_RAW, 0, 1);
   /* random mixtures of short and escaped IDs */
   for (rep = 0; rep < 20; rep++) {
      gen.n = 0;
      for (k = 0; k < 20000; k++) {
         uint64_t r = rnd_below(10);
         v32_push(&gen, r < 4 ? 0 : r < 8 ? (uint32_t)r : 0xFFFF + (uint32_t)rnd_below(3));
      }
      roundtrip_chunked("mixture", gen.v, gen.n, PL_CODEC_LZZE, 0, 1 + rnd_below(20));
   }
   printf("  %llu syncs: %llu in a match (%llu of > 1000 words), %llu after an "
          "escaped ID (%llu of them in a match), %llu with nothing new\n"
          "  %llu chunks: %llu ending inside an event (%llu inside an escaped "
          "ID, %llu inside a match length or before its literal)\n",
          (unsigned long long)cov.syncs, (unsigned long long)cov.sync_in_match,
          (unsigned long long)cov.sync_in_long_match,
          (unsigned long long)cov.sync_after_escape,
          (unsigned long long)cov.sync_after_escape_in_match,
          (unsigned long long)cov.empty_syncs,
          (unsigned long long)cov.chunks, (unsigned long long)cov.end_mid_event,
          (unsigned long long)cov.end_mid_escape,
          (unsigned long long)cov.end_mid_match_len);
   CHECK(cov.sync_in_long_match > 0 && cov.sync_after_escape_in_match > 0
         && cov.end_mid_escape > 0 && cov.end_mid_match_len > 0
         && cov.empty_syncs > 0, "the sync tests missed a case");
}

/* Decode one chunk (all of it, in one call with room for cap values,
   then further calls while output was full) and end it. */
static int decode_chunk(pl_decoder *d, const uint8_t *b, size_t n,
                        uint64_t raw_end, size_t cap, vec32 *got)
{
   const uint8_t *p = b;
   uint32_t v[64];
   long r;
   pl_dec_set_raw_limit(d, raw_end);
   do {
      size_t i;
      r = pl_dec_run(d, &p, b + n, v, cap);
      if (r < 0)
         return -1;
      for (i = 0; i < (size_t)r; i++)
         v32_push(got, v[i]);
   } while ((size_t)r == cap || p != b + n);
   return pl_dec_end_chunk(d);
}

static void test_end_chunk(void)
{
   static const uint32_t ev[] = { 1, 2, 0, 0x23456, 0, 3 };   /* 8 words */
   uint8_t buf[4 * PL_ENC_MAX_EVENT_BYTES], b[64];
   pl_encoder e;
   pl_decoder d;
   vec32 got = {0};
   size_t n, k;
   uint64_t raw;
   int kind;

   for (kind = PL_CODEC_LZZE; kind <= PL_CODEC_RAW; kind++) {
      /* a chunk of 6 events, the last group short (LZZE: 14 raw bytes =
         one full group + a short one of 6) */
      pl_enc_init(&e, kind, buf, sizeof buf);
      for (k = 0; k < sizeof ev / sizeof ev[0]; k++)
         put_event(&e, ev[k]);
      pl_enc_sync(&e);
      n = e.out_len;
      raw = pl_enc_ready_raw(&e);
      memcpy(b, e.out, n);
      CHECK(raw == 16 && (kind == PL_CODEC_RAW ? n == 16 : n < 16),
            "%s: chunk of %zu bytes, raw_end %llu", pl_codec_name(kind), n,
            (unsigned long long)raw);

      /* right */
      pl_dec_init(&d, kind);
      got.n = 0;
      CHECK(decode_chunk(&d, b, n, raw, 64, &got) == 0 && got.n == 6
            && pl_dec_at_boundary(&d), "%s: good chunk rejected: %s",
            pl_codec_name(kind), d.error ? d.error : "-");
      /* its bytes stop short of raw_end: raw_end one word or one group
         too far, or the last byte missing */
      for (k = 0; k < 3; k++) {
         uint64_t want = raw + (k == 0 ? 2 : k == 1 ? 8 : 0);
         size_t len = k == 2 ? n - 1 : n;
         pl_dec_init(&d, kind);
         got.n = 0;
         CHECK(decode_chunk(&d, b, len, want, 64, &got) == PL_DEC_CORRUPT
               && d.error && strstr(d.error, "before its raw_end"),
               "%s: short chunk (case %zu) accepted: %s", pl_codec_name(kind), k,
               d.error ? d.error : "-");
      }
      /* garbage after raw_end: an extra byte, an extra group, or raw_end
         one word early while that word has a non-zero byte (LZZE: a set
         bitmap bit past raw_end) */
      for (k = 0; k < 3; k++) {
         size_t len = n + (k == 0 ? 1 : k == 1 ? 3 : 0);
         uint64_t want = k == 2 ? raw - 2 : raw;
         b[n] = 0x01; b[n + 1] = 0x07; b[n + 2] = 0x00;
         pl_dec_init(&d, kind);
         got.n = 0;
         CHECK(decode_chunk(&d, b, len, want, 64, &got) == PL_DEC_CORRUPT
               && d.error, "%s: garbage after raw_end (case %zu) accepted",
               pl_codec_name(kind), k);
      }
      /* a set bitmap bit past raw_end whose byte is not there, when the
         call that uses up the input and reaches raw_end also fills the
         output, so that the caller may end the chunk right away */
      if (kind == PL_CODEC_LZZE) {
         const uint8_t *p = b;
         uint32_t v[8];
         pl_dec_init(&d, kind);
         pl_dec_set_raw_limit(&d, raw - 2);      /* the last word is 3 */
         CHECK(pl_dec_run(&d, &p, b + n - 1, v, 5) == 5 && !d.error
               && p == b + n - 1 && d.raw_bytes == raw - 2,
               "output-full run");
         CHECK(pl_dec_end_chunk(&d) == PL_DEC_CORRUPT && d.error,
               "end_chunk accepts a set bitmap bit past raw_end");
      }
      /* chunks continue: a second one after end_chunk decodes on */
      pl_dec_init(&d, kind);
      got.n = 0;
      CHECK(decode_chunk(&d, b, n, raw, 64, &got) == 0, "first chunk");
      pl_enc_init(&e, kind, buf, sizeof buf);
      for (k = 0; k < sizeof ev / sizeof ev[0]; k++)
         put_event(&e, ev[k]);
      pl_enc_sync(&e);
      pl_enc_consume(&e, e.out_len);
      put_event(&e, 9);
      pl_enc_sync(&e);
      CHECK(pl_enc_ready_raw(&e) == raw + 2, "raw after the second sync");
      CHECK(decode_chunk(&d, e.out, e.out_len, raw + 2, 64, &got) == 0
            && got.n == 7 && got.v[6] == 9, "second chunk: %zu values",
            got.n);
   }
   v32_free(&got);
}

/* Arbitrary bytes must never crash or hang the decoder (the fuzzer does
   this at scale; this is a quick smoke test). */
static void test_garbage(void)
{
   int round;
   for (round = 0; round < 3000; round++) {
      size_t n = rnd_below(round < 2000 ? 64 : 4096), k;
      int tiny = round < 2000 && (round & 1);
      uint8_t *b = xrealloc(0, n);
      vec32 got = {0};
      const char *err = 0;
      int boundary, rc, kind;
      uint64_t density = 1 + rnd_below(8);
      for (k = 0; k < n; k++)
         b[k] = rnd_below(density) ? 0 : (uint8_t)rnd();
      for (kind = PL_CODEC_LZZE; kind <= PL_CODEC_RAW; kind++) {
         int use_limit = (int)rnd_below(2), rboundary, rrc;
         uint64_t limit = use_limit ? rnd_below(2 * n + 8) : UINT64_MAX;
         uint64_t maxv = tiny ? 4096 : 1u << 18;
         vec32 ref = {0};
         got.n = 0;
         err = 0;
         rc = decode_all(kind, b, n, use_limit, limit, 0, tiny, &got, &boundary,
                         &err, maxv);
         if (rc == -2)
            CHECK(0, "garbage: %s", err);
         if (rc == -3)
            rc = 0;                   /* truncated: fine for garbage */
         /* same values, same verdict as the reference decoder */
         rrc = ref_decode(kind, b, n, limit, 0, maxv, &ref, &rboundary);
         if (ref.n != got.n
             || (got.n && memcmp(ref.v, got.v, got.n * sizeof *got.v) != 0)
             || (got.n < maxv && (rrc != 0) != (rc != 0))
             || (got.n < maxv && rc == 0 && rboundary != boundary)) {
            CHECK(0, "garbage round %d kind %d: pl %zu values rc %d (%s) bnd %d; "
                  "ref %zu values rc %d bnd %d", round, kind, got.n, rc,
                  err ? err : "-", boundary, ref.n, rrc, rboundary);
         }
         v32_free(&ref);
      }
      free(b);
      v32_free(&got);
   }
   n_pass++;
}

static void test_event_bound(void)
{
   /* Worst cases pushed directly: close a huge match with an escaped ID
      whose parts again open and close matches. */
   static uint8_t buf[4 * PL_ENC_MAX_EVENT_BYTES];
   pl_encoder *e = malloc(sizeof *e);
   size_t k, worst = 0;
   for (k = 0; k < 20000; k++) {
      size_t before;
      int round = (int)(k % 4);
      if (k == 0) pl_enc_init(e, PL_CODEC_LZZE, buf, sizeof buf);
      pl_enc_consume(e, pl_enc_ready(e));
      before = e->out_len;
      if (round < 2) pl_enc_enter(e, 0x10000 | (uint32_t)rnd_below(4));
      else if (rnd_below(50)) pl_enc_enter(e, (uint32_t)(1 + rnd_below(3)));
      else pl_enc_enter(e, 0xFFFF0000u + (uint32_t)rnd_below(3));
      if (e->out_len - before > worst) worst = e->out_len - before;
      if (rnd_below(1000) == 0) e->match_len = (uint64_t)-1 >> rnd_below(4);
   }
   /* forced: a 64-bit long open match closed by an escaped entry */
   e->match_len = UINT64_MAX;
   pl_enc_consume(e, pl_enc_ready(e));
   {
      size_t before = e->out_len;
      pl_enc_enter(e, 0xFEDCBA98u);
      if (e->out_len - before > worst) worst = e->out_len - before;
   }
   if (worst > max_event_growth) max_event_growth = worst;
   CHECK(worst <= 25, "worst event growth %zu > 25 (the documented bound)", worst);
   printf("  max bytes added by one event: %zu in stress, %zu overall "
          "(bound %d)\n", worst, max_event_growth, PL_ENC_MAX_EVENT_BYTES);
   free(e);
}

static void test_long_match(void)
{
   /* > 2^31 words of one pattern: matches of PL_MAX_MATCH words, each
      closed by a 2-word length (3 data bytes and half a bitmap byte) */
   static uint8_t buf[1 << 12];
   pl_encoder *e = malloc(sizeof *e);
   pl_decoder *d = malloc(sizeof *d);
   vec8 sink = {0};
   uint64_t n = (1ull << 30) + 777, k, bad = 0;
   uint32_t vals[1 << 14];
   const uint8_t *p;
   double t0 = now();
   pl_enc_init(e, PL_CODEC_LZZE, buf, sizeof buf);
   for (k = 0; k < n; k++) {
      if (e->out_cap - e->out_len < PL_ENC_MAX_EVENT_BYTES) {
         v8_append(&sink, e->out, pl_enc_ready(e));
         pl_enc_consume(e, pl_enc_ready(e));
      }
      pl_enc_enter(e, 3);
      pl_enc_exit(e);
   }
   pl_enc_sync(e);
   v8_append(&sink, e->out, e->out_len);
   printf("  %llu-word match encoded to %zu bytes in %.1f s\n",
          (unsigned long long)e->words, sink.n, now() - t0);
   CHECK(sink.n < 32 + 4 * (e->words / PL_MAX_MATCH), "long match: %zu bytes",
         sink.n);
   pl_dec_init(d, PL_CODEC_LZZE);
   pl_dec_set_raw_limit(d, e->raw_bytes);
   p = sink.v;
   k = 0;
   for (;;) {
      long r = pl_dec_run(d, &p, sink.v + sink.n, vals, 1 << 14);
      long i;
      if (r <= 0) { CHECK(r == 0, "long match decode error"); break; }
      for (i = 0; i < r; i++, k++)
         bad += vals[i] != (k & 1 ? 0u : 3u);
   }
   CHECK(k == 2 * n && bad == 0, "long match: %llu values, %llu bad",
         (unsigned long long)k, (unsigned long long)bad);
   printf("  decoded in total %.1f s\n", now() - t0);
   v8_free(&sink);
   free(e);
   free(d);
}

/* The worked example of docs/codec.md. */
static void print_example(void)
{
   static const uint32_t ev[] = { 1, 2, 0, 0, 1, 2, 0, 0, 0x12345, 0 };
   uint8_t buf[256];
   pl_encoder e;
   size_t k;
   pl_enc_init(&e, PL_CODEC_LZZE, buf, sizeof buf);
   for (k = 0; k < sizeof ev / sizeof ev[0]; k++) {
      size_t before = e.out_len;
      put_event(&e, ev[k]);
      printf("event %-8s -> +%zu bytes (out_len %zu, ready %zu)\n",
             ev[k] ? "enter" : "exit", e.out_len - before, e.out_len,
             pl_enc_ready(&e));
   }
   pl_enc_sync(&e);
   printf("sync (end): %zu bytes, words %llu, raw_bytes %llu:",
          e.out_len, (unsigned long long)e.words,
          (unsigned long long)e.raw_bytes);
   for (k = 0; k < e.out_len; k++)
      printf(" %02X", buf[k]);
   printf("\n");

   /* "With syncs": a sync in the middle of a match, then the end */
   {
      static const uint32_t ev2[] = { 1, 2, 0, 0, 1, 2, 0, 0, 1, 2, 0, 0,
                                      1, 2, 0, 0, 1, 2, 0, 0 };
      size_t part;
      printf("\nwith syncs:\n");
      pl_enc_init(&e, PL_CODEC_LZZE, buf, sizeof buf);
      for (part = 0, k = 0; part < 2; part++) {
         size_t end = part == 0 ? 14 : 20, j;
         for (; k < end; k++)
            put_event(&e, ev2[k]);
         printf("events %zu: open match of %llu words; ", k,
                (unsigned long long)e.match_len);
         pl_enc_sync(&e);
         printf("sync: chunk of %zu bytes, raw_end %llu:", pl_enc_ready(&e),
                (unsigned long long)pl_enc_ready_raw(&e));
         for (j = 0; j < pl_enc_ready(&e); j++)
            printf(" %02X", e.out[j]);
         printf("\n");
         pl_enc_consume(&e, pl_enc_ready(&e));
      }
      printf("events %llu, words %llu, raw_bytes %llu, encoded bytes %llu\n",
             (unsigned long long)e.events, (unsigned long long)e.words,
             (unsigned long long)e.raw_bytes, (unsigned long long)e.out_total);
   }
}

int main(int argc, char **argv)
{
   int i, run_long = 0;
   double t0 = now();
   for (i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--long")) run_long = 1;
      else if (!strcmp(argv[i], "--example")) { print_example(); return 0; }
      else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
         rng.s = strtoull(argv[++i], 0, 0);
      else { fprintf(stderr, "usage: %s [--long] [--example] [--seed N]\n", argv[0]); return 2; }
   }
   RUN(test_empty);
   RUN(test_corrupt);
   RUN(test_large_ids);
   RUN(test_random);
   RUN(test_realistic);
   RUN(test_adversarial);
   RUN(test_distance_limit);
   RUN(test_wrap);
   RUN(test_sync);
   RUN(test_end_chunk);
   RUN(test_garbage);
   RUN(test_event_bound);
   if (run_long) RUN(test_long_match);
   CHECK(max_event_growth <= PL_ENC_MAX_EVENT_BYTES, "max growth %zu",
         max_event_growth);
   printf("total %.1f s\n", now() - t0);
   return end_tests("lzze");
}
