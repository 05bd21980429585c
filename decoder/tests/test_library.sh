#!/bin/sh
# SPDX-License-Identifier: MIT
# libparlot as users get it: the installed library, headers, pkg-config
# file, man page and examples (examples/libparlot), the examples built
# outside the source tree with their own Makefile and pkg-config only.
#
#   decoder/tests/test_library.sh [-q]
#
# The prefix: $PARLOT_PREFIX if set (scripts/test sets it to the prefix
# scripts/build installed); else the library's parts of the build tree
# $PARLOT_BUILDDIR (make check sets it; default: the current directory if
# it is a configured build tree) are installed into a temporary DESTDIR
# and found with pkg-config --define-prefix.  Skipped (77) if neither.
# Needs python3, pkg-config, make, readelf and nm; uses $PARLOT_DECODE,
# $PARLOT_MERGE and $MAKE_TRACE (built if unset).  Real traces are made
# with $PARLOT_PREFIX/bin/valgrind or $VALGRIND, if either runs, and a C++
# compiler ($CXX, default c++); $PARLOT_LIBRARY_TRACES may name more
# trace files (space-separated) to check the examples on.
#
# Checked:
#  - the installed files; libparlot.so's soname is libparlot.so.8; the
#    examples build warning-free without the source tree, are linked to
#    libparlot.so.8 and load it from the prefix; a fully static link with
#    pkg-config --static works and gives the same output; the man page
#    formats cleanly; pl_lib_version() is pkg-config's version; each
#    header compiles on its own, and from C++;
#  - the library exports exactly the functions declared in the installed
#    headers, all under a PARLOT_ symbol version, no data and nothing of
#    the codec or the file-format helpers (pl_enc_, pl_dec_, pl_crc32...);
#  - count_calls on synthetic traces (threads, mangled C++ names, escaped
#    names, a forked thread, LZZE, a CRC error, a killed process), real
#    ones (threads and C++ names; the forked child of that run; the same
#    cut short and with a byte flipped), several at once and an archive of
#    them: per (pid, thread, object, function) the number of "call" lines
#    of `parlot-decode --events`, less each thread's inherited entries,
#    read from the file's THREAD_BEGIN chunks by the oracle itself
#    (docs/trace-format.md 4.4); lines in the documented order; a damaged
#    trace gives parlot-decode's error line and exit status 1;
#  - stack_at at many event indexes of those traces: the replay of the
#    call and return lines of the thread up to its INDEX-th line; a missing
#    thread, an index past the end, an index past the damage, a missing
#    file: one line on stderr, exit 1; a bad command line: exit 2.
. "$(dirname "$0")/testlib.sh"

need_tool parlot-decode parlot-merge make_trace
for t in python3 pkg-config make readelf nm; do
   command -v $t >/dev/null 2>&1 || { echo "# skipped: no $t"; exit 77; }
done
# nothing of the build environment leaks into the users' builds
unset CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH LIBRARY_PATH || :
quiet_make() { MAKEFLAGS= MFLAGS= MAKELEVEL= make "$@"; }

# ---- the prefix ------------------------------------------------------------
PKG="pkg-config"
bdir=${PARLOT_BUILDDIR:-}
if [ -z "$bdir" ] && [ -f Makefile ] && grep -q '^install-libLTLIBRARIES:' Makefile &&
   grep -q 'libparlot' Makefile; then
   bdir=$(pwd)
fi
if [ -n "${PARLOT_PREFIX:-}" ]; then
   pc=$(find "$PARLOT_PREFIX" -name parlot.pc -path '*pkgconfig*' 2>/dev/null | head -n 1)
   [ -n "$pc" ] || { fail "parlot.pc installed in $PARLOT_PREFIX"; finish; }
   how="installed in $PARLOT_PREFIX"
