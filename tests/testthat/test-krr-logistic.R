# Kernel logistic regression (loss = "logistic"): the Newton passes reach
# the minimum of sum w * -log p[y] + lambda ||beta||^2 (checked against a
# direct minimisation on the explicit feature matrix), probabilities and
# links are consistent, weights act as replicated rows, lambda by CV.

logistic_toy <- function(n = 160, classes = 2, seed = 3) {
  set.seed(seed)
  x <- matrix(runif(n * 2, -2, 2), n, 2)
  score <- cbind(sin(2 * x[, 1]), x[, 2], -x[, 1] * x[, 2])[, seq_len(classes)]
  label <- max.col(as.matrix(score) + matrix(rnorm(n * classes, sd = 0.5), n), "first")
  if (classes == 2) label <- ifelse(sin(2 * x[, 1]) + rnorm(n, sd = 0.5) > 0, 2, 1)
  list(x = x, y = factor(c("a", "b", "c")[label], levels = c("a", "b", "c")[seq_len(classes)]))
}

# The penalised objective minimised directly (BFGS with the exact gradient)
# over free links: one for two classes, K for more.
direct_logistic <- function(z, y, lambda, w = rep(1, nrow(z))) {
  k <- nlevels(y)
  free <- if (k == 2) 1 else k
  onehot <- outer(as.integer(y), seq_len(k), "==") * 1
  unpack <- function(theta) {
    m <- matrix(theta, ncol(z) + 1, free)
    if (k == 2) m <- cbind(0, m)
    m
  }
  objective <- function(theta) {
    m <- unpack(theta)
    links <- cbind(1, z) %*% m
    p <- exp(links - apply(links, 1, max))
    p <- p / rowSums(p)
    value <- -sum(w * log(rowSums(p * onehot))) + lambda * sum(m[-1, ]^2)
    grad <- crossprod(cbind(1, z), w * (p - onehot)) + 2 * lambda * rbind(0, m[-1, , drop = FALSE])
    attr(value, "gradient") <- if (k == 2) grad[, 2] else grad
    value
  }
  fit <- stats::optim(rep(0, (ncol(z) + 1) * free), function(t) c(objective(t)),
                      function(t) c(attr(objective(t), "gradient")), method = "BFGS",
                      control = list(maxit = 5000, reltol = 1e-14))
  links <- cbind(1, z) %*% unpack(fit$par)
  p <- exp(links - apply(links, 1, max))
  list(prob = p / rowSums(p), objective = fit$value)
}

test_that("binary and multinomial fits reach the penalised minimum", {
  for (classes in 2:3) {
    toy <- logistic_toy(classes = classes)
    map <- rff(toy$x, 20, sigma = 1, seed = 4)
    fit <- krr_fit(toy$x, toy$y, map, loss = "logistic", lambda = 0.5, tol = 1e-12,
                   n_threads = 1, verbose = FALSE)
    expect_true(fit$logistic$converged)
    reference <- direct_logistic(predict(map, toy$x), toy$y, 0.5)
    prob <- predict(fit, toy$x, type = "prob")
    expect_equal(unname(prob), unname(reference$prob), tolerance = 1e-5)
    expect_identical(colnames(prob), levels(toy$y))
    expect_equal(rowSums(prob), rep(1, nrow(toy$x)), ignore_attr = TRUE)
    objective <- fit$logistic$log_loss * nrow(toy$x) + 0.5 * sum(fit$coefficients^2)
    expect_equal(objective, reference$objective, tolerance = 1e-6)
    expect_equal(fitted(fit), prob, tolerance = 1e-12)
    expect_identical(predict(fit, type = "class"), predict(fit, toy$x, type = "class"))
    expect_equal(residuals(fit), outer(as.integer(toy$y), seq_len(classes), "==") - prob,
                 ignore_attr = TRUE)
  }
})

