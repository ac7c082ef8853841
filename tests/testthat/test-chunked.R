chunk_toy <- function(n = 600, d = 3, seed = 1) {
  set.seed(seed)
  x <- matrix(runif(n * d, -2, 2), n, d, dimnames = list(NULL, paste0("v", seq_len(d))))
  y <- sin(2 * x[, 1]) + x[, 2]^2 / 2 + rnorm(n, sd = 0.1)
  cls <- factor(ifelse(x[, 1] > 0.5, "a", ifelse(x[, 2] > 0, "b", "c")), levels = c("c", "a", "b"))
  list(x = x, y = y, cls = cls, split = rep(1:4, c(150, 200, 100, 150)))
}

# Chunks of rows, in order, as lists of x and the response `response`.
as_chunks <- function(toy, response = "y") {
  lapply(split(seq_len(nrow(toy$x)), toy$split), function(rows) {
    list(x = toy$x[rows, , drop = FALSE], y = toy[[response]][rows])
  })
}

# The chunks written to files, one data frame each.
write_chunks <- function(toy, ext, response = "y") {
  paths <- file.path(chunk_tempdir(), sprintf("chunk%d.%s", 1:4, ext))
  for (i in 1:4) {
    rows <- toy$split == i
    frame <- data.frame(toy$x[rows, , drop = FALSE], resp = toy[[response]][rows])
    if (ext == "csv") utils::write.csv(frame, paths[i], row.names = FALSE) else saveRDS(frame, paths[i])
  }
  paths
}

chunk_tempdir <- function() {
  dir <- tempfile("chunks")
  dir.create(dir)
  dir
}

test_that("chunked fits equal the in-memory fit, for every kind of source", {
  toy <- chunk_toy()
  map <- rff(toy$x, 64, sigma = 1, seed = 2)
  chunks <- as_chunks(toy)
  sources <- list(
    list = chunked(chunks),
    "function" = chunked(function(i) if (i <= length(chunks)) chunks[[i]]),
    csv = chunked(write_chunks(toy, "csv"), y = "resp"),
    rds = chunked(write_chunks(toy, "rds"), y = "resp"))
  for (lambda in list(0.1, "gcv", c(0.01, 1))) {
    memory <- krr_fit(toy$x, toy$y, map, lambda = lambda, n_threads = 1)
    for (kind in names(sources)) {
      fit <- krr_fit(sources[[kind]], map, lambda = lambda, n_threads = 1, verbose = FALSE,
                     block_size = 64)
      expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10, label = kind)
      expect_equal(fit$intercept, memory$intercept, tolerance = 1e-10)
      expect_identical(fit$lambda, memory$lambda)
      expect_equal(fit$path, memory$path, tolerance = 1e-10)
      expect_equal(fit$n, nrow(toy$x))
      expect_identical(fit$col_names, colnames(toy$x))
      expect_equal(fit$training_rmse, memory$training_rmse, tolerance = 1e-10)
    }
  }
})

test_that("chunked classification equals the in-memory fit, factor or character labels", {
  toy <- chunk_toy(seed = 3)
  map <- fastfood(toy$x, 64, sigma = 1, seed = 4)
  memory <- krr_fit(toy$x, toy$cls, map, lambda = "gcv", n_threads = 1)
  factor_chunks <- chunked(as_chunks(toy, "cls"))
  fit <- krr_fit(factor_chunks, map, lambda = "gcv", n_threads = 1, verbose = FALSE)
  expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10)
  expect_equal(fit$intercept, memory$intercept, tolerance = 1e-10)
  expect_identical(fit$response, memory$response)
  expect_identical(fit$response$levels, c("c", "a", "b"))

  # CSV labels are character: classes are sorted, as factor() sorts them.
  memory_chr <- krr_fit(toy$x, factor(as.character(toy$cls)), map, lambda = "gcv", n_threads = 1)
  csv <- chunked(write_chunks(toy, "csv", "cls"), y = "resp")
  fit_chr <- krr_fit(csv, map, lambda = "gcv", n_threads = 1, verbose = FALSE)
  expect_equal(fit_chr$coefficients, memory_chr$coefficients, tolerance = 1e-10)
  expect_identical(fit_chr$response$levels, c("a", "b", "c"))
  expect_identical(predict(fit_chr, csv, type = "class"), largest_score_class(memory_chr, toy$x))

  # A class absent from the first chunk still gets its column.
  late <- as_chunks(list(x = toy$x, cls = as.character(toy$cls),
                         split = ifelse(toy$cls == "b", 2, 1)), "cls")
  fit_late <- krr_fit(chunked(late), map, lambda = 0.1, n_threads = 1, verbose = FALSE)
  rows <- c(which(toy$cls != "b"), which(toy$cls == "b"))
  memory_late <- krr_fit(toy$x[rows, ], factor(as.character(toy$cls[rows])), map,
                         lambda = 0.1, n_threads = 1)
  expect_equal(fit_late$coefficients, memory_late$coefficients, tolerance = 1e-10)

  # A CSV's character labels with the map built by krr_fit(), its bandwidth
  # chosen from the leading rows (these refused a character response).
  by_name <- krr_fit(csv, n_features = 16, lambda = 0.1, seed = 1, n_threads = 1, verbose = FALSE)
  expect_identical(by_name$response$levels, c("a", "b", "c"))
  expect_error(krr_fit(chunked(write_chunks(toy, "csv", "cls"), x = c("a", "q", "r"), y = "resp"),
                       map, lambda = 0.1, n_threads = 1, verbose = FALSE),
               "lacks columns")
})

