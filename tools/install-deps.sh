#!/usr/bin/env bash
# Installs what kitchen needs to build, check and demo, skipping what is there.
#
# R packages: as root (or with password-less sudo) on Debian/Ubuntu, Debian's
# prebuilt r-cran-* packages; whatever is still missing comes from the
# repository R is configured with (getOption("repos"), as install.packages()
# uses it), into the site library if it is writable and the personal library
# otherwise. System tools R CMD check --as-cran uses (pandoc, tidy, qpdf,
# LaTeX): from apt as root, otherwise each missing one is named with what the
# check does without it.
set -euo pipefail

# The last lines: Suggests for the tidymodels, broom and data.table
# integrations (parsnip, dials, tune, workflows and yardstick are not in
# Debian: they come from the repository, with newer versions of some of their
# dependencies; tidyr and ggplot2 are dependencies of parsnip listed so that
# apt, not a source build, provides them), and for the database and Parquet
# sources (DBI and RSQLite from Debian, nanoparquet from the repository).
# arrow and duckdb, the other readers kitchen can use, are left out: each is
# a long build (arrow also downloads its C++ library); their tests skip.
# RcppArmadillo is only there for tune's dependency GauPro: from apt it
# saves the longest compile of the list.
r_packages=(
  Rcpp RcppEigen RcppParallel cli rlang Matrix testthat roxygen2 pkgbuild knitr
  rmarkdown processx future
  generics tibble recipes data.table tidyr ggplot2 parsnip dials scales
  rsample tune workflows yardstick RcppArmadillo
  DBI RSQLite nanoparquet
)

# The R packages of r_packages that are not installed.
missing_r_packages() {
  Rscript -e 'p <- commandArgs(TRUE)' \
    -e 'cat(p[!nzchar(vapply(p, function(x) system.file(package = x), ""))])' \
    "${r_packages[@]}"
}

# The system tools that are missing, one line each:
# "what|Debian packages|what the check does without it".
missing_system_tools() {
  command -v pandoc >/dev/null 2>&1 ||
    echo "pandoc|pandoc|vignettes are not built or checked"
  command -v tidy >/dev/null 2>&1 ||
    echo "tidy|tidy|the HTML help pages are not validated"
  command -v qpdf >/dev/null 2>&1 ||
    echo "qpdf|qpdf|the size of PDF files is not checked"
  if ! command -v pdflatex >/dev/null 2>&1; then
    echo "pdflatex|texlive-latex-base texlive-latex-recommended texlive-fonts-recommended|the PDF manual is not checked"
  elif command -v kpsewhich >/dev/null 2>&1; then
    # R's Rd.sty uses fancyvrb; the manual is set in Times (tools/check.sh).
    [ -n "$(kpsewhich fancyvrb.sty)" ] ||
      echo "LaTeX's fancyvrb.sty|texlive-latex-recommended|the PDF manual cannot be made"
    [ -n "$(kpsewhich ptmr8t.tfm)" ] ||
      echo "LaTeX's Times fonts|texlive-fonts-recommended|the PDF manual cannot be made"
  fi
}

read -r -a missing_r <<<"$(missing_r_packages)"
mapfile -t missing_tools < <(missing_system_tools)

if [ ${#missing_r[@]} -eq 0 ] && [ ${#missing_tools[@]} -eq 0 ]; then
  echo "install-deps: all ${#r_packages[@]} R packages and the check's tools are installed"
  exit 0
fi

root="none"
if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then
    root=""
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    root="sudo"
  fi
fi

if [ "$root" != "none" ]; then
  $root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  debian=()
  for p in "${missing_r[@]}"; do
    # Debian ships most of them as r-cran-<lower-case name>.
    d="r-cran-${p,,}"
    apt-cache show "$d" >/dev/null 2>&1 && debian+=("$d")
  done
  for t in "${missing_tools[@]}"; do
    IFS='|' read -r _ packages _ <<<"$t"
    read -r -a packages <<<"$packages"
    debian+=("${packages[@]}")
  done
  if [ ${#debian[@]} -gt 0 ]; then
    echo "install-deps: installing from apt: ${debian[*]}"
    $root env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends "${debian[@]}" >/dev/null
  fi
  read -r -a missing_r <<<"$(missing_r_packages)"
else
  for t in "${missing_tools[@]}"; do
    IFS='|' read -r what packages without <<<"$t"
    echo "install-deps: $what is missing, so $without (Debian: $packages; not installed: needs root)" >&2
  done
fi

[ ${#missing_r[@]} -eq 0 ] && exit 0

# The R packages still missing, from R's configured repository: into the site
# library if it is writable and the personal library otherwise (created if
# needed, so that R CMD INSTALL of kitchen has a place to go too).
Rscript - "${missing_r[@]}" <<'RSCRIPT'
missing <- commandArgs(TRUE)
repos <- getOption("repos")
if (!length(repos) || any(repos %in% c("@CRAN@", ""))) {
  stop("install-deps: R has no package repository configured ",
       "(getOption(\"repos\") is ", deparse(unname(repos)), "), so ",
       toString(missing), " cannot be installed. Set one once, for example ",
       "with chooseCRANmirror() in R or options(repos = c(CRAN = \"<mirror URL>\")) ",
       "in ~/.Rprofile, then run this again.", call. = FALSE)
}
lib <- .libPaths()[1]
if (file.access(lib, 2) != 0) {
  lib <- Sys.getenv("R_LIBS_USER")
  dir.create(lib, recursive = TRUE, showWarnings = FALSE)
  .libPaths(c(lib, .libPaths()))
}
message("install-deps: installing from ", toString(repos), " into ", lib, ": ",
        toString(missing))
install.packages(missing, lib = lib)
failed <- missing[!nzchar(vapply(missing, function(p) system.file(package = p), ""))]
if (length(failed)) {
  stop("install-deps: could not install ", toString(failed),
       " (see the messages above)", call. = FALSE)
}
RSCRIPT
