# Kernel logistic regression on chunked data and with threads: every way of
# reading the data reaches the coefficients of a direct Newton solve in R of
# the same objective on the explicit features predict(map, x), and chunked
# fits equal in-memory fits with the same folds.

# logistic_data(), newton_logistic(), relative_intercepts(): helper-logistic.R.

test_that("in memory and chunked, 1 and 2 threads, fits equal a direct Newton solve", {
  # block_size = 50 makes the in-memory fit stream its rows through the same
  # R passes as the chunked one (features this small are otherwise kept:
  # R/krr_logistic.R, logistic_kept_entries()).
  old <- options(kitchen.logistic_kept_entries = 0)
  on.exit(options(old), add = TRUE)
  for (classes in 2:3) {
    data <- logistic_data(240, classes, seed = 10 + classes)
    map <- rff(data$x, 16, sigma = 1, seed = 3)
    w <- rep(c(1, 0.5, 2), 80)
    reference <- newton_logistic(predict(map, data$x), data$y, 0.3, w)
    chunks <- chunked(lapply(split(seq_len(240), rep(1:4, each = 60)), function(rows) {
      list(x = data$x[rows, ], y = data$y[rows], weights = w[rows])
    }))
    for (threads in 1:2) {
      memory <- krr_fit(data$x, data$y, map, loss = "logistic", lambda = 0.3, weights = w,
                        tol = 1e-15, max_iter = 20000, n_threads = threads, verbose = FALSE,
                        block_size = 50)
      chunk_fit <- krr_fit(chunks, map, loss = "logistic", lambda = 0.3, tol = 1e-15,
                           max_iter = 20000, n_threads = threads, verbose = FALSE,
                           block_size = 50)
      for (fit in list(memory, chunk_fit)) {
        expect_equal(unname(fit$coefficients), reference$coefficients, tolerance = 1e-6)
        # Unpenalised, the intercepts converge last: to 1e-6 absolute.
        expect_lt(max(abs(relative_intercepts(fit$intercept) -
                            relative_intercepts(reference$intercept))), 1e-6)
      }
      expect_equal(chunk_fit$coefficients, memory$coefficients, tolerance = 1e-8)
      expect_equal(chunk_fit$intercept, memory$intercept, tolerance = 1e-8)
      expect_identical(chunk_fit$loss, "logistic")
      expect_equal(chunk_fit$logistic$log_loss, memory$logistic$log_loss, tolerance = 1e-10)
      expect_equal(predict(chunk_fit, data$x, type = "prob"), predict(memory, data$x, type = "prob"),
                   tolerance = 1e-8)
    }
  }
})

test_that("predict() on chunked newdata equals predict() in memory for every type", {
  for (classes in 2:3) {
    data <- logistic_data(200, classes, seed = 30 + classes)
    map <- rff(data$x, 16, sigma = 1, seed = 3)
    fit <- krr_fit(data$x, data$y, map, loss = "logistic", lambda = 0.3, n_threads = 1,
                   verbose = FALSE)
    # chunks of unequal sizes: a vector per chunk bound by rows recycled them
    pieces <- split(seq_len(200), rep(1:3, c(70, 50, 80)))
    newdata <- chunked(lapply(pieces, function(rows) list(x = data$x[rows, ])))
    for (type in c("response", "class", "prob", "link")) {
      expect_equal(predict(fit, newdata, type = type, parallel = "none"),
                   predict(fit, data$x, type = type), ignore_attr = TRUE,
                   label = sprintf("%d classes, type %s", classes, type))
    }
  }
})

test_that("chunked CV over chunk folds equals in-memory CV with the same folds", {
  # Step for step: the in-memory solver's warm starts otherwise take the
  # curvature at the start as preconditioner, and stop elsewhere within tol.
  old <- options(kitchen.logistic_warm_curvature = FALSE)
  on.exit(options(old), add = TRUE)
  data <- logistic_data(300, 3, seed = 21)
  map <- rff(data$x, 20, sigma = 1, seed = 4)
  chunk_of <- rep(1:6, each = 50)
  chunks <- chunked(lapply(1:6, function(i) list(x = data$x[chunk_of == i, ],
                                                 y = as.character(data$y[chunk_of == i]))))
  folds <- (chunk_of - 1) %% 3 + 1
  lambdas <- c(3, 0.3, 0.03)
  memory <- krr_fit(data$x, data$y, map, loss = "logistic", lambda = lambdas, folds = folds,
                    n_threads = 1, verbose = FALSE)
  chunk_fit <- krr_fit(chunks, map, loss = "logistic", lambda = lambdas, n_folds = 3,
                       n_threads = 1, verbose = FALSE)
  expect_equal(chunk_fit$path$cv, memory$path$cv, tolerance = 1e-8)
  expect_equal(chunk_fit$path$cv_accuracy, memory$path$cv_accuracy)
  expect_identical(chunk_fit$lambda, memory$lambda)
  expect_equal(chunk_fit$coefficients, memory$coefficients, tolerance = 1e-8)
  expect_identical(levels(predict(chunk_fit, chunks, type = "class")), levels(data$y))
})