test_that("links, responses and classes agree with the probabilities", {
  toy <- logistic_toy()
  fit <- krr_fit(toy$x, toy$y, rff(toy$x, 30, sigma = 1, seed = 5), loss = "logistic",
                 lambda = 0.1, n_threads = 1, verbose = FALSE)
  prob <- predict(fit, toy$x, type = "prob")
  expect_equal(predict(fit, toy$x, type = "link"), qlogis(prob[, 2]), tolerance = 1e-10,
               ignore_attr = TRUE)
  expect_identical(predict(fit, toy$x, type = "response"), prob)
  expect_identical(as.integer(predict(fit, toy$x, type = "class")), max.col(prob, "first"))
  three <- logistic_toy(classes = 3)
  multi <- krr_fit(three$x, three$y, rff(three$x, 30, sigma = 1, seed = 5), loss = "logistic",
                   lambda = 0.1, n_threads = 1, verbose = FALSE)
  expect_equal(exp(predict(multi, three$x, type = "link")), predict(multi, three$x, type = "prob"),
               tolerance = 1e-10)
  expect_output(print(summary(multi)), "multinomial logistic")
})

test_that("whole-number weights act as replicated rows", {
  toy <- logistic_toy(120)
  w <- rep(c(0, 1, 2), 40)
  copies <- rep(seq_along(w), w)
  map <- rff(toy$x, 20, sigma = 1, seed = 6)
  weighted <- krr_fit(toy$x, toy$y, map, loss = "logistic", lambda = 0.3, weights = w,
                      tol = 1e-12, n_threads = 1, verbose = FALSE)
  replicated <- krr_fit(toy$x[copies, ], toy$y[copies], map, loss = "logistic", lambda = 0.3,
                        tol = 1e-12, n_threads = 1, verbose = FALSE)
  expect_equal(predict(weighted, toy$x, type = "prob"), predict(replicated, toy$x, type = "prob"),
               tolerance = 1e-7)
})

test_that("lambda is chosen by CV of the held-out log-loss", {
  toy <- logistic_toy(200)
  map <- rff(toy$x, 30, sigma = 1, seed = 7)
  folds <- rep(1:4, 50)
  fit <- krr_fit(toy$x, toy$y, map, loss = "logistic", lambda = c(10, 1, 0.1), folds = folds,
                 n_threads = 1, verbose = FALSE)
  expect_identical(fit$lambda, fit$path$lambda[which.min(fit$path$cv)])
  # The score of one candidate, by hand: fold fits at lambda = 1, log-loss on held-out rows.
  held_loss <- 0
  for (k in 1:4) {
    train <- folds != k
    fold_fit <- krr_fit(toy$x[train, ], toy$y[train], map, loss = "logistic", lambda = 1,
                        tol = 1e-10, n_threads = 1, verbose = FALSE)
    p <- predict(fold_fit, toy$x[!train, ], type = "prob")
    held_loss <- held_loss - sum(log(p[cbind(seq_len(sum(!train)), as.integer(toy$y[!train]))]))
  }
  expect_equal(fit$path$cv[fit$path$lambda == 1], held_loss / 200, tolerance = 1e-3)
  expect_gt(nrow(fit$path), 1)
  expect_true(all(fit$path$cv_accuracy >= 0 & fit$path$cv_accuracy <= 1))
  chosen <- fit$path[which.min(fit$path$cv), ]
  shown <- capture.output(print(summary(fit)))
  expect_true(any(grepl(sprintf("CV log-loss, accuracy.*%s, %s", format(chosen$cv, digits = 4),
                                format(chosen$cv_accuracy, digits = 4)), shown)))
  expect_true(any(grepl("passes over the data, converged", shown)))
  # Squared-error rows do not apply to a logistic fit: left out.
  expect_false(any(grepl("GCV score|CV mean squared error|effective df", shown)))
})

test_that("the logistic loss refuses what it cannot do", {
  toy <- logistic_toy()
  map <- rff(toy$x, 20, sigma = 1, seed = 8)
  expect_error(krr_fit(toy$x, rnorm(160), map, loss = "logistic", verbose = FALSE), "factor")
  squared <- krr_fit(toy$x, toy$y, map, lambda = 0.1, n_threads = 1, verbose = FALSE)
  expect_error(predict(squared, toy$x, type = "link"), "logistic")
  binned <- krr_fit(toy$x, toy$y, rbin(toy$x, 5, seed = 1), lambda = 0.1, n_threads = 1,
                    verbose = FALSE)
  expect_error(predict(binned, toy$x, type = "link"), "logistic")
  expect_error(krr_fit(toy$x, toy$y, map, loss = "hinge", verbose = FALSE), "loss")
})

