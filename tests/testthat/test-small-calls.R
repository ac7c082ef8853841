# Small predict() and fwht() calls take one C++ call that checks what the
# general path checks (src/small_calls.cpp) and falls back to it for
# anything else. Both must give the same bits and the same errors.

# The general path, with the SIMD level the fast path would use: the fast
# path leaves any set kitchen.simd but "auto" to the general path.
general_path <- function(expr) {
  level <- kitchen_simd()$used
  old <- options(kitchen.simd = level)
  on.exit(options(old))
  expr
}

set.seed(3)
x <- matrix(rnorm(150 * 5), 150, 5)
y <- sin(x[, 1]) + rnorm(150, sd = 0.1)
map <- rff(x, 64, sigma = 2, seed = 1)
# Depth past one block of the SIMD product (256), and a frequency count
# that is no multiple of the vector width.
wide_x <- matrix(rnorm(120 * 300), 120, 300)
wide_map <- rff(wide_x, 37, sigma = 20, type = "cos_phase", seed = 2)

test_that("features of a few rows equal the general path's and those of many rows", {
  for (m in list(list(map, x), list(wide_map, wide_x))) {
    all_rows <- general_path(predict(m[[1]], m[[2]][1:100, ], n_threads = 1))  # packed product
    for (k in c(1:13, 16, 17, 33, 64, 65)) {
      rows <- m[[2]][seq_len(k), , drop = FALSE]
      fast <- predict(m[[1]], rows, n_threads = 1)
      expect_identical(fast, general_path(predict(m[[1]], rows, n_threads = 1)))
      expect_identical(fast, all_rows[seq_len(k), , drop = FALSE])
    }
  }
  # Row names are kept; column names of the data are matched as before.
  named <- x[1:3, ]
  rownames(named) <- c("a", "b", "c")
  expect_identical(predict(map, named), general_path(predict(map, named)))
  expect_identical(rownames(predict(map, named)), c("a", "b", "c"))
  expect_identical(predict(map, as.data.frame(x[1:3, ])), predict(map, x[1:3, ]))
})

test_that("AVX2 products of a few rows equal AVX2 products of many", {
  skip_if(kitchen_simd()$cpu == "scalar")
  old <- options(kitchen.simd = "avx2")
  on.exit(options(old))
  all_rows <- predict(wide_map, wide_x[1:100, ], n_threads = 1)
  for (k in c(1:10, 17, 64)) {
    expect_identical(predict(wide_map, wide_x[seq_len(k), , drop = FALSE], n_threads = 1),
                     all_rows[seq_len(k), , drop = FALSE])
  }
})

test_that("a map edited after a prediction is not served from the cache", {
  invisible(predict(map, x[1:2, ]))
  edited <- map
  edited$center[1] <- edited$center[1] + 1
  # The uncached glue (ARD's) computes the offset afresh.
  fresh <- kitchen:::rff_features_cpp(kitchen:::clip_to_range(x[1:2, ], edited$clip),
                                      edited$projection, edited$center, NULL, "cos_sin", FALSE, 1L,
                                      kitchen:::resolve_simd())
  expect_identical(predict(edited, x[1:2, ]), fresh)
  expect_false(identical(predict(edited, x[1:2, ]), predict(map, x[1:2, ])))
  edited$projection[1, 1] <- NaN
  expect_error(predict(edited, x[1:2, ]), "finite", class = "kitchen_error_argument")
  edited <- map
  edited$projection[2, 3] <- edited$projection[2, 3] * 2
  expect_false(identical(predict(edited, x[1:2, ]), predict(map, x[1:2, ])))
})

test_that("bad input to a small predict() gets the general path's error", {
  bad <- x[1:2, ]
  bad[2, 3] <- NA
  expect_error(predict(map, bad), "Row 2, column 3", class = "kitchen_error_argument")
  expect_error(predict(map, x[1:2, 1:3]), "must have 5 columns", class = "kitchen_error_argument")
  expect_error(predict(map, x[1:2, ], n_threads = 0), "n_threads", class = "kitchen_error_argument")
  expect_error(predict(map, x[1:2, ], n_threads = NA), "n_threads", class = "kitchen_error_argument")
  expect_error(predict(map, "a"), "newdata", class = "kitchen_error_argument")
  old <- options(kitchen.threads = -1)
  expect_error(predict(map, x[1:2, ]), "kitchen.threads", class = "kitchen_error_argument")
  options(old)
  old <- options(kitchen.gemm = "fast")
  expect_error(predict(map, x[1:2, ]), "kitchen.gemm", class = "kitchen_error_argument")
  options(old)
  broken <- map
  broken$clip$low[1] <- broken$clip$high[1] + 1
  expect_error(predict(broken, x[1:2, ]), "clip", class = "kitchen_error_argument")
  fit <- krr_fit(x, y, map, lambda = 1, n_threads = 1)
  expect_error(predict(fit, bad), "Row 2, column 3", class = "kitchen_error_argument")
  expect_error(predict(fit, x[1:2, ], block_size = 0), "block_size", class = "kitchen_error_argument")
  expect_error(predict(fit, x[1:2, ], verbose = NA), "verbose", class = "kitchen_error_argument")
  broken <- fit
  broken$coefficients[3] <- Inf
  expect_error(predict(broken, x[1:2, ]), "coefficients", class = "kitchen_error_argument")
  broken <- fit
  broken$intercept <- 1:2
  expect_error(predict(broken, x[1:2, ]), "intercept", class = "kitchen_error_argument")
})

