# Stratified against independent random binning grids (rbin()'s
# `stratified`, TRUE by default): the relative Frobenius error
# ||Z Z' - K|| / ||K|| of the kernel estimate against the exact Laplacian
# kernel, 400 uniform rows on [0, 3]^d, mean over map seeds 1-20.
# Run from the repository root:
#   D=5 P=50 SIG=2 Rscript bench/rbin-stratified.R
suppressPackageStartupMessages({library(kitchen); library(Matrix)})
set.seed(42)
n <- 400
d <- as.integer(Sys.getenv("D", "10"))
grids <- as.integer(Sys.getenv("P", "50"))
sigma <- as.numeric(Sys.getenv("SIG", "2"))
x <- matrix(stats::runif(n * d), n, d) * 3
exact <- exp(-as.matrix(stats::dist(x, method = "manhattan")) / sigma)
error <- function(stratified, seed) {
  map <- rbin(x, grids, sigma = sigma, scale = "none", seed = seed, stratified = stratified)
  z <- predict(map, x)
  sqrt(sum((as.matrix(tcrossprod(z)) - exact)^2) / sum(exact^2))
}
errors <- t(vapply(1:20, function(seed) c(error(FALSE, seed), error(TRUE, seed)), numeric(2)))
cat(sprintf("d = %d, %d grids, sigma = %g: relative error independent %.4f, stratified %.4f (ratio %.3f)\n",
            d, grids, sigma, mean(errors[, 1]), mean(errors[, 2]),
            mean(errors[, 2]) / mean(errors[, 1])))
