# The D x D arithmetic moved from R to C++ for interrupts (fold_algebra.cpp)
# gives R's results, and the blocked Cholesky solve the dense solution.

gram_fixture <- function(d, seed = 1) {
  set.seed(seed)
  z <- matrix(rnorm(d * (d + 20)), d + 20)
  crossprod(z)
}

test_that("gram_combine_cpp() is a + sign * b, for 1 and 2 threads", {
  g <- gram_fixture(150)
  h <- g * 0.37
  for (threads in 1:2) {
    expect_identical(kitchen:::gram_combine_cpp(g, h, -1, threads), g - h)
    expect_identical(kitchen:::gram_combine_cpp(g, h, 1, threads), g + h)
  }
  expect_error(kitchen:::gram_combine_cpp(g, h[, -1], 1, 1L), "same shape")
})

test_that("gram_add_in_place_cpp() makes a into a + b, for 1 and 2 threads", {
  g <- gram_fixture(150)
  h <- g * 0.37
  for (threads in 1:2) {
    a <- g + 0  # a matrix of its own
    kitchen:::gram_add_in_place_cpp(a, h, threads)
    expect_identical(a, g + h)
  }
  expect_error(kitchen:::gram_add_in_place_cpp(g, h[, -1], 1L), "same shape")
  expect_error(kitchen:::gram_add_in_place_cpp(matrix(1L, 2, 2), matrix(1, 2, 2), 1L), "double")
})

test_that("gram_sum_cpp() is Reduce(`+`, grams), in the list's order", {
  grams <- lapply(1:5, function(seed) gram_fixture(130, seed) * 10^(seed - 3))
  for (threads in 1:2) {
    expect_identical(kitchen:::gram_sum_cpp(grams, threads), Reduce(`+`, grams))
    expect_identical(kitchen:::gram_sum_cpp(grams[1], threads), grams[[1]])
  }
  expect_error(kitchen:::gram_sum_cpp(list(grams[[1]], grams[[2]][-1, ]), 1L), "one shape")
  expect_error(kitchen:::gram_sum_cpp(list(), 1L), "empty")
})

test_that("the in-place symmetrising gives gram_symmetrize_cpp()'s matrix", {
  for (d in c(1, 63, 64, 65, 200)) {
    upper <- gram_fixture(d)
    upper[lower.tri(upper)] <- -99  # what the fit pass leaves below the diagonal
    reference <- upper
    reference[lower.tri(reference)] <- t(upper)[lower.tri(upper)]
    expect_identical(kitchen:::gram_symmetrize_cpp(upper), reference)
    for (threads in 1:2) {
      g <- upper + 0  # a matrix of its own, changed in place
      expect_null(kitchen:::gram_symmetrize_in_place_cpp(g, threads))
      expect_identical(g, reference)
      expect_true(isSymmetric(g, tol = 0))
    }
  }
})

test_that("gram_quadratic_forms_cpp() is colSums(w * (gram %*% w))", {
  g <- gram_fixture(300)
  w <- matrix(rnorm(300 * 21), 300)
  w[5, 3] <- 0
  reference <- colSums(w * (g %*% w))
  for (threads in 1:2) {
    expect_equal(kitchen:::gram_quadratic_forms_cpp(g, w, threads), reference, tolerance = 1e-13)
  }
  expect_equal(kitchen:::gram_quadratic_forms_cpp(g, w[, 2, drop = FALSE], 1L), reference[2],
               tolerance = 1e-13)
  expect_error(kitchen:::gram_quadratic_forms_cpp(g, w[-1, ], 1L), "as many rows")
})

test_that("fold_quadratic_forms_cpp() is colSums(w * (gram %*% w)) on every SIMD level", {
  # With AVX2 / AVX-512, G W is a packed product (quadratic_forms.hpp): equal
  # to rounding, and the same whatever the threads or the columns passed.
  for (d in c(1, 23, 200, 300)) {
    g <- gram_fixture(300)[seq_len(d), seq_len(d), drop = FALSE]
    w <- matrix(rnorm(d * 61), d)
    reference <- colSums(w * (g %*% w))
    for (simd in c("scalar", "avx2", "avx512")) {
      one <- kitchen:::fold_quadratic_forms_cpp(g, w, 1L, simd)
      expect_equal(one, reference, tolerance = 1e-12)
      expect_identical(kitchen:::fold_quadratic_forms_cpp(g, w, 2L, simd), one)
      expect_identical(kitchen:::fold_quadratic_forms_cpp(g, w[, 30:34, drop = FALSE], 2L, simd), one[30:34])
    }
  }
  expect_identical(kitchen:::fold_quadratic_forms_cpp(g, w, 2L, "scalar"),
                   kitchen:::gram_quadratic_forms_cpp(g, w, 2L))
  expect_error(kitchen:::fold_quadratic_forms_cpp(g, w[-1, ], 1L, "avx512"), "as many rows")
})

