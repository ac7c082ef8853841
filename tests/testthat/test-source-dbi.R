# chunked_db(): the rows of an SQL query as chunks, streamed with
# dbSendQuery() / dbFetch(n) in this process, paged by futures that connect
# themselves. Every fit equals the in-memory fit on the same rows.

db_toy <- function(n = 530, seed = 1) {
  set.seed(seed)
  rows <- data.frame(id = seq_len(n), a = runif(n, -2, 2), b = runif(n, -2, 2),
                     w = sample(1:3, n, TRUE))
  rows$y <- sin(2 * rows$a) + rows$b^2 / 2 + rnorm(n, sd = 0.1)
  rows$label <- ifelse(rows$a > 0.5, "hi", ifelse(rows$b > 0, "mid", "lo"))
  rows
}

# The rows written to a new SQLite file; returns its path.
sqlite_file <- function(rows) {
  path <- tempfile(fileext = ".sqlite")
  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  DBI::dbWriteTable(con, "points", rows)
  DBI::dbDisconnect(con)
  path
}

db_query <- "SELECT a, b, y FROM points ORDER BY id"

# Candidates of lambda that keep the solves well conditioned: chunked sums
# are added in another order than in memory, and a near-singular system
# (GCV's choice on this smooth toy goes down to 1e-8) turns those rounding
# differences into 1e-7 in the coefficients, for any source.
lambdas <- 10^seq(-3, 0, by = 0.5)

# The same rows as a list of chunks, `size` rows each: a database source
# must read exactly these, so that its fit is bit for bit the list's.
list_source <- function(rows, size, response = "y") {
  parts <- split(seq_len(nrow(rows)), (seq_len(nrow(rows)) - 1) %/% size)
  chunked(lapply(parts, function(r) list(x = rows[r, c("a", "b")], y = rows[[response]][r])))
}

test_that("a query read in chunks fits as in memory, several passes included", {
  skip_if_not_installed("RSQLite")
  rows <- db_toy()
  path <- sqlite_file(rows)
  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  x <- as.matrix(rows[c("a", "b")])
  map <- rff(2, 48, sigma = 1, seed = 2)
  data <- chunked_db(con, db_query, chunk_size = 100, y = "y")  # 6 chunks, the last of 30
  for (sigma in list(NULL, c(0.5, 1, 2))) {
    memory <- krr_fit(x, rows$y, map, lambda = lambdas, sigma = sigma, n_threads = 1)
    fit <- krr_fit(data, map, lambda = lambdas, sigma = sigma, n_threads = 1, verbose = FALSE)
    expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10)
    expect_identical(fit$coefficients,
                     krr_fit(list_source(rows, 100), map, lambda = lambdas, sigma = sigma,
                             n_threads = 1, verbose = FALSE)$coefficients)
    expect_equal(fit$intercept, memory$intercept, tolerance = 1e-10)
    expect_identical(fit$lambda, memory$lambda)
    expect_equal(fit$n, nrow(rows))
    expect_identical(fit$col_names, c("a", "b"))
  }
  expect_equal(predict(fit, data), predict(memory, x), tolerance = 1e-12)
  # The user's connection stays open, with no result left pending.
  expect_true(DBI::dbIsValid(con))
  expect_silent(DBI::dbGetQuery(con, "SELECT COUNT(*) FROM points"))

  # A function that connects: one connection per pass, closed after it.
  opened <- 0
  connect <- function() {
    opened <<- opened + 1
    DBI::dbConnect(RSQLite::SQLite(), path)
  }
  by_function <- krr_fit(chunked_db(connect, db_query, chunk_size = 100, y = "y"), map,
                         lambda = lambdas, sigma = c(0.5, 1, 2), n_threads = 1, verbose = FALSE)
  expect_equal(by_function$coefficients, memory$coefficients, tolerance = 1e-10)
  expect_identical(opened, 3)
})