test_that("least-squares classification fits give probabilities calibrated on CV scores", {
  for (classes in 2:3) {
    toy <- logistic_toy(200, classes = classes, seed = 11)
    map <- rff(toy$x, 30, sigma = 1, seed = 9)
    w <- rep(c(1, 2), 100)
    fit <- krr_fit(toy$x, toy$y, map, lambda = 0.5, weights = w, n_threads = 1, verbose = FALSE)
    prob <- predict(fit, toy$x[1:20, ], type = "prob")
    expect_identical(colnames(prob), levels(toy$y))
    expect_equal(unname(rowSums(prob)), rep(1, 20), tolerance = 1e-12)
    expect_equal(predict(fit, type = "prob")[1:20, ], prob, ignore_attr = TRUE, tolerance = 1e-12)
    # The scores each row gets from the fit on the other folds (row i in
    # fold (i - 1) %% 5 + 1 without CV), by hand.
    folds <- (seq_len(200) - 1) %% 5 + 1
    scores <- matrix(0, 200, classes)
    for (k in 1:5) {
      held <- folds == k
      fold_fit <- krr_fit(toy$x[!held, ], toy$y[!held], map, lambda = 0.5, weights = w[!held],
                          n_threads = 1, verbose = FALSE)
      scores[held, ] <- predict(fold_fit, toy$x[held, ])
    }
    inputs <- if (classes == 2) scores[, 2, drop = FALSE] else scores
    # The calibration minimises the weighted multinomial log-loss on those
    # scores plus 2e-3 sum_k ||slopes_k - their mean||^2 over all classes
    # (class 1's links fixed at 0).
    objective <- function(theta) {
      links <- cbind(0, cbind(1, inputs) %*% matrix(theta, ncol(inputs) + 1))
      log_p <- links - log(rowSums(exp(links)))
      slopes <- cbind(0, matrix(theta, ncol(inputs) + 1))[-1, , drop = FALSE]
      -sum(w * log_p[cbind(1:200, as.integer(toy$y))]) + 2e-3 * sum((slopes - rowMeans(slopes))^2)
    }
    gradient <- function(theta) {
      design <- cbind(1, inputs)
      links <- cbind(0, design %*% matrix(theta, ncol(inputs) + 1))
      p <- exp(links - log(rowSums(exp(links))))
      onehot <- outer(as.integer(toy$y), seq_len(classes), "==")
      slopes <- cbind(0, matrix(theta, ncol(inputs) + 1)) * c(0, rep(1, ncol(inputs)))
      c((crossprod(design, w * (p - onehot)) + 4e-3 * (slopes - rowMeans(slopes)))[, -1])
    }
    direct <- optim(rep(0, (ncol(inputs) + 1) * (classes - 1)), objective, gradient,
                    method = "BFGS", control = list(maxit = 5000, reltol = 1e-15))
    expect_equal(fit$calibration[, -1], matrix(direct$par, ncol(inputs) + 1), tolerance = 1e-4,
                 ignore_attr = TRUE)
    expect_lte(objective(c(fit$calibration[, -1])), direct$value + 1e-8)
  }
  # Chosen by CV: the fold statistics of the CV give the scores.
  toy <- logistic_toy(200, classes = 3, seed = 12)
  cv_fit <- krr_fit(toy$x, toy$y, rff(toy$x, 30, sigma = 1, seed = 9), n_threads = 1,
                    verbose = FALSE)
  expect_equal(unname(rowSums(predict(cv_fit, toy$x, type = "prob"))), rep(1, 200))
  expect_error(predict(cv_fit, toy$x, type = "link"), "logistic")
})

