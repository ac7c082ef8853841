# Per-column bandwidths (automatic relevance determination).

ard_reference <- function(x, y, kernel) {
  # The ARD kernel straight from its formula: the kernel at bandwidth 1 of
  # the differences divided by the bandwidths.
  unit <- kernel
  unit$sigma <- 1
  k <- matrix(0, nrow(x), nrow(y))
  for (i in seq_len(nrow(x))) {
    for (j in seq_len(nrow(y))) k[i, j] <- ref_kernel_value((x[i, ] - y[j, ]) / kernel$sigma, unit)
  }
  k
}

test_that("kernel_matrix() with per-column bandwidths is the exact ARD kernel", {
  set.seed(1)
  x <- matrix(rnorm(12 * 3), 12, 3)
  y <- matrix(rnorm(5 * 3), 5, 3)
  s <- c(0.5, 2, 7)
  for (kernel in test_kernels(s)) {
    expect_equal(kernel_matrix(x, y, kernel = kernel, n_threads = 1), ard_reference(x, y, kernel),
                 tolerance = 1e-12, info = kernel_label(kernel))
  }
  # All bandwidths equal: the isotropic kernel exactly.
  expect_identical(kernel_matrix(x, y, kernel_laplacian(rep(1.5, 3)), n_threads = 1),
                   kernel_matrix(x, y, kernel_laplacian(1.5), n_threads = 1))
  expect_error(kernel_matrix(x, kernel = kernel_gaussian(c(1, 2))), "kernel\\$sigma.*one per input column",
               class = "kitchen_error_argument")
})

test_that("equal per-column bandwidths give bitwise the features of one bandwidth", {
  set.seed(2)
  x <- matrix(rnorm(40 * 5), 40, 5)
  for (type in c("cos_sin", "cos_phase")) {
    expect_identical(predict(rff(x, 64, sigma = rep(1.7, 5), type = type, seed = 3), x),
                     predict(rff(x, 64, sigma = 1.7, type = type, seed = 3), x))
    expect_identical(predict(fastfood(x, 64, sigma = rep(1.7, 5), type = type, seed = 3), x),
                     predict(fastfood(x, 64, sigma = 1.7, type = type, seed = 3), x))
  }
  expect_identical(predict(rbin(x, 30, sigma = rep(1.7, 5), seed = 3, n_threads = 1), x),
                   predict(rbin(x, 30, sigma = 1.7, seed = 3, n_threads = 1), x))
  sparse <- Matrix::rsparsematrix(40, 5, 0.3)
  expect_identical(predict(fastfood(sparse, 64, sigma = rep(2, 5), seed = 3), sparse),
                   predict(fastfood(sparse, 64, sigma = 2, seed = 3), sparse))
})

test_that("features with per-column bandwidths estimate the ARD kernel", {
  set.seed(3)
  x <- matrix(rnorm(30 * 3), 30, 3)
  s <- c(0.4, 1.5, 6)
  exact_g <- ard_reference(x, x, kernel_gaussian(s))
  for (make in list(rff, fastfood)) {
    map <- make(x, 20000, sigma = s, scale = "none", seed = 4)
    expect_identical(map$kernel$sigma, s)
    z <- predict(map, x, n_threads = 1)
    expect_lt(max(abs(tcrossprod(z) - exact_g)), 0.05)
  }
  # Each column matters as its bandwidth says: the estimate of the ARD
  # kernel is much closer than that of the isotropic one.
  iso <- ard_reference(x, x, kernel_gaussian(rep(1.5, 3)))
  expect_gt(max(abs(iso - exact_g)), 0.3)
  map <- rbin(x, 4000, sigma = s, scale = "none", seed = 4, n_threads = 1)
  z <- predict(map, x, n_threads = 1)
  expect_lt(max(abs(as.matrix(Matrix::tcrossprod(z)) - ard_reference(x, x, kernel_laplacian(s)))), 0.06)
  # Fastfood's implied frequencies are divided by each column's bandwidth.
  ff <- fastfood(x, 64, sigma = s, seed = 5)
  iso_ff <- fastfood(x, 64, sigma = 1, seed = 5)
  expect_equal(as.matrix(ff), as.matrix(iso_ff) / s, tolerance = 1e-12)
})

