#!/usr/bin/env bash
# Builds kitchen with AddressSanitizer + UndefinedBehaviorSanitizer into a
# private library and runs the testthat suite against it. R itself is not
# instrumented, so the ASan runtime is preloaded; leak detection is off
# (R's own allocations would count). Prints one summary line and exits
# non-zero on any sanitizer report or test failure.
#
#   bash tools/sanitize.sh            # whole suite
#   bash tools/sanitize.sh rff fwht   # only test-rff.R and test-fwht.R
#
# Under the sanitizer KITCHEN_SANITIZER=true: tests that time child R
# processes (interrupts) skip themselves, their delays mean nothing here.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kitchen-sanitize.XXXXXX")
trap 'rm -rf "$work"' EXIT
started=$(date +%s)

asan=$(gcc -print-file-name=libasan.so)
ubsan=$(gcc -print-file-name=libubsan.so)
if [ ! -e "$asan" ] || [ ! -e "$ubsan" ]; then
  echo "sanitize: gcc's libasan/libubsan not found" >&2
  echo "sanitize: FAILED (no sanitizer runtime)"
  exit 1
fi

# A private Makevars: the system's and the user's ~/.R/Makevars stay as they are.
flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
cat > "$work/Makevars" <<EOF
CXXFLAGS = -g -O1 $flags
CXX17FLAGS = -g -O1 $flags
CFLAGS = -g -O1 $flags
LDFLAGS = $flags
EOF

# Build from a copy of the sources: the working tree's src/*.o stay untouched.
mkdir -p "$work/src" "$work/lib"
for f in DESCRIPTION NAMESPACE R src inst tests data man LICENSE; do
  [ -e "$root/$f" ] && cp -R "$root/$f" "$work/src/"
done
rm -f "$work/src/src/"*.o "$work/src/src/"*.so
if ! R_MAKEVARS_USER="$work/Makevars" R CMD INSTALL --no-test-load \
     -l "$work/lib" "$work/src" > "$work/install.log" 2>&1; then
  tail -n 40 "$work/install.log"
  echo "sanitize: FAILED (the instrumented build did not install)"
  exit 1
fi

files=""
for name in "$@"; do files="$files'$name',"; done
filter="NULL"
[ -n "$files" ] && filter="paste0('^(', paste(c(${files%,}), collapse = '|'), ')\$')"

# abort_on_error: a report kills R at once (no test can swallow it).
# detect_leaks=0: R is not instrumented and never frees some memory on exit.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:detect_odr_violation=0:print_summary=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export KITCHEN_SANITIZER=true KITCHEN_NUM_THREADS=2 TZ="${TZ:-UTC}"  # TZ: see check.sh
LD_PRELOAD="$asan $ubsan" R_LIBS="$work/lib:${R_LIBS:-}" Rscript -e "
  library(testthat); library(kitchen)
  r <- test_dir('$work/src/tests/testthat', package = 'kitchen', load_package = 'installed',
                filter = $filter, reporter = 'summary', stop_on_failure = FALSE)
  r <- as.data.frame(r)
  cat(sprintf('\nsanitize-tests: %d passed, %d failed, %d skipped\n',
              sum(r\$nb) - sum(r\$failed) - sum(r\$skipped), sum(r\$failed) + sum(r\$error), sum(r\$skipped)))
" > "$work/tests.log" 2>&1
rc=$?
elapsed=$(( $(date +%s) - started ))

reports=$(grep -cE 'ERROR: AddressSanitizer|runtime error:|SUMMARY: (Address|UndefinedBehavior)Sanitizer' "$work/tests.log")
counts=$(grep -E '^sanitize-tests:' "$work/tests.log" | tail -n 1 | sed 's/^sanitize-tests: //')
if [ "$rc" -ne 0 ] || [ "$reports" -gt 0 ] || [ -z "$counts" ] || ! grep -q ' 0 failed' <<<"$counts"; then
  grep -B 2 -A 40 -E 'ERROR: AddressSanitizer|runtime error:' "$work/tests.log" | head -n 120
  [ "$reports" -eq 0 ] && tail -n 60 "$work/tests.log"
  echo "sanitize: FAILED, ${reports} sanitizer report(s), tests: ${counts:-did not finish} (exit $rc, ${elapsed} s)"
  exit 1
fi
echo "sanitize: OK, no ASan/UBSan report, tests: $counts (${elapsed} s)"
