# krr_fit() on chunked data with random binning maps: each chunk gives its
# bin columns once, and the fit must equal the in-memory one.

binned_chunk_toy <- function(n = 600, seed = 1) {
  set.seed(seed)
  x <- matrix(runif(n * 3, -2, 2), n, 3, dimnames = list(NULL, c("a", "b", "c")))
  y <- sin(2 * x[, 1]) + x[, 2]^2 / 2 + rnorm(n, sd = 0.1)
  cls <- factor(ifelse(x[, 1] > 0.5, "p", ifelse(x[, 2] > 0, "q", "r")), levels = c("r", "p", "q"))
  split <- rep(1:6, c(120, 80, 100, 110, 90, 100))
  chunks <- lapply(1:6, function(i) list(x = x[split == i, ], y = y[split == i],
                                         cls = cls[split == i],
                                         w = seq(0.5, 2, length.out = n)[split == i]))
  list(x = x, y = y, cls = cls, split = split, chunks = chunks,
       w = seq(0.5, 2, length.out = n))
}

expect_same_fit <- function(chunked_fit, memory_fit) {
  scale <- max(abs(memory_fit$coefficients))
  expect_lt(max(abs(chunked_fit$coefficients - memory_fit$coefficients)) / scale, 1e-8)
  expect_equal(chunked_fit$intercept, memory_fit$intercept, tolerance = 1e-8)
  expect_identical(chunked_fit$lambda, memory_fit$lambda)
  expect_equal(chunked_fit$path, memory_fit$path, tolerance = 1e-8)
}

test_that("chunked rbin fits equal in-memory ones: fixed lambda, CV, classes, weights", {
  toy <- binned_chunk_toy()
  map <- rbin(toy$x, 30, sigma = 1, seed = 2)
  data <- chunked(toy$chunks)
  one <- krr_fit(data, map, lambda = 0.1, n_threads = 1, verbose = FALSE, parallel = "none")
  expect_same_fit(one, krr_fit(toy$x, toy$y, map, lambda = 0.1, n_threads = 1))
  expect_equal(one$n, 600)
  expect_equal(predict(one, toy$x), predict(krr_fit(toy$x, toy$y, map, lambda = 0.1), toy$x),
               tolerance = 1e-8)

  folds <- (toy$split - 1) %% 3 + 1
  cv <- krr_fit(data, map, n_folds = 3, n_threads = 1, verbose = FALSE, parallel = "none")
  expect_same_fit(cv, krr_fit(toy$x, toy$y, map, folds = folds, n_threads = 1))
  expect_identical(cv$n_folds, 3L)

  classes <- chunked(lapply(toy$chunks, function(ch) list(x = ch$x, y = ch$cls)))
  fc <- krr_fit(classes, map, lambda = 0.05, n_threads = 1, verbose = FALSE, parallel = "none")
  expect_same_fit(fc, krr_fit(toy$x, toy$cls, map, lambda = 0.05, n_threads = 1))
  expect_identical(predict(fc, toy$x, type = "class"),
                   predict(krr_fit(toy$x, toy$cls, map, lambda = 0.05), toy$x, type = "class"))

  weighted <- chunked(lapply(toy$chunks, function(ch) list(x = ch$x, y = ch$y, weights = ch$w)))
  fw <- krr_fit(weighted, map, lambda = c(1, 0.1), n_folds = 2, n_threads = 1, verbose = FALSE,
                parallel = "none")
  expect_same_fit(fw, krr_fit(toy$x, toy$y, map, lambda = c(1, 0.1), weights = toy$w,
                              folds = (toy$split - 1) %% 2 + 1, n_threads = 1))
})

test_that("chunked rbin fits are the same on a future plan", {
  skip_if_not_installed("future")
  toy <- binned_chunk_toy(seed = 3)
  map <- rbin(toy$x, 20, sigma = 1, seed = 4)
  data <- chunked(toy$chunks)
  reference <- krr_fit(data, map, n_folds = 3, n_threads = 1, verbose = FALSE, parallel = "none")
  old <- future::plan(future::multisession, workers = 2, rscript_libs = .libPaths())
  on.exit(future::plan(old), add = TRUE)
  fit <- krr_fit(data, map, n_folds = 3, n_threads = 1, verbose = FALSE, parallel = "future")
  expect_identical(fit$coefficients, reference$coefficients)
  expect_identical(fit$path, reference$path)
  # A bandwidth search reads each candidate's bins from the workers too.
  searched <- krr_fit(data, map, sigma = "auto", n_folds = 3, n_threads = 1, verbose = FALSE,
                      parallel = "future")
  future::plan(old)
  expect_identical(searched$coefficients,
                   krr_fit(data, map, sigma = "auto", n_folds = 3, n_threads = 1, verbose = FALSE,
                           parallel = "none")$coefficients)
})

