# kernel_ridge() through parsnip: the same fit as krr_fit() with the
# arguments translated (penalty per row, rbf_sigma as kernlab's).

test_that("kernel_ridge() regression fits and predicts as krr_fit() does", {
  skip_if_not_installed("parsnip")
  spec <- kernel_ridge(penalty = 0.01, rbf_sigma = 0.125, num_features = 60) |>
    parsnip::set_mode("regression") |>
    parsnip::set_engine("kitchen", seed = 1, n_threads = 1)
  fit <- parsnip::fit(spec, mpg ~ wt + hp + qsec, data = mtcars)
  x <- as.matrix(mtcars[c("wt", "hp", "qsec")])
  # lambda = penalty * n; bandwidth 1 / sqrt(2 * rbf_sigma) = 2, on the
  # standardised predictors as kernlab's.
  direct <- krr_fit(x, mtcars$mpg, lambda = 0.01 * 32, n_features = 60, sigma = 2, seed = 1,
                    scale = "standard", n_threads = 1)
  expect_equal(fit$fit$coefficients, direct$coefficients, tolerance = 1e-12)
  expect_identical(fit$fit$map$kernel$sigma, 2)
  expect_identical(fit$fit$map$scaling, "standard")
  pred <- predict(fit, mtcars[1:5, ])
  expect_identical(names(pred), ".pred")
  expect_equal(pred$.pred, unname(predict(direct, x[1:5, ])), tolerance = 1e-12)
  # The call names the data instead of holding them (print() showed them all).
  expect_identical(fit$fit$call$x, quote(x))
  expect_identical(fit$fit$call$y, quote(y))
  expect_identical(fit$fit$call$lambda, 0.01 * 32)
  expect_lt(length(capture.output(print(fit))), 20)
})

test_that("without a penalty, lambda is chosen as krr_fit() chooses it; engine arguments reach krr_fit()", {
  skip_if_not_installed("parsnip")
  spec <- kernel_ridge(num_features = 41, map = "fastfood") |>
    parsnip::set_mode("regression") |>
    parsnip::set_engine("kitchen", seed = 2, n_threads = 1, sigma = 3)
  set.seed(5)  # krr_fit()'s default, 5-fold CV, draws its folds
  fit <- parsnip::fit(spec, mpg ~ ., data = mtcars)
  expect_s3_class(fit$fit$map, "kitchen_fastfood")
  expect_identical(fit$fit$map$n_features, 42L)  # rounded up to even
  expect_identical(nrow(fit$fit$path), 50L)
  set.seed(5)
  direct <- krr_fit(as.matrix(mtcars[-1]), mtcars$mpg, features = "fastfood", n_features = 42,
                    sigma = 3, seed = 2, n_threads = 1)
  expect_identical(fit$fit$lambda, direct$lambda)
  expect_equal(predict(fit, mtcars[1:4, ], type = "raw"), predict(direct, as.matrix(mtcars[1:4, -1])),
               tolerance = 1e-12, ignore_attr = TRUE)
  expect_error(parsnip::fit(parsnip::set_engine(kernel_ridge(penalty = 0.1, mode = "regression"),
                                                "kitchen", lambda = 1), mpg ~ ., data = mtcars),
               "not both")
})

test_that("kernel_ridge() classification: classes, and the fit's calibrated probabilities", {
  skip_if_not_installed("parsnip")
  spec <- kernel_ridge(mode = "classification", penalty = 1e-3, num_features = 100) |>
    parsnip::set_engine("kitchen", seed = 1, n_threads = 1, sigma = 2)
  fit <- parsnip::fit(spec, Species ~ ., data = iris)
  direct <- krr_fit(as.matrix(iris[1:4]), iris$Species, lambda = 1e-3 * 150, n_features = 100,
                    sigma = 2, seed = 1, n_threads = 1)
  classes <- predict(fit, iris, type = "class")
  expect_identical(classes$.pred_class, predict(direct, iris[1:4], type = "class"))
  # "raw": the kitchen fit's own output, the class scores
  expect_equal(predict(fit, iris, type = "raw"), predict(direct, iris[1:4]), tolerance = 1e-12,
               ignore_attr = TRUE)
  prob <- predict(fit, iris, type = "prob")
  expect_identical(names(prob), paste0(".pred_", levels(iris$Species)))
  expected <- predict(direct, iris[1:4], type = "prob")
  expect_equal(unname(as.matrix(prob)), unname(expected), tolerance = 1e-12)
  # not the softmax of the scores, which was given before
  scores <- predict(direct, iris[1:4])
  expect_gt(max(abs(as.matrix(prob) - exp(scores) / rowSums(exp(scores)))), 0.1)
  expect_equal(rowSums(prob), rep(1, 150))
})

