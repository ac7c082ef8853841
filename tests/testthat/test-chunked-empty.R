# Chunks of no rows (a file with a header alone, a query that matched
# nothing): fits pass them by, keeping the other chunks' numbers and folds.
empty_toy <- function(n = 500, d = 3, seed = 1) {
  set.seed(seed)
  x <- matrix(runif(n * d, -2, 2), n, d, dimnames = list(NULL, paste0("v", seq_len(d))))
  y <- sin(2 * x[, 1]) + x[, 2]^2 / 2 + rnorm(n, sd = 0.1)
  cls <- factor(ifelse(x[, 1] > 0.5, "a", ifelse(x[, 2] > 0, "b", "c")), levels = c("c", "a", "b"))
  list(x = x, y = y, cls = cls, split = rep(1:5, each = n / 5))
}

# The toy's chunks in order, with chunks of no rows put at positions
# `empty` (the others keep their order).
chunks_with_empty <- function(toy, empty = integer(0), response = "y") {
  full <- lapply(split(seq_len(nrow(toy$x)), toy$split), function(rows) {
    list(x = toy$x[rows, , drop = FALSE], y = toy[[response]][rows])
  })
  none <- list(x = toy$x[0, , drop = FALSE], y = toy[[response]][0])
  out <- vector("list", length(full) + length(empty))
  out[empty] <- list(none)
  out[-empty] <- full
  if (!length(empty)) out <- full
  unname(out)
}

expect_same_coefficients <- function(a, b) {
  expect_identical(a$coefficients, b$coefficients)
  expect_identical(a$intercept, b$intercept)
  expect_identical(a$lambda, b$lambda)
}

test_that("a dense fit passes chunks of no rows by, first, middle and last", {
  toy <- empty_toy()
  map <- rff(toy$x, 48, sigma = 1, seed = 3)
  fit_of <- function(chunks, ...) {
    krr_fit(chunked(chunks), map, n_threads = 1, verbose = FALSE, parallel = "none", ...)
  }
  reference <- fit_of(chunks_with_empty(toy), lambda = 0.05)
  for (empty in list(1L, 3L, 6L, c(1L, 2L, 7L))) {
    expect_same_coefficients(fit_of(chunks_with_empty(toy, empty), lambda = 0.05), reference)
  }
  expect_same_coefficients(fit_of(chunks_with_empty(toy, 2L), lambda = "gcv"),
                           fit_of(chunks_with_empty(toy), lambda = "gcv"))
  # Futures run the same tasks (in this process under plan(sequential)).
  expect_same_coefficients(
    krr_fit(chunked(chunks_with_empty(toy, c(1L, 4L))), map, lambda = 0.05, n_threads = 1,
            verbose = FALSE, parallel = "future"),
    reference)
})

test_that("with CV the chunks keep their folds by position, and a fold of no rows is an error", {
  toy <- empty_toy()
  map <- rff(toy$x, 48, sigma = 1, seed = 3)
  # 6 chunks, chunk 2 empty, 3 folds: chunk i in fold (i - 1) %% 3 + 1.
  chunks <- chunks_with_empty(toy, 2L)
  cv <- krr_fit(chunked(chunks), map, lambda = "cv", n_folds = 3, n_threads = 1,
                verbose = FALSE, parallel = "none")
  position <- rep(c(1, 3:6), each = 100)  # the chunk of each row
  memory <- krr_fit(toy$x, toy$y, map, lambda = "cv", folds = (position - 1) %% 3 + 1,
                    n_threads = 1)
  expect_equal(cv$lambda, memory$lambda)
  expect_equal(cv$coefficients, memory$coefficients, tolerance = 1e-10)
  expect_equal(cv$path$cv, memory$path$cv, tolerance = 1e-10)

  # 6 chunks with chunk 5 empty and 4 folds: fold 1 holds chunks 1 and 5,
  # fold 4 chunk 4 alone; with chunk 4 empty instead, fold 4 has none.
  expect_silent(krr_fit(chunked(chunks_with_empty(toy, 5L)), map, lambda = "cv", n_folds = 4,
                        n_threads = 1, verbose = FALSE, parallel = "none"))
  err <- expect_error(krr_fit(chunked(chunks_with_empty(toy, 4L)), map, lambda = "cv",
                              n_folds = 4, n_threads = 1, verbose = FALSE, parallel = "none"),
                      class = "kitchen_error_argument")
  expect_match(conditionMessage(err), "fold 4 has no rows")
  expect_match(conditionMessage(err), "chunk \\(4\\) has none")
  expect_match(conditionMessage(err), "n_folds")
})

