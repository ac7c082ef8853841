# Mean |z(x)'z(y) - k(x, y)| over all pairs of rows of x, for a map built
# by `build` (rff or fastfood) with rescaling off.
map_error <- function(build, x, kernel, n_features, seed) {
  map <- build(x, n_features, kernel = kernel, scale = "none", seed = seed)
  z <- predict(map, x, n_threads = 1)
  mean(abs(tcrossprod(z) - kernel_matrix(x, kernel = kernel, n_threads = 1)))
}

# The dense V of one block straight from its definition,
# V = 1 / (sigma sqrt(p)) S H G Pi H B (rows cut to those the block uses).
block_matrix <- function(map, b) {
  p <- nrow(map$gauss)
  h <- hadamard(p)
  rows <- ((b - 1) * p + 1):min(b * p, length(map$radial))
  pi_mat <- diag(p)[map$perm[, b], ]
  v <- diag(map$radial[rows], length(rows)) %*% h[seq_along(rows), , drop = FALSE] %*%
    diag(map$gauss[, b]) %*% pi_mat %*% h %*% diag(2 * as.integer(map$signs[, b]) - 1)
  v / (map$kernel$sigma * sqrt(p))
}

test_that("as.matrix() is the stacked S H G Pi H B blocks, cut to d columns", {
  map <- fastfood(5, 40, sigma = 1.5, seed = 1)  # p = 8, 20 frequencies: 3 blocks
  expect_identical(dim(map$gauss), c(8L, 3L))
  v <- do.call(rbind, lapply(1:3, function(b) block_matrix(map, b)))
  expect_identical(dim(v), c(20L, 8L))
  expect_equal(as.matrix(map), t(v[, 1:5]), tolerance = 1e-12)
})

test_that("features equal cos/sin of the rescaled data times the implied W", {
  set.seed(1)
  x <- matrix(rnorm(30 * 6, mean = 5, sd = 3), 30, 6)
  for (kernel in list(kernel_gaussian(2), kernel_matern(2, nu = 1.5))) {
    for (type in c("cos_sin", "cos_phase")) {
      map <- fastfood(x, 50, kernel = kernel, type = type, seed = 2)
      w <- as.matrix(map)
      m <- ncol(w)
      xs <- sweep(sweep(x, 2, map$center), 2, map$scale, "/")
      proj <- xs %*% w
      expected <- if (type == "cos_sin") cbind(cos(proj), sin(proj)) / sqrt(m) else
        sqrt(2 / m) * cos(sweep(proj, 2, map$phases, "+"))
      expect_equal(predict(map, x), expected, tolerance = 1e-12)
    }
  }
})

test_that("gaussian rows have the length of N(0, I_p / sigma^2) vectors", {
  sigma <- 3
  map <- fastfood(64, 8192, sigma = sigma, type = "cos_phase", seed = 3)  # 128 blocks
  r2 <- colSums(as.matrix(map)^2) * sigma^2
  # chi^2_64: mean 64, variance 128. Without S all rows of a block would
  # have one length (variance near 0).
  expect_equal(mean(r2), 64, tolerance = 0.02)
  expect_equal(var(r2), 128, tolerance = 0.1)
  expect_gt(stats::ks.test(r2, "pchisq", df = 64)$p.value, 1e-3)
  # Without S: rows of length ||G||_F sqrt(p) / (sigma sqrt(p)) within a block.
  no_s <- map
  no_s$radial <- rep(1, 8192) / sqrt(colSums(map$gauss^2))[rep(1:128, each = 64)]
  expect_lt(var(colSums(as.matrix(no_s)^2) * sigma^2), 1e-8)
})

test_that("matern rows have the length of a multivariate t vector", {
  sigma <- 2
  nu <- 2.5
  map <- fastfood(32, 8192, kernel = kernel_matern(sigma, nu), type = "cos_phase", seed = 4)
  r2 <- colSums(as.matrix(map)^2) * sigma^2
  # ||t||^2 / p follows an F(p, 2 nu) law.
  expect_gt(stats::ks.test(r2 / 32, "pf", df1 = 32, df2 = 2 * nu)$p.value, 1e-3)
  expect_lt(stats::ks.test(r2, "pchisq", df = 32)$p.value, 1e-6)
})