test_that("rows of new data with NA get NA predictions of every type, as parsnip's engines give", {
  skip_if_not_installed("parsnip")
  spec <- kernel_ridge(mode = "classification", penalty = 1e-3, num_features = 60) |>
    parsnip::set_engine("kitchen", seed = 1, n_threads = 1, sigma = 2)
  fit <- parsnip::fit(spec, Species ~ ., data = iris)
  rows <- iris[c(1, 51, 101, 2), ]
  gappy <- rows
  gappy$Sepal.Width[2] <- NA
  for (type in c("class", "prob")) {
    full <- predict(fit, rows, type = type)
    padded <- predict(fit, gappy, type = type)
    expect_identical(nrow(padded), 4L)
    expect_true(all(is.na(padded[2, ])))
    expect_equal(padded[-2, ], full[-2, ])
  }
  expect_identical(levels(predict(fit, gappy, type = "class")$.pred_class), levels(iris$Species))
  regression <- parsnip::fit(kernel_ridge(mode = "regression", penalty = 1e-3, num_features = 60) |>
                               parsnip::set_engine("kitchen", seed = 1, n_threads = 1),
                             mpg ~ wt + hp, data = mtcars)
  cars <- mtcars[1:3, ]
  cars$hp[3] <- NA
  expect_equal(predict(regression, cars)$.pred,
               c(predict(regression, mtcars[1:2, ])$.pred, NA))
  every <- cars
  every$wt <- NA_real_
  expect_true(all(is.na(predict(regression, every)$.pred)))
})

test_that("several numeric outcomes: a data frame y from workflows is a response matrix", {
  skip_if_not_installed("parsnip")
  x <- as.matrix(mtcars[c("hp", "wt", "qsec")])
  pair <- kernel_ridge_fit(x, mtcars[c("mpg", "disp")], penalty = 1e-3, num_features = 50,
                           seed = 1, n_threads = 1)
  direct <- krr_fit(x, as.matrix(mtcars[c("mpg", "disp")]), lambda = 1e-3 * 32, n_features = 50,
                    seed = 1, n_threads = 1)
  expect_equal(predict(pair, x), predict(direct, x))
  one <- kernel_ridge_fit(x, mtcars["mpg"], penalty = 1e-3, num_features = 50, seed = 1,
                          n_threads = 1)
  expect_equal(predict(one, x), predict(krr_fit(x, mtcars$mpg, lambda = 1e-3 * 32, n_features = 50,
                                                seed = 1, n_threads = 1), x))
  skip_if_not_installed("workflows")
  wf <- workflows::workflow(mpg + disp ~ hp + wt + qsec,
                            kernel_ridge(mode = "regression", penalty = 1e-3, num_features = 50) |>
                              parsnip::set_engine("kitchen", seed = 1, n_threads = 1))
  predictions <- predict(parsnip::fit(wf, mtcars), mtcars)
  expect_identical(names(predictions), c(".pred_mpg", ".pred_disp"))
  expect_equal(unname(as.matrix(predictions)), unname(predict(direct, x)))
})

