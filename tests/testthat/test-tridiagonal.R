# kitchen's tridiagonal reduction G = Q T Q' (tridiagonal.hpp), behind
# krr_fit(lambda = "gcv" / "cv"), against R's eigen() / solve() and the
# LAPACK dsytrd path it replaces.

# The reduction by kitchen (or LAPACK) with T as a matrix and Q explicit.
reduce_gram <- function(g, lapack = FALSE, n_threads = 2L, simd = kitchen:::resolve_simd(),
                        slice_entries = 0) {
  n <- nrow(g)
  eye <- diag(n)
  r <- kitchen:::tridiagonal_cpp(g, eye, eye, lapack, n_threads, simd, slice_entries)
  t_mat <- diag(r$d, n)
  if (n > 1) {
    t_mat[cbind(2:n, 1:(n - 1))] <- r$e
    t_mat[cbind(1:(n - 1), 2:n)] <- r$e
  }
  list(t = t_mat, q = r$qy, qt = r$qtx, d = r$d, e = r$e)
}

# Eigenvalues, reconstruction, orthogonality, and Q' consistent with Q.
expect_tridiagonal_form <- function(g, ...) {
  r <- reduce_gram(g, ...)
  values <- eigen(g, symmetric = TRUE, only.values = TRUE)$values
  from_t <- eigen(r$t, symmetric = TRUE, only.values = TRUE)$values
  scale <- max(abs(values))
  if (scale == 0) scale <- 1
  expect_lt(max(abs(from_t - values)) / scale, 1e-10)
  g_norm <- max(norm(g, "F"), .Machine$double.xmin)
  if (norm(g, "F") > 0) {
    expect_lt(norm(r$q %*% r$t %*% t(r$q) - g, "F") / g_norm, 1e-12)
  } else {
    expect_identical(max(abs(r$t)), 0)
  }
  expect_lt(max(abs(crossprod(r$q) - diag(nrow(g)))), 1e-12)
  expect_lt(max(abs(r$qt - t(r$q))), 1e-12)
}

random_gram <- function(n, rank = n, seed = n) {
  set.seed(seed)
  z <- matrix(rnorm((n + 3) * rank), n + 3, rank) %*% matrix(rnorm(rank * n), rank, n)
  crossprod(z)
}

test_that("the reduction is exact to rounding at panel-edge sizes", {
  # 32 columns per panel: 31, 32, 33, 65 cross its edges.
  for (n in c(1, 2, 3, 31, 32, 33, 65, 300)) expect_tridiagonal_form(random_gram(n))
})

test_that("the reduction is exact on every SIMD level", {
  for (level in c("scalar", "avx2", "avx512")) {
    with_simd(level, {
      expect_tridiagonal_form(random_gram(70, seed = 1))
      expect_tridiagonal_form(random_gram(3, seed = 2))
    })
  }
})

test_that("rank-deficient, zero and badly scaled matrices keep their accuracy", {
  expect_tridiagonal_form(random_gram(120, rank = 10))
  expect_tridiagonal_form(matrix(0, 40, 40))
  g <- random_gram(70)
  zero <- c(1, 5, 33, 34, 70)
  g[zero, ] <- 0
  g[, zero] <- 0
  expect_tridiagonal_form(g)
  expect_tridiagonal_form(random_gram(90) * 1e-150)
  expect_tridiagonal_form(random_gram(90) * 1e150)
  # Graded: entries from 1e-150 to 1e150 in one matrix (eigenvalues are
  # checked relative to the largest, which hides the small ones).
  grades <- 10^seq(-75, 75, length.out = 50)
  expect_tridiagonal_form(random_gram(50) * tcrossprod(grades))
})

test_that("the reduction does not depend on the number of threads", {
  # Slices of 2000 entries split the symmetric product of these small
  # matrices between threads as D >= 2450 is by default.
  simd <- kitchen:::resolve_simd()
  for (n in c(70, 300)) {
    set.seed(n)
    a <- matrix(rnorm(n * n), n)
    g <- a + t(a)
    b <- matrix(rnorm(2 * n), n, 2)
    for (entries in c(0, 2000)) {
      one <- kitchen:::tridiagonal_cpp(g, b, b, FALSE, 1L, simd, entries)
      two <- kitchen:::tridiagonal_cpp(g, b, b, FALSE, 2L, simd, entries)
      expect_identical(one, two)
    }
  }
  # Split, the reduction stays exact to rounding.
  expect_tridiagonal_form(random_gram(300), slice_entries = 2000)
  with_simd("scalar", {
    g <- random_gram(300)
    expect_identical(kitchen:::tridiagonal_cpp(g, g, g, FALSE, 1L, "scalar", 2000),
                     kitchen:::tridiagonal_cpp(g, g, g, FALSE, 2L, "scalar", 2000))
  })
})

