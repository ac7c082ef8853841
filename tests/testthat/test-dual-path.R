# The dual path (R/krr_dual.R) against the primal one, forced by
# options(kitchen.dual): with fewer rows than features both solve the same
# ridge problem, so every figure must agree, except where the primal's D x D
# arithmetic is itself at rounding level (the smallest lambdas of the path,
# where its D - n zero eigenvalues and its RSS cancel to noise); there the
# dual is checked against an exact computation from the SVD of Z.

dual_data <- function(n = 60, sd = 0.1, seed = 3) {
  set.seed(seed)
  x <- matrix(runif(n * 4, -2, 2), n, 4, dimnames = list(NULL, paste0("v", 1:4)))
  y <- sin(x[, 1]) + x[, 2]^2 / 3 + rnorm(n, sd = sd)
  list(x = x, y = y, w = runif(n, 0.2, 3),
       y2 = cbind(a = y, b = x[, 3] + rnorm(n, sd = 0.3)),
       classes = factor(ifelse(y > 0.8, "hi", ifelse(y < 0, "lo", "mid"))))
}

# The same fit on both paths (R's stream reset before each).
both_paths <- function(fit_fn) {
  old <- options(kitchen.dual = FALSE)
  on.exit(options(old))
  set.seed(11)
  primal <- fit_fn()
  options(kitchen.dual = TRUE)
  set.seed(11)
  list(primal = primal, dual = fit_fn())
}

relative_gap <- function(a, b) max(abs(a - b)) / max(abs(a))

# Coefficients, intercepts, fitted values, the chosen lambda and sigma, and
# the path's scores on lambdas at least `floor` times the largest candidate.
expect_same_fit <- function(fits, tolerance = 1e-8, floor = 1e-4) {
  p <- fits$primal
  d <- fits$dual
  # the default candidates are the mean centred diagonal of Z'Z times powers
  # of ten, that mean summed in another order: equal to rounding; the same
  # candidate must be chosen
  expect_equal(d$path$lambda, p$path$lambda, tolerance = 1e-13)
  expect_identical(which(d$path$lambda == d$lambda), which(p$path$lambda == p$lambda))
  expect_equal(d$map$kernel$sigma, p$map$kernel$sigma, tolerance = 1e-15)
  expect_lt(relative_gap(p$coefficients, d$coefficients), tolerance)
  expect_lt(relative_gap(p$intercept, d$intercept), tolerance)
  expect_lt(relative_gap(p$fitted.values, d$fitted.values), tolerance)
  expect_equal(dim(d$coefficients), dim(p$coefficients))
  expect_identical(dimnames(d$fitted.values), dimnames(p$fitted.values))
  expect_identical(names(d$path), names(p$path))
  kept <- p$path$lambda >= floor * max(p$path$lambda)
  for (score in intersect(c("df", "gcv", "cv"), names(p$path))) {
    if (all(is.na(p$path[[score]]))) {
      expect_true(all(is.na(d$path[[score]])))
    } else {
      expect_lt(max(abs(p$path[[score]] - d$path[[score]])[kept] / abs(p$path[[score]])[kept]),
                tolerance)
    }
  }
  expect_lt(abs(p$training_rmse - d$training_rmse)[1] / p$training_rmse[1], 1e-6)
}

test_that("lambda by CV: the dual path gives the primal's fit (rff, fastfood, Nystroem)", {
  s <- dual_data()
  maps <- list(rff(s$x, 400, sigma = 1.5, seed = 1),
               fastfood(s$x, 512, sigma = 1.5, seed = 2),
               nystrom(s$x, n_centers = 50, sigma = 1.5, seed = 3))
  for (map in maps) {
    expect_same_fit(both_paths(function() krr_fit(s$x, s$y, map, lambda = "cv", n_threads = 2)))
  }
})

test_that("sparse input agrees", {
  set.seed(1)
  x <- Matrix::rsparsematrix(40, 6, 0.3)
  y <- rnorm(40)
  for (map in list(rff(x, 200, sigma = 1, seed = 1), fastfood(x, 256, sigma = 1, seed = 1))) {
    expect_same_fit(both_paths(function() krr_fit(x, y, map, n_threads = 2)))
  }
})

