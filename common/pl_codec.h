/* ParLoT stream codec: word-level LZ followed by byte-level zero elimination
   (ZE), both run incrementally so that every trace event costs a bounded
   amount of work.  The stream encoding is specified in docs/codec.md.

   This file and pl_codec.c are compiled both into the Valgrind tool (which
   has no libc) and into the decoder, so they use nothing but <stdint.h> and
   <stddef.h> and never allocate: callers own every buffer. */
#ifndef PL_CODEC_H
#define PL_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* Stream values: 0 is a function exit, 1..0xFFFE a function entry with that
   ID; larger IDs are written as PL_WORD_ESCAPE followed by two words (high
   16 bits, low 16 bits).  So the stream has no limit on function IDs below
   2^32. */
#define PL_WORD_EXIT    0x0000u
#define PL_WORD_ESCAPE  0xFFFFu
#define PL_MAX_SHORT_ID 0xFFFEu

/* Codec identifiers as stored in the trace (THREAD_BEGIN chunk). */
enum pl_codec_kind {
   PL_CODEC_LZZE = 1, /* LZ then ZE (default) */
   PL_CODEC_RAW  = 2  /* plain little-endian 16-bit words (--compress=no) */
};

/* LZ parameters (part of the format: changing them changes the stream). */
#define PL_LZ_WINDOW_BITS 16
#define PL_LZ_WINDOW      (1u << PL_LZ_WINDOW_BITS)  /* words of history */
#define PL_LZ_HASH_BITS   12
#define PL_LZ_HASH_SIZE   (1u << PL_LZ_HASH_BITS)    /* context table slots */

/* Upper bound of the bytes one event (entry or exit) can add to the output
   buffer, including ZE bitmaps and a pending match length flushed by it.
   The caller keeps at least this much room free before each event. */
#define PL_ENC_MAX_EVENT_BYTES 64

/* LZ history and context table, mirrored exactly by encoder and decoder. */
typedef struct {
   uint16_t hist[PL_LZ_WINDOW];     /* word at position p is hist[p & mask] */
   uint32_t table[PL_LZ_HASH_SIZE]; /* last position seen after a context */
   uint32_t pos;                    /* words processed so far, mod 2^32 */
} pl_lz_state;

typedef struct {
   int      kind;          /* enum pl_codec_kind */
   pl_lz_state lz;
   uint32_t match_src;     /* position of the next word a match compares */
   uint64_t match_len;     /* words matched so far; 0 = no match open */
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
   uint64_t raw_bytes;     /* bytes fed to ZE (LZ output) */
   uint64_t out_total;    /* bytes handed to the caller via consume */
} pl_encoder;

/* buf must hold at least 2 * PL_ENC_MAX_EVENT_BYTES bytes. */
void pl_enc_init(pl_encoder *e, int kind, uint8_t *buf, size_t cap);

/* Record one event.  id >= 1.  Requires out_cap - out_len >=
   PL_ENC_MAX_EVENT_BYTES. */
void pl_enc_enter(pl_encoder *e, uint32_t id);
void pl_enc_exit(pl_encoder *e);

/* Bytes at the start of e->out that are final and may be written out now
   (everything before the open ZE group). */
size_t pl_enc_ready(const pl_encoder *e);

/* The caller wrote out the first n (<= pl_enc_ready) bytes: drop them. */
void pl_enc_consume(pl_encoder *e, size_t n);

/* Raw (ZE input) bytes covered by the pl_enc_ready() bytes: the stream
   position a chunk of them ends at (STREAM chunk raw_end). */
uint64_t pl_enc_ready_raw(const pl_encoder *e);

/* Make everything so far ready: emit a pending match length and close the
   open ZE group, short (its missing bytes are not data; the reader knows
   where the group ends from the chunk's raw_end).  Encoding may go on
   afterwards: the next byte starts a new group and the next word a fresh
   LZ position, which is exactly what a decoder does after a length.  Used
   at the end of a stream and whenever a reader must see everything so far
   (periodic flush, exec).  Like an event, requires out_cap - out_len >=
   PL_ENC_MAX_EVENT_BYTES (it adds at most 12 bytes).  The caller must
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
   pl_lz_state lz;
   /* ZE input state */
   unsigned bitmap;        /* remaining bits of the current group's bitmap */
   unsigned bits_left;     /* bytes of the current group still to produce */
   uint64_t raw_bytes;     /* raw (ZE-decoded) bytes produced so far */
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
} pl_decoder;

void pl_dec_init(pl_decoder *d, int kind);

/* Stop decoding after raw_bytes raw (ZE input) bytes in total: the raw_end
   of the STREAM chunk about to be fed, so that the missing bytes of a short
   final group are not read as data. */
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
