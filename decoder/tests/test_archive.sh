#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of trace archives: parlot-merge, parlot-split, and archives read by
# parlot-decode and parlot-annotate.
#
#   decoder/tests/test_archive.sh [-q]
#
# Uses $PARLOT_DECODE, $PARLOT_ANNOTATE, $PARLOT_MERGE, $PARLOT_SPLIT and
# $MAKE_TRACE if set, else builds them (with $CC, default cc) from the
# source tree into a temporary directory.  Unless NO_SANITIZE=1, damaged
# archives are also read by ASan+UBSan builds of parlot-decode and
# parlot-split.
#
# What is checked:
#  - 260 small traces (varied seeds, thread counts, event counts) merged
#    into one archive; --list names them all, in order; parlot-split
#    restores every file byte for byte; an archive given to parlot-merge
#    is flattened (its members copied);
#  - parlot-decode --events on the archive prints exactly the
#    concatenation of what it prints for each loose trace; --xml,
#    --callgrind, --folded and parlot-annotate print the same for the
#    archive as for the loose files, but for the file names
#    (ARCHIVE:MEMBER instead of MEMBER);
#  - all of these under `ulimit -n 16`, over the 260 loose traces and
#    over the archive;
#  - a damaged member inside an archive is reported as
#    "ARCHIVE:MEMBER: offset N: message" with the offset and message of
#    the loose trace, after its decodable part;
#  - damaged archives (cut at many offsets, every byte of the index and
#    trailer flipped in turn, a member offset moved with the index CRC
#    fixed up, a member name with '/' or '..'): exit 1, exactly one
#    stderr line "PROG: ARCHIVE: offset N: message", no crash or
#    sanitizer report; what parlot-split recovers from the member headers
#    is each member byte for byte, and a member whose header is damaged
#    is lost; a cut archive of whole members is read and restored up to
#    the cut;
#  - parlot-merge refuses bad inputs (missing, not a trace, duplicate base
#    names) and an output that is an input, leaving no archive and no
#    temporary file; parlot-split never replaces files without --force;
#  - 4,096 traces (a run of 4,096 ranks) merged and decoded under
#    `ulimit -n 64`: --events is make_trace's listings, --info counts all;
#  - usage errors of both programs: exit 2, one line.
# Exit status: 0 if all passed, 1 otherwise.

. "$(dirname "$0")/testlib.sh"
check() {   # check NAME CONDITION-STATUS [DETAILS...]
   name=$1 st=$2
   shift 2
   if [ "$st" = 0 ]; then pass "$name"; else fail "$name" "$@"; fi
}

need_tool parlot-decode parlot-annotate parlot-merge parlot-split make_trace

san_builds parlot-decode parlot-split
PARLOT_PROGRESS_DELAY_MS=100000000; export PARLOT_PROGRESS_DELAY_MS



# ---- 260 traces ----------------------------------------------------------

N=260
mkdir "$tmp/loose" "$tmp/out"
i=1
gen_ok=0
while [ $i -le $N ]; do
   name=$(printf 'rank%03d.parlot' $i)
   $MAKE_TRACE --seed $i --threads $((i % 4 + 1)) --events $((20 + i % 50)) \
      --functions $((10 + i % 40)) --deep 0 --pid $((10000 + i)) \
      "$tmp/loose/$name" none "$tmp/expect" >/dev/null 2>&1 || gen_ok=1
   i=$((i + 1))
done
check "make_trace wrote $N traces" $gen_ok
cd "$tmp/loose" || exit 1
LOOSE=$(ls)                   # rank001 ... rank260, in order
A=$tmp/run.parlot-archive

$PARLOT_MERGE -o "$A" $LOOSE >"$tmp/o" 2>"$tmp/e"
rc=$?
check "parlot-merge of $N traces: exit 0, silent" \
   $([ $rc = 0 ] && [ ! -s "$tmp/e" ] && [ -f "$A" ]; echo $?) "exit $rc" \
   "$(head -3 "$tmp/e")"