test_that("per-column bandwidths of the wrong length are refused, naming sigma", {
  x <- matrix(rnorm(20 * 3), 20, 3)
  for (make in list(rff, fastfood)) {
    expect_error(make(x, 16, sigma = c(1, 2)), "`sigma` must hold one bandwidth or one per input column \\(3\\), not 2",
                 class = "kitchen_error_argument")
    expect_error(make(3, 16, kernel = kernel_gaussian(1:2)), "`sigma`", class = "kitchen_error_argument")
  }
  expect_error(rbin(x, 16, sigma = c(1, 2, 3, 4)), "`sigma`", class = "kitchen_error_argument")
  map <- rff(x, 16, sigma = c(1, 2, 3), seed = 1)
  map$kernel$sigma <- c(1, 2)
  expect_error(predict(map, x), "kernel\\$sigma", class = "kitchen_error_argument")
  ff <- fastfood(x, 16, sigma = c(1, 2, 3), seed = 1)
  ff$kernel$sigma <- c(1, 2, 3, 4)
  expect_error(predict(ff, x), "kernel\\$sigma", class = "kitchen_error_argument")
  expect_error(print(ff), "kernel\\$sigma", class = "kitchen_error_argument")
  ff$kernel$sigma <- c(1, -2, 3)
  expect_error(predict(ff, x), "kernel\\$sigma", class = "kitchen_error_argument")
})

test_that("per-column bandwidths print sensibly and survive saveRDS", {
  x <- matrix(rnorm(50 * 3), 50, 3)
  for (map in list(rff(x, 16, sigma = c(0.5, 1, 8), seed = 1),
                   fastfood(x, 16, sigma = c(0.5, 1, 8), seed = 1),
                   rbin(x, 8, sigma = c(0.5, 1, 8), seed = 1, n_threads = 1))) {
    expect_output(print(map), "3 bandwidths, one per column, from 0.5 to 8")
    file <- tempfile(fileext = ".rds")
    saveRDS(map, file)
    back <- readRDS(file)
    expect_identical(back$kernel$sigma, c(0.5, 1, 8))
    expect_identical(predict(back, x, n_threads = 1), predict(map, x, n_threads = 1))
  }
})

test_that("the ARD objective's gradient matches finite differences", {
  set.seed(4)
  n <- 200
  d <- 4
  x <- matrix(runif(n * d), n, d)
  y <- cbind(sin(3 * x[, 1]) + x[, 2]^2 + rnorm(n, sd = 0.1), x[, 1])
  data <- list(x = x, y = y, w = runif(n, 0.5, 2), half = sample(rep(1:2, length.out = n)))
  for (kernel in list(kernel_gaussian(), kernel_laplacian(), kernel_matern(1, 2.5))) {
    problem <- list(data = data, w0 = kitchen:::spectral_sample(kernel, d, 16),
                    backend = kitchen:::backend_settings(1L))
    theta <- c(log(c(0.5, 1, 2, 0.3)), -3)
    value <- function(t) kitchen:::ard_objective(t, problem, gradient = FALSE)$value
    exact <- kitchen:::ard_objective(theta, problem)
    expect_identical(exact$value, value(theta))
    h <- 1e-5
    numeric_grad <- vapply(seq_along(theta), function(i) {
      step <- replace(numeric(length(theta)), i, h)
      (value(theta + step) - value(theta - step)) / (2 * h)
    }, 0)
    expect_equal(exact$gradient, numeric_grad, tolerance = 1e-6, info = kernel$name)
    # the products on kitchen's kernels over two threads: the same to rounding
    problem$backend <- kitchen:::backend_settings(2L)
    expect_equal(kitchen:::ard_objective(theta, problem), exact, tolerance = 1e-12,
                 info = kernel$name)
  }
})

