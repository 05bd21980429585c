#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Per-rank calls of one function, and the ranks whose sequence of calls
differs from rank 0's: a first look at an MPI run with the parlot
package.

    rank_calls.py TRACES FUNCTION [IMAGES]

TRACES: a trace, an archive or a directory of traces (one per rank);
FUNCTION: a name as parlot-decode shows it (e.g. MPI_Allreduce); IMAGES:
which code counts (default "program": the program's own functions and
its calls into libraries; "main", "all").
"""

import sys

import parlot


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__.strip().split("\n\n")[1])
    path, function = argv[1], argv[2]
    images = argv[3] if len(argv) == 4 else "program"
    try:
        run = parlot.open(path)
    except parlot.ParlotError as e:
        sys.exit("rank_calls.py: %s" % e)
    with run:
        # each process's first thread: the rank's own
        ranks = sorted((th for th in run.threads if th.number == 1),
                       key=lambda th: (th.rank is None, th.rank, th.pid))
        sequences = {}
        print("%-12s %10s  %s" % ("rank", "calls", function))
        for th in ranks:
            seq = [ev.function for ev in th.events(images=images)
                   if ev.kind == "call"]
            sequences[th.label] = seq
            print("%-12s %10d" % (th.label, seq.count(function)))
        if not ranks:
            return
        first = ranks[0].label
        differ = [label for label, seq in sequences.items()
                  if seq != sequences[first]]
        print("ranks whose calls differ from %s's: %s"
              % (first, ", ".join(differ) if differ else "none"))


if __name__ == "__main__":
    main(sys.argv)
