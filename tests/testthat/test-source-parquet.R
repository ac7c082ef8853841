# chunked_parquet(): Parquet files or folders, read one file (nanoparquet)
# or one row group (arrow) at a time. Every fit equals the in-memory fit on
# the same rows.

parquet_toy <- function(n = 600, seed = 1) {
  set.seed(seed)
  rows <- data.frame(a = runif(n, -2, 2), b = runif(n, -2, 2), w = runif(n, 0.5, 2))
  rows$y <- sin(2 * rows$a) + rows$b^2 / 2 + rnorm(n, sd = 0.1)
  rows$label <- factor(ifelse(rows$a > 0.5, "hi", ifelse(rows$b > 0, "mid", "lo")),
                       levels = c("lo", "mid", "hi"))
  rows
}

# The rows in a folder of files, one per part (subfolders for parts > 2, as
# partitioned data sets are laid out); each file in row groups of 70 rows.
parquet_folder <- function(rows, part) {
  dir <- tempfile("parquet")
  for (p in unique(part)) {
    sub <- file.path(dir, if (p > 2) sprintf("part=%d", p) else "")
    dir.create(sub, recursive = TRUE, showWarnings = FALSE)
    nanoparquet::write_parquet(rows[part == p, ], file.path(sub, sprintf("%02d.parquet", p)),
                               row_groups = seq(1L, sum(part == p), by = 70L))
  }
  dir
}

# Candidates of lambda that keep the solves well conditioned (see
# test-source-dbi.R): then chunked sums, added in another order, give the
# in-memory coefficients to 1e-10.
lambdas <- 10^seq(-3, 0, by = 0.5)

parquet_readers <- function() {
  Filter(function(r) requireNamespace(r, quietly = TRUE), c("nanoparquet", "arrow"))
}

test_that("a folder of Parquet files fits as in memory, with either reader", {
  skip_if_not_installed("nanoparquet")
  rows <- parquet_toy()
  part <- rep(1:4, c(150, 200, 100, 150))
  dir <- parquet_folder(rows, part)
  x <- as.matrix(rows[c("a", "b")])
  map <- rff(2, 48, sigma = 1, seed = 2)
  for (reader in parquet_readers()) {
    data <- chunked_parquet(dir, x = c("a", "b"), y = "y", reader = reader)
    expect_identical(n_chunks(data), if (reader == "arrow") 11L else 4L)
    for (sigma in list(NULL, c(0.5, 1, 2))) {
      memory <- krr_fit(x, rows$y, map, lambda = lambdas, sigma = sigma, n_threads = 1)
      fit <- krr_fit(data, map, lambda = lambdas, sigma = sigma, n_threads = 1, verbose = FALSE)
      expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10, label = reader)
      expect_equal(fit$intercept, memory$intercept, tolerance = 1e-10)
      expect_identical(fit$lambda, memory$lambda)
      expect_equal(fit$n, nrow(rows))
    }
    expect_equal(predict(fit, data), predict(memory, x), tolerance = 1e-12)
  }
  # nanoparquet's chunks are the files: CV folds are whole files.
  data <- chunked_parquet(dir, x = c("a", "b"), y = "y", reader = "nanoparquet")
  cv <- krr_fit(data, map, lambda = "cv", n_folds = 4, n_threads = 1, verbose = FALSE)
  expect_equal(cv$path, krr_fit(x, rows$y, map, lambda = "cv", folds = part, n_threads = 1)$path,
               tolerance = 1e-10)
  expect_output(print(data), "4 Parquet files \\(01.parquet, ...\\), 600 rows")
  expect_output(print(data), "nanoparquet, 4 chunks \\(one a file\\)")
})

test_that("files named one by one, class labels, weights and all other columns", {
  skip_if_not_installed("nanoparquet")
  rows <- parquet_toy(seed = 3)
  part <- rep(1:2, c(350, 250))
  dir <- parquet_folder(rows[c("a", "b", "w", "label")], part)
  files <- file.path(dir, c("01.parquet", "02.parquet"))
  x <- as.matrix(rows[c("a", "b")])
  map <- fastfood(2, 32, sigma = 1, seed = 5)
  memory <- krr_fit(x, rows$label, map, lambda = lambdas, weights = rows$w, n_threads = 1)
  # Missing values in a column that is not read do no harm.
  noted <- transform(rows, note = ifelse(seq_len(nrow(rows)) %% 7 == 0, NA, a * 2))
  noted_dir <- parquet_folder(noted, part)
  for (reader in parquet_readers()) {
    noted_data <- chunked_parquet(noted_dir, x = c("a", "b"), y = "label", weights = "w",
                                  reader = reader)
    fit <- krr_fit(noted_data, map, lambda = lambdas, n_threads = 1, verbose = FALSE)
    expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10)
  }
  for (reader in parquet_readers()) {
    data <- chunked_parquet(files, y = "label", weights = "w", reader = reader)
    fit <- krr_fit(data, map, lambda = lambdas, n_threads = 1, verbose = FALSE)
    expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10)
    expect_identical(fit$response$levels, c("lo", "mid", "hi"))
    expect_identical(fit$col_names, c("a", "b"))
    expect_identical(predict(fit, data, type = "class"), largest_score_class(memory, x))
  }
})

