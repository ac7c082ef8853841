# krr_fit() on random binning maps: matrix-free conjugate gradients.

binned_toy <- function(n = 400, seed = 1) {
  set.seed(seed)
  x <- matrix(runif(n * 2, -2, 2), n, 2)
  list(x = x, y = sin(2 * x[, 1]) + x[, 2]^2 / 2 + rnorm(n, sd = 0.1))
}

# Centred ridge solution from the dense feature matrix.
dense_ridge <- function(z, y, lambda) {
  zc <- scale(z, scale = FALSE)
  w <- solve(crossprod(zc) + diag(lambda, ncol(z)), crossprod(zc, y - mean(y)))
  list(w = drop(w), b = mean(y) - sum(colMeans(z) * w))
}

test_that("conjugate gradients match a direct dense solve of the ridge system", {
  toy <- binned_toy()
  map <- rbin(toy$x, n_grids = 30, sigma = 1, seed = 2)
  for (lambda in c(1, 0.05)) {
    fit <- krr_fit(toy$x, toy$y, map, lambda = lambda, tol = 1e-11, max_iter = 5000, n_threads = 1)
    z <- as.matrix(predict(map, toy$x))
    ref <- dense_ridge(z, toy$y, lambda)
    expect_true(fit$solver$converged)
    expect_equal(drop(fit$coefficients), ref$w, tolerance = 1e-7)
    expect_equal(fit$intercept, ref$b, tolerance = 1e-7)
    expect_equal(predict(fit, toy$x), drop(z %*% ref$w) + ref$b, tolerance = 1e-7)
  }
})

test_that("several right-hand sides in lockstep give each one's own solve, bit for bit", {
  toy <- binned_toy()
  map <- rbin(toy$x, n_grids = 30, sigma = 1, seed = 2)
  cols <- rbin_columns(map, map_input(map, toy$x), backend_settings(1L))
  value <- 1 / sqrt(map$n_grids)
  rows <- rep(c(1, 2, 0), length.out = nrow(toy$x))
  system <- binned_system(binned_ops(cols, value, map$n_features, backend_settings(2L)), rows,
                          value)
  # columns that stop at different iterations: a hard one, an easy one, a
  # zero right-hand side and one that starts at its solution's neighbour
  y <- cbind(toy$y, sign(toy$x[, 1]), 0, toy$x[, 2])
  b <- vapply(1:4, function(j) system$rhs(y[, j]), numeric(map$n_features))
  start <- matrix(0, map$n_features, 4)
  start[, 4] <- system$solve(b[, 4, drop = FALSE], 0.1, start[, 4, drop = FALSE], 1e-3, 1000)$x
  for (threads in 1:2) {
    together <- kitchen:::binned_cg_cpp(cols, rows, system$zbar, system$diagonal, b, start, 0.1,
                                        value, 1e-9, 1000, threads)
    alone <- lapply(1:4, function(j) {
      kitchen:::binned_cg_cpp(cols, rows, system$zbar, system$diagonal, b[, j, drop = FALSE],
                              start[, j, drop = FALSE], 0.1, value, 1e-9, 1000, threads)
    })
    expect_identical(together$x, do.call(cbind, lapply(alone, `[[`, "x")))
    expect_identical(together$iterations, vapply(alone, `[[`, 1L, "iterations"))
    expect_identical(together$residual, vapply(alone, `[[`, 1, "residual"))
    expect_gt(length(unique(together$iterations)), 2)
    expect_identical(together$iterations[3], 0L)
  }
  # one workspace through solves of other sizes and starts (a column with a
  # zero right-hand side after one that left its vectors non-zero): the
  # bits of solves on their own
  workspace <- kitchen:::binned_cg_workspace_cpp()
  for (j in list(1:4, 2, 4:1, c(3, 1), 1:4)) {
    for (threads in 1:2) {
      reused <- kitchen:::binned_cg_cpp(cols, rows, system$zbar, system$diagonal, b[, j, drop = FALSE],
                                        start[, j, drop = FALSE], 0.1, value, 1e-9, 1000, threads,
                                        workspace)
      expect_identical(reused, kitchen:::binned_cg_cpp(cols, rows, system$zbar, system$diagonal,
                                                       b[, j, drop = FALSE],
                                                       start[, j, drop = FALSE], 0.1, value, 1e-9,
                                                       1000, threads))
    }
  }
  kitchen:::binned_cg_workspace_free_cpp(workspace)
  # the right-hand sides of a matrix of responses in one pass: as one by one
  expect_identical(system$rhs(y), b)
  # binned_solve() groups 9 or more columns: the same as one by one
  many <- cbind(y, y + 1, toy$y^2)
  grouped <- binned_solve(system, many, 0.1, matrix(0, map$n_features, 9), 1e-8, 1000)
  for (j in c(1, 9)) {
    single <- binned_solve(system, many[, j, drop = FALSE], 0.1, matrix(0, map$n_features, 1),
                           1e-8, 1000)
    expect_identical(grouped$coefficients[, j], single$coefficients[, 1])
  }
})

