# Benchmark of the Gram accumulation G += Z'Z of krr_fit() on its non-BLAS
# path (used with R's reference BLAS), per SIMD level and thread count, and
# of the whole fit before (scalar, Eigen) and after (best level).
# Run from the repository root: Rscript bench/gram.R
# (optionally GRAM_BASELINE_LIB=<library with an older kitchen>, see below).
# Results go to bench/results/gram.md.
#
# Z is 16384 x 2048 (a fit on 1e5 rows at 2048 features does about six such
# products); flops = rows * dim * (dim + 1), the multiply-adds of the upper
# triangle counted twice. Each fit runs in its own process.

n <- 100000; d <- 64; n_features <- 2048; lambda <- 1

fit <- function() {
  library(kitchen)
  set.seed(1)
  x <- matrix(rnorm(n * d), n, d)
  y <- sin(x[, 1]) + rnorm(n, sd = 0.1)
  map <- rff(d, n_features, sigma = 8, seed = 1)
  t <- system.time(krr_fit(x, y, map, lambda = lambda, n_threads = 2,
                           verbose = FALSE))[["elapsed"]]
  cat(t, "\n")
}

if ("--fit" %in% commandArgs(TRUE)) {
  fit()
  quit(save = "no")
}

library(kitchen)
source(file.path("bench", "common.R"))
load_average <- function() readLines("/proc/loadavg")

rows <- 16384; dim <- 2048
set.seed(1)
z <- matrix(rnorm(rows * dim), rows, dim)
g <- matrix(0, dim, dim)
flops <- rows * dim * (dim + 1)
load_before <- load_average()
grid <- expand.grid(threads = 1:2, level = c("scalar", "avx2", "avx512"),
                    stringsAsFactors = FALSE)
grid$seconds <- mapply(function(threads, level) {
  simd <- level
  median_time(function() kitchen:::gram_update_cpp(g, z, FALSE, threads, simd),
              repeats = 5, min_seconds = 0)
}, grid$threads, grid$level)
grid$gflops <- flops / grid$seconds / 1e9
load_after <- load_average()

# End to end, reference BLAS, median of 3 processes per setting. With
# GRAM_BASELINE_LIB set to a library holding kitchen built before the SIMD
# kernels (e.g. from commit 9b831df), that build is timed too.
rscript <- file.path(R.home("bin"), "Rscript")
fit_seconds <- function(env) {
  times <- vapply(1:3, function(i) {
    out <- system2(rscript, c("bench/gram.R", "--fit"), stdout = TRUE, env = env)
    as.numeric(utils::tail(out, 1))
  }, 0)
  c(median = stats::median(times), min = min(times), max = max(times))
}
fits <- rbind("scalar: Eigen panels, 2 threads" = fit_seconds("KITCHEN_SIMD=scalar"),
              "auto: best level (avx512 here)" = fit_seconds("KITCHEN_SIMD=auto"))
baseline <- Sys.getenv("GRAM_BASELINE_LIB")
if (nzchar(baseline)) {
  fits <- rbind("before: Eigen panels, 1 thread in effect (9b831df)" =
                  fit_seconds(sprintf("R_LIBS=%s", baseline)), fits)
}

write_result(c(
  "# Gram accumulation (G += Z'Z) benchmark", "",
  machine_description(), "",
  sprintf("Z = %d x %d, `kitchen:::gram_update_cpp(G, Z, use_blas = FALSE, threads, simd)`,", rows, dim),
  "median of 5 calls (one call each); GFlop/s = rows * dim * (dim + 1) / seconds.",
  sprintf("Load average (1, 5, 15 min) before: %s; after: %s.", load_before, load_after),
  "The machine has 2 cores and may be shared: 2-thread numbers are only as good",
  "as the second core was free.", "",
  "| level | threads | seconds | GFlop/s |", "| --- | --- | --- | --- |",
  sprintf("| %s | %d | %s | %s |", grid$level, grid$threads, three_digits(grid$seconds),
          three_digits(grid$gflops)),
  "",
  "## krr_fit end to end",
  "",
  sprintf("n = %d, d = %d, rff(%d, %d, sigma = 8, seed = 1), lambda = %g, 2 threads,",
          n, d, d, n_features, lambda),
  "reference BLAS, block_size 4096 (default); seconds of system.time(krr_fit(...)),",
  "each fit in its own process (KITCHEN_SIMD=level), 3 processes per setting.",
  "Before this branch, chunks of one expensive panel ran inline, so the Eigen",
  "panels used one thread whatever n_threads.", "",
  "| SIMD | median s | min s | max s |", "| --- | --- | --- | --- |",
  sprintf("| %s | %s | %s | %s |", rownames(fits), three_digits(fits[, 1]),
          three_digits(fits[, 2]), three_digits(fits[, 3]))
), "gram.md")
