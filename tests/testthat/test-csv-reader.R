# CSV chunks read by data.table::fread() (when installed) give the data
# frame, and the fit, that utils::read.csv() gives.

# Evaluates expr with options(kitchen.csv_reader = reader) (NULL: unset).
with_csv_reader <- function(reader, expr) {
  old <- options(kitchen.csv_reader = reader)
  on.exit(options(old))
  expr
}

csv_chunks <- function(n_chunks = 3, rows = 200) {
  dir <- tempfile("csv-chunks")
  dir.create(dir)
  set.seed(11)
  vapply(seq_len(n_chunks), function(i) {
    frame <- data.frame(a = rnorm(rows) * 1e3, b = runif(rows), n = sample.int(50, rows, TRUE),
                        label = sample(c("low", "high"), rows, TRUE))
    frame$y <- sin(frame$a / 500) + frame$b + rnorm(rows, sd = 0.1)
    path <- file.path(dir, sprintf("chunk-%d.csv", i))
    utils::write.csv(frame, path, row.names = FALSE)
    path
  }, "")
}

test_that("fread() reads a chunk as read.csv() does, to the last bit or so", {
  skip_if_not_installed("data.table")
  paths <- csv_chunks(1)
  fast <- with_csv_reader("fread", read_csv_chunk(paths[1]))
  slow <- with_csv_reader("read.csv", read_csv_chunk(paths[1]))
  # Same columns and types; numbers to within one unit in the last place
  # (the two decimal parsers round a few values in 10,000 differently).
  expect_identical(lapply(fast, class), lapply(slow, class))
  expect_equal(fast, slow, tolerance = 1e-15)
  expect_identical(fast$label, slow$label)
  expect_identical(fast$n, slow$n)
  expect_identical(slow, utils::read.csv(paths[1]))
  expect_identical(with_csv_reader(NULL, csv_reader()), "fread")
  expect_identical(csv_reader("x.csv.gz"), "read.csv")
})

test_that("chunked CSV fits are the same with either reader", {
  skip_if_not_installed("data.table")
  paths <- csv_chunks()
  data <- chunked(paths, x = c("a", "b", "n"), y = "y")
  map <- rff(3, 40, sigma = 300, seed = 1)
  fit_with <- function(reader) {
    with_csv_reader(reader, krr_fit(data, map, n_threads = 1, verbose = FALSE))
  }
  fast <- fit_with("fread")
  slow <- fit_with("read.csv")
  expect_equal(fast$coefficients, slow$coefficients, tolerance = 1e-12)
  expect_identical(fast$lambda, slow$lambda)
  expect_output(with_csv_reader(NULL, print(data)),
                "data.table::fread")
  expect_output(with_csv_reader("read.csv", print(data)),
                "read.csv, as set by options")
  # Classes from a character column, read either way.
  labels <- chunked(paths, x = c("a", "b"), y = "label")
  expect_identical(
    with_csv_reader("fread", read_chunk(labels, 2)),
    with_csv_reader("read.csv", read_chunk(labels, 2)))
})

test_that("a wrong kitchen.csv_reader option is refused by name", {
  expect_error(with_csv_reader("vroom", csv_reader()), "kitchen.csv_reader",
               class = "kitchen_error_argument")
})
