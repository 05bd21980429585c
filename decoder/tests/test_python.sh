#!/bin/sh
# SPDX-License-Identifier: MIT
# The parlot Python package (python/parlot, over libparlot by ctypes) on
# real traces, against parlot-decode (decoder/tests/python_check.py):
# a program with threads and a forked child that exits with status 3, an
# MPI run of 2 ranks (MPICH, if installed) and its archive, with the
# example rank_calls.py on it; the same traces cut short and with a byte
# flipped, a missing path; the first program again with
# --collect-insns=yes --collect-time=yes (costs and stamps).
#
# The package: as installed in $PARLOT_PREFIX (scripts/test sets it; the
# library is then found where the build installed it), else the source
# tree's with the build's library ($PARLOT_BUILDDIR).  Python: $PYTHON3
# or python3; where it lacks NumPy and Debian's /usr/bin/python3 has it,
# that one (arrays() is checked with NumPy only).  Needs $VALGRIND (make
# check sets it) and a C compiler; skipped (77) without them.
. "$(dirname "$0")/testlib.sh"

need_tool parlot-decode parlot-merge
[ -n "${VALGRIND:-}" ] && [ -x "$VALGRIND" ] || { echo "# skipped: no VALGRIND"; exit 77; }
PY=${PYTHON3:-python3}
command -v "$PY" >/dev/null 2>&1 || { echo "# skipped: no python3"; exit 77; }
if ! "$PY" -c 'import numpy' 2>/dev/null && [ -x /usr/bin/python3 ] &&
   /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
   PY=/usr/bin/python3
fi

# ---- the package ---------------------------------------------------------
pyver=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
site=
if [ -n "${PARLOT_PREFIX:-}" ]; then
   for d in "$PARLOT_PREFIX"/lib/python3*/dist-packages \
            "$PARLOT_PREFIX"/lib/python3*/site-packages; do
      [ -f "$d/parlot/__init__.py" ] && site=$d
   done
   [ -n "$site" ] || { fail "python: no parlot package under $PARLOT_PREFIX/lib"; finish; }
   unset PARLOT_LIBRARY
   example=$PARLOT_PREFIX/share/parlot/examples/python/rank_calls.py
else
   lib=$(ls "${PARLOT_BUILDDIR:-.}"/decoder/lib/.libs/libparlot.so.[0-9]* 2>/dev/null | head -1)
   [ -n "$lib" ] || { echo "# skipped: no built libparlot"; exit 77; }
   site=$tmp/site
   mkdir -p "$site"
   cp -r "$top/python/parlot" "$site/"
   printf 'LIBDIR = ""\nSOVERSION = ""\n' > "$site/parlot/_config.py"
   PARLOT_LIBRARY=$lib
   export PARLOT_LIBRARY
   example=$top/examples/python/rank_calls.py
fi
PYTHONPATH=$site
export PYTHONPATH
if v=$("$PY" -c 'import parlot; print(parlot.library_version())' 2>&1); then
   pass "python $pyver: import parlot from $site (libparlot $v)"
else
   fail "python $pyver: import parlot" "$v"
   finish
fi

# ---- the traces ------------------------------------------------------------
cat > "$tmp/tf.c" <<'PROG'
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static int depth(int n) { return n ? depth(n - 1) + 1 : 0; }
static int cmp(const void *a, const void *b)
{ return *(const int *)a - *(const int *)b; }
static void *work(void *arg)
{
   int v[64], i;
   for (i = 0; i < 64; i++)
      v[i] = (i * 37 + (int)(long)arg) % 64;
   qsort(v, 64, sizeof v[0], cmp);
   return (void *)(long)depth(v[5]);
}
static void child_work(void) { depth(12); exit(3); }
int main(void)
{
   pthread_t t[2];
   int i, st;
   for (i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, work, (void *)(long)i);
   for (i = 0; i < 2; i++)
      pthread_join(t[i], NULL);
   if (fork() == 0)
      child_work();
   wait(&st);
   return WEXITSTATUS(st) == 3 ? 0 : 1;
}
PROG
${CC:-cc} -O0 -g -pthread -o "$tmp/tf" "$tmp/tf.c" || { fail "cc tf.c"; finish; }
mkdir -p "$tmp/tf.d"
"$VALGRIND" --tool=parlot -q --parlot-out-file="$tmp/tf.d/parlot.out.%p" \
   "$tmp/tf" 0 || fail "valgrind --tool=parlot tf"