elif [ -n "$bdir" ]; then
   quiet_make -s -C "$bdir" install-libLTLIBRARIES install-pkgincludeHEADERS \
      install-pkgconfigDATA install-dist_examplesDATA install-man3 \
      DESTDIR="$tmp/stage" >"$tmp/install.log" 2>&1 ||
      { fail "staged install of the library" "$(tail -5 "$tmp/install.log")"; finish; }
   pc=$(find "$tmp/stage" -name parlot.pc | head -n 1)
   PKG="pkg-config --define-prefix"
   how="staged from $bdir"
else
   echo "# skipped: set PARLOT_PREFIX (an installed prefix) or PARLOT_BUILDDIR"
   exit 77
fi
PKG_CONFIG_PATH="$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_PATH
if ! version=$($PKG --modversion parlot); then
   fail "pkg-config finds parlot" "PKG_CONFIG_PATH=$PKG_CONFIG_PATH"
   finish
fi
prefix=$($PKG --variable=prefix parlot)
libdir=$($PKG --variable=libdir parlot)
incdir=$($PKG --variable=includedir parlot)
pass "pkg-config finds parlot $version ($how)"

missing=
for f in "$libdir/libparlot.so" "$libdir/libparlot.so.8" "$libdir/libparlot.a" \
   "$incdir/parlot/parlot.h" "$prefix/share/man/man3/libparlot.3" \
   "$prefix/share/parlot/examples/Makefile" \
   "$prefix/share/parlot/examples/count_calls.c" \
   "$prefix/share/parlot/examples/stack_at.c"; do
   [ -f "$f" ] || missing="$missing $f"
done
for h in pl_trace pl_archive pl_names pl_select pl_program pl_callgraph \
   pl_cct pl_paths pl_parallel pl_outliers; do
   [ -f "$incdir/parlot/$h.h" ] || missing="$missing $h.h"
done
[ -z "$missing" ] && pass "library, headers, man page and examples installed" ||
   fail "library, headers, man page and examples installed" "missing:$missing"

soname=$(readelf -d "$libdir/libparlot.so" 2>/dev/null |
   sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libparlot.so.8 ] && pass "soname libparlot.so.8" ||
   fail "soname libparlot.so.8" "got '$soname'"

if command -v groff >/dev/null 2>&1; then
   groff -ww -man -Tutf8 "$prefix/share/man/man3/libparlot.3" \
      >/dev/null 2>"$tmp/groff.err"
   [ ! -s "$tmp/groff.err" ] && pass "libparlot(3) formats without warnings" ||
      fail "libparlot(3) formats without warnings" "$(head -3 "$tmp/groff.err")"
fi

# ---- the examples, built as users build them -------------------------------
cp -r "$prefix/share/parlot/examples" "$tmp/ex"
if quiet_make -C "$tmp/ex" PKG_CONFIG="$PKG" >"$tmp/make.log" 2>&1 &&
   [ -x "$tmp/ex/count_calls" ] && [ -x "$tmp/ex/stack_at" ]; then
   pass "examples build with their Makefile and pkg-config"
else
   fail "examples build with their Makefile and pkg-config" "$(tail -5 "$tmp/make.log")"
   finish
fi
if grep -q -e "$top/decoder" -e "$top/common" -e "warning:" "$tmp/make.log"; then
   fail "examples build warning-free, without the source tree" \
      "$(grep -e "$top/decoder" -e "$top/common" -e "warning:" "$tmp/make.log" | head -3)"
else
   pass "examples build warning-free, without the source tree"
fi
reallib=$(cd "$libdir" && pwd -P)/libparlot.so.8
for e in count_calls stack_at; do
   if ! readelf -d "$tmp/ex/$e" | grep -q 'NEEDED.*\[libparlot\.so\.8\]'; then
      fail "$e is linked to libparlot.so.8" "$(readelf -d "$tmp/ex/$e" | grep NEEDED)"
   elif command -v ldd >/dev/null 2>&1; then
      got=$(env -u LD_LIBRARY_PATH ldd "$tmp/ex/$e" | sed -n 's/.*libparlot\.so\.8 => \([^ ]*\).*/\1/p')
      got=$(cd "$(dirname "${got:-/}")" 2>/dev/null && pwd -P)/$(basename "${got:-none}")
      [ "$got" = "$reallib" ] && pass "$e is linked to libparlot.so.8, loaded from the prefix" ||
         fail "$e loads libparlot.so.8 from the prefix" "ldd: $got, not $reallib"
   else
      pass "$e is linked to libparlot.so.8"
   fi
