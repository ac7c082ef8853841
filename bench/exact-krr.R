# Random Fourier features against exact kernel ridge regression on the CPU
# data (6554 training rows, 1638 test rows, split as in inst/scripts/demo.R),
# for the accuracy target of the krr_fit issue: with D = 8192 features the
# test predictions must be within 0.5% (norm of the difference over norm of
# the exact predictions) of exact KRR with the same kernel, sigma and lambda.
# Run from the repository root: Rscript bench/exact-krr.R
# Results go to bench/results/exact-krr.md.
#
# Both fits leave the intercept unpenalised: krr_fit() centres the features,
# which is ridge regression with the doubly centred kernel matrix
# Kc = C K C (C = I - 11'/n), predictions ybar + kc(x)' (Kc + lambda I)^-1 (y - ybar).

source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))
cpu <- load_cpu()
split <- split_rows(nrow(cpu$x), 6554)
x_train <- cpu$x[split$train, ]
x_test <- cpu$x[split$test, ]
y <- cpu$y[split$train]
y_test <- cpu$y[split$test]
sigma <- 4

map <- rff(x_train, 512, sigma = sigma, scale = "minmax", seed = 1)  # for the rescaling
# Exact KRR for every lambda from one eigendecomposition of Kc, and its GCV.
exact_seconds <- system.time({
  xs <- scale(x_train, map$center, map$scale)
  xt <- scale(x_test, map$center, map$scale)
  k <- kernel_matrix(xs, kernel = map$kernel, n_threads = 2)
  k_test <- kernel_matrix(xt, xs, kernel = map$kernel, n_threads = 2)
  row_means <- rowMeans(k)
  grand <- mean(row_means)
  decomposition <- eigen(k - outer(row_means, row_means, "+") + grand, symmetric = TRUE)
  kc_test <- k_test - outer(rowMeans(k_test), row_means, "+") + grand
})[["elapsed"]]
rm(k)
values <- pmax(decomposition$values, 0)
rotated <- drop(crossprod(decomposition$vectors, y - mean(y)))
exact_fit <- function(lambda) {
  alpha <- decomposition$vectors %*% (rotated / (values + lambda))
  drop(mean(y) + kc_test %*% alpha)
}
n <- length(y)
grid <- 10^seq(-6, 2, by = 0.5)
gcv <- vapply(grid, function(l) {
  shrink <- values / (values + l)
  rss <- sum((rotated * (1 - shrink))^2)
  n * rss / (n - 1 - sum(shrink))^2
}, 0)
lambda_gcv <- grid[which.min(gcv)]

lines <- c("| lambda | exact KRR test error | rff D | rff test error | difference from exact KRR | rff time |",
           "| --- | --- | --- | --- | --- | --- |")
for (lambda in sort(unique(c(lambda_gcv, 1e-2, 1)))) {
  exact <- exact_fit(lambda)
  for (n_features in c(2048, 8192)) {
    seconds <- system.time({
      map <- rff(x_train, n_features, sigma = sigma, scale = "minmax", seed = 1)
      fit <- krr_fit(x_train, y, map, lambda = lambda, n_threads = 2, verbose = FALSE)
      approx <- predict(fit, x_test)
    })[["elapsed"]]
    difference <- sqrt(sum((approx - exact)^2)) / sqrt(sum(exact^2))
    lines <- c(lines, sprintf("| %.3g%s | %.2f%% | %d | %.2f%% | %.3f%% | %.1f s |", lambda,
                              if (lambda == lambda_gcv) " (exact GCV)" else "",
                              100 * relative_error(exact, y_test), n_features,
                              100 * relative_error(approx, y_test), 100 * difference, seconds))
  }
}

write_result(c("# Random Fourier features against exact kernel ridge regression (CPU data)", "",
               machine_description(), "",
               sprintf("Command: `Rscript bench/exact-krr.R`. Gaussian kernel, sigma = %g on min-max scaled inputs, 6554 training / 1638 test rows; exact KRR (kernel matrices + one eigendecomposition of the centred kernel matrix) took %.1f s. Lambda: the exact fit's GCV choice over 10^(-6..2), and two larger values.", sigma, exact_seconds),
               "Target: at D = 8192, test predictions within 0.5% of exact KRR.", "", lines),
             "exact-krr.md")
