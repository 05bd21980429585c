#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of archives whose members share their tables (archive format 2.0,
# docs/trace-format.md 11.6): what parlot-merge stores once, readers see
# again exactly as in the loose traces.
#
#   decoder/tests/test_archive_tables.sh [-q]
#
# Uses $PARLOT_DECODE, $PARLOT_MERGE, $PARLOT_SPLIT and $MAKE_TRACE if set,
# else builds them.  Unless NO_SANITIZE=1, damaged archives are also read
# by ASan+UBSan builds of parlot-decode and parlot-split.
#
# What is checked:
#  - 48 traces of one "program" (the same functions, defined in orders
#    that differ by seed; packed tables, plain tables (format 1.5) and
#    traces with unknown chunk types, which are stored whole), merged with
#    shared tables: parlot-split restores every file byte for byte;
#    --events, --info, --xml and --callgrind print for the archive what
#    they print for the loose traces;
#  - the tables are stored once: the archive is smaller than one of the
#    same members stored whole by at least half of the members' table
#    bytes (as --info counts them), and no larger than that otherwise;
#  - an archive made from a shared archive and loose traces (members
#    restored, then shared again) splits to the same files;
#  - damaged traces stored with shared tables report the loose trace's
#    message at the loose trace's offset;
#  - an archive of format 1.0, written here by an independent writer
#    (Python, from the format document), still reads and splits;
#  - a damaged tables section, a damaged TABLE_REF chunk (CRC fixed up)
#    and a member cut out of its archive: one line, exit 1, no crash or
#    sanitizer report; split restores no member it cannot check;
#  - 300 random mutations of TABLE_REF payloads and of the tables
#    section's chunks, their CRCs fixed up (so that the parsers see them):
#    decode and split exit 0 or 1, every error line names the archive, no
#    crash, hang or sanitizer report.
# Exit status: 0 if all passed, 1 otherwise.

. "$(dirname "$0")/testlib.sh"
check() {   # check NAME CONDITION-STATUS [DETAILS...]
   name=$1 st=$2
   shift 2
   if [ "$st" = 0 ]; then pass "$name"; else fail "$name" "$@"; fi
}

need_tool parlot-decode parlot-merge parlot-split make_trace

san_builds parlot-decode parlot-split
PARLOT_PROGRESS_DELAY_MS=100000000; export PARLOT_PROGRESS_DELAY_MS


# sum_info FIELD FILE...: a total of parlot-decode --info's last line
sum_info() {
   f=$1
   shift
   $PARLOT_DECODE --info "$@" 2>/dev/null | tail -n 1 \
      | sed -n "s/.* \([0-9,]*\) $f.*/\1/p" | tr -d ,
}

# ---- one program's traces ------------------------------------------------

mkdir "$tmp/loose" "$tmp/out"
cd "$tmp/loose" || exit 1
i=1
gen=0
while [ $i -le 48 ]; do
   case $i in
   7|29) extra="--pack 0" ;;              # plain tables, format 1.5
   13)   extra="--variant extras" ;;      # unknown chunk types: kept whole
   *)    extra= ;;
   esac
   $MAKE_TRACE --seed $i --threads $((i % 3 + 1)) --events $((200 + i * 7)) \
      --functions 300 --deep 0 --pid $((30000 + i)) $extra \
      "$(printf 'rank%02d.parlot' $i)" none "$tmp/expect" >/dev/null 2>&1 \
      || gen=1
   i=$((i + 1))
done
check "make_trace wrote 48 traces" $gen
LOOSE=$(ls)
S=$tmp/shared.ar
W=$tmp/whole.ar

$PARLOT_MERGE -o "$S" $LOOSE 2>"$tmp/e" \
   && $PARLOT_MERGE --share-tables=no -o "$W" $LOOSE 2>>"$tmp/e"
check "merge with and without shared tables: exit 0, silent" \
   $([ $? = 0 ] && [ ! -s "$tmp/e" ]; echo $?) "$(head -3 "$tmp/e")"

mkdir "$tmp/split"
$PARLOT_SPLIT -C "$tmp/split" "$S" 2>"$tmp/e"
rc=$?
bad=0
for f in $LOOSE; do cmp -s "$f" "$tmp/split/$f" || bad=1; done
check "split restores the 48 traces byte for byte" \
   $([ $rc = 0 ] && [ $bad = 0 ]; echo $?) "exit $rc" "$(head -3 "$tmp/e")"

# --list gives what each member restores to: the files' sizes and CRCs
bad=0
while IFS="$(printf '\t')" read -r off size crc name; do
   [ "$(wc -c <"$name")" -eq "$size" ] || bad=1
