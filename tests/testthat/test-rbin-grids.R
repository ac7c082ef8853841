# rbin()'s grids: stratified pitches and shifts (the default) keep each
# grid's law, so the kernel estimate stays unbiased, and estimate the kernel
# better than independent draws; stratified = FALSE draws as before.

# Which of n equal slices of (0, 1) each value of a row falls in.
slices <- function(u, n) floor(u * n)

test_that("stratified grids put one pitch and one shift in each slice of their laws", {
  x <- matrix(runif(100 * 3), 100, 3)
  map <- rbin(x, 40, sigma = c(0.5, 1, 3), scale = "none", seed = 2)
  expect_identical(dim(map$pitch), c(3L, 40L))
  for (j in 1:3) {
    u <- stats::pgamma(map$pitch[j, ], shape = 2, scale = map$kernel$sigma[j])
    expect_setequal(slices(u, 40), 0:39)
    expect_setequal(slices(map$shift[j, ] / map$pitch[j, ], 40), 0:39)
  }
  # Independent draws almost never do (probability 200! / 200^200).
  iid <- rbin(x, 200, sigma = 1, scale = "none", seed = 2, stratified = FALSE)
  expect_lt(length(unique(slices(stats::pgamma(iid$pitch[1, ], shape = 2, scale = 1), 200))), 200)
  # Hashed maps draw their grids the same way.
  hashed <- rbin(3, 40, sigma = 1, n_buckets = 16, seed = 2)
  expect_setequal(slices(stats::pgamma(hashed$pitch[2, ], shape = 2, scale = 1), 40), 0:39)
})

test_that("each stratified grid keeps the paper's pitch and shift laws", {
  # Grid 2 of 6 over 400 seeds: pitch Gamma(2, sigma), shift / pitch uniform.
  draws <- t(vapply(1:400, function(s) {
    map <- rbin(2, 6, sigma = 1.5, n_buckets = 4, seed = s)
    c(pitch = map$pitch[1, 2], fraction = map$shift[1, 2] / map$pitch[1, 2])
  }, numeric(2)))
  expect_gt(suppressWarnings(stats::ks.test(draws[, "pitch"], "pgamma", shape = 2, scale = 1.5))$p.value, 1e-3)
  expect_gt(suppressWarnings(stats::ks.test(draws[, "fraction"], "punif"))$p.value, 1e-3)
})

test_that("the stratified kernel estimate is unbiased and closer to the exact kernel", {
  x <- rbind(c(0, 0), c(0.4, 0.1), c(1, -0.5), c(-0.3, 0.8))
  exact <- exp(-as.matrix(stats::dist(x, method = "manhattan")) / 1.2)
  pairs <- rbind(c(1, 2), c(1, 3), c(2, 4))
  # 4 grids a map, 500 maps: the mean estimate against the kernel, within 4 standard errors.
  estimates <- t(vapply(1:500, function(s) {
    z <- as.matrix(predict(rbin(2, 4, sigma = 1.2, n_buckets = 4096, seed = s), x))
    k <- tcrossprod(z)
    k[pairs]
  }, numeric(3)))
  se <- apply(estimates, 2, stats::sd) / sqrt(nrow(estimates))
  expect_true(all(abs(colMeans(estimates) - exact[pairs]) < 4 * se + 1e-3))
  # Error of the whole estimate on 300 points, 50 grids, 10 seeds each way.
  set.seed(42)
  pts <- matrix(runif(600) * 3, 300, 2)
  k <- exp(-as.matrix(stats::dist(pts, method = "manhattan")) / 2)
  error <- function(stratified) mean(vapply(1:10, function(s) {
    z <- as.matrix(predict(rbin(pts, 50, sigma = 2, scale = "none", seed = s,
                                stratified = stratified), pts))
    sqrt(sum((tcrossprod(z) - k)^2) / sum(k^2))
  }, 0))
  expect_lt(error(TRUE), 0.9 * error(FALSE))
})

test_that("stratified = FALSE draws the grids independently, as before", {
  x <- matrix(runif(200 * 3), 200, 3)
  map <- rbin(x, 25, sigma = 0.8, scale = "none", seed = 7, stratified = FALSE)
  # R's default generators seeded with `seed`: the pitches, then the shifts.
  set.seed(7, kind = "Mersenne-Twister", normal.kind = "Inversion", sample.kind = "Rejection")
  pitch <- matrix(stats::rgamma(3 * 25, shape = 2, scale = 0.8), 3, 25)
  shift <- matrix(stats::runif(3 * 25), 3, 25) * pitch
  expect_identical(map$pitch, pitch)
  expect_identical(map$shift, shift)
})

test_that("stratified must be TRUE or FALSE", {
  x <- matrix(runif(40), 20, 2)
  for (bad in list(NA, "yes", c(TRUE, FALSE), 1)) {
    expect_error(rbin(x, 5, stratified = bad), "`stratified` must be `TRUE` or `FALSE`",
                 class = "kitchen_error_argument")
  }
  # Through krr_fit()'s map built by name too.
  expect_error(krr_fit(x, x[, 1], features = "rbin", stratified = "no", n_threads = 1),
               "stratified", class = "kitchen_error_argument")
})
