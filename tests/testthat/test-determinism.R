# Same inputs and seed give bitwise-identical results on every call and for
# 1 or 2 threads (?kitchen_threads: "Results never depend on the number of
# threads"); no call modifies the caller's objects; a `seed` argument leaves
# the caller's random stream alone, and set.seed() reproduces calls without
# one. The data are large enough that the work is split over 2 threads.

set.seed(42)
n <- 1500
x <- matrix(rnorm(n * 6), n, 6, dimnames = list(NULL, paste0("v", 1:6)))
y <- sin(x[, 1]) + x[, 2]^2 + rnorm(n, sd = 0.1)
x_sparse <- Matrix::Matrix(x * (abs(x) > 1), sparse = TRUE)
maps <- list(
  rff = rff(x, 256, sigma = 2, seed = 1),
  rff_phase = rff(x, 256, sigma = 2, type = "cos_phase", seed = 1),
  fastfood = fastfood(x, 256, sigma = 2, seed = 1),
  rbin = rbin(x, 50, sigma = 2, seed = 1, n_threads = 2),
  hashed = rbin(x, 50, sigma = 2, n_buckets = 512, seed = 1, n_threads = 2))

# f(n_threads) twice on 2 threads and once on 1: all identical.
expect_thread_free <- function(f, label) {
  one <- f(1)
  two <- f(2)
  expect_identical(two, one, label = paste(label, "on 2 threads vs 1"))
  expect_identical(f(2), two, label = paste(label, "on 2 threads, again"))
}

# Runs code and checks the objects in `objects` (named) did not change.
expect_untouched <- function(objects, code) {
  before <- unserialize(serialize(objects, NULL))
  force(code)
  for (name in names(objects)) {
    expect_identical(get(name, parent.frame()), before[[name]], label = paste(name, "after the call"))
  }
}

test_that("fwht is identical on every call and thread count", {
  v <- rnorm(2^12)
  m <- matrix(rnorm(2^10 * 64), 2^10, 64)
  for (normalize in c(FALSE, TRUE)) {
    expect_thread_free(function(t) fwht(v, normalize = normalize, n_threads = t), "fwht vector")
    expect_thread_free(function(t) fwht(m, normalize = normalize, n_threads = t), "fwht matrix")
  }
  expect_untouched(list(v = v, m = m), {
    fwht(v, n_threads = 2)
    fwht(m, normalize = TRUE, n_threads = 2)
  })
})

test_that("maps are identical for the same seed; their features for any threads", {
  expect_identical(rff(x, 256, sigma = 2, seed = 1), maps$rff)
  expect_identical(fastfood(x, 256, sigma = 2, seed = 1), maps$fastfood)
  expect_identical(rbin(x, 50, sigma = 2, seed = 1, n_threads = 1), maps$rbin)
  expect_identical(rbin(x, 50, sigma = 2, n_buckets = 512, seed = 1, n_threads = 1), maps$hashed)
  expect_identical(rbin(x_sparse, 50, sigma = 2, seed = 1, n_threads = 2),
                   rbin(x_sparse, 50, sigma = 2, seed = 1, n_threads = 1))
  for (name in names(maps)) {
    expect_thread_free(function(t) predict(maps[[name]], x, n_threads = t), paste(name, "dense"))
    expect_thread_free(function(t) predict(maps[[name]], x_sparse, n_threads = t), paste(name, "sparse"))
  }
  expect_untouched(list(x = x, x_sparse = x_sparse, maps = maps), {
    for (map in maps) {
      predict(map, x, n_threads = 2)
      predict(map, x_sparse, n_threads = 2)
    }
    rbin(x, 20, sigma = 2, seed = 1, n_threads = 2)
    rff(x_sparse, 20, seed = 1)
  })
})

test_that("kernel_matrix is identical on every call and thread count", {
  y_rows <- x[1:300, ] + 0.5
  kernels <- list(kernel_gaussian(2), kernel_laplacian(2), kernel_cauchy(2), kernel_matern(2, 2.5))
  for (k in kernels) {
    expect_thread_free(function(t) kernel_matrix(x[1:600, ], kernel = k, n_threads = t), k$name)
    expect_thread_free(function(t) kernel_matrix(x[1:600, ], y_rows, kernel = k, n_threads = t),
                       paste(k$name, "x, y"))
  }
  expect_untouched(list(x = x, y_rows = y_rows), kernel_matrix(x, y_rows, n_threads = 2))
})

