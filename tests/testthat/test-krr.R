krr_toy <- function(n = 300, d = 3, seed = 1) {
  set.seed(seed)
  x <- matrix(runif(n * d, -2, 2), n, d)
  y <- sin(2 * x[, 1]) + x[, 2]^2 / 2 + rnorm(n, sd = 0.1)
  list(x = x, y = y)
}

# Centred ridge solution computed directly from the full feature matrix.
direct_ridge <- function(z, y, lambda) {
  zc <- scale(z, scale = FALSE)
  yc <- y - mean(y)
  w <- solve(crossprod(zc) + diag(lambda, ncol(z)), crossprod(zc, yc))
  list(w = drop(w), b = mean(y) - sum(colMeans(z) * w))
}

test_that("a fixed lambda matches a direct dense ridge solve", {
  toy <- krr_toy()
  map <- rff(toy$x, 64, sigma = 1, seed = 2)
  fit <- krr_fit(toy$x, toy$y, map, lambda = 0.5, n_threads = 1, block_size = 50)
  ref <- direct_ridge(predict(map, toy$x), toy$y, 0.5)
  expect_equal(drop(fit$coefficients), ref$w, tolerance = 1e-9)
  expect_equal(fit$intercept, ref$b, tolerance = 1e-9)
  expect_equal(predict(fit, toy$x), drop(predict(map, toy$x) %*% ref$w) + ref$b, tolerance = 1e-9)
})

test_that("GCV scores equal a brute-force computation with the hat matrix", {
  toy <- krr_toy(n = 120)
  map <- rff(toy$x, 40, sigma = 1, seed = 3)
  lambdas <- c(0.01, 0.1, 1, 10)
  fit <- krr_fit(toy$x, toy$y, map, lambda = lambdas, n_threads = 1)
  z <- predict(map, toy$x)
  zc <- scale(z, scale = FALSE)
  n <- nrow(z)
  brute <- vapply(lambdas, function(l) {
    hat <- zc %*% solve(crossprod(zc) + diag(l, ncol(z)), t(zc)) + matrix(1 / n, n, n)
    rss <- sum((toy$y - hat %*% toy$y)^2)
    n * rss / (n - sum(diag(hat)))^2
  }, 0)
  expect_equal(fit$path$gcv, brute, tolerance = 1e-8)
  expect_identical(fit$lambda, lambdas[which.min(brute)])
  # The chosen fit is the direct solve at that lambda.
  ref <- direct_ridge(z, toy$y, fit$lambda)
  expect_equal(drop(fit$coefficients), ref$w, tolerance = 1e-8)
})

test_that("lambda = 'gcv' picks a sensible value from its grid and fits well", {
  toy <- krr_toy(n = 1000)
  fit <- krr_fit(toy$x, toy$y, rff(toy$x, 200, sigma = 1, seed = 4), n_threads = 2)
  expect_identical(nrow(fit$path), 50L)
  expect_identical(fit$lambda, fit$path$lambda[which.min(fit$path$gcv)])
  expect_lt(sqrt(mean((predict(fit, toy$x) - toy$y)^2)), 0.2)
  expect_equal(fit$training_rmse, sqrt(mean((predict(fit, toy$x) - toy$y)^2)), tolerance = 1e-6)
})

test_that("coefficients do not depend on threads, block size or the Gram path", {
  toy <- krr_toy(n = 700)
  map <- rff(toy$x, 300, sigma = 1, seed = 5)
  base <- krr_fit(toy$x, toy$y, map, lambda = 0.1, n_threads = 1, block_size = 4096)
  for (threads in 1:2) for (block in c(64, 333)) {
    other <- krr_fit(toy$x, toy$y, map, lambda = 0.1, n_threads = threads, block_size = block)
    expect_equal(other$coefficients, base$coefficients, tolerance = 1e-10)
  }
  expect_identical(krr_fit(toy$x, toy$y, map, lambda = 0.1, n_threads = 2)$coefficients,
                   krr_fit(toy$x, toy$y, map, lambda = 0.1, n_threads = 1)$coefficients)
  for (gemm in c("blas", "eigen")) {
    old <- options(kitchen.gemm = gemm)
    other <- krr_fit(toy$x, toy$y, map, lambda = 0.1, n_threads = 2, block_size = 200)
    options(old)
    expect_equal(other$coefficients, base$coefficients, tolerance = 1e-10)
  }
})