test_that("weights, several responses, a fixed lambda and a vector of candidates agree", {
  s <- dual_data()
  map <- rff(s$x, 400, sigma = 1.5, seed = 1)
  expect_same_fit(both_paths(function() krr_fit(s$x, s$y, map, lambda = "cv", weights = s$w,
                                                n_threads = 2)))
  expect_same_fit(both_paths(function() krr_fit(s$x, s$y2, map, lambda = "cv", n_threads = 2)))
  expect_same_fit(both_paths(function() krr_fit(s$x, s$y, map, lambda = 0.01, n_threads = 2)))
  expect_same_fit(both_paths(function() krr_fit(s$x, s$y, map, lambda = 10^(-1:2),
                                                weights = s$w, n_threads = 2)), floor = 0)
  # GCV where neither path reaches the rounding end: the same choice.
  fits <- both_paths(function() krr_fit(s$x, s$y, map, lambda = 10^(-3:1), n_threads = 2))
  expect_same_fit(fits, floor = 0)
  expect_gt(fits$dual$lambda, 1e-3)
})

test_that("classification with calibrated probabilities agrees", {
  s <- dual_data()
  map <- rff(s$x, 400, sigma = 1.5, seed = 1)
  for (lambda in list("cv", 10^(-2:1))) {
    fits <- both_paths(function() krr_fit(s$x, s$classes, map, lambda = lambda, weights = s$w,
                                          n_threads = 2))
    expect_same_fit(fits, floor = if (identical(lambda, "cv")) 1e-4 else 0)
    expect_lt(relative_gap(fits$primal$calibration, fits$dual$calibration), 1e-6)
    new_x <- s$x[1:10, ] + 0.1
    expect_lt(max(abs(predict(fits$primal, new_x, type = "prob") -
                        predict(fits$dual, new_x, type = "prob"))), 1e-8)
    expect_identical(predict(fits$primal, new_x, type = "class"),
                     predict(fits$dual, new_x, type = "class"))
  }
})

test_that("bandwidth candidates (screened CV) and every default agree", {
  s <- dual_data()
  map <- rff(s$x, 400, sigma = 1.5, seed = 1)
  fits <- both_paths(function() krr_fit(s$x, s$y, map, sigma = "auto", lambda = "cv", n_threads = 2))
  expect_same_fit(fits)
  expect_identical(fits$dual$sigma_path$sigma, fits$primal$sigma_path$sigma)
  # Each candidate's fold-1 score; a candidate whose fold-1 minimum is among
  # the smallest lambdas (where the primal's reductions are at rounding
  # level) may list another of those lambdas.
  expect_lt(relative_gap(fits$primal$sigma_path$score, fits$dual$sigma_path$score), 1e-6)
  fits <- both_paths(function() krr_fit(mpg ~ ., mtcars, n_features = 300, n_threads = 2))
  expect_same_fit(fits)
  fits <- both_paths(function() krr_fit(Species ~ ., iris[c(1:20, 51:70, 101:120), ],
                                        features = "fastfood", n_features = 256, n_threads = 2))
  expect_same_fit(fits)
  expect_lt(relative_gap(fits$primal$calibration, fits$dual$calibration), 1e-6)
})

test_that("the dual GCV path is the exact one, computed from the SVD of Z", {
  s <- dual_data(sd = 0.5)
  map <- rff(s$x, 400, sigma = 1.5, seed = 1)
  old <- options(kitchen.dual = TRUE)
  on.exit(options(old))
  fit <- suppressWarnings(krr_fit(s$x, s$y, map, lambda = "gcv", n_threads = 2))
  z <- predict(map, s$x)
  z <- z - rep(colMeans(z), each = nrow(z))
  y_scale <- 2^floor(log2(max(abs(s$y))))
  yc <- (s$y - mean(s$y)) / y_scale
  decomposition <- svd(z)
  e <- decomposition$d^2
  e <- e[e > max(e) * 1e-12]
  u <- decomposition$u[, seq_along(e)]
  c <- drop(crossprod(u, yc))
  rest <- sum(yc^2) - sum(c^2)   # the part of y no feature reaches
  n <- nrow(z)
  df <- vapply(fit$path$lambda, function(l) 1 + sum(e / (e + l)), 0)
  rss <- vapply(fit$path$lambda, function(l) sum((l * c / (e + l))^2) + rest, 0)
  gcv <- n * rss / (n - df)^2 * y_scale^2
  expect_lt(max(abs(fit$path$df - df) / df), 1e-8)
  kept <- fit$path$lambda >= 1e-6 * max(fit$path$lambda)  # below, rss is at rounding level
  expect_lt(max(abs(fit$path$gcv - gcv)[kept] / gcv[kept]), 1e-8)
  expect_identical(fit$lambda, fit$path$lambda[which.min(gcv)])
  expect_lt(fit$path$df[fit$path$lambda == fit$lambda], 0.9 * n)  # it does not interpolate
})