test_that("lambda = 'cv' assigns whole chunks to folds", {
  toy <- chunk_toy(seed = 5)
  map <- rff(toy$x, 48, sigma = 1, seed = 6)
  fit <- krr_fit(chunked(as_chunks(toy)), map, lambda = "cv", n_folds = 2, n_threads = 1,
                 verbose = FALSE)
  memory <- krr_fit(toy$x, toy$y, map, lambda = "cv", folds = (toy$split - 1) %% 2 + 1,
                    n_threads = 1)
  expect_equal(fit$path, memory$path, tolerance = 1e-10)
  expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10)
  expect_identical(fit$n_folds, 2L)
  expect_error(krr_fit(chunked(as_chunks(toy)), map, lambda = "cv", n_folds = 5, verbose = FALSE),
               "must not exceed the number of chunks", class = "kitchen_error_argument")
})

test_that("several bandwidths re-read the chunks and match the in-memory search", {
  toy <- chunk_toy(seed = 7)
  map <- rff(toy$x, 48, sigma = 1, seed = 8)
  reads <- 0
  chunks <- as_chunks(toy)
  source <- chunked(function(i) {
    if (i > length(chunks)) return(NULL)
    reads <<- reads + 1
    chunks[[i]]
  })
  fit <- krr_fit(source, map, sigma = c(0.5, 1, 2), lambda = c(0.01, 0.1, 1), n_threads = 1,
                 verbose = FALSE)
  memory <- krr_fit(toy$x, toy$y, map, sigma = c(0.5, 1, 2), lambda = c(0.01, 0.1, 1), n_threads = 1)
  expect_identical(reads, 12)
  expect_identical(nobs(fit), nobs(memory))  # an integer for both
  expect_equal(fit$sigma_path, memory$sigma_path, tolerance = 1e-10)
  expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10)
})

test_that("predict on chunks equals predict on the bound data", {
  toy <- chunk_toy(seed = 9)
  map <- rff(toy$x, 64, sigma = 1, seed = 10)
  fit <- krr_fit(toy$x, toy$y, map, lambda = 0.1, n_threads = 1)
  expect_equal(predict(fit, chunked(as_chunks(toy)), n_threads = 1), predict(fit, toy$x),
               tolerance = 1e-12)
  # Files without a response column, columns in another order.
  paths <- file.path(chunk_tempdir(), sprintf("x%d.rds", 1:4))
  for (i in 1:4) saveRDS(as.data.frame(toy$x[toy$split == i, 3:1]), paths[i])
  expect_equal(predict(fit, chunked(paths)), predict(fit, toy$x), tolerance = 1e-12)

  classes <- krr_fit(toy$x, toy$cls, map, n_threads = 1)
  chunks <- chunked(as_chunks(toy, "cls"))
  expect_identical(predict(classes, chunks, type = "class"), predict(classes, toy$x, type = "class"))
  expect_equal(predict(classes, chunks), predict(classes, toy$x), tolerance = 1e-12)

  two <- krr_fit(toy$x, cbind(a = toy$y, b = -toy$y), map, lambda = 0.1, n_threads = 1)
  expect_equal(predict(two, chunks), predict(two, toy$x), tolerance = 1e-12)

  # A file with a header and no rows (no new rows that day) predicts none;
  # its columns read as logical ones, which were "not numeric".
  skip_if_not_installed("data.table")
  csv <- file.path(chunk_tempdir(), sprintf("new%d.csv", 1:3))
  utils::write.csv(as.data.frame(toy$x[1:10, ]), csv[1], row.names = FALSE)
  utils::write.csv(as.data.frame(toy$x[0, ]), csv[2], row.names = FALSE)
  utils::write.csv(as.data.frame(toy$x[11:20, ]), csv[3], row.names = FALSE)
  expect_equal(predict(fit, chunked(csv)), predict(fit, toy$x[1:20, ]), tolerance = 1e-12)
})

