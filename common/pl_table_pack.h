/* SPDX-License-Identifier: MIT */
/* Packed tables (format 2.0, docs/trace-format.md 4.12): the payloads of a
   file's OBJECTS, FUNCTIONS and ALIASES chunks, coded by a context-mixing
   byte model and a binary range coder.  One model serves every packed
   chunk of a file, in file order, so names seen in an earlier chunk make
   later ones cheap; the range coder starts afresh in each chunk.  The
   model knows the layout of the entries (fixed header, then a name), so
   the dense IDs, object numbers and addresses are predicted from the
   previous entry's.  Specified in docs/table-pack.md.

   Freestanding like the codecs (pl_codec.h): no libc, no allocation; the
   caller owns the model (about 1.9 MB) and the buffers. */
#ifndef PL_TABLE_PACK_H
#define PL_TABLE_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "pl_cm.h"

#define PL_TPACK_INPUTS    7     /* predictions mixed per bit */
#define PL_TPACK_SLOT_BITS 16    /* slots per hashed context model */
#define PL_TPACK_SETS      60    /* mixer weight sets: 3 types x 20 fields */
#define PL_TPACK_HDR_MAX   16    /* longest fixed entry header (FUNCTIONS) */
#define PL_TPACK_HIST_BITS 18    /* bytes of history the match model sees */
#define PL_TPACK_MATCH_BITS 16   /* slots of its table of positions */

/* Most table bytes one packed chunk holds (its raw_len): a reader rejects
   more.  (A chunk's coded bytes also bound what it decodes to: about 180
   table bytes each, docs/table-pack.md 4.) */
#define PL_TPACK_MAX_RAW   (1u << 20)

/* Most coded bytes n table bytes can take: no bit costs more than 8 bits
   (probabilities stay within 16/4096 of 0 and 1), plus the coder's 5
   bytes of start and flush. */
#define PL_TPACK_MAX_OUT(n) (8u * (size_t)(n) + 5u)

typedef struct {
   uint32_t slots[PL_TPACK_INPUTS - 2][1u << PL_TPACK_SLOT_BITS];
   uint32_t expect_p[2][32];     /* P(the expected bit): [in name][length] */
   uint8_t  hist[1u << PL_TPACK_HIST_BITS];
   uint32_t match_at[1u << PL_TPACK_MATCH_BITS];
   uint32_t order0[2][256];                      /* header byte, name byte */
   int32_t  weights[PL_TPACK_SETS][PL_TPACK_INPUTS];
   int16_t  stretch[4096];
   uint32_t rate[PL_CM_RATES];   /* 131072 / (2n + 3): a counter's step */
   uint8_t  prev_hdr[3][PL_TPACK_HDR_MAX];       /* last entry's, per type */
   uint8_t  cur_hdr[PL_TPACK_HDR_MAX];
   uint64_t last;        /* the previous bytes, the latest in the low byte */
   uint64_t name_hash;   /* the bytes of the current name so far */
   uint32_t hist_pos;    /* bytes seen (the next one goes to hist_pos) */
   uint32_t match_ptr;   /* the byte after the latest earlier occurrence
                            of the last bytes, when match_len > 0 */
   unsigned match_len;
   unsigned type_ix;     /* 0 OBJECTS, 1 FUNCTIONS, 2 ALIASES */
   unsigned pos;         /* bytes of the current entry so far */
   /* the current byte's contexts (set by byte_start) */
   uint64_t ctx[PL_TPACK_INPUTS - 2];
   unsigned set, in_name;
   int      expect;      /* the byte the field or the match predicts, or -1 */
   unsigned expect_ctx, expect_bit;
   /* the current bit's predictions (set by predict) */
   uint32_t *slot[PL_TPACK_INPUTS];
   uint32_t *bucket[PL_TPACK_INPUTS - 2];   /* the nibble's, per context */
   int      st[PL_TPACK_INPUTS];
   int      p;
} pl_tpack;

/* A fresh model, at the start of a file. */
void pl_tpack_init(pl_tpack *m);

/* Whether chunk type `type` can be packed (OBJECTS, FUNCTIONS, ALIASES). */
int pl_tpack_type_ok(unsigned type);

/* The first bytes of the n at p, whole entries of chunk type `type`, that
   one packed chunk takes: as many entries as fit in PL_TPACK_MAX_RAW bytes,
   but at least one (a longer one is written unpacked).  n > 0; p holds
   whole entries. */
size_t pl_tpack_piece(unsigned type, const uint8_t *p, size_t n);

/* Code the n (<= PL_TPACK_MAX_RAW) bytes of a chunk payload of type
   `type` into out, which has room for PL_TPACK_MAX_OUT(n) bytes; returns
   the number of coded bytes. */
size_t pl_tpack_encode(pl_tpack *m, unsigned type, const uint8_t *in,
                       size_t n, uint8_t *out);

/* Decode exactly raw_len bytes of type `type` from the n coded bytes at
   in.  0, or -1 with *error set (a static message) when the coded bytes
   run out early or are not used up exactly. */
int pl_tpack_decode(pl_tpack *m, unsigned type, const uint8_t *in, size_t n,
                    uint8_t *out, size_t raw_len, const char **error);

#endif
