# Benchmark of fwht(): time per column through R, for the targets of the
# foundation issue. Run from the repository root: Rscript bench/fwht.R
# Results go to bench/results/fwht.md.
library(kitchen)
source(file.path("bench", "common.R"))

set.seed(1)
with_simd <- function(level, f) function() {
  old <- options(kitchen.simd = level)
  on.exit(options(old))
  f()
}

# Matrices of about 64 MB so per-call costs are amortised over many columns.
sizes <- c(2^10, 2^12, 2^16, 2^20)
targets_us <- c(0.9, 4.4, 100, 2600)
rows <- lapply(seq_along(sizes), function(i) {
  n <- sizes[i]
  cols <- max(8, 2^23 / n)
  x <- matrix(rnorm(n * cols), n, cols)
  per_col <- function(f) 1e6 * median_time(f, repeats = 11) / cols
  one <- per_col(function() fwht(x, n_threads = 1))
  two <- per_col(function() fwht(x, n_threads = 2))
  scalar <- per_col(with_simd("scalar", function() fwht(x, n_threads = 1)))
  avx2 <- per_col(with_simd("avx2", function() fwht(x, n_threads = 1)))
  data.frame(n = sprintf("2^%d", log2(n)), columns = cols,
             target_us = targets_us[i], auto_1_thread_us = one,
             avx2_1_thread_us = avx2, scalar_1_thread_us = scalar,
             auto_2_threads_us = two, speedup_2_threads = one / two)
})
table <- do.call(rbind, rows)

# One short vector: the whole cost of a call from R.
v <- rnorm(1024)
single_us <- 1e6 * median_time(function() fwht(v), repeats = 21, inner = 2000)

fmt <- function(df) {
  num <- vapply(df, is.numeric, TRUE)
  df[num] <- lapply(df[num], function(v) formatC(v, digits = 3, format = "fg"))
  c(paste("|", paste(names(df), collapse = " | "), "|"),
    paste("|", paste(rep("---", ncol(df)), collapse = " | "), "|"),
    apply(df, 1, function(r) paste("|", paste(r, collapse = " | "), "|")))
}

write_result(c(
  "# fwht() benchmark", "",
  machine_description(), "",
  "Time per column through R (`fwht(x)` on an n x columns matrix, result allocation",
  "included), median of 11 calls; `auto` is the best SIMD level of this CPU.", "",
  fmt(table), "",
  sprintf("One call on one vector of length 1024: %.2f us (median of 21 x 2000 calls; target <= 10 us).",
          single_us)
), "fwht.md")
