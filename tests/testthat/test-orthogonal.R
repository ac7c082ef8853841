# Orthogonal random features: rff(orthogonal = TRUE).

test_that("each block of d frequencies is orthogonal, with chi(d) lengths", {
  d <- 8
  map <- rff(d, n_features = 2 * 5 * d + 6, sigma = 1, orthogonal = TRUE, seed = 1)
  w <- map$projection  # scale none, sigma 1: the frequencies themselves
  expect_identical(dim(w), c(8L, 43L))
  lengths <- sqrt(colSums(w^2))
  for (b in 0:4) {
    cols <- b * d + seq_len(d)
    gram <- crossprod(w[, cols])
    # Orthogonal directions: the Gram matrix is the diagonal of squared lengths.
    expect_equal(gram, diag(lengths[cols]^2), tolerance = 1e-12)
  }
  # The cut last block is orthogonal too.
  last <- w[, 5 * d + 1:3]
  expect_equal(crossprod(last), diag(colSums(last^2)), tolerance = 1e-12)
})

test_that("lengths follow chi(d) and directions are uniform (KS tests)", {
  d <- 6
  map <- rff(d, n_features = 2 * 3000, sigma = 1, orthogonal = TRUE, seed = 2)
  w <- map$projection
  lengths <- sqrt(colSums(w^2))
  # chi(d) lengths: their squares are chi^2(d).
  expect_gt(ks.test(lengths^2, "pchisq", df = d)$p.value, 1e-3)
  # Each coordinate of a frequency is then N(0, 1): the marginal law of an
  # i.i.d. Gaussian frequency, so the features stay unbiased.
  expect_gt(ks.test(w[1, ], "pnorm")$p.value, 1e-3)
  expect_gt(ks.test(w[d, ], "pnorm")$p.value, 1e-3)
  # A skewed length law would fail: chi(d + 2) is rejected.
  expect_lt(ks.test(lengths^2, "pchisq", df = d + 2)$p.value, 1e-6)
})

test_that("the Matern kernel's lengths follow its radial law", {
  d <- 4
  nu <- 1.5
  map <- rff(d, 2 * 4000, kernel = "matern", nu = nu, sigma = 1, orthogonal = TRUE, seed = 3)
  lengths2 <- colSums(map$projection^2)
  # ||w||^2 / d for a multivariate t with 2 nu degrees of freedom is F(d, 2 nu).
  expect_gt(ks.test(lengths2 / d, "pf", df1 = d, df2 = 2 * nu)$p.value, 1e-3)
})

test_that("orthogonal features estimate the kernel, with a smaller error than i.i.d.", {
  set.seed(4)
  d <- 16
  x <- matrix(rnorm(200 * d), 200, d)
  kernel <- kernel_gaussian(sqrt(d))
  exact <- kernel_matrix(x, kernel = kernel)
  errors <- sapply(1:6, function(seed) {
    sapply(c(FALSE, TRUE), function(orthogonal) {
      z <- predict(rff(x, 4 * d * 2, kernel = kernel, scale = "none", seed = seed,
                       orthogonal = orthogonal), x)
      norm(tcrossprod(z) - exact, "F") / norm(exact, "F")
    })
  })
  # Unbiased: with many features the estimate converges to the kernel.
  z <- predict(rff(x, 2 * 16384, kernel = kernel, scale = "none", seed = 9, orthogonal = TRUE), x)
  expect_lt(max(abs(tcrossprod(z) - exact)), 0.05)
  # At D = 4d (Yu et al. 2016, figure 1), orthogonal features are markedly better.
  expect_lt(mean(errors[2, ]), 0.85 * mean(errors[1, ]))
})

test_that("per-column bandwidths apply to orthogonal frequencies", {
  set.seed(5)
  x <- matrix(rnorm(100 * 3), 100, 3)
  sigma <- c(0.5, 2, 4)
  map <- rff(x, 2 * 3 * 3000, sigma = sigma, scale = "none", orthogonal = TRUE, seed = 6)
  expect_identical(map$kernel$sigma, sigma)
  # Undo the bandwidths: the blocks are orthogonal again.
  w <- map$projection * sigma
  expect_equal(crossprod(w[, 1:3]), diag(colSums(w[, 1:3]^2)), tolerance = 1e-12)
  z <- predict(map, x)
  exact <- kernel_matrix(x, kernel = kernel_gaussian(sigma))
  expect_lt(max(abs(tcrossprod(z) - exact)), 0.06)
})

test_that("non-radial kernels are refused, naming the argument", {
  for (k in c("laplacian", "cauchy")) {
    expect_error(rff(3, 8, kernel = k, sigma = 1, orthogonal = TRUE),
                 "orthogonal = TRUE.*radial", class = "rlang_error")
  }
  expect_error(rff(3, 8, sigma = 1, orthogonal = NA), "orthogonal")
})

test_that("orthogonal maps print, save and fit like others", {
  set.seed(7)
  x <- matrix(rnorm(150 * 3), 150, 3)
  y <- sin(x[, 1]) + x[, 2]
  map <- rff(x, 64, orthogonal = TRUE, seed = 8)
  expect_output(print(map), "orthogonal")
  file <- tempfile(fileext = ".rds")
  saveRDS(map, file)
  expect_identical(predict(readRDS(file), x), predict(map, x))
  fit <- krr_fit(x, y, features = "rff", n_features = 64, orthogonal = TRUE, seed = 8,
                 lambda = 1e-3)
  expect_true(fit$map$orthogonal)
  expect_lt(fit$training_rmse, 0.2)
  # Reproducible from the seed, and from set.seed().
  expect_identical(rff(x, 64, orthogonal = TRUE, seed = 8)$projection, map$projection)
})
