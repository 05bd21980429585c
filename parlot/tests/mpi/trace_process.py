#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Print the PROCESS chunk of ParLoT traces, one line per trace:
FILE<TAB>key=value<TAB>key=value...  (docs/trace-format.md, sections 2-4.1).
An independent reader: it shares no code with parlot-decode."""
import struct
import sys
import zlib

MAGIC = b"\x89PARLOT\n"


def process_keys(path):
    with open(path, "rb") as f:
        head = f.read(16)
        if len(head) < 16 or head[:8] != MAGIC:
            raise ValueError("not a ParLoT trace")
        major, = struct.unpack_from("<H", head, 8)
        if major not in (1, 2):   # 2.0 packs the tables; PROCESS is as in 1.x
            raise ValueError("major version %d" % major)
        chunk = f.read(16)
        if len(chunk) < 16:
            raise ValueError("no PROCESS chunk")
        ctype, _flags, _res, plen, thread, crc = struct.unpack("<BBHIII", chunk)
        if ctype != 1 or thread != 0:
            raise ValueError("first chunk is type %d, not PROCESS" % ctype)
        payload = f.read(plen)
        if len(payload) != plen or zlib.crc32(payload) != crc:
            raise ValueError("PROCESS chunk truncated or damaged")
    strings = payload.split(b"\0")
    if payload:
        if strings[-1] != b"":
            raise ValueError("PROCESS payload does not end with 0")
        strings = strings[:-1]
    if len(strings) % 2:
        raise ValueError("odd number of strings in PROCESS")
    keys = {}
    for k, v in zip(strings[0::2], strings[1::2]):
        keys.setdefault(k.decode(), v.decode("utf-8", "backslashreplace"))
    return keys


def main():
    status = 0
    for path in sys.argv[1:]:
        try:
            keys = process_keys(path)
        except (OSError, ValueError) as e:
            print("%s: %s" % (path, e), file=sys.stderr)
            status = 1
            continue
        fields = ["%s=%s" % (k, keys[k]) for k in
                  ("pid", "role", "mpi_rank", "mpi_size", "mpi_rank_source",
                   "exe") if k in keys]
        print("\t".join([path] + fields))
    return status


if __name__ == "__main__":
    sys.exit(main())
