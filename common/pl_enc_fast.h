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

#endif
