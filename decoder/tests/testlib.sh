# SPDX-License-Identifier: MIT
# Common setup of the decoder's shell tests; each test_*.sh sources it with
#
#   . "$(dirname "$0")/testlib.sh"
#
# and gets:
#   here, top      this directory and the top of the source tree;
#   quiet          1 if the script was given -q (only failures and summary);
#   tmp            a temporary directory named after the script, removed on
#                  exit (INT and TERM exit 1, which removes it too); a
#                  script may add commands to run before the removal with
#                  on_exit CMD, or set its own EXIT trap that calls
#                  tl_cleanup;
#   count, failures, pass NAME, fail NAME [DETAIL-LINES...]   TAP-like lines;
#   CC             the compiler (default cc; may hold several words);
#   cc_build OUT [FLAGS] SOURCES...   compiles SOURCES with the codec into
#                  OUT (libxml2's flags added when SOURCES hold
#                  parlot-decode.c);
#   tool_sources NAME   the sources of a tool (for special builds);
#   tool_var NAME       the variable that names a tool (PARLOT_DECODE);
#   need_tool NAME...   builds each tool whose variable (PARLOT_DECODE,
#                  PARLOT_ANNOTATE, PARLOT_MERGE, PARLOT_SPLIT, PARLOT_DIFF,
#                  MAKE_TRACE,
#                  SCRIPT_TRACE) is unset or empty into $tmp, and sets it;
#   TIMEOUT        "timeout N" (N: $TEST_TIMEOUT, default 120) if the
#                  timeout command exists, else empty;
#   run PROG OUT ERR ARGS...   runs PROG under $TIMEOUT, stdout to OUT,
#                  stderr to ERR; sets rc;
#   err_is ERRFILE FILE REGEX   the single stderr line is
#                  "$ERR_PROG: FILE: " + a message matching REGEX
#                  (ERR_PROG defaults to parlot-decode); prints why not;
#   finish [tap|always|passed]   prints the summary line and exits, 1 if
#                  any test failed: tap (default) "# N tests, F failed"
#                  unless quiet; always: the same, quiet or not; passed:
#                  "P passed, F failed".

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
quiet=0
[ "${1:-}" = "-q" ] && quiet=1

