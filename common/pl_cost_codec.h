/* SPDX-License-Identifier: MIT */
/* Per-event costs (format 2.5, --collect-insns): with each event of a
   thread's stream, the guest instructions the thread executed since its
   previous event.  COSTS chunks carry them, coded by a model that
   predicts an event's cost from its call context: what the event is, the
   function on top of the stack, the event before it and the costs of the
   last three.  The same call from the same place usually costs one of a
   few amounts, so most events cost a fraction of a bit; where a guess
   keeps being right, the events form a run, coded by its length, and
   cost almost nothing.  The guess is the cost of the same event the last
   time the program went the same way (the last 20 events repeated), or
   else the context's last cost.  Specified in docs/codec.md 12.

   Freestanding (as pl_codec.h): the tool encodes, libparlot decodes. */
#ifndef PL_COST_CODEC_H
#define PL_COST_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "pl_rc_carry.h"

/* COSTS payload (format 2.5):
     0  8  first: events of the thread's stream before the first cost here
     8  4  count: costs here (>= 1)
    12  4  what: what they count (PL_COST_INSNS), and the revision
           of the coding << 16
    16     coded bytes (pl_rc_carry.h)
   A thread's COSTS chunks come in stream order, each starting where the
   last one ended, and the model carries from one to the next. */
#define PL_COSTS_PREFIX_SIZE 16
#define PL_COST_INSNS 1u        /* guest instructions (Callgrind's Ir) */
#define PL_COST_WHAT(w)      ((w) & 0xFFFFu)
#define PL_COST_REVISION(w)  ((w) >> 16)
#define PL_COST_REV_CONTEXTS 0u /* 2.5: the contexts only (codec.md 12) */
#define PL_COST_REV_RUNS     1u /* 2.6: and runs */
#define PL_COST_REV_SOURCES  2u /* 2.9: and guesses from the last repetition */
#define PL_COST_REV_LATEST   PL_COST_REV_SOURCES

#define PL_COST_C3_BITS 14     /* slots of each context (docs/codec.md 12) */
#define PL_COST_C2_BITS 14
#define PL_COST_C1_BITS 13
#define PL_COST_C0_BITS 12
#define PL_COST_CONTEXTS 4
#define PL_COST_WAYS    4       /* costs per slot */
#define PL_COST_FRAMES  1024    /* stack frames kept (deeper share one) */
#define PL_COST_RECIPROCALS 256 /* a slot's counts add up to less */
#define PL_COST_RUNS_BITS  12   /* run lengths by where they began: slots */
/* Revision 2's sources (docs/codec.md 12.7) */
#define PL_COST_HISTORY_BITS 17 /* the last 2^17 events' values and costs */
#define PL_COST_ENDS_BITS    16 /* where each window of values last ended */
#define PL_COST_WINDOW       20 /* values a source must repeat */
#define PL_COST_STRIDE        8 /* while matching, one end in 8 is kept */
/* The most coded bytes one event can add: a run's length (1 + 6 + 31
   bits), 16 candidates, 7 + 63 literal bits, none of
   probability below 15/4096 (8.1 bits each), rounded up. */
#define PL_COST_MAX_EVENT_BYTES 136
/* Bytes pl_rcc_enc_finish may add, beyond the events' bound. */
#define PL_COST_FINISH_BYTES 8

/* The length of the last run that began in a context (revision 1). */
typedef struct {
   uint32_t tag;            /* 0: empty */
   uint32_t len;
} pl_cost_run;

/* Where a thread's stream is, which the contexts are made of. */
typedef struct {
   uint32_t depth;
   uint32_t last;            /* the previous event's function, 0 none */
   uint32_t last_exit;       /* whether it was an exit */
   uint64_t last_cost;       /* its cost */
   uint64_t last_cost2, last_cost3;   /* those of the two events before */
} pl_cost_path;

/* A context's usual costs and how often each came (recently). */
typedef struct {
   uint32_t tag;            /* 0: empty */
   uint8_t  n;              /* costs in v */
   uint8_t  last;           /* the one that came last (revision 1) */
   uint16_t count[PL_COST_WAYS];
   uint64_t v[PL_COST_WAYS];
} pl_cost_slot;