test_that("chunk sizes that divide the rows, and one chunk, give the same fit", {
  skip_if_not_installed("RSQLite")
  rows <- db_toy(n = 400)
  con <- DBI::dbConnect(RSQLite::SQLite(), sqlite_file(rows))
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  map <- rff(2, 32, sigma = 1, seed = 3)
  memory <- krr_fit(as.matrix(rows[c("a", "b")]), rows$y, map, lambda = 0.1, n_threads = 1)
  for (size in c(100, 400, 1000)) {
    fit <- krr_fit(chunked_db(con, db_query, chunk_size = size, y = "y"), map, lambda = 0.1,
                   n_threads = 1, verbose = FALSE)
    expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10)
    expect_identical(fit$coefficients, krr_fit(list_source(rows, size), map, lambda = 0.1,
                                               n_threads = 1, verbose = FALSE)$coefficients)
  }
})

test_that("one query per chunk: CV folds are whole queries, as in memory", {
  skip_if_not_installed("RSQLite")
  rows <- db_toy()
  con <- DBI::dbConnect(RSQLite::SQLite(), sqlite_file(rows))
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  part <- (rows$id - 1) %/% 120 + 1  # 5 parts
  queries <- sprintf("SELECT a, b, y FROM points WHERE (id - 1) / 120 + 1 = %d ORDER BY id", 1:5)
  data <- chunked_db(con, queries, y = "y")
  map <- rff(2, 48, sigma = 1, seed = 2)
  fit <- krr_fit(data, map, lambda = "cv", n_folds = 5, n_threads = 1, verbose = FALSE)
  memory <- krr_fit(as.matrix(rows[c("a", "b")]), rows$y, map, lambda = "cv", folds = part,
                    n_threads = 1)
  expect_identical(fit$coefficients, krr_fit(list_source(rows, 120), map, lambda = "cv",
                                             n_threads = 1, verbose = FALSE)$coefficients)
  expect_equal(fit$path, memory$path, tolerance = 1e-10)
  expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10)
  # Five chunks known in advance: the default is 5-fold CV.
  expect_identical(n_chunks(data), 5L)
  expect_equal(krr_fit(data, map, n_threads = 1, verbose = FALSE)$path, memory$path,
               tolerance = 1e-10)
})

test_that("class labels in a text column, weights and chosen columns", {
  skip_if_not_installed("RSQLite")
  rows <- db_toy(seed = 4)
  con <- DBI::dbConnect(RSQLite::SQLite(), sqlite_file(rows))
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  x <- as.matrix(rows[c("a", "b")])
  map <- fastfood(2, 32, sigma = 1, seed = 5)
  data <- chunked_db(con, "SELECT * FROM points ORDER BY id", chunk_size = 128,
                     x = c("a", "b"), y = "label", weights = "w")
  fit <- krr_fit(data, map, lambda = lambdas, n_threads = 1, verbose = FALSE)
  memory <- krr_fit(x, factor(rows$label), map, lambda = lambdas, weights = rows$w, n_threads = 1)
  expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10)
  expect_identical(fit$response$levels, c("hi", "lo", "mid"))
  expect_identical(predict(fit, data, type = "class"), predict(memory, x, type = "class"))
})

test_that("read_chunk() reads any chunk of a streamed query and leaves nothing open", {
  skip_if_not_installed("RSQLite")
  rows <- db_toy(n = 250)
  con <- DBI::dbConnect(RSQLite::SQLite(), sqlite_file(rows))
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  data <- chunked_db(con, db_query, chunk_size = 100, y = "y")
  third <- read_chunk(data, 3)
  expect_equal(third$x, rows[201:250, c("a", "b")], ignore_attr = TRUE)
  expect_equal(read_chunk(data, 2)$y, rows$y[101:200])
  expect_null(read_chunk(data, 4))
  expect_silent(DBI::dbGetQuery(con, "SELECT 1"))
  expect_output(print(data), "database query, 100 rows a chunk")
  expect_output(print(data), "SQLiteConnection")
})