leftover=$(ls "$tmp" | grep -c '^run\.parlot-archive\.')
check "no temporary file left" $([ "$leftover" = 0 ]; echo $?)

$PARLOT_SPLIT --list "$A" >"$tmp/list" 2>"$tmp/e"
rc=$?
cut -f4 "$tmp/list" >"$tmp/names"
printf '%s\n' $LOOSE >"$tmp/names.exp"
check "--list names the $N members in order" \
   $([ $rc = 0 ] && cmp -s "$tmp/names" "$tmp/names.exp"; echo $?) "exit $rc"
# the listed sizes are the files'
bad=0
while IFS="$(printf '\t')" read -r off size crc name; do
   [ "$(wc -c <"$name")" -eq "$size" ] || bad=1
done <"$tmp/list"
check "--list sizes match the files" $bad

mkdir "$tmp/split"
$PARLOT_SPLIT -C "$tmp/split" "$A" 2>"$tmp/e"
rc=$?
bad=0
for f in $LOOSE; do cmp -s "$f" "$tmp/split/$f" || bad=1; done
[ "$(ls "$tmp/split" | wc -l)" -eq $N ] || bad=1
check "parlot-split restores the $N files byte for byte" \
   $([ $rc = 0 ] && [ $bad = 0 ]; echo $?) "exit $rc" "$(head -3 "$tmp/e")"

# never replace without --force; nothing written then
cp "$tmp/split/rank007.parlot" "$tmp/keep"
printf 'mine\n' >"$tmp/split/rank007.parlot"
rm "$tmp/split/rank100.parlot"
$PARLOT_SPLIT -C "$tmp/split" "$A" 2>"$tmp/e"
rc=$?
check "split refuses an existing file without --force, writes nothing" \
   $([ $rc = 1 ] && stderr_line "$tmp/e" "parlot-split: $tmp/split/" >/dev/null \
     && [ "$(cat "$tmp/split/rank007.parlot")" = mine ] \
     && [ ! -e "$tmp/split/rank100.parlot" ]; echo $?) "exit $rc" \
   "$(cat "$tmp/e")"
$PARLOT_SPLIT --force -C "$tmp/split" "$A" 2>"$tmp/e"
rc=$?
check "split --force replaces files" \
   $([ $rc = 0 ] && cmp -s "$tmp/keep" "$tmp/split/rank007.parlot" \
     && cmp -s rank100.parlot "$tmp/split/rank100.parlot" \
     && [ "$(ls "$tmp/split" | wc -l)" -eq $N ]; echo $?) "exit $rc"

# flattening: an archive as an input contributes its members
$PARLOT_MERGE -o "$tmp/flat.ar" "$tmp/split/rank001.parlot" 2>/dev/null
mv "$tmp/flat.ar" "$tmp/one.ar"
mkdir "$tmp/two"
cp rank002.parlot rank003.parlot "$tmp/two/"
$PARLOT_MERGE -o "$tmp/flat.ar" "$tmp/one.ar" "$tmp/two/rank002.parlot" \
   "$tmp/two/rank003.parlot" 2>"$tmp/e"
rc=$?
$PARLOT_SPLIT --list "$tmp/flat.ar" | cut -f4 >"$tmp/o"
check "an archive given to parlot-merge is flattened" \
   $([ $rc = 0 ] && [ "$(cat "$tmp/o" | tr '\n' ' ')" = \
     "rank001.parlot rank002.parlot rank003.parlot " ]; echo $?) \
   "exit $rc" "$(cat "$tmp/o" "$tmp/e")"

# ---- reading archives --------------------------------------------------

# --events: the concatenation of the members' outputs
: >"$tmp/events.exp"
for f in $LOOSE; do $PARLOT_DECODE --events "$f" >>"$tmp/events.exp"; done
$PARLOT_DECODE --events "$A" >"$tmp/events.ar" 2>"$tmp/e"
rc=$?
check "--events ARCHIVE = concatenation of the members' outputs" \
   $([ $rc = 0 ] && [ ! -s "$tmp/e" ] && [ -s "$tmp/events.exp" ] \
     && cmp -s "$tmp/events.exp" "$tmp/events.ar"; echo $?) "exit $rc" \
   "$(head -3 "$tmp/e")"

