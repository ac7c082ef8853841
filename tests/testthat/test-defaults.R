# The defaults of krr_fit() and the maps (issue "Defaults a user can
# trust"): lambda by 5-fold CV, a choice that ignores the units of y, a
# warning when a fit interpolates, new inputs clipped to the training range.

test_that("the default lambda is chosen by 5-fold CV", {
  set.seed(1)
  x <- matrix(runif(200 * 2), 200, 2)
  y <- x[, 1] + rnorm(200, sd = 0.1)
  fit <- krr_fit(x, y, rff(x, 64, seed = 1), n_threads = 1)
  expect_false(is.null(fit$path$cv))
  expect_identical(fit$n_folds, 5L)
  expect_identical(fit$lambda, fit$path$lambda[which.min(fit$path$cv)])
})

test_that("the lambda choice and the predictions do not depend on the units of y", {
  data <- mtcars
  for (features in c("rff", "fastfood", "rbin", "nystrom")) {
    for (lambda in list("cv", "gcv")) {
      if (features == "rbin" && identical(lambda, "gcv")) next
      fits <- lapply(c(1, 1e154, 1e-200, 2^-1000), function(s) {
        data$mpg <- mtcars$mpg * s
        set.seed(3)
        # GCV with 256 features interpolates mtcars, where its scores at the
        # smallest candidates tie to rounding (and a sanitizer build rounds
        # differently): 16 features keep its choice well posed.
        size <- if (features == "rbin") list(n_grids = 20) else
          if (features == "nystrom") list(n_centers = 16) else
          list(n_features = if (identical(lambda, "gcv")) 16 else 256)
        fit <- suppressWarnings(do.call(krr_fit, c(list(mpg ~ ., data, features = features,
                                                        lambda = lambda, n_threads = 1, seed = 2),
                                                   size)))
        list(fit = fit, prediction = predict(fit, data, n_threads = 1) / s)
      })
      # Conjugate gradients (rbin) stop at a relative residual of 1e-6.
      tolerance <- if (features == "rbin") 1e-5 else 1e-10
      for (other in fits[-1]) {
        expect_identical(other$fit$lambda, fits[[1]]$fit$lambda)
        expect_equal(other$prediction, fits[[1]]$prediction, tolerance = tolerance)
      }
      # A power of two divides exactly: the same bits.
      expect_identical(fits[[4]]$prediction, fits[[1]]$prediction)
    }
  }
})

test_that("chunked fits do not depend on the units of y either, chunk by chunk", {
  set.seed(4)
  x <- matrix(rnorm(600 * 3), 600)
  y0 <- sin(x[, 1]) + rnorm(600, sd = 0.1)
  y0[401:600] <- y0[401:600] * 37   # the last chunks set a larger scale than the first
  rows <- split(seq_len(600), rep(1:6, each = 100))
  for (map in list(rff(x, 64, sigma = 1, seed = 1), fastfood(x, 64, sigma = 1, seed = 1))) {
    fits <- lapply(c(1, 1e160, 1e-200, 2^-1000), function(s) {
      data <- chunked(lapply(rows, function(i) list(x = x[i, ], y = y0[i] * s)))
      gcv <- krr_fit(data, map, lambda = "gcv", n_threads = 1, verbose = FALSE)
      cv <- krr_fit(data, map, lambda = "cv", n_folds = 3, n_threads = 1, verbose = FALSE)
      list(gcv = gcv, cv = cv, prediction = cbind(predict(gcv, x, n_threads = 1),
                                                  predict(cv, x, n_threads = 1)) / s)
    })
    # as in memory (the same GCV choice; the sums, and the candidates made
    # from them, differ in order of addition only)
    in_memory <- krr_fit(x, y0, map, lambda = "gcv", n_threads = 1)
    expect_equal(fits[[1]]$gcv$lambda, in_memory$lambda, tolerance = 1e-12)
    expect_equal(fits[[1]]$prediction[, 1], predict(in_memory, x, n_threads = 1), tolerance = 1e-10)
    for (other in fits[-1]) {
      expect_identical(other$gcv$lambda, fits[[1]]$gcv$lambda)
      expect_identical(other$cv$lambda, fits[[1]]$cv$lambda)
      expect_equal(other$prediction, fits[[1]]$prediction, tolerance = 1e-10)
    }
    expect_identical(fits[[4]]$prediction, fits[[1]]$prediction)
  }
})

