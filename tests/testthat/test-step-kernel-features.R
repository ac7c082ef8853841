# step_kernel_features(): the map learned in prep() is the one rff() or
# fastfood() builds on the training columns, and bake() adds its features.

# What print() shows, on the standard output or (newer recipes,
# which print with cli) as messages.
printed <- function(x) {
  messages <- character()
  out <- utils::capture.output(messages <- testthat::capture_messages(print(x)))
  paste(c(out, messages), collapse = "\n")
}

test_that("prep() learns the map on the training data; bake() adds its features", {
  skip_if_not_installed("recipes")
  rec <- recipes::recipe(mpg ~ ., data = mtcars[1:24, ]) |>
    step_kernel_features(wt, hp, qsec, num_features = 20, sigma = 3, seed = 7)
  prepped <- recipes::prep(rec, training = mtcars[1:24, ])
  baked <- recipes::bake(prepped, new_data = mtcars[25:32, ])
  columns <- c("wt", "hp", "qsec")
  map <- rff(as.matrix(mtcars[1:24, columns]), 20, sigma = 3, seed = 7)
  expected <- predict(map, as.matrix(mtcars[25:32, columns]))
  features <- sprintf("kf_%02d", 1:20)
  expect_identical(names(baked), c(setdiff(names(mtcars), c(columns, "mpg")), "mpg", features))
  expect_equal(unname(as.matrix(baked[features])), unname(expected), tolerance = 1e-14)
  expect_identical(baked$cyl, mtcars$cyl[25:32])
  # The training data, baked by juice / bake(new_data = NULL).
  train <- recipes::bake(prepped, new_data = NULL)
  expect_equal(unname(as.matrix(train[features])),
               unname(predict(map, as.matrix(mtcars[1:24, columns]))), tolerance = 1e-14)
})

test_that("fastfood maps, kept columns, selectors and the tidy() and print() methods", {
  skip_if_not_installed("recipes")
  rec <- recipes::recipe(Species ~ ., data = iris) |>
    step_kernel_features(recipes::all_numeric_predictors(), map = "fastfood",
                         num_features = 16, seed = 3, prefix = "ff", keep_original_cols = TRUE)
  expect_identical(generics::tidy(rec, number = 1)$terms, "recipes::all_numeric_predictors()")
  expect_true(is.na(generics::tidy(rec, number = 1)$sigma))
  prepped <- recipes::prep(rec)
  map <- fastfood(as.matrix(iris[1:4]), 16, seed = 3)
  baked <- recipes::bake(prepped, new_data = iris)
  expect_identical(names(baked), c(names(iris), sprintf("ff%02d", 1:16)))
  expect_equal(unname(as.matrix(baked[sprintf("ff%02d", 1:16)])),
               unname(predict(map, as.matrix(iris[1:4]))), tolerance = 1e-14)
  tidied <- generics::tidy(prepped, number = 1)
  expect_identical(tidied$terms, names(iris)[1:4])
  expect_identical(tidied$sigma, rep(map$kernel$sigma, 4))
  expect_identical(tidied$map, rep("fastfood", 4))
  expect_match(printed(rec), "Random kernel features")
  expect_match(printed(prepped), "Sepal.Length")
  expect_identical(generics::required_pkgs(prepped$steps[[1]]), "kitchen")
})

test_that("bad input is refused with errors naming what is wrong", {
  skip_if_not_installed("recipes")
  rec <- recipes::recipe(Species ~ ., data = iris)
  expect_error(step_kernel_features(rec, Sepal.Length, map = "rbin"), "map",
               class = "kitchen_error_argument")
  # when the step is made, naming its own argument
  expect_error(step_kernel_features(rec, Sepal.Length, num_features = 7.5),
               "`num_features` must be a whole number", class = "kitchen_error_argument")
  expect_error(step_kernel_features(rec, Sepal.Length, n_features = 10), "takes `num_features`",
               class = "kitchen_error_argument")
  expect_error(recipes::prep(step_kernel_features(rec, Sepal.Length, sigma = -1)), "sigma",
               class = "kitchen_error_argument")
  expect_error(recipes::prep(step_kernel_features(recipes::recipe(~ ., data = iris), Species)),
               "numeric")
  clash <- recipes::recipe(mpg ~ ., data = transform(mtcars, kf_01 = 1)) |>
    step_kernel_features(wt, hp, num_features = 10, sigma = 1, seed = 1)
  expect_error(recipes::prep(clash), "prefix")
  prepped <- recipes::prep(recipes::recipe(mpg ~ ., data = mtcars) |>
                             step_kernel_features(wt, hp, num_features = 2, sigma = 1, seed = 1))
  expect_error(recipes::bake(prepped, new_data = mtcars[c("mpg", "wt")]), "hp")
  # NA: named as the step's, in the user's terms (not rff()'s `x` or `newdata`)
  holed <- mtcars
  holed$hp[3] <- NA
  err <- expect_error(recipes::prep(recipes::recipe(mpg ~ ., data = holed) |>
                                      step_kernel_features(wt, hp, num_features = 2, sigma = 1,
                                                           seed = 1)),
                      class = "kitchen_error_argument")
  expect_match(conditionMessage(err), "needs training data without NA")
  expect_match(conditionMessage(err), "hp")
  # new rows with NA: NA features for them, the others' as without them
  baked <- recipes::bake(prepped, new_data = holed)
  expect_true(all(is.na(baked[3, c("kf_1", "kf_2")])))
  expect_equal(baked[-3, c("kf_1", "kf_2")],
               recipes::bake(prepped, new_data = holed[-3, ])[c("kf_1", "kf_2")], ignore_attr = TRUE)
  # selectors matching no column: the step does nothing
  none <- recipes::prep(recipes::recipe(mpg ~ ., data = mtcars) |>
                          step_kernel_features(recipes::all_nominal_predictors(), num_features = 4))
  expect_identical(recipes::bake(none, new_data = mtcars[1:3, ]),
                   recipes::bake(recipes::prep(recipes::recipe(mpg ~ ., data = mtcars)),
                                 new_data = mtcars[1:3, ]))
  expect_identical(nrow(generics::tidy(none, number = 1)), 0L)
  expect_no_error(suppressMessages(print(none)))
})