test_that("the in-memory C++ solver equals the streaming R passes", {
  # n <= D + block_size keeps the features and solves in C++
  # (src/logistic_bound.cpp); a small block_size makes the same fit stream
  # its rows through the R passes, once features this small are not kept
  # anyway (the 64 MB floor, set to 0 here). Step for step: warm starts in
  # memory otherwise take the curvature at the start as preconditioner, and
  # CV's fold solves in memory round their rows to single precision.
  old <- options(kitchen.logistic_kept_entries = 0, kitchen.logistic_warm_curvature = FALSE,
                 kitchen.logistic_single_precision = FALSE)
  on.exit(options(old), add = TRUE)
  for (classes in 2:3) {
    toy <- logistic_toy(classes = classes, seed = 12)
    map <- rff(toy$x, 20, sigma = 1, seed = 13)
    w <- rep(c(0.5, 1, 2), length.out = nrow(toy$x))
    folds <- rep(1:4, 40)
    for (lambda in list(0.2, c(1, 0.1, 0.01))) {
      kept <- krr_fit(toy$x, toy$y, map, loss = "logistic", lambda = lambda, weights = w,
                      folds = folds, tol = 1e-12, n_threads = 1, verbose = FALSE)
      streamed <- krr_fit(toy$x, toy$y, map, loss = "logistic", lambda = lambda, weights = w,
                          folds = folds, tol = 1e-12, block_size = 30, n_threads = 2,
                          verbose = FALSE)
      expect_equal(kept$coefficients, streamed$coefficients, tolerance = 1e-8)
      expect_equal(kept$intercept, streamed$intercept, tolerance = 1e-8)
      expect_equal(kept$path$cv, streamed$path$cv, tolerance = 1e-8)
      expect_identical(kept$lambda, streamed$lambda)
    }
  }
  # Below the floor the features are kept whatever the block size.
  options(kitchen.logistic_kept_entries = 2^23)
  toy <- logistic_toy(classes = 2, seed = 12)
  map <- rff(toy$x, 20, sigma = 1, seed = 13)
  source <- kitchen:::memory_logistic_source(map, toy$x, cbind(-1, rep(1, 160)), NULL, NULL, 30L,
                                             kitchen:::backend_settings(1L))
  expect_false(is.null(source$solver(NULL)))
  options(kitchen.logistic_kept_entries = 0)
  source <- kitchen:::memory_logistic_source(map, toy$x, cbind(-1, rep(1, 160)), NULL, NULL, 30L,
                                             kitchen:::backend_settings(1L))
  expect_null(source$solver(NULL))
})

test_that("the C++ logistic pass equals the R pass on the same rows", {
  toy <- logistic_toy(classes = 3, seed = 14)
  map <- rff(toy$x, 16, sigma = 1, seed = 15)
  z <- predict(map, toy$x)
  onehot <- outer(as.integer(toy$y), 1:3, "==") * 1
  set.seed(16)
  state <- list(coefficients = matrix(rnorm(48), 16, 3), intercept = c(0.3, -0.1, 0))
  rows <- which(seq_len(nrow(z)) %% 3 != 0)
  w <- runif(nrow(z))
  out <- kitchen:::add_logistic_gradient(list(log_loss = 0, correct = 0, zg = 0, g0 = 0),
                                         z[rows, ], onehot[rows, ], as.integer(toy$y)[rows],
                                         w[rows], state)
  pass <- kitchen:::logistic_pass_cpp(z, rows, as.integer(toy$y), w, state$coefficients,
                                      state$intercept, 1L, "scalar")
  expect_equal(pass$log_loss, out$log_loss, tolerance = 1e-12)
  expect_equal(pass$correct, out$correct)
  expect_equal(pass$zg, out$zg, tolerance = 1e-12, ignore_attr = TRUE)
  expect_equal(pass$g0, out$g0, tolerance = 1e-12)
  expect_error(kitchen:::logistic_pass_cpp(z, c(rows, 1000L), as.integer(toy$y), w,
                                           state$coefficients, state$intercept, 1L, "scalar"),
               "row numbers")
  # Many rows: units of rows summed in order, the same bits on 1 and 2 threads.
  many <- logistic_toy(1500, classes = 3, seed = 17)
  zm <- predict(map, many$x)
  wm <- runif(1500)
  every <- seq_len(1500)
  one <- kitchen:::logistic_pass_cpp(zm, every, as.integer(many$y), wm, state$coefficients,
                                     state$intercept, 1L, "scalar")
  two <- kitchen:::logistic_pass_cpp(zm, every, as.integer(many$y), wm, state$coefficients,
                                     state$intercept, 2L, "scalar")
  expect_identical(two, one)
  in_r <- kitchen:::add_logistic_gradient(list(log_loss = 0, correct = 0, zg = 0, g0 = 0), zm,
                                          outer(as.integer(many$y), 1:3, "==") * 1,
                                          as.integer(many$y), wm, state)
  expect_equal(one$zg, in_r$zg, tolerance = 1e-12, ignore_attr = TRUE)
  expect_equal(one$log_loss, in_r$log_loss, tolerance = 1e-12)
})

