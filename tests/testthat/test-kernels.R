# Kernel objects -----------------------------------------------------------

test_that("constructors give classed objects with their parameters", {
  k <- kernel_gaussian(2)
  expect_s3_class(k, c("kitchen_kernel_gaussian", "kitchen_kernel"), exact = TRUE)
  expect_identical(unclass(k), list(name = "gaussian", sigma = 2))
  expect_identical(kernel_laplacian()$sigma, 1)
  expect_s3_class(kernel_laplacian(), "kitchen_kernel_laplacian")
  expect_s3_class(kernel_cauchy(0.5), "kitchen_kernel_cauchy")
  m <- kernel_matern()
  expect_s3_class(m, c("kitchen_kernel_matern", "kitchen_kernel"), exact = TRUE)
  expect_identical(unclass(m), list(name = "matern", sigma = 1, nu = 1.5))
  expect_identical(kernel_matern(3L, 2L)$nu, 2)  # stored as double
  expect_identical(kernel_matern(3L, 2L)$sigma, 3)
})

test_that("kernels print their name and parameters", {
  expect_output(print(kernel_gaussian(2)), "^<kitchen kernel> gaussian \\(sigma = 2\\)$")
  expect_output(print(kernel_laplacian()), "laplacian \\(sigma = 1\\)")
  expect_output(print(kernel_cauchy(0.25)), "cauchy \\(sigma = 0.25\\)")
  expect_output(print(kernel_matern(1, 2.5)), "matern \\(sigma = 1, nu = 2.5\\)")
  expect_output(expect_invisible(print(kernel_cauchy())), "cauchy")
})

test_that("bad sigma and nu are refused, naming the argument", {
  bad <- list(0, -1, NA, NA_real_, "a", c(1, 2), Inf, NULL)
  constructors <- list(kernel_gaussian, kernel_laplacian, kernel_cauchy, kernel_matern)
  for (make in constructors) {
    for (sigma in c(bad[-6], list(c(1, -2), c(1, NA)))) {  # c(1, 2): one bandwidth per column
      expect_error(make(sigma), "`sigma` must be a positive number", class = "kitchen_error_argument")
    }
  }
  for (nu in bad[!vapply(bad, identical, TRUE, Inf)]) {
    expect_error(kernel_matern(1, nu), "`nu` must be a positive number", class = "kitchen_error_argument")
  }
  # Inf is positive: the message names the Gaussian limit instead
  expect_error(kernel_matern(1, Inf), "`nu` must be finite.*kernel_gaussian",
               class = "kitchen_error_argument")
})

test_that("as_kernel() takes a name (with sigma and nu) or an object", {
  as_kernel <- kitchen:::as_kernel
  expect_identical(as_kernel("gaussian"), kernel_gaussian())
  expect_identical(as_kernel("laplacian", sigma = 2), kernel_laplacian(2))
  expect_identical(as_kernel("matern", sigma = 2, nu = 0.5), kernel_matern(2, 0.5))
  expect_identical(as_kernel(kernel_cauchy(3)), kernel_cauchy(3))
  expect_identical(as_kernel(kernel_matern(3, 2.5), sigma = 0.5), kernel_matern(0.5, 2.5))
  expect_error(as_kernel("foo"), "must be one of", class = "kitchen_error_argument")
  expect_error(as_kernel(NA_character_), class = "kitchen_error_argument")
  expect_error(as_kernel(1), class = "kitchen_error_argument")
  expect_error(as_kernel("gaussian", sigma = -1), "sigma", class = "kitchen_error_argument")
  expect_error(as_kernel(kernel_gaussian(), sigma = 0), "sigma", class = "kitchen_error_argument")
})