test_that("kernel_ridge() can be updated, and its tuning parameters have dials ranges", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("dials")
  spec <- kernel_ridge(penalty = 1, num_features = 10)
  changed <- update(spec, penalty = 0.5, map = "fastfood")
  expect_identical(rlang::eval_tidy(changed$args$penalty), 0.5)
  expect_identical(rlang::eval_tidy(changed$args$num_features), 10)
  expect_identical(rlang::eval_tidy(changed$args$map), "fastfood")
  expect_identical(num_features()$range, list(lower = 100L, upper = 2000L))
  expect_identical(feature_map()$values, c("rff", "fastfood"))
  tunable <- generics::tunable(kernel_ridge())
  expect_identical(tunable$name, c("penalty", "rbf_sigma", "num_features", "map"))
  set <- parsnip::extract_parameter_set_dials(
    kernel_ridge(penalty = parsnip::tune(), num_features = parsnip::tune()) |>
      parsnip::set_mode("regression"))
  expect_identical(set$id, c("penalty", "num_features"))
  grid <- dials::grid_regular(set, levels = 3)
  expect_identical(sort(unique(grid$num_features)), c(100L, 1050L, 2000L))
})

test_that("bad arguments are refused with errors naming them", {
  skip_if_not_installed("parsnip")
  x <- as.matrix(mtcars[-1])
  expect_error(kernel_ridge_fit(x, mtcars$mpg, penalty = -1), "penalty",
               class = "kitchen_error_argument")
  expect_error(kernel_ridge_fit(x, mtcars$mpg, rbf_sigma = 0), "rbf_sigma",
               class = "kitchen_error_argument")
  expect_error(kernel_ridge_fit(x, mtcars$mpg, map = "rbin"), "map",
               class = "kitchen_error_argument")
  # an engine sigma would be overwritten by rbf_sigma's, as a lambda by penalty's
  expect_error(kernel_ridge_fit(x, mtcars$mpg, rbf_sigma = 1, sigma = 5),
               "Give `rbf_sigma` or an engine `sigma`, not both", class = "kitchen_error_argument")
})

test_that("case weights reach krr_fit(); the penalty is per unit of weight", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("hardhat")
  d <- mtcars
  w <- rep(c(1, 3, 0), length.out = 32)
  spec <- kernel_ridge(mode = "regression", penalty = 0.01, rbf_sigma = 0.125,
                       num_features = 40) |>
    parsnip::set_engine("kitchen", seed = 1, n_threads = 1)
  fit <- parsnip::fit(spec, mpg ~ wt + hp, data = d, case_weights = hardhat::importance_weights(w))
  x <- as.matrix(d[c("wt", "hp")])
  direct <- krr_fit(x, d$mpg, lambda = 0.01 * sum(w), weights = w, n_features = 40,
                    sigma = 2, scale = "standard", seed = 1, n_threads = 1)
  expect_equal(predict(fit, d)$.pred, unname(predict(direct, x)), tolerance = 1e-12)
  # frequency weights too (the map's scaling is of the distinct rows, so
  # not the fit on replicated rows)
  counts <- rep(1:2, 16)
  by_count <- parsnip::fit(spec, mpg ~ wt + hp, data = d,
                           case_weights = hardhat::frequency_weights(counts))
  direct <- krr_fit(x, d$mpg, lambda = 0.01 * 48, weights = counts, n_features = 40,
                    sigma = 2, scale = "standard", seed = 1, n_threads = 1)
  expect_equal(predict(by_count, d)$.pred, unname(predict(direct, x)), tolerance = 1e-12)
  expect_identical(by_count$fit$call$weights, quote(weights))  # named, not inlined
})

