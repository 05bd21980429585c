#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# build.sh IMPL OUTDIR: build the CG solver test programs with the MPI
# implementation IMPL (mpich or openmpi, i.e. mpicc.IMPL and mpif90.IMPL)
# into OUTDIR:
#   libcgsolver.so  the C solver library (cgsolver.c)
#   cg_c            its main program (cg_main.c), which finds the library
#                   in its own folder (rpath $ORIGIN)
#   cg_f            the Fortran version (cg.f90), one executable
# All -O1 -g -fno-inline, so that every routine stays a call of its own.
# CC_FLAGS / FC_FLAGS add flags.  Exit 0 if everything was built.
set -eu

if [ $# -ne 2 ]; then
    echo "usage: $0 mpich|openmpi OUTDIR" >&2
    exit 2
fi
impl=$1 out=$2
case $impl in
    mpich | openmpi) ;;
    *) echo "$0: IMPL must be mpich or openmpi, not '$impl'" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
mpicc=mpicc.$impl mpif90=mpif90.$impl
for t in "$mpicc" "$mpif90"; do
    command -v "$t" > /dev/null || { echo "$0: $t not found" >&2; exit 1; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
flags="-O1 -g -fno-inline"

set -x
"$mpicc" $flags ${CC_FLAGS:-} -fPIC -shared -Wall -Wextra \
    -o "$out/libcgsolver.so" "$here/cgsolver.c" -lm
"$mpicc" $flags ${CC_FLAGS:-} -Wall -Wextra -I"$here" \
    -o "$out/cg_c" "$here/cg_main.c" -L"$out" -lcgsolver -lm \
    -Wl,-rpath,'$ORIGIN'
# the module file (cg_mod.mod) goes to a scratch folder, not OUTDIR
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cg-build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$mpif90" $flags ${FC_FLAGS:-} -Wall -J"$tmp" \
    -o "$out/cg_f" "$here/cg.f90"
