test_that("a CV path stops two candidates past its minimum, or one when every fold rose", {
  done <- kitchen:::cv_path_done
  folds <- rbind(c(3, 3, 3), c(2, 2, 2), c(2.5, 1.9, 2.5), c(2.6, 2.6, 2.6))
  cv <- rowSums(folds)
  expect_false(done(1, cv, folds, patience = 2))
  expect_false(done(2, cv, folds, patience = 2))  # the minimum so far
  expect_false(done(3, cv, folds, patience = 2))  # one fold still improved
  expect_true(done(4, cv, folds, patience = 2))   # two past the minimum
  unanimous <- rbind(c(3, 3, 3), c(2, 2, 2), c(2.1, 2.01, 2.5))
  expect_true(done(3, rowSums(unanimous), unanimous, patience = 2))
  tie <- rbind(c(2, 2, 2), c(2, 2.5, 2.5))  # a fold equal to its best: not risen
  expect_false(done(2, rowSums(tie), tie, patience = 2))
  expect_true(done(2, rowSums(tie), tie, patience = 1))
})

test_that("logistic CV stops at the first lambda where every held-out fold got worse", {
  set.seed(3)
  x <- matrix(rnorm(300 * 4), 300)
  y <- factor(sample(c("a", "b"), 300, replace = TRUE))  # labels unrelated to x
  map <- rff(x, 400, seed = 2)
  fit <- krr_fit(x, y, map, loss = "logistic", lambda = c(100, 1e-6, 1e-7, 1e-8),
                 folds = rep_len(1:5, 300))
  # Interpolating noise loses on every fold: the path ends at 1e-6.
  expect_identical(fit$path$lambda, c(100, 1e-6))
  expect_identical(fit$lambda, 100)
  binned <- krr_fit(x, y, rbin(x, 20, seed = 2), loss = "logistic",
                    lambda = c(100, 1e-6, 1e-7, 1e-8), folds = rep_len(1:5, 300))
  expect_identical(binned$path$lambda, c(100, 1e-6))
})
