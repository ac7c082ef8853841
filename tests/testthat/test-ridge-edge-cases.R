# Data and lambdas at the edges of what the ridge solve can do: an answer
# where there is one (the mean, for features that do not vary), else an
# error naming the argument, never one from inside the linear algebra.

set.seed(1)
x <- matrix(rnorm(30 * 2), 30, 2)
y <- x[, 1] + rnorm(30, sd = 0.1)
map <- rff(2, 20, sigma = 1, seed = 1)

test_that("constant x or a single row gives the intercept-only fit", {
  constant <- matrix(1, 30, 2)
  for (lambda in list("gcv", "cv", 1, c(0.1, 1))) {
    fit <- krr_fit(constant, y, map, lambda = lambda, n_threads = 1, verbose = FALSE)
    expect_equal(unname(drop(fit$coefficients)), rep(0, 20))
    expect_equal(fit$intercept, mean(y))
    expect_equal(predict(fit, x[1:3, ], n_threads = 1), rep(mean(y), 3))
  }
  one <- krr_fit(x[1, , drop = FALSE], y[1], map, lambda = "gcv", n_threads = 1)
  expect_equal(predict(one, x[1:2, ], n_threads = 1), rep(y[1], 2))
  # The default, 5-fold CV, cannot split one row: said with the argument named.
  expect_error(krr_fit(x[1, , drop = FALSE], y[1], map, n_threads = 1),
               class = "kitchen_error_argument", regexp = "n_folds")
  cv <- krr_fit(constant, y, map, lambda = "cv", folds = rep(1:3, 10), n_threads = 1)
  held <- vapply(1:3, function(k) sum((y[rep(1:3, 10) == k] - mean(y[rep(1:3, 10) != k]))^2), 0)
  expect_equal(unique(cv$path$cv), sum(held) / 30)
})

test_that("a lambda too small for Z'Z is named, with D > n", {
  wide <- rff(2, 200, sigma = 1, seed = 1)
  # The dual path (3n <= D, R/krr_dual.R) solves it: the minimum-norm
  # interpolating fit, with the interpolation warning for candidates.
  expect_warning(fit <- krr_fit(x, y, wide, lambda = 1e-300, n_threads = 1), "nearly interpolates")
  expect_lt(max(abs(fit$fitted.values - y)), 1e-6)
  expect_warning(krr_fit(x, y, wide, lambda = c(1e-300, 1e-299), n_threads = 1),
                 "nearly interpolates")
  old <- options(kitchen.dual = FALSE)
  on.exit(options(old))
  expect_error(krr_fit(x, y, wide, lambda = 1e-300, n_threads = 1),
               class = "kitchen_error_argument", regexp = "lambda")
  expect_error(krr_fit(x, y, wide, lambda = c(1e-300, 1e-299), n_threads = 1),
               class = "kitchen_error_argument", regexp = "lambda")
})

test_that("y whose squares would overflow is fitted on a rescaled response, for every lambda choice", {
  # (krr_fit() divides y by a power of two before scoring: R/response_scale.R)
  for (lambda in list("gcv", "cv", 1)) {
    set.seed(3)
    big <- krr_fit(x, y * 1e160, map, lambda = lambda, n_threads = 1, verbose = FALSE)
    set.seed(3)
    plain <- krr_fit(x, y, map, lambda = lambda, n_threads = 1, verbose = FALSE)
    expect_identical(big$lambda, plain$lambda)
    expect_equal(predict(big, x, n_threads = 1) / 1e160, predict(plain, x, n_threads = 1),
                 tolerance = 1e-10)
  }
})

test_that("rbin fits refuse lambda candidates of 0", {
  bin_map <- rbin(x, 10, sigma = 1, seed = 1, n_threads = 1)
  expect_error(krr_fit(x, y, bin_map, lambda = c(0, 1), n_threads = 1),
               class = "kitchen_error_argument", regexp = "lambda")
})

test_that("a y with no column is refused at the fit, in memory and in chunks", {
  expect_error(krr_fit(x, matrix(0, 30, 0), map), class = "kitchen_error_argument", regexp = "column")
  err <- tryCatch(krr_fit(chunked(list(list(x = x, y = matrix(0, 30, 0)))), map, lambda = 1),
                  error = function(e) e)
  expect_s3_class(err, "kitchen_error_argument")
  expect_match(conditionMessage(err$parent), "at least one column")
})