test_that("fold_quadratic_forms_cpp() splits many columns into groups without changing results", {
  skip_if(kitchen_simd()$used == "scalar", "the packed product needs AVX2 or AVX-512")
  # Above about 1e9 flops per unit of 192 (AVX-512) or 96 rows (AVX2) the
  # columns go in groups, for interrupt checks in between (fold_algebra.cpp):
  # here 2 groups with AVX2, 3 with AVX-512. Each entry gets the same kernel
  # calls, so the forms equal those of a few columns passed alone (one
  # group), to the bit.
  set.seed(7)
  d <- 400
  g <- gram_fixture(d)
  w <- matrix(rnorm(d * 14000), d)
  for (simd in c("avx2", "avx512")) {
    all <- kitchen:::fold_quadratic_forms_cpp(g, w, 2L, simd)
    cols <- c(1:3, 4679:4682, 7000:7002, 9359:9362, 13998:14000)
    expect_identical(kitchen:::fold_quadratic_forms_cpp(g, w[, cols], 1L, simd), all[cols])
    expect_equal(all[cols], colSums(w[, cols] * (g %*% w[, cols])), tolerance = 1e-12)
  }
})

test_that("the blocked Cholesky solve equals the dense solution across block edges", {
  g <- gram_fixture(600)
  y <- matrix(rnorm(600 * 2), 600)
  for (d in c(1, 255, 256, 257, 600)) {
    gd <- g[seq_len(d), seq_len(d), drop = FALSE]
    yd <- y[seq_len(d), , drop = FALSE]
    reference <- solve(gd + diag(0.25, d), yd)
    for (threads in 1:2) {
      expect_equal(kitchen:::ridge_cholesky_solve_cpp(gd, 0.25, yd, threads), reference,
                   tolerance = 1e-10, label = sprintf("d = %d, %d threads", d, threads))
    }
  }
})

test_that("a CV fold's ridge solve equals the dense solution on its training rows", {
  # src/centred_factor.cpp: the calibration's fold fits (R/calibration.R),
  # the centred training Gram matrix made from the total's less the fold's
  set.seed(5)
  for (d in c(40, 300, 600)) {  # one block, and across the Cholesky's 256-column blocks
    z <- matrix(rnorm(500 * d), 500)
    y <- matrix(rnorm(500 * 2), 500)
    held <- seq(3, 500, by = 5)
    gram <- crossprod(z)
    fold_gram <- crossprod(z[held, ])
    zbar <- colMeans(z[-held, ])
    ybar <- colMeans(y[-held, ])
    rhs <- crossprod(z[-held, ], y[-held, ]) - 400 * tcrossprod(zbar, ybar)
    centred <- crossprod(sweep(z[-held, ], 2, zbar))
    reference <- solve(centred + diag(0.3, d), rhs)
    # the lower factor on Eigen (scalar), the upper one on the Gram kernels
    for (simd in c("scalar", kitchen_simd()$cpu)) for (threads in 1:2) {
      solved <- kitchen:::ridge_fold_solve_cpp(gram, fold_gram, zbar, 400, rhs, 0.3, threads, simd)
      expect_equal(solved, reference, tolerance = 1e-10,
                   label = sprintf("d = %d, %s, %d threads", d, simd, threads))
      # the factor in a caller's scratch matrix, full of NaN or of 7s (as
      # another fold's factor leaves it): the same bits, the inputs untouched
      for (fill in c(NaN, 7)) {
        scratch <- matrix(fill, d, d)
        inputs <- list(gram + 0, fold_gram + 0, rhs + 0)
        expect_identical(kitchen:::ridge_fold_solve_cpp(gram, fold_gram, zbar, 400, rhs, 0.3,
                                                        threads, simd, scratch), solved)
        expect_identical(list(gram, fold_gram, rhs), inputs)
        expect_false(all(scratch == fill, na.rm = TRUE) && all(is.nan(scratch) == is.nan(fill)))  # written
      }
    }
  }
  scratch <- matrix(0, ncol(gram), ncol(gram))
  expect_error(kitchen:::ridge_fold_solve_cpp(gram, fold_gram, zbar, 400, rhs, 0.3, 1L, "scalar",
                                              scratch[-1, ]), "scratch")
  expect_error(kitchen:::ridge_fold_solve_cpp(gram, fold_gram, zbar, 400, rhs, 0.3, 1L, "scalar",
                                              gram), "scratch")
  expect_error(kitchen:::ridge_fold_solve_cpp(gram, fold_gram, zbar, 400, rhs, 0.3, 1L, "scalar",
                                              fold_gram), "scratch")
  expect_error(kitchen:::ridge_fold_solve_cpp(gram, fold_gram[-1, -1], zbar, 400, rhs, 0.3, 1L,
                                              "scalar"),
               "fold_gram")
  expect_error(kitchen:::ridge_fold_solve_cpp(gram, fold_gram, zbar[-1], 400, rhs, 0.3, 1L,
                                              "scalar"),
               "zbar")
  expect_error(kitchen:::ridge_fold_solve_cpp(gram, fold_gram, zbar, 400, rhs, 0.3, 1L, "sse"),
               "simd")
  # not positive definite (rank 449 of 600, shifted down): NULL, for the caller to name lambda
  for (simd in c("scalar", kitchen_simd()$cpu)) {
    expect_null(kitchen:::ridge_fold_solve_cpp(gram, crossprod(z[-(1:450), ]),
                                               colMeans(z[1:450, ]), 450, rhs, -1, 2L, simd))
  }
})

