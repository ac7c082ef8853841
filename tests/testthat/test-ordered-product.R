# predict()'s scores z %*% coefficients summed by kitchen in the reference
# BLAS's order (src/ordered_product.cpp): the same bits as %*% there.

test_that("the ordered product is %*% to the last bit on every level and thread count", {
  skip_if(kitchen:::blas_is_optimised(), "R's BLAS is not the reference one")
  set.seed(5)
  # rows across tiles (16) and segments (256); depth across blocks (64)
  for (n in c(1, 7, 9, 255, 257, 600)) for (depth in c(1, 63, 65, 300)) for (k in c(1, 3, 4, 5, 26)) {
    a <- matrix(rnorm(n * depth), n, depth)
    b <- matrix(rnorm(depth * k), depth, k)
    a[sample(length(a), min(4, length(a)))] <- 0
    a[1] <- -0
    reference <- unname(a %*% b)
    for (simd in c("scalar", "avx2", "avx512")) for (n_threads in 1:2) {
      out <- kitchen:::ordered_product_cpp(a, b, n_threads, simd)
      expect_identical(out, reference)
      expect_identical(1 / out[out == 0], 1 / reference[reference == 0])  # signs of zeros
    }
  }
})

test_that("the ordered product declines where %*% would not call dgemm", {
  op <- kitchen:::ordered_product_cpp
  a <- matrix(rnorm(40), 8, 5)
  b <- matrix(rnorm(10), 5, 2)
  for (bad in c(NaN, NA, Inf, -Inf)) {
    a2 <- a
    a2[3, 4] <- bad
    b2 <- b
    b2[2, 2] <- bad
    expect_null(op(a2, b, 1L, "avx2"))
    expect_null(op(a, b2, 2L, "avx2"))
  }
  expect_null(op(a[0, ], b, 1L, "avx2"))
  expect_null(op(a[, 0], b[0, ], 1L, "avx2"))
  expect_error(op(a, t(b), 1L, "avx2"), "as many columns as b has rows")
  expect_error(op(a, b, 1L, "sse"), "simd must be one of")
})

test_that("predict() of many classes gives %*%'s scores, and keeps %*% when asked to", {
  set.seed(6)
  x <- matrix(rnorm(900 * 3), 900, 3)
  y <- factor(sample(letters[1:9], 900, replace = TRUE))
  fit <- krr_fit(x, y, rff(x, 64, sigma = 1, seed = 1), lambda = 0.1, n_threads = 1)
  z <- predict(fit$map, x[1:500, ], n_threads = 1)
  by_blas <- unname(z %*% fit$coefficients) + rep(fit$intercept, each = 500)
  compare <- if (kitchen:::blas_is_optimised()) expect_equal else expect_identical
  for (n_threads in 1:2) {
    compare(unname(predict(fit, x[1:500, ], type = "response", n_threads = n_threads,
                           block_size = 128)), by_blas)
  }
  called <- 0L
  suppressMessages(trace("ordered_product_cpp", function() called <<- called + 1L, print = FALSE,
                         where = asNamespace("kitchen")))
  on.exit(suppressMessages(untrace("ordered_product_cpp", where = asNamespace("kitchen"))))
  predict(fit, x[1:500, ], n_threads = 2)
  expect_identical(called > 0L, !kitchen:::blas_is_optimised())  # 9 classes: more than one column
  called <- 0L
  old <- options(matprod = "internal")
  internal <- predict(fit, x[1:500, ], n_threads = 2)
  options(old)
  expect_identical(called, 0L)
  expect_equal(unname(internal), by_blas, tolerance = 1e-12)
})
