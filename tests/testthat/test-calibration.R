# The class calibration of least-squares fits (R/calibration.R): its Hessian
# against the sum over rows written out, and its minimum.

calibration_case <- function(n = 60, classes = 4, seed = 3) {
  set.seed(seed)
  inputs <- matrix(rnorm(n * classes), n)
  labels <- sample(classes, n, replace = TRUE)
  weights <- c(0, runif(n - 1, 0.5, 2))
  list(inputs = inputs, labels = labels, weights = weights, classes = classes)
}

test_that("the calibration Hessian is the sum over rows of (diag(q) - qq') (x) xx'", {
  backend <- backend_settings(1L)
  for (classes in c(2, 3, 5)) {
    case <- calibration_case(classes = classes)
    design <- cbind(1, case$inputs)
    set.seed(classes)
    links <- cbind(0, design %*% matrix(rnorm(ncol(design) * (classes - 1)), ncol(design)))
    q <- (exp(links) / rowSums(exp(links)))[, -1, drop = FALSE]
    expected <- Reduce(`+`, lapply(seq_len(nrow(design)), function(i) {
      case$weights[i] * kronecker(diag(q[i, ], classes - 1) - tcrossprod(q[i, ]),
                                  tcrossprod(design[i, ]))
    }))
    hessian <- calibration_hessian(design, q, case$weights, backend)
    expect_equal(hessian, expected, tolerance = 1e-13)
    expect_true(isSymmetric(hessian))
    # threads and SIMD levels split the same sums (Gram kernels; no FMA
    # contraction is promised, so equal to rounding across levels)
    expect_identical(calibration_hessian(design, q, case$weights, backend_settings(2L)), hessian)
    scalar <- calibration_hessian(design, q, case$weights,
                                  utils::modifyList(backend, list(simd = "scalar")))
    expect_equal(scalar, hessian, tolerance = 1e-13)
    # with every probability 1 / K (the Newton start) it is a Kronecker product
    uniform <- matrix(1 / classes, nrow(design), classes - 1)
    expect_equal(calibration_hessian(design, uniform, case$weights, backend),
                 kronecker(diag(1 / classes, classes - 1) - 1 / classes^2,
                           crossprod(design, case$weights * design)), tolerance = 1e-13)
  }
  # more rows than one block of the C++ loop (1024)
  case <- calibration_case(n = 2500, classes = 3)
  design <- cbind(1, case$inputs)
  q <- matrix(runif(2500 * 2, 0, 0.5), 2500)
  expected <- -crossprod(sqrt(case$weights) * cbind(q[, 1] * design, q[, 2] * design))
  for (a in 1:2) {
    block <- (a - 1) * ncol(design) + seq_len(ncol(design))
    expected[block, block] <- expected[block, block] + crossprod(design, case$weights * q[, a] * design)
  }
  expect_equal(calibration_hessian(design, q, case$weights, backend_settings(2L)), expected,
               tolerance = 1e-12)
  expect_error(calibration_hessian_cpp(design, q[-1, ], case$weights, 1L, "scalar"), "one row")
})

test_that("the calibration's Hessian equals its (K - 1)^2 blocks written out", {
  set.seed(3)
  n <- 700
  for (k in c(2, 5)) {
    design <- cbind(1, matrix(rnorm(n * k), n))
    links <- cbind(0, design %*% matrix(rnorm(ncol(design) * (k - 1)) / 3, ncol(design)))
    p <- exp(links) / rowSums(exp(links))
    w <- runif(n)
    d <- ncol(design)
    blocks <- matrix(0, d * (k - 1), d * (k - 1))
    for (a in 2:k) for (b in 2:k) {
      blocks[(a - 2) * d + seq_len(d), (b - 2) * d + seq_len(d)] <-
        crossprod(design, w * p[, a] * ((a == b) - p[, b]) * design)
    }
    expect_equal(calibration_hessian(design, p[, -1, drop = FALSE], w, backend_settings(2L)),
                 blocks, tolerance = 1e-12)
  }
})