test_that("chunks that are all empty are an error, not a fit", {
  toy <- empty_toy()
  map <- rff(toy$x, 16, sigma = 1, seed = 3)
  none <- list(x = toy$x[0, ], y = numeric(0))
  expect_error(krr_fit(chunked(list(none, none)), map, lambda = 0.1, verbose = FALSE),
               class = "kitchen_error_argument", regexp = "has no rows: all 2 chunks have none")
  expect_error(krr_fit(chunked(list(none)), map, lambda = 0.1, verbose = FALSE),
               class = "kitchen_error_argument", regexp = "its chunk has none")
  expect_error(krr_fit(chunked(list(none, none)), rbin(toy$x, 4, seed = 1), lambda = 0.1,
                       verbose = FALSE),
               class = "kitchen_error_argument", regexp = "has no rows")
  expect_error(rff(chunked(list(none, none)), 16), class = "kitchen_error_argument",
               regexp = "has no rows")
})

test_that("maps built from chunks, and the default bandwidth, skip an empty chunk 1", {
  toy <- empty_toy()
  with_empty <- chunked(chunks_with_empty(toy, 1L))
  without <- chunked(chunks_with_empty(toy))
  expect_identical(rff(with_empty, 32, seed = 5), rff(without, 32, seed = 5))
  expect_identical(rbin(with_empty, 4, seed = 5), rbin(without, 4, seed = 5))
  expect_identical(fastfood(with_empty, 16, seed = 5), fastfood(without, 16, seed = 5))
  by_name <- function(data) {
    krr_fit(data, "rff", n_features = 32, seed = 5, lambda = 0.1, n_threads = 1,
            verbose = FALSE, parallel = "none")
  }
  a <- by_name(with_empty)
  b <- by_name(without)
  expect_identical(a$map, b$map)
  expect_same_coefficients(a, b)
  # per-column bandwidths learned on the first chunks with rows
  ard <- function(data) {
    krr_fit(data, rff(toy$x, 32, seed = 5), sigma = "ard", lambda = 0.1, n_threads = 1,
            verbose = FALSE, parallel = "none")
  }
  a <- ard(with_empty)
  b <- ard(without)
  expect_identical(a$map$kernel$sigma, b$map$kernel$sigma)
  expect_same_coefficients(a, b)
})

test_that("rbin fits pass chunks of no rows by, with CV by position", {
  toy <- empty_toy()
  map <- rbin(toy$x, 6, sigma = 1, seed = 4)
  fit_of <- function(chunks, ...) {
    krr_fit(chunked(chunks), map, n_threads = 1, verbose = FALSE, parallel = "none", ...)
  }
  reference <- fit_of(chunks_with_empty(toy), lambda = 0.1)
  for (empty in list(1L, 3L, 6L)) {
    fit <- fit_of(chunks_with_empty(toy, empty), lambda = 0.1)
    expect_identical(fit$coefficients, reference$coefficients)
    expect_identical(fit$intercept, reference$intercept)
  }
  cv <- fit_of(chunks_with_empty(toy, 2L), lambda = "cv", n_folds = 3)
  position <- rep(c(1, 3:6), each = 100)
  memory <- krr_fit(toy$x, toy$y, map, lambda = "cv", folds = (position - 1) %% 3 + 1,
                    n_threads = 1)
  expect_equal(cv$lambda, memory$lambda)
  expect_equal(cv$coefficients, memory$coefficients, tolerance = 1e-8)
  # a bandwidth search: its later passes see the same empty chunk
  searched <- fit_of(chunks_with_empty(toy, 2L), lambda = "cv", n_folds = 3, sigma = c(0.5, 1))
  memory <- krr_fit(toy$x, toy$y, map, lambda = "cv", folds = (position - 1) %% 3 + 1,
                    sigma = c(0.5, 1), n_threads = 1)
  expect_equal(searched$map$kernel$sigma, memory$map$kernel$sigma)
  expect_equal(searched$coefficients, memory$coefficients, tolerance = 1e-8)
})