test_that("sigma = 'ard' finds the relevant columns and fits better than one bandwidth", {
  set.seed(5)
  n <- 1500
  x <- matrix(runif(n * 6), n, 6, dimnames = list(NULL, paste0("v", 1:6)))
  f <- function(x) sin(2 * pi * x[, 1]) + 2 * (x[, 2] - 0.5)^2
  y <- f(x) + rnorm(n, sd = 0.1)
  xt <- matrix(runif(1000 * 6), 1000, 6, dimnames = list(NULL, paste0("v", 1:6)))
  ard <- krr_fit(x, y, "rff", sigma = "ard", n_features = 200, seed = 1, n_threads = 1, verbose = FALSE)
  iso <- krr_fit(x, y, "rff", sigma = "auto", n_features = 200, seed = 1, n_threads = 1, verbose = FALSE)
  expect_length(ard$map$kernel$sigma, 6)
  r <- relevance(ard)
  expect_named(r, paste0("v", 1:6))
  expect_identical(unname(r), 1 / ard$map$kernel$sigma)
  expect_setequal(names(sort(r, decreasing = TRUE))[1:2], c("v1", "v2"))
  rmse <- function(fit) sqrt(mean((predict(fit, xt) - f(xt))^2))
  expect_lt(rmse(ard), 0.8 * rmse(iso))
  expect_output(print(ard), "relevance : v")
  expect_output(print(summary(ard)), "bandwidth search")
  file <- tempfile(fileext = ".pdf")
  grDevices::pdf(file)
  expect_invisible(plot(ard, type = "relevance"))
  expect_identical(plot(ard$map), ard$map)  # a map draws its relevance too
  # Many columns: the `top` largest, the title saying how many of all.
  wide <- rff(matrix(runif(40 * 50), 40, 50), 16, sigma = seq(0.5, 3, length.out = 50), seed = 1)
  grDevices::dev.control("enable")
  plot(wide, top = 7)
  shown <- unlist(lapply(grDevices::recordPlot()[[1]], function(op) {
    Filter(is.character, unlist(op[[2]], recursive = TRUE))
  }))
  expect_true(any(grepl("the 7 largest of 50", shown, fixed = TRUE)))
  expect_error(plot(wide, top = 0), "`top` must be a whole number")
  grDevices::dev.off()
  # The map is used as is afterwards; "auto" would scale one bandwidth.
  again <- krr_fit(x, y, ard$map, lambda = ard$lambda, n_threads = 1, verbose = FALSE)
  expect_equal(predict(again, xt), predict(ard, xt))
  expect_error(krr_fit(x, y, ard$map, sigma = "auto"), "one per column", class = "kitchen_error_argument")
  # Fastfood and rbin maps take the learned bandwidths too.
  ff <- krr_fit(x, y, "fastfood", sigma = "ard", n_features = 256, seed = 1, n_threads = 1, verbose = FALSE)
  expect_length(ff$map$kernel$sigma, 6)
  expect_lt(rmse(ff), 0.8 * rmse(iso))
  rb <- krr_fit(x, y, "rbin", sigma = "ard", n_grids = 30, seed = 1, n_threads = 1, verbose = FALSE)
  expect_length(rb$map$kernel$sigma, 6)
  # rbin's proxy (few frequencies, on a subsample) ranks more noisily than
  # rff's: with map seed 1 it puts v5 first, then v2 and v1.
  expect_true("v1" %in% names(sort(relevance(rb), decreasing = TRUE))[1:3])
  rb_iso <- krr_fit(x, y, "rbin", n_grids = 30, seed = 1, n_threads = 1, verbose = FALSE)
  expect_lt(rmse(rb), rmse(rb_iso))
  # Chunked data: learned on the first chunks.
  chunks <- chunked(lapply(split(seq_len(n), rep(1:3, length.out = n)),
                           function(i) list(x = x[i, ], y = y[i])))
  ch <- krr_fit(chunks, rff(x, 200, seed = 1), sigma = "ard", n_threads = 1, verbose = FALSE,
                parallel = "none")
  expect_length(ch$map$kernel$sigma, 6)
  expect_lt(rmse(ch), 0.8 * rmse(iso))
  # A map's seed given by name fixes the chunked search too, and R's stream
  # is left as it was (dense and rbin maps)
  by_name <- list(
    rff = function() krr_fit(chunks, "rff", n_features = 100, seed = 1, sigma = "ard",
                             n_threads = 1, verbose = FALSE, parallel = "none"),
    rbin = function() krr_fit(chunks, "rbin", n_grids = 20, n_folds = 3, seed = 1, sigma = "ard",
                              n_threads = 1, verbose = FALSE, parallel = "none"))
  for (make in by_name) {
    fits <- lapply(c(7, 99), function(s) {
      set.seed(s)
      before <- .Random.seed
      f <- make()
      expect_identical(.Random.seed, before)
      f
    })
    expect_identical(fits[[1]]$map$kernel$sigma, fits[[2]]$map$kernel$sigma)
    expect_identical(coef(fits[[1]]), coef(fits[[2]]))
  }
  set.seed(3)
  before <- .Random.seed
  krr_fit(chunks, rff(x, 100, seed = 1), sigma = "ard", lambda = "gcv", n_threads = 1,
          verbose = FALSE, parallel = "none")
  expect_identical(.Random.seed, before)
})

