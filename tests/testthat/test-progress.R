# Every path that shows progress runs with verbose = TRUE and more rows (or
# candidates) than one step, with cli drawing its bars at once (as it does
# at a console after 2 s): the code that updates a bar is run, not skipped
# as it is with verbose = FALSE. (The README example at a real console is in
# test-console.R.)

with_bars_drawn <- function(code) {
  old <- options(cli.progress_show_after = 0, cli.progress_clear = FALSE)
  on.exit(options(old))
  force(code)
}

progress_toy <- function(n = 600, d = 3) {
  set.seed(11)
  x <- matrix(runif(n * d, -2, 2), n, d)
  list(x = x, y = sin(2 * x[, 1]) + x[, 2] + rnorm(n, sd = 0.1))
}

test_that("dense fits, CV, sigma candidates and predict run their progress bars", {
  toy <- progress_toy()
  map <- rff(toy$x, 50, sigma = 1, seed = 1)
  quiet <- krr_fit(toy$x, toy$y, map, lambda = "gcv", block_size = 100, verbose = FALSE,
                   n_threads = 1)
  with_bars_drawn({
    fits <- list(
      gcv = krr_fit(toy$x, toy$y, map, lambda = "gcv", block_size = 100, verbose = TRUE,
                    n_threads = 1),
      cv = krr_fit(toy$x, toy$y, map, lambda = "cv", folds = rep(1:3, 200), block_size = 100,
                   verbose = TRUE, n_threads = 1),
      sigma = krr_fit(toy$x, toy$y, map, sigma = c(0.5, 1, 2), block_size = 100,
                      verbose = TRUE, n_threads = 1))
    shown <- predict(fits$gcv, toy$x, block_size = 100, verbose = TRUE, n_threads = 1)
  })
  # The bars change nothing in the results.
  expect_identical(fits$gcv$coefficients, quiet$coefficients)
  expect_identical(shown, predict(quiet, toy$x, block_size = 100, n_threads = 1))
  expect_equal(fits$cv$n_folds, 3)
  expect_identical(nrow(fits$sigma$sigma_path), 3L)
})

test_that("the dual path's CV folds run their progress bar", {
  toy <- progress_toy(60)
  map <- rff(toy$x, 400, sigma = 1, seed = 1)  # 3n <= D: the dual path
  quiet <- krr_fit(toy$x, toy$y, map, folds = rep(1:3, 20), n_threads = 1)
  labels <- new.env()
  suppressMessages(trace("progress_ticker", bquote(assign(label, TRUE, envir = .(labels))),
                         where = asNamespace("kitchen"), print = FALSE))
  on.exit(suppressMessages(untrace("progress_ticker", where = asNamespace("kitchen"))))
  with_bars_drawn({
    shown <- krr_fit(toy$x, toy$y, map, folds = rep(1:3, 20), verbose = TRUE, n_threads = 1)
  })
  expect_true(exists("Cross-validating lambda", envir = labels, inherits = FALSE))
  expect_true(shown$dual)
  expect_identical(shown$coefficients, quiet$coefficients)
})

test_that("rbin fits (CG and CV over lambda) run their progress bars", {
  toy <- progress_toy(400)
  map <- rbin(toy$x, 20, seed = 2)
  with_bars_drawn({
    cv <- krr_fit(toy$x, toy$y, map, lambda = "cv", folds = rep(1:4, 100), block_size = 100,
                  verbose = TRUE, n_threads = 1)
    fixed <- krr_fit(toy$x, toy$y, map, lambda = 0.1, block_size = 100, verbose = TRUE,
                     n_threads = 1)
  })
  expect_gt(nrow(cv$path), 1)
  expect_true(all(fixed$solver$converged))
})

