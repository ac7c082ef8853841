# What print(), summary() and plot() say about less common fits, and the
# advice errors give: each line must be true of the fit it describes.

test_that("plot() draws paths whose misclassification rate is 0", {
  d <- iris
  d$set <- factor(d$Species == "setosa")
  set.seed(1)
  fit <- krr_fit(set ~ Sepal.Length + Petal.Length, d, features = "rbin", n_grids = 30,
                 n_threads = 1, verbose = FALSE)
  expect_true(any(fit$path$cv == 0))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_silent(plot(fit))
  set.seed(1)
  searched <- krr_fit(set ~ Sepal.Length + Petal.Length, d, features = "rbin", n_grids = 30,
                      sigma = "auto", n_threads = 1, verbose = FALSE)
  expect_silent(plot(searched))
})

test_that("chunked logistic fits show no training RMSE (it is not computed)", {
  set.seed(1)
  chunks <- lapply(1:5, function(i) {
    x <- matrix(runif(400), 200, 2)
    list(x = x, y = factor(ifelse(x[, 1] > 0.5, "a", "b")))
  })
  fit <- krr_fit(chunked(chunks), rff(chunks[[1]]$x, 32, seed = 1), loss = "logistic",
                 n_threads = 1, verbose = FALSE, parallel = "none")
  expect_true(all(is.na(fit$training_rmse)))
  s <- capture.output(print(summary(fit)))
  expect_false(any(grepl("training RMSE", s)))
  expect_match(s, "CV log-loss, accuracy", all = FALSE)
})

test_that("constant features: no lambda to choose, and no negative CV error", {
  set.seed(1)
  x <- matrix(rnorm(200), 100, 2)
  flat <- krr_fit(x, rep(3, 100), n_features = 10, n_threads = 1, verbose = FALSE)
  expect_gte(summary(flat)$cv, 0)
  constant <- krr_fit(matrix(1, 100, 2), rnorm(100), n_features = 10, n_threads = 1,
                      verbose = FALSE)
  out <- capture.output(print(constant))
  expect_match(out, "chosen by : none needed: the features are constant", all = FALSE)
  given <- krr_fit(x, rnorm(100), n_features = 10, lambda = 1, n_threads = 1, verbose = FALSE)
  expect_match(capture.output(print(given)), "chosen by : given", all = FALSE)
})

test_that("errors advise what works", {
  x <- matrix(rnorm(200), 100, 2)
  # a logical response: factor(y), not character labels (refused in memory)
  err <- expect_error(krr_fit(x, x[, 1] > 0, n_features = 10), class = "kitchen_error_argument")
  expect_match(conditionMessage(err), "factor(y)", fixed = TRUE)
  # no kernel sends the user to a map that refuses it too
  cauchy <- expect_error(rbin(x, 10, kernel = "cauchy"), "pitch law")
  expect_no_match(conditionMessage(cauchy), "fastfood")
  expect_error(rff(x, 10, kernel = "cauchy"), NA)
  gaussian <- expect_error(rbin(x, 10, kernel = "gaussian"), "pitch law")
  expect_match(conditionMessage(gaussian), "fastfood")
  ff_cauchy <- expect_error(fastfood(x, 16, kernel = "cauchy"), "rotation-invariant")
  expect_no_match(conditionMessage(ff_cauchy), "rbin")
  ff_laplacian <- expect_error(fastfood(x, 16, kernel = "laplacian"), "rotation-invariant")
  expect_match(conditionMessage(ff_laplacian), "rbin")
  expect_error(rbin(x, 10, kernel = "laplacian"), NA)
})

test_that("predict() warns about arguments it does not use", {
  fit <- krr_fit(mpg ~ wt + hp, mtcars, n_features = 20, lambda = 1, seed = 1, n_threads = 1,
                 verbose = FALSE)
  expect_warning(p <- predict(fit, mtcars[1:3, ], interval = "prediction", se.fit = TRUE),
                 "not used")
  expect_identical(p, predict(fit, mtcars[1:3, ]))
  matrix_fit <- krr_fit(as.matrix(mtcars[2:3]), mtcars$mpg, n_features = 20, lambda = 1,
                        seed = 1, n_threads = 1)
  expect_warning(predict(matrix_fit, as.matrix(mtcars[1:2, 2:3]), se.fit = TRUE), "se.fit")
  expect_silent(predict(matrix_fit, as.matrix(mtcars[1:2, 2:3])))
})

