/* SPDX-License-Identifier: MIT */
/* CCM, the default codec (docs/codec.md, section 6).  Internal interface
   between pl_codec.c (the API, which dispatches on the codec kind) and
   pl_codec_ccm.c. */
#ifndef PL_CODEC_CCM_H
#define PL_CODEC_CCM_H

#include "pl_codec_internal.h"

/* zeroed: e's bytes are all zero, its tables need not be written. */
void pl_ccm_enc_init(pl_encoder *e, int zeroed);
/* One event: 0 an exit, else the ID of the function entered. */
void pl_ccm_event(pl_encoder *e, uint32_t x);
void pl_ccm_sync(pl_encoder *e);

void pl_ccm_dec_init(pl_decoder *d);
void pl_ccm_begin_chunk(pl_decoder *d);
long pl_ccm_run(pl_decoder *d, const uint8_t **in, const uint8_t *in_end,
                uint32_t *values, size_t cap);
int  pl_ccm_end_chunk(pl_decoder *d);
int  pl_ccm_at_boundary(const pl_decoder *d);

#endif
