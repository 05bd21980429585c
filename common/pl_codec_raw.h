/* SPDX-License-Identifier: MIT */
/* RAW, the uncompressed codec (docs/codec.md): the value-layer words,
   2 bytes each, little-endian.  Internal interface between pl_codec.c and
   pl_codec_raw.c. */
#ifndef PL_CODEC_RAW_H
#define PL_CODEC_RAW_H

#include "pl_codec_internal.h"

static inline void pl_raw_word(pl_encoder *e, uint32_t w)
{
   uint8_t *o = e->out + e->out_len;
   o[0] = (uint8_t)w;
   o[1] = (uint8_t)(w >> 8);
   e->out_len += 2;
   e->raw_bytes += 2;
   e->words++;
}

long pl_raw_run(pl_decoder *d, const uint8_t **in, const uint8_t *in_end,
                uint32_t *values, size_t cap);

#endif
