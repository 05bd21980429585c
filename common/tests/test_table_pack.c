/* SPDX-License-Identifier: MIT */
/* Tests of the packed tables (pl_table_pack.c, docs/table-pack.md): round
   trips through one model per file, as a writer and a reader use them, on
   tables like the tool's (dense IDs, addresses, C and C++ names, aliases)
   and on random bytes; the bound on coded bytes; damaged coded bytes;
   splitting at entry boundaries.

   Build and run (from the repository root):
     gcc -O2 -g -Wall -Wextra -Icommon common/tests/test_table_pack.c \
         common/pl_*.c -o test_table_pack && ./test_table_pack
   The last line is "table pack: N passed, M failed"; the exit status is 0
   only if nothing failed. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_format.h"
#include "pl_table_pack.h"
#include "test_check.h"
#include "test_prng.h"
#include "test_vec.h"

static prng rng = { 0x5DEECE66Dull };


static uint64_t rnd(void) { return prng_next64(&rng); }
static uint64_t rnd_below(uint64_t n) { return prng_below(&rng, n); }


/* ---- Generated tables ----------------------------------------------------- */

typedef struct {
   uint8_t *p;
   size_t len, cap;
} buf;

static void put(buf *b, const void *p, size_t n)
{
   if (b->len + n > b->cap) {
      b->cap = 2 * (b->len + n) + 4096;
      b->p = realloc(b->p, b->cap);
      if (!b->p)
         exit(2);
   }
   memcpy(b->p + b->len, p, n);
   b->len += n;
}

static void put32(buf *b, uint32_t v)
{
   uint8_t x[4];
   pl_put32(x, v);
   put(b, x, 4);
}

static void put64(buf *b, uint64_t v)
{
   uint8_t x[8];
   pl_put64(x, v);
   put(b, x, 8);
}

/* A symbol as programs have them: C words joined by '_', or a mangled C++
   name in a few namespaces. */
static void symbol(char *s, size_t cap)
{
   static const char *const words[] = {
      "mpi", "send", "recv", "init", "buffer", "get", "set", "node", "tree",
      "hash", "insert", "find", "alloc", "free", "lock", "unlock", "str",
      "copy", "parse", "expr", "gimple", "rtx", "ucs", "ucp", "worker"
   };
   size_t n = 0, k, nw = 1 + rnd_below(4);
   if (rnd_below(3) == 0) {
      n += (size_t)snprintf(s + n, cap - n, "_ZN");
      for (k = 0; k < nw; k++) {
         const char *w = words[rnd_below(sizeof words / sizeof *words)];
         n += (size_t)snprintf(s + n, cap - n, "%zu%s", strlen(w), w);
      }
      snprintf(s + n, cap - n, "E%s", rnd_below(2) ? "v" : "Pci");
      return;
   }
   for (k = 0; k < nw; k++)
      n += (size_t)snprintf(s + n, cap - n, "%s%s", k ? "_" : "",
                            words[rnd_below(sizeof words / sizeof *words)]);
}

/* The tables a process defines, in `chunks` groups as the tool flushes
   them: OBJECTS, then FUNCTIONS and their ALIASES. */
typedef struct {
   unsigned type;
   buf b;
} table;

static size_t make_tables(table *t, size_t max, unsigned chunks)
{
   static const char *const objs[] = {
      "/usr/bin/app", "/lib/x86_64-linux-gnu/libc.so.6",
      "/usr/lib/x86_64-linux-gnu/libmpich.so.12", "/opt/my lib/libsp ace.so"
   };
   uint32_t fn = 0, obj, nobjs = 0;
   uint64_t addr[5] = { 0, 0x401000, 0x7f3a12000000ull, 0x7f3a14000000ull,
                        0x7f3a16000000ull };
   size_t n = 0;
   unsigned c;

   for (c = 0; c < chunks && n + 3 <= max; c++) {
      table *o = &t[n], *f, *a;
      unsigned k, nf = 1 + (unsigned)rnd_below(400);
      memset(o, 0, sizeof *o);
      o->type = PL_CHUNK_OBJECTS;
      if (nobjs < 4) {
         nobjs++;
         put32(&o->b, nobjs);
         put(&o->b, objs[nobjs - 1], strlen(objs[nobjs - 1]) + 1);
         n++;
      }
      f = &t[n++];
      a = &t[n];
      memset(f, 0, sizeof *f);
      memset(a, 0, sizeof *a);
      f->type = PL_CHUNK_FUNCTIONS;
      a->type = PL_CHUNK_ALIASES;
      for (k = 0; k < nf; k++) {
         char name[256];
         obj = 1 + (uint32_t)rnd_below(nobjs);
         addr[obj] += 16 + 16 * rnd_below(300);
         symbol(name, sizeof name);
         put32(&f->b, ++fn);
         put32(&f->b, obj);
         put64(&f->b, addr[obj]);
         put(&f->b, name, strlen(name) + 1);
         if (rnd_below(5) == 0) {
            char alias[300];
            snprintf(alias, sizeof alias, "__%s", name);
            put32(&a->b, fn);
            put(&a->b, alias, strlen(alias) + 1);
         }
      }
      if (a->b.len)
         n++;
   }
   return n;
}

