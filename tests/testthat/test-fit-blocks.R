# The dense fit's block loop in C++ (src/fit_blocks.cpp): the sums of a pass
# against dense references, and internal misuse refused with an error.

pass_sums <- function(map, x, y, blocks, w = NULL, set = NULL, n_sets = 1L) {
  settings <- list(n_threads = 2L, simd = kitchen:::resolve_simd(), blas = FALSE,
                   reference_blas = !kitchen:::blas_is_optimised())
  pass <- kitchen:::fit_pass(map, ncol(y), n_sets, settings)
  for (rows in blocks) {
    kitchen:::fit_block(pass, map, x, rows, y[rows, , drop = FALSE], w[rows], set[rows])
  }
  kitchen:::fit_pass_sums_cpp(pass)
}

upper <- function(m) m[upper.tri(m, diag = TRUE)]

test_that("a pass's Z'Z, Z'y and sums match dense products, whatever the blocks", {
  set.seed(3)
  x <- matrix(rnorm(300 * 4), 300, 4)
  y <- cbind(rnorm(300), runif(300))
  w <- runif(300, 0.5, 2)
  for (map in list(rff(x, 40, sigma = 1, seed = 1), fastfood(x, 32, sigma = 1, seed = 2))) {
    z <- predict(map, x, n_threads = 1L)
    # contiguous blocks, then rows out of order (as a fold's rows are)
    for (blocks in list(split(1:300, rep(1:3, each = 100)), list(c(5, 1, 299, 42), 100:60))) {
      rows <- unlist(blocks)
      sums <- pass_sums(map, x, y, blocks)[[1]]
      expect_equal(upper(sums[[1]]), upper(crossprod(z[rows, ])), tolerance = 1e-12)
      expect_equal(sums[[2]], crossprod(z[rows, ], y[rows, ]), tolerance = 1e-12,
                   ignore_attr = TRUE)
      expect_equal(sums[[3]], colSums(z[rows, , drop = FALSE]), tolerance = 1e-12)
    }
    # weights and folds: each fold's sums are weighted sums of its rows
    folds <- rep_len(1:3, 300)
    sums <- pass_sums(map, x, y, list(1:128, 129:256, 257:300), w, folds, 3L)
    for (k in 1:3) {
      mine <- folds == k
      zw <- z[mine, ] * sqrt(w[mine])
      expect_equal(upper(sums[[k]][[1]]), upper(crossprod(zw)), tolerance = 1e-12)
      expect_equal(sums[[k]][[2]], crossprod(z[mine, ], w[mine] * y[mine, ]),
                   tolerance = 1e-12, ignore_attr = TRUE)
      expect_equal(sums[[k]][[3]], colSums(z[mine, ] * w[mine]), tolerance = 1e-12)
    }
  }
})

test_that("Z'y and Z'w are R's crossprod() to the last bit on every level and thread count", {
  # With the reference BLAS kitchen sums them itself, in its dgemm's order
  # (ordered_cross_product.hpp); with an optimised one its dgemm does.
  set.seed(4)
  x <- matrix(rnorm(301 * 5), 301, 5)
  w <- runif(301, 0.5, 2)
  map <- rff(x, 74, sigma = 1, seed = 1)  # 74 features: an odd number of column pairs
  old <- options(kitchen.simd = NULL)
  on.exit(options(old))
  compare <- if (kitchen:::blas_is_optimised()) expect_equal else expect_identical
  for (k in c(1L, 3L, 26L, 30L)) {  # 30: a full tile of 24 classes and a part
    y <- matrix(rnorm(301 * k), 301, k)
    for (simd in c("scalar", "avx2", "avx512")) for (n_threads in 1:2) {
      options(kitchen.simd = simd)  # the features round by level (?kitchen_simd)
      z <- predict(map, x, n_threads = 1L)
      settings <- list(n_threads = n_threads, simd = simd, blas = FALSE,
                       reference_blas = !kitchen:::blas_is_optimised())
      pass <- kitchen:::fit_pass(map, k, 1L, settings)
      kitchen:::fit_block(pass, map, x, 1:301, y, NULL, NULL)
      sums <- kitchen:::fit_pass_sums_cpp(pass)[[1]]
      compare(sums[[2]], crossprod(z, y))
      expect_identical(sums[[3]], colSums(z))
      weighted <- kitchen:::fit_pass(map, k, 1L, settings)
      kitchen:::fit_block(weighted, map, x, 1:301, y, w, NULL)
      sums <- kitchen:::fit_pass_sums_cpp(weighted)[[1]]
      zw <- sqrt(w) * z  # the rows of z scaled as the pass scales them
      compare(sums[[2]], crossprod(zw, sqrt(w) * y))
      compare(sums[[3]], drop(crossprod(zw, sqrt(w))))
    }
  }
})

