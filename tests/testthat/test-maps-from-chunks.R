# rff() and fastfood() on chunked data, and krr_fit() building its map from
# the chunks by name (R/map_setup_chunked.R).

chunks_toy <- function(seed = 1, n = 900) {
  set.seed(seed)
  x <- matrix(rnorm(n * 3), n, 3, dimnames = list(NULL, c("a", "b", "c")))
  x[, 2] <- x[, 2] * 10 + 5
  y <- sin(x[, 1]) + x[, 2] / 10 + rnorm(n, sd = 0.1)
  split <- rep(1:6, length.out = n)
  list(x = x, y = y, chunks = lapply(split(seq_len(n), split), function(rows) {
    list(x = x[rows, , drop = FALSE], y = y[rows])
  }))
}

test_that("rff() and fastfood() on chunked data equal the maps of the bound rows", {
  toy <- chunks_toy()
  data <- chunked(toy$chunks)
  for (scale in c("none", "minmax", "standard")) {
    for (build in list(function(x) rff(x, 40, sigma = 0.8, scale = scale, seed = 2),
                       function(x) rff(x, 40, sigma = 0.8, scale = scale, seed = 2,
                                       type = "cos_phase", orthogonal = TRUE),
                       function(x) fastfood(x, 32, sigma = 0.8, scale = scale, seed = 2))) {
      memory <- build(toy$x)
      from_chunks <- build(data)
      expect_s3_class(from_chunks, class(memory)[1])
      # min-max and none exactly; standard from pooled moments, up to rounding
      tol <- if (scale == "standard") 1e-14 else 0
      expect_equal(from_chunks$center, memory$center, tolerance = tol)
      expect_equal(from_chunks$scale, memory$scale, tolerance = tol)
      expect_identical(from_chunks$clip, memory$clip)
      expect_identical(from_chunks$col_names, c("a", "b", "c"))
      expect_equal(predict(from_chunks, toy$x[1:20, ]), predict(memory, toy$x[1:20, ]),
                   tolerance = 1e-12)
    }
  }
  # The default bandwidth: the median heuristic on chunk 1's rows.
  expect_identical(rff(data, 40, seed = 3, scale = "none")$kernel$sigma,
                   rff(toy$chunks[[1]]$x, 40, seed = 3, scale = "none")$kernel$sigma)
  # Chunks whose columns are in another order are matched by name.
  shuffled <- toy$chunks
  shuffled[[2]]$x <- shuffled[[2]]$x[, c(3, 1, 2)]
  expect_identical(rff(chunked(shuffled), 40, sigma = 1, seed = 2, scale = "minmax")$clip,
                   rff(toy$x, 40, sigma = 1, seed = 2, scale = "minmax")$clip)
  bad <- toy$chunks
  bad[[4]]$x <- bad[[4]]$x[, 1:2]
  expect_error(rff(chunked(bad), 10, sigma = 1), "Chunk 4", class = "kitchen_error_argument")
  expect_error(nystrom(data, 10), "chunked data", class = "kitchen_error_argument")
})

test_that("krr_fit() builds its map from chunked data by name, as in memory", {
  toy <- chunks_toy(seed = 4)
  data <- chunked(toy$chunks)
  # A kernel object fixes the bandwidth: the map is the bound rows' one.
  given <- kernel_gaussian(sigma = 0.7)
  chunked_fit <- krr_fit(data, kernel = given, lambda = 0.01, n_features = 200, seed = 5,
                         n_threads = 1, verbose = FALSE, parallel = "none")
  memory_fit <- krr_fit(toy$x, toy$y, kernel = given, lambda = 0.01, n_features = 200, seed = 5,
                        n_threads = 1, verbose = FALSE)
  expect_identical(chunked_fit$map$scaling, "minmax")  # the by-name default
  expect_identical(chunked_fit$map$clip, memory_fit$map$clip)
  expect_identical(chunked_fit$map$projection, memory_fit$map$projection)
  expect_lt(max(abs(coef(chunked_fit) - coef(memory_fit))), 1e-8)
  # Left to krr_fit(), the bandwidth is chosen on the first chunks' rows from
  # the grid around the median heuristic on chunk 1 (R/default_bandwidth.R).
  chosen <- krr_fit(data, lambda = 0.01, n_features = 200, seed = 5, n_threads = 1,
                    verbose = FALSE)
  median_rule <- rff(data, 200, scale = "minmax", seed = 5)$kernel$sigma
  expect_true(any(abs(chosen$map$kernel$sigma / median_rule - 2^(-3:3)) < 1e-12))
  # Builder arguments go through `...`, checked as in memory.
  small <- krr_fit(data, features = "fastfood", n_features = 64, seed = 1, lambda = 0.1,
                   n_threads = 1, verbose = FALSE)
  expect_s3_class(small$map, "kitchen_fastfood")
  expect_identical(small$map$n_features, 64L)
  binned <- krr_fit(data, features = "rbin", n_grids = 8, seed = 1, lambda = 0.1, n_threads = 1,
                    verbose = FALSE)
  expect_identical(binned$map$n_grids, 8L)
  expect_error(krr_fit(data, n_feature = 10), "n_feature", class = "kitchen_error_argument")
  expect_error(krr_fit(data, rff(toy$x, 16, sigma = 1), n_features = 10), "already a map",
               class = "kitchen_error_argument")
  expect_error(krr_fit(data, "nystrom"), "in memory", class = "kitchen_error_argument")
})