test_that("a bad chunk stops the fit with an error naming it", {
  toy <- chunk_toy(seed = 11)
  map <- rff(toy$x, 32, sigma = 1, seed = 12)
  chunks <- as_chunks(toy)
  fit_error <- function(source) {
    expect_error(krr_fit(source, map, n_threads = 1, verbose = FALSE),
                 class = "kitchen_error_argument")
  }

  with_na <- chunks
  with_na[[3]]$x[5, 2] <- NA
  err <- fit_error(chunked(with_na))
  expect_match(conditionMessage(err), "Chunk 3 holds bad data")
  expect_match(conditionMessage(err), "NA")
  # a map built by name from the chunks says what was wrong too
  text <- chunks
  text[[3]]$x <- data.frame(text[[3]]$x, junk = "a")
  err <- expect_error(krr_fit(chunked(text), "rff", n_features = 20, seed = 1, n_threads = 1,
                              verbose = FALSE), class = "kitchen_error_argument")
  expect_match(conditionMessage(err), "Chunk 3 holds bad data")
  expect_match(conditionMessage(err), "Not numeric: \"junk\"")

  wrong_cols <- chunks
  wrong_cols[[2]]$x <- wrong_cols[[2]]$x[, 1:2]
  expect_match(conditionMessage(fit_error(chunked(wrong_cols))), "Chunk 2 holds bad data")

  wrong_y <- chunks
  wrong_y[[4]]$y <- wrong_y[[4]]$y[-1]
  expect_match(conditionMessage(fit_error(chunked(wrong_y))), "Chunk 4")

  # Factor levels are combined as c() combines factors: chunk 1's order
  # first, and a chunk may lack a class (files split by class).
  levels_differ <- as_chunks(toy, "cls")
  levels_differ[[2]]$y <- factor(as.character(levels_differ[[2]]$y))
  levels_differ[[3]]$y <- factor(rep("a", length(levels_differ[[3]]$y)))
  labels <- factor(unlist(lapply(levels_differ, function(ch) as.character(ch$y))),
                   levels = levels(toy$cls))
  combined <- krr_fit(chunked(levels_differ), map, lambda = 0.1, n_threads = 1, verbose = FALSE,
                      parallel = "none")
  in_memory <- krr_fit(toy$x, labels, map, lambda = 0.1, n_threads = 1)
  expect_identical(combined$response$levels, levels(toy$cls))
  expect_equal(combined$coefficients, in_memory$coefficients, tolerance = 1e-10)

  failing <- chunked(function(i) if (i == 2) stop("connection lost") else if (i <= 4) chunks[[i]])
  err <- fit_error(failing)
  expect_match(conditionMessage(err), "Chunk 2 could not be read")
  expect_match(conditionMessage(err), "connection lost")

  paths <- write_chunks(toy, "csv")
  reader_fails <- chunked(paths, y = "resp", reader = function(path) {
    if (grepl("chunk3", path)) stop("disk error")
    utils::read.csv(path)
  })
  err <- fit_error(reader_fails)
  expect_match(conditionMessage(err), "Chunk 3 \\(.*chunk3\\.csv\\) could not be read")
  expect_match(conditionMessage(err), "disk error")

  writeLines("v1,v2,other\n1,2,3", paths[2])
  err <- fit_error(chunked(paths, y = "resp"))
  expect_match(conditionMessage(err), "Chunk 2 \\(.*chunk2\\.csv\\) could not be read")
  expect_match(conditionMessage(err), "resp")

  no_y <- chunks
  no_y[[1]]$y <- NULL
  expect_match(conditionMessage(fit_error(chunked(no_y))), "Chunk 1 holds bad data")
  expect_error(predict(krr_fit(toy$x, toy$y, map, lambda = 1, n_threads = 1), chunked(with_na)),
               "Chunk 3 could not be predicted", class = "kitchen_error_argument")
})