done

# what a user's program sees: the version, each header alone, C++
cat >"$tmp/version.c" <<'EOF'
#include <stdio.h>
#include <parlot/parlot.h>
int main(void)
{
   unsigned major, minor;
   pl_lib_format_version(&major, &minor);
   printf("%s %u.%u\n", pl_lib_version(), major, minor);
   return 0;
}
EOF
# shellcheck disable=SC2046
if $CC -o "$tmp/version" "$tmp/version.c" $($PKG --cflags --libs parlot) \
      -Wl,-rpath,"$libdir" >"$tmp/cc.log" 2>&1 &&
   "$tmp/version" >"$tmp/version.out" &&
   [ "$(cut -d' ' -f1 "$tmp/version.out")" = "$version" ]; then
   pass "pl_lib_version() is pkg-config's version ($(cat "$tmp/version.out"))"
else
   fail "pl_lib_version() is pkg-config's version $version" \
      "$(cat "$tmp/cc.log" "$tmp/version.out" 2>/dev/null | head -3)"
fi
bad=
for h in "$incdir"/parlot/*.h; do
   printf '#include <parlot/%s>\nint main(void) { return 0; }\n' "${h##*/}" >"$tmp/h.c"
   # shellcheck disable=SC2046
   $CC -std=c99 -pedantic -Wall -Wextra -Werror -c -o "$tmp/h.o" "$tmp/h.c" \
      $($PKG --cflags parlot) >/dev/null 2>&1 || bad="$bad ${h##*/}"
done
[ -z "$bad" ] && pass "each header compiles on its own (C99, -pedantic)" ||
   fail "each header compiles on its own (C99, -pedantic)" "not:$bad"
CXX=${CXX:-c++}
if command -v "$CXX" >/dev/null 2>&1; then
   sed 's/<stdio.h>/<cstdio>/' "$tmp/version.c" >"$tmp/version.cc"
   # shellcheck disable=SC2046
   if $CXX -Wall -o "$tmp/version++" "$tmp/version.cc" $($PKG --cflags --libs parlot) \
         -Wl,-rpath,"$libdir" >"$tmp/cxx.log" 2>&1 &&
      "$tmp/version++" | cmp -s - "$tmp/version.out"; then
      pass "a C++ program includes parlot.h and links (extern \"C\")"
   else
      fail "a C++ program includes parlot.h and links (extern \"C\")" \
         "$(grep -m 2 -e error -e undefined "$tmp/cxx.log")"
   fi
fi

# a static link as pkg-config --static describes it: fully static if the C
# library allows it, else libparlot.a only
echo 'int main(void) { return 0; }' >"$tmp/s.c"
if $CC -static -o "$tmp/s" "$tmp/s.c" >/dev/null 2>&1; then
   how=-static
   # shellcheck disable=SC2046
   $CC -static -o "$tmp/count_static" "$tmp/ex/count_calls.c" \
      $($PKG --static --cflags --libs parlot) >"$tmp/static.log" 2>&1
else
   how="libparlot.a"
   # shellcheck disable=SC2046
   $CC -o "$tmp/count_static" "$tmp/ex/count_calls.c" $($PKG --cflags parlot) \
      -Wl,-Bstatic $($PKG --libs parlot) -Wl,-Bdynamic \
      $($PKG --static --libs-only-l parlot | sed 's/-lparlot//') >"$tmp/static.log" 2>&1
fi
if [ -x "$tmp/count_static" ] && ! readelf -d "$tmp/count_static" | grep -q libparlot; then
   pass "static link ($how, pkg-config --static)"