# file names: "ARCHIVE:MEMBER" for the archive, "MEMBER" loose (run from
# the loose directory); strip the archive part for comparison
strip() { sed "s#$A:##g" "$1"; }
for mode in --xml --callgrind --folded --paths; do
   $PARLOT_DECODE $mode $LOOSE >"$tmp/m.loose" 2>"$tmp/e1"
   r1=$?
   $PARLOT_DECODE $mode "$A" >"$tmp/m.ar" 2>"$tmp/e2"
   r2=$?
   strip "$tmp/m.ar" >"$tmp/m.ar.s"
   check "$mode on the archive = on the loose files" \
      $([ $r1 = 0 ] && [ $r2 = 0 ] && cmp -s "$tmp/m.loose" "$tmp/m.ar.s"; \
        echo $?) "exit $r1 / $r2" "$(diff "$tmp/m.loose" "$tmp/m.ar.s" | head -5)"
done
grep -q "file=\"$A:rank001.parlot\"" "$tmp/m.ar" 2>/dev/null
$PARLOT_DECODE --xml "$A" | grep -q "file=\"$A:rank260.parlot\""
check "--xml names a member's file ARCHIVE:MEMBER" $?

$PARLOT_ANNOTATE $LOOSE >"$tmp/an.loose" 2>"$tmp/e1"
r1=$?
$PARLOT_ANNOTATE "$A" >"$tmp/an.ar" 2>"$tmp/e2"
r2=$?
strip "$tmp/an.ar" >"$tmp/an.ar.s"
check "parlot-annotate on the archive = on the loose files" \
   $([ $r1 = 0 ] && [ $r2 = 0 ] && cmp -s "$tmp/an.loose" "$tmp/an.ar.s"; \
     echo $?) "exit $r1 / $r2" "$(diff "$tmp/an.loose" "$tmp/an.ar.s" | head -5)"

# a few open files suffice, whatever the number of traces
for what in loose archive; do
   if [ $what = loose ]; then set -- $LOOSE; else set -- "$A"; fi
   ( ulimit -n 16 || exit 3
     $PARLOT_DECODE --events "$@" >"$tmp/u.events" 2>"$tmp/u.e" || exit 1
     $PARLOT_DECODE --xml "$@" >"$tmp/u.xml" 2>>"$tmp/u.e" || exit 1
     $PARLOT_DECODE --callgrind "$@" >"$tmp/u.cg" 2>>"$tmp/u.e" || exit 1
     $PARLOT_ANNOTATE "$@" >"$tmp/u.an" 2>>"$tmp/u.e" || exit 1 )
   rc=$?
   ok=1
   if [ $rc = 0 ] && cmp -s "$tmp/u.events" "$tmp/events.exp"; then
      if [ $what = loose ]; then
         cmp -s "$tmp/u.an" "$tmp/an.loose" && ok=0
      else
         cmp -s "$tmp/u.an" "$tmp/an.ar" && ok=0
      fi
   fi
   check "ulimit -n 16: decode and annotate $N traces ($what)" $ok \
      "exit $rc" "$(head -3 "$tmp/u.e")"
done
( ulimit -n 16 || exit 3; $PARLOT_MERGE -o "$tmp/u.ar" $LOOSE \
  && $PARLOT_SPLIT -C "$tmp/out" "$tmp/u.ar" ) 2>"$tmp/e"
rc=$?
check "ulimit -n 16: merge and split $N traces" \
   $([ $rc = 0 ] && cmp -s "$tmp/u.ar" "$A" \
     && [ "$(ls "$tmp/out" | wc -l)" -eq $N ]; echo $?) "exit $rc" \
   "$(head -3 "$tmp/e")"

# ---- a damaged member ----------------------------------------------------