test_that("a solve over many bins gives the same bits on one thread as on two", {
  # enough bins for several blocks of the solver's sums (binned_cg.hpp) on
  # each thread, for one right-hand side and for three
  toy <- binned_toy(n = 3000)
  map <- rbin(toy$x, n_grids = 40, sigma = 0.05, seed = 4)
  expect_gt(map$n_features, 4 * 4096)
  cols <- rbin_columns(map, map_input(map, toy$x), backend_settings(1L))
  value <- 1 / sqrt(map$n_grids)
  rows <- rep(c(1, 0.5, 2), length.out = nrow(toy$x))
  system <- binned_system(binned_ops(cols, value, map$n_features, backend_settings(1L)), rows,
                          value)
  y <- cbind(toy$y, sign(toy$x[, 1]), toy$x[, 2])
  b <- vapply(1:3, function(j) system$rhs(y[, j]), numeric(map$n_features))
  for (j in list(1, 1:3)) {
    solves <- lapply(1:2, function(threads) {
      kitchen:::binned_cg_cpp(cols, rows, system$zbar, system$diagonal, b[, j, drop = FALSE],
                              matrix(0, map$n_features, length(j)), 0.01, value, 1e-10, 500,
                              threads)
    })
    expect_gt(min(solves[[1]]$iterations), 5)
    expect_identical(solves[[1]], solves[[2]])
  }
})

test_that("the products Z v and Z'u equal the dense ones", {
  toy <- binned_toy(n = 200)
  map <- rbin(toy$x, n_grids = 9, sigma = 0.5, seed = 3, clip = FALSE)
  newx <- rbind(toy$x[1:50, ], c(40, 40))  # the last row hits unseen bins
  cols <- kitchen:::rbin_columns(map, newx, kitchen:::backend_settings(1L))
  z <- as.matrix(predict(map, newx))
  v <- rnorm(map$n_features)
  u <- rnorm(nrow(newx))
  for (threads in 1:2) {
    expect_equal(kitchen:::binned_times_cpp(cols, v, 1 / 3, threads), drop(z %*% v), tolerance = 1e-13)
    expect_equal(kitchen:::binned_crossprod_cpp(cols, u, map$n_features, 1 / 3, threads),
                 drop(crossprod(z, u)), tolerance = 1e-13)
    # several columns in one pass: each column's bits as alone
    columns <- unname(cbind(u, -2 * u, 0, rev(u)))
    expect_identical(kitchen:::binned_crossprod_cpp(cols, columns, map$n_features, 1 / 3, threads),
                     apply(columns, 2, function(column) {
                       kitchen:::binned_crossprod_cpp(cols, column, map$n_features, 1 / 3, threads)
                     }))
    expect_identical(dim(kitchen:::binned_crossprod_cpp(cols, columns[, 1, drop = FALSE],
                                                        map$n_features, 1 / 3, threads)),
                     c(as.integer(map$n_features), 1L))
  }
})

test_that("K-fold CV of binned fits equals explicit refits on the other folds", {
  toy <- binned_toy(n = 240, seed = 4)
  map <- rbin(toy$x, n_grids = 20, sigma = 1, seed = 5)
  folds <- rep(1:3, length.out = 240)
  lambdas <- c(1, 0.1)
  fit <- krr_fit(toy$x, toy$y, map, lambda = lambdas, folds = folds, tol = 1e-11,
                 max_iter = 5000, n_threads = 1)
  z <- as.matrix(predict(map, toy$x))
  expected <- vapply(lambdas, function(l) {
    sum(vapply(1:3, function(k) {
      train <- folds != k
      ref <- dense_ridge(z[train, ], toy$y[train], l)
      sum((toy$y[!train] - z[!train, ] %*% ref$w - ref$b)^2)
    }, 0)) / 240
  }, 0)
  # fold solves stop at a relative residual of 1e-4, hence the tolerance
  expect_equal(fit$path$cv, expected, tolerance = 5e-3)
  expect_identical(fit$lambda, lambdas[which.min(expected)])
  expect_identical(fit$n_folds, 3L)
})