else
   fail "static link ($how, pkg-config --static)" "$(tail -3 "$tmp/static.log")"
fi

# ---- the ABI: exported symbols = declared functions -------------------------
nm -D --defined-only "$libdir/libparlot.so" >"$tmp/nm" 2>&1
awk '$2 != "A" { n = $3; sub(/@.*/, "", n); print n }' "$tmp/nm" | sort >"$tmp/exported"
cat "$incdir"/parlot/*.h | python3 -c '
import re, sys
src = re.sub(r"/\*.*?\*/", "", sys.stdin.read(), flags=re.S)
src = re.sub(r"#ifdef __cplusplus\s*(extern .C. \{|\})\s*#endif", "", src)  # extern "C"
src = re.sub(r"^\s*#.*$", "", src, flags=re.M)              # macros
src = re.sub(r"static inline[^{]*\{.*?\n\}", "", src, flags=re.S)
src = re.sub(r"\{[^{}]*\}", ";", src)                          # struct bodies
# a declaration: type words, a name, an argument list, ";"
for m in re.finditer(r"([A-Za-z_][\w\s\*]*?[\s\*])(pl_\w+)\s*\(([^;{]*)\)\s*(__attribute__\s*\(\(.*?\)\))?\s*;", src, flags=re.S):
    print(m.group(2))
' | sort -u >"$tmp/declared"
if [ -s "$tmp/declared" ] && cmp -s "$tmp/exported" "$tmp/declared"; then
   pass "exported symbols are the $(wc -l <"$tmp/declared") functions declared in the headers"
else
   fail "exported symbols are the functions declared in the headers" \
      "declared only: $(comm -23 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')" \
      "exported only: $(comm -13 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')"
fi
others=$(awk '$2 != "A" && ($2 != "T" || $3 !~ /@@?PARLOT_[0-9.]+$/)' "$tmp/nm")
[ -z "$others" ] && pass "every exported symbol is a function with a PARLOT_ version" ||
   fail "every exported symbol is a function with a PARLOT_ version" "$(echo "$others" | head -3)"
internal=$(grep -E ' (pl_(enc|dec|crc32|lz|rc|ze|fmt|format|hash|grow)|crc32)' "$tmp/nm")
[ -z "$internal" ] && pass "codec and format internals are not exported" ||
   fail "codec and format internals are not exported" "$(echo "$internal" | head -3)"

# ---- traces ------------------------------------------------------------------
: >"$tmp/traces"     # NAME: the trace $tmp/NAME, checked below
mk() { # NAME ARGS... (make_trace options)
   n=$1; shift
   "$MAKE_TRACE" "$@" "$tmp/$n" none "$tmp/$n.expect" >/dev/null 2>&1 ||
      { fail "make_trace $n"; finish; }
   echo "$n" >>"$tmp/traces"
}
mk plain --seed 1 --threads 3 --events 4000
mk forked --seed 2 --threads 2 --events 3000 --pid 5151 --fork 6
mk lzze --seed 3 --threads 4 --events 2000 --codec lzze --twin 5
mk crc --seed 4 --threads 3 --events 3000 --variant crc
mk killed --seed 5 --threads 3 --events 3000 --variant killed
members="plain forked lzze"

# real traces: a C++ program with threads that forks
VG=
for v in "${PARLOT_PREFIX:+$PARLOT_PREFIX/bin/valgrind}" "${VALGRIND:-}"; do
   [ -n "$v" ] && [ -x "$v" ] && { VG=$v; break; }
