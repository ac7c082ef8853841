# The lambda paths of krr_fit() (ridge_path.cpp) from the band form
# (band_reduction.hpp: a band reduction by matrix products, a banded
# Cholesky factor per lambda) against the tridiagonal form (tridiagonal.hpp,
# the paths before): a CV fold's (the coefficients for 50 lambdas and k
# responses) and the fit's (GCV score and df of 50 lambdas, then the
# chosen one's coefficients). Both with kitchen's kernels on 2 threads; the
# two forms interleaved within each repeat, median of repeats; the largest
# relative difference of their results is reported too.
# Run from the repository root: Rscript bench/band-reduction.R [repeats]
# Results go to bench/results/band-reduction.md (KITCHEN_BENCH_OUTPUT=name
# for another file).

source(file.path("bench", "common.R"))
library(kitchen)
args <- commandArgs(TRUE)
repeats <- if (length(args)) as.integer(args[[1]]) else 3L
dims <- as.integer(strsplit(Sys.getenv("KITCHEN_BENCH_DIMS", "512,1024,2048,3072,4096"), ",")[[1]])
simd <- kitchen:::simd_used()
lambdas <- 10^seq(1, -9, length.out = 50)
path <- function(g, zy, band) {
  kitchen:::ridge_path_coefficients_cpp(g, zy, lambdas, FALSE, 2L, simd, band)
}
gcv_path <- function(g, zy, band) {
  r <- kitchen:::ridge_gcv_path_cpp(g, zy, sum(zy^2) + 1e4, 1e5, lambdas, 0L, FALSE, 2L, simd, band)
  c(r$gcv, r$df, r$coefficients)
}
rows <- character()
gcv_rows <- character()
for (dim in dims) {
  set.seed(1)
  a <- matrix(rnorm(dim * dim), dim)
  g <- a + t(a) + diag(4 * sqrt(dim), dim)  # positive definite
  for (k in c(1L, 26L)) {
    zy <- matrix(rnorm(dim * k), dim, k)
    times <- replicate(repeats, c(tridiagonal = seconds(tri <<- path(g, zy, FALSE)),
                                  band = seconds(band <<- path(g, zy, TRUE))))
    med <- apply(times, 1, stats::median)
    rows <- c(rows, sprintf("| %d | %d | %.3f | %.3f | %.2f | %.1e |", dim, k, med[["tridiagonal"]],
                            med[["band"]], med[["tridiagonal"]] / med[["band"]],
                            max(abs(band - tri)) / max(abs(tri))))
    times <- replicate(repeats, c(tridiagonal = seconds(tri <<- gcv_path(g, zy, FALSE)),
                                  band = seconds(band <<- gcv_path(g, zy, TRUE))))
    med <- apply(times, 1, stats::median)
    gcv_rows <- c(gcv_rows, sprintf("| %d | %d | %.3f | %.3f | %.2f | %.1e |", dim, k,
                                    med[["tridiagonal"]], med[["band"]],
                                    med[["tridiagonal"]] / med[["band"]],
                                    max(abs(band - tri) / pmax(abs(tri), 1e-300))))
  }
}
write_result(c(
  "# Lambda paths from a band form against a tridiagonal form (bench/band-reduction.R)", "",
  machine_description(), "",
  sprintf("G = A + A' + 4 sqrt(D) I (D x D), 50 lambdas, k responses (columns of Z'y); one call of `ridge_path_coefficients_cpp(G, zy, lambdas, FALSE, 2L, \"%s\", band)` per method and repeat, the two interleaved; median of %d repeats; seconds.", simd, repeats), "",
  "## A CV fold's path", "",
  "| D | k | tridiagonal | band | ratio | max relative difference |",
  "| --- | --- | --- | --- | --- | --- |", rows, "",
  "## The fit's GCV path (`ridge_gcv_path_cpp()`)", "",
  "Relative difference: the largest over the GCV scores, df and the chosen coefficients, each relative to itself.", "",
  "| D | k | tridiagonal | band | ratio | max relative difference |",
  "| --- | --- | --- | --- | --- | --- |", gcv_rows, "", timing_note()
), Sys.getenv("KITCHEN_BENCH_OUTPUT", "band-reduction.md"))