test_that("chunked fits keep small features after one more read and take the streamed fit's steps", {
  # R/krr_logistic_chunked.R, keep_chunk_features(): features of at most
  # logistic_kept_entries() are read once more and kept, then every pass runs
  # in C++; with the bound as every solve's preconditioner (the internal
  # option) and in double precision (CV's fold solves otherwise round the
  # rows to single: the other internal option) that is the chunk-reading R
  # loop's algorithm, step for step.
  old <- options(kitchen.logistic_warm_curvature = FALSE,
                 kitchen.logistic_single_precision = FALSE)
  on.exit(options(old), add = TRUE)
  data <- logistic_data(300, 3, seed = 23)
  map <- rff(data$x, 20, sigma = 1, seed = 5)
  w <- rep(c(1, 2, 0.5), 100)
  chunks <- chunked(lapply(1:6, function(i) {
    rows <- (i - 1) * 50 + 1:50
    list(x = data$x[rows, ], y = data$y[rows], weights = w[rows])
  }))
  fit_chunks <- function() {
    krr_fit(chunks, map, loss = "logistic", lambda = c(3, 0.3, 0.03), n_folds = 3,
            n_threads = 1, verbose = FALSE)
  }
  kept <- fit_chunks()
  streamed <- local({
    old <- options(kitchen.logistic_kept_entries = 0)
    on.exit(options(old))
    fit_chunks()
  })
  expect_equal(kept$path$cv, streamed$path$cv, tolerance = 1e-8)
  expect_identical(kept$lambda, streamed$lambda)
  expect_equal(kept$coefficients, streamed$coefficients, tolerance = 1e-8)
  expect_equal(kept$intercept, streamed$intercept, tolerance = 1e-8)
  # verbose (the extra read has its own progress bar): the same fit
  verbose_fit <- suppressMessages(krr_fit(chunks, map, loss = "logistic", lambda = 0.3,
                                          n_threads = 1, verbose = TRUE))
  expect_equal(verbose_fit$coefficients,
               krr_fit(chunks, map, loss = "logistic", lambda = 0.3, n_threads = 1,
                       verbose = FALSE)$coefficients)
})

test_that("chunked logistic fits run as futures, and refuse numeric responses", {
  skip_if_not_installed("future")
  data <- logistic_data(160, 2, seed = 5)
  map <- rff(data$x, 12, sigma = 1, seed = 6)
  chunks <- chunked(lapply(1:4, function(i) {
    rows <- (i - 1) * 40 + 1:40
    list(x = data$x[rows, ], y = data$y[rows])
  }))
  here <- krr_fit(chunks, map, loss = "logistic", lambda = 0.1, n_threads = 1, verbose = FALSE,
                  parallel = "none")
  as_futures <- krr_fit(chunks, map, loss = "logistic", lambda = 0.1, n_threads = 1,
                        verbose = FALSE, parallel = "future")
  expect_equal(as_futures$coefficients, here$coefficients, tolerance = 1e-12)
  numbers <- chunked(list(list(x = data$x, y = rnorm(160))))
  expect_error(krr_fit(numbers, map, loss = "logistic", lambda = 0.1, verbose = FALSE),
               "class labels")
})

test_that("a warm start preconditioned by its curvature reaches the same minimum in fewer passes", {
  # R/krr_logistic.R, kept_features_solver(): from the solution at a larger
  # lambda, the rows' curvature there replaces the bound's constant; the
  # minimum is the direct Newton solve's, on 1 and 2 threads.
  for (classes in 2:3) {
    data <- logistic_data(400, classes, seed = 30 + classes)
    map <- rff(data$x, 24, sigma = 1, seed = 7)
    coded <- outer(as.integer(data$y), seq_len(classes), "==") * 2 - 1
    source <- kitchen:::memory_logistic_source(map, data$x, coded, NULL, NULL, 4096L,
                                               kitchen:::backend_settings(1L))
    stats <- source$statistics(FALSE)
    gradient <- function(state) source$gradient(state)
    start <- kitchen:::logistic_bound(stats, gradient, 24, classes, 0.3, NULL,
                                      kitchen:::logistic_stop(1e-14, 5000), source$solver(NULL))
    reference <- newton_logistic(predict(map, data$x), data$y, 0.03)
    passes <- list()
    for (warm in c(TRUE, FALSE)) {
      old <- options(kitchen.logistic_warm_curvature = warm)
      for (threads in 1:2) {
        solver <- kitchen:::memory_logistic_source(map, data$x, coded, NULL, NULL, 4096L,
                                                   kitchen:::backend_settings(threads))$solver(NULL)
        fit <- kitchen:::logistic_bound(stats, gradient, 24, classes, 0.03, start,
                                        kitchen:::logistic_stop(1e-14, 5000), solver,
                                        kitchen:::backend_settings(threads))
        expect_equal(unname(fit$coefficients), reference$coefficients, tolerance = 1e-6)
        expect_lt(max(abs(relative_intercepts(fit$intercept) -
                            relative_intercepts(reference$intercept))), 1e-6)
      }
      options(old)
      passes[[as.character(warm)]] <- fit$passes
    }
    expect_lt(passes[["TRUE"]], passes[["FALSE"]])
  }
})