test_that("chunked rbin fits choose sigma as in memory, on the chunks' folds", {
  toy <- binned_chunk_toy(seed = 9)
  map <- rbin(toy$x, 12, seed = 2)
  data <- chunked(toy$chunks)
  folds <- (toy$split - 1) %% 5 + 1
  for (sigma in list("auto", c(0.25, 0.5, 1, 2))) {
    chunked_fit <- krr_fit(data, map, sigma = sigma, n_threads = 1, verbose = FALSE,
                           parallel = "none")
    memory_fit <- krr_fit(toy$x, toy$y, map, sigma = sigma, folds = folds, n_threads = 1,
                          verbose = FALSE)
    expect_same_fit(chunked_fit, memory_fit)
    expect_identical(chunked_fit$map$kernel$sigma, memory_fit$map$kernel$sigma)
    expect_identical(chunked_fit$map$keys, memory_fit$map$keys)  # every chunk's bins
    expect_equal(chunked_fit$sigma_path, memory_fit$sigma_path, tolerance = 1e-8)
  }
  expect_gt(nrow(chunked_fit$sigma_path), 1)
  # one bandwidth with one lambda: the map rescaled, its bins found again
  fixed <- krr_fit(data, map, sigma = 0.3, lambda = 0.5, n_threads = 1, verbose = FALSE)
  expect_same_fit(fixed, krr_fit(toy$x, toy$y, map, sigma = 0.3, lambda = 0.5, n_threads = 1))
  # classes (least squares, with calibrated probabilities) and logistic
  classes <- chunked(lapply(toy$chunks, function(ch) list(x = ch$x, y = ch$cls)))
  for (loss in c("squared", "logistic")) {
    chunked_fit <- krr_fit(classes, map, sigma = "auto", loss = loss, n_threads = 1,
                           verbose = FALSE)
    memory_fit <- krr_fit(toy$x, toy$cls, map, sigma = "auto", loss = loss, folds = folds,
                          n_threads = 1, verbose = FALSE)
    expect_same_fit(chunked_fit, memory_fit)
    expect_equal(predict(chunked_fit, toy$x[1:30, ], type = "prob"),
                 predict(memory_fit, toy$x[1:30, ], type = "prob"), tolerance = 1e-8)
  }
  # per-column bandwidths: the proxy on the first chunks' rows (all 600 here)
  ard <- krr_fit(data, map, sigma = "ard", n_threads = 1, verbose = FALSE)
  expect_same_fit(ard, krr_fit(toy$x, toy$y, map, sigma = "ard", folds = folds, n_threads = 1,
                               verbose = FALSE))
  expect_false(is.null(ard$ard))
  # chunks that change between passes are caught
  calls <- 0
  shifty <- chunked(function(i) {
    if (i > 6) return(NULL)
    calls <<- calls + 1
    chunk <- toy$chunks[[i]]
    rows <- if (calls > 6 && i == 2) 1:50 else seq_len(nrow(chunk$x))
    list(x = chunk$x[rows, ], y = chunk$y[rows])
  })
  expect_error(krr_fit(shifty, map, sigma = c(0.5, 1), lambda = "cv", n_threads = 1,
                       verbose = FALSE, parallel = "none"),
               "first pass over the data", class = "kitchen_error_argument")
  # so are chunks with the same rows and other values or labels
  for (change in c("x", "y")) {
    calls <- 0
    drifting <- chunked(function(i) {
      if (i > 6) return(NULL)
      calls <<- calls + 1
      chunk <- toy$chunks[[i]][c("x", "y")]
      if (calls > 6 && i == 3) {  # the same rows, reordered in x or in y alone
        flip <- rev(seq_len(NROW(chunk$y)))
        chunk[[change]] <- if (change == "x") chunk$x[flip, , drop = FALSE] else chunk$y[flip]
      }
      chunk
    })
    expect_error(krr_fit(drifting, map, sigma = c(0.5, 1), lambda = "cv", n_threads = 1,
                         verbose = FALSE, parallel = "none"),
                 "Chunk 3.*first pass over the data", class = "kitchen_error_argument")
  }
})