test_that("GCV and CV scores of several columns say they are sums", {
  set.seed(1)
  x <- matrix(runif(400), 200)
  y <- sin(5 * x[, 1]) + rnorm(200, sd = 0.1)
  map <- rff(x, 50, seed = 1)
  one <- krr_fit(x, y, map, lambda = "cv", folds = rep(1:5, 40), n_threads = 1)
  two <- krr_fit(x, cbind(a = y, b = y), map, lambda = "cv", folds = rep(1:5, 40), n_threads = 1)
  expect_equal(summary(two)$cv, 2 * summary(one)$cv)
  expect_equal(summary(two)$gcv, 2 * summary(one)$gcv)
  shown <- capture.output(print(summary(two)))
  expect_match(shown, "GCV score +: [0-9.e-]+ \\(summed over the 2 columns\\)", all = FALSE)
  expect_match(shown, "CV mean squared error +: [0-9.e-]+ \\(summed over the 2 columns\\)",
               all = FALSE)
  expect_false(any(grepl("summed", capture.output(print(summary(one))))))
})

test_that("lambda = \"gcv\" where there is no GCV says CV chooses", {
  set.seed(1)
  x <- matrix(runif(400), 200)
  y <- factor(ifelse(x[, 1] > 0.5, "a", "b"))
  rlang::local_options(rlib_message_verbosity = "verbose")  # not only once per session
  expect_message(krr_fit(x, y, rbin(x, 5, seed = 1), lambda = "gcv", n_threads = 1),
                 "has no GCV; lambda is chosen by 5-fold CV")
  expect_message(krr_fit(x, y, rff(x, 20, seed = 1), lambda = "gcv", loss = "logistic",
                         n_threads = 1), "logistic loss")
  expect_no_message(krr_fit(x, y, rff(x, 20, seed = 1), lambda = "gcv", n_threads = 1))
})

test_that("plot() names a type it does not know", {
  fit <- krr_fit(mpg ~ wt + hp, mtcars, n_features = 20, lambda = c(1, 0.1), seed = 1,
                 n_threads = 1, verbose = FALSE)
  expect_error(plot(fit, type = "relevence"), "`type` must be \"relevance\"",
               class = "kitchen_error_argument")
})

test_that("map predict() warns about unused arguments; kernel_matrix() about a kernel as y", {
  x <- matrix(runif(40), 20, 2)
  for (map in list(rff(x, 8, seed = 1), fastfood(x, 8, seed = 1), rbin(x, 3, seed = 1),
                   nystrom(x, 5, seed = 1))) {
    expect_warning(predict(map, x, type = "class"), "`type`")
    expect_no_warning(predict(map, x))
  }
  expect_error(kernel_matrix(x, kernel_gaussian(2)), "`y` is a kernel",
               class = "kitchen_error_argument")
})

test_that("as many sigma candidates as columns: krr_fit() says they are candidates", {
  set.seed(2)
  x <- matrix(runif(300), 100, 3)
  rlang::local_options(rlib_message_verbosity = "verbose")
  expect_message(fit <- krr_fit(x, x[, 1], rff(x, 20, seed = 1), sigma = c(0.5, 1, 2),
                                lambda = "gcv", n_threads = 1),
                 "bandwidth candidates")
  expect_length(fit$map$kernel$sigma, 1)
  expect_no_message(krr_fit(x, x[, 1], rff(x, 20, seed = 1), sigma = c(0.5, 1), lambda = "gcv",
                            n_threads = 1))
})

