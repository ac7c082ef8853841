# The band reduction G = Q B Q' (band_reduction.hpp) and the lambda paths
# solved on it (ridge_path.cpp), against explicit products, R's solve() and
# the tridiagonal path they stand in for.

simd_levels_with_kernels <- function() {
  cpu <- match(kitchen:::simd_detect_cpp(), c("scalar", "avx2", "avx512"))
  c("avx2", "avx512")[c(2, 3) <= cpu]
}

band_matrix <- function(band) {
  n <- ncol(band)
  b <- nrow(band) - 1L
  out <- matrix(0, n, n)
  for (r in 0:b) {
    cols <- seq_len(n - r)
    out[cbind(cols + r, cols)] <- band[r + 1L, cols]
    out[cbind(cols, cols + r)] <- band[r + 1L, cols]
  }
  out
}

spd_gram <- function(n, seed = n) {
  set.seed(seed)
  z <- matrix(rnorm((n + 5) * n), n + 5, n)
  crossprod(z) / n
}

test_that("G = Q B Q' with Q orthogonal and B banded, on every SIMD level with the kernels", {
  levels <- simd_levels_with_kernels()
  skip_if(length(levels) == 0, "no AVX2 / AVX-512 kernels on this CPU")
  for (simd in levels) {
    for (n in c(49, 50, 96, 97, 150, 203)) {
      g <- spd_gram(n)
      eye <- diag(n)
      r <- kitchen:::band_reduction_cpp(g, eye, eye, 2L, simd)
      q <- r$qy
      b <- band_matrix(r$band)
      expect_equal(nrow(r$band), 49L)
      expect_lt(max(abs(crossprod(q) - eye)), 1e-13)
      expect_lt(max(abs(r$qtx - t(q))), 1e-13)
      expect_lt(norm(q %*% b %*% t(q) - g, "F") / norm(g, "F"), 1e-13)
      # the explicit Q'GQ has nothing outside the band
      full <- crossprod(q, g %*% q)
      outside <- abs(row(full) - col(full)) > 48
      expect_lt(max(abs(full[outside]), 0) / max(abs(g)), 1e-13)
      expect_identical(kitchen:::band_reduction_cpp(g, eye, eye, 1L, simd), r)
    }
  }
})

test_that("a zero matrix and a rank-one matrix reduce without NaN", {
  skip_if(length(simd_levels_with_kernels()) == 0, "no AVX2 / AVX-512 kernels on this CPU")
  n <- 120
  eye <- diag(n)
  r <- kitchen:::band_reduction_cpp(matrix(0, n, n), eye, eye, 2L, "avx2")
  expect_identical(max(abs(r$band)), 0)
  expect_identical(r$qy, eye)
  v <- seq_len(n) / n
  g <- tcrossprod(v)
  r <- kitchen:::band_reduction_cpp(g, eye, eye, 2L, "avx2")
  expect_false(anyNA(r$band))
  expect_lt(norm(r$qy %*% band_matrix(r$band) %*% t(r$qy) - g, "F") / norm(g, "F"), 1e-13)
})

test_that("the band path's coefficients equal solve() and the tridiagonal path's", {
  levels <- simd_levels_with_kernels()
  skip_if(length(levels) == 0, "no AVX2 / AVX-512 kernels on this CPU")
  lambdas <- 10^seq(1, -6, length.out = 8)
  for (simd in levels) {
    for (n in c(49, 130)) {
      for (k in c(1, 3)) {
        g <- spd_gram(n, seed = n + k)
        zy <- matrix(rnorm(n * k), n, k)
        band <- kitchen:::ridge_path_coefficients_cpp(g, zy, lambdas, FALSE, 2L, simd, TRUE)
        tri <- kitchen:::ridge_path_coefficients_cpp(g, zy, lambdas, FALSE, 2L, simd, FALSE)
        exact <- do.call(cbind, lapply(lambdas, function(l) solve(g + l * diag(n), zy)))
        expect_equal(dim(band), c(n, k * length(lambdas)))
        expect_lt(max(abs(band - exact)) / max(abs(exact)), 1e-11)
        expect_lt(max(abs(band - tri)) / max(abs(exact)), 1e-11)
        expect_identical(kitchen:::ridge_path_coefficients_cpp(g, zy, lambdas, FALSE, 1L, simd,
                                                               TRUE), band)
      }
    }
  }
})

