# Class probabilities of least-squares fits of chunked data with dense maps
# (R/chunked_calibration.R): whole chunks are the folds whose fits score
# the held-out rows, as CV's are.

chunked_class_toy <- function(n = 1200, seed = 1) {
  set.seed(seed)
  x <- matrix(runif(n * 3, -2, 2), n, 3, dimnames = list(NULL, c("a", "b", "c")))
  y <- factor(ifelse(x[, 1] + 0.5 * rnorm(n) > 0.5, "p", ifelse(x[, 2] > 0, "q", "r")))
  split <- rep(1:6, each = n / 6)
  w <- rep(c(1, 2, 0.5), length.out = n)
  list(x = x, y = y, split = split, w = w,
       chunks = lapply(1:6, function(i) {
         list(x = x[split == i, ], y = y[split == i], weights = w[split == i])
       }))
}

test_that("with lambda by CV, the calibration is the in-memory fit's with the chunks as folds", {
  toy <- chunked_class_toy()
  map <- rff(toy$x, 60, sigma = 1, seed = 2)
  unweighted <- chunked(lapply(toy$chunks, `[`, c("x", "y")))
  chunked_fit <- krr_fit(unweighted, map, lambda = "cv", n_folds = 3, n_threads = 1,
                         verbose = FALSE, parallel = "none")
  memory_fit <- krr_fit(toy$x, toy$y, map, lambda = "cv", folds = (toy$split - 1) %% 3 + 1,
                        n_threads = 1, verbose = FALSE)
  expect_identical(chunked_fit$lambda, memory_fit$lambda)
  expect_equal(chunked_fit$calibration, memory_fit$calibration, tolerance = 1e-8)
  prob <- predict(chunked_fit, toy$x, type = "prob")
  expect_equal(prob, predict(memory_fit, toy$x, type = "prob"), tolerance = 1e-8)
  expect_equal(predict(chunked_fit, unweighted, type = "prob", parallel = "none"), prob,
               tolerance = 1e-12)
  expect_output(print(summary(chunked_fit)), "calibrated on cross-validated scores")
  # the classes are the most probable ones, in memory and chunk by chunk
  classes <- predict(memory_fit, toy$x, type = "class")
  expect_identical(classes, factor(levels(toy$y)[max.col(prob, "first")], levels(toy$y)))
  expect_identical(predict(chunked_fit, toy$x, type = "class"), classes)
  expect_identical(predict(chunked_fit, unweighted, type = "class", parallel = "none"), classes)
  expect_equal(summary(chunked_fit)$confusion, summary(memory_fit)$confusion, tolerance = 1e-8)
})

test_that("weighted chunks: the CV folds' fits score their held-out rows", {
  toy <- chunked_class_toy(seed = 3)
  map <- rff(toy$x, 40, sigma = 1, seed = 4)
  fit <- krr_fit(chunked(toy$chunks), map, lambda = "cv", n_folds = 5, n_threads = 1,
                 verbose = FALSE, parallel = "none")
  # 6 chunks in 5 folds: chunk 6 in fold 1 with chunk 1; by hand, each
  # fold's fit on the other chunks' rows at the chosen lambda.
  fold <- (toy$split - 1) %% 5 + 1
  scores <- matrix(0, nrow(toy$x), 3)
  for (k in 1:5) {
    held <- fold == k
    fold_fit <- krr_fit(toy$x[!held, ], toy$y[!held], map, lambda = fit$lambda,
                        weights = toy$w[!held], n_threads = 1, verbose = FALSE)
    scores[held, ] <- predict(fold_fit, toy$x[held, ], n_threads = 1)
  }
  expected <- fit_calibration(calibration_inputs(scores), as.integer(toy$y), toy$w,
                              backend_settings(1L))
  on_scores <- predict(fit, toy$x, n_threads = 1)
  expect_equal(calibrated_probabilities(on_scores, fit$calibration, NULL),
               calibrated_probabilities(on_scores, expected, NULL), tolerance = 1e-8)
})

test_that("chunked fits without CV stay one pass and have no calibration", {
  toy <- chunked_class_toy(n = 600, seed = 7)
  map <- rff(toy$x, 20, sigma = 1, seed = 8)
  passes <- 0
  source <- chunked(function(i) {
    if (i == 1) passes <<- passes + 1
    if (i <= 6) toy$chunks[[i]]
  })
  for (lambda in list(0.5, "gcv")) {
    passes <- 0
    fit <- krr_fit(source, map, lambda = lambda, n_threads = 1, verbose = FALSE,
                   parallel = "none")
    expect_identical(passes, 1)
    expect_null(fit$calibration)
    expect_error(predict(fit, toy$x, type = "prob"), "lambda = \"cv\"")
  }
})

test_that("each chunk sends back every stride-th row's fold scores, labels and weights", {
  toy <- chunked_class_toy(n = 600, seed = 5)
  map <- rff(toy$x, 20, sigma = 1, seed = 6)
  fit <- krr_fit(toy$x, toy$y, map, lambda = 1, n_threads = 1, verbose = FALSE)
  other <- list(coefficients = fit$coefficients * 2, intercept = fit$intercept + 1)
  chunk <- toy$chunks[[2]]
  part <- calibration_chunk(chunk, 2L, fit, list(fit[c("coefficients", "intercept")], other),
                            stride = 3, block_size = 7, backend = backend_settings(1L))
  rows <- seq(1, 100, by = 3)
  # chunk 2 of two folds is in fold 2: `other`'s scores
  fit$coefficients <- other$coefficients
  fit$intercept <- other$intercept
  expect_equal(part$scores, predict(fit, chunk$x[rows, ], n_threads = 1), tolerance = 1e-12,
               ignore_attr = TRUE)
  expect_identical(part$labels, as.integer(chunk$y)[rows])
  expect_identical(part$weights, chunk$weights[rows])
})
