/* SPDX-License-Identifier: MIT */
/* ParLoT stream codecs, run incrementally so that every trace event costs a
   bounded amount of work: CCM (a call-context model whose decisions are
   coded by an adaptive binary range coder; the default), LZRC (word-level
   LZ racing several candidates, coded by the same range coder), LZZE
   (word-level LZ followed by byte-level zero elimination) and RAW.  The
   stream encodings are specified in docs/codec.md.

   This file and pl_codec.c are compiled both into the Valgrind tool (which
   has no libc) and into the decoder, so they use nothing but <stdint.h> and
   <stddef.h> and never allocate: callers own every buffer. */
#ifndef PL_CODEC_H
#define PL_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "pl_cm.h"

/* Stream values: 0 is a function exit, 1..0xFFFE a function entry with that
   ID; larger IDs are written as PL_WORD_ESCAPE followed by two words (high
   16 bits, low 16 bits).  So the stream has no limit on function IDs below
   2^32. */
#define PL_WORD_EXIT    0x0000u
#define PL_WORD_ESCAPE  0xFFFFu
#define PL_MAX_SHORT_ID 0xFFFEu

/* Codec identifiers as stored in the trace (THREAD_BEGIN chunk). */
enum pl_codec_kind {
   PL_CODEC_LZZE = 1, /* LZ then ZE (--codec=lzze) */
   PL_CODEC_RAW  = 2, /* plain little-endian 16-bit words (--codec=raw) */
   PL_CODEC_LZRC = 3, /* LZ + range coder (--codec=lzrc) */
   PL_CODEC_CCM1 = 4, /* CCM as first released: runs start at 256 (read) */
   PL_CODEC_CCM2 = 5, /* CCM's second revision: runs start sooner (read) */
   PL_CODEC_CCM3 = 6, /* CCM's third: as ccm2, with tables that grow as the
                         stream needs (read) */
   PL_CODEC_CCM4 = 7, /* CCM's fourth: as ccm3, with a cheaper matcher
                         model (read) */
   PL_CODEC_CCM5 = 8, /* CCM's fifth: as ccm4, an event the long matcher
                         predicts is one decision (read) */
   PL_CODEC_CCM  = 9  /* call-context model + range coder (default): as
                         ccm5, and so is one the short matcher predicts
                         where the long one has no value */
};

/* The codec's name, as --codec and parlot-decode --info spell it. */
static inline const char *pl_codec_name(int kind)
{
   static const char *const name[] = { "?", "lzze", "raw", "lzrc", "ccm1",
                                       "ccm2", "ccm3", "ccm4", "ccm5",
                                       "ccm" };
   return kind >= PL_CODEC_LZZE && kind <= PL_CODEC_CCM ? name[kind] : "?";
}

/* The revisions of CCM share the model and the code (docs/codec.md 11):
   codecs 4 up to the newest. */
static inline int pl_codec_is_ccm(int kind)
{
   return kind >= PL_CODEC_CCM1 && kind <= PL_CODEC_CCM;
}

/* LZ parameters (part of the format: changing them changes the stream). */
#define PL_LZ_WINDOW_BITS 16
#define PL_LZ_WINDOW      (1u << PL_LZ_WINDOW_BITS)  /* words of history */
#define PL_LZ_HASH_BITS   12
#define PL_LZ_HASH_SIZE   (1u << PL_LZ_HASH_BITS)    /* context table slots */

/* LZRC parameters (part of its format). */
#define PL_RC_WINDOW_BITS 17
#define PL_RC_WINDOW      (1u << PL_RC_WINDOW_BITS)  /* words of history */
#define PL_RC_WAYS        8     /* candidate positions per context slot */
#define PL_RC_PROB_BITS   12    /* probabilities are 12-bit */
#define PL_RC_UNARY_CTX   16    /* contexts of the length's unary part */

/* Longest match the LZ codecs write (LZZE and LZRC): an encoder closes a
   match when it reaches this many words, and a decoder rejects a longer
   length (docs/codec.md 4.5, 5.6) in a trace of format 1.3 or later
   (earlier encoders wrote any length: pl_decoder.long_matches).  With it,
   a chunk of n stream bytes holds a bounded number of events, so that a
   crafted length cannot make a reader decode for hours
   (pl_codec_max_raw). */
#define PL_MAX_MATCH 65535u

