# Bin numbers of every row in grid g straight from the definition:
# ceiling(((x - center) / scale - u) / delta), as strings to compare rows.
ref_bins <- function(map, x, g) {
  xs <- sweep(sweep(x, 2, map$center), 2, map$scale, "/")
  bins <- ceiling(sweep(sweep(xs, 2, map$shift[, g]), 2, map$pitch[, g], "/"))
  apply(bins, 1, paste, collapse = ",")
}

# Grid of each column: grid g's columns follow those of earlier grids.
column_grids <- function(map) {
  per_grid <- if (is.null(map$n_buckets)) map$n_bins else rep(map$n_buckets, map$n_grids)
  rep(seq_len(map$n_grids), per_grid)
}

test_that("rows share a column exactly when they share a bin (plain-R reference)", {
  set.seed(1)
  # Few distinct values per column, so that many rows share bins.
  x <- matrix(sample(0:4, 300 * 3, replace = TRUE) + 0.5, 300, 3)
  map <- rbin(x, n_grids = 6, sigma = 1.5, seed = 2, n_threads = 1)
  z <- predict(map, x, n_threads = 1)
  grid_of <- column_grids(map)
  for (g in seq_len(map$n_grids)) {
    zg <- z[, grid_of == g, drop = FALSE]
    col <- apply(as.matrix(zg) > 0, 1, which)
    bins <- ref_bins(map, x, g)
    expect_identical(length(unique(col)), length(unique(bins)))
    # the same partition of the rows
    expect_identical(as.integer(factor(col, unique(col))), as.integer(factor(bins, unique(bins))))
  }
  expect_identical(map$n_features, ncol(z))
  expect_identical(as.integer(sum(map$n_bins)), ncol(z))
})

test_that("the pitch law is Gamma(2, sigma) and shifts are uniform on [0, pitch]", {
  map <- rbin(4, n_grids = 5000, sigma = 3, n_buckets = 8, seed = 1)
  expect_gt(stats::ks.test(as.vector(map$pitch), "pgamma", shape = 2, scale = 3)$p.value, 1e-3)
  ratio <- as.vector(map$shift / map$pitch)
  expect_gt(stats::ks.test(ratio, "punif")$p.value, 1e-3)
})

test_that("z(x)'z(y) is an unbiased estimate of the Laplacian kernel", {
  set.seed(3)
  x <- matrix(rnorm(6 * 3), 6, 3)
  n_grids <- 20000
  map <- rbin(x, n_grids = n_grids, sigma = 2, scale = "none", seed = 4, n_threads = 2)
  z <- predict(map, x, n_threads = 2)
  estimate <- as.matrix(Matrix::tcrossprod(z))
  exact <- ref_kernel_matrix(x, x, kernel_laplacian(2))
  se <- sqrt(exact * (1 - exact) / n_grids)
  off <- upper.tri(exact)
  expect_true(all(abs(estimate - exact)[off] <= 4 * se[off] + 1e-12))
  # and the error shrinks with more grids
  small <- rbin(x, n_grids = 50, sigma = 2, scale = "none", seed = 4)
  zs <- predict(small, x)
  expect_lt(mean(abs(estimate - exact)[off]),
            mean(abs(as.matrix(Matrix::tcrossprod(zs)) - exact)[off]))
})

test_that("each row has one entry 1/sqrt(P) per grid, so z(x)'z(x) = 1", {
  set.seed(5)
  x <- matrix(rnorm(400 * 4), 400, 4)
  map <- rbin(x, n_grids = 37, sigma = 1, seed = 6)
  z <- predict(map, x)
  expect_s4_class(z, "dgCMatrix")
  expect_true(all(z@x == 1 / sqrt(37)))
  expect_equal(as.vector(Matrix::rowSums(z != 0)), rep(37, 400))
  expect_equal(Matrix::rowSums(z^2), rep(1, 400), tolerance = 1e-14)
  grid_of <- column_grids(map)
  rows <- Matrix::summary(z)
  expect_identical(as.vector(table(rows$i, grid_of[rows$j])), rep(1L, 400 * 37))
  expect_identical(attr(z, "unseen"), 0)
  expect_identical(attr(z, "rows_with_unseen"), 0)
  # identical rows, identical features
  z2 <- predict(map, x[c(7, 7, 9), ])
  expect_identical(as.matrix(z2[1, , drop = FALSE]), as.matrix(z2[2, , drop = FALSE]))
  expect_identical(as.matrix(z2[3, , drop = FALSE]), as.matrix(z[9, , drop = FALSE]))
})

test_that("points in bins no training row occupied get no feature there, and are counted", {
  set.seed(7)
  x <- matrix(runif(200 * 2), 200, 2)
  map <- rbin(x, n_grids = 10, sigma = 0.3, scale = "none", seed = 8, clip = FALSE)
  far <- rbind(c(0.5, 0.5), c(50, 50), c(-40, 3))
  z <- predict(map, far)
  per_row <- as.vector(Matrix::rowSums(z != 0))
  expect_equal(per_row[2:3], c(0, 0))
  expect_identical(attr(z, "unseen"), sum(10 - per_row))
  expect_equal(attr(z, "rows_with_unseen"), sum(per_row < 10))
  expect_identical(dim(z), c(3L, map$n_features))
})

