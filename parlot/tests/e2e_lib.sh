# SPDX-License-Identifier: GPL-2.0-or-later
# What the tool's end-to-end scripts (parlot/tests/*/run_*.sh) share; each
# sources it with  . "$here/../e2e_lib.sh"  and gets:
#   passed, failed               the counts so far;
#   pass NAME                    a PASS line;
#   fail NAME [DETAIL-LINES...]  a FAIL line, each detail line indented.
passed=0 failed=0
pass() { echo "PASS: $1"; passed=$((passed + 1)); }
fail() {
   echo "FAIL: $1"
   shift
   for l in "$@"; do echo "    $l"; done
   failed=$((failed + 1))
}
