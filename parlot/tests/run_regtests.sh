#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Valgrind-style regression tests of the tool (parlot/tests/*.vgtest,
# README_TESTS), run by Valgrind's own vg_regtest in the Valgrind tree, as
# one of make check's tests so that they run beside the others with
# make -j.  make check builds their client programs first (regtest-programs
# in Makefile.am).
# Environment: VALGRIND (the tree's vg-in-place), PARLOT_DECODE,
# PARLOT_ANNOTATE, top_srcdir, PERL (default perl), XMLLINT (default
# xmllint).
# Exit status: vg_regtest's: 0 if every test passed.  A failing test's
# name and its first changed lines are printed last.
set -u
: "${VALGRIND:?VALGRIND must name the Valgrind tree's vg-in-place}"
: "${PARLOT_DECODE:?PARLOT_DECODE must name parlot-decode}"
: "${PARLOT_ANNOTATE:?PARLOT_ANNOTATE must name parlot-annotate}"
: "${top_srcdir:?top_srcdir must name the source tree}"
for tool in python3 "${XMLLINT:-xmllint}"; do
   command -v "$tool" >/dev/null 2>&1 || {
      echo "not ok 1 - the regression tests need $tool (their oracles)"
      exit 1
   }
done
tree=$(dirname "$VALGRIND")
cd "$tree" || exit 1
rm -f parlot/tests/*.diff*
PARLOT_SCHEMA=$top_srcdir/docs/parlot-callgraph.rng
export PARLOT_DECODE PARLOT_ANNOTATE PARLOT_SCHEMA
status=0
"${PERL:-perl}" tests/vg_regtest parlot/tests || status=$?
for d in parlot/tests/*.diff*; do
   [ -f "$d" ] || continue
   echo "not ok - ${d#parlot/tests/}"
   tail -n +3 "$d" | grep '^[-+]' | head -n 12 | sed 's/^/#   /'   # past ---/+++
done
exit $status