done
if [ -n "$VG" ] && command -v "$CXX" >/dev/null 2>&1; then
   cat >"$tmp/prog.cc" <<'EOF'
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>
namespace demo {
template <typename T> struct Sum { T total{}; void add(T v) { total += v; } };
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
std::string key(int i) { return "worker-" + std::to_string(i); }
void work(int id, std::map<std::string, long> *out)
{
   Sum<long> s;
   for (int i = 0; i < 20; i++)
      s.add(fib(8 + id % 3));
   (*out)[key(id)] = s.total;
}
}
int main()
{
   std::vector<std::map<std::string, long>> res(3);
   std::vector<std::thread> ts;
   for (int i = 0; i < 3; i++)
      ts.emplace_back(demo::work, i, &res[i]);
   for (auto &t : ts)
      t.join();
   pid_t pid = fork();
   if (pid == 0) {
      std::map<std::string, long> m;
      demo::work(4, &m);
      std::exit(0);
   }
   waitpid(pid, nullptr, 0);
   std::printf("%zu\n", res[0].size() + res[1].size() + res[2].size());
   return 0;
}
EOF
   if $CXX -O0 -g -pthread -o "$tmp/prog" "$tmp/prog.cc" >"$tmp/cxx.log" 2>&1 &&
      $TIMEOUT "$VG" -q --tool=parlot --parlot-out-file="$tmp/vg.%p" "$tmp/prog" \
         >"$tmp/vg.out" 2>"$tmp/vg.err"; then
      pass "real traces of a C++ program with threads and a fork ($VG)"
      vgs=1
   else
      fail "real traces of a C++ program with threads and a fork ($VG)" \
         "$(tail -3 "$tmp/cxx.log" "$tmp/vg.err")"
      vgs=
   fi
else
   echo "# no real traces: no valgrind with ParLoT (PARLOT_PREFIX, VALGRIND) or no $CXX"
   vgs=
fi

# oracle.py inherited TRACE        thread numbers and inherited depths
# oracle.py damage TRACE CUT FLIP   damaged copies of TRACE
# oracle.py expect DIR NAME...      from DIR/NAME (the trace), NAME.ev (its
#   --events listing) and NAME.cc (count_calls' output): NAME.want, the
#   expected counts; NAME.got, count_calls' lines summed per (pid, thread,
#   object, function) (two functions of a trace may have the same object
#   and name); NAME.q, event indexes "THREAD INDEX" for stack_at; NAME.st,
#   the stacks after them
cat >"$tmp/oracle.py" <<'PY'
import os, struct, sys
from collections import Counter

def chunks(data):
    """(offset, type, payload length, thread) of each complete chunk
    (docs/trace-format.md 2, 3)."""
    off = 16
    while data[:8] == b"\x89PARLOT\n" and off + 16 <= len(data):
        plen, thread = struct.unpack_from("<II", data, off + 4)
        if off + 16 + plen > len(data):
            break
        yield off, data[off], plen, thread
        off += 16 + plen

def inherited(path):
    """THREAD_BEGIN's inherited depth per thread (4.4)."""
    data = open(path, "rb").read()
    return {str(thread): struct.unpack_from("<I", data, off + 32)[0]
            for off, kind, plen, thread in chunks(data)
            if kind == 4 and plen >= 20}

def events(path):
    for line in open(path, encoding="utf-8", errors="surrogateescape"):
        pid, th, kind, d, obj, fn = line.rstrip("\n").split("\t")
        yield pid, th, kind, int(d), obj, fn

def replay(path):
    """Each event with its thread's stack after it and its index there."""
    stacks, seen = {}, Counter()
    for pid, th, kind, d, obj, fn in events(path):
        st = stacks.setdefault(th, [])
        seen[th] += 1
        if kind == "call":
            st.append((obj, fn))
        else:
            st.pop()
        yield pid, th, kind, d, obj, fn, st, seen[th]

def write(path, lines):
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.writelines(lines)