test_that("a map named by features is searched as with sigma = \"auto\" from 2,000 rows on", {
  toy <- binned_toy(n = 2400, seed = 12)
  default <- krr_fit(toy$x, toy$y, "rbin", n_grids = 20, seed = 3, n_threads = 2, verbose = FALSE)
  auto <- krr_fit(toy$x, toy$y, "rbin", n_grids = 20, seed = 3, sigma = "auto", n_threads = 2,
                  verbose = FALSE)
  expect_false(is.null(default$sigma_path))
  expect_identical(default$map$kernel$sigma, auto$map$kernel$sigma)
  expect_identical(default$coefficients, auto$coefficients)
  median_sigma <- rbin(toy$x, 20, seed = 3)$kernel$sigma
  expect_lt(default$map$kernel$sigma, median_sigma)  # the median heuristic is too wide here
  # fewer rows (counting those of non-zero weight), a given lambda, the
  # logistic loss or a given map: the median heuristic's bandwidth
  keeps <- list(
    krr_fit(toy$x, toy$y, "rbin", n_grids = 20, seed = 3, n_threads = 2, verbose = FALSE,
            weights = rep(c(1, 0), 1200)),
    krr_fit(toy$x, toy$y, "rbin", n_grids = 20, seed = 3, lambda = 0.1, n_threads = 2,
            verbose = FALSE),
    krr_fit(toy$x, factor(toy$y > 0.5), "rbin", n_grids = 20, seed = 3, loss = "logistic",
            n_threads = 2, verbose = FALSE),
    krr_fit(toy$x, toy$y, rbin(toy$x, 20, seed = 3), n_threads = 2, verbose = FALSE))
  expect_identical(keeps[[1]]$map$kernel$sigma,
                   rbin(toy$x[c(TRUE, FALSE), ], 20, seed = 3)$kernel$sigma)  # its rows'
  for (fit in keeps[-1]) expect_identical(fit$map$kernel$sigma, median_sigma)
  for (fit in keeps) expect_null(fit$sigma_path)
  # chunked data count their rows first, then search as with "auto"
  chunks <- chunked(unname(lapply(split(seq_len(2400), rep(1:6, each = 400)),
                                  function(r) list(x = toy$x[r, ], y = toy$y[r]))))
  from_chunks <- krr_fit(chunks, "rbin", n_grids = 20, seed = 3, n_threads = 2, verbose = FALSE)
  expect_false(is.null(from_chunks$sigma_path))
  expect_identical(from_chunks$coefficients,
                   krr_fit(chunks, "rbin", n_grids = 20, seed = 3, sigma = "auto",
                           n_threads = 2, verbose = FALSE)$coefficients)
  few <- chunked(unname(lapply(split(seq_len(1800), rep(1:6, each = 300)),
                               function(r) list(x = toy$x[r, ], y = toy$y[r]))))
  expect_null(krr_fit(few, "rbin", n_grids = 20, seed = 3, n_threads = 2,
                      verbose = FALSE)$sigma_path)
})

test_that("the default lambda is chosen by CV, and fits classify", {
  toy <- binned_toy(n = 500, seed = 6)
  fit <- krr_fit(toy$x, toy$y, "rbin", n_grids = 40, seed = 7, n_threads = 2)
  expect_s3_class(fit$map, "kitchen_rbin")
  expect_true(nrow(fit$path) >= 4 && nrow(fit$path) <= 13)
  expect_true(all(is.finite(fit$path$cv)))
  expect_lt(sqrt(mean((predict(fit, toy$x) - toy$y)^2)), 0.3)
  expect_output(print(fit), "5-fold CV over")
  shown <- capture.output(print(summary(fit)))
  expect_true(any(grepl("conjugate gradients", shown)))
  expect_true(any(grepl("CV mean squared error", shown)))
  expect_false(any(grepl("GCV score|effective df", shown)))  # not computed by CG fits
  class <- factor(ifelse(toy$x[, 1] > 0, "right", "left"))
  fc <- krr_fit(toy$x, class, rbin(toy$x, 40, sigma = 1, seed = 8), lambda = 0.01)
  expect_gt(mean(predict(fc, toy$x, type = "class") == class), 0.97)
  expect_equal(fc$coefficients[, 1], -fc$coefficients[, 2])
})