test_that("the search's proxy has more frequencies beyond 4000 rows, for dense maps only", {
  # Up to 4000 rows (data of up to 128,000 rows) the proxy of earlier
  # releases; beyond, 128 frequencies per 4000 rows, except for rbin maps.
  rows <- c(20, 1000, 4000, 4001, 8000, 16000)
  expect_identical(vapply(rows, kitchen:::ard_frequencies, 1L),
                   c(128L, 128L, 128L, 129L, 256L, 512L))
  expect_identical(vapply(rows, kitchen:::ard_frequencies, 1L, binned = TRUE), rep(128L, 6))
})

test_that("sigma = 'ard' needs enough rows", {
  x <- matrix(runif(30), 10, 3)
  expect_error(krr_fit(x, runif(10), "rff", sigma = "ard", n_features = 10),
               "at least 20 training rows", class = "kitchen_error_argument")
})

test_that("relevance(by = 'term') gathers a formula term's columns", {
  set.seed(4)
  data <- data.frame(a = runif(120), b = runif(120), g = factor(sample(c("p", "q", "r"), 120, TRUE)))
  data$y <- sin(4 * data$a) + (data$g == "q") + rnorm(120, sd = 0.1)
  fit <- krr_fit(y ~ a + poly(b, 2) + g, data, n_features = 40, sigma = "ard", seed = 1,
                 n_threads = 1, verbose = FALSE)
  columns <- relevance(fit)
  terms <- relevance(fit, by = "term")
  expect_identical(names(terms), c("a", "poly(b, 2)", "g"))
  expect_identical(terms[["a"]], columns[["a"]])
  expect_identical(terms[["poly(b, 2)"]], max(columns[c("poly(b, 2)1", "poly(b, 2)2")]))
  expect_identical(terms[["g"]], max(columns[c("gq", "gr")]))
  # a column the map leaves out counts 0
  expect_equal(term_relevance(fit, c(a = 1, gq = 1 / 2, gr = 1 / 4)),
               c(a = 1, "poly(b, 2)" = 0, g = 1 / 2))
  # one bandwidth: every term the same, whatever its number of columns
  isotropic <- krr_fit(y ~ a + poly(b, 2) + g, data, n_features = 40, sigma = 0.5, lambda = 0.1,
                       seed = 1, n_threads = 1)
  expect_identical(unname(relevance(isotropic, by = "term")), rep(2, 3))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(krr_fit(y ~ a + g, data, n_features = 40, sigma = 0.5, lambda = 0.1,
                                seed = 1, n_threads = 1), type = "relevance", by = "term"))
  x <- as.matrix(data[, c("a", "b")])
  expect_error(relevance(krr_fit(x, data$y, rff(x, 20, sigma = 1, seed = 1), lambda = 0.1,
                                 n_threads = 1), by = "term"),
               "needs a fit from a formula", class = "kitchen_error_argument")
  expect_error(relevance(fit, by = "level"), "`by`", class = "kitchen_error_argument")
  older <- fit
  older$column_terms <- NULL  # a formula fit saved before fits kept their columns' terms
  expect_error(relevance(older, by = "term"), "older kitchen", class = "kitchen_error_argument")
  expect_error(plot(fit$map, by = "term"), "`by` is for fits from a formula",
               class = "kitchen_error_argument")
})

test_that("relevance() refuses other objects", {
  expect_error(relevance(1), "`object`", class = "kitchen_error_argument")
  map <- rff(3, 10, sigma = c(1, 2, 4), seed = 1)
  expect_identical(relevance(map), c(x1 = 1, x2 = 0.5, x3 = 0.25))
})