test_that("class fits with calibration and logistic fits pass an empty chunk by", {
  toy <- empty_toy()
  map <- rff(toy$x, 32, sigma = 1, seed = 6)
  # the empty chunk last: fold 1 (chunks 1 and 6) keeps its rows
  with_empty <- chunked(chunks_with_empty(toy, 6L, response = "cls"))
  without <- chunked(chunks_with_empty(toy, response = "cls"))
  fit_of <- function(data, ...) {
    krr_fit(data, map, n_threads = 1, verbose = FALSE, parallel = "none", ...)
  }
  a <- fit_of(with_empty, lambda = "cv", n_folds = 5)
  b <- fit_of(without, lambda = "cv", n_folds = 5)
  expect_same_coefficients(a, b)
  expect_identical(predict(a, toy$x, type = "prob"), predict(b, toy$x, type = "prob"))
  # a factor of no rows with other levels, first
  odd <- chunks_with_empty(toy, 1L, response = "cls")
  odd[[1]]$y <- factor(character(0), levels = c("z", "a"))
  expect_same_coefficients(fit_of(chunked(odd), lambda = 0.1),
                           fit_of(without, lambda = 0.1))
  la <- fit_of(with_empty, lambda = 0.1, loss = "logistic")
  lb <- fit_of(without, lambda = 0.1, loss = "logistic")
  expect_identical(la$coefficients, lb$coefficients)
})

test_that("a chunk that gains or loses its rows between passes is an error", {
  toy <- empty_toy()
  map <- rff(toy$x, 16, sigma = 1, seed = 3)
  chunks <- chunks_with_empty(toy, 2L)
  # A function source whose chunk `at` is `later` from the second pass on.
  changing <- function(at, later) {
    passes <- 0
    function(i) {
      if (i == 1) passes <<- passes + 1
      if (i > length(chunks)) return(NULL)
      if (i == at && passes > 1) later else chunks[[i]]
    }
  }
  fit_of <- function(source) {
    krr_fit(chunked(source), map, lambda = "gcv", sigma = c(0.5, 1), verbose = FALSE,
            parallel = "none")
  }
  expect_error(fit_of(changing(2, chunks[[3]])), class = "kitchen_error_argument",
               regexp = "Chunk 2 had no rows on the first pass over the data and some on this one")
  expect_error(fit_of(changing(3, chunks[[2]])), class = "kitchen_error_argument",
               regexp = "Chunk 3 had some rows on the first pass over the data and none on this one")
})

test_that("a CSV file with a header alone is a chunk of no rows in a fit", {
  skip_if_not_installed("data.table")
  toy <- empty_toy()
  map <- rff(toy$x, 32, sigma = 1, seed = 3)
  dir <- tempfile("empty-csv")
  dir.create(dir)
  paths <- file.path(dir, sprintf("part%d.csv", 1:3))
  frame <- data.frame(toy$x, resp = toy$y)
  utils::write.csv(frame[1:200, ], paths[1], row.names = FALSE)
  utils::write.csv(frame[0, ], paths[2], row.names = FALSE)
  utils::write.csv(frame[201:500, ], paths[3], row.names = FALSE)
  fit <- krr_fit(chunked(paths, y = "resp"), map, lambda = 0.1, n_threads = 1, verbose = FALSE)
  memory <- krr_fit(toy$x, toy$y, map, lambda = 0.1, n_threads = 1)
  expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10)
})

test_that("a chunk of no weight is passed over as rows of none, as in memory", {
  toy <- empty_toy()
  map <- rff(toy$x, 32, sigma = 1, seed = 3)
  set.seed(9)
  weights <- runif(nrow(toy$x))
  weights[toy$split == 2] <- 0  # a month weighted out
  chunks <- lapply(split(seq_len(nrow(toy$x)), toy$split), function(rows) {
    list(x = toy$x[rows, , drop = FALSE], y = toy$y[rows], weights = weights[rows])
  })
  memory <- krr_fit(toy$x, toy$y, map, weights = weights, lambda = 0.1, n_threads = 1)
  fit <- krr_fit(chunked(chunks), map, lambda = 0.1, n_threads = 1, verbose = FALSE)
  expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10)
  # the rows of non-zero weight, as in memory (lm() counts so too)
  expect_identical(nobs(fit), nobs(memory))
  expect_identical(nobs(fit), sum(weights > 0))
  expect_equal(df.residual(fit), df.residual(memory))
  classes <- lapply(chunks, function(chunk) {
    chunk$y <- factor(chunk$y > 0, c(FALSE, TRUE))
    chunk
  })
  expect_identical(nobs(krr_fit(chunked(classes), map, lambda = 0.1, loss = "logistic",
                                n_threads = 1, verbose = FALSE)), sum(weights > 0))
  binned_map <- rbin(toy$x, 4, sigma = 1, seed = 3)
  expect_equal(krr_fit(chunked(chunks), binned_map, lambda = 0.1, n_threads = 1,
                       verbose = FALSE)$coefficients,
               krr_fit(toy$x, toy$y, binned_map, weights = weights, lambda = 0.1,
                       n_threads = 1)$coefficients, tolerance = 1e-8)
  # CV: chunk 2 alone in fold 2 of 4 leaves that fold no weight; of 3 folds, not
  expect_error(krr_fit(chunked(chunks), map, lambda = "cv", n_folds = 4, verbose = FALSE),
               class = "kitchen_error_argument", regexp = "fold 2 has no rows of positive weight")
  expect_error(krr_fit(chunked(chunks), binned_map, lambda = "cv", n_folds = 4, verbose = FALSE),
               class = "kitchen_error_argument", regexp = "fold 2 has no rows of positive weight")
  expect_no_error(krr_fit(chunked(chunks), map, lambda = "cv", n_folds = 3, verbose = FALSE))
  nothing <- lapply(chunks, function(chunk) {
    chunk$weights[] <- 0
    chunk
  })
  expect_error(krr_fit(chunked(nothing), map, lambda = 0.1, verbose = FALSE),
               class = "kitchen_error_argument", regexp = "must not all be zero: every chunk's are")
})

