# Structured orthogonal random features: fastfood(structure = "sorf").

# The dense frequencies of block b straight from the definition,
# sqrt(p) / sigma (H D1)(H D2)(H D3) with H the normalised Hadamard matrix,
# rows cut to those the block uses.
sorf_block_matrix <- function(map, b, m) {
  p <- nrow(map$signs)
  h <- hadamard(p) / sqrt(p)
  sign_diag <- function(k) diag(2 * as.integer(map$signs[, 3 * (b - 1) + k]) - 1)
  v <- sqrt(p) / map$kernel$sigma * h %*% sign_diag(1) %*% h %*% sign_diag(2) %*% h %*% sign_diag(3)
  rows <- seq_len(min(p, m - (b - 1) * p))
  v[rows, , drop = FALSE]
}

sorf_dense_frequencies <- function(map) {
  m <- if (map$type == "cos_sin") map$n_features / 2 else map$n_features
  n_blocks <- ncol(map$signs) / 3
  v <- do.call(rbind, lapply(seq_len(n_blocks), function(b) sorf_block_matrix(map, b, m)))
  t(v[, seq_len(map$d), drop = FALSE])  # d x m, as as.matrix() orients it
}

test_that("features equal cos/sin of the data times the dense H D1 H D2 H D3 blocks", {
  set.seed(1)
  x <- matrix(rnorm(40 * 6, mean = 2, sd = 3), 40, 6)
  for (type in c("cos_sin", "cos_phase")) {
    # p = 8, 20 frequencies: 3 blocks, the last cut to 4 rows.
    map <- fastfood(x, if (type == "cos_sin") 40 else 20, sigma = 1.7, type = type,
                    seed = 2, structure = "sorf")
    expect_identical(dim(map$signs), c(8L, 9L))
    w <- sorf_dense_frequencies(map)
    expect_equal(as.matrix(map), w, tolerance = 1e-12, ignore_attr = TRUE)
    m <- ncol(w)
    xs <- sweep(sweep(x, 2, map$center), 2, map$scale, "/")
    proj <- xs %*% w
    expected <- if (type == "cos_sin") cbind(cos(proj), sin(proj)) / sqrt(m) else
      sqrt(2 / m) * cos(sweep(proj, 2, map$phases, "+"))
    z <- predict(map, x, n_threads = 1)
    expect_lt(max(abs(z - expected)), 1e-12)
    # Threads and sparse input change nothing.
    expect_identical(predict(map, x, n_threads = 2), z)
    expect_equal(predict(map, Matrix::Matrix(x, sparse = TRUE)), z, tolerance = 1e-14)
  }
})

test_that("each block's rows are orthogonal, of length sqrt(p) / sigma", {
  sigma <- 2.5
  map <- fastfood(16, 2 * 64, sigma = sigma, seed = 3, structure = "sorf")  # 4 full blocks
  w <- as.matrix(map)
  for (b in 1:4) {
    cols <- (b - 1) * 16 + 1:16
    expect_equal(crossprod(w[, cols]), diag(16 / sigma^2, 16), tolerance = 1e-12)
  }
  # Padded input (d = 5, p = 8): rows cut to d columns keep mean squared
  # length d / sigma^2, a Gaussian frequency's.
  padded <- fastfood(5, 2 * 8 * 400, sigma = 1, seed = 4, structure = "sorf")
  expect_equal(mean(colSums(as.matrix(padded)^2)), 5, tolerance = 0.03)
})

test_that("SORF estimates the Gaussian kernel like orthogonal rff, better than i.i.d.", {
  set.seed(5)
  d <- 16
  x <- matrix(rnorm(300 * d), 300, d)
  kernel <- kernel_gaussian(sqrt(d))
  exact <- kernel_matrix(x, kernel = kernel, n_threads = 1)
  error <- function(map) norm(tcrossprod(predict(map, x)) - exact, "F") / norm(exact, "F")
  seeds <- 1:6
  iid <- mean(sapply(seeds, function(s) error(rff(x, 8 * d, kernel = kernel, scale = "none", seed = s))))
  sorf <- mean(sapply(seeds, function(s) {
    error(fastfood(x, 8 * d, kernel = kernel, scale = "none", seed = s, structure = "sorf"))
  }))
  expect_lt(sorf, 0.85 * iid)
  expect_lt(sorf, 0.2)
})

