# Columns are matched by name wherever names are kept: a name must say which
# column it is (no duplicates, no NA), and fitting and predicting match
# columns the same way, in memory and in chunks.

set.seed(1)
x <- matrix(rnorm(60 * 3), 60, 3, dimnames = list(NULL, c("a", "b", "c")))
y <- x[, 1] - 2 * x[, 2] + rnorm(60, sd = 0.1)

test_that("maps refuse duplicated or NA column names", {
  dup <- x
  colnames(dup) <- c("a", "a", "c")
  with_na <- x
  colnames(with_na) <- c("a", NA, "c")
  empty <- x
  colnames(empty) <- c("a", "", "c")  # x[, ""] finds no column
  for (data in list(dup, with_na, empty)) {
    for (build in list(function(d) rff(d, 10), function(d) fastfood(d, 8),
                       function(d) rbin(d, 5), function(d) krr_fit(d, y, "rff", n_features = 10))) {
      err <- tryCatch(build(data), error = function(e) e)
      expect_s3_class(err, "kitchen_error_argument")
      expect_match(conditionMessage(err), "distinct column names")
    }
  }
})

test_that("predict() refuses new data whose matching names are duplicated", {
  map <- rff(x, 10, sigma = 1, seed = 1)
  extra <- cbind(x, a = x[, 3])  # two columns named "a"
  expect_error(predict(map, extra), class = "kitchen_error_argument", regexp = "distinct")
  # a duplicated name the map does not use is harmless
  unused <- cbind(x, z = 1, z = 2)
  expect_equal(predict(map, unused, n_threads = 1), predict(map, x, n_threads = 1))
})

test_that("a fit on chunks with reordered named columns predicts chunks the same way", {
  map <- rff(3, 50, sigma = 1, seed = 1)  # no names: chunks are matched to chunk 1
  reorder <- c("c", "a", "b")
  chunks <- list(list(x = x[1:30, ], y = y[1:30]), list(x = x[31:60, reorder], y = y[31:60]))
  fit <- krr_fit(chunked(chunks), map, lambda = 0.1, n_threads = 1)
  in_memory <- krr_fit(x, y, map, lambda = 0.1, n_threads = 1)
  expect_equal(coef(fit), coef(in_memory), tolerance = 1e-10)
  expect_equal(predict(fit, chunked(chunks), n_threads = 1),
               predict(in_memory, x, n_threads = 1), tolerance = 1e-10)
  # and in memory, by the training names too
  expect_equal(predict(fit, x[, reorder], n_threads = 1), predict(fit, x, n_threads = 1))
  expect_equal(predict(fit, cbind(x, extra = 1), n_threads = 1), predict(fit, x, n_threads = 1))
  expect_error(predict(fit, `colnames<-`(x, c("a", "b", "z"))), class = "kitchen_error_argument",
               regexp = "lacks columns")
})

test_that("chunks with duplicated names are refused", {
  map <- rff(3, 20, sigma = 1, seed = 1)
  dup <- x
  colnames(dup) <- c("a", "a", "c")
  err <- tryCatch(krr_fit(chunked(list(list(x = dup, y = y))), map, lambda = 1), error = function(e) e)
  expect_s3_class(err, "kitchen_error_argument")
  expect_match(paste(conditionMessage(err), conditionMessage(err$parent)), "distinct")
})

test_that("errors while matching by training names name predict()'s argument", {
  map <- rff(3, 20, sigma = 1, seed = 1)
  fit <- krr_fit(x, y, map, lambda = 1, n_threads = 1)
  bad <- x[, c("c", "a", "b")]
  bad[2, 1] <- NA
  err <- tryCatch(predict(fit, bad), error = function(e) e)
  expect_s3_class(err, "kitchen_error_argument")
  expect_match(conditionMessage(err), "`newdata` must not contain NA")
})

test_that("columns the map does not use are ignored whatever their type", {
  d <- mtcars
  d$id <- rownames(mtcars)
  d$when <- as.Date("2020-01-01") + seq_len(32)
  used <- c("wt", "hp", "disp")
  fit <- krr_fit(d[, used], d$mpg, n_features = 40, seed = 1, lambda = 1, n_threads = 1,
                 verbose = FALSE)
  expect_identical(predict(fit, d), predict(fit, d[, used]))
  map <- rff(d[, used], 20, seed = 1)
  expect_identical(predict(map, d), predict(map, d[, used]))
  chunks <- lapply(split(d, rep(1:4, 8)), function(p) list(x = p[, c(used, "id", "when")], y = p$mpg))
  from_chunks <- krr_fit(chunked(chunks), map, lambda = 1, n_threads = 1, verbose = FALSE)
  order <- unlist(split(seq_len(32), rep(1:4, 8)))
  expect_equal(coef(from_chunks), coef(krr_fit(d[order, used], d$mpg[order], map, lambda = 1,
                                               n_threads = 1)), tolerance = 1e-10)
  # a used column that is not numeric is still refused, by name
  bad <- d
  bad$hp <- as.character(bad$hp)
  expect_error(predict(fit, bad), "Not numeric: \"hp\"", class = "kitchen_error_argument")
})
