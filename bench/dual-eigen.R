# The dual paths' n x n eigendecomposition (R/kept_eigen.R): R's eigen()
# (build A) against kitchen's threaded reduction and MRRR (build B), and, on
# build B, the dual path against the primal past the former 1000-row cap.
# Default fits (lambda by 5-fold CV) on a given rff map, 8 synthetic columns,
# least squares and the logistic loss. Usage, from the repository root:
#   Rscript bench/dual-eigen.R <library of build A> <library of build B> [repeats]
# Each fit runs in a fresh Rscript child, builds alternating; the table gives
# medians. Results: bench/results/dual-eigen.md.

args <- commandArgs(TRUE)
if (length(args) >= 1 && args[1] == "--fit") {
  suppressPackageStartupMessages(library(kitchen))
  n <- as.integer(args[2]); n_features <- as.integer(args[3]); loss <- args[4]; dual <- args[5]
  options(kitchen.dual = if (dual == "auto") "auto" else as.logical(dual))
  set.seed(n)
  x <- matrix(stats::rnorm(n * 8), n)
  signal <- sin(x[, 1]) + x[, 2] / 2
  y <- if (loss == "logistic") factor(signal + stats::rnorm(n, sd = 0.5) > 0) else
    signal + stats::rnorm(n, sd = 0.3)
  map <- rff(x, n_features, seed = 1)
  s <- system.time(fit <- krr_fit(x, y, map, loss = loss, n_threads = 2, verbose = FALSE))
  took_dual <- if (loss == "logistic") isTRUE(fit$logistic$dual) else isTRUE(fit$dual)
  cat(s[["elapsed"]], took_dual, fit$lambda, "\n")
  quit(save = "no")
}

source(file.path("bench", "common.R"))
libs <- args[1:2]
.libPaths(c(libs[2], .libPaths()))  # machine_description() names build B
repeats <- if (length(args) >= 3) as.integer(args[3]) else 2L
# n, D, loss, path on build A, path on build B
cases <- list(c(500, 2000, "squared", "TRUE", "TRUE"),
              c(1000, 4000, "squared", "TRUE", "TRUE"),
              c(1001, 4000, "squared", "FALSE", "TRUE"),
              c(1500, 4500, "squared", "FALSE", "TRUE"),
              c(500, 2000, "logistic", "TRUE", "TRUE"),
              c(1001, 3000, "logistic", "FALSE", "TRUE"))
run <- function(lib, case) {
  path <- if (lib == libs[1]) case[4] else case[5]
  out <- system2(file.path(R.home("bin"), "Rscript"), c("bench/dual-eigen.R", "--fit", case[1:3], path),
                 stdout = TRUE, env = paste0("R_LIBS=", lib))
  fields <- strsplit(trimws(utils::tail(out, 1)), " ")[[1]]
  c(as.numeric(fields[1]), as.logical(fields[2]), as.numeric(fields[3]))
}
path_name <- function(dual) if (dual == "TRUE") "dual" else "primal"
load_before <- readLines("/proc/loadavg")
rows <- alternating_rows(libs, cases, run, repeats, function(case, a, b, all_b) {
  sprintf("| %s | %s | %s | A %s: %.2f | B %s: %.2f | %.2f | %.3g / %.3g |", case[1], case[2], case[3],
          path_name(case[4]), a[1], path_name(case[5]), b[1], b[1] / a[1], a[3], b[3])
})
write_result(c("# The dual paths' eigendecomposition (bench/dual-eigen.R)", "",
               machine_description(),
               sprintf("load average before / after: %s / %s", load_before, readLines("/proc/loadavg")), "",
               sprintf("Command: `Rscript bench/dual-eigen.R %s %s %d` (A: before, B: after).",
                       libs[1], libs[2], repeats),
               "`krr_fit(x, y, rff(x, D, seed = 1), loss = loss, n_threads = 2)`, lambda by 5-fold CV, 8 synthetic",
               "columns; the path forced by `options(kitchen.dual)`; seconds are medians of the runs, builds alternating,",
               "each fit in a fresh Rscript child.", "",
               "| n | D | loss | build A (s) | build B (s) | B / A | lambda A / B |",
               "| --- | --- | --- | --- | --- | --- | --- |", rows), "dual-eigen.md")