test_that("kernel approximation is as good as rff's at equal n_features", {
  set.seed(5)
  x <- matrix(rnorm(80 * 12), 80, 12)
  kernels <- list(kernel_gaussian(4), kernel_matern(4, nu = 1.5), kernel_matern(3, nu = 0.5))
  for (k in kernels) {
    ff <- mean(vapply(1:6, function(s) map_error(fastfood, x, k, 512, s), 0))
    rf <- mean(vapply(1:6, function(s) map_error(rff, x, k, 512, s), 0))
    expect_lt(ff, 1.5 * rf, label = kernel_label(k))
    large <- map_error(fastfood, x, k, 512 * 16, 1)
    expect_gt(ff / large, 2.5, label = kernel_label(k))  # error like 1 / sqrt(n_features)
  }
})

test_that("inputs are padded to the next power of two; any n_features works", {
  for (d in c(1, 3, 100)) {
    set.seed(d)
    x <- matrix(rnorm(40 * d), 40, d)
    map <- fastfood(x, 150, type = "cos_phase", seed = 1)
    p <- 2^ceiling(log2(d))
    expect_identical(nrow(map$gauss), as.integer(p))
    expect_identical(ncol(map$gauss), as.integer(ceiling(150 / p)))
    expect_length(map$radial, 150)
    expect_identical(dim(as.matrix(map)), c(as.integer(d), 150L))
    z <- predict(map, x)
    expect_identical(dim(z), c(40L, 150L))
    xs <- sweep(sweep(x, 2, map$center), 2, map$scale, "/")
    expect_equal(z, sqrt(2 / 150) * cos(sweep(xs %*% as.matrix(map), 2, map$phases, "+")),
                 tolerance = 1e-12)
  }
  # cos_sin: m = 37 frequencies with p = 16 (3 blocks, the last cut to 5).
  map <- fastfood(16, 74, sigma = 1, seed = 2)
  expect_identical(ncol(map$gauss), 3L)
  expect_output(print(map), "3 blocks of 16 frequencies, the last cut to 5")
  expect_identical(dim(predict(map, matrix(1, 2, 16))), c(2L, 74L))
})

test_that("sparse and dense inputs give the same features", {
  set.seed(6)
  dense <- matrix(rnorm(70 * 9) * (runif(70 * 9) < 0.3), 70, 9)
  sparse <- Matrix::Matrix(dense, sparse = TRUE)
  expect_s4_class(sparse, "dgCMatrix")
  for (scale in c("standard", "minmax", "none")) {
    map_d <- fastfood(dense, 64, sigma = 2, scale = scale, seed = 5)
    map_s <- fastfood(sparse, 64, sigma = 2, scale = scale, seed = 5)
    expect_equal(map_s$center, map_d$center, tolerance = 1e-12)
    expect_equal(predict(map_s, sparse), predict(map_d, dense), tolerance = 1e-12)
    expect_identical(predict(map_d, sparse, n_threads = 2), predict(map_d, dense, n_threads = 1))
  }
})

test_that("a seed reproduces the map and leaves the random stream alone", {
  x <- matrix(rnorm(40), 20, 2)
  set.seed(99)
  before <- .Random.seed
  a <- fastfood(x, 32, seed = 7)
  expect_identical(.Random.seed, before)
  expect_identical(fastfood(x, 32, seed = 7), a)
  set.seed(3)
  b <- fastfood(x, 32)
  set.seed(3)
  expect_identical(fastfood(x, 32), b)
  expect_false(identical(fastfood(x, 32, seed = 8)$gauss, a$gauss))
})

test_that("features do not depend on the number of threads nor on the batch", {
  set.seed(7)
  x <- matrix(rnorm(1000 * 20), 1000, 20)
  for (type in c("cos_sin", "cos_phase")) {
    map <- fastfood(x, 512, type = type, seed = 2)
    z <- predict(map, x, n_threads = 1)
    expect_identical(predict(map, x, n_threads = 2), z)
    expect_identical(predict(map, x[37, , drop = FALSE], n_threads = 2), z[37, , drop = FALSE])
    expect_identical(predict(map, x[1:13, ], n_threads = 2), z[1:13, ])
  }
})

test_that("every SIMD level gives the same features to 1e-12", {
  set.seed(8)
  x <- matrix(rnorm(50 * 200), 50, 200)
  map <- fastfood(x, 1000, seed = 3)
  ref <- with_simd("scalar", predict(map, x))
  for (level in c("avx2", "avx512")) {
    expect_equal(with_simd(level, predict(map, x)), ref, tolerance = 1e-12)
  }
})