test_that("futures connect themselves and page the query; a connection object is refused", {
  skip_if_not_installed("RSQLite")
  skip_if_not_installed("future")
  rows <- db_toy()
  path <- sqlite_file(rows)
  x <- as.matrix(rows[c("a", "b")])
  map <- rff(2, 48, sigma = 1, seed = 2)
  memory <- krr_fit(x, rows$y, map, lambda = lambdas, sigma = c(0.5, 1), n_threads = 1)
  oplan <- future::plan(future::multisession, workers = 2, rscript_libs = .libPaths())
  on.exit(future::plan(oplan), add = TRUE)
  # `path` is a global of the function: shipped to the workers with it.
  streamed <- chunked_db(function() DBI::dbConnect(RSQLite::SQLite(), path), db_query,
                         chunk_size = 100, y = "y")
  fit <- krr_fit(streamed, map, lambda = lambdas, sigma = c(0.5, 1), verbose = FALSE)
  expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10)
  expect_identical(fit$coefficients, krr_fit(list_source(rows, 100), map, lambda = lambdas,
                                             sigma = c(0.5, 1), verbose = FALSE,
                                             parallel = "none", n_threads = 1)$coefficients)
  expect_equal(fit$n, nrow(rows))
  expect_equal(predict(fit, streamed), predict(memory, x), tolerance = 1e-12)
  queries <- sprintf("SELECT a, b, y FROM points WHERE id > %d AND id <= %d ORDER BY id",
                     c(0, 200, 400), c(200, 400, 530))
  per_query <- chunked_db(function() DBI::dbConnect(RSQLite::SQLite(), path), queries, y = "y")
  expect_equal(krr_fit(per_query, map, lambda = lambdas, sigma = c(0.5, 1), verbose = FALSE)$coefficients,
               memory$coefficients, tolerance = 1e-10)

  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  expect_error(krr_fit(chunked_db(con, db_query, y = "y"), map, lambda = 0.1, verbose = FALSE),
               class = "kitchen_error_argument", regexp = "function that connects")
  # In this process, the same object fits.
  expect_equal(krr_fit(chunked_db(con, db_query, chunk_size = 100, y = "y"), map, lambda = lambdas,
                       sigma = c(0.5, 1), verbose = FALSE, parallel = "none")$coefficients,
               memory$coefficients, tolerance = 1e-10)
})

test_that("futures reading a database leave no RNG trace for future to flag", {
  skip_if_not_installed("RSQLite")
  skip_if_not_installed("future")
  # RSQLite's finalizers write .Random.seed; run at a garbage collection in
  # future's code after a chunk task, future warned that the chunk's future
  # "unexpectedly generated random numbers" (classes, from the second fit
  # of a session on: enough rows for collections to happen in the workers)
  set.seed(3)
  n <- 22784
  rows <- as.data.frame(matrix(runif(n * 16), n, 16))
  rows$label <- ifelse(sin(3 * rows$V1) + rows$V2 > 0.8, "high", "low")
  rows$id <- seq_len(n)
  path <- tempfile(fileext = ".sqlite")
  on.exit(unlink(path), add = TRUE)
  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  DBI::dbWriteTable(con, "t", rows)
  DBI::dbDisconnect(con)
  query <- sprintf("SELECT %s, label FROM t ORDER BY id", paste0("V", 1:16, collapse = ", "))
  map <- rff(16, 200, sigma = 1, seed = 1)
  oplan <- future::plan(future::multisession, workers = 2, rscript_libs = .libPaths())
  on.exit(future::plan(oplan), add = TRUE)
  source <- chunked_db(function() DBI::dbConnect(RSQLite::SQLite(), path), query,
                       chunk_size = 3798, y = "label")
  expect_no_warning(for (k in 1:3) krr_fit(source, map, lambda = "cv", n_threads = 1,
                                           verbose = FALSE))
})