test_that("ridge_solve() names lambda when Z'Z + lambda I is not positive definite, both ways", {
  set.seed(2)
  z <- matrix(rnorm(20 * 60), 20)  # 60 features, 20 rows: Z'Z has rank 20
  g <- crossprod(z)
  g[1, 1] <- g[1, 1] - 1e3           # and one negative direction
  for (blocked_from in c(0L, 1025L)) {
    expect_error(kitchen:::ridge_solve(g, 1e-300, matrix(1, 60), kitchen:::backend_settings(1L), blocked_from = blocked_from),
                 class = "kitchen_error_argument", regexp = "lambda")
  }
  ok <- crossprod(z)
  y <- matrix(rnorm(60), 60)
  expect_equal(kitchen:::ridge_solve(ok, 0.5, y, kitchen:::backend_settings(2L), blocked_from = 0L),
               kitchen:::ridge_solve(ok, 0.5, y, kitchen:::backend_settings(2L)), tolerance = 1e-10)
})

test_that("a fixed-lambda fit with more than 1024 features (blocked Cholesky) is the ridge solution", {
  set.seed(3)
  x <- matrix(rnorm(400 * 3), 400)
  y <- sin(x[, 1]) + rnorm(400, sd = 0.1)
  map <- rff(x, 1100, sigma = 1, seed = 4)
  fit <- krr_fit(x, y, map, lambda = 0.3, verbose = FALSE)
  z <- predict(map, x)
  zc <- scale(z, scale = FALSE)
  w <- solve(crossprod(zc) + diag(0.3, ncol(z)), crossprod(zc, y - mean(y)))
  expect_equal(unname(drop(fit$coefficients)), drop(w), tolerance = 1e-8)
})

test_that("a fold's lambda path from the totals equals the path of its centred Gram matrix", {
  # ridge_path_fold_coefficients_cpp() makes (a - b) - n zbar zbar' entry by
  # entry as the reduction reads it: the same numbers as the matrix made first
  set.seed(3)
  z <- matrix(rnorm(300 * 200), 300)
  fold <- 1:60
  g <- crossprod(z)
  h <- crossprod(z[fold, ])
  zbar <- colMeans(z[-fold, ])
  n <- 240
  zy <- matrix(rnorm(400), 200)
  lambdas <- 10^seq(1, -4, length.out = 6)
  centred <- kitchen:::gram_center_cpp(g - h, zbar, n, 1L)
  for (lapack in c(FALSE, TRUE)) {
    for (threads in 1:2) {
      expect_identical(
        kitchen:::ridge_path_fold_coefficients_cpp(g, h, zbar, n, zy, lambdas, lapack, threads,
                                                   kitchen:::resolve_simd()),
        kitchen:::ridge_path_coefficients_cpp(centred, zy, lambdas, lapack, threads,
                                              kitchen:::resolve_simd()))
    }
  }
  reference <- solve(centred + diag(lambdas[3], 200), zy)
  path <- kitchen:::ridge_path_fold_coefficients_cpp(g, h, zbar, n, zy, lambdas, FALSE, 1L, "scalar")
  expect_equal(path[, 5:6], reference, tolerance = 1e-9)
  expect_error(kitchen:::ridge_path_fold_coefficients_cpp(g, h[-1, -1], zbar, n, zy, lambdas,
                                                          FALSE, 1L, "scalar"), "one size")
})