test_that("the band path gives NA where G + lambda I is not positive definite", {
  skip_if(length(simd_levels_with_kernels()) == 0, "no AVX2 / AVX-512 kernels on this CPU")
  n <- 100
  set.seed(3)
  q <- qr.Q(qr(matrix(rnorm(n * n), n)))
  values <- c(-1, seq(1, 2, length.out = n - 1))
  g <- q %*% (values * t(q))
  g <- (g + t(g)) / 2
  zy <- matrix(rnorm(n), n)
  w <- kitchen:::ridge_path_coefficients_cpp(g, zy, c(3, 0.5), FALSE, 2L, "avx2", TRUE)
  expect_lt(max(abs(w[, 1] - solve(g + 3 * diag(n), zy))), 1e-12)
  expect_true(all(is.na(w[, 2])))
})

test_that("without the kernels, or with LAPACK, a band request takes the tridiagonal path", {
  n <- 80
  g <- spd_gram(n)
  zy <- matrix(rnorm(n * 2), n, 2)
  lambdas <- c(1, 0.1, 0.01)
  for (lapack in c(FALSE, TRUE)) {
    expect_identical(kitchen:::ridge_path_coefficients_cpp(g, zy, lambdas, lapack, 2L, "scalar",
                                                           TRUE),
                     kitchen:::ridge_path_coefficients_cpp(g, zy, lambdas, lapack, 2L, "scalar",
                                                           FALSE))
  }
  expect_identical(kitchen:::ridge_path_coefficients_cpp(g, zy, lambdas, TRUE, 2L, "avx2", TRUE),
                   kitchen:::ridge_path_coefficients_cpp(g, zy, lambdas, TRUE, 2L, "avx2", FALSE))
  expect_null(kitchen:::band_reduction_cpp(g, diag(n), diag(n), 2L, "scalar"))
})

test_that("a fold's band path equals the one of its training Gram matrix written out", {
  skip_if(length(simd_levels_with_kernels()) == 0, "no AVX2 / AVX-512 kernels on this CPU")
  set.seed(11)
  n_rows <- 300
  dim <- 110
  z <- matrix(rnorm(n_rows * dim), n_rows, dim)
  held <- 1:60
  g <- crossprod(z)
  h <- crossprod(z[held, ])
  train <- z[-held, ]
  zbar <- colMeans(train)
  centred <- crossprod(sweep(train, 2, zbar))
  zy <- matrix(rnorm(dim * 2), dim, 2)
  lambdas <- c(10, 1, 0.1)
  fold <- kitchen:::ridge_path_fold_coefficients_cpp(g, h, zbar, nrow(train), zy, lambdas, FALSE,
                                                     2L, "avx2", TRUE)
  exact <- do.call(cbind, lapply(lambdas, function(l) solve(centred + l * diag(dim), zy)))
  expect_lt(max(abs(fold - exact)) / max(abs(exact)), 1e-11)
})

test_that("krr_fit()'s CV chooses alike with the band path and the tridiagonal path", {
  skip_if(length(simd_levels_with_kernels()) == 0, "no AVX2 / AVX-512 kernels on this CPU")
  set.seed(5)
  x <- matrix(runif(600 * 4), 600, 4)
  y <- sin(4 * x[, 1]) + x[, 2]^2 + rnorm(600, sd = 0.1)
  classes <- factor(ifelse(x[, 3] + rnorm(600, sd = 0.2) > 0.5, "a", "b"))
  folds <- rep_len(1:5, 600)
  map <- rff(x, 120, sigma = 0.7, seed = 1)
  fits <- function(option) {
    old <- options(kitchen.band_reduction = option)
    on.exit(options(old))
    list(krr_fit(x, y, map, lambda = "cv", folds = folds),
         krr_fit(x, classes, map, lambda = "cv", folds = folds))
  }
  band <- fits(0)
  tri <- fits(Inf)
  for (i in 1:2) {
    expect_identical(band[[i]]$lambda, tri[[i]]$lambda)
    expect_equal(band[[i]]$path, tri[[i]]$path, tolerance = 1e-10)
    expect_equal(coef(band[[i]]), coef(tri[[i]]), tolerance = 1e-9)
  }
})

