#!/usr/bin/env bash
# Builds the package tarball and runs R CMD check --as-cran on it (which runs
# the testthat suite), then prints testthat's counts as "N passed, N failed".
# Exits non-zero unless the check ends with "Status: OK" and no test failed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out="$root/check"
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 1

# Offline: skip only the checks that need the network. (R 4.2's --as-cran
# forces the file timestamp check on; _R_CHECK_SYSTEM_CLOCK_=false keeps it
# but compares with the local clock instead of a time server.)
export _R_CHECK_CRAN_INCOMING_REMOTE_=false
export _R_CHECK_FUTURE_FILE_TIMESTAMPS_=false
export _R_CHECK_SYSTEM_CLOCK_=false
# arrow and duckdb are suggested readers that tools/install-deps.sh does not
# install (long builds); their tests skip, and the check runs without them.
export _R_CHECK_FORCE_SUGGESTS_=false
# The PDF manual in Times with the default monospace font: R's default also
# asks for inconsolata.sty, which Debian ships only in the 500 MB
# texlive-fonts-extra.
export R_RD4PDF="${R_RD4PDF:-times,hyper}"
# Debian's R compiles with -g: with its debug information the library alone
# is over 5 MB, which check reports as a NOTE. R's install-time stripping
# drops the debug information only (the symbol table stays for check's nm).
export _R_SHLIB_STRIP_=true
export R_STRIP_SHARED_LIB="strip --strip-debug"
# Tests, examples and vignettes use at most 2 threads, as CRAN asks.
export KITCHEN_NUM_THREADS=2
# A time zone: without TZ, lubridate (loaded with the recipes suggestion)
# asks systemd's timedatectl, which machines without systemd answer with
# messages the check reports as a NOTE.
export TZ="${TZ:-UTC}"

# The package's files are UTF-8 (DESCRIPTION's Encoding, the vignettes, the
# cpu_act data). In a C/POSIX locale R's session charset is ASCII, and the
# check reports WARNINGs about those files that a UTF-8 machine never shows.
# So the check runs in a UTF-8 locale: the session's if it is one, else the
# first available of C.UTF-8, en_US.UTF-8 and any other UTF-8 locale.
is_utf8() { case "$1" in *.[Uu][Tt][Ff]-8 | *.[Uu][Tt][Ff]8 | *.[Uu][Tt][Ff]-8@* | *.[Uu][Tt][Ff]8@*) return 0 ;; *) return 1 ;; esac; }
session_locale="${LC_ALL:-${LC_CTYPE:-${LANG:-C}}}"
if ! is_utf8 "$session_locale"; then
  available=$(locale -a 2>/dev/null || true)
  utf8=""
  for candidate in C.UTF-8 C.utf8 en_US.UTF-8 en_US.utf8 $available; do
    if is_utf8 "$candidate" && grep -qxF "$candidate" <<<"$available"; then
      utf8="$candidate"
      break
    fi
  done
  if [ -n "$utf8" ]; then
    echo "check: the locale is $session_locale; running the check in $utf8 (the package's files are UTF-8)" >&2
    export LC_ALL="$utf8" LANG="$utf8"
  else
    echo "check: the locale is $session_locale and no UTF-8 locale is installed (locale -a); the check may report WARNINGs about the package's UTF-8 files. On Debian: apt-get install locales-all, or any UTF-8 locale" >&2
  fi
fi

build_flags=()
check_flags=(--as-cran)
if ! command -v pandoc >/dev/null 2>&1; then
  echo "check: pandoc not found, vignettes are not built or checked" >&2
  build_flags+=(--no-build-vignettes)
  check_flags+=(--ignore-vignettes)
fi
if ! command -v pdflatex >/dev/null 2>&1; then
  echo "check: pdflatex not found, the PDF manual is not checked" >&2
  check_flags+=(--no-manual)
fi

R CMD build "${build_flags[@]}" "$root" > build.log 2>&1 || { cat build.log; exit 1; }
tarball=$(ls kitchen_*.tar.gz)
R CMD check "${check_flags[@]}" "$tarball" 2>&1 | tee check.log
status_line=$(grep -E '^Status:' check.log | tail -n 1)

# The sections of check.log whose result is WARNING, NOTE or ERROR: the
# "* checking ..." line with everything printed under it. The result ends
# the check's line or a line of its own, after "..." or a time ("[4s/21s]").
problem_sections() {
  awk '
    function flush() {
      if (block !~ /^\* DONE/ && block ~ /(^|\n)([^\n]* )?(WARNING|NOTE|ERROR)\n/) printf "%s", block
      block = ""
    }
    /^\* / { flush() }
    { block = block $0 "\n" }
    END { flush() }
  ' check.log
}
# Before the counts: what went wrong, so that a failing `make test` does not
# end with a plain count line and make's "Error 1".
report_failure() {
  echo
  echo "check: problems found by R CMD check (from check/check.log):"
  problem_sections
  echo "check: FAILED: $1"
}

# testthat's own summary, e.g. "[ FAIL 0 | WARN 0 | SKIP 0 | PASS 170 ]".
rout=$(ls kitchen.Rcheck/tests/testthat.Rout* 2>/dev/null | head -n 1)
summary=""
[ -n "$rout" ] && summary=$(grep -E '\[ FAIL [0-9]+ \| WARN [0-9]+ \| SKIP [0-9]+ \| PASS [0-9]+ \]' "$rout" | tail -n 1)
if [ -z "$summary" ]; then
  [ -n "$rout" ] && tail -n 40 "$rout"
  report_failure "no testthat summary found: the tests did not run or did not finish (${status_line:-no status line})"
  echo "0 passed, 1 failed"
  exit 1
fi
failed=$(sed -E 's/.*FAIL ([0-9]+).*/\1/' <<<"$summary")
skipped=$(sed -E 's/.*SKIP ([0-9]+).*/\1/' <<<"$summary")
passed=$(sed -E 's/.*PASS ([0-9]+).*/\1/' <<<"$summary")
[ "$failed" -gt 0 ] && tail -n 60 "$rout"

echo "R CMD check: ${status_line:-no status line}"
ok=1
if [ "$status_line" != "Status: OK" ]; then
  ok=0
  report_failure "R CMD check ended with '${status_line:-no status line}' instead of 'Status: OK' (each WARNING, NOTE or ERROR above counts)"
fi
if [ "$failed" -gt 0 ]; then
  ok=0
  echo "check: FAILED: ${failed} test(s) failed (testthat's output above)"
fi
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$ok" -eq 1 ]
