#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of parlot-decode --paths, --path-of and --folded on synthetic
# traces written by make_trace.
#
#   decoder/tests/test_paths.sh [-q]
#
# Uses $PARLOT_DECODE and $MAKE_TRACE if set, else builds both (with $CC,
# default cc) from the source tree into a temporary directory.  Needs
# python3.
#
# The oracle is an independent Python model: it reads make_trace's own
# listing of the events it encoded (with function IDs, --ids 1) and its
# table of the functions it defined (--table), tells apart functions with
# the same object and name the way the decoder documents it (by address,
# "NAME #2"...), and replays every thread's stack to count the calls per
# call path and compute each path's stack tag (FNV-1a 64 of the recorded
# name, a 0 byte and the object's base name; T0 = 0, Tk = Tk-1 * 11 xor
# ident(fk), modulo 2^64).
#
# What is checked, for several seeds, thread counts, codecs, a forked
# thread (inherited frames are on the stack but are not calls), a bounded
# deep recursion, two traces read together, names as recorded
# (--no-demangle):
#  - --paths --top=0 is byte for byte the model's rows (by decreasing
#    count, then path), followed by its collision sections (tags that two
#    or more distinct paths share: here, paths through two functions with
#    the same object and name, which have the same identity); stderr is
#    the one warning line exactly when there are collisions; exit 0;
#  - --top=N gives the first N rows and the same collision sections, and
#    20 rows by default;
#  - --folded is byte for byte the model's "path count" lines, by path;
#  - --path-of for the tags of the most frequent paths, of colliding
#    paths (all of them printed, with a warning), of a path that only
#    inherited frames make (count 0): the model's rows; a tag that no path
#    has: nothing on stdout, the message on stderr, exit 1;
#  - the sum of the counts is the number of calls; some case has a
#    collision (else the test no longer tests collisions);
#  - usage errors: a bad --path-of or --top argument exits 2.
# Exit status: 0 if all passed, 1 otherwise.

. "$(dirname "$0")/testlib.sh"

command -v python3 >/dev/null 2>&1 || { echo "# python3 is needed"; exit 1; }

need_tool parlot-decode make_trace


# ---- The model --------------------------------------------------------------

cat >"$tmp/model.py" <<'EOF'
"""Call paths from make_trace listings (see test_paths.sh).

usage: model.py OUTDIR DEMANGLE TABLE LISTING FORK [TABLE LISTING FORK]...
writes OUTDIR/paths (--paths --top=0), OUTDIR/folded, OUTDIR/calls (total),
OUTDIR/collisions (their number), OUTDIR/tags (tags to try with --path-of,
one per line) and, per tag, OUTDIR/path-of.TAG (the expected output)."""
import os
import sys

M64 = (1 << 64) - 1


def unescape(s):
    """make_trace's (and parlot-decode's) name escaping, undone."""
    out, i = bytearray(), 0
    while i < len(s):
        if s[i] != 0x5c:
            out.append(s[i])
            i += 1
            continue
        c = s[i + 1:i + 2]
        if c == b't':
            out.append(9)
        elif c == b'n':
            out.append(10)
        elif c == b'\\':
            out.append(0x5c)
        elif c == b'x':
            out.append(int(s[i + 2:i + 4], 16))
            i += 2
        else:
            raise ValueError('bad escape in %r' % s)
        i += 2
    return bytes(out)


def ident(raw_name, raw_object):
    h = 0xcbf29ce484222325
    for b in raw_name + b'\0' + raw_object.rsplit(b'/', 1)[-1]:
        h = ((h ^ b) * 0x100000001b3) & M64
    return h


