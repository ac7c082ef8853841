# predict() of many rows from a krr_fit() fit, for two builds of kitchen side
# by side (issue 22: predict() must not pay fresh memory per block). Usage,
# from the repository root:
#   Rscript bench/predict-many.R <library of build A> <library of build B> [repeats]
# Each case runs in a fresh Rscript child (GNU time counts its minor page
# faults), builds alternating; the table gives medians of the predict time
# (best of 3 calls within the child) and of the child's page faults.
# Results: bench/results/predict-many.md.

args <- commandArgs(TRUE)
if (length(args) >= 1 && args[1] == "--predict") {
  suppressPackageStartupMessages(library(kitchen))
  kind <- args[2]; n_features <- as.integer(args[3]); n_threads <- as.integer(args[4])
  set.seed(1)
  d <- 64; n <- 1e5
  x <- matrix(stats::rnorm(2000 * d), 2000, d)
  y <- stats::rnorm(2000)
  map <- if (kind == "rff") rff(x, n_features, sigma = 8, seed = 1) else
    fastfood(x, n_features, sigma = 8, seed = 1)
  fit <- krr_fit(x, y, map, lambda = 0.1, n_threads = n_threads)
  new_rows <- matrix(stats::rnorm(n * d), n, d)
  seconds <- min(vapply(1:3, function(i) {
    system.time(predict(fit, new_rows, n_threads = n_threads))[["elapsed"]]
  }, 0))
  cat(seconds, "\n")
  quit(save = "no")
}

source(file.path("bench", "common.R"))
libs <- args[1:2]
.libPaths(c(libs[2], .libPaths()))  # machine_description() names build B
repeats <- if (length(args) >= 3) as.integer(args[3]) else 3L
cases <- list(c("rff", 1024, 1), c("rff", 1024, 2), c("rff", 4096, 2), c("fastfood", 1024, 2))
run <- function(lib, case) {
  log <- tempfile()
  out <- system2("/usr/bin/time", c("-f", "%R", "-o", log, file.path(R.home("bin"), "Rscript"),
                                   "bench/predict-many.R", "--predict", case),
                 stdout = TRUE, env = paste0("R_LIBS=", lib))
  c(as.numeric(trimws(utils::tail(out, 1))), as.numeric(utils::tail(readLines(log), 1)))
}
rows <- alternating_rows(libs, cases, run, repeats, function(case, a, b, all_b) {
  sprintf("| %s | %s | %s | %.3f | %.3f | %.2f | %.0f | %.0f |", case[1], case[2], case[3],
          a[1], b[1], a[1] / b[1], a[2], b[2])
})
write_result(c("# predict() of 100,000 rows (bench/predict-many.R)", "",
               machine_description(), "",
               sprintf("Command: `Rscript bench/predict-many.R %s %s %d` (A: before, B: after).",
                       libs[1], libs[2], repeats),
               "A krr_fit() fit on 2,000 rows (d = 64, sigma = 8, lambda 0.1), then predict() of 100,000 new rows",
               sprintf("(default block size); seconds: best of 3 calls in a child, median over %d children per build, builds alternating.", repeats),
               "Page faults: the whole child's minor faults (GNU time %R; fit and data included), median.", "",
               "| map | D | threads | predict A (s) | predict B (s) | A / B | page faults A | page faults B |",
               "| --- | --- | --- | --- | --- | --- | --- | --- |", rows), "predict-many.md")
