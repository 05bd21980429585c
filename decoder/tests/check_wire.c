/* SPDX-License-Identifier: MIT */
/* check_wire TRACE...: programs and calling-context trees as bytes
   (pl_program_pack/unpack, pl_cct_pack/merge), the way parlot-decode-mpi
   moves them between ranks.  Run by test_decode_mpi.sh, MPI or not.

   - The traces are read into one program and tree, and also in 1 to 5
     runs of consecutive files, each into its own program and tree, which
     are packed, unpacked and merged in order: the merged program and tree
     pack to the same bytes as the ones read at once (so every function,
     process, thread, graph, recording note and path with its count is
     the same, and in the same order).
   - Every cut of a packed program and tree, and 3,000 copies with random
     bytes changed, are refused (1) or taken (0), never a crash, and a
     refused program can still be freed.
   Prints one line per check; exit 0 if all passed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_archive.h"
#include "pl_cct.h"
#include "pl_program.h"
#include "pl_select.h"

static int failures;

static void check(int ok, const char *what, size_t detail)
{
   printf("%s - %s (%zu)\n", ok ? "ok" : "not ok", what, detail);
   if (!ok)
      failures++;
}

typedef struct {
   pl_program p;
   pl_cct    *c;
} part;

/* Read in[from..to-1] into *pt; 0 or -1 if out of memory. */
static int read_part(part *pt, const pl_input *in, size_t from, size_t to)
{
   pl_visitor v;
   pl_select all;                      /* zeroed: every thread */
   memset(&all, 0, sizeof all);
   pl_program_init(&pt->p, 1);
   if (!(pt->c = pl_cct_new()))
      return -1;
   memset(&v, 0, sizeof v);
   pl_cct_visitor(pt->c, &v);
   for (size_t i = from; i < to; i++) {
      pl_error err;
      if (pl_program_read_input(&pt->p, &in[i], &all, &v, &err) < 0
          && strcmp(err.msg, "out of memory") == 0)
         return -1;
   }
   return 0;
}

static void free_part(part *pt)
{
   pl_program_free(&pt->p);
   pl_cct_free(pt->c);
}

/* Packed program and tree, one after the other; NULL if out of memory. */
static unsigned char *pack_both(const part *pt, size_t *len, size_t *plen)
{
   unsigned char *a, *b, *both;
   size_t alen, blen;
   if (pl_program_pack(&pt->p, &a, &alen) < 0)
      return NULL;
   if (pl_cct_pack(pt->c, &b, &blen) < 0) {
      free(a);
      return NULL;
   }
   both = malloc(alen + blen);
   if (both) {
      memcpy(both, a, alen);
      memcpy(both + alen, b, blen);
      *len = alen + blen;
      *plen = alen;
   }
   free(a);
   free(b);
   return both;
}

/* Merge the packed part (program plen bytes, then its tree) into into:
   what parlot-decode-mpi's rank does with a child's message.  0, 1 for
   bytes refused, -1 if out of memory. */
static int merge_packed(part *into, const unsigned char *b, size_t len,
                        size_t plen)
{
   pl_program q;
   uint32_t *map = NULL;
   int r;
   pl_program_init(&q, 1);
   r = pl_program_unpack(&q, b, plen);
   if (r == 0) {
      uint32_t nmap = q.nfns;
      if (pl_program_merge_map(&into->p, &q, &map) < 0)
         r = -1;
      else
         r = pl_cct_merge(into->c, b + plen, len - plen, map, nmap);
   }
   pl_program_free(&q);
   free(map);
   return r;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
   uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
   z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
   return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
   pl_inputs in;
   part whole, a;
   unsigned char *ref, *got, *bad;
   size_t rlen, rplen, glen, gplen;

   memset(&in, 0, sizeof in);
   for (int i = 1; i < argc; i++) {
      pl_error err;
      if (pl_inputs_add(&in, argv[i], &err) < 0)
         return 2;
   }
   if (in.n < 6 || read_part(&whole, in.v, 0, in.n) < 0
       || !(ref = pack_both(&whole, &rlen, &rplen))) {
      fprintf(stderr, "check_wire: want 6 traces or more (and memory)\n");
      return 2;
   }

   /* 1..5 runs of consecutive files */
   for (size_t runs = 1; runs <= 5; runs++) {
      size_t from = in.n / runs, ok = 1;
      if (read_part(&a, in.v, 0, from) < 0)
         return 2;
      for (size_t k = 1; k < runs; k++) {
         size_t to = k + 1 == runs ? in.n : from + in.n / runs;
         part b;
         unsigned char *bytes;
         size_t len, plen;
         if (read_part(&b, in.v, from, to) < 0
             || !(bytes = pack_both(&b, &len, &plen)))
            return 2;
         if (merge_packed(&a, bytes, len, plen) != 0)
            ok = 0;
         free(bytes);
         free_part(&b);
         from = to;
      }
      got = pack_both(&a, &glen, &gplen);
      check(ok && got && glen == rlen && gplen == rplen
            && memcmp(got, ref, rlen) == 0,
            "read in runs, packed, merged in order = read at once", runs);
      free(got);
      free_part(&a);
   }

   /* damaged bytes: refused or taken, never a crash */
   {
      size_t refused = 0, tried = 0, step = rlen / 4000 + 1;
      for (size_t cut = 0; cut < rlen; cut += step, tried++) {
         part t;
         pl_program_init(&t.p, 1);
         t.c = pl_cct_new();
         if (!t.c)
            return 2;
         if (merge_packed(&t, ref, cut, cut < rplen ? cut : rplen) != 0)
            refused++;
         free_part(&t);
      }
      check(refused == tried, "every cut of the packed bytes refused",
            tried);
      bad = malloc(rlen);
      if (!bad)
         return 2;
      refused = 0;
      for (int k = 0; k < 3000; k++) {
         part t;
         memcpy(bad, ref, rlen);
         for (int f = 0; f < 1 + k % 4; f++)
            bad[next() % rlen] ^= (unsigned char)(1 + next() % 255);
         pl_program_init(&t.p, 1);
         t.c = pl_cct_new();
         if (!t.c)
            return 2;
         if (merge_packed(&t, bad, rlen, rplen) != 0)
            refused++;
         free_part(&t);
      }
      free(bad);
      check(1, "3,000 damaged copies merged or refused without a crash",
            refused);
   }
   free(ref);
   free_part(&whole);
   pl_inputs_free(&in);
   return failures ? 1 : 0;
}