class Model:
    def __init__(self, demangle):
        self.demangle = demangle
        self.display = {}         # function key -> label as printed
        self.ident = {}           # function key -> identity
        # the tree: node 0 is the empty path
        self.parent, self.fn, self.tag, self.calls = [0], [None], [0], [0]
        self.child = {}
        self.total = 0

    def node(self, parent, key):
        n = self.child.get((parent, key))
        if n is None:
            n = len(self.parent)
            self.child[(parent, key)] = n
            self.parent.append(parent)
            self.fn.append(key)
            self.tag.append(((self.tag[parent] * 11) & M64) ^ self.ident[key])
            self.calls.append(0)
        return n

    def read(self, table, listing, fork):
        keys, seen = {}, {}
        with open(table, 'rb') as f:
            for line in f:
                fid, obj, raw, shown = line.rstrip(b'\n').split(b'\t')
                # same object and name: the k-th by address is "#k+1";
                # make_trace's addresses grow with the ID
                dup = seen.get((obj, raw), 0)
                seen[(obj, raw)] = dup + 1
                key = (obj, raw, dup)
                keys[int(fid)] = key
                label = shown if self.demangle else raw
                if dup:
                    label += b' #%d' % (dup + 1)
                self.display[key] = label.replace(b';', b':')
                self.ident[key] = ident(unescape(raw), unescape(obj))
        stack, thread, inherited = [0], None, 0
        with open(listing, 'rb') as f:
            for line in f:
                pid, th, kind, depth, obj, name, fid = \
                    line.rstrip(b'\n').split(b'\t')
                if th != thread:
                    assert len(stack) == 1, 'thread %s ends open' % thread
                    thread = th
                    inherited = fork if th == b'1' else 0
                key = keys[int(fid)]
                assert key[0] == obj
                if kind == b'call':
                    assert int(depth) == len(stack)
                    n = self.node(stack[-1], key)
                    stack.append(n)
                    if inherited:
                        inherited -= 1
                    else:
                        self.calls[n] += 1
                        self.total += 1
                else:
                    assert int(depth) == len(stack) - 1
                    assert self.fn[stack.pop()] == key
        assert len(stack) == 1

    def path(self, n):
        p = []
        while n:
            p.append(self.display[self.fn[n]])
            n = self.parent[n]
        return tuple(reversed(p))

    def row(self, n):
        return b'%d\t0x%016x\t%s\n' % (self.calls[n], self.tag[n],
                                       b';'.join(self.path(n)))

    def write(self, out):
        nodes = range(1, len(self.parent))
        path = {n: self.path(n) for n in nodes}
        called = sorted((n for n in nodes if self.calls[n]),
                        key=lambda n: (-self.calls[n], path[n]))
        by_tag = {}
        for n in nodes:
            by_tag.setdefault(self.tag[n], []).append(n)
        coll = b''
        ncoll = 0
        for tag in sorted(by_tag):
            ns = sorted(by_tag[tag], key=lambda n: path[n])
            if len(ns) < 2:
                continue
            ncoll += 1
            coll += b'# collision: tag 0x%016x is shared by %d paths\n' % (
                tag, len(ns))
            for n in ns:
                coll += b'#\t%d\t%s\n' % (self.calls[n], b';'.join(path[n]))
        with open(os.path.join(out, 'paths'), 'wb') as f:
            f.write(b'# calls\ttag\tpath\n')
            for n in called:
                f.write(self.row(n))
            f.write(coll)
        with open(os.path.join(out, 'collision-section'), 'wb') as f:
            f.write(coll)
        with open(os.path.join(out, 'folded'), 'wb') as f:
            for n in sorted(called, key=lambda n: path[n]):
                f.write(b'%s %d\n' % (b';'.join(path[n]), self.calls[n]))
        with open(os.path.join(out, 'calls'), 'w') as f:
            f.write('%d\n' % self.total)
        with open(os.path.join(out, 'collisions'), 'w') as f:
            f.write('%d\n' % ncoll)
        # tags to look up: the 3 most frequent paths, a deep one, every
        # collision, paths only inherited frames make
        tags = [self.tag[n] for n in called[:3]]
        if called:
            tags.append(self.tag[max(called, key=lambda n: len(path[n]))])
        tags += [t for t in sorted(by_tag) if len(by_tag[t]) > 1][:3]
        tags += [self.tag[n] for n in nodes if not self.calls[n]][:2]
        with open(os.path.join(out, 'tags'), 'w') as f:
            for t in dict.fromkeys(tags):
                f.write('0x%016x %d\n' % (t, len(by_tag[t])))
                with open(os.path.join(out, 'path-of.0x%016x' % t),
                          'wb') as g:
                    g.write(b'# calls\ttag\tpath\n')
                    for n in sorted(by_tag[t],
                                    key=lambda n: (-self.calls[n], path[n])):
                        g.write(self.row(n))
            # and one that no path has
            t = 0x5eed
            while t in by_tag:
                t += 1
            f.write('0x%016x 0\n' % t)


