# Per-column bandwidths (automatic relevance determination).

ard_reference <- function(x, y, kernel) {
  # The ARD kernel straight from its formula: the kernel at bandwidth 1 of
  # the differences divided by the bandwidths.
  unit <- kernel
  unit$sigma <- 1
  k <- matrix(0, nrow(x), nrow(y))
  for (i in seq_len(nrow(x))) {
    for (j in seq_len(nrow(y))) k[i, j] <- ref_kernel_value((x[i, ] - y[j, ]) / kernel$sigma, unit)
  }
  k
}

test_that("kernel_matrix() with per-column bandwidths is the exact ARD kernel", {
  set.seed(1)
  x <- matrix(rnorm(12 * 3), 12, 3)
  y <- matrix(rnorm(5 * 3), 5, 3)
  s <- c(0.5, 2, 7)
  for (kernel in test_kernels(s)) {
    expect_equal(kernel_matrix(x, y, kernel = kernel, n_threads = 1), ard_reference(x, y, kernel),
                 tolerance = 1e-12, info = kernel_label(kernel))
  }
  # All bandwidths equal: the isotropic kernel exactly.
  expect_identical(kernel_matrix(x, y, kernel_laplacian(rep(1.5, 3)), n_threads = 1),
                   kernel_matrix(x, y, kernel_laplacian(1.5), n_threads = 1))
  expect_error(kernel_matrix(x, kernel = kernel_gaussian(c(1, 2))), "kernel\\$sigma.*one per input column",
               class = "kitchen_error_argument")
})

test_that("equal per-column bandwidths give bitwise the features of one bandwidth", {
  set.seed(2)
  x <- matrix(rnorm(40 * 5), 40, 5)
  for (type in c("cos_sin", "cos_phase")) {
    expect_identical(predict(rff(x, 64, sigma = rep(1.7, 5), type = type, seed = 3), x),
                     predict(rff(x, 64, sigma = 1.7, type = type, seed = 3), x))
    expect_identical(predict(fastfood(x, 64, sigma = rep(1.7, 5), type = type, seed = 3), x),
                     predict(fastfood(x, 64, sigma = 1.7, type = type, seed = 3), x))
  }
  expect_identical(predict(rbin(x, 30, sigma = rep(1.7, 5), seed = 3, n_threads = 1), x),
                   predict(rbin(x, 30, sigma = 1.7, seed = 3, n_threads = 1), x))
  sparse <- Matrix::rsparsematrix(40, 5, 0.3)
  expect_identical(predict(fastfood(sparse, 64, sigma = rep(2, 5), seed = 3), sparse),
                   predict(fastfood(sparse, 64, sigma = 2, seed = 3), sparse))
})

test_that("features with per-column bandwidths estimate the ARD kernel", {
  set.seed(3)
  x <- matrix(rnorm(30 * 3), 30, 3)
  s <- c(0.4, 1.5, 6)
  exact_g <- ard_reference(x, x, kernel_gaussian(s))
  for (make in list(rff, fastfood)) {
    map <- make(x, 20000, sigma = s, scale = "none", seed = 4)
    expect_identical(map$kernel$sigma, s)
    z <- predict(map, x, n_threads = 1)
    expect_lt(max(abs(tcrossprod(z) - exact_g)), 0.05)
  }
  # Each column matters as its bandwidth says: the estimate of the ARD
  # kernel is much closer than that of the isotropic one.
  iso <- ard_reference(x, x, kernel_gaussian(rep(1.5, 3)))
  expect_gt(max(abs(iso - exact_g)), 0.3)
  map <- rbin(x, 4000, sigma = s, scale = "none", seed = 4, n_threads = 1)
  z <- predict(map, x, n_threads = 1)
  expect_lt(max(abs(as.matrix(Matrix::tcrossprod(z)) - ard_reference(x, x, kernel_laplacian(s)))), 0.06)
  # Fastfood's implied frequencies are divided by each column's bandwidth.
  ff <- fastfood(x, 64, sigma = s, seed = 5)
  iso_ff <- fastfood(x, 64, sigma = 1, seed = 5)
  expect_equal(as.matrix(ff), as.matrix(iso_ff) / s, tolerance = 1e-12)
})

test_that("per-column bandwidths of the wrong length are refused, naming sigma", {
  x <- matrix(rnorm(20 * 3), 20, 3)
  for (make in list(rff, fastfood)) {
    expect_error(make(x, 16, sigma = c(1, 2)), "`sigma` must hold one bandwidth or one per input column \\(3\\), not 2",
                 class = "kitchen_error_argument")
    expect_error(make(3, 16, kernel = kernel_gaussian(1:2)), "`sigma`", class = "kitchen_error_argument")
  }
  expect_error(rbin(x, 16, sigma = c(1, 2, 3, 4)), "`sigma`", class = "kitchen_error_argument")
  map <- rff(x, 16, sigma = c(1, 2, 3), seed = 1)
  map$kernel$sigma <- c(1, 2)
  expect_error(predict(map, x), "kernel\\$sigma", class = "kitchen_error_argument")
  ff <- fastfood(x, 16, sigma = c(1, 2, 3), seed = 1)
  ff$kernel$sigma <- c(1, 2, 3, 4)
  expect_error(predict(ff, x), "kernel\\$sigma", class = "kitchen_error_argument")
  expect_error(print(ff), "kernel\\$sigma", class = "kitchen_error_argument")
  ff$kernel$sigma <- c(1, -2, 3)
  expect_error(predict(ff, x), "kernel\\$sigma", class = "kitchen_error_argument")
})

test_that("per-column bandwidths print sensibly and survive saveRDS", {
  x <- matrix(rnorm(50 * 3), 50, 3)
  for (map in list(rff(x, 16, sigma = c(0.5, 1, 8), seed = 1),
                   fastfood(x, 16, sigma = c(0.5, 1, 8), seed = 1),
                   rbin(x, 8, sigma = c(0.5, 1, 8), seed = 1, n_threads = 1))) {
    expect_output(print(map), "sigma per column: 3 from 0.5 to 8")
    file <- tempfile(fileext = ".rds")
    saveRDS(map, file)
    back <- readRDS(file)
    expect_identical(back$kernel$sigma, c(0.5, 1, 8))
    expect_identical(predict(back, x, n_threads = 1), predict(map, x, n_threads = 1))
  }
})
