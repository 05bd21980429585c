/* SPDX-License-Identifier: MIT */
/* ParLoT stream codecs: the API (pl_codec.h), which dispatches on the
   codec kind to RAW (pl_codec_raw.c), LZZE (pl_codec_lzze.c), LZRC
   (pl_codec_lzrc.c) and CCM (pl_codec_ccm.c), and the state they share:
   the output buffer, the counters, and the byte layer of RAW and LZZE (a
   bitmap byte per group of 8 bytes in LZZE; none in RAW).  The formats
   are specified in docs/codec.md; these files are the reference
   implementation of both directions.  CCM codes events, not words: it
   has a model of the call stack.

   Freestanding: only <stdint.h>/<stddef.h>, no libc, no allocation.  The
   encoder does a bounded amount of work per event; the decoder is a
   resumable state machine that can stop after any byte of input or any
   value of output. */

#include "pl_codec_ccm.h"
#include "pl_enc_fast.h"
#include "pl_codec_lzrc.h"
#include "pl_codec_lzze.h"
#include "pl_codec_raw.h"

const char pl_codec_err_trailer[] =
   "data after the end of the stream (raw limit)";
const char pl_codec_err_escape[] = "escaped function ID below 0xFFFF";
const char pl_codec_err_short[] = "chunk data ends before its raw_end";
const char pl_codec_err_chunk_trailer[] =
   "data after the end of the chunk (raw_end)";
const char pl_codec_err_idle[] =
   "stream bytes before the chunk's raw_end was set";

/* ---- Encoder ----------------------------------------------------------- */

static void enc_init(pl_encoder *e, int kind, uint8_t *buf, size_t cap,
                     int zeroed)
{
   e->kind = kind == PL_CODEC_RAW || kind == PL_CODEC_LZZE
             || kind == PL_CODEC_LZRC || pl_codec_is_ccm(kind)
             ? kind : PL_CODEC_CCM;
   if (pl_codec_is_ccm(e->kind))
      pl_ccm_enc_init(e, zeroed);
   else if (e->kind == PL_CODEC_LZRC)
      pl_lzrc_enc_init(e);
   else if (e->kind == PL_CODEC_LZZE)
      pl_lzze_init(&e->lz);
   e->match_src = 0;
   e->match_len = 0;
   e->group_at = 0;
   e->group_fill = 0;
   e->out = buf;
   e->out_len = 0;
   e->out_cap = cap;
   e->events = 0;
   e->words = 0;
   e->raw_bytes = 0;
   e->out_total = 0;
}

void pl_enc_init(pl_encoder *e, int kind, uint8_t *buf, size_t cap)
{
   enc_init(e, kind, buf, cap, 0);
}

void pl_enc_init_zeroed(pl_encoder *e, int kind, uint8_t *buf, size_t cap)
{
   enc_init(e, kind, buf, cap, 1);
}

/* Inline in pl_enc_enter and pl_enc_exit: a call per word was a good part
   of an event's cost.  LZRC, the word codec users choose most, first. */
static inline __attribute__((always_inline)) void put_word(pl_encoder *e,
                                                           uint32_t w)
{
   if (PL_LIKELY(e->kind == PL_CODEC_LZRC))
      pl_lzrc_word(e, w);
   else if (e->kind == PL_CODEC_RAW)
      pl_raw_word(e, w);
   else
      pl_lzze_word(e, w);
}

/* Worst case per event (bounds PL_ENC_MAX_EVENT_BYTES): an escaped entry
   is 3 words.  The first may close a match (length: <= 5 words) and then
   need a zero length and a literal (2 words); the second and third either
   produce 2 words each, or the second opens a match (0 words) that the
   third closes (length 1 + zero length + literal = 3 words).  So at most
   5 + 2 + 4 = 11 LZ words = 22 bytes, spread over at most 3 new ZE groups
   (3 bitmap bytes): 25 bytes.  An exit or short entry: 7 words + 2 bitmaps
   = 16 bytes.  RAW: 6 bytes.  pl_enc_sync adds at most 5 words and 2
   bitmaps = 12 bytes. */