test_that("predict() of zero rows returns empty results of the right shape", {
  toy <- chunks_toy(seed = 6, n = 120)
  empty <- toy$x[0, , drop = FALSE]
  for (map in list(rff(toy$x, 20, seed = 1), fastfood(toy$x, 16, seed = 1),
                   nystrom(toy$x, 10, seed = 1))) {
    expect_identical(dim(predict(map, empty)), c(0L, map$n_features))
  }
  binned <- rbin(toy$x, 5, seed = 1)
  expect_identical(dim(predict(binned, empty)), c(0L, binned$n_features))
  # as.matrix() of a data frame with no rows is a logical matrix
  expect_identical(dim(predict(rff(toy$x, 20, seed = 1), as.matrix(as.data.frame(empty)))),
                   c(0L, 20L))
  fit <- krr_fit(toy$x, toy$y, rff(toy$x, 20, seed = 1), lambda = 0.1, n_threads = 1)
  expect_identical(predict(fit, empty), numeric(0))
  frame <- data.frame(toy$x, y = toy$y, g = factor(rep(c("u", "v", "w"), 40)))
  classes <- krr_fit(g ~ a + b + c, frame, n_features = 20, seed = 1, n_threads = 1, verbose = FALSE)
  expect_identical(predict(classes, frame[0, ], type = "class"),
                   factor(character(0), levels = c("u", "v", "w")))
  prob <- expect_silent(predict(classes, frame[0, ], type = "prob"))
  expect_identical(dim(prob), c(0L, 3L))
  expect_identical(colnames(prob), c("u", "v", "w"))
  logistic <- krr_fit(g ~ a + b + c, frame, n_features = 20, seed = 1, loss = "logistic",
                      lambda = 0.1, n_threads = 1, verbose = FALSE)
  expect_identical(dim(predict(logistic, frame[0, ], type = "link")), c(0L, 3L))
  on_bins <- krr_fit(toy$x, frame$g, binned, lambda = 0.1, n_threads = 1, verbose = FALSE)
  expect_identical(dim(predict(on_bins, empty, type = "prob")), c(0L, 3L))
  # Training data still needs rows.
  expect_error(krr_fit(empty, numeric(0), rff(toy$x, 20, seed = 1)), "at least one row",
               class = "kitchen_error_argument")
  expect_error(predict(fit, toy$x[, 0]), "at least one column", class = "kitchen_error_argument")
})

test_that("chunks in another column order are matched before they are clipped", {
  set.seed(7)
  x <- cbind(a = runif(300), b = runif(300, 100, 200))
  y <- x[, 1] + x[, 2] / 100 + rnorm(300, sd = 0.01)
  cls <- factor(ifelse(y > median(y), "hi", "lo"))
  # Maps without names: chunks are matched to chunk 1's names.
  chunks <- function(response) {
    list(list(x = x[1:100, ], y = response[1:100]),
         list(x = x[101:200, 2:1], y = response[101:200]),
         list(x = x[201:300, ], y = response[201:300]))
  }
  dense <- rff(unname(x), 30, sigma = 1, seed = 1)
  binned <- rbin(unname(x), 6, sigma = 1, seed = 1)
  expect_no_warning(fit <- krr_fit(chunked(chunks(y)), dense, lambda = 0.1, verbose = FALSE))
  expect_equal(coef(fit), coef(krr_fit(x, y, dense, lambda = 0.1)), tolerance = 1e-10)
  expect_no_warning(fit <- krr_fit(chunked(chunks(y)), binned, lambda = 0.1, verbose = FALSE))
  expect_equal(coef(fit), coef(krr_fit(x, y, binned, lambda = 0.1)), tolerance = 1e-8)
  expect_no_warning(fit <- krr_fit(chunked(chunks(cls)), dense, lambda = 0.1, loss = "logistic",
                                   verbose = FALSE))
  expect_equal(coef(fit), coef(krr_fit(x, cls, dense, lambda = 0.1, loss = "logistic")),
               tolerance = 1e-6)
})