test_that("the pass's SIMD products equal R's on every shape of tile", {
  # thin_products.hpp: tiles of 4 rows (links) or 16 features (gradient) by
  # chunks of 3 or 2 classes (k = 4: 2 + 2, 5: 3 + 2, 7: 3 + 2 + 2, 8:
  # 3 + 3 + 2), with the rows and features left over; the same bits on 1 and
  # 2 threads at each level ("avx512" runs the AVX2 kernels; every level
  # falls back to what the CPU has).
  set.seed(30)
  for (shape in list(c(n = 1003, d = 13, k = 5), c(n = 37, d = 1, k = 2), c(n = 600, d = 40, k = 3),
                     c(n = 7, d = 6, k = 9), c(n = 2100, d = 27, k = 4), c(n = 301, d = 35, k = 7),
                     c(n = 66, d = 16, k = 8))) {
    n <- shape[["n"]]
    d <- shape[["d"]]
    k <- shape[["k"]]
    z <- matrix(rnorm(n * d), n, d)
    labels <- sample(k, n, replace = TRUE)
    w <- runif(n)
    state <- list(coefficients = matrix(rnorm(d * k) / sqrt(d), d, k), intercept = rnorm(k))
    rows <- which(seq_len(n) %% 5 != 1)  # a gathered part, as a CV fold's rows
    in_r <- kitchen:::add_logistic_gradient(list(log_loss = 0, correct = 0, zg = 0, g0 = 0),
                                            z[rows, , drop = FALSE],
                                            outer(labels[rows], seq_len(k), "==") * 1,
                                            labels[rows], w[rows], state)
    for (simd in c("scalar", "avx2", "avx512")) {
      one <- kitchen:::logistic_pass_cpp(z, rows, labels, w, state$coefficients, state$intercept,
                                         1L, simd)
      two <- kitchen:::logistic_pass_cpp(z, rows, labels, w, state$coefficients, state$intercept,
                                         2L, simd)
      expect_identical(two, one)
      expect_equal(one$zg, in_r$zg, tolerance = 1e-12, ignore_attr = TRUE)
      expect_equal(one$g0, in_r$g0, tolerance = 1e-12)
      expect_equal(one$log_loss, in_r$log_loss, tolerance = 1e-12)
      expect_equal(one$correct, in_r$correct)
      # Rows held in single precision (CV's fold solves): on rows exact in
      # single precision, the double pass's bits.
      exact <- round(z * 2^10) / 2^10
      single <- kitchen:::logistic_pass_cpp(exact, rows, labels, w, state$coefficients,
                                            state$intercept, 2L, simd, single_precision = TRUE)
      expect_identical(single, kitchen:::logistic_pass_cpp(exact, rows, labels, w,
                                                           state$coefficients, state$intercept,
                                                           1L, simd))
    }
  }
  expect_error(kitchen:::logistic_pass_cpp(z, rows, labels, w, state$coefficients,
                                           state$intercept, 1L, "sse9"), "simd must be")
})

test_that("the softmax's vector exp() is within 2 ulp of exp() and keeps 0, NaN and underflow", {
  # kitchen/exp_nonpositive.hpp: arguments at most 0; below -708 the result
  # is 0 (exp() gives a subnormal there); lengths not a multiple of 4 test
  # the padded tail.
  set.seed(31)
  x <- c(0, -0, -1e-300, -log(2) / 2, -log(2), -708, -runif(4001, 0, 708), -rexp(2001, 0.1))
  for (simd in c("avx2", "avx512", "scalar")) {
    got <- kitchen:::exp_nonpositive_cpp(x, simd)
    expect_lte(max(abs(got - exp(x)) / exp(x)), 2 * .Machine$double.eps)
    expect_identical(got[1:2], c(1, 1))
    expect_identical(kitchen:::exp_nonpositive_cpp(c(-709, -800, -Inf), simd)[-1], c(0, 0))
    expect_lt(kitchen:::exp_nonpositive_cpp(-709, simd), 1e-307)
    expect_true(is.nan(kitchen:::exp_nonpositive_cpp(c(-1, NaN, -2), simd)[2]))
  }
  expect_identical(kitchen:::exp_nonpositive_cpp(x, "scalar"), exp(x))
  expect_identical(kitchen:::exp_nonpositive_cpp(x[1:3], "avx2"),
                   kitchen:::exp_nonpositive_cpp(x, "avx2")[1:3])
})