test_that("the Gram update equals crossprod on both paths", {
  set.seed(6)
  z <- matrix(rnorm(500 * 300), 500, 300)
  g0 <- crossprod(matrix(rnorm(20 * 300), 20, 300))
  update <- function(blas, threads) {
    kitchen:::gram_symmetrize_cpp(kitchen:::gram_update_cpp(g0, z, blas, threads, "avx512"))
  }
  for (blas in c(TRUE, FALSE)) {
    expect_equal(update(blas, 2), g0 + crossprod(z), tolerance = 1e-12)
  }
  expect_identical(update(FALSE, 1), update(FALSE, 2))
})

test_that("the Gram update equals crossprod on every SIMD level and thread count", {
  old <- options(kitchen.simd = NULL)
  on.exit(options(old))
  upper <- function(m) m[upper.tri(m, diag = TRUE)]
  set.seed(16)
  for (rows in c(1, 7, 300, 1000)) {
    for (dim in c(1, 3, 17, 129, 300)) {
      z <- matrix(rnorm(rows * dim), rows, dim)
      g0 <- crossprod(matrix(rnorm(3 * dim), 3, dim))
      expected <- upper(g0 + crossprod(z))
      for (level in c("scalar", "avx2", "avx512")) {
        options(kitchen.simd = level)
        update <- function(threads) {
          kitchen:::gram_update_cpp(g0, z, FALSE, threads, kitchen:::resolve_simd())
        }
        one <- update(1L)
        label <- sprintf("rows %d, dim %d, %s", rows, dim, level)
        expect_equal(upper(one), expected, tolerance = 1e-12, label = label)
        expect_identical(update(2L), one, label = label)
      }
    }
  }
})

test_that("classification separates a separable toy problem", {
  set.seed(7)
  centres <- rbind(c(-3, 0), c(3, 0), c(0, 4))
  labels <- factor(rep(c("a", "b", "c"), each = 60))
  x <- centres[as.integer(labels), ] + matrix(rnorm(360, sd = 0.5), 180, 2)
  fit <- krr_fit(x, labels, rff(x, 200, sigma = 2, seed = 1), n_threads = 2)
  pred <- predict(fit, x, type = "class")
  expect_s3_class(pred, "factor")
  expect_identical(levels(pred), c("a", "b", "c"))
  expect_identical(pred, labels)
  response <- predict(fit, x)
  expect_identical(dim(response), c(180L, 3L))
  expect_identical(colnames(response), c("a", "b", "c"))
  expect_output(print(fit), "classification, 3 classes")
})

test_that("several responses are fitted at once", {
  toy <- krr_toy(n = 200)
  y2 <- cbind(first = toy$y, second = toy$x[, 3])
  map <- rff(toy$x, 50, sigma = 1, seed = 8)
  fit <- krr_fit(toy$x, y2, map, lambda = 0.3)
  single <- krr_fit(toy$x, y2[, 2], map, lambda = 0.3)
  expect_equal(fit$coefficients[, "second"], drop(single$coefficients), tolerance = 1e-10)
  expect_identical(colnames(predict(fit, toy$x)), c("first", "second"))
})

test_that("the formula interface equals the matrix interface", {
  toy <- krr_toy(n = 150)
  df <- data.frame(a = toy$x[, 1], b = toy$x[, 2], c = toy$x[, 3], y = toy$y)
  by_formula <- krr_fit(y ~ a + b + c, df, features = "rff", n_features = 40, sigma = 1,
                        seed = 9, lambda = 0.2)
  # The map krr_fit() builds by name: minmax scaling (see ?krr_fit).
  by_matrix <- krr_fit(as.matrix(df[, 1:3]), df$y,
                       rff(as.matrix(df[, 1:3]), 40, sigma = 1, scale = "minmax", seed = 9),
                       lambda = 0.2)
  expect_equal(by_formula$coefficients, by_matrix$coefficients, tolerance = 1e-12)
  expect_equal(predict(by_formula, df[1:5, ]), predict(by_matrix, as.matrix(df[1:5, 1:3])),
               tolerance = 1e-12)
})

