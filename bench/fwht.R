# Benchmark of fwht() through R, for the targets of the foundation issue.
# Run from the repository root: Rscript bench/fwht.R
# Results go to bench/results/fwht.md.
#
# Each setting is measured in two child R processes started side by side in
# this run: one with glibc's default malloc, one with malloc told to keep
# freed memory (MALLOC_TOP_PAD_, MALLOC_TRIM_THRESHOLD_). On this VM a page
# fault is expensive, and with the defaults every fresh R result of a few MB
# is faulted in anew; the second process shows the cost of the transform
# itself. `copy` is the time R takes for x + 0 on the same matrix: the floor
# for any function returning a new matrix of that size.

measure <- function() {
  library(kitchen)
  source(file.path("bench", "common.R"))
  set.seed(1)
  with_simd <- function(level, f) function() {
    old <- options(kitchen.simd = level)
    on.exit(options(old))
    f()
  }
  # 16 MB matrices (8 columns at 2^20) so per-call costs are amortised over
  # many columns while glibc can still recycle the memory of earlier results.
  sizes <- c(2^10, 2^12, 2^16, 2^20)
  rows <- lapply(sizes, function(n) {
    cols <- max(8, 2^21 / n)
    x <- matrix(rnorm(n * cols), n, cols)
    per_col <- function(f) 1e6 * median_time(f, repeats = 11) / cols
    data.frame(
      n = n, columns = cols,
      auto_1t = per_col(function() fwht(x, n_threads = 1)),
      auto_2t = per_col(function() fwht(x, n_threads = 2)),
      avx2_1t = per_col(with_simd("avx2", function() fwht(x, n_threads = 1))),
      scalar_1t = per_col(with_simd("scalar", function() fwht(x, n_threads = 1))),
      copy = per_col(function() x + 0))
  })
  v <- rnorm(1024)
  single <- data.frame(n = 1024, columns = 1,
                       auto_1t = 1e6 * median_time(function() fwht(v), repeats = 21),
                       auto_2t = NA, avx2_1t = NA, scalar_1t = NA,
                       copy = 1e6 * median_time(function() v + 0, repeats = 21))
  utils::write.csv(rbind(do.call(rbind, rows), single), stdout(), row.names = FALSE)
}

if ("--measure" %in% commandArgs(TRUE)) {
  measure()
  quit(save = "no")
}

source(file.path("bench", "common.R"))
child <- function(env) {
  out <- system2(file.path(R.home("bin"), "Rscript"), c("bench/fwht.R", "--measure"),
                 stdout = TRUE, env = env)
  utils::read.csv(text = out)
}
default_malloc <- child(character())
kept_malloc <- child(c("MALLOC_TOP_PAD_=268435456", "MALLOC_TRIM_THRESHOLD_=536870912"))

targets <- c(0.9, 4.4, 100, 2600, 10)
fmt <- function(v) ifelse(is.na(v), "", formatC(v, digits = 3, format = "fg"))
table_lines <- function(d) {
  label <- ifelse(d$columns == 1, "one call, length 1024", sprintf("2^%d x %d", log2(d$n), d$columns))
  c("| x | target (us) | auto, 1 thread | auto, 2 threads | 2-thread speed-up | AVX2, 1 thread | scalar, 1 thread | x + 0 (R copy) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    sprintf("| %s | %s | %s | %s | %s | %s | %s | %s |", label, fmt(targets), fmt(d$auto_1t),
            fmt(d$auto_2t), fmt(d$auto_1t / d$auto_2t), fmt(d$avx2_1t), fmt(d$scalar_1t), fmt(d$copy)))
}

library(kitchen)
write_result(c(
  "# fwht() benchmark", "",
  machine_description(), "",
  "Microseconds per column through R (`fwht(x)`, result allocation included; one",
  "call for the last row), median of 11 timings (21 for the single call), each",
  "timing at least 50 ms of repeated calls. `auto` is the best SIMD level of the CPU.", "",
  "## glibc malloc with default settings", "",
  table_lines(default_malloc), "",
  "## glibc malloc keeping freed memory (MALLOC_TOP_PAD_=256MB, MALLOC_TRIM_THRESHOLD_=512MB)", "",
  table_lines(kept_malloc)
), "fwht.md")