/* Encode the tables with one model and decode them with another, in order,
   as a file holds them.  Returns the coded bytes, or 0 on a failed
   check. */
static size_t round_trip(table *t, size_t n, const char *what)
{
   pl_tpack *enc = xrealloc(0, sizeof *enc), *dec = xrealloc(0, sizeof *dec);
   size_t i, total = 0, ok = 1;

   pl_tpack_init(enc);
   pl_tpack_init(dec);
   for (i = 0; i < n && ok; i++) {
      size_t len = t[i].b.len, coded;
      uint8_t *out = xrealloc(0, PL_TPACK_MAX_OUT(len)), *back = xrealloc(0, len);
      const char *err = NULL;
      int rc;
      coded = pl_tpack_encode(enc, t[i].type, t[i].b.p, len, out);
      CHECK(coded <= PL_TPACK_MAX_OUT(len), "%s: chunk %zu: %zu coded bytes "
            "for %zu", what, i, coded, len);
      rc = pl_tpack_decode(dec, t[i].type, out, coded, back, len, &err);
      CHECK(rc == 0, "%s: chunk %zu: %s", what, i, err ? err : "");
      ok = rc == 0 && (len == 0 || memcmp(back, t[i].b.p, len) == 0);
      CHECK(ok, "%s: chunk %zu of %zu bytes decodes differently", what, i, len);
      total += coded;
      free(out);
      free(back);
   }
   free(enc);
   free(dec);
   return ok ? total : 0;
}

static void free_tables(table *t, size_t n)
{
   size_t i;
   for (i = 0; i < n; i++)
      free(t[i].b.p);
}

/* ---- Tests ---------------------------------------------------------------- */

static void test_tables(void)
{
   table t[300];
   size_t n = make_tables(t, 300, 60), raw = 0, coded, i;
   for (i = 0; i < n; i++)
      raw += t[i].b.len;
   coded = round_trip(t, n, "tables");
   /* the names come from 25 words and the IDs are dense: a model that
      learns anything codes them in well under half */
   CHECK(coded > 0 && coded * 2 < raw, "%zu table bytes coded in %zu", raw,
         coded);
   printf("tables: %zu chunks, %zu bytes, coded %zu (%.2f bits/byte)\n", n,
          raw, coded, 8.0 * (double)coded / (double)raw);
   free_tables(t, n);
}

/* Random payloads (any bytes, names of any length) and empty ones: the
   model has nothing to learn, but the round trip and the bound hold. */
static void test_random(void)
{
   table t[40];
   size_t i;
   for (i = 0; i < 40; i++) {
      size_t k, len = i == 3 ? 0 : rnd_below(i < 20 ? 64 : 20000);
      memset(&t[i], 0, sizeof t[i]);
      t[i].type = i % 3 == 0 ? PL_CHUNK_OBJECTS
                  : i % 3 == 1 ? PL_CHUNK_FUNCTIONS : PL_CHUNK_ALIASES;
      for (k = 0; k < len; k++) {
         uint8_t b = (uint8_t)rnd();
         put(&t[i].b, &b, 1);
      }
   }
   CHECK(round_trip(t, 40, "random") > 0 || n_fail, "random bytes");
   free_tables(t, 40);
}

/* Damaged coded bytes: one byte short or one too many is always found (the
   decoder uses exactly the bytes written); so are a first byte other than 0
   and fewer than 5 bytes. */
static void test_damage(void)
{
   table t[8];
   size_t n = make_tables(t, 8, 2), len = t[1].b.len, coded;
   pl_tpack *enc = xrealloc(0, sizeof *enc), *dec = xrealloc(0, sizeof *dec);
   uint8_t *out = xrealloc(0, PL_TPACK_MAX_OUT(len) + 1), *back = xrealloc(0, len);
   const char *err = NULL;

   CHECK(n >= 2 && t[1].type == PL_CHUNK_FUNCTIONS, "generated tables");
   pl_tpack_init(enc);
   coded = pl_tpack_encode(enc, t[1].type, t[1].b.p, len, out);

   pl_tpack_init(dec);
   CHECK(pl_tpack_decode(dec, t[1].type, out, coded - 1, back, len, &err) < 0
         && strstr(err, "end before"), "one byte short: %s", err ? err : "");
   out[coded] = 0x5A;
   pl_tpack_init(dec);
   err = NULL;
   CHECK(pl_tpack_decode(dec, t[1].type, out, coded + 1, back, len, &err) < 0
         && strstr(err, "left after"), "one byte more: %s", err ? err : "");
   out[0] = 1;
   pl_tpack_init(dec);
   err = NULL;
   CHECK(pl_tpack_decode(dec, t[1].type, out, coded, back, len, &err) < 0
         && strstr(err, "first coded byte is not 0"), "first byte: %s", err ? err : "");
   pl_tpack_init(dec);
   err = NULL;
   CHECK(pl_tpack_decode(dec, t[1].type, out, 4, back, 0, &err) < 0
         && strstr(err, "fewer than 5"), "4 bytes: %s", err ? err : "");
   free(enc);
   free(dec);
   free(out);
   free(back);
   free_tables(t, n);
}

