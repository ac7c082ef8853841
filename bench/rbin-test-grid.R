# Diagnostic, never a choice: test-row errors of rbin fits on all CoverType
# training rows over a grid of (sigma, lambda), to see what a selection rule
# could reach at best. Arguments: scaling ("standard" or "minmax"), sigmas
# and lambdas relative to n / n_features (comma-separated), CG tolerance.
# MAPSEED=s draws the map with seed s (default 1); STRATIFIED=0 draws its
# grids independently (rbin(stratified = FALSE); stratified by default).
# Run from the repository root; prints one line per (sigma, lambda).
source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))
covtype <- covtype_split()
x <- as.matrix(covtype$x); y <- covtype$y
train <- covtype$train; test <- covtype$test
args <- commandArgs(TRUE)
scale <- args[1]; sigmas <- as.numeric(strsplit(args[2], ",")[[1]])
rel <- as.numeric(strsplit(args[3], ",")[[1]])
tol <- if (length(args) > 3) as.numeric(args[4]) else 1e-4
xt <- x[train, ]; yt <- ifelse(y[train] == "2", 1, -1)
map_seed <- as.integer(Sys.getenv("MAPSEED", "1"))
stratified <- Sys.getenv("STRATIFIED", "1") != "0"
base <- rbin(xt, 50, sigma = 1, scale = scale, seed = map_seed, stratified = stratified,
             n_threads = 2)
cat(if (stratified) "stratified" else "independent", "pitches and shifts\n")
backend <- kitchen:::backend_settings(2L)  # 2 threads, the session's SIMD and BLAS choices
for (s in sigmas) {
  t0 <- proc.time()[[3]]
  map <- kitchen:::rbin_with_bandwidth(base, kitchen:::map_input(base, xt, arg = "x"), s, backend)
  cols <- kitchen:::rbin_columns(map, kitchen:::map_input(map, xt, arg = "x"), backend, arg = "x")
  tcols <- kitchen:::rbin_columns(map, kitchen:::map_input(map, x[test, ], arg = "x"), backend, arg = "x")
  value <- 1 / sqrt(50)
  ops <- kitchen:::binned_ops(cols, value, map$n_features, backend)
  sys <- kitchen:::binned_system(ops, rep(1, nrow(cols)), value)
  Y <- matrix(yt)
  start <- matrix(0, map$n_features, 1)
  t1 <- proc.time()[[3]]
  for (r in rel) {
    lam <- r * length(yt) / map$n_features
    t2 <- proc.time()[[3]]
    sol <- kitchen:::binned_solve(sys, Y, lam, start, tol, 2000)
    start <- sol$coefficients
    w <- sol$coefficients[, 1]
    b <- sys$ybar(Y) - sum(w * sys$zbar)
    sc <- kitchen:::binned_scores_cpp(tcols, matrix(w), value, 2L) + b
    err <- mean((sc > 0) != (y[test] == "2"))
    fit_tr <- kitchen:::binned_fitted(ops, sys, Y, matrix(w))
    cat(sprintf("scale %s sigma %.4g nbins %d rel %.3g lambda %.4g iters %d (%.1fs) train err %.4f test err %.4f\n",
                scale, s, map$n_features, r, lam, sol$iterations, proc.time()[[3]] - t2,
                mean((fit_tr > 0) != (yt > 0)), err))
  }
  cat(sprintf("  build %.1fs\n", t1 - t0))
}