test_that("check_kernel() refuses tampered objects", {
  check_kernel <- kitchen:::check_kernel
  expect_silent(check_kernel(kernel_matern()))
  tamper <- function(k, field, value) {
    k[[field]] <- value
    k
  }
  # Each with what the message says is wrong.
  tampered <- list(
    list(tamper(kernel_gaussian(), "sigma", -1), "Its sigma is -1"),
    list(tamper(kernel_gaussian(), "sigma", "a"), "Its sigma is \"a\""),
    list(tamper(kernel_gaussian(), "sigma", c(1, -2)), "Its sigma is 1 and -2"),  # c(1, 2): one per column
    list(tamper(kernel_gaussian(), "sigma", numeric(0)), "Its sigma is an empty numeric vector"),
    list(tamper(kernel_gaussian(), "sigma", Inf), "Its sigma is Inf"),
    list(tamper(kernel_gaussian(), "name", "foo"), "Its name is \"foo\""),
    list(tamper(kernel_matern(), "nu", NULL), "Its nu is NULL"),
    list(tamper(kernel_matern(), "nu", 0), "Its nu is 0"),
    list(unclass(kernel_laplacian()), "a list without the class kitchen_kernel"),
    list(list(name = "gaussian", sigma = 1), "a list without the class kitchen_kernel")
  )
  for (case in tampered) {
    k <- case[[1]]
    expect_error(check_kernel(k), "must be a kernel name or an object", class = "kitchen_error_argument")
    expect_error(kernel_matrix(diag(2), kernel = k), case[[2]], fixed = TRUE,
                 class = "kitchen_error_argument")
  }
})

# kernel_matrix() ----------------------------------------------------------

test_that("kernel_matrix() matches the plain-R formulas", {
  set.seed(10)
  for (d in c(1, 3, 10)) {
    x <- matrix(rnorm(7 * d), 7, d)
    y <- matrix(rnorm(5 * d), 5, d)
    for (sigma in c(0.5, 1, 3)) {
      for (k in test_kernels(sigma)) {
        label <- paste(kernel_label(k), "d =", d)
        expect_equal(kernel_matrix(x, y, k, n_threads = 1), ref_kernel_matrix(x, y, k),
                     tolerance = 1e-12, info = label)
        expect_equal(kernel_matrix(x, kernel = k, n_threads = 1), ref_kernel_matrix(x, x, k),
                     tolerance = 1e-12, info = label)
      }
    }
  }
})

test_that("kernel_matrix(x) is symmetric with exactly 1 on the diagonal", {
  set.seed(11)
  x <- matrix(rnorm(40 * 3, sd = 1e3), 40, 3)  # large values: no cancellation either
  x[2, ] <- x[1, ] + 1e-9
  for (k in test_kernels(2)) {
    km <- kernel_matrix(x, kernel = k, n_threads = 2)
    expect_identical(km, t(km), label = kernel_label(k))
    expect_identical(diag(km), rep(1, 40), label = kernel_label(k))
    expect_true(all(km >= 0 & km <= 1), label = kernel_label(k))
    expect_lt(1 - km[1, 2], 1e-8)
  }
})

test_that("results do not depend on the number of threads or the layout", {
  set.seed(12)
  x <- matrix(rnorm(700 * 10), 700, 10)
  y <- matrix(rnorm(300 * 10), 300, 10)
  for (k in test_kernels(1.3)) {
    expect_identical(kernel_matrix(x, y, k, n_threads = 1), kernel_matrix(x, y, k, n_threads = 2),
                     label = kernel_label(k))
  }
  # The core's row-major path, reached by passing the transposes.
  for (kind in c("gaussian", "laplacian", "cauchy", "matern12", "matern32", "matern52", "distance")) {
    expect_equal(kitchen:::kernel_matrix_cpp(t(x), t(y), TRUE, kind, 1.3, 2),
                 kitchen:::kernel_matrix_cpp(x, y, FALSE, kind, 1.3, 1),
                 tolerance = 1e-15, info = kind)
  }
})

test_that("Matern closed forms agree with the Bessel formula", {
  set.seed(13)
  x <- matrix(rnorm(30 * 4), 30, 4)
  r <- kitchen:::kernel_matrix_cpp(x, x, FALSE, "distance", 1, 1)
  expect_equal(r, as.matrix(dist(x)), tolerance = 1e-14, ignore_attr = TRUE)
  for (nu in c(0.5, 1.5, 2.5)) {
    for (sigma in c(0.3, 2)) {
      expect_equal(kernel_matrix(x, kernel = kernel_matern(sigma, nu)),
                   kitchen:::matern_from_distance(r, sigma, nu), tolerance = 1e-13)
    }
  }
  # nu = 1/2 is the exponential kernel.
  expect_equal(kernel_matrix(x, kernel = kernel_matern(1.7, 0.5)), exp(-r / 1.7), tolerance = 1e-15)
})