/* A decompression bomb: n coded bytes of 0 make the decoder take the more
   probable bit at every step (the model then predicts it ever more
   strongly), which is the most table bytes per coded byte.  Probabilities
   stay within 16/4096 of 0 and 1, so that is at most about 177 per coded
   byte (docs/table-pack.md 4): the largest raw_len those bytes do not run
   out on, found by bisection, is within 180 (n + 4). */
static void test_bomb(void)
{
   static const size_t sizes[] = { 5, 64, 1000 };
   pl_tpack *m = xrealloc(0, sizeof *m);
   uint8_t *out = xrealloc(0, PL_TPACK_MAX_RAW);
   size_t k;

   for (k = 0; k < sizeof sizes / sizeof *sizes; k++) {
      size_t n = sizes[k], lo = 0, hi = PL_TPACK_MAX_RAW;
      uint8_t *zero = calloc(n, 1);
      const char *err = NULL;
      /* invariant: lo bytes decode without running out, hi bytes do not */
      pl_tpack_init(m);
      CHECK(pl_tpack_decode(m, PL_CHUNK_FUNCTIONS, zero, n, out, hi, &err) < 0
            && strstr(err, "end before"), "%zu zero bytes, raw_len %zu: %s",
            n, hi, err ? err : "decoded");
      while (hi - lo > 1) {
         size_t mid = lo + (hi - lo) / 2;
         err = NULL;
         pl_tpack_init(m);
         if (pl_tpack_decode(m, PL_CHUNK_FUNCTIONS, zero, n, out, mid, &err) < 0
             && strstr(err, "end before"))
            hi = mid;
         else
            lo = mid;
      }
      CHECK(lo <= 180 * (n + 4), "%zu coded bytes decode to %zu table bytes",
            n, lo);
      printf("bomb: %zu coded bytes hold at most %zu table bytes\n", n, lo);
      free(zero);
   }
   free(m);
   free(out);
}

/* pl_tpack_piece: whole entries, at most PL_TPACK_MAX_RAW bytes, but at
   least one entry. */
static void test_pieces(void)
{
   buf b = { 0, 0, 0 };
   size_t used = 0, pieces = 0, big;
   uint32_t id = 0;
   char name[600];
   int ok = 1;

   while (b.len < 3 * PL_TPACK_MAX_RAW) {
      size_t l = 1 + rnd_below(sizeof name - 1);
      memset(name, 'a' + (int)rnd_below(26), l);
      name[l] = 0;
      put32(&b, ++id);
      put32(&b, 1);
      put64(&b, 0x1000 + id);
      put(&b, name, l + 1);
   }
   while (used < b.len) {
      size_t n = pl_tpack_piece(PL_CHUNK_FUNCTIONS, b.p + used, b.len - used);
      ok &= n > 0 && n <= PL_TPACK_MAX_RAW && b.p[used + n - 1] == 0;
      /* it ends after an entry: the next piece starts with the next ID */
      if (used + n < b.len) {
         size_t i = 0;
         uint32_t last = 0;
         while (i < n) {
            last = pl_get32(b.p + used + i);
            i += 16 + strlen((const char *)b.p + used + i + 16) + 1;
         }
         ok &= i == n && pl_get32(b.p + used + n) == last + 1;
      }
      used += n;
      pieces++;
   }
   CHECK(ok && used == b.len && pieces >= 3, "%zu bytes in %zu pieces",
         b.len, pieces);

   /* one entry longer than the limit is a piece of its own */
   b.len = 0;
   put32(&b, 1);
   big = PL_TPACK_MAX_RAW + 10;
   {
      char *s = xrealloc(0, big + 1);
      memset(s, 'x', big);
      s[big] = 0;
      put(&b, s, big + 1);
      free(s);
   }
   put32(&b, 2);
   put(&b, "y", 2);
   CHECK(pl_tpack_piece(PL_CHUNK_OBJECTS, b.p, b.len) == 4 + big + 1,
         "a long entry alone");
   CHECK(pl_tpack_piece(PL_CHUNK_OBJECTS, b.p + 4 + big + 1, 6) == 6,
         "the entry after it");
   free(b.p);
}

int main(int argc, char **argv)
{
   if (argc > 2 && !strcmp(argv[1], "--seed"))
      rng.s = strtoull(argv[2], NULL, 0);
   test_tables();
   test_random();
   test_damage();
   test_bomb();
   test_pieces();
   printf("table pack: %d passed, %d failed\n", n_pass, n_fail);
   return n_fail != 0;
}
