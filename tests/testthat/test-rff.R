# Mean and max absolute error of z(x)'z(y) against the exact kernel over all
# pairs of rows of x (rescaling off, so the kernel applies to x as it is).
rff_errors <- function(x, kernel, n_features, type = "cos_sin", seed = 1) {
  map <- rff(x, n_features, kernel = kernel, type = type, scale = "none", seed = seed)
  z <- predict(map, x, n_threads = 1)
  err <- abs(tcrossprod(z) - kernel_matrix(x, kernel = kernel))
  c(mean = mean(err), max = max(err))
}

test_that("z(x)'z(y) approaches every kernel like 1/sqrt(n_features)", {
  set.seed(10)
  x <- matrix(rnorm(60 * 4), 60, 4)
  kernels <- list(kernel_gaussian(2), kernel_laplacian(3), kernel_cauchy(1.5),
                  kernel_matern(2, nu = 1.5))
  for (k in kernels) {
    small <- rff_errors(x, k, 256)
    large <- rff_errors(x, k, 256 * 16)
    # 16 times the features: error about 4 times smaller.
    expect_gt(small[["mean"]] / large[["mean"]], 2.5, label = k$name)
    # Hoeffding (Rahimi & Recht, claim 1): each of the m = D/2 terms lies in
    # [-1, 1], so P(|error| >= eps) <= 2 exp(-m eps^2 / 2) for one pair; eps
    # below makes that 1e-8, small even over the 1830 pairs.
    m <- 256 * 16 / 2
    expect_lt(large[["max"]], sqrt(2 * log(2 / 1e-8) / m), label = k$name)
  }
})

test_that("cos_phase features approximate the kernel too", {
  set.seed(11)
  x <- matrix(rnorm(40 * 3), 40, 3)
  small <- rff_errors(x, kernel_gaussian(1.5), 512, type = "cos_phase")
  large <- rff_errors(x, kernel_gaussian(1.5), 8192, type = "cos_phase")
  expect_gt(small[["mean"]] / large[["mean"]], 2.5)
  expect_lt(large[["mean"]], 0.03)
})

test_that("cos_sin features have unit norm; cos_phase close to it", {
  set.seed(12)
  x <- matrix(rnorm(50 * 5), 50, 5)
  z <- predict(rff(x, 200, sigma = 1, seed = 3), x)
  expect_equal(rowSums(z^2), rep(1, 50), tolerance = 1e-12)
  z <- predict(rff(x, 4000, sigma = 1, type = "cos_phase", seed = 3), x)
  expect_equal(rowSums(z^2), rep(1, 50), tolerance = 0.1)
  expect_identical(dim(z), c(50L, 4000L))
})

test_that("features equal cos/sin of the rescaled data times the frequencies", {
  set.seed(13)
  x <- matrix(rnorm(30 * 4, mean = 5, sd = 3), 30, 4)
  for (type in c("cos_sin", "cos_phase")) {
    map <- rff(x, 64, kernel = "gaussian", sigma = 2, type = type, seed = 4)
    xs <- sweep(sweep(x, 2, map$center), 2, map$scale, "/")
    w <- map$projection * map$scale  # back to frequencies / sigma
    proj <- xs %*% w
    expected <- if (type == "cos_sin") cbind(cos(proj), sin(proj)) / sqrt(32) else
      sqrt(2 / 64) * cos(sweep(proj, 2, map$phases, "+"))
    expect_equal(predict(map, x), expected, tolerance = 1e-12)
  }
})

