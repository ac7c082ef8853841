# K_CC^(-1/2) for Nystroem maps by kitchen's tridiagonal reduction and
# LAPACK's MRRR (src/inverse_root.cpp), against R's eigen() path (the option
# kitchen.tridiagonal = "lapack" selects it) and the definition.

eigen_root <- function(k) {
  old <- options(kitchen.tridiagonal = "lapack")
  on.exit(options(old))
  kitchen:::inverse_square_root(k)
}
kitchen_root <- function(k, n_threads = 2L, simd = kitchen:::resolve_simd()) {
  kitchen:::inverse_square_root_cpp(k, n_threads, simd)
}
relative <- function(a, b) max(abs(a - b)) / max(abs(b))

test_that("a well-conditioned K_CC gives eigen()'s square root to rounding", {
  set.seed(1)
  x <- matrix(rnorm(301 * 4), 301, 4)  # not a multiple of the panel width
  k <- kernel_matrix(x, kernel = kernel_gaussian(0.5))
  a <- kitchen_root(k)
  b <- eigen_root(k)
  expect_identical(a$rank, 301L)
  expect_identical(b$rank, 301L)
  expect_lt(relative(a$matrix, b$matrix), 1e-11)
  expect_identical(a$matrix, t(a$matrix))  # S S': symmetric to the last bit
  # The definition: N K N = I.
  expect_lt(max(abs(a$matrix %*% k %*% a$matrix - diag(301))), 1e-10)
})

test_that("an ill-conditioned K_CC: same rank, same kernel approximation", {
  set.seed(2)
  x <- matrix(rnorm(400 * 4), 400, 4)
  new <- matrix(rnorm(200 * 4), 200, 4)
  kern <- kernel_gaussian(1.5)
  k <- kernel_matrix(x, kernel = kern)
  k_new <- kernel_matrix(new, x, kernel = kern)
  a <- kitchen_root(k)
  b <- eigen_root(k)
  expect_identical(a$rank, b$rank)
  # N itself is as sensitive as the smallest kept eigenvalues make it (1e-5
  # here, as for eigen() on K perturbed at rounding level); the features'
  # inner products, the Nystroem approximation, are not.
  expect_lt(relative(tcrossprod(k_new %*% a$matrix), tcrossprod(k_new %*% b$matrix)), 1e-7)
  expect_lt(relative(k %*% a$matrix %*% a$matrix %*% k, k), 1e-7)
})

test_that("a rank-deficient K_CC keeps the same eigenvalues as eigen()", {
  set.seed(3)
  base <- matrix(rnorm(60 * 3), 60, 3)
  x <- base[c(1:60, 1:60, 1:20), ]  # duplicated centers: rank 60
  k <- kernel_matrix(x, kernel = kernel_gaussian(0.7))
  a <- kitchen_root(k)
  b <- eigen_root(k)
  expect_identical(a$rank, 60L)
  expect_identical(b$rank, 60L)
  expect_true(all(is.finite(a$matrix)))
  expect_lt(relative(a$matrix, b$matrix), 1e-9)
  # Tiny and degenerate matrices.
  for (n in 1:3) {
    k <- kernel_matrix(base[seq_len(n), , drop = FALSE], kernel = kernel_gaussian(1))
    expect_equal(kitchen_root(k), eigen_root(k), tolerance = 1e-12, label = paste("n =", n))
  }
  expect_equal(kitchen_root(matrix(0, 4, 4)), list(matrix = matrix(0, 4, 4), rank = 0L))
  expect_equal(kitchen_root(matrix(1, 5, 5)), eigen_root(matrix(1, 5, 5)), tolerance = 1e-12)
})

test_that("threads do not change the result; the Eigen path agrees", {
  set.seed(4)
  x <- matrix(rnorm(700 * 5), 700, 5)
  k <- kernel_matrix(x, kernel = kernel_gaussian(1))
  one <- kitchen_root(k, n_threads = 1L)
  expect_identical(kitchen_root(k, n_threads = 2L), one)
  scalar <- kitchen_root(k, simd = "scalar")
  expect_identical(scalar$rank, one$rank)
  expect_lt(relative(scalar$matrix, one$matrix), 1e-10)
})

test_that("nystrom() maps from either path give the same features and fits", {
  set.seed(5)
  x <- matrix(runif(2000 * 6), 2000, 6)
  y <- sin(4 * x[, 1]) + x[, 2] + rnorm(2000, sd = 0.1)
  map <- nystrom(x, 250, seed = 1)
  old <- options(kitchen.tridiagonal = "lapack")
  reference <- nystrom(x, 250, seed = 1)
  options(old)
  expect_identical(map$rank, reference$rank)
  expect_lt(relative(tcrossprod(predict(map, x[1:300, ])), tcrossprod(predict(reference, x[1:300, ]))), 1e-8)
  fit <- krr_fit(x, y, map, lambda = 1e-3, verbose = FALSE)
  fit_ref <- krr_fit(x, y, reference, lambda = 1e-3, verbose = FALSE)
  expect_lt(relative(predict(fit, x), predict(fit_ref, x)), 1e-7)
})

test_that("an interrupt stops the construction of a large map promptly", {
  skip_if_not_installed("processx")
  skip_on_os("windows")  # no SIGINT to send
  skip_if(nzchar(Sys.getenv("KITCHEN_SANITIZER")), "under the sanitizer")
  # K_CC takes about a second at M = 5000; its tridiagonal reduction then
  # takes tens of seconds on two cores.
  code <- paste("library(kitchen); set.seed(1); x <- matrix(runif(5000 * 10), 5000);",
                "cat('ready\\n'); nystrom(x, 5000, seed = 1)")
  # after "ready", K_CC done, inside the reduction
  delay <- interrupt_delay(code, warm_up = 4, ready = TRUE)
  expect_false(is.na(delay), label = "still running at the signal")
  expect_lt(delay, 2.5)
})
