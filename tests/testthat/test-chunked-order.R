# CV over whole chunks is grouped CV: chunks that differ from each other
# (rows stored in the order of a covariate) make it choose another lambda
# than the rows would, and krr_fit() says so (R/krr_chunked.R).

chunks_in <- function(rows, x, y, w = NULL, n_chunks = 5) {
  lapply(split(rows, rep(seq_len(n_chunks), each = length(rows) / n_chunks)), function(r) {
    c(list(x = x[r, , drop = FALSE], y = y[r]), if (!is.null(w)) list(weights = w[r]))
  })
}

test_that("chunks ordered by a covariate warn that CV's lambda differs from GCV's; shuffled ones do not", {
  set.seed(1)
  n <- 3000
  x <- matrix(runif(n * 2), n, 2)
  y <- sin(8 * x[, 2]) + (x[, 1] > 0.5) + rnorm(n, sd = 0.1)
  map <- rff(x, 300, sigma = 0.3, seed = 1)
  fit_in <- function(rows, w = NULL) {
    krr_fit(chunked(chunks_in(rows, x, y, w)), map, lambda = "cv", n_threads = 1, verbose = FALSE,
            parallel = "none")
  }
  expect_warning(ordered <- fit_in(order(x[, 1])), "Chunks held out by CV are predicted worse")
  path <- ordered$path
  at <- path$lambda == ordered$lambda
  expect_gt(path$cv[at], 1.2 * path$gcv[at])
  expect_gt(ordered$lambda / path$lambda[which.min(path$gcv)], 10)
  shuffled <- sample(n)
  expect_no_warning(fit_in(shuffled))
  # GCV per unit of weight, as CV: weights of 0.1 (GCV ten times smaller) are no sign
  expect_no_warning(fit_in(shuffled, w = rep(0.1, n)))
})

test_that("no warning near interpolation, for logistic fits, or with the same lambda", {
  # 1000 rows, 300 features: GCV's choice nearly interpolates and is
  # optimistic against any CV (a review's false alarm, with shuffled chunks)
  set.seed(2)
  x <- matrix(runif(1000 * 5), 1000, 5)
  y <- sin(3 * x[, 1]) + x[, 2] + rnorm(1000, sd = 0.4)
  map <- rff(x, 300, sigma = 0.5, seed = 1)
  expect_no_warning(krr_fit(chunked(chunks_in(sample(1000), x, y, n_chunks = 10)), map, lambda = "cv",
                            n_threads = 1, verbose = FALSE, parallel = "none"))
  classes <- factor(ifelse(y > 1, "hi", "lo"))
  expect_no_warning(krr_fit(chunked(chunks_in(seq_len(1000), x, classes, n_chunks = 10)),
                            rff(x, 30, sigma = 0.5, seed = 1), loss = "logistic", lambda = "cv",
                            n_threads = 1, verbose = FALSE, parallel = "none"))
  path <- data.frame(lambda = c(1, 0.1), df = c(2, 5), gcv = c(1, 1.1), cv = c(1.3, 1.5))
  expect_no_warning(kitchen:::warn_if_chunks_differ(path, 1, 1000, 1000))     # GCV's lambda too
  expect_warning(kitchen:::warn_if_chunks_differ(path, 1, 1000, 1000, lambda_ratio = 0.5),
                 "Chunks held out")
  path$df <- c(60, 80)
  expect_no_warning(kitchen:::warn_if_chunks_differ(path, 1, 1000, 1000, lambda_ratio = 0.5))  # df 6%
})