test_that("Q by blocks of reflectors equals Q one reflector at a time", {
  # reflector_blocks.hpp: the lambda path's many columns take Q by blocks
  # of 48 reflectors (matrix products on the SIMD kernels). Sizes around
  # the block edges (48, 96), the depth block (256) and strip widths; the
  # products agree to rounding, and do not depend on the threads or on which
  # other columns are passed with a column.
  cpu <- match(kitchen:::simd_detect_cpp(), kitchen:::simd_levels())
  levels <- c("avx2", "avx512")[c(2, 3) <= cpu]
  skip_if(length(levels) == 0, "no AVX2 or AVX-512 kernels on this CPU")
  for (simd in levels) {
    for (n in c(2, 3, 48, 49, 50, 97, 150, 260, 300)) {
      set.seed(n)
      g <- random_gram(n)
      x <- matrix(rnorm(n * 101), n)
      y <- matrix(rnorm(n * 3), n)
      one <- kitchen:::tridiagonal_cpp(g, x, y, FALSE, 1L, simd)
      blocked <- kitchen:::tridiagonal_cpp(g, x, y, FALSE, 1L, simd, 0, TRUE)
      expect_identical(blocked$d, one$d)
      expect_lt(max(abs(blocked$qtx - one$qtx)) / max(abs(one$qtx)), 1e-10)
      expect_lt(max(abs(blocked$qy - one$qy)) / max(abs(one$qy)), 1e-10)
      expect_identical(kitchen:::tridiagonal_cpp(g, x, y, FALSE, 2L, simd, 0, TRUE), blocked)
      few <- kitchen:::tridiagonal_cpp(g, x[, 7:9], y[, 2, drop = FALSE], FALSE, 2L, simd, 0,
                                       TRUE)
      expect_identical(few$qtx, blocked$qtx[, 7:9])
      expect_identical(few$qy, blocked$qy[, 2, drop = FALSE])
    }
  }
})

test_that("GCV scores, df and coefficients match LAPACK and a dense solve", {
  set.seed(4)
  n <- 400
  z <- scale(matrix(rnorm(n * 90), n, 90) %*% matrix(rnorm(90 * 90), 90), scale = FALSE)
  y <- cbind(z %*% rnorm(90) + rnorm(n), rnorm(n))
  y <- scale(y, scale = FALSE)
  g <- crossprod(z)
  zy <- crossprod(z, y)
  yy <- sum(y^2)
  lambdas <- mean(diag(g)) * 10^seq(0, -4, length.out = 6)
  simd <- kitchen:::resolve_simd()
  ours <- kitchen:::ridge_gcv_path_cpp(g, zy, yy, n, lambdas, 0L, FALSE, 2L, simd)
  lapack <- kitchen:::ridge_gcv_path_cpp(g, zy, yy, n, lambdas, 0L, TRUE, 2L, simd)
  expect_equal(ours$gcv, lapack$gcv, tolerance = 1e-9)
  expect_equal(ours$df, lapack$df, tolerance = 1e-9)
  expect_equal(ours$coefficients, lapack$coefficients, tolerance = 1e-9)
  expect_identical(ours$best, lapack$best)
  values <- eigen(g, symmetric = TRUE, only.values = TRUE)$values
  for (l in seq_along(lambdas)) {
    w <- solve(g + diag(lambdas[l], ncol(g)), zy)
    df <- 1 + sum(values / (values + lambdas[l]))
    rss <- yy - 2 * sum(w * zy) + sum(w * (g %*% w))
    expect_equal(ours$df[l], df, tolerance = 1e-9)
    expect_equal(ours$gcv[l], n * rss / (n - df)^2, tolerance = 1e-9)
    if (l == ours$best) expect_equal(ours$coefficients, w, tolerance = 1e-9, ignore_attr = TRUE)
  }
  every <- kitchen:::ridge_path_coefficients_cpp(g, zy, lambdas, FALSE, 2L, simd)
  expect_equal(every, kitchen:::ridge_path_coefficients_cpp(g, zy, lambdas, TRUE, 2L, simd),
               tolerance = 1e-9)
  expect_equal(every[, 5:6], solve(g + diag(lambdas[3], ncol(g)), zy), tolerance = 1e-9,
               ignore_attr = TRUE)
})

test_that("krr_fit() gives the LAPACK path's fit with either reduction", {
  set.seed(5)
  x <- matrix(runif(600 * 3, -2, 2), 600, 3)
  y <- sin(2 * x[, 1]) + x[, 2]^2 / 2 + rnorm(600, sd = 0.1)
  map <- rff(x, 100, sigma = 1, seed = 6)
  for (lambda in c("gcv", "cv")) {
    fits <- lapply(c("kitchen", "lapack"), function(choice) {
      old <- options(kitchen.tridiagonal = choice)
      on.exit(options(old))
      set.seed(7)
      krr_fit(x, y, map, lambda = lambda, n_threads = 2, verbose = FALSE)
    })
    expect_equal(fits[[1]]$path, fits[[2]]$path, tolerance = 1e-9)
    expect_identical(fits[[1]]$lambda, fits[[2]]$lambda)
    expect_equal(fits[[1]]$coefficients, fits[[2]]$coefficients, tolerance = 1e-9)
  }
})

test_that("options(kitchen.tridiagonal) is checked", {
  old <- options(kitchen.tridiagonal = "fast")
  on.exit(options(old))
  expect_error(krr_fit(matrix(rnorm(40), 20), rnorm(20), "rff", n_features = 10, seed = 1,
                       verbose = FALSE), "kitchen.tridiagonal")
})