void pl_enc_enter(pl_encoder *e, uint32_t id)
{
   if (pl_enc_fast_event(e, id))
      return;
   e->events++;
   if (PL_LIKELY(pl_codec_is_ccm(e->kind))) {
      pl_ccm_event(e, id);
      return;
   }
   if (PL_LIKELY(id <= PL_MAX_SHORT_ID)) {
      put_word(e, id);
   } else {
      put_word(e, PL_WORD_ESCAPE);
      put_word(e, id >> 16);
      put_word(e, id & 0xFFFFu);
   }
}

void pl_enc_exit(pl_encoder *e)
{
   if (pl_enc_fast_event(e, 0))
      return;
   e->events++;
   if (PL_LIKELY(pl_codec_is_ccm(e->kind))) {
      pl_ccm_event(e, 0);
      return;
   }
   put_word(e, PL_WORD_EXIT);
}

/* Whether the codec's chunks end at syncs, its bytes being final only
   there (the range-coded ones, LZRC and CCM). */
static inline int ends_at_syncs(int kind)
{
   return kind == PL_CODEC_LZRC || pl_codec_is_ccm(kind);
}

/* RAW and LZZE: the bytes before the open ZE group (none in RAW) are
   final; LZRC and CCM: those before the last sync. */
size_t pl_enc_ready(const pl_encoder *e)
{
   if (ends_at_syncs(e->kind))
      return e->sync_at;
   return e->group_fill == 0 ? e->out_len : e->group_at;
}

void pl_enc_consume(pl_encoder *e, size_t n)
{
   uint8_t *o = e->out;
   size_t k, rest;

   if (n == 0)
      return;
   rest = e->out_len - n;
   for (k = 0; k < rest; k++)
      o[k] = o[n + k];
   e->out_len = rest;
   if (ends_at_syncs(e->kind))
      e->sync_at -= n;
   else if (e->group_fill != 0)
      e->group_at -= n;
   e->out_total += n;
}

uint64_t pl_enc_ready_raw(const pl_encoder *e)
{
   if (ends_at_syncs(e->kind))
      return e->sync_raw;
   return e->raw_bytes - e->group_fill;
}

void pl_enc_sync(pl_encoder *e)
{
   if (pl_codec_is_ccm(e->kind))
      pl_ccm_sync(e);
   else if (e->kind == PL_CODEC_LZRC)
      pl_lzrc_sync(e);
   else if (e->kind == PL_CODEC_LZZE)
      pl_lzze_sync(e);
}

/* ---- Decoder ----------------------------------------------------------- */

/* docs/codec.md 7.1.  LZRC: every modelled decision multiplies the coder's
   range by at most 65071/65536 (p <= 4065, range >= 2^16 before it), a
   direct one by at most 1/2, and the chunk's n - 4 normalisation bytes
   multiply it by 256 each, from below 2^32 to at least 2^16: so its
   decisions carry at most 8 (n - 2) "bits" of -log2(shrink), and no token
   yields more than 5844 words per such bit (a match of 65,535 words: 21
   modelled decisions and 11 direct ones).  CCM: the same 8 (n - 2) bits,
   and every event is at least one decision of probability <= 4095/4096
   (0.000352 bits), at most 6 raw bytes. */
uint64_t pl_codec_max_raw(int kind, uint64_t n)
{
   if (pl_codec_is_ccm(kind)) {
      /* raw bytes per decision: 6 (an event outside a run); ccm's short
         runs can follow each other closely: 7 (docs/codec.md 11.8) */
      uint64_t per = kind == PL_CODEC_CCM1 ? 6 : 7;
      if (n < 4)
         return 0;
      if (n - 2 > UINT64_MAX / (per * PL_CCM_MAX_EVENTS_PER_BYTE))
         return UINT64_MAX;
      return per * PL_CCM_MAX_EVENTS_PER_BYTE * (n - 2);
   }
   switch (kind) {
   case PL_CODEC_RAW:
      return n;
   case PL_CODEC_LZZE:
      return n > UINT64_MAX / 8 ? UINT64_MAX : 8 * n;
   case PL_CODEC_LZRC:
      if (n < 4)
         return 0;
      if (n - 2 > UINT64_MAX / (2 * (uint64_t)PL_RC_MAX_WORDS_PER_BYTE))
         return UINT64_MAX;
      return 2 * (uint64_t)PL_RC_MAX_WORDS_PER_BYTE * (n - 2);
   default:
      return 0;
   }
}

