# Finite input at the ends of the double range gives finite, correct
# answers or an error naming the argument; never NaN, and never distant
# points merged into one.

test_that("kernel_matrix() has no NaN for huge or tiny x / sigma, and K(x, x) = 1", {
  base <- rbind(c(1, 0), c(-1, 1), c(0.5, 0.5))
  kernels <- function(sigma) list(kernel_gaussian(sigma), kernel_laplacian(sigma),
                                  kernel_cauchy(sigma), kernel_matern(sigma, 0.5),
                                  kernel_matern(sigma, 1.5), kernel_matern(sigma, 2.5),
                                  kernel_matern(sigma, 0.7))
  for (s in c(1e155, 1e-170, 1e300, 1e-300)) {
    for (i in seq_along(kernels(1))) {
      expected <- kernel_matrix(base, kernel = kernels(1)[[i]], n_threads = 1)
      got <- kernel_matrix(base * s, kernel = kernels(s)[[i]], n_threads = 1)
      expect_false(anyNA(got), label = paste(kernels(1)[[i]]$name, s))
      expect_equal(diag(got), rep(1, 3))
      expect_equal(got, expected, tolerance = 1e-12, label = paste(kernels(1)[[i]]$name, s))
    }
  }
  # distances past the largest double: the kernel is 0, not NaN
  far <- rbind(c(1.5e308, 0), c(-1.5e308, 0))
  for (k in kernels(1)) {
    expect_equal(kernel_matrix(far, kernel = k, n_threads = 1), diag(2), ignore_attr = TRUE)
  }
  # a subnormal sigma: only identical points are near
  expect_equal(kernel_matrix(rbind(0, 1e-300), kernel = kernel_gaussian(4e-320)), diag(2))
})

test_that("rbin() refuses scales that would merge distant points into one bin", {
  set.seed(1)
  x <- matrix(rnorm(50 * 2), 50, 2)
  expect_error(rbin(x, 10, sigma = 1e-16, seed = 1), class = "kitchen_error_argument",
               regexp = "2\\^49 bins")
  expect_error(rbin(x * 1e300, 10, sigma = 1, scale = "none", seed = 1),
               class = "kitchen_error_argument", regexp = "bins")
  # (without clipping: a clipped map brings new rows back to the training range)
  map <- rbin(x, 10, sigma = 1, seed = 1, n_threads = 1, clip = FALSE)
  expect_error(predict(map, x * 1e20), class = "kitchen_error_argument", regexp = "newdata")
  hashed <- rbin(2, 10, sigma = 1e-3, n_buckets = 64, seed = 1)
  expect_error(predict(hashed, x * 1e15), class = "kitchen_error_argument", regexp = "bins")
  # a far point within range still gets its own bins (none seen in training)
  z <- predict(map, rbind(c(1e6, 1e6)), n_threads = 1)
  expect_equal(attr(z, "rows_with_unseen"), 1)
  sparse <- Matrix::Matrix(cbind(c(1e300, 0, 0), 0), sparse = TRUE)
  expect_error(rbin(sparse, 5, sigma = 1, scale = "none"), class = "kitchen_error_argument",
               regexp = "bins")
})

test_that("rbin() bins a column spanning nearly the whole double range as its rescaled self", {
  # Its bin width (scale x pitch) overflowed: 1 / Inf put all rows in one bin.
  set.seed(1)
  x <- cbind(a = runif(200, -1, 1), b = runif(200))
  wide <- x
  wide[, 1] <- x[, 1] * 1.6e308
  for (scale in c("minmax", "standard")) {
    map <- rbin(x, 5, seed = 1, scale = scale, n_threads = 1)
    map_wide <- rbin(wide, 5, seed = 1, scale = scale, n_threads = 1)
    expect_identical(map_wide$n_bins, map$n_bins, label = scale)
    expect_equal(as.matrix(predict(map_wide, wide)), as.matrix(predict(map, x)))
  }
})