done <<EOF
$($PARLOT_SPLIT --list "$S")
EOF
check "--list: the sizes of the traces, not of the stored members" $bad

same=0
for mode in --events --info --xml --callgrind; do
   $PARLOT_DECODE $mode $LOOSE >"$tmp/out/loose" 2>&1
   $PARLOT_DECODE $mode "$S" 2>&1 | sed "s|$S:||g" >"$tmp/out/shared"
   cmp -s "$tmp/out/loose" "$tmp/out/shared" \
      || { same=1; echo "# $mode differs"; }
done
check "--events, --info, --xml, --callgrind: the archive's = the loose traces'" \
   $same

# the tables are stored once: compared with the same members stored
# whole, at least half of the shareable members' table bytes are gone
tables=$(sum_info "table bytes" $(ls | grep -v rank13))
ssize=$(wc -c <"$S")
wsize=$(wc -c <"$W")
check "shared tables: archive $ssize bytes, whole $wsize, tables $tables" \
   $([ -n "$tables" ] && [ "$tables" -gt 0 ] \
     && [ $((wsize - ssize)) -ge $((tables / 2)) ]; echo $?)
[ $quiet = 1 ] || echo "# archive bytes: shared $ssize, whole $wsize," \
   "members $(cat $LOOSE | wc -c), their tables $tables"

# an archive of an archive: shared members restored, shared again
$PARLOT_MERGE -o "$tmp/again.ar" "$S" 2>"$tmp/e" \
   && mkdir "$tmp/again" && $PARLOT_SPLIT -C "$tmp/again" "$tmp/again.ar"
rc=$?
bad=0
for f in $LOOSE; do cmp -s "$f" "$tmp/again/$f" || bad=1; done
check "merge of a shared archive splits to the same traces" \
   $([ $rc = 0 ] && [ $bad = 0 ] && cmp -s "$S" "$tmp/again.ar"; echo $?) \
   "exit $rc"

# ---- damaged traces, stored with shared tables ----------------------------

mkdir "$tmp/dmg"
cd "$tmp/dmg" || exit 1
bad=0
pid=40000
for v in crc bad-id killed zero-tail bad-len missing bad-alias bad-packed; do
   pid=$((pid + 1))
   $MAKE_TRACE --seed 5 --threads 2 --events 3000 --functions 300 --deep 0 \
      --pid $pid --variant $v "$v.parlot" none "$tmp/expect" >/dev/null \
      2>&1 || bad=1
done
# parlot-merge stores them as they are, says so for each damage found on
# reading (a bad function ID inside a stream shows only when decoded), and
# exits 1
$PARLOT_MERGE -o "$tmp/dmg.ar" *.parlot "$tmp/loose/rank01.parlot" \
   2>"$tmp/e"
[ $? -eq 1 ] && [ -s "$tmp/e" ] && [ -s "$tmp/dmg.ar" ] &&
   ! grep -qv '^parlot-merge: [a-z-]*\.parlot: offset [0-9]*: .* (stored as it is)$' "$tmp/e" ||
   { bad=1; echo "# parlot-merge on damaged traces: $(head -3 "$tmp/e")"; }
for v in crc bad-id killed zero-tail bad-len missing bad-alias bad-packed; do
   $PARLOT_DECODE --events "$v.parlot" >"$tmp/out/l" 2>"$tmp/out/le"
   rl=$?
   $SAN_DECODE --events "$tmp/dmg.ar" 2>&1 >/dev/null \
      | grep ":$v.parlot:" | sed "s|$tmp/dmg.ar:||" >"$tmp/out/se"
   $PARLOT_DECODE --events --select="$($PARLOT_DECODE --info "$v.parlot" \
      2>/dev/null | sed -n 's/^== .*: pid \([0-9]*\).*/\1/p')" "$tmp/dmg.ar" \
      >"$tmp/out/s" 2>/dev/null
   if ! cmp -s "$tmp/out/le" "$tmp/out/se" || ! cmp -s "$tmp/out/l" "$tmp/out/s"
   then
      bad=1
      echo "# $v: loose exit $rl: $(cat "$tmp/out/le")"
      echo "# $v: archive: $(cat "$tmp/out/se")"
   fi
done
check "damaged traces: the loose trace's events, message and offset" $bad

# ---- an archive of format 1.0, from an independent writer ----------------

