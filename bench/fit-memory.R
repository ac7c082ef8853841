# How many D x D matrices a dense least-squares fit holds at its peak: the
# counts behind square_matrices_held() (R/fit_memory.R), which refuses fits
# that would not fit in memory. Each configuration runs in a child process
# (peak resident memory from /proc/self/status, VmHWM), on 5,000 rows x 10
# columns, rff with D = 4000 (one D x D matrix: 128 MB). The matrices are
# (peak - the same process's peak after a fit at D = 64 - one block of
# 4096 rows' features) / (8 D^2).
#   Rscript bench/fit-memory.R          (from the repository root)
# Results: bench/results/fit-memory.md.

source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))

if (length(args <- commandArgs(TRUE)) && args[1] == "--child") {
  D <- as.integer(args[2])
  set.seed(1)
  x <- matrix(rnorm(5000 * 10), 5000)
  y <- rnorm(5000)
  lambda <- if (args[3] %in% c("cv", "gcv")) args[3] else as.numeric(args[3])
  sigmas <- if (args[4] == "4") c(0.5, 1, 2, 4) else NULL
  krr_fit(x, y, rff(x, D, sigma = 1, seed = 1), lambda = lambda, sigma = sigmas,
          verbose = FALSE, n_threads = 2)
  cat(peak_memory_mb(), "\n")
  quit(save = "no")
}

D <- 4000
cases <- data.frame(lambda = c("0.1", "gcv", "gcv", "cv", "cv"),
                    candidates = c("1", "1", "4", "1", "4"), stringsAsFactors = FALSE)
child <- function(D, lambda, candidates) {
  out <- system2(file.path(R.home("bin"), "Rscript"),
                 c("bench/fit-memory.R", "--child", D, lambda, candidates), stdout = TRUE)
  as.numeric(utils::tail(out, 1))
}
matrix_mb <- 8 * D^2 / 2^20
block_mb <- 8 * 4096 * D / 2^20
rows <- lapply(seq_len(nrow(cases)), function(i) {
  base <- child(64, cases$lambda[i], cases$candidates[i])
  peak <- child(D, cases$lambda[i], cases$candidates[i])
  held <- (peak - base - block_mb) / matrix_mb
  data.frame(lambda = cases$lambda[i], candidates = cases$candidates[i],
             "peak MB" = round(peak), "at D = 64" = round(base),
             "D x D matrices" = sprintf("%.1f", held),
             "counted by the check" = kitchen:::square_matrices_held(
               if (cases$lambda[i] == "cv") 5L, as.integer(cases$candidates[i])),
             check.names = FALSE)
})
write_result(c("# D x D matrices a dense fit holds (bench/fit-memory.R)", "",
               machine_description(), "",
               sprintf("5,000 rows x 10 columns, rff D = %d (one D x D matrix: %.0f MB), 5-fold CV where lambda = \"cv\", candidates = bandwidths given; peak resident memory of a child process (VmHWM), less that of the same fit at D = 64 and one 4096-row block of features (%.0f MB).", D, matrix_mb, block_mb), "",
               markdown_table(do.call(rbind, rows)), "",
               "The check counts at most what was measured, so that it refuses no fit that would fit."),
             "fit-memory.md")