test_that("fwht() gives +-Inf, never NaN, when finite input overflows", {
  expect_equal(fwht(rep(1e308, 4)), c(Inf, 0, 0, 0))
  expect_equal(fwht(rep(1e308, 4), normalize = TRUE), c(Inf, 0, 0, 0))
  expect_equal(fwht(rep(0.8e308, 4), normalize = TRUE), c(1.6e308, 0, 0, 0))
  out <- fwht(c(1.5e308, -1.5e308, 1.5e308, 1))
  expect_equal(out, c(1.5e308, Inf, -1.5e308, 1.5e308))
  m <- matrix(c(rep(1e308, 4), 1:4), 4, dimnames = list(NULL, c("big", "small")))
  out <- fwht(m, n_threads = 1)
  expect_equal(dimnames(out), dimnames(m))
  expect_equal(out[, "small"], c(10, -2, -4, 0))
  expect_equal(out[, "big"], c(Inf, 0, 0, 0))
})

test_that("maps refuse data too small to rescale instead of storing infinite frequencies", {
  tiny <- cbind(c(1, 2, 3) * 1e-310, c(1, 5, 2))
  for (build in list(function() rff(tiny, 10), function() fastfood(tiny, 8),
                     function() rbin(tiny, 5))) {
    expect_error(build(), class = "kitchen_error_argument", regexp = "too small to rescale")
  }
  # chunked data too, by name (their squares underflowed: taken as constant)
  named <- list(list(x = cbind(a = c(1, 2) * 1e-310, b = c(1, 5))),
                list(x = cbind(a = 3e-310, b = 2)))
  for (scale in c("standard", "minmax")) {
    expect_error(rff(chunked(named), 10, scale = scale), class = "kitchen_error_argument",
                 regexp = "too small to rescale.*1 \\(\"a\"\\)")
  }
  expect_error(rff(tiny, 10, scale = "none", sigma = 1e-320), class = "kitchen_error_argument",
               regexp = "sigma")
  expect_error(fastfood(tiny, 8, scale = "none", sigma = 1e-320), class = "kitchen_error_argument",
               regexp = "sigma")
  # Nystroem divides its centers by sigma: an overflow there gave NaN features
  expect_error(nystrom(tiny, 2, scale = "none", sigma = 1e-320), class = "kitchen_error_argument",
               regexp = "sigma")
  expect_error(nystrom(tiny, 2, scale = "none", sigma = c(1, 1e-320)),
               class = "kitchen_error_argument", regexp = "sigma")
})

test_that("a response far from zero gets the lambda and the scores of the centred one", {
  set.seed(1)
  x <- matrix(runif(1200), 600)
  y <- sin(6 * x[, 1]) + rnorm(600, sd = 0.1)
  folds <- rep(1:5, 120)
  map <- rff(x, 100, sigma = 0.5, seed = 1)
  binned <- rbin(x, 8, seed = 1)
  chunks <- function(shift) {
    lapply(split(seq_len(600), rep(1:5, each = 120)), function(r) list(x = x[r, ], y = y[r] + shift))
  }
  fits <- function(shift) {
    list(gcv = krr_fit(x, y + shift, map, lambda = "gcv", n_threads = 1),
         cv = krr_fit(x, y + shift, map, folds = folds, n_threads = 1),
         binned = krr_fit(x, y + shift, binned, folds = folds, n_threads = 1, verbose = FALSE),
         chunked = krr_fit(chunked(chunks(shift)), map, lambda = "gcv", n_threads = 1,
                           verbose = FALSE),
         chunked_cv = krr_fit(chunked(chunks(shift)), map, n_threads = 1, verbose = FALSE),
         chunked_binned = krr_fit(chunked(chunks(shift)), binned, n_threads = 1, verbose = FALSE))
  }
  centred <- fits(0)
  for (shift in c(1e8, -1e10)) {
    shifted <- fits(shift)
    for (kind in names(centred)) {
      label <- paste(kind, shift)
      expect_equal(shifted[[kind]]$lambda, centred[[kind]]$lambda, tolerance = 1e-6, label = label)
      expect_equal(shifted[[kind]]$training_rmse, centred[[kind]]$training_rmse, tolerance = 1e-4,
                   label = label)
      expect_equal(predict(shifted[[kind]], x[1:20, ]) - shift, predict(centred[[kind]], x[1:20, ]),
                   tolerance = 1e-5, label = label)
    }
  }
})

