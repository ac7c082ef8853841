# Nystroem maps against dense references: K_CC^(-1/2) by eigendecomposition,
# written here from the definition.

ref_inverse_root <- function(k) {
  e <- eigen(k, symmetric = TRUE)
  keep <- e$values > 1e-10 * e$values[1]
  e$vectors[, keep] %*% diag(1 / sqrt(e$values[keep]), sum(keep)) %*% t(e$vectors[, keep])
}

# The same over the leading `rank` eigenvalues (the map's own cut-off).
inverse_root_at_rank <- function(k, rank) {
  e <- eigen(k, symmetric = TRUE)
  u <- e$vectors[, seq_len(rank), drop = FALSE]
  u %*% diag(1 / sqrt(e$values[seq_len(rank)]), rank) %*% t(u)
}

test_that("features are k(x, C) K_CC^(-1/2) for every kernel", {
  set.seed(1)
  x <- matrix(rnorm(120 * 3, mean = 2, sd = 3), 120, 3)
  for (k in test_kernels(1.5)) {
    map <- nystrom(x, 25, kernel = k, seed = 2)
    xs <- sweep(sweep(x, 2, map$center), 2, map$scale, "/")
    # Centers are rescaled rows of x.
    expect_true(all(apply(map$centers, 1, function(ci) any(colSums(abs(t(xs) - ci)) < 1e-12))))
    k_xc <- ref_kernel_matrix(xs, map$centers, k)
    k_cc <- ref_kernel_matrix(map$centers, map$centers, k)
    expected <- k_xc %*% ref_inverse_root(k_cc)
    label <- paste(k$name, k$nu)
    expect_equal(predict(map, x, n_threads = 2), expected, tolerance = 1e-8, label = label)
    # Exact on the centers: z(c)'z(c') = k(c, c').
    zc <- predict(map, sweep(sweep(map$centers, 2, map$scale, "*"), 2, map$center, "+"))
    expect_equal(tcrossprod(zc), k_cc, tolerance = 1e-7, label = label)
  }
})

test_that("the SIMD, Eigen and thread paths agree", {
  set.seed(3)
  x <- matrix(rnorm(1700 * 5), 1700, 5)  # more than one block of rows
  map <- nystrom(x, 300, sigma = 2, seed = 4)
  z1 <- predict(map, x, n_threads = 1)
  z2 <- predict(map, x, n_threads = 2)
  expect_identical(z1, z2)
  old <- options(kitchen.simd = "scalar")
  on.exit(options(old))
  z_eigen <- predict(map, x, n_threads = 2)
  expect_equal(z_eigen, z1, tolerance = 1e-10)
  xs <- sweep(sweep(x, 2, map$center), 2, map$scale, "/")
  reference <- kernel_matrix(xs, map$centers, map$kernel) %*% ref_inverse_root(
    kernel_matrix(map$centers, kernel = map$kernel))
  expect_equal(z1, reference, tolerance = 1e-8, ignore_attr = TRUE)
})

test_that("a rank-deficient K_CC gives a stable pseudo-inverse square root", {
  set.seed(5)
  base <- matrix(rnorm(10 * 2), 10, 2)
  x <- base[rep(1:10, 6), ]  # every row six times: duplicated centers
  map <- nystrom(x, 40, sigma = 1, scale = "none", seed = 6)
  distinct <- nrow(unique(map$centers))
  expect_lt(distinct, 40)
  expect_identical(map$rank, distinct)
  expect_true(all(is.finite(map$normalization)))
  z <- predict(map, x)
  # The kernel is still reproduced exactly on the data (all rows are centers).
  expect_equal(tcrossprod(z), kernel_matrix(x, kernel = map$kernel), tolerance = 1e-7)
  # A huge bandwidth: K_CC is all ones to rounding, rank 1; features stay finite.
  wide <- nystrom(base, 10, sigma = 1e9, scale = "none", seed = 7)
  expect_identical(wide$rank, 1L)
  expect_equal(tcrossprod(predict(wide, base)), matrix(1, 10, 10), tolerance = 1e-9)
})

test_that("per-column bandwidths give the ARD kernel", {
  set.seed(8)
  x <- matrix(rnorm(200 * 3), 200, 3)
  sigma <- c(0.5, 2, 5)
  map <- nystrom(x, 200, sigma = sigma, scale = "none", seed = 9)
  expect_identical(map$kernel$sigma, sigma)
  # All rows as centers: the approximation is exact.
  expect_equal(tcrossprod(predict(map, x)), kernel_matrix(x, kernel = kernel_gaussian(sigma)),
               tolerance = 1e-6)
})