test_that("Matern tends to the Gaussian kernel as nu grows, without overflow", {
  set.seed(14)
  x <- matrix(rnorm(50 * 2), 50, 2)
  gauss <- kernel_matrix(x, kernel = kernel_gaussian(1.5))
  expect_lt(max(abs(kernel_matrix(x, kernel = kernel_matern(1.5, 50)) - gauss)), 0.01)
  # At nu = 200, besselK() overflows for t < 4 and the recurrence takes over.
  k200 <- kernel_matrix(x, kernel = kernel_matern(1.5, 200))
  expect_true(all(is.finite(k200)))
  expect_lt(max(abs(k200 - gauss)), 0.002)
  # Near 0, k = 1 - t^2 / (4 (nu - 1)) + O(t^4), where besselK() overflows.
  nu <- 100
  t <- c(1e-3, 1e-2, 5e-2)
  expect_true(all(is.infinite(besselK(t, nu, expon.scaled = TRUE))))
  k <- kitchen:::matern_from_distance(t / sqrt(2 * nu), 1, nu)
  expect_equal(1 - k, t^2 / (4 * (nu - 1)), tolerance = 1e-4)
  # Continuous and decreasing across the point where besselK() overflows.
  k <- kitchen:::matern_from_distance(seq(0, 1, by = 1e-3), 1, nu)
  expect_true(all(diff(k) < 0))
})

test_that("Matern at large nu: the uniform expansion, no O(nu) cost, the Gaussian limit", {
  # Against the Bessel formula where that is still accurate (its terms,
  # about nu log(t) each, cancel: 1e-12 relative error at nu = 1000).
  bessel <- function(t, nu) {
    exp((1 - nu) * log(2) - lgamma(nu) + nu * log(t) + kitchen:::log_bessel_k(t, nu))
  }
  for (nu in c(100.5, 150, 317.3, 1000)) {
    t <- c(1e-3, 0.1, 1, 5, 20, 60, 150, 400, 1000)
    t <- t[bessel(t, nu) > 1e-200]
    r <- t / sqrt(2 * nu)
    expect_equal(kitchen:::matern_from_distance(r, 1, nu), bessel(t, nu), tolerance = 1e-10,
                 info = nu)
  }
  # Continuous where the expansion takes over.
  r <- seq(0, 4, by = 0.01)
  below <- kitchen:::matern_from_distance(r, 1, kitchen:::matern_asymptotic_nu)
  above <- kitchen:::matern_from_distance(r, 1, kitchen:::matern_asymptotic_nu * (1 + 1e-12))
  expect_equal(above, below, tolerance = 1e-11)
  # Huge nu (besselK() crashed at 1e20 and needed gigabytes from 1e9) is the
  # Gaussian kernel to rounding, and costs no more than nu = 2.5.
  set.seed(16)
  x <- matrix(rnorm(40 * 3), 40, 3)
  gauss <- kernel_matrix(x, kernel = kernel_gaussian(0.8))
  for (nu in c(1e20, 1e300, .Machine$double.xmax)) {
    expect_equal(kernel_matrix(x, kernel = kernel_matern(0.8, nu)), gauss, tolerance = 1e-14,
                 info = nu)
  }
  # At nu = 1e8 the difference from the Gaussian is O(1 / nu), not zero.
  gap <- max(abs(kernel_matrix(x, kernel = kernel_matern(0.8, 1e8)) - gauss))
  expect_gt(gap, 1e-11)
  expect_lt(gap, 1e-7)
  map <- nystrom(x, 40, kernel = kernel_matern(0.8, 1e20), scale = "none", seed = 1)  # exact
  expect_equal(tcrossprod(predict(map, x[1:5, ])), gauss[1:5, 1:5], tolerance = 1e-6)
})