test_that("chunked fits refuse what they cannot do", {
  toy <- chunk_toy(seed = 13)
  data <- chunked(as_chunks(toy))
  map <- rff(toy$x, 16, sigma = 1, seed = 1)
  expect_error(krr_fit(data, map, y = toy$y), "each chunk holds its response",
               class = "kitchen_error_argument")
  # the same message with a map given or built by name
  for (features in list(map, "rff")) {
    expect_error(krr_fit(data, features, folds = rep(1:2, 10)), "CV's folds are whole chunks",
                 class = "kitchen_error_argument")
  }
  expect_error(krr_fit(data, map, n_features = 10), "already a map", class = "kitchen_error_argument")
  expect_error(krr_fit(chunked(function(i) NULL), map, verbose = FALSE), "no chunks",
               class = "kitchen_error_argument")
  one_class <- lapply(as_chunks(toy), function(ch) list(x = ch$x, y = rep("a", nrow(ch$x))))
  expect_error(krr_fit(chunked(one_class), map, verbose = FALSE), "at least two classes",
               class = "kitchen_error_argument")
})

test_that("chunked() checks its arguments", {
  toy <- chunk_toy(seed = 14)
  chunks <- as_chunks(toy)
  expect_error(chunked(list()), "at least one chunk", class = "kitchen_error_argument")
  expect_error(chunked(list(x = toy$x, y = toy$y)), "Element 1", class = "kitchen_error_argument")
  expect_error(chunked(data.frame(a = 1)), "source", class = "kitchen_error_argument")
  expect_error(chunked(42), "source", class = "kitchen_error_argument")
  expect_error(chunked(function() NULL), "takes no argument", class = "kitchen_error_argument")
  expect_error(chunked(chunks, y = "resp"), "only for file paths", class = "kitchen_error_argument")
  expect_error(chunked(chunks, reader = readRDS), "reader", class = "kitchen_error_argument")
  expect_error(chunked(file.path(tempdir(), "no-such-file.csv")), "Not found",
               class = "kitchen_error_argument")
  expect_error(chunked(character()), "source", class = "kitchen_error_argument")
  paths <- write_chunks(toy, "csv")
  expect_error(chunked(paths, y = 1), "y", class = "kitchen_error_argument")
  expect_error(chunked(paths, y = "resp", x = c("v1", "resp")), "must not include",
               class = "kitchen_error_argument")
  expect_error(chunked(paths, x = NA_character_), "x", class = "kitchen_error_argument")
  expect_error(chunked(paths, reader = "read.csv"), "reader", class = "kitchen_error_argument")
  other <- file.path(dirname(paths[1]), "data.parquet")
  file.create(other)
  expect_error(chunked(other), "Unknown format", class = "kitchen_error_argument")
  expect_s3_class(chunked(other, reader = function(p) data.frame(a = 1)), "kitchen_chunked")
  expect_error(read_chunk(chunks, 1), "chunked", class = "kitchen_error_argument")
  data <- chunked(chunks)
  expect_identical(read_chunk(data, 2), chunks[[2]])
  expect_null(read_chunk(data, 5))
  expect_error(read_chunk(data, 0), "i", class = "kitchen_error_argument")
})

test_that("chunked data print their kind and number of chunks", {
  toy <- chunk_toy(seed = 15)
  chunks <- as_chunks(toy)
  expect_output(print(chunked(chunks)), "list of 4 chunks")
  expect_output(print(chunked(function(i) NULL)), "function of the chunk number")
  paths <- write_chunks(toy, "rds")
  out <- capture.output(print(chunked(paths, y = "resp")))
  expect_match(out, "4 files \\(chunk1.rds, \\.\\.\\.\\)", all = FALSE)
  expect_match(out, "column \"resp\"", all = FALSE)
  expect_match(out, "all other columns", all = FALSE)
  expect_output(print(chunked(paths[1], x = c("v1", "v2"))), "v1, v2")
})

