# Stratified random binning, an experiment (not in the package): for each
# input column the n_grids pitches sit at Gamma(2, sigma) quantiles
# (pi(p) - 1 + U_p) / n_grids, pi a random permutation and U_p uniform,
# and the shifts likewise at uniform strata times the pitch. Each grid's
# pitch and shift keep their marginal laws, so the kernel estimate stays
# unbiased; across grids they cover the law evenly.
# Run from the repository root:
#   D=5 P=50 SIG=2 Rscript bench/rbin-stratified.R
# prints the relative Frobenius error ||Z Z' - K|| / ||K|| of the kernel
# estimate against the exact Laplacian kernel (400 uniform rows on [0, 3]^d,
# mean of 20 draws), i.i.d. against stratified. Sourced by rbin-test-grid.R
# (STRATIFIED=1) for stratified_grids().

# The map's pitches and shifts replaced by stratified ones at its bandwidth;
# the caller rebuilds the bins (kitchen:::rbin_with_bandwidth()).
stratified_grids <- function(map, seed) {
  set.seed(seed)
  d <- nrow(map$pitch)
  grids <- ncol(map$pitch)
  strata <- function() {
    t(vapply(seq_len(d), function(j) (sample(grids) - 1 + stats::runif(grids)) / grids, numeric(grids)))
  }
  map$pitch <- matrix(stats::qgamma(strata(), shape = 2, scale = map$kernel$sigma), d, grids)
  map$shift <- strata() * map$pitch
  map
}

if (sys.nframe() == 0L) {
  suppressPackageStartupMessages({library(kitchen); library(Matrix)})
  backend <- kitchen:::backend_settings(2L)
  set.seed(42)
  n <- 400
  d <- as.integer(Sys.getenv("D", "10"))
  grids <- as.integer(Sys.getenv("P", "50"))
  sigma <- as.numeric(Sys.getenv("SIG", "2"))
  x <- matrix(stats::runif(n * d), n, d) * 3
  exact <- exp(-as.matrix(stats::dist(x, method = "manhattan")) / sigma)
  error <- function(map) {
    z <- predict(map, x)
    sqrt(sum((as.matrix(tcrossprod(z)) - exact)^2) / sum(exact^2))
  }
  errors <- t(vapply(1:20, function(seed) {
    iid <- rbin(x, grids, sigma = sigma, scale = "none", seed = seed)
    strat <- stratified_grids(iid, seed + 1000)
    strat <- kitchen:::rbin_with_bandwidth(strat, kitchen:::map_input(strat, x, arg = "x"), sigma, backend)
    c(iid = error(iid), stratified = error(strat))
  }, numeric(2)))
  cat(sprintf("d = %d, %d grids, sigma = %g: relative error i.i.d. %.4f, stratified %.4f (ratio %.3f)\n",
              d, grids, sigma, mean(errors[, 1]), mean(errors[, 2]),
              mean(errors[, 2]) / mean(errors[, 1])))
}