test_that("the calibration reaches the penalised minimum of the multinomial log-loss", {
  for (classes in c(2, 3, 6)) {
    # (400 rows: at least 10 per coefficient of the full model, 35 at 6 classes)
    case <- calibration_case(n = 400, classes = classes, seed = 7)
    # scores that carry the labels, so that the minimum is not at 0
    inputs <- case$inputs + 2 * outer(case$labels, seq_len(classes), "==")
    inputs <- if (classes == 2) inputs[, 2, drop = FALSE] else inputs
    coefficients <- fit_calibration(inputs, case$labels, case$weights, backend_settings(1L))
    expect_equal(dim(coefficients), c(ncol(inputs) + 1, classes))
    expect_identical(coefficients[, 1], rep(0, ncol(inputs) + 1))
    design <- cbind(1, inputs)
    p <- softmax_rows(design %*% coefficients)
    onehot <- outer(case$labels, seq_len(classes), "==") * 1
    # the penalty 2e-3 * sum_k ||b_k - mean b||^2 over all classes' slopes
    slopes <- coefficients * c(0, rep(1, ncol(inputs)))
    gradient <- crossprod(design, case$weights * (p - onehot)) + 4e-3 * (slopes - rowMeans(slopes))
    expect_lt(max(abs(gradient[, -1])), 1e-6 * sum(case$weights))
  }
})

test_that("the calibration does not depend on the order of the classes", {
  for (classes in c(2, 3, 6)) {
    case <- calibration_case(n = 400, classes = classes, seed = 9)
    scores <- case$inputs + 2 * outer(case$labels, seq_len(classes), "==")
    probabilities <- function(order) {
      s <- scores[, order, drop = FALSE]
      if (classes == 2) s[, 1] <- -s[, 2]  # two classes: opposite scores, as the fit's
      labels <- match(case$labels, order)
      cf <- fit_calibration(calibration_inputs(s), labels, case$weights, backend_settings(1L))
      calibrated_probabilities(s, cf, NULL)[, order(order), drop = FALSE]
    }
    reference <- probabilities(seq_len(classes))
    for (seed in 1:3) {
      set.seed(seed)
      expect_equal(probabilities(sample(classes)), reference, tolerance = 1e-8)
    }
  }
})

test_that("default folds, and with them the fit, do not depend on the order of the levels", {
  # 149 rows: class sizes not multiples of the folds, where dealing the
  # classes in level order gave other folds (probabilities 0.013 apart)
  x <- as.matrix(iris[-1, 1:4])
  y <- iris$Species[-1]
  fit <- krr_fit(x, y, n_features = 60, seed = 1, n_threads = 1)
  reversed <- krr_fit(x, factor(y, levels = rev(levels(y))), n_features = 60, seed = 1, n_threads = 1)
  expect_identical(reversed$lambda, fit$lambda)
  expect_equal(predict(reversed, x, type = "prob")[, levels(y)], predict(fit, x, type = "prob"),
               tolerance = 1e-8)
  strata <- rep(c(3L, 1L, 2L, 1L), c(7, 11, 5, 9))
  set.seed(5)
  folds <- stratified_folds(strata, 5)
  set.seed(5)
  expect_identical(stratified_folds(c(2L, 3L, 1L)[strata], 5), folds)
  expect_true(all(table(strata, folds) >= 1))  # every class in every fold
})

test_that("a relevelled factor gives the same fit and probabilities", {
  set.seed(3)
  n <- 300
  x <- matrix(runif(n * 2, -1, 1), n, 2)
  y <- factor(c("a", "b", "c")[1 + (x[, 1] > 0) + (x[, 2] > 0.3)])
  map <- rff(x, 30, sigma = 0.8, seed = 2)
  folds <- rep_len(1:5, n)
  fit <- krr_fit(x, y, map, lambda = "cv", folds = folds, n_threads = 1)
  relevelled <- krr_fit(x, factor(y, levels = c("c", "a", "b")), map, lambda = "cv",
                        folds = folds, n_threads = 1)
  expect_equal(relevelled$lambda, fit$lambda)
  new_x <- matrix(runif(40, -1, 1), 20, 2)
  expect_equal(predict(relevelled, new_x, type = "prob")[, levels(y)],
               predict(fit, new_x, type = "prob"), tolerance = 1e-8)
  expect_identical(predict(relevelled, new_x, type = "class"),
                   factor(predict(fit, new_x, type = "class"), levels = c("c", "a", "b")))
})