def expect(base):
    # calls: the call lines of each thread but its first `inherited` ones
    skip, calls = inherited(base), Counter()
    # stacks: replay; depth and length of each thread
    seen, deepest = Counter(), {}
    for pid, th, kind, d, obj, fn, st, i in replay(base + ".ev"):
        seen[th] = i
        assert d == len(st) + (kind == "return"), "depth column"
        if len(st) > deepest.get(th, (0, 0))[0]:
            deepest[th] = (len(st), i)
        if skip.get(th, 0) > 0:
            assert kind == "call", "an inherited event that is not a call"
            skip[th] -= 1
        elif kind == "call":
            calls[(pid, th, obj, fn)] += 1
    write(base + ".want", ["\t".join(k[:2] + (str(calls[k]),) + k[2:]) + "\n"
                           for k in sorted(calls)])
    got = Counter()
    for l in open(base + ".cc", encoding="utf-8", errors="surrogateescape"):
        pid, th, n, obj, fn = l.rstrip("\n").split("\t")
        got[(pid, th, obj, fn)] += int(n)
    write(base + ".got", ["\t".join(k[:2] + (str(got[k]),) + k[2:]) + "\n"
                          for k in sorted(got)])
    # up to 3 threads: the first events, the deepest stack, the middle,
    # the last events
    want = {}
    for th in sorted(seen, key=int)[:3]:
        n = seen[th]
        want[th] = sorted(i for i in {1, 2, 17, deepest.get(th, (0, 1))[1],
                                      n // 2, n - 1, n} if 1 <= i <= n)
    write(base + ".q", ["%s %d\n" % (th, i) for th in want for i in want[th]])
    out = []
    for pid, th, kind, d, obj, fn, st, i in replay(base + ".ev"):
        if i in want.get(th, ()):
            out.append("== %s %d\n" % (th, i))
            out += ["%d\t%s\t%s\n" % (k, o, f) for k, (o, f) in enumerate(st, 1)]
    write(base + ".st", out)

mode = sys.argv[1]
if mode == "damage":
    data = open(sys.argv[2], "rb").read()
    streams = [c for c in chunks(data) if c[1] == 5]
    off, _, plen, _ = streams[-1]
    open(sys.argv[3], "wb").write(data[:off + 16 + plen // 2])
    off, _, plen, _ = streams[len(streams) // 2]
    flip = bytearray(data)
    flip[off + 16 + 16 + (plen - 16) // 2] ^= 0x40
    open(sys.argv[4], "wb").write(flip)
elif mode == "inherited":
    for th, d in sorted(inherited(sys.argv[2]).items(), key=lambda x: int(x[0])):
        print(th, d)
else:
    for name in sys.argv[3:]:
        expect(os.path.join(sys.argv[2], name))
PY

if [ -n "$vgs" ]; then
   for f in "$tmp"/vg.[0-9]*; do
      python3 "$tmp/oracle.py" inherited "$f" >"$tmp/inh"
      if awk '$2 > 0 { x = 1 } END { exit !x }' "$tmp/inh"; then
         cp "$f" "$tmp/vg-child"
         inh=$(awk 'NR == 1 { print $2 }' "$tmp/inh")
      else
         cp "$f" "$tmp/vg-parent"
         nth=$(wc -l <"$tmp/inh")
      fi
   done
   if [ -f "$tmp/vg-parent" ] && [ -f "$tmp/vg-child" ] && [ "${nth:-0}" -ge 4 ]; then
      pass "real traces: $nth threads in the parent, $inh inherited frames in the child"
      printf 'vg-parent\nvg-child\n' >>"$tmp/traces"
      members="$members vg-parent vg-child"
      # the same, cut inside its last STREAM chunk, and with a byte of a
      # STREAM chunk in the middle flipped
      python3 "$tmp/oracle.py" damage "$tmp/vg-parent" "$tmp/vg-cut" "$tmp/vg-flip"
      printf 'vg-cut\nvg-flip\n' >>"$tmp/traces"
   else
      fail "real traces: a parent with 4 threads and a forked child" \
         "$(ls "$tmp"/vg.* | tr '\n' ' ')"
   fi
fi
k=0
for f in ${PARLOT_LIBRARY_TRACES:-}; do
   k=$((k + 1))
   cp "$f" "$tmp/extra$k" && echo "extra$k" >>"$tmp/traces"
done

# ---- count_calls ---------------------------------------------------------------
# the documented order: threads increasing, calls decreasing within one
in_order() {
   awk -F'\t' '$2 + 0 < th || ($2 == th && $3 + 0 > calls) { bad = 1 }
               { th = $2 + 0; calls = $3 + 0 } END { exit bad }' "$1"
}
while read -r name; do
   "$PARLOT_DECODE" --events "$tmp/$name" >"$tmp/$name.ev" 2>"$tmp/$name.decerr"
   echo $? >"$tmp/$name.drc"
   run "$tmp/ex/count_calls" "$tmp/$name.cc" "$tmp/$name.ccerr" "$tmp/$name"
   echo $rc >"$tmp/$name.rc"
done <"$tmp/traces"
# shellcheck disable=SC2046
python3 "$tmp/oracle.py" expect "$tmp" $(cat "$tmp/traces") ||
   { fail "the oracle reads every --events listing"; finish; }
while read -r name; do
   rc=$(cat "$tmp/$name.rc") drc=$(cat "$tmp/$name.drc")
   sed 's/^parlot-decode: /count_calls: /' "$tmp/$name.decerr" >"$tmp/$name.wanterr"
   if [ "$rc" = "$drc" ] && cmp -s "$tmp/$name.want" "$tmp/$name.got" &&
      cmp -s "$tmp/$name.wanterr" "$tmp/$name.ccerr" && [ -s "$tmp/$name.got" ] &&
      in_order "$tmp/$name.cc"; then
      pass "count_calls $name: $(wc -l <"$tmp/$name.got") counts$([ "$rc" = 0 ] || echo ", the damage reported, exit $rc")"
   else
      fail "count_calls $name" "exit $rc, parlot-decode $drc" \
         "$(diff "$tmp/$name.want" "$tmp/$name.got" | head -4 | tr '\n' ' ')" \
         "stderr: $(cat "$tmp/$name.ccerr")" "expected: $(cat "$tmp/$name.wanterr")"
   fi
done <"$tmp/traces"

# shellcheck disable=SC2086
(cd "$tmp" && "$PARLOT_MERGE" -o all.plar $members) ||
   { fail "parlot-merge"; finish; }
: >"$tmp/all.want"
for n in $members; do cat "$tmp/$n.cc" >>"$tmp/all.want"; done
run "$tmp/ex/count_calls" "$tmp/all.cc" "$tmp/all.err" "$tmp/all.plar"
cmp -s "$tmp/all.want" "$tmp/all.cc" && [ $rc = 0 ] && [ ! -s "$tmp/all.err" ] &&
   pass "count_calls on an archive: its members' counts, in order" ||
   fail "count_calls on an archive: its members' counts, in order" "exit $rc $(cat "$tmp/all.err")"

cat "$tmp/plain.cc" "$tmp/forked.cc" >"$tmp/two.want"
run "$tmp/ex/count_calls" "$tmp/two.cc" "$tmp/two.err" "$tmp/plain" "$tmp/no-such" "$tmp/forked"
[ $rc = 1 ] && cmp -s "$tmp/two.want" "$tmp/two.cc" && [ "$(wc -l <"$tmp/two.err")" = 1 ] &&
   grep -q "^count_calls: $tmp/no-such: offset 0: " "$tmp/two.err" &&
   pass "count_calls: a missing file among others is one line, exit 1" ||
   fail "count_calls: a missing file among others" "exit $rc: $(cat "$tmp/two.err")"
run "$tmp/ex/count_calls" "$tmp/o" "$tmp/e" "$tmp/ex/Makefile"
[ $rc = 1 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && [ ! -s "$tmp/o" ] &&
   grep -q "^count_calls: $tmp/ex/Makefile: offset 0: " "$tmp/e" &&
   pass "count_calls: a file that is not a trace is one line, exit 1" ||
   fail "count_calls: a file that is not a trace" "exit $rc: $(cat "$tmp/e")"

# ---- stack_at ------------------------------------------------------------------
stack_ok=0 stack_bad=
while read -r name; do
   : >"$tmp/$name.got.st"
   while read -r th i; do
      echo "== $th $i" >>"$tmp/$name.got.st"
      run "$tmp/ex/stack_at" "$tmp/got.st" "$tmp/err.st" "$tmp/$name" "$th" "$i"
      cat "$tmp/got.st" >>"$tmp/$name.got.st"
      if [ $rc = 0 ] && [ ! -s "$tmp/err.st" ]; then
         stack_ok=$((stack_ok + 1))
      else
         stack_bad="$stack_bad $name:$th:$i(exit $rc)"
      fi
   done <"$tmp/$name.q"
   cmp -s "$tmp/$name.st" "$tmp/$name.got.st" ||
      stack_bad="$stack_bad $name:$(diff "$tmp/$name.st" "$tmp/$name.got.st" | sed -n 2p)"
done <"$tmp/traces"
[ -z "$stack_bad" ] && [ $stack_ok -gt 50 ] &&
   pass "stack_at: $stack_ok stacks equal the replayed --events listing" ||
   fail "stack_at equals the replayed --events listing" "$stack_ok ok; bad:$stack_bad"

one_line() { # NAME STATUS REGEX: the last run printed one line matching REGEX
   if [ $rc = "$2" ] && [ "$(wc -l <"$tmp/e")" = 1 ] && [ ! -s "$tmp/o" ] &&
      grep -Eq -- "$3" "$tmp/e"; then
      pass "$1"
   else
      fail "$1" "exit $rc: $(head -c 300 "$tmp/e")"
   fi
}
total=$(awk -F'\t' '$2 == 1' "$tmp/plain.ev" | wc -l)
run "$tmp/ex/stack_at" "$tmp/o" "$tmp/e" "$tmp/plain" 1 $((total + 1))
one_line "stack_at: an index past the end is one line, exit 1" 1 \
   "^stack_at: $tmp/plain: thread 1 has $total events, not $((total + 1))\$"
run "$tmp/ex/stack_at" "$tmp/o" "$tmp/e" "$tmp/plain" 99 1
one_line "stack_at: a missing thread is one line, exit 1" 1 "^stack_at: $tmp/plain: no thread 99"
run "$tmp/ex/stack_at" "$tmp/o" "$tmp/e" "$tmp/plain" 0 1
one_line "stack_at: thread 0 is one line, exit 1" 1 "^stack_at: $tmp/plain: no thread 0"
run "$tmp/ex/stack_at" "$tmp/o" "$tmp/e" "$tmp/no-such" 1 1
one_line "stack_at: a missing file is one line, exit 1" 1 "^stack_at: $tmp/no-such: offset 0: "
total=$(awk -F'\t' '$2 == 1' "$tmp/killed.ev" | wc -l)
run "$tmp/ex/stack_at" "$tmp/o" "$tmp/e" "$tmp/killed" 1 $((total + 1))
one_line "stack_at: an index past the damage is one line, exit 1" 1 \
   "^stack_at: $tmp/killed: offset [0-9]+: .*thread 1 has $total events before it"
bad=
for args in "1 0" "1 x" "x 1" "1 -1" "1 ''"; do
   eval "run \"\$tmp/ex/stack_at\" \"\$tmp/o\" \"\$tmp/e\" \"\$tmp/plain\" $args"
   [ $rc = 2 ] && [ -s "$tmp/e" ] || bad="$bad [$args: exit $rc]"
done
run "$tmp/ex/stack_at" "$tmp/o" "$tmp/e" "$tmp/plain" 1
[ $rc = 2 ] || bad="$bad [no index: exit $rc]"
[ -z "$bad" ] && pass "stack_at: a bad command line is exit 2" ||
   fail "stack_at: a bad command line is exit 2" "$bad"

finish