test_that("the bound is factored in C++ (by blocks, interruptible) as chol() does", {
  set.seed(2)
  z <- matrix(rnorm(300 * 1100), 300)  # more features than rows: rank 299 before lambda
  gram <- crossprod(z)
  zbar <- colMeans(z)
  bound <- 0.25 * (gram - 300 * tcrossprod(zbar))
  diag(bound) <- diag(bound) + 2 * 0.5
  # on Eigen (scalar) and on the Gram kernels (cholesky_simd.hpp; capped at this CPU's level)
  for (simd in c("scalar", "avx2", "avx512")) {
    got <- kitchen:::logistic_bound_factor_cpp(gram, NULL, zbar, 300, 0.25, 0.5, 2L, simd)
    expect_equal(got, chol(bound), tolerance = 1e-12)
    expect_true(all(got[lower.tri(got)] == 0))
  }
  # a CV fold's training part: the total's Gram matrix less the held-out
  # rows', centred on the training rows' mean, never made
  held <- 1:40
  fold_gram <- crossprod(z[held, ])
  training_mean <- colMeans(z[-held, ])
  bound <- 0.25 * (crossprod(z[-held, ]) - 260 * tcrossprod(training_mean))
  diag(bound) <- diag(bound) + 2 * 0.5
  for (simd in c("scalar", "avx2", "avx512")) {
    one <- kitchen:::logistic_bound_factor_cpp(gram, fold_gram, training_mean, 260, 0.25, 0.5,
                                               1L, simd)
    expect_equal(one, chol(bound), tolerance = 1e-10)
    expect_true(all(one[lower.tri(one)] == 0))
    # the same sums on 2 threads
    expect_identical(kitchen:::logistic_bound_factor_cpp(gram, fold_gram, training_mean, 260,
                                                         0.25, 0.5, 2L, simd), one)
    expect_null(kitchen:::logistic_bound_factor_cpp(gram, NULL, zbar, 300, 0.25, 1e-300, 2L, simd))
  }
  # sizes around the blocks (256 rows per step, 128-column panels, 4- to 24-wide strips)
  for (dim in c(1, 5, 255, 256, 257, 389)) {
    a <- crossprod(matrix(rnorm(2 * dim * dim), 2 * dim)) + diag(dim)
    for (simd in c("avx2", "avx512")) {
      got <- kitchen:::logistic_bound_factor_cpp(a, NULL, numeric(dim), 1, 1, 0.25, 2L, simd)
      expect_equal(got, chol(a + 0.5 * diag(dim)), tolerance = 1e-11)
      expect_true(all(got[lower.tri(got)] == 0))
    }
  }
  expect_error(kitchen:::logistic_bound_factor_cpp(gram, fold_gram[-1, -1], training_mean, 260,
                                                   0.25, 0.5, 1L, "avx2"), "fold_gram")
  # a fit with D = 1100 reaches the penalised minimum: its gradient vanishes
  # (on the primal path: with 160 rows the dual one factors 160 x 160 bounds)
  old <- options(kitchen.dual = FALSE)
  on.exit(options(old), add = TRUE)
  toy <- logistic_toy()
  map <- rff(toy$x, 1100, sigma = 1, seed = 4)
  fit <- krr_fit(toy$x, toy$y, map, loss = "logistic", lambda = 0.5, tol = 1e-12, n_threads = 2,
                 verbose = FALSE)
  expect_true(fit$logistic$converged)
  features <- predict(map, toy$x, n_threads = 1)
  residual <- predict(fit, toy$x, type = "prob")[, 2] - (toy$y == "b")
  gradient <- crossprod(features, residual) + 2 * 0.5 * fit$coefficients[, 2]
  expect_lt(max(abs(gradient)), 1e-4 * max(abs(crossprod(features, residual))))
  expect_error(krr_fit(toy$x, toy$y, map, loss = "logistic", lambda = 1e-300, n_threads = 2),
               class = "kitchen_error_argument", regexp = "`lambda` \\(1e-300\\) is too small")
})

