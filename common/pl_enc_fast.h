/* SPDX-License-Identifier: MIT */
/* The encoder's per-event fast path, inline for callers that encode every
   event as it happens (the tool): an event that goes on CCM's open run is
   a comparison and a few stores and writes no bytes, so the caller need
   not make room for it or call out of line. */
#ifndef PL_ENC_FAST_H
#define PL_ENC_FAST_H

#include "pl_codec_ccm.h"

/* x: 0 an exit, else the ID of the function entered.  1 if x was encoded;
   0 if not (another codec, no run, or x ends the run): the caller then
   makes room (PL_ENC_MAX_EVENT_BYTES) and calls pl_enc_enter/exit. */
static inline __attribute__((always_inline))
int pl_enc_fast_event(pl_encoder *e, uint32_t x)
{
   if (!pl_codec_is_ccm(e->kind) || !pl_ccm_run_event(e, x))
      return 0;
   e->events++;
   return 1;
}

/* pl_enc_fast_event over x[0..n) while it succeeds: how many events it
   encoded (a batch's loop, pl_ccm_run_events). */
static inline size_t pl_enc_fast_events(pl_encoder *e, const uint32_t *x,
                                        size_t n)
{
   return pl_codec_is_ccm(e->kind) ? pl_ccm_run_events(e, x, n) : 0;
}

#endif
