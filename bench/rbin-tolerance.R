# How the final fit's CG tolerance changes the predictions, on CoverType
# (all training rows): one (sigma, lambda) solved from zeros to relative
# residuals 1e-2, ..., 1e-6 in turn (each continuing from the previous),
# with the iterations and seconds each step took, the test error and the
# number of test rows whose class differs from the 1e-6 solution's.
# Diagnostic only: nothing here feeds a choice. Arguments: sigma and lambda
# (absolute, as the whole call reports them), the map seed.
# Run from the repository root: nice -n 10 Rscript bench/rbin-tolerance.R 0.227 0.2 1
source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen, lib.loc = c(if (nzchar(Sys.getenv("KLIB"))) Sys.getenv("KLIB"), .libPaths())))
covtype <- covtype_split()
x <- as.matrix(covtype$x); y <- covtype$y
train <- covtype$train; test <- covtype$test
args <- as.numeric(commandArgs(TRUE))
sigma <- args[1]; lambda <- args[2]; seed <- if (length(args) > 2) args[3] else 1
xt <- x[train, ]; yt <- ifelse(y[train] == "2", 1, -1)
map <- rbin(xt, 50, sigma = sigma, scale = "minmax", seed = seed, n_threads = 2)
backend <- kitchen:::backend_settings(2L)  # 2 threads, the session's SIMD and BLAS choices
cols <- kitchen:::rbin_columns(map, kitchen:::map_input(map, xt, arg = "x"), backend, arg = "x")
tcols <- kitchen:::rbin_columns(map, kitchen:::map_input(map, x[test, ], arg = "x"), backend, arg = "x")
value <- 1 / sqrt(50)
ops <- kitchen:::binned_ops(cols, value, map$n_features, backend)
sys <- kitchen:::binned_system(ops, rep(1, nrow(cols)), value)
Y <- matrix(yt)
start <- matrix(0, map$n_features, 1)
cat(sprintf("sigma %.4g lambda %.4g seed %d: %d bins; load %.1f\n", sigma, lambda, seed,
            map$n_features, utils::read.table("/proc/loadavg")[[1]]))
scores <- list()
for (tol in 10^(-2:-6)) {
  t0 <- proc.time()
  sol <- kitchen:::binned_solve(sys, Y, lambda, start, tol, 5000)
  el <- proc.time() - t0
  start <- sol$coefficients
  w <- sol$coefficients[, 1]
  b <- sys$ybar(Y) - sum(w * sys$zbar)
  scores[[length(scores) + 1]] <- kitchen:::binned_scores_cpp(tcols, matrix(w), value, 2L) + b
  cat(sprintf("tol %.0e: %d iterations, %.1f s elapsed, %.1f s CPU, residual %.2e, test error %.4f%%\n",
              tol, sol$iterations, el[[3]], el[[1]] + el[[2]], sol$residual,
              100 * mean((scores[[length(scores)]] > 0) != (y[test] == "2"))))
}
final <- scores[[length(scores)]] > 0
for (i in seq_along(scores)) {
  cat(sprintf("tol %.0e: %d test rows classed differently from tol 1e-6; max |score change| %.2e\n",
              10^(-1 - i), sum((scores[[i]] > 0) != final), max(abs(scores[[i]] - scores[[length(scores)]]))))
}