void pl_dec_init(pl_decoder *d, int kind)
{
   d->kind = kind;
   if (pl_codec_is_ccm(kind))
      pl_ccm_dec_init(d);
   else if (kind == PL_CODEC_LZRC)
      pl_lzrc_dec_init(d);
   else if (kind == PL_CODEC_LZZE)
      pl_lzze_init(&d->lz);
   d->bitmap = 0;
   d->bits_left = 0;
   d->raw_bytes = 0;
   d->raw_limit = UINT64_MAX;
   d->have_low = 0;
   d->low = 0;
   d->lz_state = S_NEW;
   d->len_acc = 0;
   d->len_shift = 0;
   d->copy_src = 0;
   d->copy_left = 0;
   d->esc_words = 0;
   d->esc_acc = 0;
   d->words = 0;
   d->long_matches = 0;
   d->error = 0;
}

void pl_dec_set_raw_limit(pl_decoder *d, uint64_t raw_bytes)
{
   d->raw_limit = raw_bytes;
   if (pl_codec_is_ccm(d->kind))
      pl_ccm_begin_chunk(d);
   else if (d->kind == PL_CODEC_LZRC)
      pl_lzrc_begin_chunk(d);
}

static const char err_past_end[] = "bitmap bits set past the chunk's raw_end";
static const char err_kind[] = "unknown codec kind";

/* RAW and LZZE: the byte layer's end of chunk. */
int pl_dec_end_chunk(pl_decoder *d)
{
   if (pl_codec_is_ccm(d->kind))
      return pl_ccm_end_chunk(d);
   if (d->kind == PL_CODEC_LZRC)
      return pl_lzrc_end_chunk(d);
   if (d->error)
      return PL_DEC_CORRUPT;
   if (d->raw_bytes != d->raw_limit) {
      d->error = pl_codec_err_short;
      return PL_DEC_CORRUPT;
   }
   /* The bits of a short group past raw_end must be clear.  pl_dec_run
      checks them only when it is called once more after reaching the
      limit, which a caller need not do if that call filled its output. */
   if (d->bits_left != 0 && (d->bitmap & ((1u << d->bits_left) - 1u)) != 0) {
      d->error = err_past_end;
      return PL_DEC_CORRUPT;
   }
   /* The next chunk starts a new group. */
   d->bits_left = 0;
   d->bitmap = 0;
   return 0;
}

int pl_dec_at_boundary(const pl_decoder *d)
{
   if (pl_codec_is_ccm(d->kind))
      return pl_ccm_at_boundary(d);
   if (d->kind == PL_CODEC_LZRC)
      return pl_lzrc_at_boundary(d);
   if (d->error || d->have_low || d->esc_words)
      return 0;
   return d->kind == PL_CODEC_RAW || pl_lzze_between_tokens(d);
}

long pl_dec_run(pl_decoder *d, const uint8_t **in, const uint8_t *in_end,
                uint32_t *values, size_t cap)
{
   if (d->error)
      return PL_DEC_CORRUPT;
   if (pl_codec_is_ccm(d->kind))
      return pl_ccm_run(d, in, in_end, values, cap);
   switch (d->kind) {
   case PL_CODEC_LZRC:
      return pl_lzrc_run(d, in, in_end, values, cap);
   case PL_CODEC_LZZE:
      return pl_lzze_run(d, in, in_end, values, cap);
   case PL_CODEC_RAW:
      return pl_raw_run(d, in, in_end, values, cap);
   default:
      d->error = err_kind;
      return PL_DEC_CORRUPT;
   }
}