tl_name=$(basename "$0" .sh)
tl_name=${tl_name#test_}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/parlot-$tl_name-test.XXXXXX") || exit 1
tl_on_exit=
# on_exit CMD: run CMD (eval'd) on exit, before $tmp is removed
on_exit() { tl_on_exit="$tl_on_exit
$1"; }
tl_cleanup() {
   eval "$tl_on_exit"
   rm -rf "$tmp"
}
trap tl_cleanup EXIT
trap 'exit 1' INT TERM

failures=0
count=0

pass() { count=$((count + 1)); [ $quiet = 1 ] || echo "ok $count - $1"; }
fail() {
   count=$((count + 1)); failures=$((failures + 1))
   echo "not ok $count - $1"
   shift
   for line in "$@"; do echo "#   $line"; done
}

CC=${CC:-cc}

# cc_build OUTPUT [FLAGS] SOURCES...  ($CC and the pkg-config flags may
# hold several words: not quoted).  FLAGS come after the common ones, so
# -O1 and the like override them.  The codec (common/) is always linked.
cc_build() {
   tl_out=$1
   shift
   tl_xc=$(pkg-config --cflags libxml-2.0 2>/dev/null)
   tl_xl=$(pkg-config --libs libxml-2.0 2>/dev/null || echo -lxml2)
   # shellcheck disable=SC2086
   $CC -O2 -g -Wall -Wextra -std=c99 -pthread -I"$top/common" \
      -I"$top/decoder/lib" -I"$top/decoder/modes/decode" \
      -I"$top/decoder/modes/annotate" -I"$top/decoder/modes/diff" \
      -I"$top/decoder/modes/shared" -I"$top/decoder/programs" \
      $tl_xc -o "$tl_out" "$@" "$top"/common/*.c $tl_xl -lstdc++
}

# tool_sources NAME: the sources of NAME (but the codec's), one per word:
# a program is its main file, the programs' helpers (with the serial
# back-end for parlot-decode and parlot-annotate), the modes and the
# library.
tool_sources() {
   case $1 in
   parlot-decode|parlot-annotate)     # the serial reading back-end
      echo "$top/decoder/programs/$1.c" "$top/decoder/programs/pl_cli.c" \
         "$top/decoder/programs/pl_progress.c" \
         "$top/decoder/programs/pl_backend_serial.c" \
         "$top"/decoder/modes/*/*.c "$top"/decoder/lib/*.c ;;
   parlot-merge|parlot-split|parlot-diff)
      echo "$top/decoder/programs/$1.c" "$top/decoder/programs/pl_cli.c" \
         "$top/decoder/programs/pl_progress.c" \
         "$top"/decoder/modes/*/*.c "$top"/decoder/lib/*.c ;;
   make_trace|script_trace)
      echo "$here/$1.c" ;;
   *) echo "testlib.sh: unknown tool $1" >&2; return 1 ;;
   esac
}

# tool_var NAME: the variable that names tool NAME (parlot-decode:
# PARLOT_DECODE, make_trace: MAKE_TRACE)
tool_var() {
   echo "$1" | tr a-z- A-Z_
}

# need_tool NAME...: for each tool whose variable is unset or empty, build
# it into $tmp and set the variable to it; exit 1 if that fails.
need_tool() {
   for tl_t in "$@"; do
      tl_v=$(tool_var "$tl_t")
      eval "tl_cur=\${$tl_v:-}"
      [ -n "$tl_cur" ] && continue
      tl_srcs=$(tool_sources "$tl_t") || exit 1
      # shellcheck disable=SC2086
      cc_build "$tmp/$tl_t" $tl_srcs \
         || { echo "cannot build $tl_t"; exit 1; }
      eval "$tl_v=\$tmp/\$tl_t"
   done
}

TIMEOUT=
command -v timeout >/dev/null 2>&1 && TIMEOUT="timeout ${TEST_TIMEOUT:-120}"

# run PROG OUT ERR ARGS...: sets $rc
# mpi_script_head PID RANK EXE "FUNCTIONS" "MPI FUNCTIONS" ["C LIBRARY
# FUNCTIONS"]: the head of a script_trace script of an MPI rank: its
# process, its program, libmpi and libc with their functions, and thread
# 1 (begun)
mpi_script_head() {
   echo "process pid=$1 ppid=1 exe=$3 arg0=./${3##*/} mpi_rank=$2"
   echo "object $3"
   echo "object /usr/lib/x86_64-linux-gnu/libmpi.so.40"
   echo "object /usr/lib/x86_64-linux-gnu/libc.so.6"
   for tl_f in $4; do echo "function $tl_f $3"; done
   for tl_f in $5; do echo "function $tl_f /usr/lib/x86_64-linux-gnu/libmpi.so.40"; done
   for tl_f in ${6:-}; do echo "function $tl_f /usr/lib/x86_64-linux-gnu/libc.so.6"; done
   echo "thread 1"
}

# script_run NAME NRANKS FUNC [ARGS...]: an MPI run's traces in $tmp/NAME,
# rank R's from the script FUNC R ARGS... writes (script_trace), and their
# report in $tmp/NAME.ann
script_run() {
   sr_name=$1 sr_n=$2 sr_f=$3
   shift 3
   mkdir -p "$tmp/$sr_name"
   for sr_r in $(seq 0 $((sr_n - 1))); do
      $sr_f $sr_r "$@" >"$tmp/$sr_name.script" &&
      "$SCRIPT_TRACE" "$tmp/$sr_name.script" "$tmp/$sr_name/r$sr_r.trace" ||
         fail "script_trace ($sr_name)"
   done
   "$PARLOT_ANNOTATE" "$tmp/$sr_name" >"$tmp/$sr_name.ann" 2>/dev/null
}

run() {
   tl_prog=$1 tl_o=$2 tl_e=$3
   shift 3
   $TIMEOUT "$tl_prog" "$@" >"$tl_o" 2>"$tl_e"
   rc=$?
}

# err_is ERRFILE FILE REGEX: prints why not, if the single stderr line is
# not "$ERR_PROG: FILE: " + a message matching REGEX.
err_is() {
   tl_ef=$1 tl_file=$2 tl_re=$3
   tl_p=${ERR_PROG:-parlot-decode}
   tl_n=$(wc -l <"$tl_ef")
   if [ "$tl_n" -ne 1 ]; then
      echo "stderr has $tl_n lines: $(head -c 300 "$tl_ef")"
      return 1
   fi
   tl_line=$(cat "$tl_ef")
   case $tl_line in
   "$tl_p: $tl_file: "*) ;;
   *) echo "bad error line: $tl_line"; return 1 ;;
   esac
   tl_msg=${tl_line#"$tl_p: $tl_file: "}
   if ! printf '%s\n' "$tl_msg" | grep -Eq -- "$tl_re"; then
      echo "message '$tl_msg' does not match '$tl_re'"
      return 1
   fi
   return 0
}

