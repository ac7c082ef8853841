# kitchen demo: the fast Walsh-Hadamard transform.
#
# Run it from an installed kitchen with
#   Rscript -e 'source(system.file("scripts", "demo.R", package = "kitchen"))'

library(kitchen)

hadamard <- function(n) {
  h <- matrix(1, 1, 1)
  while (nrow(h) < n) h <- rbind(cbind(h, h), cbind(h, -h))
  h
}

median_seconds <- function(expr_fun, repeats = 7) {
  median(vapply(seq_len(repeats), function(i) system.time(expr_fun())[["elapsed"]], 0))
}

simd <- kitchen_simd()
cat(sprintf("kitchen %s | SIMD: CPU supports %s, using %s | threads available: %d\n",
            utils::packageVersion("kitchen"), simd$cpu, simd$used, kitchen_threads()))

# 1. Correctness against the explicit Hadamard matrix.
set.seed(42)
n <- 1024
x <- matrix(rnorm(n * 64), n, 64)
h <- hadamard(n)
cat(sprintf("max |fwht(x) - H %%*%% x| at n = %d, 64 columns: %.2e\n",
            n, max(abs(fwht(x) - h %*% x))))
cat(sprintf("orthonormal: max |fwht(fwht(x, TRUE), TRUE) - x| = %.2e\n",
            max(abs(fwht(fwht(x, normalize = TRUE), normalize = TRUE) - x))))

# 2. Speed: O(n log n) against the O(n^2) matrix product, per column.
x <- matrix(rnorm(n * 2000), n, 2000)
t_fwht1 <- median_seconds(function() fwht(x, n_threads = 1))
t_fwht2 <- median_seconds(function() fwht(x, n_threads = 2))
t_dense <- median_seconds(function() h %*% x, repeats = 3)
cat(sprintf("n = %d, 2000 columns, per column: fwht %.2f us (1 thread), %.2f us (2 threads); H %%*%% x %.1f us (R's BLAS)\n",
            n, 1e6 * t_fwht1 / 2000, 1e6 * t_fwht2 / 2000, 1e6 * t_dense / 2000))

# 3. Random Fourier features: z(x)'z(y) estimates the Gaussian kernel, with an
# error that shrinks like 1 / sqrt(number of features).
x <- matrix(rnorm(500 * 8), 500, 8)
exact <- kernel_matrix(x, kernel = kernel_gaussian(sigma = 3))
for (n_features in c(100, 1000, 10000)) {
  map <- rff(x, n_features, kernel = kernel_gaussian(sigma = 3), scale = "none", seed = 1)
  elapsed <- system.time(z <- predict(map, x, n_threads = 2))[["elapsed"]]
  cat(sprintf("rff, %5d features: mean |z(x)'z(y) - k(x, y)| = %.4f (features in %.3f s)\n",
              n_features, mean(abs(tcrossprod(z) - exact)), elapsed))
}