test_that("the band form's GCV path equals the tridiagonal form's and the eigenvalues'", {
  levels <- simd_levels_with_kernels()
  skip_if(length(levels) == 0, "no AVX2 / AVX-512 kernels on this CPU")
  lambdas <- 10^seq(1, -6, length.out = 15)
  for (simd in levels) {
    for (n in c(60, 130)) {
      for (k in c(1, 2)) {
        g <- spd_gram(n, seed = 2 * n + k)
        zy <- matrix(rnorm(n * k), n, k)
        rows <- 5 * n
        yy <- sum(zy^2) + rows
        band <- kitchen:::ridge_gcv_path_cpp(g, zy, yy, rows, lambdas, 0L, FALSE, 2L, simd, TRUE)
        tri <- kitchen:::ridge_gcv_path_cpp(g, zy, yy, rows, lambdas, 0L, FALSE, 2L, simd, FALSE)
        values <- eigen(g, symmetric = TRUE, only.values = TRUE)$values
        df <- vapply(lambdas, function(l) 1 + sum(values / (values + l)), 0)
        expect_equal(band$df, df, tolerance = 1e-11)
        expect_equal(band$df, tri$df, tolerance = 1e-11)
        expect_equal(band$gcv, tri$gcv, tolerance = 1e-11)
        expect_identical(band$best, tri$best)
        expect_equal(band$coefficients, tri$coefficients, tolerance = 1e-11)
        expect_identical(kitchen:::ridge_gcv_path_cpp(g, zy, yy, rows, lambdas, 0L, FALSE, 1L,
                                                      simd, TRUE), band)
        chosen <- kitchen:::ridge_gcv_path_cpp(g, zy, yy, rows, lambdas, 4L, FALSE, 2L, simd, TRUE)
        expect_identical(chosen$best, 4)
        expect_equal(chosen$coefficients, solve(g + lambdas[4] * diag(n), zy), tolerance = 1e-11)
      }
    }
  }
})

test_that("the band form's GCV path is NaN where G + lambda I is indefinite", {
  skip_if(length(simd_levels_with_kernels()) == 0, "no AVX2 / AVX-512 kernels on this CPU")
  n <- 100
  set.seed(3)
  q <- qr.Q(qr(matrix(rnorm(n * n), n)))
  g <- q %*% (c(-1, seq(1, 2, length.out = n - 1)) * t(q))
  g <- (g + t(g)) / 2
  zy <- matrix(rnorm(n), n)
  r <- kitchen:::ridge_gcv_path_cpp(g, zy, 100, 500, c(3, 0.5), 0L, FALSE, 2L, "avx2", TRUE)
  expect_true(is.finite(r$gcv[1]) && is.finite(r$df[1]))
  expect_true(is.nan(r$gcv[2]) && is.nan(r$df[2]))
  expect_identical(r$best, 1)
  none <- kitchen:::ridge_gcv_path_cpp(g, zy, 100, 500, 0.5, 0L, FALSE, 2L, "avx2", TRUE)
  expect_equal(none$best, 0)
})

test_that("krr_fit()'s GCV chooses alike with the band form and the tridiagonal form", {
  skip_if(length(simd_levels_with_kernels()) == 0, "no AVX2 / AVX-512 kernels on this CPU")
  set.seed(6)
  x <- matrix(runif(500 * 3), 500, 3)
  y <- cos(3 * x[, 1]) * x[, 2] + rnorm(500, sd = 0.05)
  map <- rff(x, 100, sigma = 0.5, seed = 2)
  fit_with <- function(option) {
    old <- options(kitchen.band_reduction = option)
    on.exit(options(old))
    krr_fit(x, y, map, lambda = "gcv")
  }
  band <- fit_with(0)
  tri <- fit_with(Inf)
  expect_identical(band$lambda, tri$lambda)
  expect_equal(band$path, tri$path, tolerance = 1e-10)
  expect_equal(coef(band), coef(tri), tolerance = 1e-9)
  expect_equal(predict(band, x[1:20, ]), predict(tri, x[1:20, ]), tolerance = 1e-9)
})
