#!/bin/sh
# SPDX-License-Identifier: MIT
# libparlot as users get it: the installed library, headers, pkg-config
# file and examples (examples/libparlot), built outside the source tree
# with the examples' own Makefile and pkg-config only.
#
#   decoder/tests/test_library.sh [-q]
#
# The prefix: $PARLOT_PREFIX if set (scripts/test sets it to the prefix
# scripts/build installed), else the library parts of the build tree
# $PARLOT_BUILDDIR are installed into a temporary DESTDIR and found with
# pkg-config --define-prefix.  Needs python3, pkg-config, make, readelf
# and nm; $PARLOT_DECODE, $PARLOT_MERGE and $MAKE_TRACE (built if unset).
#
# Checked:
#  - libparlot.so has the soname libparlot.so.0, the examples are linked
#    to it (NEEDED), and a static link (pkg-config --static) works too;
#  - the library exports exactly the functions declared in the installed
#    headers: nothing of the codec or the file-format helpers;
#  - count_calls on traces with several threads, C++ names, a forked
#    thread, an archive and damaged traces equals an independent count of
#    the call lines of `parlot-decode --events` (inherited calls of a
#    forked thread excluded, as make_trace --fork says how many), and
#    reports the damage as parlot-decode does, with exit status 1;
#  - stack_at at many event indexes equals a replay of the same listing
#    (--no-demangle), and rejects a missing thread or an index past the
#    end with one line and exit status 1.
. "$(dirname "$0")/testlib.sh"

need_tool parlot-decode parlot-merge make_trace
for t in python3 pkg-config make readelf nm; do
   command -v $t >/dev/null 2>&1 || { echo "# skipped: no $t"; exit 77; }
done

# ---- the prefix ------------------------------------------------------------
PKG="pkg-config"
if [ -n "${PARLOT_PREFIX:-}" ]; then
   export PKG_CONFIG_PATH="$PARLOT_PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
elif [ -n "${PARLOT_BUILDDIR:-}" ]; then
   make -s -C "$PARLOT_BUILDDIR" install-libLTLIBRARIES \
      install-pkgincludeHEADERS install-pkgconfigDATA \
      install-dist_examplesDATA DESTDIR="$tmp/stage" >"$tmp/install.log" 2>&1 ||
      { echo "staged install failed:"; tail -5 "$tmp/install.log"; exit 1; }
   pc=$(find "$tmp/stage" -name parlot.pc | head -n 1)
   export PKG_CONFIG_PATH="$(dirname "$pc")"
   PKG="pkg-config --define-prefix"
else
   echo "# skipped: set PARLOT_PREFIX (an installed prefix) or PARLOT_BUILDDIR"
   exit 77
fi
libdir=$($PKG --variable=libdir parlot) ||
   { fail "pkg-config finds parlot.pc" "PKG_CONFIG_PATH=$PKG_CONFIG_PATH"; finish; }
prefix=$($PKG --variable=prefix parlot)
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
pass "pkg-config finds parlot ($prefix)"

soname=$(readelf -d "$libdir/libparlot.so" 2>/dev/null | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libparlot.so.0 ] && pass "soname libparlot.so.0" ||
   fail "soname libparlot.so.0" "got '$soname'"

# ---- the examples, built as users build them -------------------------------
cp -r "$prefix/share/parlot/examples" "$tmp/ex"
if make -s -C "$tmp/ex" PKG_CONFIG="$PKG" >"$tmp/make.log" 2>&1; then
   pass "examples build with their Makefile and pkg-config"
else
   fail "examples build with their Makefile and pkg-config" "$(tail -5 "$tmp/make.log")"
   finish
fi
for e in count_calls stack_at; do
   if readelf -d "$tmp/ex/$e" | grep -q 'NEEDED.*\[libparlot\.so\.0\]'; then
      pass "$e is linked to libparlot.so.0"
   else
      fail "$e is linked to libparlot.so.0"
   fi
done
# shellcheck disable=SC2046
if ${CC:-cc} -o "$tmp/count_static" "$tmp/ex/count_calls.c" \
      $($PKG --cflags parlot) -static-libgcc \
      "$libdir/libparlot.a" $($PKG --static --libs-only-l parlot | sed 's/-lparlot//') \
      >"$tmp/static.log" 2>&1 &&
   ! readelf -d "$tmp/count_static" | grep -q libparlot; then
   pass "static link (libparlot.a, pkg-config --static)"