# san_var TOOL: the variable san_builds sets for TOOL (parlot-decode:
# SAN_DECODE)
san_var() {
   echo "SAN_$(echo "${1#parlot-}" | tr a-z A-Z)"
}

# san_builds TOOL...: for each reader among the TOOLs (parlot-decode,
# -annotate, -diff, -split, -merge), SAN_DECODE, SAN_ANNOTATE, SAN_DIFF,
# SAN_SPLIT or SAN_MERGE: an ASan+UBSan build for reading damaged inputs,
# with exit codes for its findings that no test accepts.  The build is the
# one make check made ($PARLOT_SAN_DIR/TOOL-san), else one made here.
# If NO_SANITIZE=1 or a build fails: the tools themselves, status 1.
san_builds() {
   tl_ok=1
   for tl_t in "$@"; do
      tl_v=$(san_var "$tl_t")
      tl_p=$tmp/$tl_t-san
      if [ "${NO_SANITIZE:-0}" = 1 ]; then
         tl_ok=0
      elif [ -n "${PARLOT_SAN_DIR:-}" ] && [ -x "$PARLOT_SAN_DIR/$tl_t-san" ]
      then
         tl_p=$PARLOT_SAN_DIR/$tl_t-san
      else
         # shellcheck disable=SC2046
         cc_build "$tl_p" -O1 -fsanitize=address,undefined \
            -fno-sanitize-recover=all -fno-omit-frame-pointer \
            $(tool_sources "$tl_t") 2>"$tmp/$tl_t-san.err" || tl_ok=0
      fi
      eval "$tl_v=\$tl_p"
   done
   if [ $tl_ok = 1 ]; then
      ASAN_OPTIONS=exitcode=86:detect_leaks=1; export ASAN_OPTIONS
      UBSAN_OPTIONS=exitcode=87:print_stacktrace=1; export UBSAN_OPTIONS
      [ $quiet = 1 ] || echo "# damaged inputs are read under ASan+UBSan"
      return 0
   fi
   for tl_t in "$@"; do
      tl_v=$(tool_var "$tl_t")
      eval "tl_p=\${$tl_v:-}"
      eval "$(san_var "$tl_t")=\$tl_p"
   done
   echo "# no sanitizer build: damaged inputs are read unsanitized"
   [ "${NO_SANITIZE:-0}" = 1 ] || cat "$tmp"/*-san.err 2>/dev/null | head -n 3 | sed "s/^/#   /"
   return 1
}

# stderr_line ERRFILE PREFIX: ERRFILE is exactly one line starting with
# PREFIX (else say what it is, status 1)
stderr_line() {
   tl_n=$(wc -l <"$1")
   [ "$tl_n" -eq 1 ] || { echo "stderr has $tl_n lines: $(head -c 400 "$1")"; return 1; }
   case $(cat "$1") in
   "$2"*) return 0 ;;
   esac
   echo "bad error line: $(cat "$1")"
   return 1
}

# finish [tap|always|passed]: the summary line; exit 1 if a test failed
finish() {
   case ${1:-tap} in
   passed)
      echo "$((count - failures)) passed, $failures failed" ;;
   always)
      echo "# $count tests, $failures failed" ;;
   *)
      [ $quiet = 1 ] || echo "# $count tests, $failures failed" ;;
   esac
   [ $failures -eq 0 ] || exit 1
   exit 0
}