test_that("sparse rows give the sums of the same rows dense", {
  skip_if_not_installed("Matrix")
  set.seed(4)
  x <- matrix(rnorm(200 * 5) * (runif(1000) < 0.3), 200, 5)
  y <- matrix(rnorm(200))
  sparse <- Matrix::Matrix(x, sparse = TRUE)
  for (map in list(rff(x, 24, sigma = 1, seed = 1), fastfood(x, 16, sigma = 1, seed = 2))) {
    blocks <- list(1:70, 71:200)
    dense <- pass_sums(map, x, y, blocks)[[1]]
    from_sparse <- pass_sums(map, sparse, y, blocks)[[1]]
    for (e in 1:3) expect_equal(from_sparse[[e]], dense[[e]], tolerance = 1e-12)
  }
})

test_that("misuse of the block loop is an error, not a crash", {
  set.seed(5)
  x <- matrix(rnorm(20 * 3), 20, 3)
  y <- matrix(rnorm(20))
  map <- rff(x, 8, sigma = 1, seed = 1)
  settings <- list(n_threads = 1L, simd = "scalar", blas = FALSE, reference_blas = TRUE)
  pass <- kitchen:::fit_pass_cpp(map, 1L, 1L, settings)
  expect_error(kitchen:::fit_block_cpp(pass, x, c(0L, 1L), y[1:2, , drop = FALSE], NULL, NULL),
               "outside x")
  expect_error(kitchen:::fit_block_cpp(pass, x, 1:5, y[1:4, , drop = FALSE], NULL, NULL),
               "one row of k doubles")
  expect_error(kitchen:::fit_block_cpp(pass, x, 1:2, y[1:2, , drop = FALSE], NULL, c(1L, 2L)),
               "fold numbers")
  expect_type(kitchen:::fit_block_cpp(pass, x[, 1:2], 1:2, y[1:2, , drop = FALSE], NULL, NULL),
              "character")
  expect_error(kitchen:::fit_pass_cpp(map, 1L, 1L, list(n_threads = 1L)), "settings")
  expect_error(kitchen:::fit_pass_cpp(rbin(x, 4, sigma = 1, seed = 1), 1L, 1L, settings),
               "rff\\(\\), fastfood\\(\\) and nystrom\\(\\)")
  tampered <- map
  tampered$projection <- tampered$projection[, 1:2]
  expect_type(kitchen:::fit_pass_cpp(tampered, 1L, 1L, settings), "character")
  kitchen:::fit_pass_sums_cpp(pass)
  expect_error(kitchen:::fit_block_cpp(pass, x, 1:2, y[1:2, , drop = FALSE], NULL, NULL),
               "finished")
})

test_that("a recycled Z'Z is overwritten by the next pass, not added to", {
  set.seed(6)
  x <- matrix(rnorm(50 * 3), 50, 3)
  y <- matrix(rnorm(50))
  map <- rff(x, 16, sigma = 1, seed = 1)
  z <- predict(map, x, n_threads = 1L)
  reference <- pass_sums(map, x, y, list(1:50))[[1]][[1]]
  local({
    kitchen:::fit_workspace_hold_cpp(TRUE)
    on.exit(kitchen:::fit_workspace_hold_cpp(FALSE))
    spare <- matrix(7, 16, 16)
    kitchen:::fit_workspace_recycle_cpp(spare)
    sums <- pass_sums(map, x, y, list(1:50))[[1]]
    expect_identical(upper(sums[[1]]), upper(reference))
    expect_equal(upper(sums[[1]]), upper(crossprod(z)), tolerance = 1e-12)
    # a matrix of another size stays unused (the pass makes its own)
    kitchen:::fit_workspace_recycle_cpp(matrix(7, 8, 8))
    expect_identical(upper(pass_sums(map, x, y, list(1:50))[[1]][[1]]), upper(reference))
  })
  # without a holder nothing is kept: the caller's matrix is never touched
  mine <- matrix(7, 16, 16)
  kitchen:::fit_workspace_recycle_cpp(mine)
  pass_sums(map, x, y, list(1:50))
  expect_identical(mine, matrix(7, 16, 16))
})
