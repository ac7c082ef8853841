test_that("fwht equals the explicit Hadamard matrix for n = 1 ... 2^12", {
  set.seed(1)
  for (k in 0:12) {
    n <- 2^k
    h <- hadamard(n)
    # Small integers: every partial sum is exact, so results must be identical.
    xi <- matrix(sample(-50:50, n * 3, replace = TRUE), n, 3)
    expect_identical(fwht(xi), h %*% xi * 1, info = paste("n =", n))
    xr <- matrix(rnorm(n * 2), n, 2)
    expect_equal(fwht(xr), h %*% xr, tolerance = 1e-13, info = paste("n =", n))
    expect_equal(fwht(xr[, 1]), drop(h %*% xr[, 1]), tolerance = 1e-13)
  }
})

test_that("applying fwht twice multiplies by n; normalized is an involution", {
  set.seed(2)
  for (n in 2^c(0, 1, 5, 10, 14)) {
    x <- matrix(rnorm(n * 3), n, 3)
    expect_equal(fwht(fwht(x)), n * x, tolerance = 1e-12)
    expect_equal(fwht(fwht(x, normalize = TRUE), normalize = TRUE), x, tolerance = 1e-12)
  }
})

test_that("normalize scales by 1/sqrt(n) and preserves the norm", {
  set.seed(3)
  x <- rnorm(256)
  expect_equal(fwht(x, normalize = TRUE), fwht(x) / 16, tolerance = 1e-15)
  expect_equal(sum(fwht(x, normalize = TRUE)^2), sum(x^2), tolerance = 1e-12)
})

test_that("fwht is linear", {
  set.seed(4)
  x <- rnorm(1024)
  y <- rnorm(1024)
  expect_equal(fwht(2.5 * x - 3 * y), 2.5 * fwht(x) - 3 * fwht(y), tolerance = 1e-12)
})

test_that("results are identical for any number of threads", {
  set.seed(5)
  for (n in 2^c(3, 10, 16)) {
    x <- matrix(wild_values(n * 64), n, 64)
    one <- fwht(x, n_threads = 1)
    expect_identical(fwht(x, n_threads = 2), one)
    expect_identical(fwht(x, n_threads = 3), one)
  }
})

test_that("every SIMD path gives bitwise the scalar result", {
  set.seed(6)
  for (k in 0:20) {
    n <- 2^k
    x <- matrix(wild_values(n * 2), n, 2)
    scalar <- with_simd("scalar", fwht(x))
    expect_identical(with_simd("avx2", fwht(x)), scalar, info = paste("avx2, n =", n))
    expect_identical(with_simd("avx512", fwht(x)), scalar, info = paste("avx512, n =", n))
    expect_identical(with_simd("avx512", fwht(x, normalize = TRUE)),
                     with_simd("scalar", fwht(x, normalize = TRUE)))
  }
})

test_that("SIMD paths handle columns at any 8-byte offset", {
  set.seed(7)
  # Columns of a 2^k-row matrix start at 8 * 2^k bytes from each other; an
  # odd-length vector inside a matrix of one extra row is not possible, so
  # test offsets through many small columns and through different n.
  for (n in c(8, 16, 32, 64)) {
    x <- matrix(wild_values(n * 7), n, 7)
    expect_identical(with_simd("avx512", fwht(x)), with_simd("scalar", fwht(x)))
  }
})

test_that("the input is never modified and attributes are kept", {
  x <- matrix(as.numeric(1:8), 4, 2, dimnames = list(letters[1:4], c("u", "v")))
  alias <- x
  saved <- x + 0
  y <- fwht(x)
  expect_identical(x, saved)
  expect_identical(alias, saved)
  expect_identical(dimnames(y), dimnames(x))
  expect_identical(dim(y), c(4L, 2L))
  v <- c(a = 1, b = 2)
  expect_identical(fwht(v), c(a = 3, b = -1))
})

test_that("integer input is accepted and returns doubles", {
  expect_identical(fwht(1:4), c(10, -2, -4, 0))
  expect_identical(fwht(matrix(1:4, 2)), matrix(c(3, -1, 7, -1), 2))
})

test_that("matrices with no columns and one-element vectors work", {
  expect_identical(fwht(matrix(numeric(0), 4, 0)), matrix(numeric(0), 4, 0))
  expect_identical(fwht(5), 5)
  expect_identical(fwht(5, normalize = TRUE), 5)
})

test_that("bad x gives a clear error naming the argument", {
  expect_error(fwht(1:3), class = "kitchen_error_argument")
  expect_error(fwht(1:3), "power of two")
  expect_error(fwht(1:3), "Found length 3")
  expect_error(fwht(matrix(0, 6, 2)), "Found length 6")
  expect_error(fwht(numeric(0)), "Found length 0")
  expect_error(fwht(letters[1:4]), "`x` must be a numeric vector or matrix")
  expect_error(fwht(list(1, 2)), "`x` must be a numeric vector or matrix")
  expect_error(fwht(data.frame(a = 1:4)), "`x` must be a numeric vector or matrix")
  expect_error(fwht(factor(1:4)), "`x` must be a numeric vector or matrix")
  expect_error(fwht(c(TRUE, FALSE)), "`x` must be a numeric vector or matrix")
  expect_error(fwht(NULL), "`x` must be a numeric vector or matrix")
  expect_error(fwht(array(0, c(2, 2, 2))), "`x` must be a numeric vector or matrix")
  expect_error(fwht(complex(4)), "`x` must be a numeric vector or matrix")
})