/* The most raw bytes (STREAM chunk raw_end minus the previous chunk's) a
   chunk of n stream bytes can hold, by what its codec can express
   (docs/codec.md 7.1): RAW n, LZZE 8 n (a zero bitmap byte), LZRC 2 x
   PL_RC_MAX_WORDS_PER_BYTE x (n - 2) (0 below the 4 flush bytes).  A
   reader rejects a chunk that declares more. */
#define PL_RC_MAX_WORDS_PER_BYTE 46752u
uint64_t pl_codec_max_raw(int kind, uint64_t n);

/* Upper bound of the bytes one event (entry or exit) followed by one sync
   can add to the output buffer, whatever the codec: for LZZE 25 + 12 bytes
   (ZE bitmaps, pending match lengths), for LZRC 1920 + 544 (the range
   coder's output: an event is at most three words, each of which may close
   a match and code a literal, at most 160 binary decisions of at most 4
   bytes each; a sync closes a match and flushes 4 bytes, see
   pl_codec_lzrc.c), for CCM 228 + 4 (57 decisions and a flush, see
   pl_codec_ccm.c).  The caller keeps at least this much room free before
   each event; a sync may then follow without another check. */
#define PL_ENC_MAX_EVENT_BYTES 2560

/* LZZE history and context table, mirrored exactly by encoder and decoder. */
typedef struct {
   uint16_t hist[PL_LZ_WINDOW];     /* word at position p is hist[p & mask] */
   uint32_t table[PL_LZ_HASH_SIZE]; /* last position seen after a context */
   uint32_t pos;                    /* words processed so far, mod 2^32 */
} pl_lz_state;

/* LZRC model, mirrored exactly by encoder and decoder: history, candidate
   table and the adaptive probabilities (P(bit = 0), PL_RC_PROB_BITS bits). */
typedef struct {
   uint16_t hist[PL_RC_WINDOW];
   uint32_t table[PL_LZ_HASH_SIZE][PL_RC_WAYS]; /* most recent first */
   uint32_t pos;                    /* words processed so far, mod 2^32 */
   uint16_t max_word;               /* largest word other than 0xFFFF seen */
   uint8_t  last_token;             /* 0 none yet, 1 match, 2 literal */
   uint8_t  excl;                   /* excl_word cannot start this position */
   uint16_t excl_word;
   uint16_t p_pick[3][PL_RC_WAYS];  /* [last_token][rank]: "this candidate" */
   uint16_t p_unary[PL_RC_UNARY_CTX];
   uint16_t p_mant[PL_RC_UNARY_CTX][16];
   uint16_t p_new;                  /* literal == max_word + 1 */
   uint16_t p_hi[256], p_lo[256];   /* literal bytes, binary trees */
} pl_rc_model;

/* CCM parameters (part of its format, docs/codec.md section 6). */
#define PL_CCM_HIST_BITS   17   /* values of history the matchers see */
#define PL_CCM_MATCH_BITS  15   /* slots of each matcher's position table */
#define PL_CCM_SLOT_BITS   14   /* call-context slots */
#define PL_CCM_CALLEE_BITS 12   /* callee lists, one per function (hashed) */
#define PL_CCM_FRAMES      1024 /* call-stack frames kept (deeper share one) */
#define PL_CCM_WAYS        4    /* values per call-context slot */
#define PL_CCM_CALLEES     8    /* values per callee list */
#define PL_CCM_RUNMEM_BITS 12   /* run lengths kept, by call context (ccm) */
#define PL_CCM_LIGHT_BITS  12   /* matched events' contexts (codec 8+): the
                                   slots' bits less 2, growing with them */
/* ccm3 and later (codecs 6 to 9) start their tables this small and double
   each as the stream fills it, up to the sizes above (docs/codec.md 11.9), so that a
   thread costs the memory its stream needs */
#define PL_CCM_SLOT_BITS0   8
#define PL_CCM_CALLEE_BITS0 6
#define PL_CCM_RUNMEM_BITS0 6
#define PL_CCM_MATCH_BITS0  9
/* The most decisions a chunk can hold per coded byte (docs/codec.md 7.1):
   each has probability <= 4095/4096.  An event outside a run is at least
   one, of at most 6 raw bytes; 11.8 bounds the runs' raw bytes per
   decision (pl_codec_max_raw). */
#define PL_CCM_MAX_EVENTS_PER_BYTE 22712u

/* What follows a call context: the last values seen there, most recent
   first, and how well they and the matchers did there. */