else
   fail "static link (libparlot.a, pkg-config --static)" "$(tail -3 "$tmp/static.log")"
fi

# ---- the ABI: exported symbols = declared functions -------------------------
nm -D --defined-only "$libdir/libparlot.so" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' |
   sort >"$tmp/exported"
cat "$prefix"/include/parlot/*.h | python3 -c '
import re, sys
src = re.sub(r"/\*.*?\*/", "", sys.stdin.read(), flags=re.S)
src = re.sub(r"static inline[^{]*\{.*?\n\}", "", src, flags=re.S)
names = set(re.findall(r"\b(pl_[a-z0-9_]+)\s*\(", src))
# function declarations, not macros or calls inside inline bodies
print("\n".join(sorted(n for n in names if re.search(r"[\w*]\s+\*?" + n + r"\s*\(", src))))
' >"$tmp/declared"
if cmp -s "$tmp/exported" "$tmp/declared"; then
   pass "exported symbols are the $(wc -l <"$tmp/declared") declared functions"
else
   fail "exported symbols are the declared functions" \
      "$(diff "$tmp/declared" "$tmp/exported" | head -8 | tr '\n' ' ')"
fi
grep -E '^pl_(enc|dec|crc32|lz|rc)' "$tmp/exported" >/dev/null &&
   fail "codec internals are not exported" "$(grep -E '^pl_(enc|dec|crc)' "$tmp/exported" | head -3)" ||
   pass "codec internals are not exported"

# ---- traces ------------------------------------------------------------------
mk() { # NAME FORK ARGS...
   n=$1 f=$2; shift 2
   "$MAKE_TRACE" --fork "$f" "$@" "$tmp/$n" none "$tmp/$n.expect" >/dev/null 2>&1 ||
      { fail "make_trace $n"; finish; }
   echo "$n $f" >>"$tmp/traces"
}
: >"$tmp/traces"
mk plain 0 --seed 1 --threads 3 --events 4000
mk forked 6 --seed 2 --threads 2 --events 3000 --pid 5151
mk lzze 0 --seed 3 --threads 4 --events 2000 --codec lzze
mk crc 0 --seed 4 --threads 3 --events 3000 --variant crc
mk killed 0 --seed 5 --threads 3 --events 3000 --variant killed
"$PARLOT_MERGE" -o "$tmp/all.plar" "$tmp/plain" "$tmp/forked" "$tmp/lzze" ||
   { fail "parlot-merge"; finish; }

# oracle.py counts|stack FORK [THREAD INDEX] < --events listing
cat >"$tmp/oracle.py" <<'PY'
import sys
from collections import Counter
mode, fork = sys.argv[1], int(sys.argv[2])
lines = [l.rstrip("\n").split("\t") for l in sys.stdin]
if mode == "counts":
    # a forked thread's first FORK calls re-create its stack (thread 1)
    skip, c = {}, Counter()
    for pid, th, kind, depth, obj, fn in lines:
        if kind != "call":
            continue
        k = (pid, th)
        if th == "1" and skip.get(k, 0) < fork:
            skip[k] = skip.get(k, 0) + 1
            continue
        c[(pid, th, obj, fn)] += 1
    for k in sorted(c):
        print("\t".join(k[:2] + (str(c[k]),) + k[2:]))
else:
    thread, index = sys.argv[3], int(sys.argv[4])
    stack, seen = [], 0
    for pid, th, kind, depth, obj, fn in lines:
        if th != thread:
            continue
        seen += 1
        if kind == "call":
            stack.append((obj, fn))
        else:
            stack.pop()
        if seen == index:
            break
    for d, (obj, fn) in enumerate(stack, 1):
        print("%d\t%s\t%s" % (d, obj, fn))
PY
# the same sums from count_calls (a trace may define a function twice)
sum_counts() {
   python3 -c '
import sys
from collections import Counter
c = Counter()
for l in sys.stdin:
    pid, th, n, obj, fn = l.rstrip("\n").split("\t")
    c[(pid, th, obj, fn)] += int(n)
for k in sorted(c):
    print("\t".join(k[:2] + (str(c[k]),) + k[2:]))'
}