test_that("a constant column of any size leaves the other columns' features alone", {
  # An rff map folds the centring into its phases; a constant of 1e20
  # scaled by 1 cancelled the other columns there (every row got the same
  # features, and the fit was the intercept alone).
  set.seed(1)
  x <- matrix(rnorm(300), 100, 3, dimnames = list(NULL, c("a", "b", "c")))
  y <- sin(x[, 1]) + x[, 2]
  for (scale in c("standard", "minmax")) {
    # clip = FALSE: new values of the column count, relative to its size
    small <- rff(cbind(x, stamp = 1), 50, sigma = 1, scale = scale, seed = 1, clip = FALSE)
    for (size in c(1e15, 1.7e18, 1e20, -1e300)) {
      big <- rff(cbind(x, stamp = size), 50, sigma = 1, scale = scale, seed = 1, clip = FALSE)
      expect_equal(big$scale[4], abs(size))
      expect_equal(predict(big, cbind(x, stamp = size)), predict(small, cbind(x, stamp = 1)),
                   tolerance = 1e-12, label = paste(scale, size))
      expect_equal(predict(big, cbind(x, stamp = 2 * size)),
                   predict(small, cbind(x, stamp = 1 + sign(size))),
                   tolerance = 1e-12)
    }
    fit_small <- krr_fit(cbind(x, stamp = 1), y, small, lambda = 0.1, n_threads = 1)
    fit_big <- krr_fit(cbind(x, stamp = 1.7e18), y,
                       rff(cbind(x, stamp = 1.7e18), 50, sigma = 1, scale = scale, seed = 1),
                       lambda = 0.1, n_threads = 1)
    expect_equal(fitted(fit_big), fitted(fit_small), tolerance = 1e-10)
  }
  # sparse data: a constant column's moments round to a tiny spread, and a
  # sparse chunk's clipping range keeps 0; its scale must come from its values
  dense <- cbind(x, stamp = 0.1)
  sparse <- Matrix::Matrix(dense, sparse = TRUE)
  for (scale in c("standard", "minmax")) {
    memory <- rff(dense, 50, sigma = 1, scale = scale, seed = 1)
    for (map in list(rff(sparse, 50, sigma = 1, scale = scale, seed = 1),
                     rff(chunked(list(list(x = sparse[1:50, ]), list(x = sparse[51:100, ]))), 50,
                         sigma = 1, scale = scale, seed = 1))) {
      expect_identical(map$center[4], 0.1, label = scale)
      expect_identical(map$scale[4], 1, label = scale)
      expect_equal(as.matrix(predict(map, sparse)), predict(memory, dense), tolerance = 1e-12)
    }
  }
  # the same scale from chunked data, whose pooled mean can round
  parts <- split(seq_len(100), rep(1:3, length.out = 100))
  chunks <- lapply(parts, function(i) list(x = cbind(x[i, ], stamp = 1.7e18), y = y[i]))
  for (scale in c("standard", "minmax")) {
    from_chunks <- rff(chunked(chunks), 50, sigma = 1, scale = scale, seed = 1)
    memory <- rff(cbind(x, stamp = 1.7e18), 50, sigma = 1, scale = scale, seed = 1)
    expect_identical(from_chunks$center[4], 1.7e18)
    expect_identical(from_chunks$scale[4], 1.7e18)
    expect_equal(predict(from_chunks, cbind(x, stamp = 1.7e18)),
                 predict(memory, cbind(x, stamp = 1.7e18)), tolerance = 1e-12)
  }
})