typedef struct {
   uint32_t tag;                /* 0: empty */
   uint32_t v[PL_CCM_WAYS];
   uint8_t  n;                  /* values in v */
   uint8_t  hits;               /* times in a row v[0] came next */
   uint8_t  mh;                 /* the matchers' last two outcomes here */
   uint8_t  pad;
   uint32_t own;                /* counter: a matcher is right here */
} pl_ccm_slot;

typedef struct {
   uint32_t tag;                /* 0: empty */
   uint32_t n;
   uint32_t v[PL_CCM_CALLEES];  /* the function's latest callees (and 0) */
} pl_ccm_callees;

typedef struct {
   uint32_t fn, c1, c2;         /* the function, its last two callees */
} pl_ccm_frame;

typedef struct {
   uint32_t tag;                /* 0: empty */
   uint32_t len;                /* of the last run begun in the context */
} pl_ccm_runmem;

/* Codecs 8 and 9: what followed a function with its last two callees,
   and how often the long matcher (c) and, in codec 9, the short one (s)
   were right there, by the match length (3 groups) and by whether the
   matcher agreed with that value. */
typedef struct {
   uint32_t last;
   uint32_t c[3][2];
   uint32_t s[3][2];
} pl_ccm_light;

typedef struct {
   uint32_t ptr, len;           /* predicts hist[ptr] while len > 0 */
   uint64_t hash;               /* of the last values (its minimum length) */
} pl_ccm_matcher;

/* CCM model, mirrored exactly by encoder and decoder, and the event being
   coded (set by the model's prepare step: docs/codec.md 6.4). */
typedef struct {
   uint16_t hist[1u << PL_CCM_HIST_BITS];
   uint32_t mtab[2][1u << PL_CCM_MATCH_BITS];
   pl_ccm_slot slot[1u << PL_CCM_SLOT_BITS];
   pl_ccm_callees callees[1u << PL_CCM_CALLEE_BITS];
   pl_ccm_frame frame[PL_CCM_FRAMES];
   pl_ccm_matcher mt[2];        /* long, short */
   uint32_t depth, pos, max_id;
   /* a run: events that are the long matcher's values, coded by their
      number when it ends */
   unsigned in_run, run_ctx;
   uint32_t run_len;
   /* the encoder's fast path (pl_ccm_run_event) adds its events here and
      leaves the matchers, pos, run_len and the word counts as they were:
      pl_ccm_settle moves them on; fast_stop: where the short matcher
      stopped (its step, or PL_CCM_GOING) */
   uint32_t fast_n, fast_stop;
   /* counters (pl_cm.h) and mixer weights */
   uint32_t c_rl_unary[4][17], c_rl_mant[17][16];
   uint32_t c_len[2][16], c_state[2][16], c_agree[2][4];
   /* ccm4 and later: a matcher's candidate by its length's bucket, the
      call context's state and the o2 context's agreement */
   uint32_t c_match[2][16][16][4];
   uint32_t c_cand[3][PL_CCM_CALLEES][4][3];
   uint32_t c_exit[2], c_new, c_nbits[64], c_lit[4096];
   int32_t  w[2][16][5];
   int16_t  stretch[4096];
   uint32_t rate[PL_CM_RATES];
   /* the event being coded */
   pl_ccm_slot *s2, *s1, *sc;
   pl_ccm_callees *s0;
   uint32_t t2, t1, t0;         /* the tags the three contexts want */
   int      v2, v1, v0;         /* whether their entries hold them */
   unsigned mstate, hp, exit_ctx;
   unsigned src, r;             /* where the next candidate comes from */
   unsigned nseen, zero_seen, by_matcher;
   uint32_t seen[3 + 2 * PL_CCM_WAYS + PL_CCM_CALLEES];
   uint32_t cur;                /* the candidate being decided */
   unsigned how;                /* 1 long matcher, 2 short, 3 slot */
   uint32_t *cur_ctr;           /* its counter (slot candidates) */
   int      st[5], p;           /* the matcher decision's mixer inputs */
   unsigned agree_ix, bucket_ix;  /* its agreement and length contexts */
   uint64_t keys[3];            /* the next event's context keys (o2, o1,
                                   callees), when keys_ok */
   int      keys_ok;
   /* ccm (not ccm1): how long the last run begun in each call context
      lasted, and the entry of the open run's context */
   int      run_memory;
   pl_ccm_runmem runmem[1u << PL_CCM_RUNMEM_BITS], *rm;
   uint32_t rm_tag;
   uint64_t mpow[2];            /* FNV prime ^ each matcher's length */
   /* the tables' sizes now (bits of their index; the arrays above have
      room for the largest), and how many times an entry of each took a
      new key (the matchers': a new or stale position, found while the
      matcher was not matching); grows: ccm3 and ccm, whose tables start
      small */
   unsigned slot_bits, callee_bits, runmem_bits, match_bits;
   uint32_t slot_fills, callee_fills, runmem_fills, match_fills;
   int      grows;
   /* ccm4 and later (codecs 7 to 9): a matcher's candidate mixes three
      inputs (c_match), and the short matcher looks for a source only
      while the long one has none */
   int      lean;
   /* ccm5 and ccm (codecs 8 and 9): an event the long matcher predicts,
      outside a run, is one decision, with the counter light_c of entry
      light_e; ccm (light_short): so is an event the short matcher
      predicts where the long one predicts no short ID */
   int      light, light_short;
   pl_ccm_light light_tab[1u << PL_CCM_LIGHT_BITS], *light_e;
   uint32_t *light_c;
} pl_ccm_model;