test_that("prob predictions: a column per outcome level, and no softmax for an uncalibrated fit", {
  skip_if_not_installed("parsnip")
  spec <- kernel_ridge(mode = "classification", penalty = 1e-3, num_features = 40) |>
    parsnip::set_engine("kitchen", seed = 1, n_threads = 1)
  two <- iris[iris$Species != "versicolor", ]  # the level is kept, without rows
  expect_warning(fit <- parsnip::fit(spec, Species ~ ., data = two), "no rows")
  prob <- predict(fit, two, type = "prob")
  expect_named(prob, c(".pred_setosa", ".pred_versicolor", ".pred_virginica"))
  expect_identical(prob$.pred_versicolor, rep(0, nrow(two)))
  expect_equal(as.matrix(prob[c(1, 3)]), predict(fit$fit, two, type = "prob"),
               tolerance = 1e-12, ignore_attr = TRUE)
  # one virginica row: CV fold 1's fit sees none, so there is no calibration
  one <- iris[c(1:100, 101), ]
  expect_warning(fit <- parsnip::fit(spec, Species ~ ., data = one), "no class probabilities")
  expect_error(predict(fit, one, type = "prob"), "not calibrated.*virginica")
  expect_s3_class(predict(fit, one)$.pred_class, "factor")
})

test_that("warnings of a parsnip fit show a short call, not the data", {
  skip_if_not_installed("parsnip")
  spec <- kernel_ridge(mode = "classification", penalty = 1e-3, num_features = 40) |>
    parsnip::set_engine("kitchen", seed = 1, n_threads = 1)
  warning <- tryCatch(parsnip::fit(spec, Species ~ ., data = iris[c(1:100, 101), ]),
                      warning = identity)
  expect_match(paste(deparse(conditionCall(warning)), collapse = ""),
               "^krr_fit\\(x = x, y = y, features = \"rff\"")
})

test_that("the model is registered when parsnip loads after kitchen, without kernel_ridge()", {
  skip_if_not_installed("parsnip")
  skip_on_os("windows")  # system2() ignores env there: the child could load another kitchen
  out <- child_output(
    "library(kitchen)",
    "cat(isNamespaceLoaded('parsnip'), '')",
    "invisible(loadNamespace('parsnip'))",
    "cat('kernel_ridge' %in% parsnip::get_model_env()$models, '')",
    "cat(parsnip::show_engines('kernel_ridge')$mode)")
  expect_equal(out, "FALSE TRUE regression classification")
})

test_that("with loss = \"logistic\", prob predictions are the fit's class probabilities", {
  skip_if_not_installed("parsnip")
  spec <- kernel_ridge(mode = "classification", penalty = 1e-3, num_features = 60) |>
    parsnip::set_engine("kitchen", loss = "logistic", seed = 1, n_threads = 1, sigma = 2)
  fit <- parsnip::fit(spec, Species ~ ., data = iris)
  direct <- krr_fit(as.matrix(iris[1:4]), iris$Species, loss = "logistic", lambda = 1e-3 * 150,
                    n_features = 60, sigma = 2, seed = 1, n_threads = 1)
  prob <- predict(fit, iris[c(1, 51, 101), ], type = "prob")
  expected <- predict(direct, iris[c(1, 51, 101), 1:4], type = "prob")
  expect_equal(unname(as.matrix(prob)), unname(expected), tolerance = 1e-12)
  expect_identical(predict(fit, iris[c(1, 51, 101), ], type = "class")$.pred_class,
                   predict(direct, iris[c(1, 51, 101), 1:4], type = "class"))
})

test_that("engine n_features is honoured, and an engine features is refused by name", {
  skip_if_not_installed("parsnip")
  spec <- parsnip::set_engine(kernel_ridge(mode = "regression"), "kitchen", n_features = 100,
                              seed = 1, n_threads = 1)
  expect_identical(parsnip::fit(spec, mpg ~ ., mtcars)$fit$map$n_features, 100L)
  both <- parsnip::set_engine(kernel_ridge(mode = "regression", num_features = 50), "kitchen",
                              n_features = 100)
  expect_error(parsnip::fit(both, mpg ~ ., mtcars), "not both")
  binned <- parsnip::set_engine(kernel_ridge(mode = "regression"), "kitchen", features = "rbin")
  err <- tryCatch(parsnip::fit(binned, mpg ~ ., mtcars), error = identity)
  expect_match(conditionMessage(err), "engine argument `map`")
  expect_lt(nchar(conditionMessage(err)), 500)  # not the training data, deparsed
})