test_that("the map survives saveRDS and holds O(n_features) numbers", {
  set.seed(9)
  x <- matrix(rnorm(200), 50, 4)
  map <- fastfood(x, 64, seed = 1)
  path <- tempfile(fileext = ".rds")
  saveRDS(map, path)
  again <- readRDS(path)
  expect_identical(predict(again, x), predict(map, x))
  expect_s3_class(map, c("kitchen_fastfood", "kitchen_map"))
  # d = 1024, 16384 features: the dense 1024 x 8192 frequencies take 64 MB.
  big <- fastfood(1024, 16384, sigma = 32, seed = 1)
  dense_bytes <- 1024 * 8192 * 8
  expect_lt(as.numeric(object.size(big)), dense_bytes / 200)
})

test_that("print shows kernel, sigma, d, p, n_features, type and blocks", {
  map <- fastfood(5, 100, kernel = kernel_matern(2, nu = 2.5), seed = 1)
  expect_output(print(map), "Fastfood")
  expect_output(print(map), "matern \\(sigma = 2, nu = 2.5\\)")
  expect_output(print(map), "input dimension : 5 \\(padded to 8\\)")
  expect_output(print(map), "100 \\(cos_sin\\)")
  expect_output(print(map), "7 blocks of 8 frequencies, the last cut to 2")
  # one block, or blocks of one frequency, read as English
  expect_output(print(fastfood(4, 2, sigma = 1)), "1 block of 4 frequencies, cut to 1")
  expect_output(print(fastfood(1, 10, sigma = 1)), "5 blocks of 1 frequency\\n")
})

test_that("a dimension instead of data builds a map with no rescaling", {
  map <- fastfood(3, 100, sigma = 1, seed = 1)
  expect_identical(map$d, 3L)
  expect_identical(map$scaling, "none")
  expect_identical(dim(predict(map, matrix(0, 2, 3))), c(2L, 100L))
  expect_error(fastfood(3, 100), "`sigma` must be given")
})

test_that("columns are matched by name; the median bandwidth is the default", {
  set.seed(10)
  x <- data.frame(a = rnorm(20), b = rnorm(20), c = rnorm(20))
  map <- fastfood(x, 16, scale = "none", seed = 1)
  expect_equal(map$kernel$sigma, median(dist(x)))
  z <- predict(map, x)
  expect_identical(predict(map, x[, c("c", "a", "b")]), z)
  expect_identical(rownames(as.matrix(map)), c("a", "b", "c"))
  expect_error(predict(map, x[, c("a", "b")]), "Missing: \"c\"")
})

test_that("bad arguments are refused with clear errors", {
  x <- matrix(rnorm(20), 10, 2)
  expect_error(fastfood(x, 8, kernel = "laplacian"), "rotation-invariant")
  expect_error(fastfood(x, 8, kernel = "laplacian"), "rff\\(\\)")
  expect_error(fastfood(x, 8, kernel = "laplacian"), "rbin\\(\\)")
  # rbin() refuses the cauchy kernel too: only rff() is offered
  expect_error(fastfood(x, 8, kernel = kernel_cauchy(1)), "use `rff\\(\\)` for it\\.")
  expect_error(fastfood(x, 0), "`n_features` must be a whole number >= 1")
  expect_error(fastfood(x, 2.5), "`n_features`")
  expect_error(fastfood(x, 7), "`n_features` must be even")
  expect_no_error(fastfood(x, 7, type = "cos_phase"))
  expect_error(fastfood(x, 8, sigma = -1), "`sigma` must be a positive number")
  expect_error(fastfood(x, 8, kernel = "rbf"), "`kernel` must be one of")
  x_na <- x
  x_na[3, 2] <- NA
  expect_error(fastfood(x_na, 8), "must not contain NA")
  map <- fastfood(x, 8, seed = 1)
  expect_error(predict(map, matrix(0, 3, 3)), "must have 2 columns")
  expect_error(predict(map, x_na), "must not contain NA")
  expect_error(predict(map, x, n_threads = 0), "`n_threads`")
  for (field in c("signs", "perm", "gauss", "radial", "kernel")) {
    broken <- map
    broken[[field]] <- NULL
    expect_error(predict(broken, x), "not a valid", label = field)
  }
  broken <- map
  broken$perm[1] <- 9L  # out of range: refused, not read
  expect_error(predict(broken, x), "not a valid")
  broken <- map
  broken$signs[1] <- as.raw(2)
  expect_error(predict(broken, x), "not a valid")
  broken <- map
  broken$kernel <- unname(broken$kernel)
  expect_error(predict(broken, x), "not a valid")
  broken <- map
  storage.mode(broken$perm) <- "double"
  expect_error(predict(broken, x), "not a valid")
  broken <- map
  broken$gauss <- broken$gauss[, 1, drop = FALSE]  # too few blocks
  expect_error(as.matrix(broken), "`x` is not a valid")
})
