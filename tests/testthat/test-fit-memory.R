# A dense fit's D x D matrices are checked against the memory the system
# has left before any pass over the data (R/fit_memory.R); an allocation
# failure inside says which argument set their size.

test_that("the matrices a fit holds: more with CV, more with several bandwidths", {
  expect_identical(kitchen:::square_matrices_held(NULL, 1), 3)    # a given lambda, GCV
  expect_identical(kitchen:::square_matrices_held(NULL, 4), 6)    # every candidate's Z'Z kept
  expect_identical(kitchen:::square_matrices_held(5L, 1), 7)      # 5 folds' and the whole Z'Z
  expect_identical(kitchen:::square_matrices_held(5L, 4), 12)     # two finalists' statistics
})

test_that("a fit that cannot hold its matrices is refused up front, naming the argument", {
  check <- function(...) kitchen:::check_fit_memory(..., available = 1e9)
  expect_silent(check(4000, 7, "n_features", "features"))      # 0.9 GB
  expect_error(check(4000, 8, "n_features", "features"),
               "`n_features` gives 4,000 features: the fit would hold 8 matrices of 4,000 x 4,000 \\(1.02 GB\\), more than the 1 GB",
               class = "kitchen_error_argument")
  expect_error(check(12000, 3, "x", "rows"), "`x` gives 12,000 rows", class = "kitchen_error_argument")
  expect_silent(kitchen:::check_fit_memory(1e6, 7, "n_features", "features", available = NA))
  available <- kitchen:::available_memory()
  expect_true(is.na(available) || available > 0)
  # For real: 40,000 features with 5-fold CV need 7 x 12.8 GB; refused at
  # once (a map of 15,000 rows, not the 90 GB fit).
  skip_if(is.na(available) || available > 80e9, "no memory figure, or too much memory to be refused")
  set.seed(1)
  x <- matrix(runif(15000 * 2), 15000, 2)
  expect_error(krr_fit(x, x[, 1], "rff", n_features = 40000, n_threads = 1, verbose = FALSE),
               "`n_features` gives 40,000 features: the fit would hold 7 matrices",
               class = "kitchen_error_argument")
  map <- rff(x, 40000, sigma = 1, seed = 1)
  expect_error(krr_fit(x, x[, 1], map, lambda = "gcv", n_threads = 1, verbose = FALSE),
               "`features` gives 40,000 features: the fit would hold 3 matrices",
               class = "kitchen_error_argument")
})

test_that("an allocation failure inside a fit names the argument; other errors pass as they were", {
  expect_error(kitchen:::with_memory_hint(stop("std::bad_alloc"), 5000, "n_features", "features"),
               "ran out of memory with `n_features` giving 5,000 features", class = "kitchen_error_argument")
  expect_error(kitchen:::with_memory_hint(stop("cannot allocate vector of size 1.9 Gb"), 300, "x", "rows"),
               "ran out of memory with `x` giving 300 rows", class = "kitchen_error_argument")
  other <- structure(class = c("some_error", "error", "condition"),
                     list(message = "something else", call = NULL))
  expect_error(kitchen:::with_memory_hint(stop(other), 5000, "n_features", "features"),
               "something else", class = "some_error")
  expect_identical(kitchen:::with_memory_hint(1 + 1, 5000, "n_features", "features"), 2)
})