cd "$tmp/loose" || exit 1
python3 - "$tmp/v1.ar" $(ls | head -5) <<'EOF'
import struct, sys, zlib, os
out, names = sys.argv[1], sys.argv[2:]
crc = lambda b: zlib.crc32(b) & 0xffffffff
a = bytearray(b'\x89PLARCH\n' + struct.pack('<HHI', 1, 0, 0))
ents = b''
for n in names:
    data = open(n, 'rb').read()
    nb = n.encode()
    h = b'PLMB' + struct.pack('<HHQI', len(nb), 0, len(data), crc(data))
    a += h + struct.pack('<I', crc(h + nb)) + nb
    ents += struct.pack('<QQIHH', len(a), len(data), crc(data), len(nb), 0) + nb
    a += data
ixoff = len(a)
ix = b'PLIX' + struct.pack('<IQ', 0, len(names)) + ents
ix += struct.pack('<I', crc(ix))
a += ix
tr = struct.pack('<QQQ', ixoff, len(ix), len(names))
a += tr + struct.pack('<I', crc(tr)) + b'PLAE'
open(out, 'wb').write(a)
EOF
cd "$tmp/loose" || exit 1
FIVE=$(ls | head -5)
$PARLOT_DECODE --events $FIVE >"$tmp/out/l" 2>&1
$PARLOT_DECODE --events "$tmp/v1.ar" >"$tmp/out/a" 2>&1
mkdir "$tmp/v1"
$PARLOT_SPLIT -C "$tmp/v1" "$tmp/v1.ar"
rc=$?
bad=0
for f in $FIVE; do cmp -s "$f" "$tmp/v1/$f" || bad=1; done
check "an archive 1.0 reads (--events) and splits as before" \
   $([ $rc = 0 ] && [ $bad = 0 ] && cmp -s "$tmp/out/l" "$tmp/out/a"; echo $?)

# ---- damaged archives ----------------------------------------------------