mkdir "$tmp/dmg"
cd "$tmp/dmg" || exit 1
$MAKE_TRACE --seed 5 --threads 2 --events 300 --deep 0 --variant crc \
   bad.parlot none "$tmp/expect" >/dev/null 2>&1
cp "$tmp/loose/rank001.parlot" "$tmp/loose/rank002.parlot" .
$PARLOT_DECODE --events bad.parlot >"$tmp/d.loose" 2>"$tmp/d.e1"
r1=$?
$PARLOT_MERGE -o "$tmp/dmg.ar" rank001.parlot bad.parlot rank002.parlot
$SAN_DECODE --events "$tmp/dmg.ar" >"$tmp/d.ar" 2>"$tmp/d.e2"
r2=$?
loose_msg=$(sed 's/^parlot-decode: bad\.parlot: //' "$tmp/d.e1")
{ $PARLOT_DECODE --events rank001.parlot; cat "$tmp/d.loose"
  $PARLOT_DECODE --events rank002.parlot; } >"$tmp/d.exp"
check "a damaged member: ARCHIVE:MEMBER: offset N, the loose trace's message" \
   $([ $r1 = 1 ] && [ $r2 = 1 ] \
     && [ "$(cat "$tmp/d.e2")" = "parlot-decode: $tmp/dmg.ar:bad.parlot: $loose_msg" ] \
     && cmp -s "$tmp/d.exp" "$tmp/d.ar"; echo $?) "exit $r1 / $r2" \
   "loose: $(cat "$tmp/d.e1")" "archive: $(cat "$tmp/d.e2")"
case $loose_msg in "offset "[0-9]*) r=0 ;; *) r=1 ;; esac
check "  ... with an offset relative to the member" $r "$loose_msg"
$PARLOT_ANNOTATE "$tmp/dmg.ar" >/dev/null 2>"$tmp/d.e3"
r3=$?
check "parlot-annotate: the same line for the damaged member" \
   $([ $r3 = 1 ] && [ "$(cat "$tmp/d.e3")" = \
     "parlot-annotate: $tmp/dmg.ar:bad.parlot: $loose_msg" ]; echo $?) \
   "exit $r3" "$(cat "$tmp/d.e3")"
# split restores it as it is (its CRC is the archive's, not the trace's)
mkdir "$tmp/dmg/out"
$PARLOT_SPLIT -C "$tmp/dmg/out" "$tmp/dmg.ar"
check "split restores a damaged trace byte for byte" \
   $(cmp -s bad.parlot out/bad.parlot; echo $?)

# ---- damaged archives ------------------------------------------------------

# a small archive of three traces
S=$tmp/small.ar
cd "$tmp/loose" || exit 1
$PARLOT_MERGE -o "$S" rank001.parlot rank002.parlot rank003.parlot
size=$(wc -c <"$S")

# bad ARCHIVE: exit 1, one line "PROG: ARCHIVE: offset N: ...", no
# sanitizer report, no output for an unreadable archive
bad_archive() {
   what=$1 f=$2
   $TIMEOUT "$SAN_DECODE" --events "$f" >"$tmp/b.o" 2>"$tmp/b.e"
   rc=$?
   if [ $rc != 1 ] || ! stderr_line "$tmp/b.e" "parlot-decode: $f: offset " \
        >"$tmp/b.why"; then
      fail "$what: parlot-decode" "exit $rc" "$(cat "$tmp/b.why")" \
         "$(head -c 600 "$tmp/b.e")"
      return 1
   fi
   rm -rf "$tmp/b.dir"
   mkdir -p "$tmp/b.dir"
   $TIMEOUT "$SAN_SPLIT" -C "$tmp/b.dir" "$f" >/dev/null 2>"$tmp/b.e"
   rc=$?
   if [ $rc != 1 ] || ! stderr_line "$tmp/b.e" "parlot-split: $f: offset " \
        >"$tmp/b.why"; then
      fail "$what: parlot-split" "exit $rc" "$(cat "$tmp/b.why")" \
         "$(head -c 600 "$tmp/b.e")"
      return 1
   fi
   # what it recovered from the member headers is each member, whole
   for m in $(ls "$tmp/b.dir"); do
      if ! cmp -s "$tmp/b.dir/$m" "$tmp/loose/$m"; then
         fail "$what: parlot-split restored $m, not the member"
         return 1
      fi
   done
   return 0
}