test_that("the three center rules approximate the kernel; kmeans and leverage beat uniform on clustered data", {
  set.seed(10)
  # Unbalanced clusters: uniform centers miss the small ones.
  sizes <- c(700, 100, 50, 30, 20)
  means <- matrix(rnorm(5 * 4, sd = 6), 5, 4)
  x <- do.call(rbind, lapply(1:5, function(i) {
    matrix(rnorm(sizes[i] * 4, sd = 0.7), sizes[i], 4) + rep(means[i, ], each = sizes[i])
  }))
  kernel <- kernel_gaussian(0.8)
  exact <- kernel_matrix(x, kernel = kernel)
  error <- function(rule, seed) {
    z <- predict(nystrom(x, 30, kernel = kernel, centers = rule, scale = "none", seed = seed), x)
    norm(tcrossprod(z) - exact, "F") / norm(exact, "F")
  }
  errors <- sapply(c("uniform", "kmeans", "leverage"), function(r) mean(sapply(1:4, error, rule = r)))
  expect_lt(errors[["kmeans"]], errors[["uniform"]])
  expect_lt(errors[["leverage"]], errors[["uniform"]])
  expect_lt(max(errors), 0.5)
})

test_that("Nystroem beats rff at the same size on the kernel approximation", {
  set.seed(11)
  x <- matrix(rnorm(400 * 8), 400, 8)
  kernel <- kernel_gaussian(sqrt(8))
  exact <- kernel_matrix(x, kernel = kernel)
  err <- function(z) norm(tcrossprod(z) - exact, "F") / norm(exact, "F")
  e_nys <- err(predict(nystrom(x, 100, kernel = kernel, scale = "none", seed = 1), x))
  e_rff <- err(predict(rff(x, 100, kernel = kernel, scale = "none", seed = 1), x))
  expect_lt(e_nys, 0.5 * e_rff)
})

test_that("bad arguments are refused, naming them", {
  x <- matrix(rnorm(20 * 2), 20, 2)
  expect_error(nystrom(x, 21), "n_centers.*at most")
  expect_error(nystrom(x, 0), "n_centers")
  # K_CC past 2^31 - 1 entries: the hint is about centers, not columns or grids
  many <- matrix(0, 46341, 1)
  expect_error(nystrom(many, 46341), "Use fewer centers", class = "kitchen_error_argument")
  expect_error(nystrom(2, 5, sigma = 1), "x.*data")
  expect_error(nystrom(x, 5, centers = "random"), "centers")
  expect_error(nystrom(x, 5, sigma = c(1, 2, 3)), "sigma")
  map <- nystrom(x, 5, seed = 1)
  expect_error(predict(map, x[, 1, drop = FALSE]), "newdata")
  broken <- map
  broken$normalization <- broken$normalization[-1, ]
  expect_error(predict(broken, x), "normalization")
  broken <- map
  broken$centers[1, 1] <- NaN
  expect_error(predict(broken, x), "centers")
})

test_that("maps print, save, take sparse and named data and are reproducible", {
  set.seed(12)
  x <- matrix(rnorm(60 * 3), 60, 3, dimnames = list(NULL, c("a", "b", "c")))
  map <- nystrom(x, 10, centers = "kmeans", seed = 13)
  expect_output(print(map), "Nystroem.*\n.*\n.*10 \\(centers: kmeans\\)")
  file <- tempfile(fileext = ".rds")
  saveRDS(map, file)
  expect_identical(predict(readRDS(file), x), predict(map, x))
  expect_identical(nystrom(x, 10, centers = "kmeans", seed = 13), map)
  expect_equal(predict(map, x[, c("c", "a", "b")]), predict(map, x))
  sparse <- Matrix::Matrix(x * (abs(x) > 1), sparse = TRUE)
  dense_map <- nystrom(as.matrix(sparse), 10, seed = 1)
  expect_equal(predict(dense_map, sparse), predict(dense_map, as.matrix(sparse)))
  expect_equal(predict(nystrom(sparse, 10, seed = 1), sparse), predict(dense_map, sparse))
})