test_that("rescaling: standard, minmax, none, constant columns", {
  x <- cbind(a = c(1, 2, 3, 4), b = c(10, 10, 10, 10), c = c(-1, 1, -1, 1))
  st <- rff(x, 8, sigma = 1, scale = "standard", seed = 1)
  expect_equal(st$center, c(2.5, 10, 0))
  expect_equal(st$scale, c(sd(1:4), 10, sd(c(-1, 1, -1, 1))))  # constant: its size
  mm <- rff(x, 8, sigma = 1, scale = "minmax", seed = 1)
  expect_equal(mm$center, c(2.5, 10, 0))
  expect_equal(mm$scale, c(1.5, 10, 1))
  none <- rff(x, 8, sigma = 1, scale = "none", seed = 1)
  expect_equal(none$center, c(0, 0, 0))
  expect_equal(none$scale, c(1, 1, 1))
  expect_true(all(is.finite(predict(st, x))))
})

test_that("sparse and dense inputs give the same features", {
  set.seed(14)
  dense <- matrix(rnorm(80 * 6) * (runif(80 * 6) < 0.3), 80, 6)
  sparse <- Matrix::Matrix(dense, sparse = TRUE)
  expect_s4_class(sparse, "dgCMatrix")
  for (scale in c("standard", "minmax", "none")) {
    map_d <- rff(dense, 64, sigma = 2, scale = scale, seed = 5)
    map_s <- rff(sparse, 64, sigma = 2, scale = scale, seed = 5)
    expect_equal(map_s$center, map_d$center, tolerance = 1e-12)
    expect_equal(map_s$scale, map_d$scale, tolerance = 1e-12)
    expect_equal(predict(map_s, sparse), predict(map_d, dense), tolerance = 1e-12)
    expect_equal(predict(map_d, sparse, n_threads = 2), predict(map_d, dense), tolerance = 1e-12)
  }
})

test_that("other sparse classes are taken as the dgCMatrix they equal", {
  set.seed(15)
  sparse <- Matrix::rsparsematrix(60, 8, 0.2)
  y <- rnorm(60)
  map <- rff(sparse, 32, sigma = 2, seed = 5)
  fit <- krr_fit(sparse, y, map, lambda = 1, n_threads = 1)
  others <- list(triplet = methods::as(sparse, "TsparseMatrix"),
                 rows = methods::as(sparse, "RsparseMatrix"))
  for (name in names(others)) {
    other <- others[[name]]
    expect_identical(rff(other, 32, sigma = 2, seed = 5), map, info = name)
    expect_identical(predict(map, other), predict(map, sparse), info = name)
    expect_identical(predict(fit, other), predict(fit, sparse), info = name)
    expect_identical(coef(krr_fit(other, y, map, lambda = 1, n_threads = 1)), coef(fit), info = name)
  }
  # A logical (pattern of non-zeros) matrix is its 0 / 1 numbers.
  pattern <- sparse != 0
  expect_identical(predict(map, pattern), predict(map, (sparse != 0) * 1))
  expect_error(rff(others$triplet[, 0], 10, sigma = 1), "`x` must have at least one row and one column")
})

test_that("sparse new rows are clipped as dense ones, their unstored zeros too", {
  set.seed(15)
  # column a never 0 in training: 0 lies outside its range and is clipped
  x <- matrix(runif(200, 1, 3), 100, 2, dimnames = list(NULL, c("a", "b")))
  new <- matrix(c(0, 2, 5, 0, 0, 0), 3, 2, byrow = TRUE, dimnames = list(NULL, c("a", "b")))
  sparse <- Matrix::Matrix(new, sparse = TRUE)
  for (builder in list(rff, fastfood)) {
    map <- builder(x, 16, sigma = 1, seed = 1)
    expect_equal(predict(map, sparse), predict(map, new), tolerance = 1e-12)
  }
  binned <- rbin(x, 8, sigma = 1, seed = 1)
  expect_equal(as.matrix(predict(binned, sparse)), as.matrix(predict(binned, new)))
  fit <- krr_fit(x, x[, 1] - x[, 2], rff(x, 16, sigma = 1, seed = 1), lambda = 1, n_threads = 1)
  expect_equal(predict(fit, sparse), predict(fit, new), tolerance = 1e-12)
})

