# A default krr_fit() (lambda = "cv": five folds' lambda paths and the fit's
# own) on bench/krr.R's kind of problem (n = 1e5 rows, d = 64 columns, rff
# with D features), with this build and another build of kitchen side by
# side: each fit in its own process, the builds alternating over rounds.
# Run from the repository root:
#   KITCHEN_THIS_LIB=<library> KITCHEN_BASE_LIB=<library> Rscript bench/cv-fit.R [D] [rounds]
# Prints a markdown table (no results file: paste it where it is discussed).

args <- commandArgs(TRUE)
if (length(args) >= 1 && args[[1]] == "--child") {
  n_features <- as.integer(args[[2]])
  suppressPackageStartupMessages(library(kitchen, lib.loc = Sys.getenv("KITCHEN_CHILD_LIB")))
  set.seed(1)
  n <- 1e5
  d <- 64
  x <- matrix(rnorm(n * d), n)
  y <- sin(x[, 1]) + x[, 2] * x[, 3] / 2 + rnorm(n, sd = 0.1)
  map <- rff(x, n_features, sigma = 8, seed = 1)
  seconds <- system.time(fit <- krr_fit(x, y, map))[["elapsed"]]
  cat(sprintf("%.2f %.10g %.10g\n", seconds, fit$lambda, fit$training_rmse))
  quit(save = "no")
}

source(file.path("bench", "common.R"))
n_features <- if (length(args) >= 1) as.integer(args[[1]]) else 2048L
rounds <- if (length(args) >= 2) as.integer(args[[2]]) else 2L
libs <- c(this = Sys.getenv("KITCHEN_THIS_LIB"), base = Sys.getenv("KITCHEN_BASE_LIB"))
if (any(!nzchar(libs))) stop("set KITCHEN_THIS_LIB and KITCHEN_BASE_LIB")
rscript <- file.path(R.home("bin"), "Rscript")
runs <- list()
for (round in seq_len(rounds)) {
  for (build in names(libs)) {
    out <- system2(rscript, c("bench/cv-fit.R", "--child", n_features), stdout = TRUE,
                   env = sprintf("KITCHEN_CHILD_LIB=%s", libs[[build]]))
    value <- as.numeric(strsplit(tail(out, 1), " ")[[1]])
    runs[[length(runs) + 1]] <- data.frame(build = build, seconds = value[1], lambda = value[2],
                                           training_rmse = value[3])
  }
}
runs <- do.call(rbind, runs)
suppressPackageStartupMessages(library(kitchen, lib.loc = libs[["this"]]))
cat(machine_description(), "", sep = "\n")
cat(sprintf("D = %d, %d rounds; seconds of each fit (builds alternating), its lambda and training RMSE:\n\n",
            n_features, rounds))
cat("| build | seconds (each round) | median | lambda | training RMSE |",
    "| --- | --- | --- | --- | --- |", sep = "\n")
for (build in names(libs)) {
  mine <- runs[runs$build == build, ]
  cat(sprintf("| %s | %s | %.2f | %s | %s |\n", build, paste(sprintf("%.2f", mine$seconds), collapse = ", "),
              stats::median(mine$seconds), paste(unique(format(mine$lambda, digits = 10)), collapse = ", "),
              paste(unique(format(mine$training_rmse, digits = 10)), collapse = ", ")))
}