test_that("sigma can be tuned: kernel_bandwidth() gives its range, tune_grid() fills it in", {
  skip_if_not_installed("recipes")
  skip_if_not_installed("dials")
  range <- kernel_bandwidth()
  expect_s3_class(range, "quant_param")
  expect_equal(dials::value_seq(range, 3), c(0.125, 1, 8))
  expect_equal(dials::value_seq(kernel_bandwidth(c(-1, 1)), 2), c(0.5, 2))
  skip_if_not_installed("tune")
  skip_if_not_installed("workflows")
  skip_if_not_installed("rsample")
  skip_if_not_installed("parsnip")
  rec <- recipes::recipe(mpg ~ wt + hp, data = mtcars) |>
    step_kernel_features(wt, hp, num_features = 6, sigma = tune::tune(), seed = 1)
  wf <- workflows::workflow(rec, parsnip::linear_reg())
  skip_if_not_installed("hardhat")
  expect_identical(hardhat::extract_parameter_set_dials(wf)$name, "sigma")
  set.seed(2)
  tuned <- tune::tune_grid(wf, rsample::vfold_cv(mtcars, v = 3), grid = data.frame(sigma = c(0.5, 2)),
                           metrics = yardstick::metric_set(yardstick::rmse))
  expect_identical(sort(unique(tune::collect_metrics(tuned)$sigma)), c(0.5, 2))
})

test_that("num_features can be tuned: a tune() placeholder, a dials parameter", {
  skip_if_not_installed("recipes")
  skip_if_not_installed("dials")
  rec <- step_kernel_features(recipes::recipe(mpg ~ ., data = mtcars), wt, hp,
                              num_features = call("tune", ""), seed = 1)  # what tune() gives
  tunable <- generics::tunable(rec$steps[[1]])
  expect_identical(tunable$name, c("num_features", "sigma"))
  expect_identical(tunable$call_info[[1]], list(pkg = "kitchen", fun = "num_features"))
  expect_identical(tunable$call_info[[2]], list(pkg = "kitchen", fun = "kernel_bandwidth"))
  expect_identical(tunable$component_id, rep(rec$steps[[1]]$id, 2))
  # the placeholder prints and tidies (they failed on the call)
  shown <- c(capture.output(printed <- capture.output(print(rec)), type = "message"), printed)
  expect_true(any(grepl("Random kernel features (rff, tune(", shown, fixed = TRUE)))
  tidied <- generics::tidy(rec$steps[[1]])
  expect_identical(tidied$terms, c("wt", "hp"))
  expect_true(all(is.na(tidied$num_features)))
  # a grid's odd count, filled in by tune, is rounded up as kernel_ridge() rounds it
  rec$steps[[1]]$num_features <- 7
  baked <- recipes::bake(recipes::prep(rec, mtcars), mtcars[1:3, ])
  expect_identical(grep("^kf_", names(baked), value = TRUE), sprintf("kf_%d", 1:8))
  made_odd <- step_kernel_features(recipes::recipe(mpg ~ ., data = mtcars), wt,
                                   num_features = 5, seed = 1) |>
    recipes::prep() |> recipes::bake(NULL)
  expect_identical(grep("^kf_", names(made_odd), value = TRUE), sprintf("kf_%d", 1:6))
})

test_that("bake() and a parsnip fit's predict() take zero rows", {
  skip_if_not_installed("recipes")
  skip_if_not_installed("parsnip")
  prepped <- recipes::prep(step_kernel_features(
    recipes::recipe(mpg ~ wt + hp, mtcars), recipes::all_numeric_predictors(), num_features = 4))
  baked <- recipes::bake(prepped, mtcars[0, ])
  expect_identical(dim(baked), c(0L, 5L))
  model <- parsnip::fit(parsnip::set_engine(kernel_ridge(mode = "regression"), "kitchen",
                                            n_threads = 1),
                        mpg ~ ., data = mtcars)
  expect_identical(nrow(predict(model, mtcars[0, ])), 0L)
})
