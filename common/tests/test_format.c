/* SPDX-License-Identifier: MIT */
/* Tests of the container helpers (pl_format.c): pl_crc32 against a bitwise
   CRC-32 (and zlib's, built with -DHAVE_ZLIB ... -lz), in one piece and in
   two; the file and chunk headers' fields and bytes.

   Build and run (from the repository root):
     gcc -O2 -g -Wall -Wextra -Icommon common/tests/test_format.c \
         common/pl_*.c -o test_format && ./test_format
   Options: --seed N   change the random seed
   The last line is "format: N passed, M failed"; the exit status is 0
   only if nothing failed. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_format.h"
#include "test_check.h"
#include "test_prng.h"
#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

static prng rng = { 0x2545F4914F6CDD1Dull };

static uint32_t crc_bitwise(const uint8_t *p, size_t n)
{
   uint32_t c = 0xFFFFFFFFu;
   while (n--) {
      int k;
      c ^= *p++;
      for (k = 0; k < 8; k++)
         c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
   }
   return ~c;
}

static void test_format(void)
{
   uint8_t buf[1000], h[PL_CHUNK_HEADER_SIZE], fh[PL_FILE_HEADER_SIZE];
   size_t k;
   CHECK(pl_crc32(0, "123456789", 9) == 0xCBF43926u, "crc check value");
   CHECK(pl_crc32(0, "", 0) == 0, "crc of nothing");
   CHECK(pl_crc32(0, "The quick brown fox jumps over the lazy dog", 43)
         == 0x414FA339u, "crc fox");
   for (k = 0; k < sizeof buf; k++) buf[k] = (uint8_t)prng_next64(&rng);
   for (k = 0; k < 300; k++) {
      size_t off = prng_below(&rng, 16);
      size_t len = prng_below(&rng, sizeof buf - off + 1);
      size_t cut = prng_below(&rng, len + 1);
      uint32_t want = crc_bitwise(buf + off, len);
      uint32_t c = pl_crc32(0, buf + off, len);
      uint32_t c2 = pl_crc32(pl_crc32(0, buf + off, cut), buf + off + cut, len - cut);
      CHECK(c == want && c2 == want, "crc off %zu len %zu", off, len);
#ifdef HAVE_ZLIB
      CHECK(c == (uint32_t)crc32(0, buf + off, (uInt)len), "zlib crc");
#endif
   }
   pl_file_header(fh, 2, 7);
   CHECK(memcmp(fh, PL_MAGIC, PL_MAGIC_LEN) == 0, "magic");
   CHECK(pl_get16(fh + 8) == 2 && pl_get16(fh + 10) == 7
         && pl_get32(fh + 12) == 0, "file header fields");
   pl_chunk_header(h, PL_CHUNK_STREAM, 7, "123456789", 9);
   CHECK(h[0] == PL_CHUNK_STREAM && h[1] == 0 && pl_get16(h + 2) == 0
         && pl_get32(h + 4) == 9 && pl_get32(h + 8) == 7
         && pl_get32(h + 12) == 0xCBF43926u, "chunk header fields");
   {
      static const uint8_t want[16] = { 5, 0, 0, 0, 9, 0, 0, 0, 7, 0, 0, 0,
                                        0x26, 0x39, 0xF4, 0xCB };
      CHECK(memcmp(h, want, 16) == 0, "chunk header bytes");
   }
}


int main(int argc, char **argv)
{
   if (argc > 2 && !strcmp(argv[1], "--seed"))
      rng.s = strtoull(argv[2], 0, 0);
   test_format();
   return check_totals("format");
}
