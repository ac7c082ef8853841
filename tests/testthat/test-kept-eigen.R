# kept_eigen() (R/kept_eigen.R, src/symmetric_eigen.cpp): the eigenpairs of
# the dual paths' n x n Gram matrices above a cutoff relative to the largest
# eigenvalue, on kitchen's reduction and MRRR or on R's eigen(), against
# eigen() itself.

kept_backend <- function(lapack, n_threads = 2) {
  list(n_threads = n_threads, simd = kitchen:::resolve_simd(), lapack = lapack)
}

test_that("kitchen's eigenpairs equal eigen()'s above the cutoff, on both backends", {
  set.seed(3)
  a <- matrix(rnorm(300 * 40), 300)
  k <- tcrossprod(a) + diag(c(rep(0, 299), -5))  # rank 41 with one negative eigenvalue
  exact <- eigen(k, symmetric = TRUE)
  for (lapack in c(FALSE, TRUE)) {
    for (cutoff in c(300 * .Machine$double.eps, 1e-3)) {
      kept <- kitchen:::kept_eigen(k, cutoff, kept_backend(lapack))
      expected <- exact$values[exact$values > cutoff * exact$values[1]]
      expect_equal(kept$values, expected, tolerance = 1e-12)
      expect_identical(dim(kept$vectors), c(300L, length(expected)))
      # eigenvectors up to sign, through the projector onto their span
      v <- exact$vectors[, seq_along(expected)]
      expect_equal(tcrossprod(kept$vectors), tcrossprod(v), tolerance = 1e-10)
      expect_equal(crossprod(kept$vectors), diag(length(expected)), tolerance = 1e-12)
    }
  }
  expect_identical(length(kitchen:::kept_eigen(k, 300 * .Machine$double.eps, kept_backend(FALSE))$values),
                   40L)
})

test_that("threads do not change the eigenpairs, and nothing is kept of a matrix without positive eigenvalues", {
  set.seed(4)
  a <- matrix(rnorm(200 * 30), 200)
  k <- tcrossprod(a)
  one <- kitchen:::kept_eigen(k, 1e-12, kept_backend(FALSE, 1))
  two <- kitchen:::kept_eigen(k, 1e-12, kept_backend(FALSE, 2))
  expect_equal(one$values, two$values, tolerance = 1e-13)
  expect_equal(abs(crossprod(one$vectors, two$vectors)), diag(30), tolerance = 1e-10)
  for (lapack in c(FALSE, TRUE)) {
    for (m in list(matrix(0, 5, 5), -diag(4), matrix(0, 0, 0))) {
      none <- kitchen:::kept_eigen(m, 1e-12, kept_backend(lapack))
      expect_length(none$values, 0)
      expect_identical(dim(none$vectors), c(nrow(m), 0L))
    }
  }
  single <- kitchen:::kept_eigen(matrix(2, 1, 1), 0, kept_backend(FALSE))
  expect_identical(single$values, 2)
  expect_equal(abs(single$vectors), matrix(1, 1, 1))
})

test_that("the dual path past 1000 rows is the primal fit", {
  set.seed(5)
  x <- matrix(rnorm(1100 * 3), 1100)
  y <- sin(x[, 1]) + rnorm(1100, sd = 0.2)
  map <- rff(x, 3300, sigma = 1, seed = 2)
  fit <- function(dual) {
    old <- options(kitchen.dual = dual)
    on.exit(options(old))
    krr_fit(x, y, map, lambda = c(1, 0.1, 0.01), n_threads = 2)
  }
  dual <- fit("auto")
  primal <- fit(FALSE)
  expect_true(isTRUE(dual$dual))
  expect_equal(dual$lambda, primal$lambda)
  expect_equal(dual$path$gcv, primal$path$gcv, tolerance = 1e-8)
  # coefficients to 2e-6 relative on both builds of this code, R's eigen()
  # and kitchen's (directions of tiny eigenvalues); predictions to 1e-10
  expect_lt(max(abs(dual$coefficients - primal$coefficients)) / max(abs(primal$coefficients)), 1e-5)
  expect_equal(fitted(dual), fitted(primal), tolerance = 1e-9)
  new_rows <- matrix(rnorm(30), 10)
  expect_equal(predict(dual, new_rows), predict(primal, new_rows), tolerance = 1e-8)
})
