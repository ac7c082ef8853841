# predict()'s block scores z %*% coefficients: kitchen's product in the
# reference BLAS's order (src/ordered_product.cpp) against R's %*% on the
# reference BLAS, side by side, for one 4096-row block of 4096 features and
# 1 to 26 columns (responses or classes), on 1 and 2 threads. Medians of 7,
# the settings interleaved. Run from the repository root:
#   nice -n 10 Rscript bench/ordered-product.R
# Results go to bench/results/ordered-product.md. The bits are checked too.
suppressPackageStartupMessages(library(kitchen))
source(file.path("bench", "common.R"))
if (kitchen:::blas_is_optimised()) stop("this benchmark is about the reference BLAS")

set.seed(1)
z <- matrix(rnorm(4096 * 4096), 4096, 4096)
repeats <- 7
rows <- lapply(c(1, 2, 3, 4, 8, 26), function(k) {
  coefficients <- matrix(rnorm(4096 * k), 4096, k)
  stopifnot(identical(kitchen:::ordered_product_cpp(z, coefficients, 2L, kitchen:::resolve_simd()),
                      z %*% coefficients))
  times <- replicate(repeats, c(
    blas = system.time(z %*% coefficients)[["elapsed"]],
    one = system.time(kitchen:::ordered_product_cpp(z, coefficients, 1L, kitchen:::resolve_simd()))[["elapsed"]],
    two = system.time(kitchen:::ordered_product_cpp(z, coefficients, 2L, kitchen:::resolve_simd()))[["elapsed"]]))
  m <- apply(times, 1, stats::median)
  sprintf("| %d | %.3f | %.3f | %.3f | %.2fx |", k, m[["blas"]], m[["one"]], m[["two"]],
          m[["blas"]] / m[["two"]])
})
write_result(c(
  "# Block scores in the reference BLAS's order", "",
  machine_description(), "",
  sprintf("One block: 4096 rows x 4096 features times k columns; medians of %d, interleaved;", repeats),
  "every result identical() to %*%.", "",
  "| k | %*% (reference dgemm / dgemv, s) | kitchen, 1 thread (s) | kitchen, 2 threads (s) | %*% / kitchen on 2 threads |",
  "| --- | --- | --- | --- | --- |",
  unlist(rows)
), "ordered-product.md")