test_that("a fit survives saveRDS and prints, summarises, plots", {
  toy <- krr_toy(n = 200)
  fit <- krr_fit(toy$x, toy$y, "rff", n_features = 60, seed = 10)
  path <- tempfile(fileext = ".rds")
  saveRDS(fit, path)
  again <- readRDS(path)
  expect_identical(predict(again, toy$x), predict(fit, toy$x))
  expect_output(print(fit), "5-fold CV over 50 candidates")
  shown <- capture.output(print(summary(fit)))
  for (row in c("training RMSE", "GCV score", "CV mean squared error", "effective df")) {
    expect_true(any(grepl(row, shown)), label = row)
  }
  expect_identical(dim(coef(fit)), c(61L, 1L))
  pdf(NULL)
  on.exit(dev.off())
  expect_no_error(plot(fit))
})

test_that("bad input is refused with clear errors", {
  toy <- krr_toy(n = 50)
  map <- rff(toy$x, 20, sigma = 1, seed = 1)
  expect_error(krr_fit(toy$x, toy$y[-1], map), "one value per row of `x` \\(50\\), not 49")
  y_na <- toy$y
  y_na[3] <- NA
  expect_error(krr_fit(toy$x, y_na, map), "`y` must not contain NA")
  expect_error(krr_fit(toy$x, as.character(toy$y), map), "`y` must be a numeric vector")
  expect_error(krr_fit(toy$x, toy$y, map, lambda = -1), "`lambda` must be")
  expect_error(krr_fit(toy$x, toy$y, map, lambda = 0), "`lambda` must be")
  expect_error(krr_fit(toy$x, toy$y, map, lambda = "cv2"), "`lambda` must be")
  expect_error(krr_fit(toy$x, factor(rep("a", 50)), map), "at least two classes")
  expect_error(krr_fit(toy$x, toy$y, "svm"), "`features` must be a feature map")
  expect_error(krr_fit(toy$x, toy$y, map, n_features = 3), "already a map")
  fit <- krr_fit(toy$x, toy$y, map, lambda = 1)
  expect_error(predict(fit, toy$x, type = "class"), "classification fit")
  expect_error(predict(fit, toy$x[, 1:2]), "must have 3 columns")
})

test_that("sigma candidates reuse the map's draws and keep the best GCV pair", {
  toy <- krr_toy(n = 400)
  map <- rff(toy$x, 100, sigma = 1, seed = 11)
  fit <- krr_fit(toy$x, toy$y, map, sigma = c(0.25, 1, 4), lambda = "gcv", n_threads = 1)
  expect_identical(nrow(fit$sigma_path), 3L)
  best <- which.min(fit$sigma_path$score)
  expect_identical(fit$map$kernel$sigma, fit$sigma_path$sigma[best])
  # Same as fitting the rescaled map directly.
  rescaled <- map
  rescaled$projection <- map$projection / fit$map$kernel$sigma
  rescaled$kernel$sigma <- fit$map$kernel$sigma
  direct <- krr_fit(toy$x, toy$y, rescaled, lambda = "gcv", n_threads = 1)
  expect_equal(fit$coefficients, direct$coefficients, tolerance = 1e-10)
  expect_equal(min(direct$path$gcv), min(fit$sigma_path$score), tolerance = 1e-10)
  # A rescaled map equals a map built with that sigma and the same seed.
  built <- rff(toy$x, 100, sigma = fit$map$kernel$sigma, seed = 11)
  expect_equal(fit$map$projection, built$projection, tolerance = 1e-14)
  auto <- krr_fit(toy$x, toy$y, map, sigma = "auto")
  expect_equal(auto$sigma_path$sigma, 2^(-2:2))
  expect_output(print(auto), "and 5 bandwidths")
  expect_error(krr_fit(toy$x, toy$y, map, sigma = c(1, 2), lambda = 1), "must be \"gcv\", \"cv\" or a vector")
  expect_error(krr_fit(toy$x, toy$y, map, sigma = -1), "`sigma` must be")
})