test_that("chunked fits and predictions run their progress bars, in process and as futures", {
  toy <- progress_toy(600)
  chunks <- lapply(split(seq_len(600), rep(1:4, each = 150)), function(rows) {
    list(x = toy$x[rows, ], y = toy$y[rows])
  })
  data <- chunked(unname(chunks))
  map <- rff(toy$x, 50, sigma = 1, seed = 1)
  with_bars_drawn({
    here <- krr_fit(data, map, lambda = "gcv", block_size = 100, verbose = TRUE, parallel = "none",
                    n_threads = 1)
    cv <- krr_fit(data, map, lambda = "cv", n_folds = 2, sigma = c(1, 2), block_size = 100,
                  verbose = TRUE, parallel = "none", n_threads = 1)
  })
  expect_equal(coef(here), coef(krr_fit(toy$x, toy$y, map, lambda = "gcv", block_size = 100,
                                        verbose = FALSE, n_threads = 1)), tolerance = 1e-8)
  expect_equal(cv$n_folds, 2)
  skip_if_not_installed("future")
  with_bars_drawn({
    in_future <- krr_fit(data, map, lambda = "gcv", block_size = 100, verbose = TRUE, parallel = "future",
                         n_threads = 1)
  })
  expect_equal(coef(in_future), coef(here), tolerance = 1e-10)
})

test_that("CV folds, bandwidth candidates and calibration folds have bars of their own", {
  # cli's logger handler says when each bar is made and with what total:
  # the steps between passes over rows (R/progress.R) each make one.
  toy <- progress_toy()
  label <- factor(ifelse(toy$y > 0.5, "high", "low"))
  map <- rff(toy$x, 50, sigma = 1, seed = 1)
  logged <- function(code) {
    old <- options(cli.progress_show_after = 0, cli.progress_handlers_only = "logger")
    on.exit(options(old))
    utils::capture.output(force(code))  # (the logger writes to standard output)
  }
  created <- function(log) sub(".* 0/([0-9]+) created$", "\\1", grep("created$", log, value = TRUE))
  log <- logged(fit <- krr_fit(toy$x, label, map, sigma = c(0.5, 1, 2), lambda = "cv",
                               folds = rep(1:3, 200), block_size = 100, verbose = TRUE,
                               n_threads = 1))
  bars <- created(log)
  expect_true("3" %in% bars)  # three candidates' passes
  expect_true("6" %in% bars)  # calibration: three fold fits, three folds scored
  expect_true("2" %in% bars)  # the finalists' other two folds
  expect_identical(fit$coefficients,
                   krr_fit(toy$x, label, map, sigma = c(0.5, 1, 2), lambda = "cv",
                           folds = rep(1:3, 200), block_size = 100, verbose = FALSE,
                           n_threads = 1)$coefficients)
  # not verbose: no bar at all
  expect_length(created(logged(krr_fit(toy$x, label, map, lambda = "cv", folds = rep(1:3, 200),
                                       verbose = FALSE, n_threads = 1))), 0)
})

test_that("rbin's bandwidth screen names the candidate each bar belongs to", {
  # Each candidate's fold-1 path has a bar, which stops early at a point
  # not known ahead (an at-scale tour saw unnamed bars restart).
  toy <- progress_toy()
  map <- rbin(toy$x, 10, seed = 1)
  labels <- new.env()
  suppressMessages(trace("binned_cv_path", bquote(assign(label, TRUE, envir = .(labels))),
                         where = asNamespace("kitchen"), print = FALSE))
  on.exit(suppressMessages(untrace("binned_cv_path", where = asNamespace("kitchen"))))
  with_bars_drawn({
    fit <- krr_fit(toy$x, toy$y, map, sigma = c(0.5, 1, 2), lambda = "cv", verbose = TRUE,
                   n_threads = 1)
  })
  for (sigma in c("0.5", "1", "2")) {
    expect_true(exists(sprintf("Screening sigma = %s on fold 1", sigma), envir = labels,
                       inherits = FALSE))
  }
  expect_true(exists("Cross-validating lambda", envir = labels, inherits = FALSE))  # the choice's folds
})