test_that("huge thread counts are capped, not turned into NA", {
  expect_identical(kitchen_threads(1e10), RcppParallel::defaultNumThreads())
  expect_no_warning(fwht(c(1, 2), n_threads = 1e10))
  expect_equal(fwht(c(1, 2), n_threads = 1e10), c(3, -1))
  expect_equal(predict(map, x[1:2, ], n_threads = 1e10), predict(map, x[1:2, ], n_threads = 1))
})

test_that("rbin fits name a lambda too small for more bins than rows, instead of CG's NaN", {
  wide <- rbin(x, 100, seed = 1, n_threads = 1)  # far more bin columns than 30 rows
  expect_gt(wide$n_features, 30)
  expect_error(krr_fit(x, y, wide, lambda = 1e-300, n_threads = 1),
               class = "kitchen_error_argument", regexp = "`lambda` \\(1e-300\\) is too small")
  expect_error(krr_fit(x, y, wide, lambda = c(1e-300, 1e-299), n_threads = 1, verbose = FALSE),
               class = "kitchen_error_argument", regexp = "No `lambda` candidate")
  # a candidate that works is chosen over the one that breaks down
  fit <- krr_fit(x, y, wide, lambda = c(1e-300, 1), n_threads = 1, verbose = FALSE)
  expect_equal(fit$lambda, 1)
  err <- tryCatch(krr_fit(chunked(list(list(x = x, y = y))), wide, lambda = 1e-300, n_threads = 1),
                  error = function(e) e)
  expect_s3_class(err, "kitchen_error_argument")
  expect_match(conditionMessage(err), "lambda")
})

test_that("logistic fits on constant x or one row give the class shares, for every lambda choice", {
  constant <- matrix(1, 30, 2)
  classes <- factor(y > 0)
  shares <- as.vector(table(classes)) / 30
  for (lambda in list("cv", 1, c(0.1, 1))) {
    fit <- krr_fit(constant, classes, map, loss = "logistic", lambda = lambda, n_threads = 1,
                   verbose = FALSE)
    expect_equal(unname(fit$coefficients), matrix(0, 20, 2))
    prob <- predict(fit, x[1:3, ], type = "prob", n_threads = 1)
    expect_equal(unname(prob), matrix(shares, 3, 2, byrow = TRUE))
  }
  three <- factor(rep(c("a", "b", "c"), 10))
  fit <- krr_fit(constant, three, map, loss = "logistic", n_threads = 1, verbose = FALSE)
  expect_equal(unname(predict(fit, x[1, , drop = FALSE], type = "prob", n_threads = 1)),
               matrix(1 / 3, 1, 3))
  # CV scores predicting each fold by the others' shares
  folds <- rep(1:3, 10)
  cv <- krr_fit(constant, classes, map, loss = "logistic", lambda = "cv", folds = folds,
                n_threads = 1, verbose = FALSE)
  held <- vapply(1:3, function(k) {
    p <- mean(classes[folds != k] == "TRUE")
    -sum(ifelse(classes[folds == k] == "TRUE", log(p), log(1 - p)))
  }, 0)
  expect_equal(unique(cv$path$cv), sum(held) / 30)
})

test_that("logistic fits name a lambda too small for Z'WZ, with D > n", {
  wide <- rff(2, 200, sigma = 1, seed = 1)
  expect_error(krr_fit(x, factor(y > 0), wide, loss = "logistic", lambda = 1e-300, n_threads = 1),
               class = "kitchen_error_argument", regexp = "`lambda` \\(1e-300\\) is too small")
  expect_error(krr_fit(x, factor(y > 0), wide, loss = "logistic", lambda = c(1e-300, 1e-299),
                       n_threads = 1, verbose = FALSE),
               class = "kitchen_error_argument", regexp = "No `lambda` candidate")
  fit <- krr_fit(x, factor(y > 0), wide, loss = "logistic", lambda = c(1e-300, 1),
                 n_threads = 1, verbose = FALSE)
  expect_equal(fit$lambda, 1)
})