# bad_read ARCHIVE WHAT: decode and split: exit 1, each error line names
# the archive, no sanitizer report, nothing restored that does not check
bad_read() {
   $SAN_DECODE --events "$1" >/dev/null 2>"$tmp/b.e"
   rc=$?
   if [ $rc != 1 ] || grep -v "^parlot-decode: $1" "$tmp/b.e" >/dev/null; then
      echo "# $2: decode exit $rc: $(head -c 300 "$tmp/b.e")"
      return 1
   fi
   rm -rf "$tmp/b.dir" && mkdir "$tmp/b.dir"
   $SAN_SPLIT -C "$tmp/b.dir" "$1" 2>"$tmp/b.se"
   rc=$?
   if [ $rc != 1 ] || grep -v "^parlot-split: $1" "$tmp/b.se" >/dev/null; then
      echo "# $2: split exit $rc: $(head -c 300 "$tmp/b.se")"
      return 1
   fi
   for f in "$tmp/b.dir"/*; do
      [ -e "$f" ] || continue
      cmp -s "$f" "$tmp/loose/$(basename "$f")" \
         || { echo "# $2: split restored a wrong $f"; return 1; }
   done
   return 0
}

# the tables section: a byte flipped in its middle
tsec=$(python3 - "$S" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
ixoff = struct.unpack_from('<Q', d, len(d) - 32)[0]
toff, tsize = struct.unpack_from('<QQ', d, ixoff + 16)
print(toff, tsize)
EOF
)
set -- $tsec
cp "$S" "$tmp/t.ar"
printf 'Q' | dd of="$tmp/t.ar" bs=1 seek=$(($1 + $2 / 2)) conv=notrunc \
   2>/dev/null
bad_read "$tmp/t.ar" "tables section damaged"
check "a damaged tables section: exit 1, errors name the archive" $?
grep -q "tables" "$tmp/b.e"
check "  ... and say the archive's tables are damaged" $? \
   "$(head -2 "$tmp/b.e")"

# a TABLE_REF chunk's references changed, its CRC fixed up
python3 - "$S" "$tmp/r.ar" <<'EOF'
import struct, sys, zlib
d = bytearray(open(sys.argv[1], 'rb').read())
ixoff = struct.unpack_from('<Q', d, len(d) - 32)[0]
off, size = struct.unpack_from('<QQ', d, ixoff + 32)     # the first member
assert d[off:off + 8] == b'\x89PLREFS\n'
p = off + 16
while p < off + size:
    t, ln = d[p], struct.unpack_from('<I', d, p + 4)[0]
    if t == 13:
        n = struct.unpack_from('<I', d, p + 16 + 8)[0]  # one entry more
        struct.pack_into('<I', d, p + 16 + 8, n + 1)
        struct.pack_into('<I', d, p + 12, zlib.crc32(bytes(d[p + 16:p + 16 + ln])) & 0xffffffff)
        break
    p += 16 + ln
# the member's stored CRC is left wrong: split must refuse it either way
open(sys.argv[2], 'wb').write(d)
EOF
bad_read "$tmp/r.ar" "TABLE_REF damaged"
check "a damaged TABLE_REF chunk: exit 1, errors name the archive" $?
grep -q "TABLE_REF" "$tmp/b.e"
check "  ... the member's error names the TABLE_REF chunk" $? \
   "$(head -2 "$tmp/b.e")"

# a shared member cut out of its archive, read as a loose file
python3 - "$S" "$tmp/cut.parlot" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
ixoff = struct.unpack_from('<Q', d, len(d) - 32)[0]
off, size = struct.unpack_from('<QQ', d, ixoff + 32)
open(sys.argv[2], 'wb').write(d[off:off + size])
EOF
$SAN_DECODE --events "$tmp/cut.parlot" >/dev/null 2>"$tmp/e"
rc=$?
check "a shared member outside its archive: exit 1, one line" \
   $([ $rc = 1 ] && stderr_line "$tmp/e" "parlot-decode: $tmp/cut.parlot: " \
     >/dev/null; echo $?) "exit $rc" "$(head -3 "$tmp/e")"

# ---- random damage where CRCs do not catch it ---------------------------

# eight members, plain tables (7) and unknown chunks (13) among them,
# none of make_trace's traces of one event a chunk (rank01's 66,000
# chunks), so that each mutation is read whole under ASan in a moment
cd "$tmp/loose" || exit 1
$PARLOT_MERGE -o "$tmp/small.ar" rank02.parlot rank03.parlot rank06.parlot \
   rank07.parlot rank08.parlot rank09.parlot rank12.parlot rank13.parlot ||
   fail "small archive"
mkdir "$tmp/mut"
python3 - "$tmp/small.ar" "$tmp/mut" 300 <<'EOF'
import random, struct, sys, zlib
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = open(src, 'rb').read()
ixoff = struct.unpack_from('<Q', d, len(d) - 32)[0]
count, toff, tsize = struct.unpack_from('<QQQ', d, ixoff + 8)
# (chunk offset, payload length) of every TABLE_REF, and of the tables
# section's chunks
places = []
def walk(start, end, only13):
    p = start + 16
    while p + 16 <= end:
        t, ln = d[p], struct.unpack_from('<I', d, p + 4)[0]
        if ln and (t == 13 or not only13):
            places.append((p, ln))
        p += 16 + ln
e = ixoff + 32
for i in range(count):
    off, size = struct.unpack_from('<QQ', d, e)
    walk(off, off + size, True)
    e += 36 + struct.unpack_from('<H', d, e + 20)[0]
walk(toff, toff + tsize, False)
rnd = random.Random(17)
for k in range(n):
    m = bytearray(d)
    p, ln = rnd.choice(places)
    for _ in range(rnd.randint(1, 3)):
        q = p + 16 + rnd.randrange(ln)
        m[q] = rnd.choice([0, 0xff, 0x7f, 0x80, rnd.randrange(256)])
    struct.pack_into('<I', m, p + 12,
                     zlib.crc32(bytes(m[p + 16:p + 16 + ln])) & 0xffffffff)
    open('%s/m%03d.ar' % (out, k), 'wb').write(m)
EOF
bad=0 refused=0
for f in "$tmp"/mut/m*.ar; do
   timeout 60 $SAN_DECODE --events "$f" >/dev/null 2>"$tmp/m.e"
   rc=$?
   [ $rc = 1 ] && refused=$((refused + 1))
   rm -rf "$tmp/m.dir" && mkdir "$tmp/m.dir"
   timeout 60 $SAN_SPLIT -C "$tmp/m.dir" "$f" 2>"$tmp/m.se"
   rs=$?
   if [ $rc -gt 1 ] || [ $rs -gt 1 ] \
      || grep -v "^parlot-decode: $f" "$tmp/m.e" >/dev/null \
      || grep -v "^parlot-split: $f" "$tmp/m.se" >/dev/null; then
      bad=1
      echo "# $f: decode $rc, split $rs: $(head -c 300 "$tmp/m.e" "$tmp/m.se")"
      break
   fi
   rm -f "$f"
done
# the mutations reach the parsers: most are refused (a changed name or
# address reads as another valid table)
check "300 mutated references and tables: exit 0 or 1, clean errors ($refused refused)" \
   $([ $bad = 0 ] && [ $refused -gt 100 ]; echo $?)

finish