test_that("fewer than 10 rows per coefficient of the full model: each class's own score", {
  case <- calibration_case(n = 349, classes = 6, seed = 7)  # the full model has 35
  inputs <- case$inputs + 2 * outer(case$labels, seq_len(6), "==")
  few <- fit_calibration(inputs, case$labels, case$weights, backend_settings(1L))
  expect_identical(few, fit_scaling_calibration(inputs, case$labels, case$weights, 1e-3, 100))
  slopes <- few[-1, ]
  expect_identical(slopes[row(slopes) != col(slopes)], rep(0, 30))
  # rows weighted 0 do not count; two classes keep the full model
  w0 <- c(case$weights[1:349], rep(0, 51))
  padded <- rbind(inputs, inputs[1:51, ])
  expect_true(few_rows_for_full_calibration(padded, w0))
  expect_false(few_rows_for_full_calibration(padded, c(case$weights[1:349], rep(1, 51))))
  expect_false(few_rows_for_full_calibration(inputs[1:10, 2, drop = FALSE], rep(1, 10)))
})

test_that("more than 30 classes: each class's own score, at the penalised minimum", {
  classes <- 35
  case <- calibration_case(n = 2000, classes = classes, seed = 8)
  inputs <- case$inputs + 2 * outer(case$labels, seq_len(classes), "==")
  coefficients <- fit_calibration(inputs, case$labels, case$weights, backend_settings(1L))
  # the full model's form: intercepts, then the slopes on the diagonal
  expect_equal(dim(coefficients), c(classes + 1, classes))
  expect_identical(coefficients[1, 1], 0)
  slopes <- coefficients[-1, ]
  expect_identical(slopes[row(slopes) != col(slopes)], rep(0, classes * (classes - 1)))
  # the gradient of the penalised log-loss in a_2..a_K and b_1..b_K vanishes
  p <- softmax_rows(cbind(1, inputs) %*% coefficients)
  residual <- case$weights * (p - outer(case$labels, seq_len(classes), "=="))
  gradient <- c(colSums(residual)[-1], colSums(residual * inputs) + 2e-3 * diag(slopes))
  expect_lt(max(abs(gradient)), 1e-6 * sum(case$weights))
  expect_equal(rowSums(calibrated_probabilities(inputs, coefficients, NULL)), rep(1, 2000))
})

test_that("folds whose fits miss a class leave the fit without probabilities, and say why", {
  x <- as.matrix(iris[, 1:4])
  # folds by site, one site holding every setosa
  folds <- ifelse(iris$Species == "setosa", 1L, rep(2:5, length.out = 150))
  chunks <- lapply(split(seq_len(150), c(rep(1, 50), rep(2:6, 20))),
                   function(r) list(x = x[r, ], y = iris$Species[r]))
  # said when the fit is made, not first when predict(type = "prob") refuses
  said <- "no class probabilities: the fit of CV fold 1 saw no row of class \"setosa\""
  warned <- function(fit) {
    expect_warning(out <- fit, said)  # (expect_warning() returns the warning)
    out
  }
  fits <- list(
    dense = warned(krr_fit(x, iris$Species, rff(x, 100, seed = 1), folds = folds, n_threads = 1,
                           verbose = FALSE)),
    binned = warned(krr_fit(x, iris$Species, rbin(x, 10, seed = 1), folds = folds, n_threads = 1,
                            verbose = FALSE)),
    chunked = warned(krr_fit(chunked(chunks), rff(x, 100, seed = 1), lambda = "cv", n_threads = 1,
                             verbose = FALSE)),
    chunked_binned = warned(krr_fit(chunked(chunks), rbin(x, 10, seed = 1), lambda = "cv",
                                    n_threads = 1, verbose = FALSE)))
  for (fit in fits) {
    expect_gt(mean(predict(fit, x, type = "class") == iris$Species), 0.8)
    expect_error(predict(fit, x, type = "prob"), "fold 1 saw no row of class \"setosa\"",
                 class = "kitchen_error_argument")
    expect_match(paste(utils::capture.output(summary(fit)), collapse = "\n"), "none: the fit of CV fold 1")
  }
  # folds that each see every class: probabilities as before
  fine <- krr_fit(x, iris$Species, rff(x, 100, seed = 1), folds = rep(1:5, 30), n_threads = 1,
                  verbose = FALSE)
  expect_equal(unname(rowSums(predict(fine, x, type = "prob"))), rep(1, 150))
})