test_that("tiny lambdas: the interpolating fit is computed, and the warning still fires", {
  s <- dual_data(n = 30)
  map <- rff(s$x, 400, sigma = 1.5, seed = 1)
  old <- options(kitchen.dual = TRUE)
  on.exit(options(old))
  # one given lambda warns too (its df computed from the row Gram's eigenvalues)
  expect_warning(fit <- krr_fit(s$x, s$y, map, lambda = 1e-12, n_threads = 2), "nearly interpolates")
  expect_true(all(is.finite(fit$coefficients)))
  expect_lt(max(abs(fit$fitted.values - s$y)), 1e-6)  # the minimum-norm interpolant
  expect_warning(krr_fit(s$x, s$y, map, lambda = c(1e-12, 1e-10), n_threads = 2),
                 "nearly interpolates")
  # lambda = 0 among the candidates scores NaN, as on the primal path
  fit <- suppressWarnings(krr_fit(s$x, s$y, map, lambda = c(0, 1e-3, 1e-2), n_threads = 2))
  expect_true(is.nan(fit$path$gcv[1]))
  expect_gt(fit$lambda, 0)
})

test_that("constant features give the intercept-only fit on both paths", {
  x <- matrix(1, 12, 2)
  y <- c(1:12) / 3
  map <- rff(matrix(runif(24), 12, 2), 100, sigma = 1, seed = 1)
  fits <- both_paths(function() krr_fit(x, y, map, lambda = "cv", folds = rep(1:3, 4),
                                        n_threads = 2))
  expect_equal(fits$dual$coefficients, fits$primal$coefficients)
  expect_equal(fits$dual$intercept, fits$primal$intercept)
  expect_equal(fits$dual$path, fits$primal$path)
})

test_that("the rule: auto takes the dual path at 3n <= D, for dense maps only", {
  x <- matrix(runif(200), 100, 2)
  expect_true(kitchen:::dual_path_chosen(rff(x, 300, sigma = 1), 100, "direct"))
  expect_false(kitchen:::dual_path_chosen(rff(x, 298, sigma = 1), 100, "direct"))
  expect_true(kitchen:::dual_path_chosen(rff(x, 8000, sigma = 1), 1000, "direct"))
  expect_true(kitchen:::dual_path_chosen(rff(x, 8000, sigma = 1), 2000, "direct"))
  expect_false(kitchen:::dual_path_chosen(rff(x, 8000, sigma = 1), 2667, "direct"))
  # with R's eigen() (uninterruptible) for the eigendecompositions: at most 1000 rows
  lapack <- options(kitchen.tridiagonal = "lapack")
  expect_true(kitchen:::dual_path_chosen(rff(x, 8000, sigma = 1), 1000, "direct"))
  expect_false(kitchen:::dual_path_chosen(rff(x, 8000, sigma = 1), 1001, "direct"))
  options(lapack)
  expect_false(kitchen:::dual_path_chosen(rbin(x, 50, sigma = 1), 10, "direct"))
  expect_false(kitchen:::dual_path_chosen(rff(x, 400, sigma = 1), 100, "falkon"))
  old <- options(kitchen.dual = FALSE)
  on.exit(options(old))
  expect_false(kitchen:::dual_path_chosen(rff(x, 4000, sigma = 1), 10, "direct"))
  options(kitchen.dual = TRUE)
  expect_true(kitchen:::dual_path_chosen(rff(x, 40, sigma = 1), 100, "direct"))
  options(kitchen.dual = "yes")
  expect_error(krr_fit(x, x[, 1], rff(x, 40, sigma = 1), lambda = "cv"), "kitchen.dual")
})

test_that("a dual fit predicts, summarises and survives saveRDS() as a primal one", {
  s <- dual_data()
  fit <- krr_fit(s$x, s$y, rff(s$x, 400, sigma = 1.5, seed = 1), n_threads = 2)
  path <- tempfile(fileext = ".rds")
  saveRDS(fit, path)
  again <- readRDS(path)
  expect_identical(predict(again, s$x[1:5, ]), predict(fit, s$x[1:5, ]))
  expect_output(print(summary(fit)))
})