test_that("binned fits do not depend on threads; they survive saveRDS", {
  toy <- binned_toy(n = 300, seed = 9)
  map <- rbin(toy$x, n_grids = 25, sigma = 1, seed = 10)
  a <- krr_fit(toy$x, toy$y, map, lambda = 0.1, n_threads = 1)
  b <- krr_fit(toy$x, toy$y, map, lambda = 0.1, n_threads = 2)
  expect_equal(a$coefficients, b$coefficients, tolerance = 1e-10)
  path <- tempfile(fileext = ".rds")
  saveRDS(a, path)
  expect_identical(predict(readRDS(path), toy$x), predict(a, toy$x))
})

test_that("non-convergence warns; bad solver arguments are refused", {
  toy <- binned_toy(n = 200, seed = 11)
  map <- rbin(toy$x, n_grids = 20, sigma = 1, seed = 12)
  expect_warning(fit <- krr_fit(toy$x, toy$y, map, lambda = 1e-6, max_iter = 2),
                 "did not reach")
  expect_false(fit$solver$converged)
  expect_output(print(summary(fit)), "NOT converged")
  expect_error(krr_fit(toy$x, toy$y, map, lambda = 1, tol = 0), "tol")
  expect_error(krr_fit(toy$x, toy$y, map, lambda = 1, max_iter = 0), "max_iter")
  expect_error(krr_fit(toy$x, toy$y, map, lambda = 1, sigma = c(1, 2)), "one number")
  expect_error(krr_fit(toy$x, toy$y, map, sigma = c(1, -2)), "positive")
  expect_error(krr_fit(cbind(toy$x, 1), toy$y, map, lambda = 1), "2 columns")
  broken <- map
  broken$n_bins <- NULL
  expect_error(krr_fit(toy$x, toy$y, broken, lambda = 1), "not a valid")
})

test_that("one bandwidth with one lambda rescales the map and fits it (no CV to screen on)", {
  toy <- binned_toy(n = 300, seed = 15)
  map <- rbin(toy$x, n_grids = 20, sigma = 1, seed = 16, scale = "standard", stratified = FALSE)
  direct <- rbin(toy$x, n_grids = 20, sigma = 0.5, seed = 16, scale = "standard",
                 stratified = FALSE)
  fit <- krr_fit(toy$x, toy$y, map, sigma = 0.5, lambda = 0.1, n_threads = 1)
  expect_identical(fit$map$kernel$sigma, 0.5)
  expect_identical(fit$lambda, 0.1)
  expect_null(fit$sigma_path)
  reference <- krr_fit(toy$x, toy$y, direct, lambda = 0.1, n_threads = 1)
  expect_equal(predict(fit, toy$x), predict(reference, toy$x), tolerance = 1e-10)
  # classes too (the same search, scored by misclassification)
  classes <- factor(toy$y > median(toy$y))
  expect_identical(predict(krr_fit(toy$x, classes, map, sigma = 0.5, lambda = 0.1), toy$x),
                   predict(krr_fit(toy$x, classes, direct, lambda = 0.1), toy$x))
})

