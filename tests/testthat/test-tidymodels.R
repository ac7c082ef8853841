# kernel_ridge() in a whole tidymodels workflow: a recipe, tuning by
# vfold_cv() and tune_grid(), finalize_workflow(), fit(), predict() on
# held-out rows; and the tuning agrees with krr_fit()'s own CV on the same
# folds and grid.

skip_without_tidymodels <- function() {
  for (p in c("parsnip", "dials", "recipes", "rsample", "tune", "workflows", "yardstick")) {
    skip_if_not_installed(p)
  }
}

tidy_toy <- function(n, seed) {
  set.seed(seed)
  x <- matrix(runif(n * 3, -2, 2), n, 3, dimnames = list(NULL, c("x1", "x2", "x3")))
  data.frame(x, y = sin(2 * x[, 1]) + x[, 2]^2 / 2 + rnorm(n, sd = 0.1))
}

# The fold of each row of the resamples' data (its assessment set).
fold_numbers <- function(resamples, n) {
  folds <- integer(n)
  for (k in seq_along(resamples$splits)) folds[rsample::complement(resamples$splits[[k]])] <- k
  folds
}

test_that("a recipe and kernel_ridge() tune, finalize, fit and predict held-out rows", {
  skip_without_tidymodels()
  data <- tidy_toy(350, seed = 1)
  set.seed(2)
  split <- rsample::initial_split(data, prop = 250 / 350)
  train <- rsample::training(split)
  test <- rsample::testing(split)
  recipe <- recipes::recipe(y ~ ., data = train) |>
    recipes::step_normalize(recipes::all_numeric_predictors())
  spec <- kernel_ridge(penalty = tune::tune(), rbf_sigma = tune::tune(), num_features = 100) |>
    parsnip::set_mode("regression") |>
    parsnip::set_engine("kitchen", seed = 1, n_threads = 1)
  workflow <- workflows::workflow(recipe, spec)
  resamples <- rsample::vfold_cv(train, v = 5)
  grid <- expand.grid(penalty = 10^c(-5, -3, -1), rbf_sigma = c(0.05, 0.3, 2))
  tuned <- tune::tune_grid(workflow, resamples, grid = grid,
                           metrics = yardstick::metric_set(yardstick::rmse))
  metrics <- tune::collect_metrics(tuned)
  expect_identical(nrow(metrics), 9L)
  expect_true(all(metrics$n == 5))
  best <- tune::select_best(tuned, metric = "rmse")
  expect_identical(best$.config, metrics$.config[which.min(metrics$mean)])

  final <- tune::finalize_workflow(workflow, best)
  fitted <- generics::fit(final, train)
  predicted <- predict(fitted, test)
  expect_identical(names(predicted), ".pred")
  expect_identical(nrow(predicted), nrow(test))

  # The same model by hand: the recipe's standardisation, then krr_fit().
  prepped <- recipes::prep(recipe, training = train)
  x_train <- as.matrix(recipes::bake(prepped, train)[c("x1", "x2", "x3")])
  x_test <- as.matrix(recipes::bake(prepped, test)[c("x1", "x2", "x3")])
  # (kernel_ridge() with rbf_sigma keeps kernlab's standardised predictors)
  direct <- krr_fit(x_train, train$y, lambda = best$penalty * nrow(train), n_features = 100,
                    sigma = 1 / sqrt(2 * best$rbf_sigma), scale = "standard", seed = 1,
                    n_threads = 1)
  expect_equal(predicted$.pred, unname(predict(direct, x_test)), tolerance = 1e-10)
  # And it predicts: far better than the mean on rows it never saw.
  test_rmse <- sqrt(mean((predicted$.pred - test$y)^2))
  expect_lt(test_rmse, 0.3 * sd(test$y))
})

test_that("tune_grid() scores the grid as krr_fit()'s own CV does on the same folds", {
  skip_without_tidymodels()
  train <- tidy_toy(250, seed = 3)  # 5 folds of 50 rows
  x <- as.matrix(train[c("x1", "x2", "x3")])
  set.seed(4)
  resamples <- rsample::vfold_cv(train, v = 5)
  folds <- fold_numbers(resamples, nrow(train))
  expect_identical(as.vector(table(folds)), rep(50L, 5))

  # krr_fit()'s CV over its own 50 lambdas for each of three bandwidths; a
  # map without standardisation or clipping is the same map whatever rows
  # it is built on, so that a fold's fit in tune uses the map krr_fit()'s
  # CV uses for that fold.
  rbf_sigma <- c(0.1, 0.4, 1.6)
  sigmas <- 1 / sqrt(2 * rbf_sigma)
  map <- rff(x, 64, sigma = sigmas[1], seed = 1, scale = "none", clip = FALSE)
  own <- krr_fit(x, train$y, map, lambda = "cv", sigma = sigmas, folds = folds, n_threads = 1)
  # Each bandwidth's full CV path (the search screens them on fold 1 and
  # cross-validates only the best two in full: R/krr_bandwidth_search.R).
  each <- lapply(sigmas, function(s) {
    krr_fit(x, train$y, kitchen:::rescale_bandwidth(map, s), lambda = "cv", folds = folds,
            n_threads = 1)
  })
  paths <- do.call(rbind, lapply(seq_along(sigmas), function(i) {
    data.frame(sigma = sigmas[i], lambda = each[[i]]$path$lambda, cv = each[[i]]$path$cv)
  }))
  paths$rbf_sigma <- rbf_sigma[match(paths$sigma, sigmas)]
  # tune's grid: every 7th lambda of each path and each path's choice, as
  # penalties per row of the 200 rows a fold's fit has.
  chosen <- paste(paths$sigma, paths$lambda) %in%
    paste(sigmas, vapply(each, `[[`, 0, "lambda"))
  keep <- ave(seq_len(nrow(paths)), paths$sigma, FUN = seq_along) %% 7 == 1 | chosen
  grid <- data.frame(penalty = paths$lambda[keep] / 200, rbf_sigma = paths$rbf_sigma[keep])

  spec <- kernel_ridge(penalty = tune::tune(), rbf_sigma = tune::tune(), num_features = 64) |>
    parsnip::set_mode("regression") |>
    parsnip::set_engine("kitchen", seed = 1, n_threads = 1, scale = "none", clip = FALSE)
  workflow <- workflows::workflow(recipes::recipe(y ~ ., data = train), spec)
  tuned <- tune::tune_grid(workflow, resamples, grid = grid,
                           metrics = yardstick::metric_set(yardstick::rmse))
  per_fold <- tune::collect_metrics(tuned, summarize = FALSE)
  # krr_fit()'s score is the mean squared error over all held-out rows:
  # with folds of equal size, the mean of the folds' squared RMSEs.
  mse <- aggregate(list(mse = per_fold$.estimate^2), per_fold[c("penalty", "rbf_sigma")], mean)
  at <- match(paste(mse$penalty, mse$rbf_sigma),
              paste(paths$lambda / 200, paths$rbf_sigma))
  expect_false(anyNA(at))
  expect_equal(mse$mse, paths$cv[at], tolerance = 1e-8)

  # The same choice: the candidate of tune's least mean squared error is
  # krr_fit()'s bandwidth and lambda. (select_best() ranks by the mean of
  # the folds' RMSEs, which is another criterion.)
  best <- mse[which.min(mse$mse), ]
  expect_equal(1 / sqrt(2 * best$rbf_sigma), own$map$kernel$sigma, tolerance = 1e-12)
  expect_equal(best$penalty * 200, own$lambda, tolerance = 1e-12)
})
