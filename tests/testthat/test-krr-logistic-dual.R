# The dual path of the logistic loss (R/krr_logistic_dual.R): with fewer
# rows than features the solver runs on the rows' span, r <= n
# columns, and must give the primal's fit (forced by options(kitchen.dual)):
# the same lambda candidates and choice, the same number of passes, and
# coefficients and probabilities equal to rounding; and both must be the
# penalised minimum on the explicit features.

# The same fit on both paths (R's stream reset before each), every solve
# in double precision (CV's fold solves otherwise round the rows of each
# path to single precision, and the two paths' rows differ).
logistic_both_paths <- function(fit_fn) {
  old <- options(kitchen.dual = FALSE, kitchen.logistic_single_precision = FALSE)
  on.exit(options(old))
  set.seed(21)
  primal <- fit_fn()
  options(kitchen.dual = "auto")
  set.seed(21)
  list(primal = primal, dual = fit_fn())
}

# Coefficients to 1e-7 relative: along directions of eigenvalues at rounding
# level (smooth features of low-dimensional x) the two paths' rounding
# differs by more than in the links, which those directions barely move.
expect_same_logistic_fit <- function(fits, tolerance = 1e-9, coefficients = 1e-7) {
  p <- fits$primal
  d <- fits$dual
  expect_false(p$logistic$dual)
  expect_true(d$logistic$dual)
  expect_equal(d$path$lambda, p$path$lambda, tolerance = 1e-13)
  expect_identical(which(d$path$lambda == d$lambda), which(p$path$lambda == p$lambda))
  expect_equal(d$map$kernel$sigma, p$map$kernel$sigma, tolerance = 1e-15)
  expect_identical(d$logistic$passes, p$logistic$passes)
  expect_equal(dim(d$coefficients), dim(p$coefficients))
  expect_identical(dimnames(d$coefficients), dimnames(p$coefficients))
  expect_lt(max(abs(d$coefficients - p$coefficients)) / max(abs(p$coefficients)), coefficients)
  expect_equal(d$intercept, p$intercept, tolerance = tolerance)
  expect_equal(d$fitted.values, p$fitted.values, tolerance = tolerance)
  if (!is.null(p$path$cv)) expect_equal(d$path$cv, p$path$cv, tolerance = tolerance)
}

test_that("binary and multinomial fits on the rows' span equal the primal ones", {
  for (classes in 2:3) {
    data <- logistic_data(90, classes, seed = 30 + classes)   # helper-logistic.R
    w <- rep(c(0.5, 1, 2), 30)
    for (lambda in list("cv", 0.05, c(1, 0.1, 0.01))) {
      fits <- logistic_both_paths(function() {
        krr_fit(data$x, data$y, rff(data$x, 400, sigma = 1, seed = 5), loss = "logistic",
                lambda = lambda, weights = w, n_threads = 1, verbose = FALSE)
      })
      expect_same_logistic_fit(fits)
      new_rows <- logistic_data(7, classes, seed = 99)$x
      expect_equal(predict(fits$dual, new_rows, type = "prob"),
                   predict(fits$primal, new_rows, type = "prob"), tolerance = 1e-9)
    }
  }
})

test_that("the dual fit is the penalised minimum on the explicit features", {
  data <- logistic_data(60, 3, seed = 41)
  map <- fastfood(data$x, 256, sigma = 1, seed = 2)
  fit <- krr_fit(data$x, data$y, map, loss = "logistic", lambda = 0.2, tol = 1e-14,
                 n_threads = 1, verbose = FALSE)
  expect_true(fit$logistic$dual)
  z <- predict(map, data$x)
  reference <- newton_logistic(z, data$y, 0.2)   # helper-logistic.R
  # (the solver stops on the objective's relative change, 1e-14: the
  # coefficients are then about its square root from the minimum)
  expect_equal(unname(fit$coefficients), unname(reference$coefficients), tolerance = 1e-6)
  expect_equal(relative_intercepts(fit$intercept), relative_intercepts(reference$intercept),
               tolerance = 1e-6)
  # The coefficients lie in the span of the rows' features.
  rows <- svd(z)
  basis <- rows$v[, rows$d > 1e-10 * rows$d[1]]
  in_span <- basis %*% crossprod(basis, fit$coefficients)
  expect_lt(max(abs(in_span - fit$coefficients)), 1e-8 * max(abs(fit$coefficients)))
})

test_that("repeated rows (features of lower rank than the rows) and bandwidth candidates", {
  data <- logistic_data(40, 2, seed = 7)
  x <- rbind(data$x, data$x[1:20, ])
  y <- factor(c(as.character(data$y), as.character(data$y[1:20])))
  fits <- logistic_both_paths(function() {
    krr_fit(x, y, rff(x, 300, seed = 3), loss = "logistic", sigma = c(0.5, 1, 2),
            n_threads = 1, verbose = FALSE)
  })
  expect_same_logistic_fit(fits)
  expect_equal(fits$dual$sigma_path, fits$primal$sigma_path, tolerance = 1e-9)
})

test_that("the dual path is taken with at most half as many rows as features", {
  map <- rff(2, 300, sigma = 1, seed = 1)
  data <- logistic_data(120, 2, seed = 8)
  coded <- 2 * outer(as.integer(data$y), 1:2, "==") - 1
  dual <- kitchen:::memory_logistic_source(map, data$x, coded, NULL, NULL, 4096L,
                                           kitchen:::backend_settings(1L))
  expect_lte(dual$n_features, 120L)
  expect_equal(nrow(dual$expand(diag(dual$n_features))), 300L)
  expect_false(is.null(dual$expand))
  wide <- kitchen:::memory_logistic_source(rff(2, 100, sigma = 1, seed = 1), data$x, coded, NULL,
                                           NULL, 4096L, kitchen:::backend_settings(1L))
  expect_null(wide$expand)
  expect_true(kitchen:::dual_logistic_pays(1001, 5000))
  expect_false(kitchen:::dual_logistic_pays(2501, 5000))
  # with R's eigen() (uninterruptible) for the eigendecomposition: at most 1000 rows
  lapack <- options(kitchen.tridiagonal = "lapack")
  expect_false(kitchen:::dual_logistic_pays(1001, 5000))
  expect_true(kitchen:::dual_logistic_pays(1000, 5000))
  options(lapack)
  expect_false(kitchen:::dual_logistic_pays(151, 300))
  expect_true(kitchen:::dual_logistic_pays(150, 300))
  fit <- krr_fit(data$x, data$y, map, loss = "logistic", lambda = 0.1, n_threads = 1,
                 verbose = FALSE)
  expect_output(print(summary(fit)), "dual path")
  expect_output(print(fit), "^<kitchen kernel logistic regression on random features>")
})

test_that("a lambda too small for the bound is refused on both paths", {
  data <- logistic_data(60, 2, seed = 9)
  map <- rff(data$x, 400, sigma = 1, seed = 4)
  for (dual in c(FALSE, TRUE)) {
    old <- options(kitchen.dual = dual)
    # centred, the rows' span has rank n - 1: the bound is singular to double
    # precision on both paths
    expect_error(krr_fit(data$x, data$y, map, loss = "logistic", lambda = 1e-300, n_threads = 1),
                 class = "kitchen_error_argument", regexp = "`lambda` \\(1e-300\\) is too small")
    options(old)
  }
})