test_that("hashed mode: fixed width, every point has a feature in every grid", {
  set.seed(9)
  x <- matrix(rnorm(300 * 3), 300, 3)
  map <- rbin(3, n_grids = 20, sigma = 1, n_buckets = 64, seed = 1)
  expect_null(map$keys)
  expect_identical(map$n_features, 20L * 64L)
  z <- predict(map, rbind(x, c(1e6, -1e6, 0)))
  expect_identical(dim(z), c(301L, 1280L))
  expect_equal(as.vector(Matrix::rowSums(z != 0)), rep(20, 301))
  rows <- Matrix::summary(z)
  expect_identical(as.vector(table(rows$i, column_grids(map)[rows$j])), rep(1L, 301 * 20))
  # same bins as the table map with the same draws: a bucket holds whole bins
  table_map <- rbin(x, n_grids = 20, sigma = 1, scale = "none", seed = 1)
  expect_identical(table_map$pitch, map$pitch)
  zt <- predict(table_map, x)
  same_bin <- as.matrix(Matrix::tcrossprod(zt)) > 0
  same_bucket <- as.matrix(Matrix::tcrossprod(z[1:300, ])) >= as.matrix(Matrix::tcrossprod(zt)) - 1e-12
  expect_true(all(same_bucket))
  expect_true(all(diag(same_bin)))
})

test_that("sparse and dense inputs give the same map and features", {
  set.seed(10)
  x <- matrix(rnorm(150 * 5), 150, 5)
  x[abs(x) < 0.8] <- 0
  xs <- Matrix::Matrix(x, sparse = TRUE)
  for (scale in c("standard", "minmax", "none")) {
    dense <- rbin(x, n_grids = 15, sigma = 1, scale = scale, seed = 11)
    sparse <- rbin(xs, n_grids = 15, sigma = 1, scale = scale, seed = 11)
    expect_equal(sparse$center, dense$center, tolerance = 1e-12)
    expect_equal(sparse$scale, dense$scale, tolerance = 1e-12)
    # same rescaling numbers: same bins
    sparse$center <- dense$center
    sparse$scale <- dense$scale
    expect_identical(predict(sparse, xs), predict(dense, x))
  }
  hashed <- rbin(5, n_grids = 15, sigma = 1, n_buckets = 32, seed = 1)
  expect_identical(predict(hashed, xs), predict(hashed, x))
})

test_that("seed, threads and SIMD levels never change the map or the features", {
  set.seed(12)
  x <- matrix(rnorm(3000 * 7, sd = 5), 3000, 7)
  a <- rbin(x, n_grids = 25, seed = 13, n_threads = 1)
  b <- rbin(x, n_grids = 25, seed = 13, n_threads = 2)
  expect_identical(a, b)
  za <- predict(a, x, n_threads = 1)
  expect_identical(predict(a, x, n_threads = 2), za)
  for (level in c("scalar", "avx2", "avx512")) {
    withr_simd <- options(kitchen.simd = level)
    expect_identical(rbin(x, n_grids = 25, seed = 13), a, label = level)
    expect_identical(predict(a, x), za, label = level)
    options(withr_simd)
  }
  # a seed leaves the random stream alone; set.seed() reproduces too
  set.seed(14)
  before <- .Random.seed
  rbin(x, n_grids = 5, seed = 1)
  expect_identical(.Random.seed, before)
  set.seed(15)
  m1 <- rbin(x, n_grids = 5)
  set.seed(15)
  expect_identical(rbin(x, n_grids = 5), m1)
})

test_that("extreme values are binned without overflow, identically on every level", {
  x <- rbind(c(1e-300, 0), c(0, 0), c(3e10, -3e10), c(-1e11, 1e11))
  map <- rbin(2, n_grids = 8, sigma = 1e-3, n_buckets = 16, seed = 1)
  # past 2^49 bins values would be clamped into shared bins: refused
  expect_error(predict(map, rbind(x, c(1e300, -1e300))), class = "kitchen_error_argument")
  z <- predict(map, x)
  expect_equal(as.vector(Matrix::rowSums(z != 0)), rep(8, 4))
  old <- options(kitchen.simd = "scalar")
  on.exit(options(old))
  expect_identical(predict(map, x), z)
  # At 1e10 / 1e-3 a rounding of x a is a hundredth of a bin, so a level
  # that fused x a - b into one rounding would move some of 3200 values to
  # the next bin (the AVX-512 path once did, rbin_terms.hpp).
  set.seed(9)
  many <- matrix(sample(c(-1, 1), 400, TRUE) * runif(400, 1e10, 1e11), 200, 2)
  scalar <- predict(map, many)
  for (level in c("avx2", "avx512")) {
    options(kitchen.simd = level)
    expect_identical(predict(map, many), scalar, label = sprintf("bins on level %s", level))
  }
})