# truncated: at many offsets (not at the end of a member: that is still an
# archive only if the index follows)
bad=0
for cut in 0 1 7 8 15 16 17 40 100 1000 $((size / 2)) $((size - 200)) \
           $((size - 33)) $((size - 32)) $((size - 31)) $((size - 1)); do
   [ $cut -lt $size ] || continue
   head -c $cut "$S" >"$tmp/cut.ar"
   if [ $cut -lt 8 ]; then
      # too short for the magic: not recognised as an archive, read as a
      # trace (one line, exit 1)
      $SAN_DECODE --events "$tmp/cut.ar" >/dev/null 2>"$tmp/b.e"
      rc=$?
      { [ $rc = 1 ] && stderr_line "$tmp/b.e" "parlot-decode: $tmp/cut.ar: " \
          >/dev/null; } || { bad=1; echo "# cut at $cut: exit $rc"; }
      continue
   fi
   bad_archive "archive cut at $cut" "$tmp/cut.ar" || bad=1
done
check "truncated archives: exit 1, one line (decode and split)" $bad
grep -q 'trailer' "$tmp/b.e"
check "  ... a cut archive is reported as truncated: no trailer" $? \
   "$(cat "$tmp/b.e")"

# cut short, an archive of whole members keeps every member before the
# cut: read (events as the loose traces'), and restored by parlot-split
W=$tmp/whole.ar
$PARLOT_MERGE --share-tables=no -o "$W" rank001.parlot rank002.parlot rank003.parlot
m3=$($PARLOT_SPLIT --list "$W" | sed -n 3p | cut -f1)
head -c $((m3 + 100)) "$W" >"$tmp/wcut.ar"
$SAN_DECODE --events "$tmp/wcut.ar" >"$tmp/w.o" 2>"$tmp/w.e"
rc=$?
$PARLOT_DECODE --events rank001.parlot rank002.parlot >"$tmp/w.want"
check "a cut archive of whole members: its complete members are read" \
   $([ $rc = 1 ] && cmp -s "$tmp/w.o" "$tmp/w.want" && stderr_line "$tmp/w.e" \
       "parlot-decode: $tmp/wcut.ar: offset " >/dev/null \
     && grep -q "; 2 members recovered from their headers, the others lost\$" "$tmp/w.e"; \
     echo $?) "exit $rc" "$(cat "$tmp/w.e")"
rm -rf "$tmp/w.dir"
mkdir "$tmp/w.dir"
$SAN_SPLIT -C "$tmp/w.dir" "$tmp/wcut.ar" 2>"$tmp/w.e"
rc=$?
check "  ... and parlot-split restores them, byte for byte" \
   $([ $rc = 1 ] && [ "$(ls "$tmp/w.dir" | tr '\n' ' ')" = "rank001.parlot rank002.parlot " ] \
     && cmp -s "$tmp/w.dir/rank001.parlot" rank001.parlot \
     && cmp -s "$tmp/w.dir/rank002.parlot" rank002.parlot; echo $?) \
   "exit $rc" "$(cat "$tmp/w.e")" "$(ls "$tmp/w.dir")"

# every byte of the index and trailer flipped in turn
ixoff=$(od -An -t u8 -j $((size - 32)) -N 8 "$S" | tr -d ' ')
bad=0 nflip=0
off=$ixoff
while [ $off -lt $size ]; do
   cp "$S" "$tmp/flip.ar"
   b=$(od -An -t u1 -j $off -N 1 "$S" | tr -d ' ')
   printf "$(printf '\\%03o' $((b ^ 0x41)))" \
      | dd of="$tmp/flip.ar" bs=1 seek=$off conv=notrunc 2>/dev/null
   bad_archive "index byte $off flipped" "$tmp/flip.ar" || bad=1
   nflip=$((nflip + 1))
   off=$((off + 1))