test_that("per-column bandwidths are kept only if they beat one bandwidth on held-out rows", {
  # Twelve equally relevant columns and 80 rows: the truth is isotropic, and
  # 13 parameters learned from 80 rows overfit. The fit is then exactly the
  # fit without sigma = "ard" (same bandwidth, same CV folds).
  set.seed(11)
  n <- 80
  x <- matrix(runif(n * 12), n, 12)
  y <- sin(3 * rowMeans(x)) + rnorm(n, sd = 0.1)
  set.seed(1)
  ard <- krr_fit(x, y, "rff", sigma = "ard", n_features = 100, seed = 1, n_threads = 1, verbose = FALSE)
  set.seed(1)
  iso <- krr_fit(x, y, "rff", n_features = 100, seed = 1, n_threads = 1, verbose = FALSE)
  expect_false(ard$ard$kept)
  expect_gt(ard$ard$check[["ard"]], ard$ard$check[["isotropic"]])
  expect_identical(ard$map$kernel$sigma, iso$map$kernel$sigma)
  expect_identical(predict(ard, x), predict(iso, x))
  expect_output(print(summary(ard)), "dropped \\(held-out error")
  expect_length(unique(relevance(ard)), 1)

  # A column of pure noise on a scale 30 times the others' (a map that does
  # not rescale): one bandwidth must be wide enough for the noise and so
  # cannot see the two relevant columns; per-column bandwidths can.
  set.seed(12)
  n <- 400
  x <- cbind(runif(n), runif(n), rnorm(n, sd = 10))
  y <- sin(2 * pi * x[, 1]) + x[, 2] + rnorm(n, sd = 0.1)
  map <- rff(x, 200, scale = "none", seed = 1)
  fit <- krr_fit(x, y, map, sigma = "ard", n_threads = 1, verbose = FALSE)
  expect_true(fit$ard$kept)
  expect_lt(fit$ard$check[["ard"]], 0.75 * fit$ard$check[["isotropic"]])
  expect_identical(names(which.min(relevance(fit))), "x3")
  expect_output(print(summary(fit)), "kept \\(held-out error")
  xt <- cbind(runif(500), runif(500), rnorm(500, sd = 10))
  error <- function(f) sqrt(mean((predict(f, xt) - sin(2 * pi * xt[, 1]) - xt[, 2])^2))
  expect_lt(error(fit), 0.5 * error(krr_fit(x, y, map, n_threads = 1, verbose = FALSE)))
})

test_that("the held-out check scores fresh rows when there are enough, else cross-fits", {
  set.seed(13)
  n <- 600
  x <- cbind(runif(n), runif(n), rnorm(n, sd = 10))
  y <- cbind(sin(2 * pi * x[, 1]) + x[, 2] + rnorm(n, sd = 0.1))
  kernel <- kernel_gaussian(stats::median(dist(x[1:200, ])))
  data <- list(x = x, y = y, w = rep(1, n), half = sample(rep(1:2, length.out = n)))
  w0 <- kitchen:::spectral_sample(kernel, 3, 32)
  # Fresh rows: the search on 400 rows is the one kept, scored on the 200 others.
  search_rows <- seq_len(n) <= 400
  fresh <- kitchen:::ard_check(data, search_rows, kernel, w0, kitchen:::backend_settings(1L))
  expect_true(fresh$kept)
  expect_length(fresh$search$sigma, 3)
  train <- list(x = x[search_rows, ], y = y[search_rows, , drop = FALSE], w = rep(1, 400))
  held_out <- list(x = x[!search_rows, ], y = y[!search_rows, , drop = FALSE], w = rep(1, 200))
  expect_equal(fresh$errors[["ard"]],
               kitchen:::held_out_error(c(log(fresh$search$sigma), fresh$search$log_lambda), train,
                                        held_out, w0, kitchen:::backend_settings(1L)))
  # held_out_error() is ridge regression fitted on `train`, scored on `held_out`.
  theta <- c(log(c(0.2, 0.5, 30)), -6)
  z <- function(rows) {
    p <- sweep(rows, 2, exp(theta[1:3]), "/") %*% w0
    cbind(cos(p), sin(p)) / sqrt(ncol(w0))
  }
  za <- z(train$x)
  mean_y <- mean(train$y)
  beta <- solve(crossprod(za) + diag(exp(theta[4]) * 400, ncol(za)), crossprod(za, train$y - mean_y))
  expected <- mean((z(held_out$x) %*% beta + mean_y - held_out$y)^2) / stats::var(held_out$y[, 1])
  expect_equal(kitchen:::held_out_error(theta, train, held_out, w0, kitchen:::backend_settings(1L)),
               expected, tolerance = 1e-10)
  # No fresh rows: five parts, each scoring a search on the other four (every
  # row scored once); the bandwidths kept are the geometric mean of the five.
  backend <- kitchen:::backend_settings(1L)
  set.seed(21)
  crossed <- kitchen:::ard_check(data, NULL, kernel, w0, backend)
  expect_true(crossed$kept)
  expect_length(crossed$gain, n)
  set.seed(21)
  part <- sample(rep(1:5, length.out = n))
  log_sigmas <- vapply(1:5, function(i) {
    search <- kitchen:::ard_search(kitchen:::ard_rows(data, part != i), kernel, w0,
                                   kitchen:::ard_settings$max_iter, backend, 1:3)
    kitchen:::ard_rows(data, part == i)  # (the check's draw of the held-out part's halves)
    log(search$sigma)
  }, numeric(3))
  expect_equal(crossed$search$sigma, exp(rowMeans(log_sigmas)), tolerance = 1e-12)
  expect_gt(max(apply(log_sigmas, 1, sd)), 0)  # five searches, not one
})

