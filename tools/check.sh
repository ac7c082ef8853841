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

# testthat's own summary, e.g. "[ FAIL 0 | WARN 0 | SKIP 0 | PASS 170 ]".
rout=$(ls kitchen.Rcheck/tests/testthat.Rout* 2>/dev/null | head -n 1)
summary=""
[ -n "$rout" ] && summary=$(grep -E '\[ FAIL [0-9]+ \| WARN [0-9]+ \| SKIP [0-9]+ \| PASS [0-9]+ \]' "$rout" | tail -n 1)
if [ -z "$summary" ]; then
  echo "check: no testthat summary found (did the tests run?)" >&2
  [ -n "$rout" ] && tail -n 40 "$rout"
  echo "0 passed, 1 failed"
  exit 1
fi
failed=$(sed -E 's/.*FAIL ([0-9]+).*/\1/' <<<"$summary")
skipped=$(sed -E 's/.*SKIP ([0-9]+).*/\1/' <<<"$summary")
passed=$(sed -E 's/.*PASS ([0-9]+).*/\1/' <<<"$summary")
[ "$failed" -gt 0 ] && tail -n 60 "$rout"

echo "R CMD check: ${status_line:-no status line}"
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$status_line" = "Status: OK" ] && [ "$failed" -eq 0 ]