test_that("the median-distance bandwidth is used when sigma is NULL", {
  set.seed(15)
  x <- matrix(rnorm(100 * 3), 100, 3)
  map <- rff(x, 16, scale = "none", seed = 1)
  expect_equal(map$kernel$sigma, median(dist(x)))
  map <- rff(x, 16, kernel = "laplacian", scale = "none", seed = 1)
  expect_equal(map$kernel$sigma, median(dist(x, method = "manhattan")))
  # A kernel object keeps its own sigma; an explicit sigma wins.
  expect_equal(rff(x, 16, kernel = kernel_gaussian(7), seed = 1)$kernel$sigma, 7)
  expect_equal(rff(x, 16, kernel = kernel_gaussian(7), sigma = 2, seed = 1)$kernel$sigma, 2)
  # Mostly identical rows (indicators): the median over distinct rows, not 0
  # (nor a silent 1); all rows identical: 1.
  indicators <- matrix(c(rep(0, 80), rep(1, 20)), 100, 2)
  indicators[1:10, 2] <- 1
  distances <- dist(indicators)
  expect_equal(median(distances), 0)
  expect_equal(rff(indicators, 16, scale = "none", seed = 1)$kernel$sigma,
               median(distances[distances > 0]))
  expect_equal(rbin(indicators, 4, scale = "none", seed = 1, n_threads = 1)$kernel$sigma,
               median(dist(indicators, method = "manhattan")[distances > 0]))
  expect_equal(rff(matrix(1, 5, 2), 16, scale = "none", seed = 1)$kernel$sigma, 1)
})

test_that("a seed reproduces the map and leaves the random stream alone", {
  x <- matrix(rnorm(40), 20, 2)
  set.seed(99)
  before <- .Random.seed
  a <- rff(x, 32, seed = 7)
  expect_identical(.Random.seed, before)
  expect_identical(rff(x, 32, seed = 7), a)
  set.seed(3)
  b <- rff(x, 32)
  set.seed(3)
  expect_identical(rff(x, 32), b)
  expect_false(identical(rff(x, 32, seed = 8)$projection, a$projection))
})

test_that("features do not depend on the number of threads", {
  set.seed(16)
  x <- matrix(rnorm(1000 * 7), 1000, 7)
  for (type in c("cos_sin", "cos_phase")) {
    map <- rff(x, 256, type = type, seed = 2)
    expect_identical(predict(map, x, n_threads = 2), predict(map, x, n_threads = 1))
  }
})

test_that("a dimension instead of data builds a map with no rescaling", {
  map <- rff(3, 100, sigma = 1, seed = 1)
  expect_identical(map$d, 3L)
  expect_identical(map$scaling, "none")
  z <- predict(map, matrix(0, 2, 3))
  expect_identical(dim(z), c(2L, 100L))
  expect_error(rff(3, 100), "`sigma` must be given")
})

test_that("columns are matched by name; data frames are accepted", {
  set.seed(17)
  x <- data.frame(a = rnorm(20), b = rnorm(20), c = rnorm(20))
  map <- rff(x, 16, seed = 1)
  z <- predict(map, x)
  expect_identical(predict(map, x[, c("c", "a", "b")]), z)
  expect_identical(predict(map, as.matrix(x)), z)
  expect_error(predict(map, x[, c("a", "b")]), "Missing: \"c\"")
  expect_error(predict(map, unname(as.matrix(x))[, 1:2]), "must have 3 columns")
})

test_that("the map is a small plain list that survives saveRDS", {
  set.seed(18)
  x <- matrix(rnorm(200), 50, 4)
  map <- rff(x, 64, seed = 1)
  path <- tempfile(fileext = ".rds")
  saveRDS(map, path)
  again <- readRDS(path)
  expect_identical(predict(again, x), predict(map, x))
  expect_s3_class(map, c("kitchen_rff", "kitchen_map"))
  expect_lt(as.numeric(object.size(map)), 10000)
})