test_that("K-fold CV scores equal explicit refits on the other folds", {
  toy <- krr_toy(n = 150)
  map <- rff(toy$x, 30, sigma = 1, seed = 12)
  folds <- rep_len(1:3, 150)
  fit <- krr_fit(toy$x, toy$y, map, lambda = "cv", folds = folds, block_size = 40)
  z <- predict(map, toy$x)
  lambdas <- fit$path$lambda[c(1, 20, 35, 50)]
  explicit <- vapply(lambdas, function(l) {
    sum(vapply(1:3, function(k) {
      ref <- direct_ridge(z[folds != k, ], toy$y[folds != k], l)
      sum((toy$y[folds == k] - z[folds == k, ] %*% ref$w - ref$b)^2)
    }, 0)) / 150
  }, 0)
  expect_equal(fit$path$cv[c(1, 20, 35, 50)], explicit, tolerance = 1e-7)
  expect_identical(fit$lambda, fit$path$lambda[which.min(fit$path$cv)])
  # The final fit uses all rows at the chosen lambda.
  ref <- direct_ridge(z, toy$y, fit$lambda)
  expect_equal(drop(fit$coefficients), ref$w, tolerance = 1e-8)
  expect_output(print(fit), "3-fold CV over 50 candidates")
  expect_output(print(summary(fit)), "CV mean squared error")
  # Random folds follow set.seed().
  set.seed(1)
  a <- krr_fit(toy$x, toy$y, map, lambda = "cv", n_folds = 4)
  set.seed(1)
  b <- krr_fit(toy$x, toy$y, map, lambda = "cv", n_folds = 4)
  expect_identical(a$path, b$path)
  expect_error(krr_fit(toy$x, toy$y, map, lambda = "cv", folds = rep(1, 150)), "at least two folds")
  expect_error(krr_fit(toy$x, toy$y, map, lambda = "cv", folds = 1:3), "for each of the 150 rows")
  expect_error(krr_fit(toy$x, toy$y, map, lambda = "cv", n_folds = 1), "`n_folds`")
})

test_that("fastfood maps fit too, with sigma candidates", {
  toy <- krr_toy(n = 300)
  map <- fastfood(toy$x, 64, sigma = 1, seed = 13)
  fit <- krr_fit(toy$x, toy$y, map, lambda = 0.5)
  ref <- direct_ridge(predict(map, toy$x), toy$y, 0.5)
  expect_equal(drop(fit$coefficients), ref$w, tolerance = 1e-9)
  tuned <- krr_fit(toy$x, toy$y, map, sigma = c(0.5, 2))
  rescaled <- fastfood(toy$x, 64, sigma = tuned$map$kernel$sigma, seed = 13)
  expect_equal(predict(tuned$map, toy$x), predict(rescaled, toy$x), tolerance = 1e-12)
  by_name <- krr_fit(toy$x, toy$y, "fastfood", n_features = 32, sigma = 1, seed = 2, lambda = 1)
  expect_s3_class(by_name$map, "kitchen_fastfood")
})

test_that("block features written into the previous block's matrix equal fresh ones", {
  # R/map.R block_features(): predict() and calibration reuse one matrix.
  set.seed(32)
  x <- matrix(rnorm(300 * 4), 300, 4)
  backend <- kitchen:::backend_settings(2L)
  maps <- list(rff(x, 64, sigma = 1, seed = 1), rff(x, 50, sigma = 1, seed = 1, type = "cos_phase"),
               fastfood(x, 64, sigma = 1, seed = 2), fastfood(x, 32, sigma = 1, seed = 2, structure = "sorf"),
               nystrom(x, 20, sigma = 1, seed = 3))
  for (map in maps) {
    z <- NULL
    for (rows in list(1:100, 101:200, 201:250, 251:300)) {
      block <- x[rows, , drop = FALSE]
      z <- kitchen:::block_features(map, block, backend, z)
      expect_identical(z, unname(kitchen:::map_features(map, block, backend)),
                       label = class(map)[1])
    }
  }
  bad <- matrix(0, 10, 3)
  expect_error(kitchen:::rff_features_into_cpp(x[1:10, ], maps[[1]], FALSE, 1L, "scalar", bad),
               "into must be")
  expect_error(kitchen:::fastfood_features_into_cpp(x[1:10, ], maps[[3]], 1L, "scalar", bad),
               "into must be")
  expect_type(kitchen:::rff_features_into_cpp(x[1:10, 1:3], maps[[1]], FALSE, 1L, "scalar",
                                              matrix(0, 10, 64)), "character")
})

test_that("predictions do not depend on the block size, capped or not", {
  set.seed(31)
  x <- matrix(rnorm(700 * 3), 700, 3)
  y <- sin(x[, 1]) + rnorm(700, sd = 0.1)
  # 4096 features: blocks are capped at 512 rows (16 MB of features)
  fit <- krr_fit(x, y, rff(x, 4096, sigma = 1, seed = 2), lambda = 1, n_threads = 1,
                 verbose = FALSE)
  reference <- predict(fit, x, block_size = 100, n_threads = 1)
  expect_identical(predict(fit, x, n_threads = 1), reference)
  expect_identical(predict(fit, x, block_size = 700, n_threads = 1), reference)
})