typedef struct {
   int      kind;          /* enum pl_codec_kind */
   union {
      pl_lz_state lz;      /* LZZE */
      pl_rc_model rc;      /* LZRC */
      pl_ccm_model ccm;    /* CCM */
   };
   uint32_t match_src;     /* position of the next word a match compares */
   uint64_t match_len;     /* words matched so far; 0 = no match open */
   /* LZRC: candidates raced by the open match, the range coder, and the
      end of the last sync (everything before it is final). */
   uint32_t cand[PL_RC_WAYS];   /* candidate positions, by rank */
   unsigned ncand;
   unsigned alive;              /* ranks that may still match (bit mask):
                                   the lowest (the leader) and the far ones
                                   match every word so far, the others the
                                   first `checked` (see pl_lzrc_word) */
   unsigned far;                /* ranks whose words could leave the window
                                   before a batch checks them: each word */
   uint32_t checked;            /* words of the open match every rank in
                                   alive is known to match */
   uint32_t rc_low, rc_range;
   size_t   sync_at;
   uint64_t sync_raw;
   /* ZE: the bitmap byte of the open group sits at out[group_at]. */
   size_t   group_at;
   unsigned group_fill;    /* bytes of the open group seen (0..7) */
   /* Output buffer, owned by the caller. */
   uint8_t *out;
   size_t   out_len;
   size_t   out_cap;
   /* Totals, for the THREAD_END chunk and the summary. */
   uint64_t events;        /* entries + exits */
   uint64_t words;         /* 16-bit words fed to LZ */
   uint64_t raw_bytes;     /* LZZE: bytes fed to ZE; RAW, LZRC: 2 per word */
   /* (CCM, 2 per word: both leave out the latest events of an open run
      until another event or pl_enc_sync settles them) */
   uint64_t out_total;    /* bytes handed to the caller via consume */
} pl_encoder;

/* buf must hold at least 2 * PL_ENC_MAX_EVENT_BYTES bytes. */
void pl_enc_init(pl_encoder *e, int kind, uint8_t *buf, size_t cap);
/* The same for an encoder whose bytes are all zero (fresh anonymous
   memory): CCM's tables, which start as zeros, are not written, so that
   their pages cost memory only once the codec reaches them. */
void pl_enc_init_zeroed(pl_encoder *e, int kind, uint8_t *buf, size_t cap);

/* Record one event.  id >= 1.  Requires out_cap - out_len >=
   PL_ENC_MAX_EVENT_BYTES. */
void pl_enc_enter(pl_encoder *e, uint32_t id);
void pl_enc_exit(pl_encoder *e);

/* Bytes at the start of e->out that may be written out now as a chunk:
   LZZE, everything before the open ZE group; LZRC, everything up to the
   last sync (an LZRC chunk always ends at a sync). */
size_t pl_enc_ready(const pl_encoder *e);

/* The caller wrote out the first n (<= pl_enc_ready) bytes: drop them. */
void pl_enc_consume(pl_encoder *e, size_t n);

/* The raw bytes covered by the pl_enc_ready() bytes: the stream position
   a chunk of them ends at (STREAM chunk raw_end).  LZZE: ZE input bytes;
   RAW and LZRC: 2 bytes per value-layer word. */
uint64_t pl_enc_ready_raw(const pl_encoder *e);

