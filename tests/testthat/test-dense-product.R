# dense_product() (R/dense_product.R, src/dense_product.cpp): a %*% b on
# kitchen's product kernels, as the class calibration scores its rows.

test_that("dense_product() equals %*% for every shape, thread count and SIMD level", {
  set.seed(3)
  shapes <- list(c(1, 5, 1), c(7, 300, 26), c(200, 64, 9), c(385, 513, 3), c(50, 1, 17))
  for (shape in shapes) {
    a <- matrix(rnorm(shape[1] * shape[2]), shape[1])
    b <- matrix(rnorm(shape[2] * shape[3]), shape[2])
    for (simd in c("scalar", "avx2", "avx512")) for (threads in 1:2) {
      old <- options(kitchen.simd = simd)
      got <- kitchen:::dense_product(a, b, kitchen:::backend_settings(threads))
      options(old)
      expect_equal(got, a %*% b, tolerance = 1e-13,
                   label = sprintf("%s, %s, %d threads", paste(shape, collapse = " x "), simd,
                                   threads))
    }
  }
})

test_that("dense_product() handles empty sides and R's BLAS, and checks the shapes", {
  backend <- kitchen:::backend_settings(2L)
  expect_identical(kitchen:::dense_product(matrix(0, 3, 0), matrix(0, 0, 2), backend),
                   matrix(0, 3, 2))
  expect_identical(dim(kitchen:::dense_product(matrix(0, 0, 4), matrix(1, 4, 2), backend)),
                   c(0L, 2L))
  a <- matrix(rnorm(40), 8)
  b <- matrix(rnorm(15), 5)
  old <- options(kitchen.gemm = "blas")
  expect_identical(kitchen:::dense_product(a, b, kitchen:::backend_settings(2L)), a %*% b)
  options(old)
  skip_if(kitchen_simd()$cpu == "scalar", "no AVX2 on this CPU")
  expect_error(kitchen:::dense_product_cpp(a, t(b), 1L, "avx2"), "columns")
})