test_that("Bochner: spectral_sample() draws frequencies of each kernel", {
  # For frequencies w from the kernel's spectral law at sigma = 1,
  # E[cos(w'delta / sigma)] = k(delta). Checked within 4 standard errors.
  set.seed(15)
  m <- 2e5
  deltas <- rbind(c(0.3, -0.2, 0.1), c(1, 0.5, -0.7), c(0, 0, 2))
  kernels <- list(kernel_gaussian(1.3), kernel_laplacian(0.8), kernel_cauchy(1.5),
                  kernel_matern(1, 0.5), kernel_matern(2, 1.5), kernel_matern(0.7, 3.7))
  for (k in kernels) {
    w <- kitchen:::spectral_sample(k, 3, m)
    expect_identical(dim(w), c(3L, as.integer(m)))
    for (i in seq_len(nrow(deltas))) {
      delta <- deltas[i, ]
      z <- cos(drop(crossprod(w, delta)) / k$sigma)
      exact <- kernel_matrix(rbind(delta, 0), kernel = k)[1, 2]
      expect_lt(abs(mean(z) - exact), 4 * sd(z) / sqrt(m),
                label = paste(kernel_label(k), "delta", i))
    }
  }
})

test_that("spectral_sample() reproduces with set.seed()", {
  for (k in test_kernels()) {
    set.seed(16)
    a <- kitchen:::spectral_sample(k, 4, 10)
    set.seed(16)
    expect_identical(kitchen:::spectral_sample(k, 4, 10), a)
  }
})

test_that("kernel_matrix() takes data frames, integers, names and kernel names", {
  set.seed(17)
  x <- matrix(rnorm(12), 4, 3, dimnames = list(letters[1:4], c("u", "v", "w")))
  y <- matrix(rnorm(6), 2, 3, dimnames = list(c("p", "q"), NULL))
  k <- kernel_matrix(x, y)
  expect_identical(dimnames(k), list(letters[1:4], c("p", "q")))
  expect_identical(dimnames(kernel_matrix(x)), list(letters[1:4], letters[1:4]))
  expect_null(dimnames(kernel_matrix(unname(x))))
  expect_identical(dimnames(kernel_matrix(unname(x), y)), list(NULL, c("p", "q")))
  expect_identical(kernel_matrix(as.data.frame(x), y), k)
  xi <- matrix(1:6, 3, 2)
  expect_identical(kernel_matrix(xi), kernel_matrix(xi * 1))
  expect_identical(kernel_matrix(x, kernel = "laplacian"), kernel_matrix(x, kernel = kernel_laplacian()))
})

test_that("kernel_matrix() takes a dgCMatrix", {
  skip_if_not_installed("Matrix")
  set.seed(18)
  x <- matrix(rnorm(20) * rbinom(20, 1, 0.3), 5, 4)
  y <- matrix(rnorm(8), 2, 4)
  sx <- Matrix::Matrix(x, sparse = TRUE)
  expect_s4_class(sx, "dgCMatrix")
  expect_identical(kernel_matrix(sx, y), kernel_matrix(x, y))
  expect_identical(kernel_matrix(y, sx), kernel_matrix(y, x))
  sx@x[1] <- NA
  expect_error(kernel_matrix(sx), "`x` must not contain NA", class = "kitchen_error_argument")
})

test_that("kernel_matrix() refuses bad data, naming the argument", {
  x <- matrix(rnorm(6), 3, 2)
  err <- "kitchen_error_argument"
  expect_error(kernel_matrix(matrix("a", 2, 2)), "`x` must be a numeric matrix", class = err)
  expect_error(kernel_matrix(list(1, 2)), "`x` must be a numeric matrix", class = err)
  expect_error(kernel_matrix(1:3), "`x` must be a numeric matrix", class = err)
  expect_error(kernel_matrix(x, list(1)), "`y` must be a numeric matrix", class = err)
  expect_error(kernel_matrix(data.frame(a = 1, b = "z")), "only numeric columns", class = err)
  expect_error(kernel_matrix(rbind(x, NA)), "`x` must not contain NA", class = err)
  expect_error(kernel_matrix(x, rbind(x, Inf)), "`y` must not contain", class = err)
  expect_error(kernel_matrix(x[0, , drop = FALSE]), "`x` must have at least one row", class = err)
  expect_error(kernel_matrix(x, x[0, , drop = FALSE]), "`y` must have at least one row", class = err)
  expect_error(kernel_matrix(x, cbind(x, 1)), "`y` must have the same number of columns as `x` \\(2\\), not 3",
               class = err)
  expect_error(kernel_matrix(x, kernel = "foo"), "`kernel` must be one of", class = err)
  expect_error(kernel_matrix(x, n_threads = 0), "n_threads", class = err)
})