test_that("sigma candidates rebuild the bins; the chosen one equals a fit of that map", {
  toy <- binned_toy(n = 400, seed = 13)
  # standard scaling: the bandwidths below were set for it, and the cases
  # below (fold 1 telling the lambdas apart) for these independent draws
  map <- rbin(toy$x, n_grids = 20, sigma = 1, seed = 14, scale = "standard", stratified = FALSE)
  folds <- rep(1:4, length.out = 400)
  # tol 1e-6 (not the rbin default 1e-5): the coefficients are compared below
  fit <- krr_fit(toy$x, toy$y, map, sigma = c(0.25, 1, 8), lambda = c(1, 0.1, 0.01), folds = folds,
                 tol = 1e-6,
                 n_threads = 1)
  expect_identical(fit$sigma_path$sigma, c(0.25, 1, 8))
  chosen <- fit$map$kernel$sigma
  expect_identical(chosen, fit$sigma_path$sigma[which.min(fit$sigma_path$score)])
  # The chosen map is the original with its pitches and shifts scaled, and
  # its bins those of a map built with that bandwidth and the same draws.
  expect_equal(fit$map$pitch, map$pitch * chosen, tolerance = 1e-15)
  direct <- rbin(toy$x, n_grids = 20, sigma = chosen, seed = 14, scale = "standard",
                 stratified = FALSE)
  expect_equal(fit$map$pitch, direct$pitch, tolerance = 1e-14)
  expect_identical(fit$map$n_bins, direct$n_bins)
  # Screening scores: each candidate's held-out error of fold 1, over lambda.
  z <- as.matrix(predict(fit$map, toy$x))
  train <- folds != 1
  score <- min(vapply(c(1, 0.1, 0.01), function(l) {
    ref <- dense_ridge(z[train, ], toy$y[train], l)
    mean((toy$y[!train] - z[!train, ] %*% ref$w - ref$b)^2)
  }, 0))
  expect_equal(min(fit$sigma_path$score), score, tolerance = 1e-2)
  # Lambda at the chosen bandwidth (binned_lambda_choice()): fold 1 tells
  # the three apart here (each neighbour is over two standard errors worse),
  # so no other fold is solved: path is fold 1's, and the fit that of the
  # chosen map at its best lambda (up to CG's tolerance: another start).
  expect_identical(fit$path$lambda, c(1, 0.1, 0.01))
  expect_identical(min(fit$path$cv), min(fit$sigma_path$score))
  expect_identical(fit$lambda, fit$path$lambda[which.min(fit$path$cv)])
  again <- krr_fit(toy$x, toy$y, fit$map, lambda = fit$lambda, tol = 1e-6, n_threads = 1)
  expect_equal(fit$coefficients, again$coefficients, tolerance = 1e-4)
  # A too narrow bandwidth loses to the others.
  expect_false(chosen == 0.25)
  # "auto": halvings (or doublings) of the map's bandwidth until the score
  # rises; the chosen one does better than both its neighbours (no finer
  # step: every candidate is a power of two times the start).
  for (start in c(1, 16)) {
    auto <- krr_fit(toy$x, toy$y, rbin(toy$x, 20, sigma = start, seed = 14), sigma = "auto",
                    folds = folds, n_threads = 1)
    path <- auto$sigma_path
    expect_true(all(log2(path$sigma / start) %% 1 == 0))
    expect_true(start %in% path$sigma)
    best <- which.min(path$score)
    expect_identical(auto$map$kernel$sigma, path$sigma[best])
    expect_true(best > 1 && best < nrow(path))
    expect_equal(path$sigma[best + c(-1, 1)], path$sigma[best] * c(0.5, 2))
    expect_lt(sqrt(mean((predict(auto, toy$x) - toy$y)^2)), 0.3)
  }
  expect_true(nrow(path) >= 4)  # from 16, down to 1 or below
})