test_that("columns that do not help on fresh rows are left out, relevant ones kept", {
  set.seed(14)
  n <- 1500
  x <- matrix(runif(n * 3), n, 3)
  y <- cbind(sin(2 * pi * x[, 1]) + 0.5 * x[, 2] + rnorm(n, sd = 0.1))
  kernel <- kernel_gaussian(1)
  w0 <- kitchen:::spectral_sample(kernel, 3, 32)
  inside <- seq_len(n) <= 1000
  train <- list(x = x[inside, ], y = y[inside, , drop = FALSE], w = rep(1, 1000))
  held_out <- list(x = x[!inside, ], y = y[!inside, , drop = FALSE], w = rep(1, 500))
  # The noise column x3 at a bandwidth that lets it in; x2 a weak linear term.
  search <- list(sigma = c(0.2, 3, 0.3), log_lambda = -8, log_upper = log(c(0.2, 3, 0.3) * 1e4))
  pruned <- kitchen:::ard_prune(search, train, held_out, w0, kitchen:::backend_settings(1L))
  expect_identical(pruned$pruned, 3L)
  expect_identical(pruned$sigma, c(0.2, 3, exp(search$log_upper[3])))
  # Columns already at their bound are not tried again.
  at_bound <- kitchen:::ard_prune(pruned, train, held_out, w0, kitchen:::backend_settings(1L))
  expect_identical(at_bound$pruned, integer())
  expect_identical(at_bound$sigma, pruned$sigma)
})

test_that("dense maps screen the overall scale of kept per-column bandwidths", {
  # R/ard.R, ard_scale_candidates(): the learned bandwidths times 1 and 2^-1/2,
  # scored as sigma candidates, unless lambda is one number or the
  # loss is logistic; the learned ratios are kept.
  set.seed(8)
  n <- 600
  x <- matrix(runif(n * 4), n, 4, dimnames = list(NULL, paste0("v", 1:4)))
  y <- sin(2 * pi * x[, 1]) + x[, 2] + rnorm(n, sd = 0.1)
  fit_with <- function(...) {
    set.seed(1)
    krr_fit(x, y, "rff", sigma = "ard", n_features = 100, seed = 1, n_threads = 1,
            verbose = FALSE, ...)
  }
  screened <- fit_with()
  fixed <- fit_with(lambda = 1e-3)
  expect_true(screened$ard$kept)
  expect_true(fixed$ard$kept)
  expect_null(fixed$sigma_path)
  expect_equal(screened$sigma_path$sigma / screened$sigma_path$sigma[1], c(1, 2^-0.5))
  best <- which.min(screened$sigma_path$score)
  expect_equal(screened$sigma_path$sigma[best], exp(mean(log(screened$map$kernel$sigma))))
  # the same search (its bandwidths do not depend on lambda), one factor on all columns
  expect_equal(screened$map$kernel$sigma, fixed$map$kernel$sigma * c(1, 2^-0.5)[best])
  expect_equal(screened$sigma_path$sigma[1], exp(mean(log(fixed$map$kernel$sigma))))
  classes <- factor(y > median(y))
  set.seed(1)
  logistic <- krr_fit(x, classes, "rff", sigma = "ard", loss = "logistic", n_features = 100,
                      seed = 1, n_threads = 1, verbose = FALSE)
  expect_null(logistic$sigma_path)
})