test_that("fits and their predictions are identical for 1 or 2 threads", {
  # (the same block size: other block sizes agree to rounding, see test-krr.R)
  for (name in c("rff", "fastfood")) {
    for (lambda in list(0.5, "gcv")) {
      expect_thread_free(function(t) {
        fit <- krr_fit(x, y, maps[[name]], lambda = lambda, n_threads = t, block_size = 500)
        list(fit$coefficients, fit$intercept, fit$lambda, fit$path, predict(fit, x, n_threads = t))
      }, paste(name, "fit, lambda", lambda))
    }
  }
  for (name in c("rbin", "hashed")) {
    expect_thread_free(function(t) {
      fit <- krr_fit(x, y, maps[[name]], lambda = 0.5, n_threads = t)
      list(fit$coefficients, fit$intercept, fit$solver, predict(fit, x, n_threads = t))
    }, paste(name, "fit"))
  }
  # CV assigns rows to folds from R's stream: set.seed() reproduces it.
  rows <- 1:600
  expect_thread_free(function(t) {
    set.seed(5)
    fit <- krr_fit(x[rows, ], y[rows], maps$rbin, lambda = c(1, 0.1), n_folds = 3, n_threads = t)
    list(fit$coefficients, fit$lambda, fit$path)
  }, "rbin fit by CV")
  expect_thread_free(function(t) {
    set.seed(5)
    fit <- krr_fit(x[rows, ], y[rows], maps$rff, lambda = "cv", sigma = c(1, 2), n_threads = t)
    list(fit$path, fit$sigma_path)
  }, "rff fit by CV over bandwidths")
})

test_that("fits and predictions leave their inputs as they were", {
  fit <- krr_fit(x, y, maps$rff, lambda = 0.5, n_threads = 2)
  binned <- krr_fit(x, y, maps$rbin, lambda = 0.5, n_threads = 2)
  frame <- data.frame(x, y = y)
  expect_untouched(list(x = x, y = y, maps = maps, fit = fit, binned = binned, frame = frame), {
    krr_fit(x, y, maps$fastfood, sigma = "auto", n_threads = 2)
    krr_fit(x_sparse, y, maps$rff, lambda = 1, n_threads = 2)
    krr_fit(y ~ ., frame, features = "rff", n_features = 64, seed = 1, n_threads = 2)
    predict(fit, x, n_threads = 2)
    predict(binned, x_sparse, n_threads = 2)
    coef(fit)
    summary(binned)
  })
})

test_that("chunked fits and predictions are identical for 1 or 2 threads", {
  chunks <- lapply(split(seq_len(n), rep(1:3, length.out = n)),
                   function(rows) list(x = x[rows, ], y = y[rows]))
  data <- chunked(chunks)
  expect_thread_free(function(t) {
    fit <- krr_fit(data, maps$rff, lambda = "gcv", n_threads = t, block_size = 500)
    list(fit$coefficients, fit$intercept, fit$lambda, predict(fit, data, n_threads = t))
  }, "chunked fit")
  expect_untouched(list(chunks = chunks, maps = maps), krr_fit(data, maps$fastfood, lambda = 1, n_threads = 2))
})

test_that("a seed leaves the random stream alone; set.seed() reproduces calls without one", {
  set.seed(99)
  stream <- .Random.seed
  rff(x, 16, seed = 3)
  fastfood(x, 16, seed = 3)
  rbin(x, 5, seed = 3, n_threads = 2)
  krr_fit(x, y, "rff", n_features = 16, seed = 3, lambda = 1, n_threads = 2)
  expect_identical(.Random.seed, stream)
  # Functions with no randomness do not draw either.
  fwht(x[1:1024, ], n_threads = 2)
  kernel_matrix(x[1:50, ], n_threads = 2)
  for (map in maps) predict(map, x, n_threads = 2)
  predict(krr_fit(x, y, maps$rff, lambda = 1, n_threads = 2), x)
  expect_identical(.Random.seed, stream)

  # Without a seed: R's stream, reproduced by set.seed().
  draw <- function() {
    set.seed(7)
    list(rff(x, 16), fastfood(x, 16), rbin(x, 5, n_threads = 2), rff(x, 16))
  }
  first <- draw()
  expect_identical(draw(), first)
  expect_false(identical(first[[1]], first[[4]]))  # the stream moved on

  # No stream yet: a seed does not create one.
  old <- .Random.seed
  on.exit(assign(".Random.seed", old, envir = globalenv()))
  rm(".Random.seed", envir = globalenv())
  rff(x, 16, seed = 3)
  expect_false(exists(".Random.seed", envir = globalenv(), inherits = FALSE))
})

test_that("a seed gives the same map under any generator, which it leaves as it was", {
  x <- matrix(runif(60), 20, 3)
  old <- RNGkind()
  on.exit(RNGkind(old[1], old[2], old[3]), add = TRUE)
  RNGkind("Mersenne-Twister", "Inversion", "Rejection")  # R's defaults
  reference <- list(rff(x, 20, sigma = 1, seed = 7), fastfood(x, 16, sigma = 1, seed = 7))
  RNGkind("L'Ecuyer-CMRG", "Box-Muller")  # tune fits its models under L'Ecuyer-CMRG
  set.seed(3)
  before <- .Random.seed
  expect_identical(list(rff(x, 20, sigma = 1, seed = 7), fastfood(x, 16, sigma = 1, seed = 7)),
                   reference)
  expect_identical(RNGkind()[1:2], c("L'Ecuyer-CMRG", "Box-Muller"))
  expect_identical(.Random.seed, before)
})