test_that("weights come with every chunk or with none", {
  toy <- empty_toy()
  map <- rff(toy$x, 16, sigma = 1, seed = 3)
  chunks <- lapply(split(seq_len(nrow(toy$x)), toy$split), function(rows) {
    list(x = toy$x[rows, , drop = FALSE], y = toy$y[rows], weights = rep(0.01, length(rows)))
  })
  without <- chunks
  without[[3]]$weights <- NULL
  err <- expect_error(krr_fit(chunked(without), map, lambda = 0.1, verbose = FALSE),
                      class = "kitchen_error_argument")
  expect_match(conditionMessage(err), "Chunk 3 holds bad data")
  expect_match(conditionMessage(err$parent), "It has no weights; the chunks before it have")
  late <- lapply(chunks, function(chunk) chunk[c("x", "y")])
  late[[2]]$weights <- chunks[[2]]$weights
  expect_error(krr_fit(chunked(late), rbin(toy$x, 4, seed = 1), lambda = 0.1, verbose = FALSE),
               class = "kitchen_error_argument", regexp = "Chunk 2 holds bad data")
})

test_that("chunk sources give clear messages and take 64-bit integer columns", {
  toy <- empty_toy()
  map <- rff(toy$x, 16, sigma = 1, seed = 3)
  chunks <- chunks_with_empty(toy)
  # rows of no x but a response: not a chunk of none
  odd <- chunks
  odd[[2]] <- list(x = toy$x[0, ], y = 1)
  err <- expect_error(krr_fit(chunked(odd), map, lambda = 0.1, verbose = FALSE),
                      class = "kitchen_error_argument")
  expect_match(conditionMessage(err$parent), "`x` has no rows, but `y` has 1 value")
  # a map built from chunks names the extra column
  frames <- lapply(chunks, function(chunk) data.frame(chunk$x, y = chunk$y))
  frames[[3]]$extra <- 1
  err <- expect_error(rff(chunked(frames, y = "y"), 16), class = "kitchen_error_argument")
  expect_match(conditionMessage(err), "Chunk 3")
  expect_match(conditionMessage(err$parent), "Differing: \"extra\"")
  # 64-bit integers as a database gives them (RSQLite loads bit64): values
  # beyond 32 bits
  skip_if_not_installed("RSQLite")
  plain <- lapply(chunks, function(chunk) {
    chunk$x[, "v3"] <- round(chunk$x[, "v3"]) + 2^33
    chunk
  })
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:", bigint = "integer64")
  on.exit(DBI::dbDisconnect(con))
  DBI::dbWriteTable(con, "rows", as.data.frame(plain[[1]]$x),
                    field.types = c(v1 = "REAL", v2 = "REAL", v3 = "BIGINT"))
  wide <- plain
  wide[[1]]$x <- DBI::dbGetQuery(con, "SELECT v1, v2, v3 FROM rows ORDER BY rowid")
  expect_s3_class(wide[[1]]$x$v3, "integer64")
  map <- rff(chunked(plain), 16, seed = 3)
  expect_identical(krr_fit(chunked(wide), map, lambda = 0.1, verbose = FALSE)$coefficients,
                   krr_fit(chunked(plain), map, lambda = 0.1, verbose = FALSE)$coefficients)
})