test_that("print shows kernel, sigma, d, n_features and type", {
  map <- rff(5, 100, kernel = kernel_matern(2, nu = 2.5), seed = 1)
  expect_output(print(map), "random Fourier features")
  expect_output(print(map), "matern \\(sigma = 2, nu = 2.5\\)")
  expect_output(print(map), "input dimension : 5")
  expect_output(print(map), "100 \\(cos_sin\\)")
})

test_that("bad arguments are refused with clear errors", {
  x <- matrix(rnorm(20), 10, 2)
  expect_error(rff(x, 0), "`n_features` must be a whole number >= 1")
  expect_error(rff(x, 2.5), "`n_features`")
  expect_error(rff(x, 7), "`n_features` must be even")
  expect_no_error(rff(x, 7, type = "cos_phase"))
  expect_error(rff(x, 8, sigma = 0), "`sigma` must be a positive number")
  expect_error(rff(x, 8, sigma = -1), "`sigma` must be a positive number")
  expect_error(rff(x, 8, kernel = "rbf"), "`kernel` must be one of")
  expect_error(rff(x, 8, type = "sin"), "type")
  x_na <- x
  x_na[3, 2] <- NA
  expect_error(rff(x_na, 8), "must not contain NA")
  expect_error(rff(matrix(letters[1:4], 2), 8), "`x` must be")
  map <- rff(x, 8, seed = 1)
  expect_error(predict(map, matrix(0, 3, 3)), "must have 2 columns")
  expect_error(predict(map, x_na), "must not contain NA")
  expect_error(predict(map, x, n_threads = 0), "`n_threads`")
  broken <- map
  broken$projection <- NULL
  expect_error(predict(broken, x), "not a valid")
})

test_that("every SIMD level computes cos/sin to within 1e-12 of R's, at any argument size", {
  set.seed(19)
  # Arguments x w / sigma spread over about [-1e5, 1e5].
  x <- matrix(runif(300 * 2, -1, 1) * 10^runif(600, 0, 3), 300, 2)
  map <- rff(x, 512, sigma = 0.01, scale = "none", seed = 6, clip = FALSE)
  # Inputs and frequencies with few significant bits, so that x w is exact
  # however it is summed (the SIMD projections fuse multiply-adds, R's
  # reference BLAS does not): what is compared is the sine and cosine alone.
  x <- round(x * 2^10) / 2^10
  map$projection <- round(map$projection * 2^20) / 2^20
  proj <- x %*% map$projection
  expected <- cbind(cos(proj), sin(proj)) / sqrt(256)
  expect_gt(max(abs(proj)), 1e4)
  for (level in c("scalar", "avx2", "avx512")) {
    z <- with_simd(level, predict(map, x))
    expect_lt(max(abs(z - expected)), 1e-12 / sqrt(256))
  }
})

test_that("the SIMD products give the dense features across every block edge", {
  # Sizes straddling the packed product's blocks: 192 rows per unit, 256
  # inputs per depth block, strips of 24 (AVX-512) or 12 (AVX2) frequencies,
  # groups of 16 strips; up to 8 rows take the direct path, unpacked.
  set.seed(23)
  for (size in list(c(1, 1, 2), c(5, 7, 26), c(193, 257, 2 * 385), c(400, 40, 2 * 200))) {
    n <- size[1]
    d <- size[2]
    x <- matrix(rnorm(n * d), n, d)
    map <- rff(x, size[3], sigma = sqrt(d), scale = "none", seed = 1)
    proj <- x %*% map$projection
    expected <- cbind(cos(proj), sin(proj)) / sqrt(ncol(proj))
    label <- paste(size, collapse = " x ")
    z <- predict(map, x, n_threads = 2)
    expect_lt(max(abs(z - expected)), 1e-14 * max(1, sqrt(d)))
    expect_identical(predict(map, x, n_threads = 1), z, label = label)
    # A row's features do not depend on the rows predicted with it.
    expect_identical(predict(map, x[n:1, , drop = FALSE])[n:1, , drop = FALSE], z, label = label)
    expect_identical(predict(map, x[n, , drop = FALSE]), z[n, , drop = FALSE], label = label)
    # AVX2 and AVX-512 sum in the same order; Eigen differs in rounding.
    expect_identical(with_simd("avx2", predict(map, x)), z, label = label)
    expect_equal(with_simd("scalar", predict(map, x)), z, tolerance = 1e-13)
  }
})