test_that("the per-column bandwidth search on chunked data takes y of any size", {
  set.seed(4)
  x <- matrix(rnorm(600 * 3), 600)
  y <- sin(x[, 1]) + rnorm(600, sd = 0.1)
  rows <- split(seq_len(600), rep(1:3, each = 200))
  map <- rff(x, 32, sigma = 1, seed = 1)
  fits <- lapply(c(1, 1e160), function(s) {
    data <- chunked(lapply(rows, function(i) list(x = x[i, ], y = y[i] * s)))
    set.seed(2)
    krr_fit(data, map, sigma = "ard", lambda = "gcv", n_threads = 1, verbose = FALSE)
  })
  expect_equal(fits[[2]]$map$kernel$sigma, fits[[1]]$map$kernel$sigma, tolerance = 1e-4)
  expect_equal(fits[[2]]$lambda, fits[[1]]$lambda, tolerance = 1e-4)
})

test_that("the default fit on mtcars does not interpolate and beats the mean", {
  fit <- expect_no_warning(krr_fit(mpg ~ ., mtcars[1:24, ], features = "rff", seed = 1,
                                   n_threads = 1))
  expect_gt(fit$map$n_features, nrow(mtcars))                 # more features than rows
  expect_lt(summary(fit)$df, 0.5 * 24)
  expect_gt(fit$training_rmse, 0.1)
  rmse <- function(p) sqrt(mean((p - mtcars$mpg[25:32])^2))
  expect_lt(rmse(predict(fit, mtcars[25:32, ])), rmse(mean(mtcars$mpg[1:24])))
})

test_that("a fit that interpolates its rows warns, one that does not is silent", {
  expect_warning(fit <- krr_fit(mpg ~ ., mtcars, features = "rff", seed = 1, n_threads = 1,
                                lambda = c(1e-12, 1e-11)),
                 "nearly interpolates its 32 training rows")
  expect_gt(summary(fit)$df, 0.9 * 32)
  expect_no_warning(krr_fit(mpg ~ ., mtcars, features = "rff", seed = 1, n_threads = 1,
                            lambda = c(1, 10)))
  # One given lambda has no path: its df is computed, on the dual path
  # (fewer rows than features) and on the primal one.
  old <- options(kitchen.dual = NULL)
  on.exit(options(old), add = TRUE)
  for (dual in c(TRUE, FALSE)) {
    options(kitchen.dual = dual)
    expect_warning(krr_fit(mpg ~ ., mtcars, features = "rff", n_features = 60, seed = 1,
                           n_threads = 1, lambda = 1e-12),
                   "nearly interpolates its 32 training rows")
    expect_no_warning(krr_fit(mpg ~ ., mtcars, features = "rff", n_features = 60, seed = 1,
                              n_threads = 1, lambda = 10))
  }
  # A noise-free response: CV itself prefers interpolating, and the warning
  # says CV chose it rather than advising CV.
  set.seed(2)
  x <- matrix(runif(40 * 2), 40, 2)
  y <- sin(3 * x[, 1]) + x[, 2]^2
  warning <- tryCatch(krr_fit(x, y, rff(x, 400, sigma = 1, seed = 1), n_threads = 1),
                      warning = function(w) conditionMessage(w))
  expect_match(warning, "nearly interpolates its 40 training rows")
  expect_match(warning, "5-fold CV chose this lambda, the smallest candidate")
  expect_no_match(warning, "lambda = \"cv\"", fixed = TRUE)
})