test_that("least-squares classifiers: held-out misclassification, weighted training accuracy", {
  set.seed(8)
  x <- matrix(rnorm(600 * 2), 600, 2, dimnames = list(NULL, c("a", "b")))
  y <- factor(ifelse(x[, 1] + x[, 2]^2 + rnorm(600, sd = 0.7) > 1, "yes", "no"))
  w <- rep(c(0, 1, 3), 200)
  folds <- rep(1:4, length.out = 600)
  map <- rff(x, 40, sigma = 1, seed = 2)
  fit <- krr_fit(x, y, map, lambda = "cv", folds = folds, weights = w, n_threads = 1,
                 verbose = FALSE)
  # each row scored by the fit at the chosen lambda of the other folds' rows,
  # its class the most probable under the fit's calibration (as predict())
  scores <- matrix(0, 600, 2)
  for (k in 1:4) {
    out <- folds == k
    fold_fit <- krr_fit(x[!out, ], y[!out], map, lambda = fit$lambda, weights = w[!out],
                        n_threads = 1, verbose = FALSE)
    scores[out, ] <- predict(fold_fit, x[out, ])
  }
  prob <- calibrated_probabilities(scores, fit$calibration, levels(y))
  held_out <- sum(w * (levels(y)[max.col(prob, "first")] != y)) / sum(w)
  expect_equal(attr(fit$calibration, "held_out_error"), held_out, tolerance = 1e-12)
  # the confusion matrix counts the same held-out classes by their weights
  held_out_class <- factor(levels(y)[max.col(prob, "first")], levels(y))
  confusion <- summary(fit)$confusion
  expect_equal(unclass(confusion), unclass(xtabs(w ~ y + held_out_class)),
               ignore_attr = TRUE, tolerance = 1e-12)
  expect_identical(dimnames(confusion), list(true = levels(y), predicted = levels(y)))
  expect_identical(attr(confusion, "rows"), "held-out")
  expect_equal(1 - sum(diag(confusion)) / sum(confusion), held_out, tolerance = 1e-12)
  shown <- capture.output(print(summary(fit)))
  expect_match(shown, sprintf("held-out misclassification : %s", format(held_out, digits = 4)),
               fixed = TRUE, all = FALSE)
  # training accuracy counts rows by their weight: rows weighted 0 not at all
  fitted_class <- predict(fit, x, type = "class")
  accuracy <- sum(w * (fitted_class == y)) / sum(w)
  expect_false(isTRUE(all.equal(accuracy, mean(fitted_class == y))))
  expect_match(shown, sprintf("training accuracy *: %s$", format(accuracy, digits = 4)),
               all = FALSE)
  if (requireNamespace("generics", quietly = TRUE)) {
    expect_equal(generics::glance(fit)$accuracy, accuracy)
  }
  # two classes: one RMSE (the columns mirror each other), logistic fits too
  expect_length(grep("training RMSE *: [0-9.e-]+$", shown), 1)
  logistic <- krr_fit(x, y, map, lambda = 0.01, loss = "logistic", n_threads = 1,
                      verbose = FALSE)
  # without held-out classes: the training rows', named as such
  confusion <- summary(logistic)$confusion
  expect_identical(attr(confusion, "rows"), "training")
  expect_equal(unclass(confusion), unclass(table(y, predict(logistic, x, type = "class"))),
               ignore_attr = TRUE)
  expect_match(capture.output(summary(logistic)),
               "Confusion matrix of the training rows (rows: true class; columns: predicted):",
               fixed = TRUE, all = FALSE)
  expect_length(grep("training RMSE *: [0-9.e-]+$", capture.output(summary(logistic))), 1)
  # chunked fits say that their chunks carried weights
  chunks <- lapply(1:3, function(i) {
    rows <- seq(i, 600, by = 3)
    list(x = x[rows, ], y = y[rows], weights = w[rows] + 1)
  })
  from_chunks <- krr_fit(chunked(chunks), map, lambda = 0.01, n_threads = 1, verbose = FALSE)
  expect_match(capture.output(print(from_chunks)),
               sprintf("weights *: given with the chunks, sum %d", sum(w + 1)), all = FALSE)
})

test_that("counts print without a clash when numbers use a decimal comma", {
  # format(big.mark = ",") warned with options(OutDec = ","), and "181,110
  # bins" read as a decimal next to "sigma = 0,3".
  set.seed(3)
  x <- matrix(runif(3000 * 2), 3000, 2)
  map <- rbin(x, 40, sigma = 0.02, seed = 1)
  expect_gt(map$n_features, 1000)
  old <- options(OutDec = ",", warn = 2)
  on.exit(options(old))
  shown <- capture.output(print(map), summary(map))
  expect_true(any(grepl("^  features +: [0-9]+\\.[0-9]{3} occupied bins", shown)))
  fit <- krr_fit(x, x[, 1], map, lambda = 0.1, n_threads = 1)
  expect_match(grep("time \\(s\\)", capture.output(summary(fit)), value = TRUE),
               "bin columns [0-9]+,[0-9]{2}, solve [0-9]+,[0-9]{2}")
  expect_error(rff(matrix(0, 2, 60000), 2e5), "The 60\\.000 x 100\\.000 frequencies",
               class = "kitchen_error_argument")
  options(OutDec = ".")
  expect_output(print(map), "[0-9]+,[0-9]{3} occupied bins")
})

test_that("the confusion matrix: printed up to 12 classes, none for regression", {
  set.seed(3)
  x <- matrix(rnorm(390 * 2), 390, 2)
  y <- factor(rep(sprintf("c%02d", 1:13), 30))
  x[, 1] <- x[, 1] + as.integer(y)
  fit <- krr_fit(x, y, rff(x, 40, sigma = 2, seed = 1), n_threads = 1, verbose = FALSE)
  shown <- capture.output(summary(fit))
  expect_match(shown, "Confusion matrix of the held-out rows (rows: true class; columns: predicted): 13 classes, in summary(fit)$confusion",
               fixed = TRUE, all = FALSE)
  expect_identical(dim(summary(fit)$confusion), c(13L, 13L))
  expect_equal(sum(summary(fit)$confusion), 390)
  regression <- krr_fit(x, x[, 1], rff(x, 40, sigma = 2, seed = 1), n_threads = 1,
                        verbose = FALSE)
  expect_null(summary(regression)$confusion)
  expect_false(any(grepl("Confusion", capture.output(summary(regression)))))
})
