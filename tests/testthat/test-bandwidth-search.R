# Bandwidth candidates with K-fold CV (R/krr_bandwidth_search.R): screened
# on fold 1, the best two cross-validated in full. Compared with the full
# search written out here: every candidate's own CV fit, the lowest CV
# score kept.

full_search <- function(fit_one, map, sigmas) {
  fits <- lapply(sigmas, function(s) fit_one(kitchen:::rescale_bandwidth(map, s)))
  fits[[which.min(vapply(fits, function(f) min(f$path$cv), 0))]]
}

expect_same_fit <- function(screened, full) {
  expect_identical(screened$map$kernel$sigma, full$map$kernel$sigma)
  expect_identical(screened$lambda, full$lambda)
  expect_identical(screened$path, full$path)
  expect_identical(screened$coefficients, full$coefficients)
  expect_identical(screened$intercept, full$intercept)
}

# A candidate's fold-1 screen score, from its statistics written out.
fold_1_score <- function(map, s, x, y, folds) {
  m <- kitchen:::rescale_bandwidth(map, s)
  backend <- kitchen:::backend_settings(1L)
  stats <- kitchen:::krr_statistics(m, kitchen:::map_input(m, x, arg = "x"), matrix(y), 4096L,
                                    backend, FALSE, folds, NULL)
  kitchen:::screen_fold_path(stats, backend)$score
}

test_that("the screen keeps the full search's choice, and its fit to the last bit", {
  set.seed(1)
  n <- 400
  x <- matrix(rnorm(n * 3), n)
  y <- sin(2 * x[, 1]) + x[, 2]^2 / 3 + rnorm(n, sd = 0.2)
  map <- rff(x, 120, sigma = 1, seed = 3)
  folds <- sample(rep_len(1:5, n))
  sigmas <- c(0.25, 0.5, 1, 2, 4)
  fit <- krr_fit(x, y, map, sigma = sigmas, folds = folds, n_threads = 1)
  full <- full_search(function(m) krr_fit(x, y, m, folds = folds, n_threads = 1), map, sigmas)
  expect_same_fit(fit, full)
  # Here fold 1 alone ranks the full search's best second: keeping only the
  # screen's best would have chosen another bandwidth.
  path <- fit$sigma_path
  expect_identical(path$sigma, sigmas)
  expect_identical(path$sigma[order(path$score)[2]], full$map$kernel$sigma)
  # Each score is the lowest of its candidate's fold-1 curve.
  curves <- attr(path, "paths")
  expect_identical(path$score, vapply(sigmas, function(s) min(curves$cv[curves$sigma == s]), 0))
  expect_true(all(is.finite(path$score)))
  expect_identical(path$lambda[which(path$sigma == full$map$kernel$sigma)], full$lambda)
})

test_that("fastfood and Nystroem maps and chunked data screen the same way", {
  set.seed(2)
  n <- 300
  x <- matrix(runif(n * 2, -2, 2), n)
  y <- cos(2 * x[, 1]) * x[, 2] + rnorm(n, sd = 0.1)
  folds <- sample(rep_len(1:5, n))
  sigmas <- c(0.3, 1, 3)
  for (map in list(fastfood(x, 64, sigma = 1, seed = 4), nystrom(x, 60, sigma = 1, seed = 5))) {
    fit <- krr_fit(x, y, map, sigma = sigmas, folds = folds, n_threads = 1)
    expect_same_fit(fit, full_search(function(m) krr_fit(x, y, m, folds = folds, n_threads = 1),
                                     map, sigmas))
  }
  # Chunked: whole chunks are the folds (five chunks, five folds).
  chunks <- lapply(split(seq_len(n), rep(1:5, each = n / 5)),
                   function(r) list(x = x[r, , drop = FALSE], y = y[r]))
  map <- rff(x, 64, sigma = 1, seed = 6)
  fit <- krr_fit(chunked(chunks), map, sigma = sigmas, n_threads = 1, verbose = FALSE)
  expect_false(is.null(fit$path$cv))
  expect_same_fit(fit, full_search(function(m) krr_fit(chunked(chunks), m, n_threads = 1,
                                                        verbose = FALSE), map, sigmas))
})

test_that("with GCV every candidate is still scored in full", {
  set.seed(3)
  x <- matrix(rnorm(200 * 2), 200)
  y <- x[, 1]^2 + rnorm(200, sd = 0.1)
  map <- rff(x, 50, sigma = 1, seed = 7)
  fit <- krr_fit(x, y, map, sigma = c(0.5, 1, 2), lambda = "gcv", n_threads = 1)
  scores <- vapply(c(0.5, 1, 2), function(s) {
    min(krr_fit(x, y, kitchen:::rescale_bandwidth(map, s), lambda = "gcv", n_threads = 1)$path$gcv)
  }, 0)
  expect_identical(fit$sigma_path$score, scores)
})