test_that("a map whose range the chunks leave far behind is warned about", {
  set.seed(3)
  t <- sort(runif(1000, 0, 5))
  split <- cut(t, 5, labels = FALSE)  # chunks split by the value of t
  chunks <- lapply(1:5, function(i) {
    list(x = matrix(t[split == i], dimnames = list(NULL, "t")), y = sin(t[split == i]))
  })
  data <- chunked(chunks)
  first <- read_chunk(data, 1)$x
  expect_warning(krr_fit(data, rff(first, 20, seed = 1), lambda = 0.01, verbose = FALSE),
                 "[0-9.]+% of the training rows lie outside")
  expect_warning(krr_fit(data, rbin(first, 5, seed = 1), lambda = 0.01, verbose = FALSE),
                 "[0-9.]+% of the training rows lie outside")
  # without clipping, or with a map that covers the chunks: no warning
  expect_no_warning(krr_fit(data, rff(first, 20, seed = 1, clip = FALSE), lambda = 0.01,
                            verbose = FALSE))
  expect_no_warning(krr_fit(data, rff(matrix(t, dimnames = list(NULL, "t")), 20, seed = 1),
                            lambda = 0.01, verbose = FALSE))
  # rows_far_outside() counts rows beyond the range by more than its width
  range <- list(low = c(0, 10), high = c(1, 20))
  x <- rbind(c(0.5, 15), c(2.1, 15), c(-0.5, 15), c(0.5, 31), c(0.5, 29))
  expect_identical(rows_far_outside(x, range), 2L)
  expect_equal(rows_far_outside(x, NULL), 0)
})

test_that("a list of data frames is a source, with its columns named as for files", {
  d <- mtcars
  d$w <- seq(0.5, 2, length.out = 32)
  parts <- split(d, d$cyl)
  frames <- chunked(parts, y = "mpg", x = c("wt", "hp"), weights = "w")
  expect_output(print(frames), "list of 3 data frames")
  lists <- chunked(lapply(parts, function(p) list(x = p[c("wt", "hp")], y = p$mpg, weights = p$w)))
  map <- rff(as.matrix(d[c("wt", "hp")]), 20, sigma = 1, seed = 1)
  expect_identical(coef(krr_fit(frames, map, lambda = 1, n_threads = 1, verbose = FALSE)),
                   coef(krr_fit(lists, map, lambda = 1, n_threads = 1, verbose = FALSE)))
  expect_identical(predict(krr_fit(lists, map, lambda = 1, n_threads = 1, verbose = FALSE),
                           chunked(parts, x = c("wt", "hp"))),
                   predict(krr_fit(lists, map, lambda = 1, n_threads = 1, verbose = FALSE),
                           lists))
  expect_error(krr_fit(chunked(parts, y = "nope"), map, lambda = 1, verbose = FALSE),
               "lacks column")
  expect_error(chunked(parts, reader = readRDS), "only for file paths")
})

test_that("many chunks of unequal size, folds and weights give the in-memory fit", {
  # From the (folds + 1)-th chunk on, each chunk's Z'Z is added in place and
  # its matrix reused by the next chunk (R/krr_statistics.R add_statistics()).
  set.seed(9)
  n <- 900
  x <- matrix(runif(n * 3, -2, 2), n, 3)
  y <- sin(2 * x[, 1]) + x[, 2] / 2 + rnorm(n, sd = 0.1)
  w <- runif(n, 0.5, 2)
  split <- rep(1:9, c(50, 150, 80, 120, 100, 90, 110, 130, 70))
  chunks <- lapply(1:9, function(i) list(x = x[split == i, ], y = y[split == i], weights = w[split == i]))
  map <- rff(x, 40, sigma = 1, seed = 3)
  for (lambda in list(0.05, "gcv")) {
    fit <- krr_fit(chunked(chunks), map, lambda = lambda, n_threads = 1, verbose = FALSE)
    memory <- krr_fit(x, y, map, lambda = lambda, weights = w, n_threads = 1)
    expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10)
    expect_identical(fit$lambda, memory$lambda)
  }
  fit <- krr_fit(chunked(chunks), map, lambda = "cv", n_folds = 3, n_threads = 1, verbose = FALSE)
  memory <- krr_fit(x, y, map, lambda = "cv", weights = w, folds = (split - 1) %% 3 + 1,
                    n_threads = 1)
  expect_equal(fit$path, memory$path, tolerance = 1e-10)
  expect_equal(fit$coefficients, memory$coefficients, tolerance = 1e-10)
})