test_that("krr_fit on a Nystroem map: dense fit, GCV, CV, sigma candidates", {
  set.seed(14)
  x <- matrix(runif(400 * 2, -2, 2), 400, 2)
  y <- sin(2 * x[, 1]) + x[, 2]^2 / 2 + rnorm(400, sd = 0.1)
  map <- nystrom(x, 80, sigma = 0.5, seed = 15)
  fit <- krr_fit(x, y, features = map, lambda = 1e-4)
  # Dense reference: ridge on the explicit features, intercept from centering.
  z <- predict(map, x)
  zc <- scale(z, scale = FALSE)
  w <- solve(crossprod(zc) + diag(1e-4, 80), crossprod(zc, y - mean(y)))
  expect_equal(unname(drop(predict(fit, x[1:20, ]))),
               drop(z[1:20, ] %*% w) + mean(y) - drop(colMeans(z) %*% w), tolerance = 1e-6)
  gcv <- krr_fit(x, y, features = map, lambda = "gcv")
  expect_lt(sqrt(mean((predict(gcv, x) - y)^2)), 0.15)
  cv <- krr_fit(x, y, features = "nystrom", n_centers = 80, seed = 15, sigma = c(0.25, 0.5, 1, 4))
  expect_s3_class(cv$map, "kitchen_nystrom")
  # The candidates keep the centers and recompute K_CC at the chosen sigma.
  chosen <- cv$map$kernel$sigma
  expect_true(chosen %in% c(0.25, 0.5, 1, 4))
  expect_identical(cv$map$centers, nystrom(x, 80, seed = 15)$centers)
  # K_CC at the chosen bandwidth: the features reproduce it on the centers.
  k_cc <- kernel_matrix(cv$map$centers, kernel = kernel_gaussian(chosen))
  z_c <- k_cc %*% cv$map$normalization
  expect_equal(tcrossprod(z_c), k_cc, tolerance = 1e-6)
  # The rank by the map's rule, and the reference square root's kernel
  # approximation on the data. (N itself is compared only where K_CC is well
  # conditioned, test-inverse-root.R: at this bandwidth its smallest kept
  # eigenvalues make N as sensitive as rounding in K_CC allows, 1e-5.)
  values <- eigen(k_cc, symmetric = TRUE, only.values = TRUE)$values
  expect_identical(cv$map$rank, sum(values > 80 * .Machine$double.eps * values[1]))
  xs <- sweep(sweep(x, 2, cv$map$center), 2, cv$map$scale, "/")
  k_xc <- kernel_matrix(xs, cv$map$centers, kernel = kernel_gaussian(chosen))
  expect_equal(tcrossprod(k_xc %*% cv$map$normalization),
               tcrossprod(k_xc %*% inverse_root_at_rank(k_cc, cv$map$rank)), tolerance = 1e-6)
})

test_that("chunked fits, in process and as futures, equal the in-memory fit", {
  set.seed(16)
  x <- matrix(rnorm(600 * 3), 600, 3)
  y <- x[, 1] - x[, 2]^2 + rnorm(600, sd = 0.1)
  map <- nystrom(x, 50, seed = 17)
  whole <- krr_fit(x, y, features = map, lambda = 1e-3)
  chunks <- unname(lapply(split(seq_len(600), rep(1:3, each = 200)),
                          function(i) list(x = x[i, ], y = y[i])))
  chunked_fit <- krr_fit(chunked(chunks), features = map, lambda = 1e-3, verbose = FALSE)
  expect_equal(chunked_fit$coefficients, whole$coefficients, tolerance = 1e-8)
  skip_if_not_installed("future")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old))
  future_fit <- krr_fit(chunked(chunks), features = map, lambda = 1e-3, verbose = FALSE,
                        parallel = "future")
  expect_equal(future_fit$coefficients, whole$coefficients, tolerance = 1e-8)
})

test_that("sigma = \"ard\" learns per-column bandwidths and recomputes K_CC", {
  set.seed(18)
  x <- matrix(runif(300 * 3, -2, 2), 300, 3)
  y <- sin(2 * x[, 1]) + rnorm(300, sd = 0.05)  # only column 1 matters
  map <- nystrom(x, 60, seed = 19)
  fit <- krr_fit(x, y, features = map, sigma = "ard", lambda = "gcv")
  sigma <- fit$map$kernel$sigma
  expect_length(sigma, 3)
  expect_lt(sigma[1], min(sigma[2:3]))
  expect_identical(fit$map$centers, map$centers)
  k_cc <- kernel_matrix(map$centers, kernel = kernel_gaussian(sigma))
  expect_equal(tcrossprod(k_cc %*% fit$map$normalization), k_cc, tolerance = 1e-6)
})