test_that("summary() names the path that solved the fit", {
  set.seed(1)
  x <- matrix(rnorm(60 * 3), 60)
  y <- x[, 1] + rnorm(60)
  old <- options(kitchen.dual = NULL)
  on.exit(options(old))
  dual <- paste(utils::capture.output(print(summary(krr_fit(x, y, rff(x, 200, sigma = 1, seed = 1),
                                                              lambda = 1, n_threads = 1)))),
                collapse = "\n")
  expect_match(dual, "dual\\s+path: fewer rows than features")  # (wrapped to the width)
  options(kitchen.dual = FALSE)
  primal <- paste(utils::capture.output(print(summary(krr_fit(x, y, rff(x, 200, sigma = 1, seed = 1),
                                                                lambda = 1, n_threads = 1)))),
                  collapse = "\n")
  expect_match(primal, "Cholesky of Z'Z")
  expect_no_match(primal, "dual path")
})

test_that("GCV on the primal path with more features than rows leaves interpolating candidates unscored", {
  # Where the fit leaves less than half a residual degree of freedom, the
  # primal RSS cancels and the zero eigenvalues are noise: a score of 0
  # there chose lambda = 1e-9 (the dual path, exact, chooses a smooth fit).
  set.seed(10)
  n <- 200
  x <- matrix(rnorm(n * 5), n, 5)
  y <- sin(x[, 1]) + rnorm(n, sd = 0.3)
  map <- rff(x, 400, sigma = 1, seed = 1)  # D = 2n: the primal path by default
  fit_on <- function(dual) {
    old <- options(kitchen.dual = dual)
    on.exit(options(old))
    krr_fit(x, y, map, lambda = "gcv", n_threads = 1, verbose = FALSE)
  }
  primal <- fit_on(FALSE)
  dual <- fit_on(TRUE)
  expect_identical(primal$lambda, dual$lambda)
  scored <- !is.na(primal$path$gcv)
  expect_true(all(n - primal$path$df[!scored] < 0.5))
  expect_true(all(n - primal$path$df[scored] >= 0.5))
  expect_equal(primal$path$gcv[scored], dual$path$gcv[scored], tolerance = 1e-6)
  expect_lt(max(primal$path$df[primal$path$lambda == primal$lambda]), n - 1)
  # The bandwidth search scores each candidate by its scored lambdas (an
  # unscored one made the whole candidate NaN: the search skipped the best).
  search_on <- function(dual) {
    old <- options(kitchen.dual = dual)
    on.exit(options(old))
    krr_fit(x, y, rff(x, 400, seed = 1), sigma = "auto", lambda = "gcv", n_threads = 1,
            verbose = FALSE)
  }
  searched <- search_on(FALSE)
  expect_false(anyNA(searched$sigma_path$score))
  expect_equal(searched$sigma_path, search_on(TRUE)$sigma_path, tolerance = 1e-6,
               ignore_attr = "paths")  # (their unscored candidates)
})

test_that("the dual path is not refused for a Z'Z it never forms (46,342 features, 30 rows)", {
  s <- dual_data(n = 30)
  map <- rff(s$x, 46342, sigma = 1.5, seed = 1)  # Z'Z: 2^31 + 3,622 entries
  fit <- krr_fit(s$x, s$y, map, lambda = 0.05, n_threads = 2)
  z <- predict(map, s$x)
  z <- z - rep(colMeans(z), each = nrow(z))
  k <- tcrossprod(z)
  expected <- mean(s$y) + drop(k %*% solve(k + diag(0.05, 30), s$y - mean(s$y)))
  expect_equal(unname(fitted(fit)), expected, tolerance = 1e-8)
  # the logistic loss's dual path too
  logistic <- krr_fit(s$x, s$classes, map, loss = "logistic", lambda = 0.05, n_threads = 2)
  expect_equal(dim(predict(logistic, s$x, type = "prob")), c(30L, 3L))
  # what the dual path holds is checked instead: the n x D features
  expect_error(kitchen:::check_gram_size(8e5, "rff", rows = 3000),
               "`n_features` is 8e+05: the 3,000 rows' features would need", fixed = TRUE,
               class = "kitchen_error_argument")
  expect_silent(kitchen:::check_gram_size(8e5, "rff", rows = 2000))
})