test_that("class labels score lambda by held-out misclassification, ties by squared error", {
  set.seed(2)
  n <- 300
  x <- matrix(runif(n * 2, -2, 2), n, 2)
  cls <- factor(ifelse(runif(n) < plogis(3 * (x[, 1] + sin(2 * x[, 2]))), "a", "b"))
  # (independent draws: the two rules differ on this map, see below)
  map <- rbin(x, 20, sigma = 1, seed = 2, stratified = FALSE)
  folds <- rep(1:3, length.out = n)
  lambdas <- c(3, 1, 0.3, 0.1, 0.03, 0.01)
  fc <- krr_fit(x, cls, map, lambda = lambdas, folds = folds, n_threads = 1)
  # the same fits on the +1/-1 codes as numbers are scored by squared error
  codes <- ifelse(cls == "a", 1, -1)
  fm <- krr_fit(x, cbind(a = codes, b = -codes), map, lambda = lambdas, folds = folds,
                n_threads = 1)
  # (the paths stop at different lambdas: each where its own score rises)
  reached <- seq_len(min(nrow(fc$path), nrow(fm$path)))
  expect_equal(fc$path$lambda[reached], fm$path$lambda[reached])
  expect_equal(fc$path$cv_mse[reached], fm$path$cv[reached])
  # cv: the share of held-out rows misclassified, as explicit refits say
  z <- as.matrix(predict(map, x))
  expected <- vapply(fc$path$lambda, function(l) {
    mean(unlist(lapply(1:3, function(k) {
      train <- folds != k
      ref <- dense_ridge(z[train, ], codes[train], l)
      (z[!train, ] %*% ref$w + ref$b > 0) != (codes[!train] > 0)
    })))
  }, 0)
  expect_lte(max(abs(fc$path$cv - expected)), 2 / n)  # CG stopped early: a row may flip
  expect_equal(fc$path$cv * n, round(fc$path$cv * n))
  # here the rules differ: squared error picks 1, misclassification 3
  expect_identical(fm$lambda, 1)
  expect_identical(fc$lambda, 3)
  expect_lt(fc$path$cv[fc$path$lambda == 3], fc$path$cv[fc$path$lambda == 1])
  # equal misclassification: the lower squared error wins
  set.seed(8)
  x <- matrix(runif(n * 2, -2, 2), n, 2)
  cls <- factor(ifelse(runif(n) < plogis(3 * (x[, 1] + sin(2 * x[, 2]))), "a", "b"))
  fc <- krr_fit(x, cls, rbin(x, 20, sigma = 1, seed = 8, stratified = FALSE), lambda = lambdas,
                folds = folds,
                n_threads = 1)
  best <- fc$path$cv == min(fc$path$cv)
  expect_gt(sum(best), 1)
  expect_identical(fc$lambda, fc$path$lambda[best][which.min(fc$path$cv_mse[best])])
})

test_that("lambdas fold 1 cannot tell from its best get K-fold CV at the chosen bandwidth", {
  toy <- binned_toy(n = 400, seed = 17)
  map <- rbin(toy$x, n_grids = 20, sigma = 1, seed = 18)
  folds <- rep(1:4, length.out = 400)
  # 0.1 and 0.098 score within noise of each other on fold 1; 10 does not.
  lambdas <- c(10, 0.1, 0.098)
  fit <- krr_fit(toy$x, toy$y, map, sigma = c(1, 8), lambda = lambdas, folds = folds, tol = 1e-6,
                 n_threads = 1)
  expect_identical(fit$map$kernel$sigma, 1)
  expect_identical(fit$path$lambda, c(0.1, 0.098))
  # The K-fold scores of those two, as a fit of the chosen map over them
  # (fold solves stop at a relative residual of 1e-3 or after 50 iterations,
  # here from fold 1's solution instead of zeros: near, not equal), and
  # the fit that of the chosen map at the better one.
  again <- krr_fit(toy$x, toy$y, fit$map, lambda = c(0.1, 0.098), folds = folds, n_threads = 1)
  expect_equal(fit$path$cv, again$path$cv, tolerance = 2e-2)
  expect_identical(fit$lambda, fit$path$lambda[which.min(fit$path$cv)])
  direct <- krr_fit(toy$x, toy$y, fit$map, lambda = fit$lambda, tol = 1e-6, n_threads = 1)
  expect_equal(fit$coefficients, direct$coefficients, tolerance = 1e-4)
})

test_that("tol defaults to 1e-5 for least squares on rbin maps, 1e-6 otherwise", {
  toy <- binned_toy(n = 300, seed = 19)
  map <- rbin(toy$x, n_grids = 20, sigma = 1, seed = 20)
  expect_identical(krr_fit(toy$x, toy$y, map, lambda = 0.1, n_threads = 1)$solver$tol, 1e-5)
  expect_lte(krr_fit(toy$x, toy$y, map, lambda = 0.1, n_threads = 1)$solver$residual, 1e-5)
  expect_identical(krr_fit(toy$x, toy$y, map, lambda = 0.1, tol = 1e-7, n_threads = 1)$solver$tol,
                   1e-7)
  expect_error(krr_fit(toy$x, toy$y, map, lambda = 0.1, tol = -1), "tol")
})

test_that("hashed maps take sigma candidates too", {
  toy <- binned_toy(n = 300, seed = 15)
  map <- rbin(2, n_grids = 20, sigma = 1, n_buckets = 64, seed = 16)
  fit <- krr_fit(toy$x, toy$y, map, sigma = c(0.5, 2), n_threads = 1)
  expect_identical(fit$map$n_features, map$n_features)
  expect_true(fit$map$kernel$sigma %in% c(0.5, 2))
})