test_that("maps clip new inputs to the training range, and clip = FALSE does not", {
  set.seed(2)
  x <- matrix(runif(100 * 3), 100, 3)
  inside <- rbind(c(1, 0.5, 0), x[1, ])
  outside <- rbind(c(50, 0.5, -3), x[1, ])
  for (build in list(function(...) rff(x, 64, ...), function(...) fastfood(x, 64, ...),
                     function(...) rbin(x, 10, ...))) {
    boundary <- rbind(c(max(x[, 1]), 0.5, min(x[, 3])), x[1, ])
    map <- build(seed = 1)
    expect_equal(map$clip$low, apply(x, 2, min))
    expect_equal(map$clip$high, apply(x, 2, max))
    expect_identical(as.matrix(predict(map, outside, n_threads = 1)),
                     as.matrix(predict(map, boundary, n_threads = 1)))
    expect_identical(as.matrix(predict(map, x, n_threads = 1)),
                     as.matrix(predict(build(seed = 1, clip = FALSE), x, n_threads = 1)))
    unclipped <- build(seed = 1, clip = FALSE)
    expect_null(unclipped$clip)
    expect_false(isTRUE(all.equal(as.matrix(predict(unclipped, outside, n_threads = 1)),
                                  as.matrix(predict(unclipped, boundary, n_threads = 1)))))
  }
  # Through a fit, and on sparse data (whose zeros stay inside the range).
  y <- x[, 1]
  fit <- krr_fit(x, y, rff(x, 64, seed = 1), n_threads = 1)
  expect_identical(predict(fit, outside, n_threads = 1)[1],
                   predict(fit, rbind(c(max(x[, 1]), 0.5, min(x[, 3]))), n_threads = 1))
  sparse <- Matrix::Matrix(rbind(diag(3), diag(3) * 2), sparse = TRUE)
  map <- rff(sparse, 16, sigma = 1, seed = 1)
  expect_equal(map$clip$low, c(0, 0, 0))
  far <- Matrix::Matrix(rbind(c(9, 0, -1)), sparse = TRUE)
  expect_equal(predict(map, far, n_threads = 1), predict(map, rbind(c(2, 0, 0)), n_threads = 1))
  expect_error(rff(x, 16, clip = NA), "clip")
})

test_that("a map with a malformed clip range is refused", {
  x <- matrix(runif(30), 10, 3)
  map <- rff(x, 16, seed = 1)
  map$clip$low <- map$clip$high + 1
  expect_error(predict(map, x, n_threads = 1), "clip")
  map$clip <- list(low = 1)
  expect_error(predict(map, x, n_threads = 1), "clip")
})

test_that("chunked data default to CV with enough chunks, else to GCV with a message", {
  set.seed(4)
  x <- matrix(runif(300 * 2), 300, 2)
  y <- x[, 1] - x[, 2] + rnorm(300, sd = 0.1)
  map <- rff(x, 32, seed = 1)
  parts <- function(k) lapply(split(seq_len(300), rep_len(seq_len(k), 300)),
                              function(rows) list(x = x[rows, ], y = y[rows]))
  five <- krr_fit(chunked(parts(5)), map, n_threads = 1, verbose = FALSE)
  expect_false(is.null(five$path$cv))
  expect_identical(five$n_folds, 5L)
  rlang::reset_message_verbosity("kitchen_chunked_default_lambda")
  expect_message(three <- krr_fit(chunked(parts(3)), map, n_threads = 1, verbose = FALSE),
                 "GCV")
  expect_null(three$path$cv)
  expect_equal(three$coefficients,
               krr_fit(x[unlist(split(seq_len(300), rep_len(1:3, 300))), ],
                       y[unlist(split(seq_len(300), rep_len(1:3, 300)))], map,
                       lambda = "gcv", n_threads = 1)$coefficients, tolerance = 1e-10)
})