done
check "each of the $nflip index and trailer bytes flipped: exit 1, one line" $bad
cp "$S" "$tmp/flip.ar"
printf 'X' | dd of="$tmp/flip.ar" bs=1 seek=$((ixoff + 20)) conv=notrunc \
   2>/dev/null
$PARLOT_DECODE --events "$tmp/flip.ar" 2>&1 >/dev/null | grep -q 'CRC mismatch'
check "  ... a flipped index byte is a CRC mismatch" $?

# rewrite the index with python: a moved member offset, names with '/'
# and '..', overlapping members (CRCs fixed up, so only the checks of
# offsets and names can catch them)
if command -v python3 >/dev/null 2>&1; then
   for how in offset+1 offset-1 offset-huge size-huge slash dotdot dup \
              header; do
      python3 - "$S" "$tmp/ed.ar" "$how" <<'EOF'
import struct, sys, zlib
src, dst, how = sys.argv[1:4]
d = bytearray(open(src, 'rb').read())
ixoff, ixsize, count = struct.unpack_from('<QQQ', d, len(d) - 32)
# archive 2.x: a 32-byte index head, 36-byte entries and member headers
ix = ixoff + 32
ents = []
p = ix
for i in range(count):
    off, size, crc, nlen = struct.unpack_from('<QQIH', d, p)
    ents.append([p, off, size, crc, bytes(d[p + 36:p + 36 + nlen])])
    p += 36 + nlen
e = ents[1]
if how == 'offset+1':   struct.pack_into('<Q', d, e[0], e[1] + 1)
if how == 'offset-1':   struct.pack_into('<Q', d, e[0], e[1] - 1)
if how == 'offset-huge': struct.pack_into('<Q', d, e[0], 2**64 - 5)
if how == 'size-huge':  struct.pack_into('<Q', d, e[0] + 8, 2**63)
if how in ('slash', 'dotdot', 'dup'):
    new = {'slash': b'a/c.parl', 'dotdot': b'..', 'dup': ents[0][4]}[how]
    new = new[:len(e[4])].ljust(len(e[4]), b'x') if how != 'dotdot' else new
    if how == 'dotdot':
        # shorten the name: rebuild the entry
        old = e[4]
        d[e[0] + 36:e[0] + 36 + len(old)] = new
        struct.pack_into('<H', d, e[0] + 20, len(new))
        ixsize -= len(old) - len(new)
        struct.pack_into('<QQQ', d, len(d) - 32, ixoff, ixsize, count)
    else:
        d[e[0] + 36:e[0] + 36 + len(e[4])] = new
if how == 'header':     # the member header's size disagrees (its CRC too)
    h = e[1] - 36 - len(e[4])
    struct.pack_into('<Q', d, h + 8, e[2] + 1)
# fix the index CRC and the trailer's
tr = len(d) - 32
crc = zlib.crc32(bytes(d[ixoff:tr - 4])) & 0xffffffff
struct.pack_into('<I', d, tr - 4, crc)
struct.pack_into('<I', d, tr + 24, zlib.crc32(bytes(d[tr:tr + 24])) & 0xffffffff)
open(dst, 'wb').write(d)
EOF
      if bad_archive "index with a bad $how" "$tmp/ed.ar"; then
         pass "index with a bad $how: exit 1, one line ($(sed 's/.*offset [0-9]*: //' "$tmp/b.e" | cut -c1-60))"
      fi
   done
   # the member header that disagrees: that member is lost, the others
   # are recovered from their headers (byte for byte: bad_archive)
   [ "$(ls "$tmp/b.dir" | tr '\n' ' ')" = "rank001.parlot rank003.parlot " ]
   check "a member whose header is damaged is lost, the others recovered" $? \
      "$(ls "$tmp/b.dir")" "$(cat "$tmp/b.e")"
else
   echo "# no python3: crafted-index tests skipped"
fi