test_that("rbin learns per-column scales on the dense proxy, then screens their overall scale", {
  set.seed(21)
  n <- 2500
  x <- matrix(runif(n * 6), n, 6, dimnames = list(NULL, paste0("v", 1:6)))
  f <- function(x) sin(2 * pi * x[, 1]) + 2 * sin(pi * x[, 2])
  y <- f(x) + rnorm(n, sd = 0.1)
  # Which columns rank first depends on the map's draws: with map seeds 1-4,
  # v1 and v2 came first for seeds 2-4 under min-max scaling (the default)
  # and for 1-2 under standard scaling (v4 second otherwise).
  map <- rbin(x, 30, seed = 2, n_threads = 1)
  set.seed(2)
  fit <- krr_fit(x, y, map, sigma = "ard", n_threads = 1, verbose = FALSE)
  expect_true(fit$ard$kept)
  expect_length(fit$map$kernel$sigma, 6)
  # The two relevant columns have the two smallest bandwidths.
  expect_setequal(names(sort(relevance(fit), decreasing = TRUE))[1:2], c("v1", "v2"))
  # They beat the map's one bandwidth on the binned fit's first fold too.
  expect_lt(fit$ard$binned_check[["ard"]], fit$ard$binned_check[["isotropic"]])
  expect_identical(fit$ard$binned_check_rows, 500L)  # 2500 rows in 5 folds
  expect_output(print(summary(fit)), "better on the search's rows .*binned fit, fold 1: error .*: kept")
  # Several overall scales of the learned bandwidths were screened (their
  # ratios kept), after the map's own; the chosen one is the best screened.
  expect_gte(sum(fit$sigma_path$per_column), 2)
  expect_identical(sum(!fit$sigma_path$per_column), 1L)
  # The check's errors are the screen's scores, in the response's units.
  expect_equal(fit$ard$binned_check[["isotropic"]], fit$sigma_path$score[!fit$sigma_path$per_column])
  expect_equal(fit$ard$binned_check[["ard"]], min(fit$sigma_path$score[fit$sigma_path$per_column]))
  expect_equal(fit$sigma_path$sigma[which.min(fit$sigma_path$score)],
               exp(mean(log(fit$map$kernel$sigma))))
  expect_equal(sum(kitchen:::lambda_path(fit)$chosen), 1)
  xt <- matrix(runif(1000 * 6), 1000, 6, dimnames = list(NULL, paste0("v", 1:6)))
  rmse <- function(fit) sqrt(mean((predict(fit, xt) - f(xt))^2))
  set.seed(2)
  iso <- krr_fit(x, y, map, sigma = "auto", n_threads = 1, verbose = FALSE)
  expect_lt(rmse(fit), 0.8 * rmse(iso))
  # The learned scales, and the fit, survive saveRDS.
  file <- tempfile(fileext = ".rds")
  saveRDS(fit, file)
  back <- readRDS(file)
  expect_identical(back$map$kernel$sigma, fit$map$kernel$sigma)
  expect_identical(back$map$pitch, fit$map$pitch)
  expect_identical(predict(back, xt, n_threads = 1), predict(fit, xt, n_threads = 1))
  # One lambda given: the proxy's bandwidths as learned, no scale screened.
  fixed <- krr_fit(x, y, map, sigma = "ard", lambda = 0.1, n_threads = 1, verbose = FALSE)
  expect_null(fixed$sigma_path)
  # Chunked data: the proxy on the first chunks' rows (all of them here, in
  # the same order), then the bins of every chunk: the in-memory fit.
  chunks <- chunked(list(list(x = x[1:1000, ], y = y[1:1000]), list(x = x[1001:n, ], y = y[1001:n])))
  from_chunks <- krr_fit(chunks, map, sigma = "ard", lambda = 0.1, n_threads = 1, verbose = FALSE,
                         parallel = "none")
  expect_identical(from_chunks$map$kernel$sigma, fixed$map$kernel$sigma)
  expect_identical(from_chunks$map$keys, fixed$map$keys)
  expect_equal(coef(from_chunks), coef(fixed), tolerance = 1e-8)
  expect_error(krr_fit(x[1:10, ], y[1:10], map, sigma = "ard"), "at least 20 training rows",
               class = "kitchen_error_argument")
})

test_that("rbin with sigma = \"ard\" dropped is the default fit, which searches the scale from 2000 rows", {
  # y from all columns alike: one bandwidth is right, and the check drops
  # the per-column ones. The default fit on 2000 rows or more screens the
  # overall scale (R/krr_binned_search.R); dropping "ard" must give that
  # fit, not the map at its median-distance bandwidth.
  set.seed(31)
  n <- 2100
  x <- matrix(runif(n * 3), n, 3, dimnames = list(NULL, paste0("v", 1:3)))
  y <- sin(2 * rowSums(x)) + rnorm(n, sd = 0.3)
  fit <- function(...) krr_fit(x, y, "rbin", n_grids = 20, seed = 1, n_threads = 1, verbose = FALSE, ...)
  ard <- fit(sigma = "ard")
  default <- fit()
  expect_false(ard$ard$kept)
  expect_gt(nrow(default$sigma_path), 1)
  expect_identical(ard$sigma_path, default$sigma_path)
  expect_identical(ard$map$kernel$sigma, default$map$kernel$sigma)
  expect_identical(coef(ard), coef(default))
  # The same from chunks (a fold a chunk).
  part <- rep(1:5, each = n / 5)
  chunks <- chunked(lapply(1:5, function(i) list(x = x[part == i, ], y = y[part == i])))
  from_chunks <- function(...) {
    krr_fit(chunks, "rbin", n_grids = 20, seed = 1, n_threads = 1, verbose = FALSE,
            parallel = "none", ...)
  }
  ard_chunks <- from_chunks(sigma = "ard")
  expect_false(ard_chunks$ard$kept)
  expect_identical(ard_chunks$sigma_path, from_chunks()$sigma_path)
  expect_gt(nrow(ard_chunks$sigma_path), 1)
})

