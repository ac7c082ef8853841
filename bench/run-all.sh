#!/usr/bin/env bash
# Runs every benchmark script bench/*.R (except the helpers in common.R)
# from the repository root, one after the other, each writing its tables
# and plots to bench/results/. A script that fails is reported at the end
# and does not stop the others. KITCHEN_BENCH_QUICK=1 passes the quick
# option to the scripts that have one (paper-*.R, peers.R).
# Usage: bash bench/run-all.sh [script names, e.g. peers paper-fastfood]
set -u
cd "$(dirname "$0")/.."
mkdir -p bench/results
if [ $# -gt 0 ]; then
  scripts=$(for name in "$@"; do echo "bench/${name%.R}.R"; done)
else
  scripts=$(ls bench/*.R | grep -v '/common\.R$')
fi
failed=""
for script in $scripts; do
  echo "== $script"
  start=$(date +%s)
  if ! Rscript "$script"; then failed="$failed $script"; fi
  echo "== $script: $(( $(date +%s) - start )) s"
done
if [ -n "$failed" ]; then
  echo "failed:$failed" >&2
  exit 1
fi
