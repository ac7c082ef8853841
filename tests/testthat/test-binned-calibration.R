# Class probabilities of least-squares fits on rbin maps: a calibration of
# the one-vs-rest scores fitted on each row's held-out score (R/krr_binned.R,
# R/calibration.R), in memory and from chunks.

binned_class_toy <- function(n = 300, classes = 3, seed = 1) {
  set.seed(seed)
  x <- matrix(runif(n * 2, -2, 2), n, 2)
  cut_at <- stats::quantile(x[, 1] + 0.4 * rnorm(n), seq(0, 1, length.out = classes + 1))
  y <- cut(x[, 1] + 0.4 * rnorm(n), cut_at, include.lowest = TRUE,
           labels = letters[seq_len(classes)])
  y[is.na(y)] <- "a"
  list(x = x, y = y)
}

# The probabilities two calibrations give to the same scores (their
# coefficients are not unique for three classes or more: one-vs-rest
# scores sum to -1 in every row).
calibrated_on <- function(scores, calibration) {
  calibrated_probabilities(scores, calibration, NULL)
}

# Each row's score from the fit on the other folds, by hand: the same map
# refitted on the rows outside the fold.
held_out_by_hand <- function(toy, map, lambda, folds, weights) {
  scores <- matrix(0, nrow(toy$x), nlevels(toy$y))
  for (k in unique(folds)) {
    held <- folds == k
    fold_fit <- krr_fit(toy$x[!held, ], toy$y[!held], map, lambda = lambda,
                        weights = weights[!held], tol = 1e-10, n_threads = 1, verbose = FALSE)
    scores[held, ] <- predict(fold_fit, toy$x[held, ], n_threads = 1)
  }
  scores
}

test_that("rbin least-squares fits give probabilities calibrated on held-out scores", {
  for (classes in 2:3) {
    toy <- binned_class_toy(classes = classes, seed = 2)
    map <- rbin(toy$x, 15, sigma = 1, seed = 3)
    w <- rep(c(1, 2, 0.5), 100)
    fit <- krr_fit(toy$x, toy$y, map, lambda = 2, weights = w, n_threads = 1, verbose = FALSE)
    prob <- predict(fit, toy$x[1:20, ], type = "prob", n_threads = 1)
    expect_identical(colnames(prob), levels(toy$y))
    expect_equal(unname(rowSums(prob)), rep(1, 20), tolerance = 1e-12)
    expect_equal(predict(fit, type = "prob")[1:20, ], prob, ignore_attr = TRUE,
                 tolerance = 1e-12)
    # A lambda given: row i in fold (i - 1) %% 5 + 1, as for dense maps. The
    # fold solves stop at a relative residual of 1e-3 (the CV path's
    # precision), so the calibration matches the one on exact held-out
    # scores to a few digits, not to the bit; training scores (the rows'
    # own fit) would give a far more confident one.
    by_hand <- held_out_by_hand(toy, map, 2, (seq_len(300) - 1) %% 5 + 1, w)
    expected <- fit_calibration(calibration_inputs(by_hand), as.integer(toy$y), w,
                                backend_settings(1L))
    scores <- predict(fit, toy$x, n_threads = 1)
    gap <- function(calibration) {
      max(abs(calibrated_on(scores, calibration) - calibrated_on(scores, expected)))
    }
    expect_lt(gap(fit$calibration), 2e-3)
    in_sample <- fit_calibration(calibration_inputs(scores), as.integer(toy$y), w,
                                 backend_settings(1L))
    expect_gt(gap(in_sample), 10 * gap(fit$calibration))
  }
})