while read -r name fork; do
   "$PARLOT_DECODE" --events "$tmp/$name" >"$tmp/$name.ev" 2>"$tmp/$name.decerr"
   drc=$?
   python3 "$tmp/oracle.py" counts "$fork" <"$tmp/$name.ev" >"$tmp/$name.want"
   run "$tmp/ex/count_calls" "$tmp/$name.cc" "$tmp/$name.ccerr" "$tmp/$name"
   sum_counts <"$tmp/$name.cc" >"$tmp/$name.got"
   sed 's/^parlot-decode: /count_calls: /' "$tmp/$name.decerr" >"$tmp/$name.wanterr"
   if [ $rc = $drc ] && cmp -s "$tmp/$name.want" "$tmp/$name.got" &&
      cmp -s "$tmp/$name.wanterr" "$tmp/$name.ccerr" && [ -s "$tmp/$name.got" ]; then
      pass "count_calls $name: $(wc -l <"$tmp/$name.got") counts, exit $rc"
   else
      fail "count_calls $name" "exit $rc, parlot-decode $drc" \
         "$(diff "$tmp/$name.want" "$tmp/$name.got" | head -4 | tr '\n' ' ')" \
         "$(cat "$tmp/$name.ccerr")"
   fi
done <"$tmp/traces"

for n in plain forked lzze; do cat "$tmp/$n.want"; done | sum_counts >"$tmp/all.want"
run "$tmp/ex/count_calls" "$tmp/all.cc" "$tmp/all.err" "$tmp/all.plar"
sum_counts <"$tmp/all.cc" >"$tmp/all.got"
cmp -s "$tmp/all.want" "$tmp/all.got" && [ $rc = 0 ] &&
   pass "count_calls on an archive of three traces" ||
   fail "count_calls on an archive of three traces" "exit $rc $(cat "$tmp/all.err")"

# stack_at at indexes across threads, including the first and last events
stack_ok=0 stack_bad=
for name in plain forked; do
   "$PARLOT_DECODE" --events --no-demangle "$tmp/$name" >"$tmp/$name.raw"
   for th in 1 2; do
      total=$(awk -F'\t' -v t=$th '$2 == t' "$tmp/$name.raw" | wc -l)
      for i in 1 2 3 17 100 999 $((total / 2)) $((total - 1)) $total; do
         [ "$i" -ge 1 ] && [ "$i" -le "$total" ] || continue
         python3 "$tmp/oracle.py" stack 0 $th $i <"$tmp/$name.raw" >"$tmp/want.st"
         run "$tmp/ex/stack_at" "$tmp/got.st" "$tmp/err.st" "$tmp/$name" $th $i
         if [ $rc = 0 ] && cmp -s "$tmp/want.st" "$tmp/got.st" && [ ! -s "$tmp/err.st" ]; then
            stack_ok=$((stack_ok + 1))
         else
            stack_bad="$stack_bad $name:$th:$i(rc $rc)"
         fi
      done
   done
done
[ -z "$stack_bad" ] && [ $stack_ok -gt 20 ] &&
   pass "stack_at: $stack_ok stacks equal the replayed listing" ||
   fail "stack_at equals the replayed listing" "$stack_ok ok; bad:$stack_bad"

total=$(awk -F'\t' '$2 == 1' "$tmp/plain.raw" | wc -l)
run "$tmp/ex/stack_at" "$tmp/o" "$tmp/e" "$tmp/plain" 1 $((total + 1))
[ $rc = 1 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && grep -q "has $total events" "$tmp/e" &&
   pass "stack_at: an index past the end is one line, exit 1" ||
   fail "stack_at: an index past the end" "exit $rc: $(cat "$tmp/e")"
run "$tmp/ex/stack_at" "$tmp/o" "$tmp/e" "$tmp/plain" 99 1
[ $rc = 1 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && grep -q "no thread 99" "$tmp/e" &&
   pass "stack_at: a missing thread is one line, exit 1" ||
   fail "stack_at: a missing thread" "exit $rc: $(cat "$tmp/e")"
run "$tmp/ex/count_calls" "$tmp/o" "$tmp/e" "$tmp/no-such-trace"
[ $rc = 1 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && [ ! -s "$tmp/o" ] &&
   pass "count_calls: a missing file is one line, exit 1" ||
   fail "count_calls: a missing file" "exit $rc: $(cat "$tmp/e")"

finish
