#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Damage one chunk of a trace while keeping its CRC valid, so that the
reader's checks of the payload itself are what must catch it.

usage: rewrite_chunk.py IN OUT TYPE HOW

TYPE: a chunk type number (14 COSTS, 15 TIMES); the first chunk of that
type with a payload of 24 bytes or more is rewritten.  HOW:
  count-huge   its first u32 (TIMES: count) becomes 0xFFFFFFFF
  unterminated its last byte gets its top bit (a ULEB128 number that
               runs past the payload)
  garbage      every byte after the 16-byte prefix (COSTS: the coded
               bytes) but the first, which stays 0, is replaced by a
               pseudo-random one
  count-more   COSTS: its count (offset 8) + 1000
Exits 1 if there is no such chunk."""

import random
import struct
import sys
import zlib


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    d = bytearray(open(sys.argv[1], "rb").read())
    want, how = int(sys.argv[3]), sys.argv[4]
    off = 16
    while off + 16 <= len(d):
        t, _, _, n, _, _ = struct.unpack("<BBHIII", d[off:off + 16])
        if t == want and n >= 24:
            p = off + 16
            if how == "count-huge":
                d[p:p + 4] = b"\xff\xff\xff\xff"
            elif how == "unterminated":
                d[p + n - 1] |= 0x80
            elif how == "garbage":
                rnd = random.Random(7)
                for i in range(p + 16, p + n):
                    d[i] = rnd.randrange(256)
                d[p + 16] = 0          # a valid start: the decoding runs on
            elif how == "count-more":
                c = struct.unpack("<I", d[p + 8:p + 12])[0]
                d[p + 8:p + 12] = struct.pack("<I", c + 1000)
            else:
                sys.exit("unknown HOW " + how)
            struct.pack_into("<I", d, off + 12, zlib.crc32(bytes(d[p:p + n])))
            open(sys.argv[2], "wb").write(d)
            return 0
        off += 16 + n
    print("no chunk of type %d with 24 bytes or more" % want)
    return 1


if __name__ == "__main__":
    sys.exit(main())