test_that("fit predictions of a few rows equal the general path's", {
  named_x <- x
  colnames(named_x) <- paste0("v", 1:5)
  fits <- list(
    vector = krr_fit(x, y, map, lambda = 1, n_threads = 1),
    named = krr_fit(named_x, y, rff(named_x, 64, sigma = 2, seed = 1), lambda = 1, n_threads = 1),
    matrix = krr_fit(x, cbind(a = y, b = -y), map, lambda = 1, n_threads = 1),
    class = krr_fit(x, factor(cut(y, 3, labels = c("lo", "mid", "hi"))), map, lambda = 1,
                    n_threads = 1),
    rbin = krr_fit(x, y, rbin(x, 20, sigma = 2, seed = 1, n_threads = 1), lambda = 1,
                   n_threads = 1),
    rbin_classes = krr_fit(x, factor(y > 0), rbin(x, 20, sigma = 2, seed = 1, n_threads = 1),
                           lambda = 1, n_threads = 1))
  for (name in names(fits)) {
    fit <- fits[[name]]
    data <- if (name == "named") named_x else x
    all_rows <- general_path(predict(fit, data[1:100, ], n_threads = 1))
    for (k in c(1, 2, 10, 64)) {
      rows <- data[seq_len(k), , drop = FALSE]
      fast <- predict(fit, rows, n_threads = 1)
      expect_identical(fast, general_path(predict(fit, rows, n_threads = 1)), label = name)
      if (is.matrix(all_rows)) {
        expect_identical(fast, all_rows[seq_len(k), , drop = FALSE], label = name)
      } else {
        expect_identical(unname(fast), unname(all_rows[seq_len(k)]), label = name)
      }
    }
    rows <- data[1:3, ]
    rownames(rows) <- c("a", "b", "c")
    expect_identical(predict(fit, rows), general_path(predict(fit, rows)), label = name)
    # One named row: drop() keeps the one name of the two dimensions given.
    expect_identical(predict(fit, rows[1, , drop = FALSE]),
                     general_path(predict(fit, rows[1, , drop = FALSE])), label = name)
    expect_identical(predict(fit, rows, type = "response"), predict(fit, rows), label = name)
  }
  expect_identical(predict(fits$class, x[1:3, ], type = "class"),
                   general_path(predict(fits$class, x[1:3, ], type = "class")))
})

test_that("fwht of small input equals the general path's, and errors match", {
  v <- rnorm(1024)
  m <- matrix(rnorm(64 * 3), 64, 3, dimnames = list(NULL, c("a", "b", "c")))
  for (input in list(v, c(a = 1, b = 2), m, 5, array(rnorm(8), 8))) {
    expect_identical(fwht(input), general_path(fwht(input)))
    expect_identical(fwht(input, normalize = TRUE), general_path(fwht(input, normalize = TRUE)))
  }
  expect_identical(fwht(1:4), fwht(c(1, 2, 3, 4)))
  huge <- c(.Machine$double.xmax, .Machine$double.xmax, 0, 0)
  expect_identical(fwht(huge), general_path(fwht(huge)))
  expect_identical(fwht(huge)[1], Inf)
  expect_error(fwht(c(1, NA, 3, 4)), "Element 2", class = "kitchen_error_argument")
  expect_error(fwht(c(1, 2, 3)), "power of two", class = "kitchen_error_argument")
  expect_error(fwht(v, normalize = NA), "normalize", class = "kitchen_error_argument")
  expect_error(fwht(v, n_threads = 1.5), "n_threads", class = "kitchen_error_argument")
})

test_that("small results from the pool of resident blocks stay intact through collections", {
  v <- rnorm(1024)
  expected <- general_path(fwht(v))
  kept <- lapply(1:200, function(i) fwht(v * i))  # more than the pool holds
  invisible(gc())
  for (round in 1:3) {
    dropped <- lapply(1:100, function(i) fwht(v))
    rm(dropped)
    invisible(gc())
    again <- lapply(1:100, function(i) predict(map, x[1:3, ]))
    expect_true(all(vapply(again, identical, TRUE, predict(map, x[1:3, ]))))
  }
  for (i in c(1, 77, 200)) expect_identical(kept[[i]], general_path(fwht(v * i)))
  expect_identical(fwht(v), expected)
  # A result kept past its call is not handed out again.
  first <- fwht(v)
  invisible(gc())
  second <- fwht(-v)
  expect_identical(first, expected)
  expect_identical(second, -expected)
})
