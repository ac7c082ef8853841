# Property-style checks over random shapes and magnitudes: every map gives
# finite features (or a clean argument error) for d from 1 to 300, n from
# 1 to 5000, values from 1e-300 to 1e300, constant and duplicated columns;
# krr_fit() on them gives finite coefficients.

random_data <- function(case) {
  set.seed(case)
  d <- sample(c(1:5, 17, 64, 300), 1)
  n <- sample(c(1, 2, 7, 100, 1000, 5000), 1)
  if (n * d > 2e5) n <- max(1, floor(2e5 / d))
  magnitude <- 10^sample(c(-300, -100, -5, 0, 5, 100, 300), 1)
  x <- matrix(stats::rnorm(n * d) * magnitude, n, d)
  if (d > 1 && stats::runif(1) < 0.4) x[, 2] <- 5 * magnitude         # constant column
  if (d > 2 && stats::runif(1) < 0.4) x[, 3] <- x[, 1]                 # duplicated column
  list(x = x, y = stats::rnorm(n), label = sprintf("case %d: n = %d, d = %d, magnitude %g", case, n, d, magnitude))
}

finite_or_clean_error <- function(expr) {
  result <- tryCatch(expr, kitchen_error_argument = function(e) "refused")
  if (identical(result, "refused")) return(TRUE)
  all(is.finite(as.matrix(result)))
}

test_that("features are finite for random shapes and extreme magnitudes", {
  for (case in 1:60) {
    data <- random_data(case)
    for (scale in c("standard", "minmax", "none")) {
      expect_true(finite_or_clean_error(predict(rff(data$x, 16, sigma = if (scale == "none") 1, scale = scale, seed = 1), data$x)),
                  label = paste("rff", scale, data$label))
      expect_true(finite_or_clean_error(predict(fastfood(data$x, 16, sigma = if (scale == "none") 1, scale = scale, seed = 1), data$x)),
                  label = paste("fastfood", scale, data$label))
      # Unscaled values past 2^49 bins are refused (they would share bins).
      map <- tryCatch(rbin(data$x, 6, sigma = if (scale == "none") 1, scale = scale, seed = 1),
                      kitchen_error_argument = function(e) NULL)
      expect_true(!is.null(map) || (scale == "none" && max(abs(data$x)) > 1e10),
                  label = paste("rbin refused", scale, data$label))
      if (is.null(map)) next
      z <- predict(map, data$x)
      expect_true(all(Matrix::rowSums(z != 0) == 6), label = paste("rbin", scale, data$label))
    }
  }
})

test_that("fits on random shapes have finite coefficients", {
  for (case in 61:80) {
    data <- random_data(case)
    if (nrow(data$x) < 3) next
    fit <- krr_fit(data$x, data$y, rff(data$x, 16, seed = 1), lambda = 1, n_threads = 2)
    expect_true(all(is.finite(fit$coefficients)), label = data$label)
    expect_true(all(is.finite(predict(fit, data$x))), label = data$label)
    binned <- krr_fit(data$x, data$y, rbin(data$x, 5, seed = 1), lambda = 1, n_threads = 2)
    expect_true(all(is.finite(binned$coefficients)), label = data$label)
  }
})