test_that("CV's fold solves start where the two previous solutions point along log lambda", {
  predicted <- kitchen:::predicted_start
  last <- list(coefficients = matrix(c(2, 4), 2), intercept = 1, passes = 7L)
  before <- list(coefficients = matrix(c(1, 1), 2), intercept = 0.5, passes = 3L)
  lambdas <- 10^c(0, -1, -2, -2.5, -4.5, -4.5)
  expect_identical(predicted(last, NULL, lambdas, 2), last)  # nothing before: the last solution
  # equal spacing: one secant step
  step <- predicted(last, before, lambdas, 3)
  expect_equal(step$coefficients, matrix(c(3, 7), 2))
  expect_equal(step$intercept, 1.5)
  expect_identical(step$passes, 7L)
  expect_equal(predicted(last, before, lambdas, 4)$coefficients, matrix(c(2.5, 5.5), 2))  # half
  expect_equal(predicted(last, before, lambdas, 5)$coefficients, matrix(c(3, 7), 2))  # at most one
  expect_identical(predicted(last, before, lambdas, 6), last)  # a repeated candidate
})

test_that("final fits settle: stopped by the step and by the model's predicted decrease", {
  # Nearly separable classes at a small lambda: the objective falls slowly,
  # and one step's small decrease alone stopped far from the minimum.
  x <- as.matrix(iris[, 1:4])
  map <- rff(x, 1000, seed = 1)
  coded <- outer(as.integer(iris$Species), 1:3, "==") * 2 - 1
  backend <- kitchen:::backend_settings(2L)
  source <- kitchen:::memory_logistic_source(map, x, coded, NULL, NULL, 4096L, backend)
  stats <- source$statistics(FALSE)
  n_features <- source$n_features %||% map$n_features  # the dual path's: 150
  solve <- function(stop) {
    kitchen:::logistic_bound(stats, function(state) source$gradient(state), n_features, 3, 1e-4,
                             NULL, stop, source$solver(NULL), backend)
  }
  objective <- function(fit) fit$log_loss + 1e-4 * sum(fit$coefficients^2)
  step_only <- solve(kitchen:::logistic_stop(1e-6, 5000))
  settled <- solve(kitchen:::logistic_stop(1e-6, 5000, settle = TRUE))
  minimum <- objective(solve(kitchen:::logistic_stop(1e-13, 20000, settle = TRUE)))
  expect_true(step_only$converged && settled$converged)
  # Both follow the same steps until the step test fires; settling goes on
  # and only lowers the objective. By how much depends on the trajectory's
  # rounding: 7.0e-4 against 1.8e-4 above the minimum (relative) with R's
  # eigen() for the dual basis, 3.4e-4 against 2.0e-4 with kitchen's, 2.5e-4
  # against 2.3e-4 on the primal path.
  expect_gt(settled$passes, step_only$passes)
  excess <- function(fit) (objective(fit) - minimum) / minimum
  expect_lt(excess(settled), excess(step_only))
  expect_gte(excess(settled), 0)
})

test_that("summary() splits a logistic fit's time between the statistics pass and the solves", {
  toy <- logistic_toy(200)
  map <- rff(toy$x, 30, sigma = 1, seed = 7)
  # CV made slow on purpose: its time is the solve's, not the pass's
  suppressMessages(trace("logistic_cv_path", quote(Sys.sleep(0.3)), where = asNamespace("kitchen"),
                         print = FALSE))
  on.exit(suppressMessages(untrace("logistic_cv_path", where = asNamespace("kitchen"))), add = TRUE)
  fit <- krr_fit(toy$x, toy$y, map, loss = "logistic", n_threads = 1)
  expect_gte(fit$time[["solve"]], 0.3)
  expect_lt(fit$time[["features_and_gram"]], 0.3)
  expect_output(print(summary(fit)),
                sprintf("features \\+ Z'Z %.2f, solve %.2f", fit$time[[1]], fit$time[[2]]))
})
