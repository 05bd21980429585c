# SPDX-License-Identifier: MIT
# Python workload (run by /usr/bin/python3, a program nobody here wrote):
# small classes, dicts, sorted() with a key, json and regular expressions.
# The data comes from a fixed linear congruential generator; run with
# PYTHONHASHSEED=0 so that set and dict orders, and so the trace, are the
# same every run.
#
#   python3 work.py [ITEMS]      (default 40000)
import json
import re
import sys


class Rng:
    def __init__(self, seed):
        self.s = seed

    def next(self):
        self.s = (self.s * 1103515245 + 12345) % 2147483648
        return self.s >> 8


class Item:
    __slots__ = ("key", "weight")

    def __init__(self, key, weight):
        self.key = key
        self.weight = weight

    def score(self):
        return self.weight * len(self.key)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40000
    rng = Rng(1)
    counts = {}
    items = []
    for _ in range(n):
        key = "k%05d" % (rng.next() % 20000)
        counts[key] = counts.get(key, 0) + 1
        items.append(Item(key, rng.next() % 100))
    items.sort(key=Item.score)
    text = json.dumps(counts, sort_keys=True)
    matches = len(re.findall(r'"k0\d+5"', text))
    top = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
    print(len(counts), matches, top, items[0].key)


main()
