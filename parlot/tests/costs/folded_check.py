#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""parlot-decode --folded --weight=insns against the --callgrind export of
the same trace: per function, its lines as the leaf add up to its self Ir
(the export's "fn=" cost), and all lines to the export's total.

usage: folded_check.py FOLDED EXPORT   (names shown alike in both)"""

import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_ir  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    leaf = collections.Counter()
    for line in open(sys.argv[1], encoding="utf-8", errors="surrogateescape"):
        path, n = line.rstrip("\n").rsplit(" ", 1)
        leaf[path.split(";")[-1]] += int(n)
    selfc = collections.Counter()
    for (_, fn), ir in compare_ir.parse(sys.argv[2])[0].items():
        selfc[fn] += ir
    bad = sorted(f for f in set(leaf) | set(selfc) if leaf[f] != selfc[f])
    print("%d functions, %d differ%s; folded total %d, export total %d"
          % (len(selfc), len(bad),
             " (%s)" % ", ".join("%s %d vs %d" % (f, leaf[f], selfc[f])
                                 for f in bad[:3]) if bad else "",
             sum(leaf.values()), sum(selfc.values())))
    return 1 if bad or sum(leaf.values()) != sum(selfc.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