test_that("kernels other than the gaussian are refused, naming structure", {
  for (kernel in c("matern", "laplacian", "cauchy")) {
    expect_error(fastfood(4, 16, kernel = kernel, sigma = 1, structure = "sorf"),
                 "structure", class = "kitchen_error_argument")
  }
  expect_error(fastfood(4, 16, sigma = 1, structure = "hd3"), "structure",
               class = "kitchen_error_argument")
  # A SORF map edited to another kernel is refused before use.
  map <- fastfood(4, 16, sigma = 1, seed = 1, structure = "sorf")
  edited <- map
  edited$kernel <- kernel_matern(1, nu = 1.5)
  expect_error(predict(edited, matrix(0, 1, 4)), "gaussian", class = "kitchen_error_argument")
  edited <- map
  edited$signs <- edited$signs[, 1:2]
  expect_error(predict(edited, matrix(0, 1, 4)), "signs", class = "kitchen_error_argument")
  edited <- map
  edited$signs[3] <- as.raw(7)
  expect_error(print(edited), "signs", class = "kitchen_error_argument")
  edited <- map
  edited$structure <- "hd3"
  expect_error(predict(edited, matrix(0, 1, 4)), "structure", class = "kitchen_error_argument")
})

test_that("a Fastfood map saved without a structure field still works", {
  map <- fastfood(6, 32, sigma = 1, seed = 6)
  expect_identical(map$structure, "fastfood")
  old <- map
  old$structure <- NULL
  x <- matrix(rnorm(12), 2, 6)
  expect_identical(predict(old, x), predict(map, x))
})

test_that("SORF maps print, save and fit like other Fastfood maps", {
  set.seed(7)
  n <- 400
  x <- matrix(runif(n * 5, -2, 2), n, 5)
  y <- sin(x[, 1]) + x[, 2]^2 / 4 + rnorm(n, sd = 0.1)
  map <- fastfood(x, 128, sigma = 1.5, seed = 8, structure = "sorf")
  expect_output(print(map), "SORF")
  expect_output(print(map), "8 blocks of 8 frequencies")
  path <- tempfile(fileext = ".rds")
  saveRDS(map, path)
  expect_identical(predict(readRDS(path), x[1:5, ]), predict(map, x[1:5, ]))

  # Dense fixed lambda: the solution of the normal equations on predict()'s features.
  z <- predict(map, x)
  fit <- krr_fit(x, y, map, lambda = 0.01, block_size = 64, verbose = FALSE)
  zc <- scale(z, scale = FALSE)
  w <- solve(crossprod(zc) + diag(0.01, ncol(z)), crossprod(zc, y - mean(y)))
  expect_equal(predict(fit, x), drop(zc %*% w) + mean(y), tolerance = 1e-8,
               ignore_attr = TRUE)
  # GCV, CV, sigma candidates and chunked data run through the same loop.
  gcv <- krr_fit(x, y, map, lambda = "gcv", verbose = FALSE)
  cv <- krr_fit(x, y, map, lambda = "cv", folds = rep_len(1:4, n), verbose = FALSE)
  sigmas <- krr_fit(x, y, map, lambda = "gcv", sigma = c(0.8, 1.5, 3), verbose = FALSE)
  expect_true(identical(sigmas$map$structure, "sorf"))
  expect_true(sigmas$map$kernel$sigma %in% c(0.8, 1.5, 3))
  for (f in list(gcv, cv, sigmas)) expect_lt(mean((predict(f, x) - y)^2), 0.05)
  halves <- split(seq_len(n), rep(1:2, each = n / 2))
  chunks <- chunked(lapply(halves, function(r) list(x = x[r, ], y = y[r])))
  chunk_fit <- krr_fit(chunks, features = map, lambda = 0.01, parallel = "none", verbose = FALSE)
  expect_equal(predict(chunk_fit, x), predict(fit, x), tolerance = 1e-10)
  # Built by name through krr_fit()'s `...`.
  named <- krr_fit(x, y, "fastfood", n_features = 64, structure = "sorf", seed = 1, verbose = FALSE)
  expect_identical(named$map$structure, "sorf")
})