test_that("rbin's per-column bandwidths must beat the map's one bandwidth on the binned fit's fold 1", {
  # The rule: one standard error of the paired difference of fold 1's losses.
  path <- function(losses) {
    structure(data.frame(lambda = c(1, 0.1), cv = colMeans(losses)), losses = losses)
  }
  set.seed(3)
  base <- matrix(rexp(200), 100, 2)
  same <- kitchen:::baseline_check(path(base), path(base))
  expect_false(same$beaten)
  expect_equal(same$errors[["ard"]], same$errors[["isotropic"]])
  expect_true(kitchen:::baseline_check(path(base), path(base * 0.5))$beaten)
  expect_false(kitchen:::baseline_check(path(base), path(base * 1.5))$beaten)
  # A path that broke down at every lambda (NULL) beats nothing.
  expect_false(kitchen:::baseline_check(path(base), NULL)$beaten)
  expect_true(kitchen:::baseline_check(NULL, path(base))$beaten)

  # In the search: bandwidths that ignore the one relevant column lose to
  # the map's own, and the fit is then the one without them, to the bit.
  n <- 1500
  x <- matrix(runif(n * 3), n, 3, dimnames = list(NULL, paste0("v", 1:3)))
  y <- matrix(sin(2 * pi * x[, 1]) + rnorm(n, sd = 0.1))
  iso <- rbin(x, 20, seed = 1, n_threads = 1)
  backend <- kitchen:::backend_settings(1L)
  ignoring <- kitchen:::with_bandwidths(iso, c(1e3, 1, 1) * iso$kernel$sigma, x, backend)
  folds <- kitchen:::krr_folds(NULL, n, 5)
  xs <- kitchen:::map_input(iso, x, checked = TRUE)
  search <- function(map, baseline = iso, ...) {
    kitchen:::binned_bandwidth_search(map, kitchen:::memory_bins(xs, backend), y, "auto", "auto",
                                      folds, 1e-5, 500L, backend, FALSE, NULL, baseline = baseline, ...)
  }
  lost <- search(ignoring)
  expect_true(lost$baseline_kept)
  expect_gt(lost$baseline_check[["ard"]], lost$baseline_check[["isotropic"]])
  expect_identical(lost$map, iso)
  alone <- kitchen:::binned_ridge(iso, xs, y, "auto", folds, 1e-5, 500L, backend, FALSE)
  expect_identical(lost$solution$coefficients, alone$coefficients)
  expect_identical(lost$solution$lambda, alone$lambda)
  # Where the fit without "ard" searches the scale (baseline_auto), the
  # fallback is that search, to the bit.
  searched <- search(ignoring, baseline_auto = TRUE)
  expect_true(searched$baseline_kept)
  expect_identical(searched$baseline_check, lost$baseline_check)
  default <- search(iso, baseline = NULL)
  expect_identical(searched$map, default$map)
  expect_identical(searched$solution$coefficients, default$solution$coefficients)
  expect_identical(searched$sigma_path, default$sigma_path)
  expect_gt(nrow(default$sigma_path), 1)  # several scales screened, not the map's alone
  # The screened bandwidths are listed with the map's own, marked.
  expect_identical(sum(!lost$sigma_path$per_column), 1L)
  expect_equal(lost$sigma_path$sigma[!lost$sigma_path$per_column], iso$kernel$sigma)
  # Bandwidths that ignore the irrelevant columns win.
  focused <- kitchen:::with_bandwidths(iso, c(1, 1e3, 1e3) * iso$kernel$sigma, x, backend)
  won <- search(focused)
  expect_false(won$baseline_kept)
  expect_length(won$map$kernel$sigma, 3)
  expect_lt(won$baseline_check[["ard"]], won$baseline_check[["isotropic"]])
})
