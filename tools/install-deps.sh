#!/usr/bin/env bash
# Installs what kitchen needs to build, check and demo, skipping what is there.
#
# As root (or with password-less sudo) on Debian/Ubuntu: Debian's prebuilt
# r-cran-* packages and the system tools R CMD check --as-cran uses (pandoc,
# tidy, qpdf, LaTeX). As an ordinary user: missing R packages from CRAN into
# the personal library; the system tools are reported if missing.
set -euo pipefail

debian_packages=(
  r-cran-rcpp r-cran-rcppeigen r-cran-rcppparallel r-cran-cli r-cran-rlang
  r-cran-matrix r-cran-testthat r-cran-roxygen2 r-cran-pkgbuild r-cran-knitr
  r-cran-rmarkdown r-cran-processx r-cran-future r-cran-generics r-cran-tibble r-cran-recipes
  r-cran-tidyr r-cran-ggplot2 r-cran-data.table
  pandoc tidy qpdf texlive-latex-base
  texlive-latex-recommended texlive-fonts-recommended
)
r_packages="Rcpp RcppEigen RcppParallel cli rlang Matrix testthat knitr rmarkdown processx future generics tibble recipes parsnip dials data.table"

if command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  missing=()
  for p in "${debian_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
      root=""
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      root="sudo"
    else
      root="none"
    fi
    if [ "$root" = "none" ]; then
      echo "install-deps: not root and no sudo; not installing ${missing[*]}" >&2
    else
      echo "install-deps: installing ${missing[*]}"
      $root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
      $root env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
  fi
fi

# Whatever R packages are still missing come from CRAN, into the site library
# if it is writable and the personal library otherwise (created if needed, so
# that R CMD INSTALL of kitchen has a place to go too).
Rscript --vanilla - "$r_packages" <<'RSCRIPT'
wanted <- strsplit(commandArgs(TRUE)[1], " ")[[1]]
lib <- .libPaths()[1]
if (file.access(lib, 2) != 0) {
  lib <- Sys.getenv("R_LIBS_USER")
  dir.create(lib, recursive = TRUE, showWarnings = FALSE)
  .libPaths(c(lib, .libPaths()))
}
missing <- wanted[!vapply(wanted, requireNamespace, TRUE, quietly = TRUE)]
if (length(missing)) {
  message("install-deps: installing from CRAN into ", lib, ": ", toString(missing))
  install.packages(missing, lib = lib, repos = "https://cloud.r-project.org")
}
RSCRIPT