test_that("a map built by name is minmax-scaled, with the bandwidth of lowest held-out error", {
  set.seed(5)
  x <- matrix(runif(600 * 2), 600, 2)
  fit_for <- function(y, ...) {
    set.seed(6)
    krr_fit(x, y, features = "rff", n_features = 200, seed = 1, n_threads = 1, verbose = FALSE, ...)
  }
  median_sigma <- rff(x, 200, scale = "minmax", seed = 1)$kernel$sigma
  smooth <- fit_for(x[, 1] + x[, 2] + rnorm(600, sd = 0.05))
  wiggly <- fit_for(sin(12 * x[, 1]) + rnorm(600, sd = 0.05))
  expect_identical(smooth$map$scaling, "minmax")
  factors <- c(smooth = smooth$map$kernel$sigma, wiggly = wiggly$map$kernel$sigma) / median_sigma
  expect_true(all(log2(factors) %in% -3:3))                   # the median heuristic's, times 2^k
  expect_gt(factors[["smooth"]], factors[["wiggly"]])          # a slower response, a wider kernel
  # The search keeps the map's random draws: only the bandwidth differs.
  expect_equal(wiggly$map$projection * factors[["wiggly"]],
               rff(x, 200, scale = "minmax", seed = 1)$projection)
  # A given map, a kernel object or a given sigma keep their bandwidths.
  map <- rff(x, 200, seed = 1)
  expect_identical(krr_fit(x, x[, 1], map, n_threads = 1)$map$kernel$sigma, map$kernel$sigma)
  expect_identical(fit_for(x[, 1], kernel = kernel_gaussian(sigma = 0.3))$map$kernel$sigma, 0.3)
  expect_identical(fit_for(x[, 1], sigma = 0.7)$map$kernel$sigma, 0.7)
})

test_that("the bandwidth search's scores are ARD's held-out objective at equal bandwidths", {
  set.seed(7)
  x <- matrix(runif(300 * 3), 300, 3)
  y <- cbind(sin(4 * x[, 1]) + rnorm(300, sd = 0.1), x[, 2])
  weights <- runif(300, 0.5, 2)
  map <- rff(x, 64, scale = "minmax", seed = 1)
  problem <- list(data = kitchen:::ard_subsample(map, x, y, weights, 200),
                  w0 = kitchen:::spectral_sample(map$kernel, 3, 16),
                  backend = kitchen:::backend_settings(1L))
  log_lambdas <- c(-9, -3, 0)
  # 200 rows: halves of 100 rows, more than the 32 features (the features'
  # Gram matrix); 30 rows: halves of 15, at most half as many (the rows').
  for (n_rows in c(200, 30)) {
    problem$data <- kitchen:::ard_subsample(map, x, y, weights, n_rows)
    for (log_sigma in log(map$kernel$sigma) + c(-1, 0, 2)) {
      expected <- vapply(log_lambdas, function(l) {
        kitchen:::ard_objective(c(rep(log_sigma, 3), l), problem, gradient = FALSE)$value
      }, 0)
      expect_equal(kitchen:::isotropic_scores(problem, log_sigma, log_lambdas), expected,
                   tolerance = 1e-8)
    }
  }
})