test_that("futures read Parquet chunks by path", {
  skip_if_not_installed("nanoparquet")
  skip_if_not_installed("future")
  rows <- parquet_toy()
  dir <- parquet_folder(rows, rep(1:3, 200))
  x <- as.matrix(rows[c("a", "b")])
  map <- rff(2, 48, sigma = 1, seed = 2)
  memory <- krr_fit(x, rows$y, map, lambda = lambdas, n_threads = 1)
  oplan <- future::plan(future::multisession, workers = 2, rscript_libs = .libPaths())
  on.exit(future::plan(oplan), add = TRUE)
  fit <- krr_fit(chunked_parquet(dir, x = c("a", "b"), y = "y"), map, lambda = lambdas,
                 verbose = FALSE)
  expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10)
})

test_that("bad paths, files and columns are refused by name", {
  skip_if_not_installed("nanoparquet")
  rows <- parquet_toy(n = 200)
  rows$b[150] <- NA
  dir <- parquet_folder(rows, rep(1:2, each = 100))
  map <- rff(2, 16, sigma = 1, seed = 1)
  fit_of <- function(data) krr_fit(data, map, lambda = 0.1, n_threads = 1, verbose = FALSE)

  err <- tryCatch(fit_of(chunked_parquet(dir, x = c("a", "b"), y = "y")), error = function(e) e)
  expect_s3_class(err, "kitchen_error_argument")
  expect_match(conditionMessage(err), "Chunk 2 \\(.*02.parquet\\) holds bad data")
  err <- tryCatch(fit_of(chunked_parquet(dir, x = c("a", "z"), y = "y")), error = function(e) e)
  expect_match(conditionMessage(err), "Chunk 1")
  expect_match(conditionMessage(err$parent), "lacks column")

  expect_error(chunked_parquet(file.path(dir, "nothing.parquet")),
               class = "kitchen_error_argument", regexp = "existing")
  empty <- tempfile("empty")
  dir.create(empty)
  expect_error(chunked_parquet(empty), class = "kitchen_error_argument", regexp = "no .*parquet")
  not_parquet <- file.path(empty, "fake.parquet")
  writeLines("a,b\n1,2", not_parquet)
  expect_error(chunked_parquet(not_parquet), class = "kitchen_error_argument",
               regexp = "could not be read")
  expect_error(chunked_parquet(dir, reader = "feather"), class = "kitchen_error_argument",
               regexp = "reader")
  expect_error(chunked_parquet(1), class = "kitchen_error_argument", regexp = "path")
  no_rows <- file.path(empty, "none.parquet")
  nanoparquet::write_parquet(rows[0, ], no_rows)
  expect_error(chunked_parquet(no_rows), class = "kitchen_error_argument", regexp = "no rows")
})

test_that("a Parquet file of no rows is a chunk of none: the files after it keep their folds", {
  skip_if_not_installed("nanoparquet")
  rows <- parquet_toy()
  part <- rep(1:5, c(150, 100, 100, 100, 150))
  dir <- tempfile("parquet-empty")
  dir.create(dir)
  chunk_of <- c(1, 2, 4, 5, 6)[part]  # file (and chunk) 3 is empty
  for (p in 1:5) {
    file <- file.path(dir, sprintf("p%d.parquet", chunk_of[part == p][1]))
    nanoparquet::write_parquet(rows[part == p, ], file)
  }
  nanoparquet::write_parquet(rows[0, ], file.path(dir, "p3.parquet"))
  data <- chunked_parquet(dir, x = c("a", "b"), y = "y")
  expect_identical(n_chunks(data), 6L)
  x <- as.matrix(rows[, c("a", "b")])
  map <- rff(x, 32, sigma = 1, seed = 1)
  fit <- krr_fit(data, map, lambda = lambdas, n_folds = 2, n_threads = 1, verbose = FALSE)
  memory <- krr_fit(x, rows$y, map, lambda = lambdas, folds = (chunk_of - 1) %% 2 + 1,
                    n_threads = 1)
  expect_equal(fit$path$cv, memory$path$cv, tolerance = 1e-10)
  expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10)
})