test_that("R's BLAS and the Eigen product give the same features", {
  set.seed(20)
  x <- matrix(rnorm(3000 * 9), 3000, 9)
  map <- rff(x, 128, seed = 1)
  with_gemm <- function(choice) {
    old <- options(kitchen.gemm = choice)
    on.exit(options(old))
    predict(map, x)
  }
  expect_equal(with_gemm("blas"), with_gemm("eigen"), tolerance = 1e-13)
  expect_identical(with_gemm("blas"), with_gemm("blas"))
  old <- options(kitchen.gemm = "fast")
  on.exit(options(old))
  expect_error(predict(map, x), "kitchen.gemm")
})

test_that("kernel parameters in ... are checked", {
  x <- matrix(rnorm(20), 10, 2)
  expect_identical(rff(x, 8, kernel = "matern", nu = 2.5, seed = 1)$kernel$nu, 2.5)
  expect_error(rff(x, 8, kernel = "gaussian", nu = 2), "no such parameter")
  expect_error(rff(x, 8, kernel = kernel_matern(), nu = 3), "only used with a kernel name")
  expect_error(rff(data.frame(), 8), "at least one row and one column")
})

test_that("one row at a time gives the same features as a batch", {
  set.seed(21)
  x <- matrix(rnorm(20 * 6), 20, 6)
  for (type in c("cos_sin", "cos_phase")) {
    map <- rff(x, 600, type = type, seed = 3)
    batch <- predict(map, x)
    rows <- t(vapply(1:20, function(i) predict(map, x[i, , drop = FALSE]), numeric(600)))
    expect_equal(rows, batch, tolerance = 1e-15)
    expect_equal(predict(map, x[1:3, ]), batch[1:3, ], tolerance = 1e-15)
  }
})

test_that("sparse columns' ranges count their unstored zeros, as dense ones", {
  set.seed(11)
  for (i in 1:15) {
    n <- sample(1:25, 1)
    x <- Matrix::rsparsematrix(n, sample(1:12, 1), runif(1))
    x[, 1] <- rnorm(n)  # a column with every value stored
    x <- methods::as(x, "CsparseMatrix")
    dense <- as.matrix(x)
    ranges <- kitchen:::sparse_column_ranges(x)
    expect_identical(ranges$low, unname(apply(dense, 2, min)))
    expect_identical(ranges$high, unname(apply(dense, 2, max)))
    expect_identical(rff(x, 10, sigma = 1, scale = "minmax", seed = 1)$scale,
                     rff(dense, 10, sigma = 1, scale = "minmax", seed = 1)$scale)
  }
})

test_that("as.matrix() of an rff map gives its frequencies for the rescaled inputs", {
  set.seed(3)
  x <- matrix(rnorm(30 * 3), 30, 3, dimnames = list(NULL, c("a", "b", "c")))
  map <- rff(x, 10, sigma = 1.5, seed = 1)
  w <- as.matrix(map)
  expect_identical(dim(w), c(3L, 5L))
  expect_identical(rownames(w), c("a", "b", "c"))
  xs <- scale(x[1:4, ], center = map$center, scale = map$scale)
  expect_equal(predict(map, x[1:4, ]), cbind(cos(xs %*% w), sin(xs %*% w)) / sqrt(5),
               tolerance = 1e-12, ignore_attr = TRUE)
})