test_that("with lambda chosen by CV, the CV folds' scores at that lambda are calibrated", {
  toy <- binned_class_toy(classes = 3, seed = 4)
  map <- rbin(toy$x, 15, sigma = 1, seed = 5)
  folds <- rep(1:4, length.out = 300)
  fit <- krr_fit(toy$x, toy$y, map, lambda = c(10, 1, 0.1), folds = folds, n_threads = 1,
                 verbose = FALSE)
  by_hand <- held_out_by_hand(toy, map, fit$lambda, folds, rep(1, 300))
  expected <- fit_calibration(calibration_inputs(by_hand), as.integer(toy$y), rep(1, 300),
                              backend_settings(1L))
  scores <- predict(fit, toy$x, n_threads = 1)
  expect_lt(max(abs(calibrated_on(scores, fit$calibration) - calibrated_on(scores, expected))),
            2e-3)
  s <- capture.output(print(summary(fit)))
  expect_match(s, "class probabilities +: calibrated on cross-validated scores", all = FALSE)
  expect_match(s, "CV misclassification rate .*the largest score's, which chose lambda", all = FALSE)
  # and the error of the classes predict() gives, from the same held-out scores
  expect_match(s, sprintf("held-out misclassification +: %s \\(the most probable class",
                          format(attr(fit$calibration, "held_out_error"), digits = 4)), all = FALSE)
  expect_match(s, "training accuracy", all = FALSE)
})

test_that("chunked rbin fits calibrate as the same fit in memory", {
  toy <- binned_class_toy(n = 360, classes = 3, seed = 6)
  map <- rbin(toy$x, 15, sigma = 1, seed = 7)
  split <- rep(1:6, each = 60)
  data <- chunked(lapply(1:6, function(i) list(x = toy$x[split == i, ], y = toy$y[split == i])))
  for (lambda in list(0.5, "cv")) {
    chunked_fit <- krr_fit(data, map, lambda = lambda, n_folds = 3, n_threads = 1,
                           verbose = FALSE, parallel = "none")
    memory_fit <- krr_fit(toy$x, toy$y, map, lambda = lambda,
                          folds = if (identical(lambda, "cv")) (split - 1) %% 3 + 1,
                          n_threads = 1, verbose = FALSE)
    expect_equal(chunked_fit$calibration, memory_fit$calibration, tolerance = 1e-8)
    expect_equal(predict(chunked_fit, toy$x, type = "prob"),
                 predict(memory_fit, toy$x, type = "prob"), tolerance = 1e-8)
  }
})

test_that("two classes: summary() shows one RMSE and one CG count", {
  toy <- binned_class_toy(classes = 2, seed = 8)
  fit <- krr_fit(toy$x, toy$y, rbin(toy$x, 10, sigma = 1, seed = 9), lambda = 1,
                 n_threads = 1, verbose = FALSE)
  s <- capture.output(print(summary(fit)))
  expect_match(s, "training RMSE +: [0-9.]+$", all = FALSE)
  expect_match(s, "conjugate gradients, [0-9]+ iterations", all = FALSE)
  expect_false(any(grepl("CV mean squared error", s)))
})

test_that("from 25,000 rows on, a given lambda's calibration uses fold 1's held-out rows", {
  toy <- binned_class_toy(classes = 3, seed = 10)
  map <- rbin(toy$x, 10, sigma = 1, seed = 11)
  cols <- rbin_columns(map, map_input(map, toy$x), backend_settings(1L))
  value <- 1 / sqrt(map$n_grids)
  ops <- binned_ops(cols, value, map$n_features, backend_settings(1L))
  coded <- 2 * outer(as.integer(toy$y), 1:3, "==") - 1
  start <- matrix(0, map$n_features, 3)
  all <- binned_calibration_scores(ops, coded, value, map$n_features, 1, start, 1e-5, 100,
                                   rep(1, 300))
  one <- binned_calibration_scores(ops, coded, value, map$n_features, 1, start, 1e-5, 100,
                                   rep(1, 300), all_folds_below = 300)
  fold_1 <- (seq_len(300) - 1) %% 5 == 0
  expect_false(anyNA(all))
  expect_true(all(is.na(one[!fold_1, ])))
  expect_identical(one[fold_1, ], all[fold_1, ])
  # the calibration is fitted on those rows only
  calibration <- calibration_of_scores(one, coded, NULL, backend_settings(1L))
  expect_equal(c(calibration),
               c(fit_calibration(calibration_inputs(all[fold_1, ]), as.integer(toy$y)[fold_1],
                                 rep(1, sum(fold_1)), backend_settings(1L))))
  # of the classes predict() gives: the most probable
  prob <- calibrated_probabilities(all[fold_1, ], calibration, NULL)
  expect_equal(attr(calibration, "held_out_error"),
               mean(max.col(prob, "first") != as.integer(toy$y)[fold_1]))
})
