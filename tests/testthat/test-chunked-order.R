# CV over whole chunks is grouped CV: chunks that differ from each other
# (rows stored in the order of a covariate) make it choose another lambda
# than the rows would, and krr_fit() says so (R/krr_chunked.R).

test_that("chunks ordered by a covariate warn that CV's lambda differs from GCV's; shuffled ones do not", {
  set.seed(1)
  n <- 3000
  x <- matrix(runif(n * 2), n, 2)
  y <- sin(8 * x[, 2]) + (x[, 1] > 0.5) + rnorm(n, sd = 0.1)
  map <- rff(x, 300, sigma = 0.3, seed = 1)
  fit_in <- function(rows) {
    chunks <- lapply(split(rows, rep(1:5, each = n / 5)), function(r) list(x = x[r, ], y = y[r]))
    krr_fit(chunked(chunks), map, lambda = "cv", n_threads = 1, verbose = FALSE, parallel = "none")
  }
  expect_warning(ordered <- fit_in(order(x[, 1])), "Chunks held out by CV are predicted worse")
  path <- ordered$path
  expect_gt(min(path$cv), 1.2 * min(path$gcv))
  expect_gt(ordered$lambda / path$lambda[which.min(path$gcv)], 10)
  expect_no_warning(fit_in(sample(n)))
  # a close CV and GCV, or the same lambda, stay quiet
  quiet <- data.frame(lambda = c(1, 0.1), gcv = c(1, 1.1), cv = c(1.3, 1.5))
  expect_no_warning(kitchen:::warn_if_chunks_differ(quiet, 1))      # same lambda
  quiet$cv <- c(1.1, 1.15)
  expect_no_warning(kitchen:::warn_if_chunks_differ(quiet, 1e-3))   # within 20%
})
