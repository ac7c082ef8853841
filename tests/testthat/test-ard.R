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

test_that("the ARD objective's gradient matches finite differences", {
  set.seed(4)
  n <- 200
  d <- 4
  x <- matrix(runif(n * d), n, d)
  y <- cbind(sin(3 * x[, 1]) + x[, 2]^2 + rnorm(n, sd = 0.1), x[, 1])
  data <- list(x = x, y = y, w = runif(n, 0.5, 2), half = sample(rep(1:2, length.out = n)))
  for (kernel in list(kernel_gaussian(), kernel_laplacian(), kernel_matern(1, 2.5))) {
    problem <- list(data = data, w0 = kitchen:::spectral_sample(kernel, d, 16), n_threads = 1L)
    theta <- c(log(c(0.5, 1, 2, 0.3)), -3)
    value <- function(t) kitchen:::ard_objective(t, problem, gradient = FALSE)$value
    exact <- kitchen:::ard_objective(theta, problem)
    expect_identical(exact$value, value(theta))
    h <- 1e-5
    numeric_grad <- vapply(seq_along(theta), function(i) {
      step <- replace(numeric(length(theta)), i, h)
      (value(theta + step) - value(theta - step)) / (2 * h)
    }, 0)
    expect_equal(exact$gradient, numeric_grad, tolerance = 1e-6, info = kernel$name)
  }
})

test_that("sigma = 'ard' finds the relevant columns and fits better than one bandwidth", {
  set.seed(5)
  n <- 1500
  x <- matrix(runif(n * 6), n, 6, dimnames = list(NULL, paste0("v", 1:6)))
  f <- function(x) sin(2 * pi * x[, 1]) + 2 * (x[, 2] - 0.5)^2
  y <- f(x) + rnorm(n, sd = 0.1)
  xt <- matrix(runif(1000 * 6), 1000, 6, dimnames = list(NULL, paste0("v", 1:6)))
  ard <- krr_fit(x, y, "rff", sigma = "ard", n_features = 200, seed = 1, n_threads = 1, verbose = FALSE)
  iso <- krr_fit(x, y, "rff", sigma = "auto", n_features = 200, seed = 1, n_threads = 1, verbose = FALSE)
  expect_length(ard$map$kernel$sigma, 6)
  r <- relevance(ard)
  expect_named(r, paste0("v", 1:6))
  expect_identical(unname(r), 1 / ard$map$kernel$sigma)
  expect_setequal(names(sort(r, decreasing = TRUE))[1:2], c("v1", "v2"))
  rmse <- function(fit) sqrt(mean((predict(fit, xt) - f(xt))^2))
  expect_lt(rmse(ard), 0.8 * rmse(iso))
  expect_output(print(ard), "relevance : v")
  expect_output(print(summary(ard)), "bandwidth search")
  file <- tempfile(fileext = ".pdf")
  grDevices::pdf(file)
  expect_invisible(plot(ard, type = "relevance"))
  grDevices::dev.off()
  # The map is used as is afterwards; "auto" would scale one bandwidth.
  again <- krr_fit(x, y, ard$map, lambda = ard$lambda, n_threads = 1, verbose = FALSE)
  expect_equal(predict(again, xt), predict(ard, xt))
  expect_error(krr_fit(x, y, ard$map, sigma = "auto"), "one per column", class = "kitchen_error_argument")
  # Fastfood and rbin maps take the learned bandwidths too.
  ff <- krr_fit(x, y, "fastfood", sigma = "ard", n_features = 256, seed = 1, n_threads = 1, verbose = FALSE)
  expect_length(ff$map$kernel$sigma, 6)
  expect_lt(rmse(ff), 0.8 * rmse(iso))
  rb <- krr_fit(x, y, "rbin", sigma = "ard", n_grids = 30, seed = 1, n_threads = 1, verbose = FALSE)
  expect_length(rb$map$kernel$sigma, 6)
  expect_identical(names(which.max(relevance(rb))), "v1")
  rb_iso <- krr_fit(x, y, "rbin", n_grids = 30, seed = 1, n_threads = 1, verbose = FALSE)
  expect_lt(rmse(rb), rmse(rb_iso))
  # Chunked data: learned on the first chunks.
  chunks <- chunked(lapply(split(seq_len(n), rep(1:3, length.out = n)),
                           function(i) list(x = x[i, ], y = y[i])))
  ch <- krr_fit(chunks, rff(x, 200, seed = 1), sigma = "ard", n_threads = 1, verbose = FALSE,
                parallel = "none")
  expect_length(ch$map$kernel$sigma, 6)
  expect_lt(rmse(ch), 0.8 * rmse(iso))
})

test_that("sigma = 'ard' needs enough rows", {
  x <- matrix(runif(30), 10, 3)
  expect_error(krr_fit(x, runif(10), "rff", sigma = "ard", n_features = 10),
               "at least 20 training rows", class = "kitchen_error_argument")
})

test_that("relevance() refuses other objects", {
  expect_error(relevance(1), "`object`", class = "kitchen_error_argument")
  map <- rff(3, 10, sigma = c(1, 2, 4), seed = 1)
  expect_identical(relevance(map), c(x1 = 1, x2 = 0.5, x3 = 0.25))
})