test_that("NA, NaN and Inf are refused with their position", {
  expect_error(fwht(c(1, 2, NA, 4)), "Element 3 is NA")
  expect_error(fwht(c(1, NaN)), "Element 2 is NaN")
  expect_error(fwht(c(Inf, 1)), "Element 1 is Inf")
  expect_error(fwht(matrix(c(1, 2, 3, -Inf), 2)), "Row 2, column 2 is -Inf")
  expect_error(fwht(c(1L, NA)), "must not contain NA")
})

test_that("bad normalize and n_threads are refused", {
  expect_error(fwht(1:4, normalize = NA), "`normalize` must be `TRUE` or `FALSE`")
  expect_error(fwht(1:4, normalize = "yes"), "`normalize` must be `TRUE` or `FALSE`")
  expect_error(fwht(1:4, n_threads = 0), "`n_threads` must be a whole number >= 1")
  expect_error(fwht(1:4, n_threads = 1.5), "`n_threads`")
  expect_error(fwht(1:4, n_threads = NA), "`n_threads`")
  expect_error(fwht(1:4, n_threads = "2"), "`n_threads`")
  expect_error(fwht(1:4, n_threads = c(1, 2)), "`n_threads`")
})

test_that("normalize equals the transform times 1/sqrt(n), bitwise, on every SIMD level", {
  set.seed(8)
  for (k in c(0:8, 12, 16, 20)) {
    n <- 2^k
    x <- matrix(wild_values(n * 2), n, 2)
    for (level in c("scalar", "avx2", "avx512")) {
      expect_identical(with_simd(level, fwht(x, normalize = TRUE)),
                       with_simd("scalar", fwht(x)) * (1 / sqrt(n)),
                       info = paste(level, "n =", n))
    }
  }
})

test_that("the input is left unchanged on every SIMD level and thread count", {
  set.seed(9)
  for (n in 2^c(0, 3, 6, 7, 10, 13, 17)) {
    x <- matrix(wild_values(n * 3), n, 3)
    saved <- x + 0
    for (level in c("scalar", "avx2", "avx512")) {
      for (threads in 1:2) {
        with_simd(level, fwht(x, n_threads = threads))
        with_simd(level, fwht(x, normalize = TRUE, n_threads = threads))
        expect_identical(x, saved, info = paste(level, threads, "n =", n))
      }
    }
  }
})

test_that("non-finite values are found anywhere, on every SIMD level and thread count", {
  set.seed(10)
  n <- 4096
  for (level in c("scalar", "avx2", "avx512")) {
    for (threads in 1:2) {
      for (pos in c(1, 77, n, 5 * n + 1, 8 * n)) {
        for (bad in list(NA_real_, NaN, Inf, -Inf)) {
          x <- matrix(rnorm(n * 8), n, 8)
          x[pos] <- bad
          expect_error(with_simd(level, fwht(x, n_threads = threads)),
                       sprintf("Row %d, column %d is", (pos - 1) %% n + 1, (pos - 1) %/% n + 1),
                       info = paste(level, threads, pos))
        }
      }
    }
  }
})

test_that("finite input that overflows gives Inf, not an error", {
  x <- c(1.7e308, 1.7e308, rep(0, 126))
  for (level in c("scalar", "avx2", "avx512")) {
    y <- with_simd(level, fwht(x))
    expect_identical(y, rep(c(Inf, 0), 64), info = level)
  }
})

test_that("long columns, transformed in pieces, are bitwise the whole transform", {
  set.seed(8)
  x <- matrix(wild_values(2^10 * 3), 2^10, 3)
  odd <- x[1:2^9, 1]  # 3 stages above pieces of 64: pieces of 32, then 4 stages
  levels <- c("scalar", "avx2", "avx512")
  whole <- lapply(levels, function(level) {
    list(with_simd(level, fwht(x, n_threads = 1)),
         with_simd(level, fwht(x[, 2], normalize = TRUE, n_threads = 1)),
         with_simd(level, fwht(odd, normalize = TRUE, n_threads = 1)))
  })
  old <- kitchen:::fwht_piece_cpp(2^6)  # columns above 64 elements go in pieces
  on.exit(kitchen:::fwht_piece_cpp(old))
  for (i in seq_along(levels)) {
    for (threads in 1:2) {
      expect_identical(with_simd(levels[i], fwht(x, n_threads = threads)), whole[[i]][[1]])
      expect_identical(with_simd(levels[i], fwht(x[, 2], normalize = TRUE, n_threads = threads)),
                       whole[[i]][[2]])
      expect_identical(with_simd(levels[i], fwht(odd, normalize = TRUE, n_threads = threads)),
                       whole[[i]][[3]])
    }
  }
  expect_identical(whole[[3]], whole[[1]])
  # A non-finite value in any piece is found and placed.
  bad <- x
  bad[700, 3] <- NaN
  expect_error(fwht(bad, n_threads = 2), "Row 700, column 3 is NaN")
})
