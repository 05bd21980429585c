/* SPDX-License-Identifier: MIT */
/* A whole stream through the codec API as the tool writes it and a reader
   reads it, with the checks every codec must pass (test_lzze.c,
   test_lzrc.c): encode drains the encoder as the tool does, keeping
   PL_ENC_MAX_EVENT_BYTES free, checks that no event grows the output by
   more and that ready bytes are final, decodes flushed prefixes and checks
   the totals; decode_all decodes in random pieces into random capacities.
   The CHECKs count in the program that includes this header. */
#ifndef TEST_STREAM_H
#define TEST_STREAM_H

#include <stdint.h>
#include <string.h>

#include "pl_codec.h"
#include "test_check.h"
#include "test_events.h"
#include "test_vec.h"

static size_t max_event_growth;   /* largest out_len increase of one event */

/* ---- decoding ---------------------------------------------------------- */

/* Decode in[0..n).  tiny: feed 1..7-byte pieces and accept 1..5 values per
   call; otherwise random pieces (mostly large).  Returns 0, or -1 on
   PL_DEC_CORRUPT (message in *err), -2 if the decoder stalled or left
   input unused, -3 if the input ended before the raw limit. */
static int decode_all(int kind, const uint8_t *in, size_t n, int use_limit,
                      uint64_t limit, uint32_t start_pos, int tiny,
                      vec32 *out, int *boundary, const char **err,
                      uint64_t max_values)
{
   pl_decoder *d = xrealloc(0, sizeof *d);
   const uint8_t *p = in, *end = n ? in + n : in;   /* in may be NULL */
   uint32_t vals[4096];
   int rc = 0, stopped = 0;

   pl_dec_init(d, kind);
   d->lz.pos = start_pos;
   if (use_limit)
      pl_dec_set_raw_limit(d, limit);
   for (;;) {
      size_t piece, cap;
      const uint8_t *pend, *before = p;
      long r;
      if (tiny) {
         piece = 1 + rnd_below(7);
         cap = 1 + rnd_below(5);
      } else {
         uint64_t x = rnd_below(16);
         piece = x < 2 ? rnd_below(16) : x < 4 ? rnd_below(4096) : (size_t)-1;
         cap = x == 5 ? 1 + rnd_below(8) : sizeof vals / sizeof vals[0];
      }
      if (cap > max_values - out->n)
         cap = (size_t)(max_values - out->n);
      pend = (size_t)(end - p) < piece ? end : p + piece;
      r = pl_dec_run(d, &p, pend, vals, cap);
      if (r < 0) {
         *err = d->error;
         rc = -1;
         break;
      }
      if (r > 0 && d->error) {     /* values before a deferred error */
         size_t k;
         for (k = 0; k < (size_t)r; k++) v32_push(out, vals[k]);
         continue;
      }
      if ((size_t)r > cap)
         CHECK(0, "returned %ld > cap %zu", r, cap);
      for (long k = 0; k < r; k++)
         v32_push(out, vals[k]);
      if (out->n >= max_values) {
         stopped = 1;
         break;
      }
      if (r == 0 && p == before) {
         if (p == end)
            break;               /* all input used, nothing pending */
         if (pend == p)
            continue;            /* empty piece */
         *err = "decoder made no progress";
         rc = -2;
         break;
      }
   }
   *boundary = pl_dec_at_boundary(d);
   if (rc == 0 && stopped)
      ;
   else if (rc == 0 && p != end) {
      *err = "input left over";
      rc = -2;
   }
   else if (rc == 0 && use_limit && d->raw_bytes != limit) {
      *err = "raw limit not reached";
      rc = -3;
   }
   free(d);
   return rc;
}

/* ---- encoding with a realistic drain loop ------------------------------ */

typedef struct {
   uint64_t events, words, raw_bytes, out_total;
} enc_totals;

typedef struct {
   size_t bufcap;        /* encoder buffer size */
   int random_consume;   /* consume random amounts at random times */
   uint32_t start_pos;   /* test hook: initial LZ position (wrap tests) */
   int prefix_checks;    /* decode the flushed prefix this many times */
} enc_opts;

/* Does the decoded flushed prefix match a prefix of the events so far? */
static void check_prefix(int kind, const vec8 *sink, const pl_encoder *e,
                         const uint32_t *ev, size_t nev, uint32_t start_pos)
{
   vec8 all = {0};
   vec32 got = {0};
   int boundary;
   const char *err = 0;
   int rc;

   v8_append(&all, sink->v, sink->n);
   v8_append(&all, e->out, pl_enc_ready(e));
   rc = decode_all(kind, all.v, all.n, 0, 0, start_pos, 0, &got, &boundary,
                   &err, UINT64_MAX);
   CHECK(rc == 0, "prefix decode failed: %s", err ? err : "?");
   CHECK(got.n <= nev, "prefix longer than stream: %zu > %zu", got.n, nev);
   if (rc == 0 && got.n <= nev && got.n)
      CHECK(memcmp(got.v, ev, got.n * sizeof *ev) == 0,
            "prefix mismatch (%zu values)", got.n);
   v8_free(&all);
   v32_free(&got);
}

