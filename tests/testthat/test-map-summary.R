# summary() of feature maps: per-column rescaling, clipping, bandwidths and
# (rbin) bins, from the map's own fields.

test_that("summary() of each kind of map describes every input column", {
  x <- as.matrix(iris[, 1:4])
  maps <- list(rff = rff(x, 40, sigma = c(0.5, 1, 2, 4), seed = 1),
               fastfood = fastfood(x, 32, seed = 1, scale = "none"),
               rbin = rbin(x, 12, seed = 1),
               nystrom = nystrom(x, 10, seed = 1))
  for (kind in names(maps)) {
    map <- maps[[kind]]
    s <- summary(map)
    expect_s3_class(s, "summary.kitchen_map")
    cols <- s$columns
    expect_identical(rownames(cols), colnames(x))
    expect_identical(cols$center, map$center)
    expect_identical(cols$scale, map$scale)
    expect_identical(cols$low, map$clip$low)
    expect_identical(cols$high, map$clip$high)
    expect_identical(cols$sigma, rep_len(map$kernel$sigma, 4))
    expect_equal(cols$relevance, unname(relevance(map)))
    # The fields print() shows, and the size.
    expect_true(all(c("kernel", "input dimension", "features", "scaling", "size") %in%
                      names(s$fields)))
    expect_output(print(s), "Input columns")
    expect_output(print(s), "Petal.Width")
    utils::capture.output(shown <- withVisible(print(s)))
    expect_false(shown$visible)
    expect_identical(shown$value, s)
  }
  expect_identical(summary(maps$rff)$columns$relevance, c(2, 1, 0.5, 0.25))
  expect_null(summary(maps$rff)$columns$bin_width)
  expect_null(summary(maps$rff)$bins_per_grid)
})

test_that("summary() of an rbin map gives each grid's bins and the bin widths in input units", {
  set.seed(3)
  x <- cbind(a = runif(300, 0, 10), b = rnorm(300, 50, 5), c = rexp(300))
  map <- rbin(x, 15, seed = 2)
  s <- summary(map)
  expect_identical(s$bins_per_grid, map$n_bins)
  expect_identical(sum(s$bins_per_grid), as.integer(map$n_features))
  # Each grid's columns follow the previous grid's; the training rows
  # occupy every bin of the table, and no other.
  z <- predict(map, x)
  last <- cumsum(map$n_bins)
  for (g in seq_len(map$n_grids)) {
    block <- z[, (last[g] - map$n_bins[g] + 1):last[g], drop = FALSE]
    expect_identical(sum(Matrix::colSums(block != 0) > 0), map$n_bins[g])
  }
  expect_equal(s$columns$bin_width, map$scale * apply(map$pitch, 1, median))
  expect_match(s$fields[["bins per grid"]],
               sprintf("^%d to %d \\(median", min(map$n_bins), max(map$n_bins)))
  expect_output(print(s), "bin width in input units")
  # Hashed maps keep no bin table.
  hashed <- summary(rbin(x, 5, n_buckets = 32, seed = 2))
  expect_null(hashed$bins_per_grid)
  expect_false("bins per grid" %in% names(hashed$fields))
  expect_length(hashed$columns$bin_width, 3)
})

test_that("summary() of a map built from a dimension says it does not clip", {
  s <- summary(rff(3, 10, sigma = 2, seed = 1))
  expect_identical(rownames(s$columns), c("x1", "x2", "x3"))
  expect_true(all(is.na(s$columns$low)))
  expect_identical(s$columns$sigma, rep(2, 3))
  expect_output(print(s), "no clipping")
})

test_that("print() of a map summary lists at most max_columns columns", {
  x <- matrix(rnorm(60 * 30), 60, 30)
  s <- summary(rff(x, 20, seed = 1))
  expect_identical(nrow(s$columns), 30L)
  out <- capture.output(print(s, max_columns = 5))
  expect_true(any(grepl("x5", out)))
  expect_false(any(grepl("x6", out)))
  expect_true(any(grepl("and 25 more columns", out)))
  expect_true(any(grepl("and 10 more columns", capture.output(print(s)))))
})

test_that("summary() refuses a malformed map, naming the argument", {
  x <- as.matrix(iris[, 1:4])
  map <- rff(x, 10, seed = 1)
  kindless <- map
  class(kindless) <- "kitchen_map"
  expect_error(summary(kindless), class = "kitchen_error_argument")
  expect_error(summary(kindless), "`object` must be a feature map")
  bad <- map
  bad$kernel$sigma <- -1
  expect_error(summary(bad), class = "kitchen_error_argument")
  # print() of a kind-less map: the same check.
  expect_error(print(kindless), "`x` must be a feature map")
})
