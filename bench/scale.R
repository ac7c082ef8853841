# Scale run of the krr_fit issue: n = 5,000,000 rows (generated block by
# block, d = 10), gaussian rff with D = 1024, lambda by GCV. Reports time
# and the peak resident memory of the fitting process (target: under
# 1.5 GB). Run from the repository root: Rscript bench/scale.R
# Results go to bench/results/scale.md.

n <- 5e6; d <- 10; n_features <- 1024

if ("--fit" %in% commandArgs(TRUE)) {
  suppressPackageStartupMessages(library(kitchen))
  set.seed(1)
  x <- matrix(0, n, d)
  y <- numeric(n)
  for (start in seq(1, n, by = 1e6)) {
    rows <- start:(start + 1e6 - 1)
    block <- matrix(stats::runif(1e6 * d, -2, 2), 1e6, d)
    x[rows, ] <- block
    y[rows] <- sin(2 * block[, 1]) * cos(block[, 2]) + block[, 3]^2 / 4 + stats::rnorm(1e6, sd = 0.1)
  }
  rm(block)
  map <- rff(d, n_features, sigma = 5, seed = 1)  # about the median distance of the rows
  # GCV, as measured (the default became 5-fold CV since)
  seconds <- system.time(fit <- krr_fit(x, y, map, lambda = "gcv", n_threads = 2,
                                        verbose = FALSE))[["elapsed"]]
  held_out <- matrix(stats::runif(1e5 * d, -2, 2), 1e5, d)
  truth <- sin(2 * held_out[, 1]) * cos(held_out[, 2]) + held_out[, 3]^2 / 4
  rmse <- sqrt(mean((predict(fit, held_out) - truth)^2))
  cat(seconds, rmse, fit$lambda, stats::sd(truth), "\n")
  quit(save = "no")
}

source(file.path("bench", "common.R"))
log <- tempfile()
out <- system2("/usr/bin/time", c("-f", "%M", "-o", log, file.path(R.home("bin"), "Rscript"),
                                 "bench/scale.R", "--fit"), stdout = TRUE)
figures <- as.numeric(strsplit(trimws(utils::tail(out, 1)), " ")[[1]])
peak_mb <- as.numeric(utils::tail(readLines(log), 1)) / 1024
write_result(c("# krr_fit() on 5,000,000 rows", "", machine_description(), "",
               "Command: `Rscript bench/scale.R`. n = 5e6 rows generated block by block, d = 10, gaussian rff, D = 1024, lambda by GCV over 50 candidates, 2 threads; the fit runs in a child process whose peak RSS GNU time reports (it includes the 400 MB of x and the 40 MB of y).", "",
               "| rows | D | fit time | peak RSS | RMSE against the noiseless truth on 1e5 new rows (sd of the truth) | lambda |",
               "| --- | --- | --- | --- | --- | --- |",
               sprintf("| 5,000,000 | %d | %.1f s | %.0f MB | %.4f (%.4f) | %.3g |", n_features, figures[1],
                       peak_mb, figures[2], figures[4], figures[3])), "scale.md")