test_that("a map built by name takes one seed from the stream: folds and bandwidth do not depend on its size", {
  set.seed(8)
  x <- matrix(runif(200 * 2), 200, 2)
  y <- sin(6 * x[, 1]) + rnorm(200, sd = 0.1)
  fit_and_next_draw <- function(D) {
    set.seed(9)
    fit <- krr_fit(x, y, features = "rff", n_features = D, n_threads = 1, verbose = FALSE)
    list(fit = fit, next_draw = runif(1))
  }
  small <- fit_and_next_draw(64)
  large <- fit_and_next_draw(256)
  expect_identical(small$next_draw, large$next_draw)          # the same draws from the stream
  expect_identical(small$fit$map$kernel$sigma, large$fit$map$kernel$sigma)
  # The same fit as with that seed given (folds drawn under it), which the
  # fit keeps: update() with it makes the fit again from the object alone.
  set.seed(9)
  seed <- sample.int(.Machine$integer.max, 1L)
  expect_identical(small$fit$seed, seed)
  given <- krr_fit(x, y, features = "rff", n_features = 64, seed = seed, n_threads = 1,
                   verbose = FALSE)
  expect_identical(given$coefficients, small$fit$coefficients)
  expect_identical(given$map$kernel$sigma, small$fit$map$kernel$sigma)
  set.seed(123)  # anywhere in the stream
  # (the call's n_features = D was fit_and_next_draw()'s)
  again <- update(small$fit, seed = small$fit$seed, n_features = 64)
  expect_identical(again$coefficients, small$fit$coefficients)
  expect_identical(again$lambda, small$fit$lambda)
  expect_false(identical(update(small$fit, n_features = 64)$seed, small$fit$seed))  # a new draw
  expect_match(capture.output(summary(small$fit)), sprintf("seed +: %d \\(of the map", seed),
               all = FALSE)
  expect_null(krr_fit(x, y, small$fit$map, lambda = 1, n_threads = 1)$seed)  # a given map
  # Classes (stratified folds) and per-column bandwidths (their own search)
  # too; with chunked data, whose folds are whole chunks, the seed is kept.
  classes <- factor(ifelse(y > 0, "up", "down"))
  set.seed(10)
  fit <- krr_fit(x, classes, features = "rff", n_features = 32, sigma = "ard", n_threads = 1,
                 verbose = FALSE)
  again <- update(fit, seed = fit$seed)
  expect_identical(again$map, fit$map)
  expect_identical(predict(again, x, type = "prob"), predict(fit, x, type = "prob"))
  chunks <- chunked(lapply(1:2, function(i) list(x = x[(1:100) + 100 * (i - 1), ],
                                                  y = y[(1:100) + 100 * (i - 1)])))
  set.seed(11)
  fit <- krr_fit(chunks, "rff", n_features = 32, lambda = "cv", n_folds = 2, n_threads = 1,
                 verbose = FALSE, parallel = "none")
  expect_identical(update(fit, seed = fit$seed)$coefficients, fit$coefficients)
})

test_that("the lambda grid follows the kernel, not the number of features beyond the rows", {
  # Once centred, Z'Z of 25 rows has at most 24 non-zero eigenvalues: the
  # grid's top is ten times their mean, whatever the number of features.
  values <- rep(c(0.01, 0.03), 500)                          # trace 20 over D = 1000
  expect_equal(kitchen:::default_lambdas(values, 25)[1], 10 * 20 / 24)
  expect_equal(kitchen:::default_lambdas(rep(values, 4) / 4, 25), kitchen:::default_lambdas(values, 25))
  # With more rows than features it is the mean diagonal entry, bit for bit.
  expect_identical(kitchen:::default_lambdas(values, 5000), mean(values) * 10^seq(1, -9, length.out = 50))
  # On mtcars' 24 rows, 4000 features choose about the penalty 1000 do.
  # With the grid below the mean over all D, CV chose each grid's top
  # candidate, a quarter of the penalty at 4000: seed 1's fit then nearly
  # interpolated (df 22.7 of 24) and warned.
  fit_lambda <- function(D, seed) {
    set.seed(seed)
    krr_fit(mpg ~ ., mtcars[1:24, ], features = "rff", n_features = D, n_threads = 1,
            verbose = FALSE)$lambda
  }
  for (seed in c(1, 5)) {
    ratio <- expect_no_warning(fit_lambda(4000, seed)) / fit_lambda(1000, seed)
    expect_gt(ratio, 0.6)
    expect_lt(ratio, 1.6)
  }
})

test_that("a seed given to a map built by name makes the whole fit reproducible", {
  set.seed(1)
  x <- matrix(runif(600), 300)
  y <- sin(6 * x[, 1]) + rnorm(300, sd = 0.1)
  set.seed(5)
  first <- krr_fit(x, y, n_features = 100, seed = 1, n_threads = 1, verbose = FALSE)
  stream <- .Random.seed
  second <- krr_fit(x, y, n_features = 100, seed = 1, n_threads = 1, verbose = FALSE)
  expect_identical(coef(first), coef(second))
  expect_identical(first$path, second$path)
  expect_identical(.Random.seed, stream)  # the user's stream is left alone
  # another seed, other folds and map
  expect_false(identical(coef(krr_fit(x, y, n_features = 100, seed = 2, n_threads = 1,
                                      verbose = FALSE)), coef(first)))
})