test_that("CV folds for classes are stratified: a class of two rows trains every fold's fit", {
  strata <- c(rep(1L, 40), rep(2L, 7), rep(3L, 2))
  set.seed(4)
  folds <- kitchen:::krr_folds(NULL, length(strata), 5, strata = strata)
  expect_identical(sort(unique(folds)), 1:5)
  expect_lte(diff(range(tabulate(folds, 5))), 1)  # sizes as even as random folds'
  expect_identical(length(unique(folds[strata == 2])), 5L)
  expect_identical(length(unique(folds[strata == 3])), 2L)  # the two rows in two folds
  set.seed(4)
  expect_identical(kitchen:::krr_folds(NULL, length(strata), 5, strata = strata), folds)
  # a fit with a class of two rows: calibrated probabilities, no warning
  x <- as.matrix(iris[, 1:4])
  y <- factor(ifelse(seq_len(150) %in% c(3, 77), "rare", as.character(iris$Species)))
  set.seed(1)
  expect_no_warning(fit <- krr_fit(x, y, rff(x, 100, seed = 1), n_threads = 1, verbose = FALSE))
  p <- predict(fit, x[1:5, ], type = "prob")
  expect_equal(unname(rowSums(p)), rep(1, 5))
  expect_identical(colnames(p), levels(y))
})

test_that("a class fit without CV folds gathers its calibration folds in its one pass", {
  ns <- asNamespace("kitchen")
  x <- as.matrix(iris[, 1:4])
  y <- iris$Species
  map <- rff(x, 60, sigma = 1, seed = 1)
  counter <- new.env()
  suppressMessages(trace("krr_statistics", bquote(assign("passes", get("passes", .(counter)) + 1, .(counter))),
                         where = ns, print = FALSE))
  on.exit(suppressMessages(untrace("krr_statistics", where = ns)), add = TRUE)
  backend <- ns$backend_settings(1L)
  coded <- ns$krr_response(y, length(y))$y
  for (lambda in list(0.1, "gcv", c(0.01, 1))) {
    counter$passes <- 0
    fit <- krr_fit(x, y, map, lambda = lambda, n_threads = 1, verbose = FALSE)
    expect_identical(counter$passes, 1)
    # what a second pass for the calibration folds gave, bit for bit
    rows <- ns$map_input(fit$map, x)
    total <- ns$krr_statistics(fit$map, rows, coded, 4096L, backend, FALSE)
    expect_identical(ns$class_calibration(fit$map, rows, coded, NULL, total, NULL, fit$lambda,
                                          4096L, backend),
                     fit$calibration)
    # the fit: the same as from one total, to rounding
    expect_equal(fit$coefficients, ns$krr_solve(total, fit$lambda, backend)$coefficients,
                 tolerance = 1e-10, ignore_attr = TRUE)
  }
})

test_that("least-squares classes are the most probable classes, in every place they are shown", {
  # The largest one-vs-rest score and the largest calibrated probability
  # disagree on some rows (here about 5%); the class follows the probabilities.
  set.seed(21)
  x <- matrix(rnorm(900 * 3), 900, 3, dimnames = list(NULL, c("a", "b", "c")))
  y <- factor(c("p", "q", "r", "s")[1 + (x[, 1] + 0.5 * x[, 2]^2 + rnorm(900) > 0.3) +
                                  2 * (x[, 3] + rnorm(900) > 0.5)])
  train <- 1:600
  fit <- krr_fit(x[train, ], y[train], rff(x[train, ], 60, sigma = 1.5, seed = 3), n_threads = 1,
                 verbose = FALSE)
  new <- x[-train, ]
  prob <- predict(fit, new, type = "prob")
  most_probable <- factor(colnames(prob)[max.col(prob, "first")], levels(y))
  expect_identical(predict(fit, new, type = "class"), most_probable)
  expect_gt(sum(largest_score_class(fit, new) != most_probable), 0)  # the rule matters here
  # training rows: predict() without newdata, augment(), summary()'s accuracy
  fitted_prob <- predict(fit, type = "prob")
  fitted_class <- factor(colnames(fitted_prob)[max.col(fitted_prob, "first")], levels(y))
  expect_identical(predict(fit, type = "class"), fitted_class)
  expect_equal(training_accuracy(fit), mean(fitted_class == y[train]))
  skip_if_not_installed("generics")
  expect_identical(generics::augment(fit)$.fitted, fitted_class)
})
