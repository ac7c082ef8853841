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
  map <- rff(2, 4000, sigma = 1, seed = 1)
  need <- function(...) kitchen:::fit_memory_need(map, ...)
  check <- function(need) kitchen:::check_fit_memory(need, available = 1e9)
  expect_silent(check(need("rff", 1e5, FALSE, 5L, 1, TRUE)))      # 7 x 128 MB
  expect_error(check(need("rff", 1e5, FALSE, 5L, 4, TRUE)),
               "`n_features` is 4,000: the fit would hold 12 matrices of 4,000 x 4,000 \\(1.54 GB\\), more than the 1 GB",
               class = "kitchen_error_argument")
  expect_error(check(need(map, 1e5, FALSE, 5L, 4, TRUE)), "`features` is 4,000.*n_folds",
               class = "kitchen_error_argument")
  # classes gather calibration folds whatever lambda: no advice of GCV
  expect_error(check(need("nystrom", 1e5, FALSE, 5L, 4, FALSE)), "`n_centers` is 4,000",
               class = "kitchen_error_argument")
  expect_false(grepl("gcv", cli::ansi_strip(tryCatch(check(need("rff", 1e5, FALSE, 5L, 4, FALSE)),
                                                     error = conditionMessage))))
  # the dual path: n x n matrices and the rows' features, twice per kept candidate
  dual <- need("rff", 1000, TRUE, NULL, 1, TRUE)
  expect_equal(dual$entries, 3 * 1000^2 + 2 * 1000 * 4000)
  expect_error(kitchen:::check_fit_memory(dual, available = 5e7),
               "3 matrices of 1,000 x 1,000 and the 1,000 rows' features", class = "kitchen_error_argument")
  expect_silent(kitchen:::check_fit_memory(dual, available = NA))
  rlang::local_options(kitchen.memory_check = FALSE)
  expect_silent(check(need("rff", 1e5, FALSE, 5L, 4, TRUE)))
})

test_that("a fit refused for real names n_features or features before its passes", {
  available <- kitchen:::available_memory()
  expect_true(is.na(available) || available > 0)
  # 40,000 features with 5-fold CV need 7 x 12.8 GB; refused at once (a map
  # of 15,000 rows, not the 90 GB fit)
  skip_if(is.na(available) || available > 80e9, "no memory figure, or too much memory to be refused")
  set.seed(1)
  x <- matrix(runif(15000 * 2), 15000, 2)
  expect_error(krr_fit(x, x[, 1], "rff", n_features = 40000, n_threads = 1, verbose = FALSE),
               "`n_features` is 40,000: the fit would hold 7 matrices",
               class = "kitchen_error_argument")
  map <- rff(x, 40000, sigma = 1, seed = 1)
  expect_error(krr_fit(x, x[, 1], map, lambda = "gcv", n_threads = 1, verbose = FALSE),
               "`features` is 40,000: the fit would hold 3 matrices",
               class = "kitchen_error_argument")
})

test_that("an allocation failure inside a fit names the argument; other errors pass as they were", {
  need <- kitchen:::fit_memory_need(rff(2, 5000, sigma = 1, seed = 1), "rff", 100, FALSE, 5L, 1, TRUE)
  expect_error(kitchen:::with_memory_hint(stop("std::bad_alloc"), need),
               "ran out of memory with `n_features` = 5,000", class = "kitchen_error_argument")
  expect_error(kitchen:::with_memory_hint(stop("cannot allocate vector of size 1.9 Gb"), need),
               "ran out of memory", class = "kitchen_error_argument")
  other <- structure(class = c("some_error", "error", "condition"),
                     list(message = "something else", call = NULL))
  expect_error(kitchen:::with_memory_hint(stop(other), need), "something else", class = "some_error")
  expect_identical(kitchen:::with_memory_hint(1 + 1, need), 2)
})