test_that("large rff maps screen by the full CV of their leading quarter of frequencies", {
  set.seed(4)
  n <- 500
  x <- matrix(rnorm(n * 3), n)
  y <- sin(2 * x[, 1]) + x[, 2]^2 / 3 + rnorm(n, sd = 0.2)
  folds <- sample(rep_len(1:5, n))
  sigmas <- c(0.25, 0.5, 1, 2, 4)
  for (type in c("cos_sin", "cos_phase")) {
    map <- rff(x, 256, sigma = 1, seed = 3, type = type)
    # The proxy: the map's first quarter of frequencies, the same features
    # (cos and sin of each) up to the scale of the smaller map.
    proxy <- kitchen:::leading_frequencies(map, ncol(map$projection) / 4)
    full_columns <- if (type == "cos_sin") c(1:32, 129:160) else 1:64
    expect_equal(predict(proxy, x[1:7, ]) * sqrt(64 / 256), predict(map, x[1:7, ])[, full_columns],
                 tolerance = 1e-15)
    expect_identical(proxy$n_features, 64L)
    old <- options(kitchen.bandwidth_proxy = 256)
    fit <- krr_fit(x, y, map, sigma = sigmas, folds = folds, n_threads = 1)
    options(old)
    # Every candidate's score is its proxy's own K-fold CV fit ...
    proxy_fits <- lapply(sigmas, function(s) {
      krr_fit(x, y, kitchen:::rescale_bandwidth(proxy, s), folds = folds, n_threads = 1)
    })
    proxy_scores <- vapply(proxy_fits, function(f) min(f$path$cv), 0)
    expect_identical(fit$sigma_path$score, proxy_scores)
    # ... and the fit is the full search over the proxy's best two.
    finalists <- sigmas[sort(order(proxy_scores)[1:2])]
    expect_same_fit(fit, full_search(function(m) krr_fit(x, y, m, folds = folds, n_threads = 1),
                                     map, finalists))
    chosen <- which(sigmas == fit$map$kernel$sigma)
    expect_identical(fit$sigma_path$lambda[-chosen],
                     vapply(proxy_fits, `[[`, 0, "lambda")[-chosen])
    expect_identical(fit$sigma_path$lambda[chosen], fit$lambda)
    # Below the option's size (2048 features by default) the fold-1 screen
    # of the full map is used, as before.
    expect_identical(krr_fit(x, y, map, sigma = sigmas, folds = folds, n_threads = 1)$sigma_path$score,
                     vapply(sigmas, function(s) fold_1_score(map, s, x, y, folds), 0))
  }
  # Chunked data take the same proxy.
  chunks <- lapply(split(seq_len(n), folds), function(r) list(x = x[r, , drop = FALSE], y = y[r]))
  map <- rff(x, 256, sigma = 1, seed = 5)
  old <- options(kitchen.bandwidth_proxy = 256)
  on.exit(options(old))
  fit <- krr_fit(chunked(chunks), map, sigma = sigmas, n_threads = 1, verbose = FALSE)
  in_memory <- krr_fit(x[unlist(split(seq_len(n), folds)), ], y[unlist(split(seq_len(n), folds))],
                       map, sigma = sigmas, folds = rep(1:5, lengths(split(seq_len(n), folds))),
                       n_threads = 1)
  expect_identical(fit$map$kernel$sigma, in_memory$map$kernel$sigma)
  expect_equal(fit$sigma_path$score, in_memory$sigma_path$score, tolerance = 1e-10)
  expect_equal(fit$coefficients, in_memory$coefficients, tolerance = 1e-8)
  # Two candidates, both finalists: no proxy; the fold-1 screen's scores,
  # the full search's fit.
  two <- krr_fit(x, y, map, sigma = c(0.5, 1), folds = folds, n_threads = 1)
  expect_identical(two$sigma_path$score,
                   vapply(c(0.5, 1), function(s) fold_1_score(map, s, x, y, folds), 0))
  expect_same_fit(two, full_search(function(m) krr_fit(x, y, m, folds = folds, n_threads = 1),
                                   map, c(0.5, 1)))
})

test_that("large Fastfood and SORF maps screen by their first quarter of blocks", {
  set.seed(5)
  n <- 400
  x <- matrix(rnorm(n * 3), n)  # 3 columns: blocks of p = 4 frequencies
  y <- cos(2 * x[, 1]) * x[, 2] + rnorm(n, sd = 0.1)
  folds <- sample(rep_len(1:5, n))
  sigmas <- c(0.5, 1, 2)
  for (structure in c("fastfood", "sorf")) {
    for (type in c("cos_sin", "cos_phase")) {
      map <- fastfood(x, 64, sigma = 1, seed = 6, type = type, structure = structure)
      expect_null(kitchen:::bandwidth_proxy(map))  # below the default size
      old <- options(kitchen.bandwidth_proxy = 64)
      proxy <- kitchen:::bandwidth_proxy(map)
      expect_identical(proxy$n_features, 16L)
      m <- if (type == "cos_sin") 32 else 64
      columns <- if (type == "cos_sin") c(1:8, m + 1:8) else 1:16
      expect_equal(predict(proxy, x[1:6, ]) * sqrt(16 / 64), predict(map, x[1:6, ])[, columns],
                   tolerance = 1e-14)
      fit <- krr_fit(x, y, map, sigma = sigmas, folds = folds, n_threads = 1)
      options(old)
      proxy_scores <- vapply(sigmas, function(s) {
        min(krr_fit(x, y, kitchen:::rescale_bandwidth(proxy, s), folds = folds,
                    n_threads = 1)$path$cv)
      }, 0)
      expect_identical(fit$sigma_path$score, proxy_scores)
      expect_same_fit(fit, full_search(function(m) krr_fit(x, y, m, folds = folds, n_threads = 1),
                                       map, sigmas[sort(order(proxy_scores)[1:2])]))
    }
  }
  # Fewer than four blocks: no proxy.
  old <- options(kitchen.bandwidth_proxy = 2)
  on.exit(options(old))
  expect_null(kitchen:::bandwidth_proxy(fastfood(x, 8, sigma = 1, seed = 7)))
})