# a member's data damaged (index intact): decode reports the member (the
# trace's own CRCs), split refuses to restore it
cp "$S" "$tmp/data.ar"
m2=$($PARLOT_SPLIT --list "$S" | sed -n 2p | cut -f1)
printf 'Z' | dd of="$tmp/data.ar" bs=1 seek=$((m2 + 200)) conv=notrunc \
   2>/dev/null
mkdir "$tmp/data"
$SAN_SPLIT -C "$tmp/data" "$tmp/data.ar" 2>"$tmp/e"
rc=$?
check "split: a member with damaged data is not restored, the others are" \
   $([ $rc = 1 ] && stderr_line "$tmp/e" \
       "parlot-split: $tmp/data.ar:rank002.parlot: offset 0: CRC mismatch" \
       >/dev/null \
     && [ "$(ls "$tmp/data" | tr '\n' ' ')" = "rank001.parlot rank003.parlot " ]; \
     echo $?) "exit $rc" "$(cat "$tmp/e")"

# ---- parlot-merge refusals ------------------------------------------------

cd "$tmp/loose" || exit 1
printf 'not a trace\n' >"$tmp/text"
mkdir -p "$tmp/d2"
cp rank001.parlot "$tmp/d2/"
merge_refuses() {
   what=$1 want=$2 prefix=$3
   shift 3
   rm -f "$tmp/r.ar"
   $PARLOT_MERGE -o "$tmp/r.ar" "$@" >/dev/null 2>"$tmp/e"
   rc=$?
   left=$(ls "$tmp" | grep -c '^r\.ar')
   check "merge refuses $what: exit $want, one line, no archive" \
      $([ $rc = $want ] && stderr_line "$tmp/e" "$prefix" >/dev/null \
        && [ "$left" = 0 ]; echo $?) "exit $rc, $left files" "$(cat "$tmp/e")"
}
merge_refuses "a missing input" 1 "parlot-merge: $tmp/nope: " \
   rank001.parlot "$tmp/nope"
merge_refuses "a file that is not a trace" 1 "parlot-merge: $tmp/text: " \
   rank001.parlot "$tmp/text"
mkdir -p "$tmp/d3"
merge_refuses "a directory without traces" 1 "parlot-merge: $tmp/d3: " \
   rank001.parlot "$tmp/d3"
rm -f "$tmp/dir.ar"
$PARLOT_MERGE -o "$tmp/dir.ar" "$tmp/d2" 2>"$tmp/e" &&
   $SAN_DECODE --events "$tmp/dir.ar" >"$tmp/dir.ev" 2>>"$tmp/e" &&
   $SAN_DECODE --events "$tmp/d2/rank001.parlot" >"$tmp/d2.ev" 2>>"$tmp/e"
check "merge takes a directory: its trace, decoded alike" \
   $(cmp -s "$tmp/dir.ev" "$tmp/d2.ev" && [ ! -s "$tmp/e" ]; echo $?) \
   "$(head -3 "$tmp/e")"
# a directory stands for its traces: d2's rank001.parlot clashes by name
merge_refuses "a directory whose trace has an input's name" 1 \
   "parlot-merge: $tmp/d2/rank001.parlot: " rank001.parlot "$tmp/d2"
merge_refuses "two inputs with the same base name" 1 "parlot-merge: " \
   rank001.parlot "$tmp/d2/rank001.parlot"
merge_refuses "a bad archive" 1 "parlot-merge: $tmp/flip.ar: offset " \
   rank001.parlot "$tmp/flip.ar"
cp "$S" "$tmp/in.ar"
cp "$tmp/in.ar" "$tmp/in.ar.keep"
$PARLOT_MERGE -o "$tmp/in.ar" rank005.parlot "$tmp/in.ar" 2>"$tmp/e"
rc=$?
check "merge refuses an output that is an input (exit 2), leaves it alone" \
   $([ $rc = 2 ] && cmp -s "$tmp/in.ar" "$tmp/in.ar.keep" \
     && stderr_line "$tmp/e" "parlot-merge: $tmp/in.ar: " >/dev/null; echo $?) \
   "exit $rc" "$(cat "$tmp/e")"