# the child exits with 3, the parent with 0 once it has seen that
cases="events:$tmp/tf.d graph:$tmp/tf.d select:$tmp/tf.d exit:$tmp/tf.d:0,3"
# the same with costs and wall-clock stamps
mkdir -p "$tmp/tfc.d"
"$VALGRIND" --tool=parlot -q --collect-insns=yes --collect-time=yes \
   --parlot-out-file="$tmp/tfc.d/parlot.out.%p" "$tmp/tf" 0 ||
   fail "valgrind --tool=parlot --collect-insns=yes --collect-time=yes tf"
cases="$cases costs:$tmp/tfc.d"
one=$(ls "$tmp/tf.d" | head -1)

if command -v mpicc.mpich >/dev/null 2>&1 && command -v mpirun.mpich >/dev/null 2>&1; then
   cat > "$tmp/mpi.c" <<'PROG'
#include <mpi.h>
static double exchange(int rank, int size, double x)
{
   double y = 0;
   MPI_Sendrecv(&x, 1, MPI_DOUBLE, (rank + 1) % size, 0, &y, 1, MPI_DOUBLE,
                (rank + size - 1) % size, 0, MPI_COMM_WORLD,
                MPI_STATUS_IGNORE);
   return y;
}
static double compute(double x) { return x * 0.5 + 1; }
int main(int argc, char **argv)
{
   int rank, size, it;
   double x = 1, s;
   MPI_Init(&argc, &argv);
   MPI_Comm_rank(MPI_COMM_WORLD, &rank);
   MPI_Comm_size(MPI_COMM_WORLD, &size);
   for (it = 0; it < 5; it++) {
      x = compute(exchange(rank, size, x));
      MPI_Allreduce(&x, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
   }
   MPI_Finalize();
   return 0;
}
PROG
   mkdir -p "$tmp/mpi.d"
   if mpicc.mpich -O0 -g -o "$tmp/mpi" "$tmp/mpi.c" &&
      HWLOC_COMPONENTS=-x86 $TIMEOUT mpirun.mpich -np 2 "$VALGRIND" --tool=parlot -q \
         --parlot-out-file="$tmp/mpi.d/parlot.out.%p" "$tmp/mpi" &&
      "$PARLOT_MERGE" -o "$tmp/mpi.parlot" "$tmp/mpi.d" >/dev/null; then
      cases="$cases events:$tmp/mpi.d graph:$tmp/mpi.d events:$tmp/mpi.parlot"
      cases="$cases example:$tmp/mpi.d:MPI_Allreduce:$example"
   else
      fail "the MPI run (mpirun.mpich -np 2)"
   fi
else
   echo "# no MPICH: the MPI case is left out"
fi

# damaged copies of one trace: cut short, a byte flipped in the middle
# (in a chunk's payload, which its CRC covers: a header's flags and
# reserved bytes are not checked, an unknown type is skipped)
size=$(wc -c < "$tmp/tf.d/$one")
head -c $((size * 2 / 3)) "$tmp/tf.d/$one" > "$tmp/cut.trace"
cp "$tmp/tf.d/$one" "$tmp/flip.trace"
"$PY" - "$tmp/flip.trace" <<'EOF'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
off, mid = 16, len(data) // 2
while off + 16 <= len(data):
    n = struct.unpack_from("<I", data, off + 4)[0]
    if off + 16 + n > mid and n:
        at = max(mid, off + 16)
        data[at] ^= 0xFF
        break
    off += 16 + n
open(sys.argv[1], "wb").write(data)
EOF
cases="$cases damaged:$tmp/cut.trace damaged:$tmp/flip.trace missing:$tmp/nosuch"

# shellcheck disable=SC2086
"$PY" "$here/python_check.py" "$PARLOT_DECODE" $cases > "$tmp/check.out" 2>&1
rc=$?
# its TAP lines as this script's (a failure's "#" lines follow it)
pending= detail=
flush() {
   [ -z "$pending" ] || fail "$pending" "$detail"
   pending= detail=
}
while IFS= read -r line; do
   case $line in
   "ok "*) flush; pass "${line#ok [0-9]* - }" ;;
   "not ok "*) flush; pending=${line#not ok [0-9]* - } ;;
   "#   "*) detail="$detail${detail:+
#   }${line#\#   }" ;;
   esac
done < "$tmp/check.out"
flush
if [ $rc -ne 0 ] && ! grep -q '^not ok' "$tmp/check.out"; then
   fail "python_check.py exit $rc" "$(tail -8 "$tmp/check.out")"
fi
finish