test_that("the map survives saveRDS; print and columns by name", {
  set.seed(16)
  x <- matrix(rnorm(100 * 3), 100, 3, dimnames = list(NULL, c("a", "b", "c")))
  map <- rbin(x, n_grids = 12, seed = 17)
  path <- tempfile(fileext = ".rds")
  saveRDS(map, path)
  expect_identical(predict(readRDS(path), x), predict(map, x))
  expect_identical(predict(map, x[, c("c", "a", "b")]), predict(map, x))
  expect_output(print(map), "laplacian")
  expect_output(print(map), "occupied bins")
  expect_output(print(map), "grids +: 12")
  # the default scaling is min-max (each column's range onto [-1, 1]), and
  # the median Manhattan distance of the rescaled rows is the default sigma
  expect_identical(map$scaling, "minmax")
  low <- apply(x, 2, min)
  high <- apply(x, 2, max)
  xs <- scale(x, center = (high + low) / 2, scale = (high - low) / 2)
  expect_equal(unname(range(xs)), c(-1, 1))
  expect_equal(map$kernel$sigma, stats::median(stats::dist(xs, "manhattan")), tolerance = 1e-12)
  standard <- rbin(x, n_grids = 12, seed = 17, scale = "standard")
  expect_equal(standard$kernel$sigma, stats::median(stats::dist(scale(x), "manhattan")),
               tolerance = 1e-12)
})

test_that("bad arguments are refused with clear errors", {
  x <- matrix(rnorm(40), 20, 2)
  expect_error(rbin(x, 10, kernel = "gaussian"), "binning pitch law", class = "kitchen_error_argument")
  expect_error(rbin(x, 10, kernel = kernel_cauchy(1)), "second derivative")
  expect_error(rbin(x, 10, kernel = "matern"), "not a product")
  expect_error(rbin(x, 0), "n_grids")
  expect_error(rbin(x, 2.5), "n_grids")
  expect_error(rbin(x, 10, n_buckets = 0), "n_buckets")
  expect_error(rbin(x, 1e5, n_buckets = 1e5), "at most")
  expect_error(rbin(2, 10, sigma = 1), "n_buckets")
  expect_error(rbin(2, 10, n_buckets = 10), "sigma")
  expect_error(rbin(x, 10, sigma = -1), "sigma")
  expect_error(rbin(x, 10, n_threads = 0), "n_threads")
  bad <- x
  bad[3, 2] <- NA
  expect_error(rbin(bad, 10), "NA")
  expect_error(rbin(matrix(letters[1:4], 2), 10), "numeric")
  map <- rbin(x, 10, seed = 1)
  expect_error(predict(map, matrix(0, 2, 3)), "2 columns")
  expect_error(predict(map, bad), "NA")
  tampered <- map
  tampered$keys <- rev(tampered$keys)
  expect_error(predict(tampered, x), "not a valid")
  tampered <- map
  tampered$pitch <- NULL
  expect_error(predict(tampered, x), "not a valid")
  tampered <- map
  tampered$n_bins[1] <- tampered$n_bins[1] + 1L
  expect_error(predict(tampered, x), "not a valid")
  tampered <- map
  tampered$pitch[1] <- 0
  expect_error(predict(tampered, x), "not a valid")
})

test_that("columns of a few rows come from a cached index, rebuilt for changed keys", {
  set.seed(31)
  x <- matrix(rnorm(2000 * 3), 2000, 3)
  map <- rbin(x, 30, sigma = 0.5, seed = 32, n_threads = 1)
  all_rows <- as.matrix(predict(map, x, n_threads = 1))
  for (i in c(1, 17, 2000)) {
    expect_identical(as.matrix(predict(map, x[i, , drop = FALSE], n_threads = 1)),
                     all_rows[i, , drop = FALSE])
  }
  # A copy read back from a file has other keys vectors: same features.
  path <- tempfile(fileext = ".rds")
  saveRDS(map, path)
  back <- readRDS(path)
  expect_identical(as.matrix(predict(back, x[5:9, ], n_threads = 1)), all_rows[5:9, ])
  # Keys changed after the index was built: checked again, never stale.
  shuffled <- map
  shuffled$keys <- rev(map$keys)
  expect_error(predict(shuffled, x[1, , drop = FALSE]), "sorted")
  other <- rbin(x, 30, sigma = 0.25, seed = 32, n_threads = 1)
  swapped <- map
  swapped[c("pitch", "shift", "kernel")] <- other[c("pitch", "shift", "kernel")]
  swapped$keys <- other$keys
  swapped$n_bins <- other$n_bins
  swapped$n_features <- other$n_features
  expect_identical(predict(swapped, x[1:3, ], n_threads = 1),
                   predict(other, x[1:3, ], n_threads = 1))
  # Several maps in turn (more than the cache holds) keep their own columns.
  maps <- lapply(1:3, function(s) rbin(x, 10, sigma = 1, seed = s, n_threads = 1))
  first <- lapply(maps, function(m) predict(m, x[1:4, ], n_threads = 1))
  for (round in 1:2) {
    for (k in 3:1) expect_identical(predict(maps[[k]], x[1:4, ], n_threads = 1), first[[k]])
  }
})