$PARLOT_MERGE -o /nonexistent-dir/x.ar rank001.parlot 2>"$tmp/e"
rc=$?
check "merge into an unwritable place: exit 1, one line" \
   $([ $rc = 1 ] && stderr_line "$tmp/e" "parlot-merge: /nonexistent-dir/x.ar: " \
     >/dev/null; echo $?) "exit $rc" "$(cat "$tmp/e")"

# ---- usage errors ---------------------------------------------------------

usage_error() {
   what=$1
   shift
   "$@" >/dev/null 2>"$tmp/e"
   rc=$?
   check "usage error, $what: exit 2, one line" \
      $([ $rc = 2 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ]; echo $?) "exit $rc" \
      "$(cat "$tmp/e")"
}
usage_error "merge without -o" $PARLOT_MERGE rank001.parlot
# ---- at scale: 4,096 members ---------------------------------------------
# A run of 4,096 ranks: its traces merged and decoded with at most 64 files
# open (ulimit -n 64); --events of the archive is the concatenation of
# make_trace's own listings, and --info counts every trace and event.
mkdir "$tmp/big"
i=1
while [ $i -le 4096 ]; do
   $MAKE_TRACE --seed $i --threads 1 --events 12 --functions 6 --deep 0 \
      --pid $((20000 + i)) "$tmp/big/r$i.trace" "$tmp/big/r$i.list" \
      "$tmp/big/exp" 2>/dev/null || break
   i=$((i + 1))
done
check "make_trace: 4,096 traces" $([ $i = 4097 ]; echo $?) "stopped at $i"
i=1
while [ $i -le 4096 ]; do cat "$tmp/big/r$i.list"; i=$((i + 1)); done \
   >"$tmp/big.events.exp"
( ulimit -n 64 || exit 3
  cd "$tmp/big" && $PARLOT_MERGE -o "$tmp/big.parlot" $(i=1; while [ $i -le 4096 ]; do
     echo "r$i.trace"; i=$((i + 1)); done) || exit 1
  $PARLOT_DECODE --events "$tmp/big.parlot" >"$tmp/big.events" || exit 1
  $PARLOT_DECODE --info -j2 "$tmp/big.parlot" >"$tmp/big.info" || exit 1 ) \
  2>"$tmp/big.e"
rc=$?
want="4096 4096 $(wc -l <"$tmp/big.events.exp" | tr -d ' ')"
got=$(sed -n 's/^== total: \([0-9,]*\) traces, \([0-9,]*\) threads, \([0-9,]*\) events.*/\1 \2 \3/p' \
      "$tmp/big.info" | tr -d ,)
check "ulimit -n 64: 4,096 traces merged, decoded (--events, --info -j2)" \
   $([ $rc = 0 ] && cmp -s "$tmp/big.events" "$tmp/big.events.exp" &&
     [ "$got" = "$want" ]; echo $?) "exit $rc: $(head -2 "$tmp/big.e")" \
   "traces, threads, events: '$got', expected '$want'"
rm -rf "$tmp/big"

usage_error "merge without inputs" $PARLOT_MERGE -o "$tmp/x.ar"
usage_error "merge, unknown option" $PARLOT_MERGE --bogus -o "$tmp/x.ar" \
   rank001.parlot
usage_error "merge -o without argument" $PARLOT_MERGE -o
usage_error "split without archive" $PARLOT_SPLIT
usage_error "split, two archives" $PARLOT_SPLIT "$S" "$S"
usage_error "split, unknown option" $PARLOT_SPLIT -x "$S"
for p in "$PARLOT_MERGE" "$PARLOT_SPLIT"; do
   "$p" --help >"$tmp/o" 2>&1 && grep -q '^usage: ' "$tmp/o"
   check "$(basename "$p") --help" $?
   "$p" --version >"$tmp/o" 2>&1 && grep -q 'ParLoT' "$tmp/o"
   check "$(basename "$p") --version" $?
done

finish always