typedef struct {
   pl_cost_slot c3[1u << PL_COST_C3_BITS];
   pl_cost_slot c2[1u << PL_COST_C2_BITS];
   pl_cost_slot c1[1u << PL_COST_C1_BITS];
   pl_cost_slot c0[1u << PL_COST_C0_BITS];
   uint32_t stack[PL_COST_FRAMES];
   pl_cost_path at;
   uint16_t p_nbits[65][128];  /* literal bit length, by C0's usual one */
   uint16_t p_mant[65][8];   /* the 3 bits below the top one */
   uint32_t apm[PL_COST_CONTEXTS][PL_COST_WAYS][64];  /* P(right), 16-bit: [order][n-1]
                                          [logit step of the counts' P] */
   int16_t  stretch[4096];
   /* ceil(2^32 / t): floor(n / t) = n × reciprocal[t] >> 32 exactly for
      the counts' n < 2^18 and the totals t < 256 */
   uint64_t reciprocal[PL_COST_RECIPROCALS];
   uint32_t revision;        /* of the coding: PL_COST_REV_* */
   /* Revision 1: runs (codec.md 12.6). */
   uint32_t streak;          /* C3's last cost right so many in a row */
   uint32_t run;             /* 0 none, 1 due to start, 2 under way */
   uint32_t run_len;         /* encoder: its events; decoder: those left */
   uint64_t run_key;         /* the context its first event came in */
   uint32_t run_ctx;         /* the last run length's bit length */
   uint16_t p_same[2];       /* P(a run is as long as the last one that
                                began in the same context), by whether
                                the last such one was */
   uint32_t last_same;
   uint16_t p_run[33][64];   /* run length's bit length, by run_ctx */
   uint16_t p_run_mant[33][8];
   pl_cost_run runs[1u << PL_COST_RUNS_BITS];
   /* Revision 2: the source, an earlier event after the same
      PL_COST_WINDOW values, whose cost is the guess (codec.md 12.7). */
   uint64_t window;          /* hash of the last values */
   uint32_t pos;             /* events so far, mod 2^32 */
   uint32_t src;             /* the source's position, while matching */
   uint32_t matching;
   uint32_t ends[1u << PL_COST_ENDS_BITS];     /* position after a window */
   uint32_t hist_value[1u << PL_COST_HISTORY_BITS];
   uint32_t hist_cost[1u << PL_COST_HISTORY_BITS];  /* at most 2^32 - 1 */
} pl_cost_model;

/* A model at the start of a stream.  zeroed: its memory is all zero
   bytes (fresh pages), so the slots, which start empty, are not written
   and cost memory only once used. */
void pl_cost_model_init(pl_cost_model *m, int zeroed, unsigned revision);

/* Code one event's cost: value as the stream has it (0 an exit, else the
   function entered).  The encoder needs PL_COST_MAX_EVENT_BYTES free
   at e->out + e->len for each event, and PL_COST_FINISH_BYTES more for
   pl_rcc_enc_finish. */
void pl_cost_encode(pl_cost_model *m, pl_rcc_enc *e, uint32_t value,
                    uint64_t cost);

/* Code the costs of at least one and at most n events: those of a run
   under way, while it lasts, then one more.  Returns how many; the same
   bytes as pl_cost_encode on each, faster. */
size_t pl_cost_encode_some(pl_cost_model *m, pl_rcc_enc *e,
                           const uint32_t *values, const uint64_t *costs,
                           size_t n);

/* Decode one event's cost.  d->short_input is set if the bytes ran out,
   or if they coded a bit length above 64 (damage). */
uint64_t pl_cost_decode(pl_cost_model *m, pl_rcc_dec *d, uint32_t value);

/* Decode the costs of at least one and at most n events, as
   pl_cost_encode_some codes them; returns how many. */
size_t pl_cost_decode_some(pl_cost_model *m, pl_rcc_dec *d,
                           const uint32_t *values, uint64_t *costs, size_t n);

/* A chunk ends: a run under way is cut there (its length coded) and goes
   on, if it does, in the next chunk.  The encoder calls it before
   pl_rcc_enc_finish; the decoder after the chunk's last cost, which
   returns -1 if the chunk ended inside a run (damage), else 0. */
void pl_cost_encode_cut(pl_cost_model *m, pl_rcc_enc *e);
int pl_cost_decode_cut(pl_cost_model *m);

#endif
