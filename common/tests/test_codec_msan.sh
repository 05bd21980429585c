#!/bin/sh
# SPDX-License-Identifier: MIT
# The codecs under MemorySanitizer: their tests (test_codec, test_lzze,
# test_lzrc, test_ccm) built with clang -fsanitize=memory and run whole.
# Their encoders and decoders live in malloc'd, uninitialised memory, so a
# read of codec state that was never written (history, context tables,
# probabilities: pl_enc_init and pl_dec_init set only what the codec reads
# before writing, so that a stream's first events do not pay for clearing
# a 256 KiB history) is reported: no output may depend on what the memory
# held before.  test_format (the container's helpers) and test_table_pack
# (packed tables, whose models are malloc'd too) likewise.
#
#   common/tests/test_codec_msan.sh
#
# CLANG: the compiler (default clang, else clang-14).  Exit status: 0 if
# every test passes without a report, 1 otherwise, 77 (skip) if clang
# cannot build with -fsanitize=memory.

TEST_TIMEOUT=${TEST_TIMEOUT:-900}   # MemorySanitizer: about 9x slower
. "$(dirname "$0")/../../decoder/tests/testlib.sh"

CLANG=${CLANG:-}
[ -n "$CLANG" ] || CLANG=$(command -v clang || command -v clang-14 || true)
if [ -z "$CLANG" ] || ! echo 'int main(void){return 0;}' |
      "$CLANG" -fsanitize=memory -x c -o "$tmp/probe" - 2>/dev/null; then
   echo "# skipped: no clang with -fsanitize=memory (CLANG=$CLANG)"
   exit 77
fi

# msan_test NAME SUMMARY: common/tests/NAME.c under MemorySanitizer; its
# last line must be "SUMMARY: N passed, 0 failed".  -O1: MemorySanitizer's
# advice (add -fsanitize-memory-track-origins to see where a reported value
# came from; it doubles the time).
msan_test() {
   CC=$CLANG cc_build "$tmp/$1" -O1 -fsanitize=memory \
      -fno-omit-frame-pointer "$top/common/tests/$1.c" ||
      { echo "cannot build $1"; exit 1; }
   run "$tmp/$1" "$tmp/out" "$tmp/err"
   summary=$(tail -n 1 "$tmp/out")
   if [ "$rc" -eq 0 ] && ! grep -q MemorySanitizer "$tmp/err" &&
      echo "$summary" | grep -Eq "^$2: [0-9]+ passed, 0 failed\$"; then
      pass "$1 under MemorySanitizer: $summary"
   else
      fail "$1 under MemorySanitizer" "exit $rc, last line: $summary" \
         "$(grep -A12 -m1 MemorySanitizer "$tmp/err")"
   fi
}
msan_test test_codec codec
msan_test test_lzze lzze
msan_test test_lzrc lzrc
msan_test test_ccm ccm
msan_test test_format format
msan_test test_table_pack "table pack"
finish