test_that("chunked rbin fits refuse what they cannot do", {
  toy <- binned_chunk_toy(seed = 5)
  map <- rbin(toy$x, 10, sigma = 1, seed = 6)
  data <- chunked(toy$chunks)
  expect_error(krr_fit(data, map, sigma = "auto", lambda = 1, verbose = FALSE),
               "Several `sigma` candidates")
  expect_error(krr_fit(data, map, lambda = -1, verbose = FALSE), "positive")
  expect_error(krr_fit(data, map, n_folds = 7, verbose = FALSE), "must not exceed")
  expect_error(krr_fit(data, map, lambda = 1, tol = 0, verbose = FALSE), "tol")
  bad <- toy$chunks
  bad[[2]]$x <- bad[[2]]$x[, 1:2]
  expect_error(krr_fit(chunked(bad), map, lambda = 1, verbose = FALSE, parallel = "none"),
               "[Cc]hunk 2")
})

test_that("rbin() on chunked data merges the bins of every chunk", {
  toy <- binned_chunk_toy(seed = 7)
  data <- chunked(toy$chunks)
  for (scale in c("none", "minmax", "standard")) {
    memory <- rbin(toy$x, 25, sigma = 0.7, scale = scale, seed = 8, n_threads = 1)
    from_chunks <- rbin(data, 25, sigma = 0.7, scale = scale, seed = 8, n_threads = 1)
    expect_s3_class(from_chunks, "kitchen_rbin")
    expect_equal(from_chunks$center, memory$center, tolerance = 1e-14)
    expect_equal(from_chunks$scale, memory$scale, tolerance = 1e-14)
    expect_identical(from_chunks$clip, memory$clip)
    expect_identical(from_chunks$col_names, memory$col_names)
    expect_identical(from_chunks$pitch, memory$pitch)
    expect_identical(from_chunks$n_bins, memory$n_bins)
    expect_identical(from_chunks$keys, memory$keys)
    expect_identical(as.matrix(predict(from_chunks, toy$x[1:50, ])),
                     as.matrix(predict(memory, toy$x[1:50, ])))
  }
  # A bin occupied only by a later chunk has a column: no training row is unseen.
  first_only <- rbin(toy$chunks[[1]]$x, 25, sigma = 0.7, scale = "none", seed = 8)
  expect_gt(attr(predict(first_only, toy$x), "rows_with_unseen"), 0)
  expect_identical(attr(predict(from_chunks, toy$x), "rows_with_unseen"), 0)
  # The default bandwidth comes from chunk 1's rows; hashed maps need one pass.
  # (standard scaling on both sides: pooled moments are near chunk 1's, a
  # min-max range may not be)
  auto <- rbin(data, 10, seed = 9, scale = "standard")
  expect_identical(rbin(data, 10, sigma = 1, seed = 9)$scaling, "minmax")  # the default
  expect_equal(auto$kernel$sigma,
               rbin(toy$chunks[[1]]$x, 10, seed = 9, scale = "standard")$kernel$sigma,
               tolerance = 0.05)
  hashed <- rbin(data, 10, sigma = 1, n_buckets = 32, seed = 9)
  expect_identical(hashed$n_features, 320L)
  # Chunked map, chunked fit: as in memory.
  fit <- krr_fit(data, from_chunks, lambda = 0.1, n_threads = 1, verbose = FALSE, parallel = "none")
  reference <- krr_fit(toy$x, toy$y, from_chunks, lambda = 0.1, n_threads = 1)
  expect_lt(max(abs(fit$coefficients - reference$coefficients)), 1e-8)
  bad <- toy$chunks
  bad[[3]]$x <- bad[[3]]$x[, 1:2]
  expect_error(rbin(chunked(bad), 10, sigma = 1), "[Cc]hunk 3")
})