test_that("bad queries, columns and data stop the fit, naming the chunk", {
  skip_if_not_installed("RSQLite")
  rows <- db_toy(n = 300)
  rows$b[250] <- NA
  con <- DBI::dbConnect(RSQLite::SQLite(), sqlite_file(rows))
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  map <- rff(2, 16, sigma = 1, seed = 1)
  fit_of <- function(data) krr_fit(data, map, lambda = 0.1, n_threads = 1, verbose = FALSE)

  err <- tryCatch(fit_of(chunked_db(con, "SELECT a, b, y FROM nowhere", y = "y")),
                  error = function(e) e)
  expect_s3_class(err, "kitchen_error_argument")
  expect_match(conditionMessage(err), "Chunk 1 .*could not be read")
  err <- tryCatch(fit_of(chunked_db(con, db_query, chunk_size = 100, y = "resp")),
                  error = function(e) e)
  expect_match(conditionMessage(err), "Chunk 1")
  expect_match(conditionMessage(err$parent), "query lacks column")
  err <- tryCatch(fit_of(chunked_db(con, db_query, chunk_size = 100, y = "y")),
                  error = function(e) e)
  expect_match(conditionMessage(err), "Chunk 3 \\(rows 201 to 300 of the query\\) holds bad data")
  # The failed pass left no result pending on the user's connection.
  expect_silent(DBI::dbGetQuery(con, "SELECT 1"))
  err <- tryCatch(fit_of(chunked_db(con, c("SELECT a, b, y FROM points WHERE id < 200",
                                                 "SELECT a, y FROM points"), y = "y")),
                  error = function(e) e)
  expect_match(conditionMessage(err), "Chunk 2 \\(query 2\\)")
  # An empty query among several is a chunk of no rows, not the end of the
  # data (the queries after it were once silently left out).
  two <- c("SELECT a, b, y FROM points WHERE id < 100",
           "SELECT a, b, y FROM points WHERE id > 200 AND id < 250")
  expect_identical(coef(fit_of(chunked_db(con, c(two[1], "SELECT a, b, y FROM points WHERE id < 0",
                                                 two[2]), y = "y"))),
                   coef(fit_of(chunked_db(con, two, y = "y"))))
  expect_error(fit_of(chunked_db(con, "SELECT a, b, y FROM points WHERE id < 0", y = "y")),
               class = "kitchen_error_argument", regexp = "no chunks")

  expect_error(chunked_db("points.sqlite", db_query), class = "kitchen_error_argument",
               regexp = "conn")
  expect_error(chunked_db(function(path) path, db_query), class = "kitchen_error_argument",
               regexp = "no arguments")
  expect_error(chunked_db(con, ""), class = "kitchen_error_argument", regexp = "query")
  expect_error(chunked_db(con, NA_character_), class = "kitchen_error_argument", regexp = "query")
  expect_error(chunked_db(con, db_query, chunk_size = 0), class = "kitchen_error_argument",
               regexp = "chunk_size")
  expect_error(chunked_db(con, db_query, y = "y", x = "y"), class = "kitchen_error_argument",
               regexp = "must not include")
  expect_error(fit_of(chunked_db(function() "not a connection", db_query, y = "y")),
               class = "kitchen_error_argument", regexp = "must return")
  closed <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  DBI::dbDisconnect(closed)
  expect_error(chunked_db(closed, db_query), class = "kitchen_error_argument", regexp = "closed")
})

test_that("DuckDB gives the same fit (when installed)", {
  skip_if_not_installed("duckdb")
  rows <- db_toy()
  con <- DBI::dbConnect(getExportedValue("duckdb", "duckdb")())  # not in Suggests: a long build
  on.exit(DBI::dbDisconnect(con, shutdown = TRUE), add = TRUE)
  DBI::dbWriteTable(con, "points", rows)
  map <- rff(2, 48, sigma = 1, seed = 2)
  memory <- krr_fit(as.matrix(rows[c("a", "b")]), rows$y, map, lambda = lambdas,
                    sigma = c(0.5, 1), n_threads = 1)
  fit <- krr_fit(chunked_db(con, db_query, chunk_size = 100, y = "y"), map, lambda = lambdas,
                 sigma = c(0.5, 1), n_threads = 1, verbose = FALSE)
  expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10)
})

test_that("a function conn works on the first fit of a fresh session", {
  skip_if_not_installed("RSQLite")
  skip_on_os("windows")  # child_output() passes the library by environment
  path <- sqlite_file(db_toy())
  # RSQLite is loaded by the function's first call, inside the query's
  # method dispatch: the first fit of a session failed to find the method.
  out <- child_output(
    "library(kitchen)",
    sprintf("data <- chunked_db(function() DBI::dbConnect(RSQLite::SQLite(), '%s'), '%s', chunk_size = 100, y = 'y')",
            path, db_query),
    "fit <- krr_fit(data, rff(2, 16, sigma = 1, seed = 1), lambda = 0.1, verbose = FALSE)",
    "cat('rows', fit$n, '\\n')")
  expect_true(any(grepl("rows 530", out)))
})