/* Encode ev[0..n) into sink; 0 means exit. */
static void encode(int kind, const uint32_t *ev, size_t n, const enc_opts *o,
                   vec8 *sink, enc_totals *t)
{
   size_t cap = o->bufcap ? o->bufcap : 4096;
   uint8_t *buf = xrealloc(0, cap);
   pl_encoder *e = xrealloc(0, sizeof *e);
   size_t k, next_prefix = n + 1;
   int prefixes_left = o->prefix_checks;
   uint8_t snap[64];
   size_t snap_len = 0;

   if (prefixes_left)
      next_prefix = rnd_below(n + 1);
   pl_enc_init(e, kind, buf, cap);
   e->lz.pos = o->start_pos;
   for (k = 0; k < n; k++) {
      size_t before, ready;
      /* keep PL_ENC_MAX_EVENT_BYTES free, like the tool */
      if (e->out_cap - e->out_len < PL_ENC_MAX_EVENT_BYTES
          || (o->random_consume && rnd_below(8) == 0)) {
         size_t room = e->out_cap - e->out_len, c;
         size_t need = room < PL_ENC_MAX_EVENT_BYTES
                       ? PL_ENC_MAX_EVENT_BYTES - room : 0;
         ready = pl_enc_ready(e);
         c = ready;
         if (o->random_consume && ready >= need)
            /* any amount that makes enough room */
            c = need + rnd_below(ready - need + 1);
         v8_append(sink, e->out, c);
         pl_enc_consume(e, c);
         if (e->out_cap - e->out_len < PL_ENC_MAX_EVENT_BYTES) {
            /* should be impossible with cap >= 2 * MAX_EVENT_BYTES */
            CHECK(0, "no room after consume (len %zu cap %zu)", e->out_len, cap);
            c = pl_enc_ready(e);
            v8_append(sink, e->out, c);
            pl_enc_consume(e, c);
         }
      }
      /* Ready bytes are final: snapshot some, check after the event. */
      ready = pl_enc_ready(e);
      snap_len = ready < sizeof snap ? ready : sizeof snap;
      memcpy(snap, e->out + ready - snap_len, snap_len);
      before = e->out_len;
      put_event(e, ev[k]);
      if (e->out_len - before > max_event_growth)
         max_event_growth = e->out_len - before;
      if (e->out_len - before > PL_ENC_MAX_EVENT_BYTES || e->out_len > cap)
         CHECK(0, "event %zu grew the buffer by %zu bytes", k, e->out_len - before);
      if (pl_enc_ready(e) < ready
          || memcmp(snap, e->out + ready - snap_len, snap_len) != 0)
         CHECK(0, "event %zu changed ready bytes", k);
      if (k + 1 == next_prefix) {
         check_prefix(kind, sink, e, ev, k + 1, o->start_pos);
         if (--prefixes_left > 0)
            next_prefix = k + 1 + rnd_below(n - k);
      }
   }
   if (e->out_cap - e->out_len < PL_ENC_MAX_EVENT_BYTES) {
      size_t c = pl_enc_ready(e);
      v8_append(sink, e->out, c);
      pl_enc_consume(e, c);
   }
   {
      size_t before = e->out_len;
      pl_enc_sync(e);
      CHECK(e->out_len - before <= PL_ENC_MAX_EVENT_BYTES, "finish grew %zu",
            e->out_len - before);
   }
   CHECK(pl_enc_ready(e) == e->out_len, "finish left %zu unready bytes",
         e->out_len - pl_enc_ready(e));
   {
      size_t c = e->out_len;
      v8_append(sink, e->out, c);
      pl_enc_consume(e, c);
   }
   CHECK(e->out_len == 0, "buffer not empty after final consume");
   CHECK(e->out_total == sink->n, "out_total %llu != sink %zu",
         (unsigned long long)e->out_total, sink->n);
   CHECK(e->events == n, "events %llu != %zu", (unsigned long long)e->events, n);
   if (kind == PL_CODEC_RAW)
      CHECK(e->raw_bytes == sink->n, "RAW: raw_bytes != output");
   t->events = e->events;
   t->words = e->words;
   t->raw_bytes = e->raw_bytes;
   t->out_total = e->out_total;
   free(buf);
   free(e);
}

#endif
