# CV's fold solves of the logistic loss on features in memory round their
# rows and their preconditioner's factor to single precision, every product
# and sum staying in double (R/krr_logistic.R, single_precision_folds();
# kitchen/packed_triangular.hpp). The final fit is in double.

packed_levels <- function() {
  cpu <- match(kitchen:::simd_detect_cpp(), c("scalar", "avx2", "avx512"))
  c("scalar", "avx2", "avx512")[seq_len(cpu)]
}

test_that("the packed single-precision factor solves R'R x = b", {
  set.seed(41)
  for (d in c(1, 3, 4, 5, 17, 64)) {
    a <- crossprod(matrix(rnorm(3 * d * d), 3 * d, d)) + diag(d)
    r <- chol(a)
    for (m in c(1, 3, 4, 7)) {
      b <- matrix(rnorm(d * m), d, m)
      # A factor whose entries are exact in single precision: the solve is
      # that of the double factor, to double rounding.
      exact <- round(r * 256) / 256
      diag(exact) <- pmax(diag(exact), 1)
      reference <- backsolve(exact, backsolve(exact, b, transpose = TRUE))
      for (simd in packed_levels()) {
        out <- kitchen:::packed_cholesky_solve_cpp(exact, b, simd)
        expect_equal(out, reference, tolerance = 1e-12, label = sprintf("d %d, m %d, %s", d, m, simd))
        # Any factor: the solve with its entries rounded to single precision.
        rounded <- kitchen:::packed_cholesky_solve_cpp(r, b, simd)
        expect_equal(rounded, solve(a, b), tolerance = 1e-5)
      }
    }
  }
  # Only the upper triangle is read.
  r <- chol(crossprod(matrix(rnorm(60), 12, 5)) + diag(5))
  junk <- r
  junk[lower.tri(junk)] <- NaN
  b <- matrix(rnorm(10), 5, 2)
  for (simd in packed_levels()) {
    expect_identical(kitchen:::packed_cholesky_solve_cpp(junk, b, simd),
                     kitchen:::packed_cholesky_solve_cpp(r, b, simd))
  }
  expect_error(kitchen:::packed_cholesky_solve_cpp(r, matrix(0, 4, 1), "scalar"), "one row of rhs")
})

test_that("a solve on single-precision rows: passes on rows exact in single precision equal the double ones", {
  data <- logistic_data(300, 3, seed = 42)   # helper-logistic.R
  z <- predict(rff(data$x, 40, sigma = 1, seed = 6), data$x)
  z <- round(z * 2^12) / 2^12  # exact in single precision
  labels <- as.integer(data$y)
  w <- rep(c(0.5, 1, 2), 100)
  rows <- sort(sample.int(300, 240))
  set.seed(1)
  start <- matrix(rnorm(40 * 3, sd = 0.1), 40, 3)
  backend <- kitchen:::backend_settings(2)
  bound <- list(gram = crossprod(z * sqrt(w)), fold_gram = NULL,
                zbar = colSums(z * w) / sum(w), n = sum(w), curvature = 0.5)
  # First pass only (max_iter = 1): the loss and classification at the start.
  one <- function(single, n_threads) {
    kitchen:::logistic_bound_cpp(z, rows, labels, w, NULL, 1:3, 0.1, start, c(0, 0, 0),
                                 kitchen:::logistic_stop(1e-12, 1L), n_threads, backend$simd,
                                 backend$blas, single)
  }
  expect_identical(one(TRUE, 1)[c("log_loss", "correct")], one(FALSE, 1)[c("log_loss", "correct")])
  # Whole solves: the same minimum; the single-precision solve is the same
  # for any number of threads.
  solve <- function(single, n_threads) {
    kitchen:::logistic_bound_cpp(z, rows, labels, w, bound, 1:3, 0.1, start, c(0, 0, 0),
                                 kitchen:::logistic_stop(1e-13, 500L), n_threads, backend$simd,
                                 backend$blas, single)
  }
  single <- solve(TRUE, 1)
  double <- solve(FALSE, 1)
  expect_true(single$converged && double$converged)
  expect_equal(single$coefficients, double$coefficients, tolerance = 1e-6)
  expect_equal(single$log_loss, double$log_loss, tolerance = 1e-7)
  expect_identical(solve(TRUE, 2), single)
})

test_that("CV on single-precision fold solves chooses as in double; the final fit is the double one", {
  for (classes in 2:3) {
    data <- logistic_data(400, classes, seed = 43 + classes)
    map <- rff(data$x, 60, sigma = 1, seed = 7)
    folds <- rep(1:5, 80)
    fit <- function(single) {
      old <- options(kitchen.logistic_single_precision = single)
      on.exit(options(old))
      krr_fit(data$x, data$y, map, loss = "logistic", folds = folds, tol = 1e-14,
              max_iter = 5000, n_threads = 1, verbose = FALSE)
    }
    single <- fit(TRUE)
    double <- fit(FALSE)
    expect_identical(single$lambda, double$lambda)
    expect_equal(single$path$cv, double$path$cv, tolerance = 1e-6)
    # From different starts (the mean of the fold solutions) to the same
    # minimum: equal to the solver's precision, and the Newton solve's.
    expect_equal(single$coefficients, double$coefficients, tolerance = 1e-5)
    newton <- newton_logistic(predict(map, data$x), data$y, single$lambda)   # helper-logistic.R
    expect_equal(unname(single$coefficients), newton$coefficients, tolerance = 1e-5)
  }
  expect_false(kitchen:::single_precision_folds(NULL))
  expect_true(kitchen:::single_precision_folds(list(fold = 1, side = "train")))
  old <- options(kitchen.logistic_single_precision = FALSE)
  on.exit(options(old))
  expect_false(kitchen:::single_precision_folds(list(fold = 1, side = "train")))
})