/* Make everything so far ready: emit a pending match length and close the
   open ZE group, short (its missing bytes are not data; the reader knows
   where the group ends from the chunk's raw_end); for LZRC, code the open
   match and flush the range coder.  Encoding may go on afterwards: the
   next word is a fresh LZ position, which is exactly what a decoder does
   after a match or literal (and, for LZRC, at the start of a chunk).  Used
   at the end of a stream and whenever a reader must see everything so far
   (periodic flush, exec).  Requires the room left after an event that had
   PL_ENC_MAX_EVENT_BYTES free before it.  The caller must
   write out all pl_enc_ready() bytes before the next event, the chunk that
   holds the last of them ending at pl_enc_ready_raw(): a short group can
   only be the last one of a chunk. */
void pl_enc_sync(pl_encoder *e);

/* ---- Decoder ---------------------------------------------------------- */

enum pl_dec_status {
   PL_DEC_OK = 0,        /* input consumed or output full; call again */
   PL_DEC_CORRUPT = -1   /* invalid stream; see pl_decoder.error */
};

typedef struct {
   int      kind;
   union {
      pl_lz_state lz;      /* LZZE */
      pl_rc_model rc;      /* LZRC */
      pl_ccm_model ccm;    /* CCM */
   };
   /* LZRC and CCM: range decoder and token state (see pl_rc.h) */
   uint32_t rc_low, rc_range, rc_code;
   unsigned rc_init_left;  /* bytes of the chunk's initial code to read */
   int      rc_step;       /* where in a token the decoder is */
   unsigned rc_rank, rc_node, rc_bits;
   uint32_t cand[PL_RC_WAYS];
   unsigned ncand;
   /* ZE input state */
   unsigned bitmap;        /* remaining bits of the current group's bitmap */
   unsigned bits_left;     /* bytes of the current group still to produce */
   uint64_t raw_bytes;     /* raw bytes so far (as raw_end counts them) */
   uint64_t raw_limit;     /* stop after this many raw bytes (UINT64_MAX: none) */
   int      have_low;      /* a low byte of a word is pending */
   uint8_t  low;
   /* LZ parse state */
   int      lz_state;      /* internal: what the next word means */
   uint64_t len_acc;       /* match length being read (15 bits per word) */
   unsigned len_shift;
   uint32_t copy_src;      /* match copy in progress */
   uint64_t copy_left;
   /* value layer: escape for IDs > PL_MAX_SHORT_ID */
   int      esc_words;     /* words of an escaped ID still to read (0..2) */
   uint32_t esc_acc;
   uint64_t words;         /* LZ output words so far */
   const char *error;      /* static message when PL_DEC_CORRUPT */
   int      long_matches;  /* format 1.2 or older: lengths up to 2^64 - 1,
                              not PL_MAX_MATCH (the reader sets it) */
} pl_decoder;

void pl_dec_init(pl_decoder *d, int kind);

/* Begin a STREAM chunk: stop decoding after raw_bytes raw bytes in total
   (the chunk's raw_end), so that the missing bytes of a short final LZZE
   group are not read as data and an LZRC decoder knows how many words the
   chunk holds.  LZRC and CCM: also restarts the range decoder, which
   every chunk starts afresh; it must be called before each chunk's
   bytes. */
void pl_dec_set_raw_limit(pl_decoder *d, uint64_t raw_bytes);

/* Decode from *in (advanced past what was used, at most in_end) into
   values[0..cap): 0 = exit, otherwise the function ID entered.  Returns the
   number of values written (>= 0), or PL_DEC_CORRUPT.  Stops when the input
   is used up or the output is full; state carries over to the next call, so
   a stream may be fed in pieces of any size.  When it finds corruption after
   producing values in the same call, it returns those values (d->error is
   already set) and the next call returns PL_DEC_CORRUPT; so the values
   before the bad spot never depend on how input and output were split.
   Input left once the raw limit is reached is corrupt. */
long pl_dec_run(pl_decoder *d, const uint8_t **in, const uint8_t *in_end,
                uint32_t *values, size_t cap);

/* The end of a STREAM chunk, whose raw_end was given to
   pl_dec_set_raw_limit before its bytes: the writer ended a ZE group there
   (possibly short), so the group state is reset.  PL_DEC_CORRUPT (with
   d->error) if the chunk's bytes did not reach exactly raw_end, or if its
   last group has bitmap bits set past raw_end. */
int pl_dec_end_chunk(pl_decoder *d);

/* True when the stream so far ends on an event boundary (nothing half-read:
   no partial word, length, escape or match copy pending). */
int pl_dec_at_boundary(const pl_decoder *d);

#endif