test_that("results too large to hold are refused before any allocation", {
  x <- matrix(0, 50000, 1)
  expect_error(kernel_matrix(x), "50000 x 50000 entries need 20 GB", class = "kitchen_error_argument")
  check_size <- kitchen:::check_kernel_matrix_size
  expect_silent(check_size(46340, 46340))
  expect_error(check_size(46341, 46341), "17.2 GB", class = "kitchen_error_argument")
  expect_error(check_size(2^31, 1), class = "kitchen_error_argument")
  # A map too large blames what makes it so: the dimension given as `x`, or the features.
  expect_error(rff(1e9, 10, sigma = 1), "`x` is too large: The 1,000,000,000 x 5 frequencies",
               class = "kitchen_error_argument")
  expect_error(rff(10, 1e9, sigma = 1), "`n_features` is too large", class = "kitchen_error_argument")
  expect_error(rbin(1e9, 10, sigma = 1, n_buckets = 64), "`x` is too large", class = "kitchen_error_argument")
  expect_error(fastfood(1e9, 10, sigma = 1), "`x` is too large", class = "kitchen_error_argument")
  expect_error(fastfood(10, 2^31, sigma = 1), "`n_features` is too large", class = "kitchen_error_argument")
  expect_error(rbin(2, 2e9, sigma = 1, n_buckets = 1), "`n_grids` is too large", class = "kitchen_error_argument")
})

test_that("named per-column bandwidths are matched to the columns by name", {
  set.seed(2)
  x <- matrix(runif(40 * 3), 40, 3, dimnames = list(NULL, c("a", "b", "c")))
  in_order <- c(1, 2, 3)
  shuffled <- c(c = 3, a = 1, b = 2)
  builders <- list(
    rff = function(data, s) rff(data, 20, sigma = s, seed = 1),
    fastfood = function(data, s) fastfood(data, 8, sigma = s, seed = 1),
    rbin = function(data, s) rbin(data, 5, sigma = s, seed = 1, n_threads = 1),
    nystrom = function(data, s) nystrom(data, 10, sigma = s, seed = 1)
  )
  for (build in builders) {
    expect_identical(build(x, shuffled), build(x, in_order))
  }
  expect_identical(relevance(builders$rff(x, shuffled)), c(a = 1, b = 1 / 2, c = 1 / 3))
  chunks <- chunked(list(list(x = x[1:20, ]), list(x = x[21:40, ])))
  expect_identical(rff(chunks, 20, sigma = shuffled, seed = 1)$kernel$sigma, in_order)
  expect_identical(kernel_matrix(x, kernel = kernel_gaussian(shuffled), n_threads = 1),
                   kernel_matrix(x, kernel = kernel_gaussian(in_order), n_threads = 1))
  # Without column names in the data, other names are not used (a warning
  # says so): the bandwidths go by position.
  expect_warning(by_position <- builders$rff(unname(x), shuffled), "no column names")
  expect_identical(by_position$kernel$sigma, c(3, 1, 2))
  # but relevance()'s labels x1, x2, ... are those columns' names, so that
  # sigma = 1 / sort(relevance(map)) keeps each column's own
  labelled <- c(x3 = 3, x1 = 1, x2 = 2)
  for (build in builders) {
    expect_identical(build(unname(x), labelled), build(unname(x), in_order))
  }
  expect_identical(rff(3, 20, sigma = labelled, seed = 1)$kernel$sigma, in_order)
  map <- builders$rff(unname(x), c(0.5, 4, 1))
  expect_identical(builders$rff(unname(x), 1 / sort(relevance(map)))$kernel$sigma, c(0.5, 4, 1))
  # Names that are not the columns are refused, naming the argument.
  expect_error(builders$rff(x, c(a = 1, b = 2, d = 3)), "names of `sigma`.*Not columns: \"d\"")
  expect_error(kernel_matrix(x, kernel = kernel_gaussian(c(a = 1, a = 2, b = 3))),
               "names of `kernel\\$sigma`")
})