def main():
    out, demangle = sys.argv[1], sys.argv[2] == '1'
    m = Model(demangle)
    args = sys.argv[3:]
    for i in range(0, len(args), 3):
        m.read(args[i], args[i + 1], int(args[i + 2]))
    m.write(out)


main()
EOF

# ---- Cases ---------------------------------------------------------------------

# first differing line of two files, for messages
first_diff() {
   cmp "$1" "$2" 2>&1 | head -1
   diff "$1" "$2" | head -4 | cut -c1-200
}

collisions_seen=0

# case NAME DEMANGLE "MAKE_TRACE OPTIONS;FORK" ...: each further argument
# is one trace (options word-split), with its --fork depth after ';'
case_() {
   name=$1 demangle=$2
   shift 2
   d=$tmp/$name
   mkdir -p "$d"
   i=0 traces= margs= ok=1
   for spec in "$@"; do
      i=$((i + 1))
      opts=${spec%;*} fork=${spec##*;}
      # shellcheck disable=SC2086
      if ! "$MAKE_TRACE" $opts --fork "$fork" --ids 1 --table "$d/t$i.tab" \
            "$d/t$i.trace" "$d/t$i.list" "$d/t$i.exp"; then
         fail "$name: make_trace $opts failed"
         return
      fi
      traces="$traces $d/t$i.trace"
      margs="$margs $d/t$i.tab $d/t$i.list $fork"
   done
   # shellcheck disable=SC2086
   if ! python3 "$tmp/model.py" "$d" "$demangle" $margs 2>"$d/model.err"; then
      fail "$name: the model failed" "$(tail -3 "$d/model.err")"
      return
   fi
   nd=
   [ "$demangle" = 0 ] && nd=--no-demangle
   ncoll=$(cat "$d/collisions")
   [ "$ncoll" -gt 0 ] && collisions_seen=$((collisions_seen + 1))
   if [ "$ncoll" = 0 ]; then
      warn=
   elif [ "$ncoll" = 1 ]; then
      warn="parlot-decode: warning: 1 stack tag is shared by more than one call path (listed at the end of the output)"
   else
      warn="parlot-decode: warning: $ncoll stack tags are shared by more than one call path (listed at the end of the output)"
   fi

   # --paths, all rows
   # shellcheck disable=SC2086
   run "$PARLOT_DECODE" "$d/out" "$d/err" --paths --top=0 $nd $traces
   if [ $rc -ne 0 ]; then
      fail "$name: --paths --top=0: exit $rc" "$(head -3 "$d/err")"
   elif ! cmp -s "$d/out" "$d/paths"; then
      fail "$name: --paths --top=0 differs from the model" \
         "$(first_diff "$d/out" "$d/paths")"
   elif [ "$(cat "$d/err")" != "$warn" ]; then
      fail "$name: --paths: stderr is not the expected warning" \
         "got: $(head -c 300 "$d/err")" "want: $warn"
   else
      pass "$name: --paths --top=0 ($(grep -vc '^#' "$d/out") paths, $ncoll collisions)"
   fi
   sum=$(awk -F'\t' '!/^#/ { s += $1 } END { print s + 0 }' "$d/out")
   if [ "$sum" = "$(cat "$d/calls")" ]; then
      pass "$name: --paths counts add up to the calls ($sum)"
   else
      fail "$name: --paths counts add up to $sum, not $(cat "$d/calls")"
   fi

   # --top=5 and the default (20)
   for t in 5 default; do
      n=$t topt=--top=$t
      [ $t = default ] && n=20 topt=
      { sed -n "1,$((n + 1))p" "$d/paths" | grep -v '^# collision' \
           | grep -v '^#	'; cat "$d/collision-section"; } >"$d/want.top"
      # (the model's rows are never shorter than n here)
      # shellcheck disable=SC2086
      run "$PARLOT_DECODE" "$d/out" "$d/err" --paths $topt $nd $traces
      if [ $rc -eq 0 ] && cmp -s "$d/out" "$d/want.top"; then
         pass "$name: --paths ${topt:-(default top)}"
      else
         fail "$name: --paths ${topt:-(default top)}: exit $rc or output" \
            "$(first_diff "$d/out" "$d/want.top")"
      fi
   done

   # --folded
   # shellcheck disable=SC2086
   run "$PARLOT_DECODE" "$d/out" "$d/err" --folded $nd $traces
   if [ $rc -eq 0 ] && [ ! -s "$d/err" ] && cmp -s "$d/out" "$d/folded"; then
      pass "$name: --folded ($(wc -l <"$d/out") lines)"
   else
      fail "$name: --folded: exit $rc, or stderr, or output differs" \
         "$(head -c 300 "$d/err")" "$(first_diff "$d/out" "$d/folded")"
   fi

   # --path-of
   while read -r tag npaths; do
      # shellcheck disable=SC2086
      run "$PARLOT_DECODE" "$d/out" "$d/err" --path-of="$tag" $nd $traces
      if [ "$npaths" = 0 ]; then
         if [ $rc -eq 1 ] && [ ! -s "$d/out" ] && [ "$(cat "$d/err")" = \
              "parlot-decode: tag $tag occurs in none of the traces" ]; then
            pass "$name: --path-of=$tag (no such path): exit 1, message"
         else
            fail "$name: --path-of=$tag (no such path): exit $rc" \
               "$(head -c 300 "$d/err")"
         fi
         continue
      fi
      want=
      [ "$npaths" -gt 1 ] && want="parlot-decode: warning: tag $tag is shared by $npaths call paths"
      if [ $rc -eq 0 ] && cmp -s "$d/out" "$d/path-of.$tag" \
         && [ "$(cat "$d/err")" = "$want" ]; then
         pass "$name: --path-of=$tag ($npaths path(s))"
      else
         fail "$name: --path-of=$tag: exit $rc, stderr or output" \
            "$(head -c 300 "$d/err")" "$(first_diff "$d/out" "$d/path-of.$tag")"
      fi
   done <"$d/tags"
}

# decimal tags are accepted too
case_ small 1 "--seed 11 --threads 2 --events 600 --functions 20 --deep 0;0"
tag=$(sed -n 1p "$tmp/small/tags" | cut -d' ' -f1)
run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" --path-of="$(python3 -c "print($tag)")" \
   "$tmp/small/t1.trace"
if [ $rc -eq 0 ] && cmp -s "$tmp/out" "$tmp/small/path-of.$tag"; then
   pass "--path-of with a decimal tag"
else
   fail "--path-of with a decimal tag: exit $rc" "$(head -c 300 "$tmp/err")"
fi

case_ mixed 1 \
   "--seed 1 --threads 3 --events 3000 --functions 150 --deep 60 --twin 8;0"
case_ lzze-fork 1 \
   "--seed 2 --threads 5 --events 2000 --functions 300 --codec lzze --deep 40 \
    --twin 10;9"
case_ raw-nodemangle 0 \
   "--seed 3 --threads 4 --events 2500 --functions 200 --codec raw --deep 30;0"
case_ small-chunks 1 \
   "--seed 4 --threads 3 --events 2000 --functions 130 --chunk 7 --deep 100;3"
case_ two-traces 1 \
   "--seed 5 --threads 2 --events 2500 --functions 150 --pid 100 --deep 0 \
    --twin 5;0" \
   "--seed 6 --threads 3 --events 2500 --functions 150 --pid 101 --deep 20 \
    --twin 5;5"

if [ $collisions_seen -gt 0 ]; then
   pass "collisions were tested ($collisions_seen cases have some)"
else
   fail "no case has a tag collision: choose other seeds"
fi

# ---- Usage errors ---------------------------------------------------------------

t1=$tmp/small/t1.trace
for args in "--path-of=xyz" "--path-of=" "--path-of=-1" \
            "--path-of=0x10000000000000000" "--top=-1" "--top=abc" \
            "--top=" "--paths --top=1x"; do
   # shellcheck disable=SC2086
   run "$PARLOT_DECODE" "$tmp/out" "$tmp/err" $args "$t1"
   if [ $rc -eq 2 ] && grep -q "^parlot-decode: " "$tmp/err"; then
      pass "usage error: $args: exit 2"
   else
      fail "usage error: $args: exit $rc" "$(head -c 300 "$tmp/err")"
   fi
done

finish
