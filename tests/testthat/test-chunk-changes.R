# A fit with several bandwidth candidates reads every chunk once per
# candidate. A source that gives other chunks on a later pass would mix
# data sets in one fit: it is stopped, naming the chunk.

set.seed(1)
make_chunk <- function(n) {
  x <- matrix(rnorm(n * 2), n, 2)
  list(x = x, y = sin(x[, 1]) + rnorm(n, sd = 0.1))
}
chunks <- lapply(1:4, function(i) make_chunk(150))
map <- rff(2, 40, sigma = 1, seed = 1)

test_that("a source that changes between passes is stopped, naming the chunk", {
  pass <- 0
  changing <- function(i) {
    if (i == 1) pass <<- pass + 1
    if (i > 4) return(NULL)
    if (pass > 1 && i == 3) return(list(x = chunks[[3]]$x[1:10, ], y = chunks[[3]]$y[1:10]))
    chunks[[i]]
  }
  err <- tryCatch(krr_fit(chunked(changing), map, sigma = c(0.5, 1, 2), n_threads = 1, verbose = FALSE),
                  error = function(e) e)
  expect_s3_class(err, "kitchen_error_argument")
  expect_match(conditionMessage(err), "Chunk 3")
  expect_match(conditionMessage(err$parent), "first pass")
})

test_that("same row count, other values: stopped too", {
  pass <- 0
  changing <- function(i) {
    if (i == 1) pass <<- pass + 1
    if (i > 4) return(NULL)
    chunk <- chunks[[i]]
    if (pass > 1 && i == 2) chunk$x[1, 1] <- chunk$x[1, 1] + 1
    chunk
  }
  err <- tryCatch(krr_fit(chunked(changing), map, sigma = c(0.5, 1), n_threads = 1, verbose = FALSE),
                  error = function(e) e)
  expect_match(conditionMessage(err), "Chunk 2")
})

test_that("a source that ends earlier on a later pass is stopped", {
  pass <- 0
  shrinking <- function(i) {
    if (i == 1) pass <<- pass + 1
    if (i > (if (pass > 1) 3 else 4)) return(NULL)
    chunks[[i]]
  }
  expect_error(krr_fit(chunked(shrinking), map, sigma = c(0.5, 1), n_threads = 1, verbose = FALSE),
               class = "kitchen_error_argument", regexp = "first")
})

test_that("a source that gives the same chunks fits as before", {
  fit <- krr_fit(chunked(chunks), map, sigma = c(0.5, 1, 2), n_threads = 1, verbose = FALSE)
  expect_equal(fit$n, 600)
})

test_that("a logistic fit, which reads the chunks once per iteration, stops a changing source too", {
  # Features this small are kept after one more read (R/krr_logistic_chunked.R,
  # keep_chunk_features()), checked like every later pass; with
  # kitchen.logistic_kept_entries = 0 each iteration reads the chunks.
  set.seed(2)
  labelled <- lapply(chunks, function(chunk) list(x = chunk$x, y = factor(chunk$y > 0)))
  changes <- list(
    "values" = function(chunk) { chunk$x[1, 1] <- chunk$x[1, 1] + 1; chunk },
    "labels in another order" = function(chunk) { chunk$y <- rev(chunk$y); chunk },
    "rows" = function(chunk) list(x = chunk$x[1:10, ], y = chunk$y[1:10]))
  for (kept in c(TRUE, FALSE)) {
    old <- options(kitchen.logistic_kept_entries = if (kept) 2^23 else 0)
    changed_from <- if (kept) 2 else 3  # the read that changes: the first after the statistics pass, or a later one
    for (what in names(changes)) {
      pass <- 0
      changing <- function(i) {
        if (i == 1) pass <<- pass + 1
        if (i > 4) return(NULL)
        if (pass >= changed_from && i == 2) return(changes[[what]](labelled[[2]]))
        labelled[[i]]
      }
      err <- tryCatch(krr_fit(chunked(changing), map, loss = "logistic", lambda = 1, n_threads = 1,
                              verbose = FALSE), error = function(e) e)
      expect_s3_class(err, "kitchen_error_argument")
      expect_match(conditionMessage(err), "Chunk 2", label = what)
      expect_match(conditionMessage(err$parent), "first pass", label = what)
    }
    pass <- 0
    shrinking <- function(i) {
      if (i == 1) pass <<- pass + 1
      if (i > (if (pass >= changed_from) 3 else 4)) return(NULL)
      labelled[[i]]
    }
    expect_error(krr_fit(chunked(shrinking), map, loss = "logistic", lambda = 1, n_threads = 1,
                         verbose = FALSE), class = "kitchen_error_argument", regexp = "first")
    # the same chunks on every pass: the fit of the rows in memory
    fit <- krr_fit(chunked(labelled), map, loss = "logistic", lambda = 1, n_threads = 1,
                   verbose = FALSE)
    in_memory <- krr_fit(do.call(rbind, lapply(labelled, `[[`, "x")),
                         unlist(lapply(labelled, function(chunk) as.character(chunk$y))) |> factor(),
                         map, loss = "logistic", lambda = 1, n_threads = 1, verbose = FALSE)
    expect_equal(coef(fit), coef(in_memory), tolerance = 1e-8)
    options(old)
  }
})

test_that("rows or labels of a chunk in another order count as a change", {
  pass <- 0
  reordered <- function(i) {
    if (i == 1) pass <<- pass + 1
    if (i > 4) return(NULL)
    chunk <- chunks[[i]]
    if (pass > 1 && i == 4) chunk$y <- rev(chunk$y)
    chunk
  }
  err <- tryCatch(krr_fit(chunked(reordered), map, sigma = c(0.5, 1), n_threads = 1, verbose = FALSE),
                  error = function(e) e)
  expect_match(conditionMessage(err), "Chunk 4")
})

test_that("the class calibration's pass is checked against the first", {
  pass <- 0
  labelled <- lapply(chunks, function(chunk) list(x = chunk$x, y = factor(chunk$y > 0)))
  changing <- function(i) {
    if (i == 1) pass <<- pass + 1
    if (i > 4) return(NULL)
    chunk <- labelled[[i]]
    if (pass > 1 && i == 2) chunk$y <- rev(chunk$y)  # other labels on the calibration pass
    chunk
  }
  err <- tryCatch(krr_fit(chunked(changing), map, lambda = "cv", n_folds = 2, n_threads = 1,
                          verbose = FALSE), error = function(e) e)
  expect_s3_class(err, "kitchen_error_argument")
  expect_match(conditionMessage(err), "Chunk 2")
  expect_match(conditionMessage(err$parent), "first pass")
  expect_identical(pass, 2)  # one pass for the statistics, one to calibrate
})
