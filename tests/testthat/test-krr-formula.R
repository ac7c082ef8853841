# The formula method takes what lm() takes: subset, weights, na.action,
# offset, contrasts; and the standard methods work on its fits.

formula_fit <- function(...) {
  krr_fit(..., n_features = 60, sigma = 2, seed = 1, n_threads = 1, verbose = FALSE)
}

test_that("subset and weights are evaluated in data, as in lm()", {
  cars <- mtcars
  fit <- formula_fit(mpg ~ wt + hp, cars, subset = cyl != 6, weights = gear, lambda = 0.1)
  keep <- mtcars$cyl != 6
  x <- as.matrix(mtcars[keep, c("wt", "hp")])
  direct <- krr_fit(x, mtcars$mpg[keep], weights = mtcars$gear[keep], lambda = 0.1,
                    n_features = 60, sigma = 2, seed = 1, n_threads = 1, verbose = FALSE)
  expect_equal(fit$coefficients, direct$coefficients, tolerance = 1e-12)
  expect_identical(nobs(fit), sum(keep))
  expect_equal(fit$weights, as.numeric(mtcars$gear[keep]))
})

test_that("na.omit drops and records NA rows; na.exclude pads fitted, residuals, predict", {
  data <- mtcars
  data$hp[c(3, 10)] <- NA
  data$mpg[5] <- NA
  omitted <- formula_fit(mpg ~ wt + hp, data, lambda = 0.1)
  complete <- formula_fit(mpg ~ wt + hp, data[-c(3, 5, 10), ], lambda = 0.1)
  expect_equal(omitted$coefficients, complete$coefficients, tolerance = 1e-12)
  expect_identical(unname(c(omitted$na.action)), c(3L, 5L, 10L))
  expect_length(fitted(omitted), 29)
  expect_output(print(omitted), "3 dropped for missing values")

  excluded <- formula_fit(mpg ~ wt + hp, data, lambda = 0.1, na.action = na.exclude)
  expect_length(fitted(excluded), 32)
  expect_true(all(is.na(fitted(excluded)[c(3, 5, 10)])))
  expect_true(all(is.na(residuals(excluded)[c(3, 5, 10)])))
  expect_identical(names(fitted(excluded)), rownames(mtcars))
  expect_equal(fitted(excluded)[-c(3, 5, 10)], fitted(complete))
  expect_equal(predict(excluded), fitted(excluded))
  # New data with NA: NA predictions in their places (na.pass), as predict.lm().
  pred <- predict(omitted, data)
  expect_true(all(is.na(pred[c(3, 10)])))
  expect_equal(pred[-c(3, 10)], predict(omitted, data[-c(3, 10), ]))
  expect_error(formula_fit(mpg ~ wt + hp, data, na.action = na.fail), "missing values")
  # Infinite values, given or made by the formula, too: one record does not
  # fail the batch
  infinite <- mtcars[1:6, ]
  infinite$wt[2] <- Inf
  infinite$hp[4] <- -Inf
  pred <- predict(omitted, infinite)
  expect_identical(unname(which(is.na(pred))), c(2L, 4L))
  expect_equal(pred[-c(2, 4)], predict(omitted, mtcars[c(1, 3, 5, 6), ]))
  expect_length(predict(omitted, infinite, na.action = na.omit), 6)
  logged <- formula_fit(mpg ~ log(wt) + hp, mtcars, lambda = 0.1)
  zero <- mtcars[1:3, ]
  zero$wt[3] <- 0
  expect_identical(unname(is.na(predict(logged, zero))), c(FALSE, FALSE, TRUE))
  with_offset <- formula_fit(mpg ~ wt + hp + offset(log(qsec - 14)), mtcars, lambda = 0.1)
  shifted <- mtcars[1:4, ]
  shifted$qsec[3] <- 14  # log(0): an infinite offset
  expect_identical(unname(is.na(predict(with_offset, shifted))), c(FALSE, FALSE, TRUE, FALSE))
  # Matrix fits say na.action is not theirs
  x <- as.matrix(mtcars[, c("wt", "hp")])
  matrix_fit <- krr_fit(x, mtcars$mpg, rff(x, 20, seed = 1), lambda = 0.1, n_threads = 1)
  expect_warning(predict(matrix_fit, x, na.action = na.omit), "`na.action` is not used")
})

test_that("offsets are applied in the fit and at predict time, or refused for classes", {
  data <- mtcars
  with_term <- formula_fit(mpg ~ wt + hp + offset(2 * qsec), data, lambda = 0.1)
  shifted <- data
  shifted$mpg <- data$mpg - 2 * data$qsec
  plain <- formula_fit(mpg ~ wt + hp, shifted, lambda = 0.1)
  expect_equal(with_term$coefficients, plain$coefficients, tolerance = 1e-12)
  new <- data[1:5, ]
  new$qsec <- new$qsec + 1
  expect_equal(predict(with_term, new), predict(plain, new) + 2 * new$qsec, tolerance = 1e-12)
  expect_equal(fitted(with_term), fitted(plain) + 2 * data$qsec, tolerance = 1e-12)
  expect_equal(residuals(with_term), residuals(plain), tolerance = 1e-12)

  with_arg <- formula_fit(mpg ~ wt + hp, data, offset = 2 * qsec, lambda = 0.1)
  expect_equal(predict(with_arg, new), predict(with_term, new), tolerance = 1e-12)
  expect_error(formula_fit(Species ~ . + offset(Sepal.Width), iris), "numeric response")
  # new data without the offset argument's variable: named, as the formula's are
  err <- expect_error(predict(with_arg, new[c("wt", "hp")]), class = "kitchen_error_argument")
  expect_match(conditionMessage(err), "offset")
  expect_match(conditionMessage(err), "qsec")
})

test_that("contrasts reach the design matrix and predict uses the same coding", {
  data <- iris
  fit <- formula_fit(Sepal.Length ~ Species + Petal.Width, data, lambda = 0.1,
                     contrasts = list(Species = "contr.sum"))
  expect_identical(fit$contrasts$Species, "contr.sum")
  design <- model.matrix(~ Species + Petal.Width, data, contrasts.arg = list(Species = "contr.sum"))[, -1]
  direct <- krr_fit(design, data$Sepal.Length, lambda = 0.1, n_features = 60, sigma = 2, seed = 1,
                    n_threads = 1, verbose = FALSE)
  expect_equal(predict(fit, data[c(1, 60, 120), ]), predict(direct, design[c(1, 60, 120), ]),
               tolerance = 1e-12, ignore_attr = TRUE)
})

test_that("errors about NA and infinite values name the row and the column", {
  x <- matrix(1, 10, 3, dimnames = list(NULL, c("a", "b", "c")))
  x[7, 2] <- NA
  expect_error(krr_fit(x, 1:10, verbose = FALSE), "Row 7, column 2 \\(\"b\"\\)")
  data <- data.frame(y = 1:10, a = 1, b = 1:10)
  data$b[4] <- Inf
  expect_error(krr_fit(y ~ ., data, verbose = FALSE), "Row 4 \\(\"4\"\\), column 2 \\(\"b\"\\)")
})

test_that("unknown arguments are not reported as kernel parameters", {
  expect_error(krr_fit(mpg ~ ., mtcars, nonsense = 1, verbose = FALSE), "nonsense")
  err <- tryCatch(krr_fit(mpg ~ ., mtcars, nonsense = 1, verbose = FALSE), error = identity)
  expect_false(grepl("kernel takes no parameter", conditionMessage(err)))
})

test_that("errors name krr_fit(), the function called, and the argument at fault", {
  call_of <- function(expr) rlang::call_name(tryCatch(expr, error = identity)$call)
  x <- as.matrix(mtcars[-1])
  # Checks of the formula method's data, of the default method's arguments
  # and of the map's builder reached through `...`.
  expect_identical(call_of(krr_fit(mpg ~ ., mtcars, weights = rep(-1, 32), verbose = FALSE)),
                   "krr_fit")
  expect_identical(call_of(krr_fit(mpg ~ ., mtcars, lambda = -1, verbose = FALSE)), "krr_fit")
  for (features in c("rff", "fastfood", "rbin")) {
    size <- if (features == "rbin") list(n_grids = 0) else list(n_features = -3)
    err <- tryCatch(do.call(krr_fit, c(list(mpg ~ ., mtcars, features = features), size)),
                    error = identity)
    expect_s3_class(err, "kitchen_error_argument")
    expect_identical(rlang::call_name(err$call), "krr_fit")
    expect_match(conditionMessage(err), names(size), fixed = TRUE)
  }
  err <- tryCatch(krr_fit(x, mtcars$mpg, kernel = "laplacian", orthogonal = TRUE), error = identity)
  expect_identical(rlang::call_name(err$call), "krr_fit")
  # The builder's whole message, its bullets included.
  expected <- tryCatch(rff(x, 10, kernel = "laplacian", orthogonal = TRUE), error = identity)
  expect_identical(conditionMessage(err), conditionMessage(expected))
  expect_match(conditionMessage(err), "Use `orthogonal = FALSE`", fixed = TRUE)
})

test_that("predict() names newdata when it is not a data frame or lacks variables", {
  fit <- formula_fit(mpg ~ ., mtcars)
  expect_error(predict(fit, "a"), class = "kitchen_error_argument",
               regexp = "`newdata` must be a data frame")
  err <- tryCatch(predict(fit, mtcars[, c("mpg", "cyl", "wt")]), error = identity)
  expect_s3_class(err, "kitchen_error_argument")
  expect_match(conditionMessage(err), "`newdata` lacks variables")
  expect_match(conditionMessage(err), "disp")
  expect_false(grepl("`cyl`", conditionMessage(err), fixed = TRUE))
  # Lists and environments are data for model.frame(), as for predict.lm().
  expect_equal(predict(fit, as.list(mtcars[1:3, ])), predict(fit, mtcars[1:3, ]), ignore_attr = TRUE)
  expect_equal(predict(fit, list2env(as.list(mtcars[1:3, ]))), predict(fit, mtcars[1:3, ]),
               ignore_attr = TRUE)
})

test_that("fitted, residuals, nobs, predict(), coef names, formula, terms, model.frame", {
  fit <- krr_fit(mpg ~ ., mtcars, lambda = 0.1, n_features = 60, seed = 1, n_threads = 1,
                 verbose = FALSE)
  expect_equal(fitted(fit), predict(fit, mtcars), tolerance = 1e-12)
  expect_identical(names(fitted(fit)), rownames(mtcars))
  expect_equal(residuals(fit), mtcars$mpg - fitted(fit), ignore_attr = TRUE)
  expect_equal(predict(fit), fitted(fit))
  expect_identical(nobs(fit), 32L)
  expect_identical(rownames(coef(fit))[1:3], c("(Intercept)", "feature_1", "feature_2"))
  expect_identical(formula(fit), formula(terms(mpg ~ ., data = mtcars)), ignore_attr = TRUE)
  expect_s3_class(terms(fit), "terms")
  expect_identical(dim(model.frame(fit)), c(32L, 11L))
  expect_output(print(fit), "Call: krr_fit\\(mpg ~ \\.")

  matrix_fit <- krr_fit(as.matrix(mtcars[-1]), mtcars$mpg, n_features = 60, seed = 1,
                        n_threads = 1, verbose = FALSE)
  expect_equal(predict(matrix_fit), fitted(matrix_fit))
  expect_error(formula(matrix_fit), "from a matrix")
  expect_error(model.matrix(matrix_fit), "from a matrix")
})

test_that("the model frame is kept: later changes to the data and wrappers do not reach it", {
  dd <- mtcars
  fit <- krr_fit(mpg ~ wt + hp, dd, lambda = 1, n_features = 40, seed = 1, n_threads = 1,
                 verbose = FALSE)
  frame <- model.frame(fit)
  dd$wt <- dd$wt * 1000
  dd$mpg <- dd$mpg + 100
  expect_identical(model.frame(fit), frame)
  expect_equal(model.frame(fit)$wt, mtcars$wt)
  expect_equal(model.matrix(fit)[, "wt"], mtcars$wt, ignore_attr = TRUE)
  # fits made through a wrapper's ..., lapply() or another function's data
  d <- data.frame(x1 = runif(40), x2 = runif(40), y = runif(40))
  wrapper <- function(...) krr_fit(..., lambda = 0.5, n_features = 40, seed = 1, n_threads = 1,
                                   verbose = FALSE)
  local_data <- function(fo, dat) wrapper(fo, dat)
  fits <- c(list(wrapper(y ~ x1 + x2, d), local_data(y ~ x1 + x2, d)),
            lapply(list(y ~ x1 + x2), krr_fit, data = d, lambda = 0.5, n_features = 40,
                   seed = 1, n_threads = 1, verbose = FALSE))
  for (f in fits) {
    expect_identical(dim(model.frame(f)), c(40L, 3L))
    expect_identical(dim(model.matrix(f)), c(40L, 2L))
  }
  # model = FALSE: rebuilt from the call, or a kitchen error that says why
  slim <- krr_fit(mpg ~ wt + hp, mtcars, lambda = 1, n_features = 40, seed = 1, n_threads = 1,
                  verbose = FALSE, model = FALSE)
  expect_null(slim$model)
  expect_equal(model.frame(slim), frame, ignore_attr = TRUE)
  slim_fit <- function(fo, dat) {
    krr_fit(fo, dat, lambda = 1, n_features = 40, seed = 1, n_threads = 1, verbose = FALSE,
            model = FALSE)
  }
  gone <- slim_fit(mpg ~ wt, mtcars)  # `dat` is not where the formula was written
  expect_error(model.frame(gone), "cannot be rebuilt", class = "kitchen_error_argument")
  dd <- mtcars
  changed <- krr_fit(mpg ~ wt, dd, lambda = 1, n_features = 40, seed = 1, n_threads = 1,
                     verbose = FALSE, model = FALSE)
  dd$mpg <- dd$mpg + 1
  expect_error(model.frame(changed), "data changed", class = "kitchen_error_argument")
  expect_error(krr_fit(mpg ~ wt, mtcars, model = NA), "model", class = "kitchen_error_argument")
})

test_that("deviance(), df.residual(), sigma(), variable.names() and case.names()", {
  fit <- krr_fit(mpg ~ wt + hp, mtcars, n_features = 60, seed = 1, n_threads = 1, verbose = FALSE)
  expect_equal(deviance(fit), sum(residuals(fit)^2))
  df <- fit$path$df[fit$path$lambda == fit$lambda]
  expect_equal(df.residual(fit), 32 - df)
  expect_equal(sigma(fit), sqrt(deviance(fit) / (32 - df)))
  expect_identical(variable.names(fit), c("wt", "hp"))
  expect_identical(case.names(fit), rownames(mtcars))
  w <- rep(1:2, 16)
  weighted <- krr_fit(mpg ~ wt + hp, mtcars, weights = w, lambda = 0.5, n_features = 60, seed = 1,
                      n_threads = 1, verbose = FALSE)
  expect_equal(deviance(weighted), sum(w * residuals(weighted)^2))
  expect_true(is.na(df.residual(weighted)))  # a given lambda: no path to read df from
  logistic <- krr_fit(Species ~ ., iris, loss = "logistic", lambda = 0.1, n_features = 60,
                      seed = 1, n_threads = 1, verbose = FALSE)
  p <- fitted(logistic)
  expect_equal(deviance(logistic), -2 * sum(log(p[cbind(1:150, as.integer(iris$Species))])))
  expect_error(sigma(logistic), "one numeric response", class = "kitchen_error_argument")
  # in the units of y, whatever they are: squares of y * 1e-170 underflow
  for (k in c(1e-170, 1e154)) {
    scaled <- mtcars
    scaled$mpg <- scaled$mpg * k
    refit <- krr_fit(mpg ~ wt + hp, scaled, n_features = 60, seed = 1, n_threads = 1,
                     verbose = FALSE)
    expect_equal(sigma(refit) / k, sigma(fit), tolerance = 1e-10)
  }
})

test_that("logLik(), AIC() and BIC(): lm()'s Gaussian likelihood with the effective df", {
  fit <- krr_fit(mpg ~ wt + hp, mtcars, n_features = 60, seed = 1, n_threads = 1, verbose = FALSE)
  df <- fit$path$df[fit$path$lambda == fit$lambda]
  r <- residuals(fit)
  ll <- logLik(fit)
  expect_equal(as.numeric(ll), sum(dnorm(r, sd = sqrt(mean(r^2)), log = TRUE)))
  expect_equal(attr(ll, "df"), df + 1)
  expect_identical(attr(ll, "nobs"), 32L)
  expect_equal(AIC(fit), -2 * sum(dnorm(r, sd = sqrt(mean(r^2)), log = TRUE)) + 2 * (df + 1))
  expect_equal(BIC(fit), -2 * as.numeric(ll) + log(32) * (df + 1))
  # weights (zero weights leave their rows out): as lm() on the same residuals
  w <- rep(c(0, 1, 2, 3), 8)
  weighted <- krr_fit(mpg ~ wt + hp, mtcars, weights = w, n_features = 60, seed = 1,
                      n_threads = 1, verbose = FALSE)
  reference <- lm(mpg ~ 0 + offset(fitted(weighted)), mtcars, weights = w)
  expect_equal(as.numeric(logLik(weighted)), as.numeric(logLik(reference)))
  expect_identical(attr(logLik(weighted), "nobs"), 24L)
  given <- krr_fit(mpg ~ wt + hp, mtcars, lambda = 0.5, n_features = 60, seed = 1,
                   n_threads = 1, verbose = FALSE)
  expect_true(is.na(AIC(given)))  # a given lambda: no effective df
  logistic <- krr_fit(Species ~ ., iris, loss = "logistic", lambda = 0.1, n_features = 60,
                      seed = 1, n_threads = 1, verbose = FALSE)
  expect_equal(as.numeric(logLik(logistic)), -deviance(logistic) / 2)
  # constant features: an intercept-only logistic fit, whose path says df 0
  flat <- matrix(1, 60, 1)
  intercepts <- krr_fit(flat, factor(rep(c("a", "b", "b"), 20)), rff(flat, 10, sigma = 1, seed = 1),
                        loss = "logistic", lambda = 0.1, n_threads = 1, verbose = FALSE)
  expect_true(is.na(attr(logLik(intercepts), "df")))
  expect_equal(as.numeric(logLik(intercepts)), 20 * log(1 / 3) + 40 * log(2 / 3), tolerance = 1e-6)
  classes <- krr_fit(Species ~ ., iris, n_features = 60, seed = 1, n_threads = 1, verbose = FALSE)
  expect_error(logLik(classes), "logistic", class = "kitchen_error_argument")
  two <- krr_fit(cbind(mpg, qsec) ~ wt + hp, mtcars, n_features = 60, seed = 1, n_threads = 1,
                 verbose = FALSE)
  expect_error(logLik(two), "one numeric response", class = "kitchen_error_argument")
})

test_that("predict() names the variable of the wrong type, a misfit offset and new_data", {
  d <- mtcars
  d$lg <- d$am == 1
  fit <- krr_fit(mpg ~ lg + wt, d, lambda = 1, n_features = 40, seed = 1, n_threads = 1,
                 verbose = FALSE)
  text <- d[1:2, ]
  text$wt <- as.character(text$wt)
  expect_error(predict(fit, text), "variable 'wt' was fitted with type \"numeric\"",
               class = "kitchen_error_argument")
  numbers <- d[1:2, ]
  numbers$lg <- as.numeric(numbers$lg)
  expect_error(predict(fit, numbers), "'lg'", class = "kitchen_error_argument")
  expect_equal(predict(fit, transform(d[1:2, ], cyl = as.character(cyl))), predict(fit, d[1:2, ]))
  off <- rnorm(32)
  with_offset <- krr_fit(mpg ~ wt, mtcars, offset = off, lambda = 1, n_features = 40, seed = 1,
                         n_threads = 1, verbose = FALSE)
  expect_error(predict(with_offset, mtcars[1:4, ]), "gives 32 values for the 4 rows",
               class = "kitchen_error_argument")
  expect_error(predict(fit, new_data = d[1:2, ]), "takes `newdata`, not `new_data`",
               class = "kitchen_error_argument")
  expect_equal(predict(fit, d[1:3, ], type = "resp"), predict(fit, d[1:3, ]))
})

test_that("classes left without rows are named in a warning; prob and class need classes", {
  d <- iris
  d$Sepal.Length[d$Species == "virginica"] <- NA  # every virginica row dropped by na.omit
  expect_warning(fit <- krr_fit(Species ~ ., d, lambda = 1, n_features = 40, seed = 1,
                                n_threads = 1, verbose = FALSE),
                 "1 class of `y` has no rows after `subset` and `na.action`.*virginica")
  expect_identical(fit$response$levels, c("setosa", "versicolor"))
  expect_warning(krr_fit(Species ~ ., iris, subset = Species != "setosa", lambda = 1,
                         n_features = 40, seed = 1, n_threads = 1, verbose = FALSE), "setosa")
  x <- as.matrix(iris[1:100, 1:4])
  expect_warning(krr_fit(x, iris$Species[1:100], rff(x, 40, seed = 1), lambda = 1, n_threads = 1),
                 "1 class of `y` has no rows and is left out of the fit: \"virginica\"")
  expect_no_warning(krr_fit(x, droplevels(iris$Species[1:100]), rff(x, 40, seed = 1), lambda = 1,
                            n_threads = 1))
  # a level without rows in the data itself is not blamed on subset or na.action
  unused <- iris[1:100, ]
  expect_warning(krr_fit(Species ~ ., unused, lambda = 1, n_features = 40, seed = 1, n_threads = 1,
                         verbose = FALSE),
                 "1 class of `y` has no rows and is left out of the fit: \"virginica\"")
  regression <- krr_fit(mpg ~ wt, mtcars, lambda = 1, n_features = 40, seed = 1, n_threads = 1,
                        verbose = FALSE)
  for (type in c("prob", "class")) {
    expect_error(predict(regression, mtcars[1:2, ], type = type), "this one is a regression",
                 class = "kitchen_error_argument")
  }
})

test_that("a quoted subset is refused by name", {
  expect_error(krr_fit(mpg ~ wt, mtcars, subset = "wt > 3", n_features = 20, seed = 1,
                       n_threads = 1),
               "`subset` must be a logical or numeric vector of rows, not a string",
               class = "kitchen_error_argument")
})

test_that("folds are evaluated in data and follow subset and na.action", {
  d <- mtcars
  d$wt[5] <- NA
  d$fold <- rep(1:4, length.out = 32)
  fit <- krr_fit(mpg ~ wt + hp, d, folds = fold, subset = cyl != 6, n_features = 40, seed = 1,
                 n_threads = 1, verbose = FALSE)
  rows <- d$cyl != 6 & !is.na(d$wt)
  by_hand <- krr_fit(mpg ~ wt + hp, d[rows, ], folds = d$fold[rows], n_features = 40, seed = 1,
                     n_threads = 1, verbose = FALSE)
  expect_equal(fit$path$cv, by_hand$path$cv)
  expect_identical(fit$n_folds, 4L)
})

test_that("model.matrix() gives the predictors the map saw, with the fit's contrasts", {
  fit <- krr_fit(mpg ~ wt + factor(cyl), mtcars, n_features = 32, lambda = 1, seed = 1,
                 n_threads = 1, contrasts = list(`factor(cyl)` = "contr.sum"), verbose = FALSE)
  design <- model.matrix(fit)
  expect_identical(colnames(design), c("wt", "factor(cyl)1", "factor(cyl)2"))
  expect_identical(unname(design[, 2:3]),
                   unname(model.matrix(~ factor(cyl), mtcars,
                                       contrasts.arg = list(`factor(cyl)` = "contr.sum"))[, 2:3]))
  # the map's features of those columns give the fitted values
  expect_equal(unname(predict(fit$map, design, n_threads = 1) %*% fit$coefficients +
                        fit$intercept)[, 1], unname(fitted(fit)), tolerance = 1e-10)
})

test_that("a formula without predictors is refused with kitchen's message", {
  expect_error(krr_fit(mpg ~ 1, mtcars, n_features = 32), "no predictors")
})

test_that("classification fits have fitted scores, residuals and class predictions", {
  fit <- formula_fit(Species ~ ., iris, lambda = 0.1)
  expect_identical(dim(fitted(fit)), c(150L, 3L))
  expect_identical(predict(fit, type = "class"), predict(fit, iris, type = "class"))
  coded <- 2 * outer(as.integer(iris$Species), 1:3, "==") - 1
  expect_equal(unname(residuals(fit)), unname(coded - fitted(fit)))
})

test_that("update() refits with a changed formula or arguments", {
  fit <- krr_fit(mpg ~ ., mtcars, lambda = 0.1, n_features = 60, seed = 1, n_threads = 1,
                 verbose = FALSE)
  smaller <- update(fit, . ~ . - qsec)
  expect_false("qsec" %in% attr(terms(smaller), "term.labels"))
  expect_identical(ncol(smaller$map$projection) > 0, TRUE)
  expect_identical(smaller$map$d, 9L)
  other <- update(fit, lambda = 1)
  expect_identical(other$lambda, 1)
  expect_identical(update(fit, lambda = 2, evaluate = FALSE)$lambda, 2)
  # another map by update(): its size argument has another name
  sized <- krr_fit(mpg ~ ., mtcars, n_features = 40, lambda = 0.1, seed = 1, n_threads = 1)
  expect_error(update(sized, features = "rbin"), class = "kitchen_error_argument",
               regexp = "`rbin\\(\\)` takes its size as `n_grids`, not `n_features`")
  expect_error(update(sized, features = "nystrom"), class = "kitchen_error_argument",
               regexp = "`nystrom\\(\\)` takes its size as `n_centers`")
  expect_identical(update(sized, features = "rbin", n_features = NULL, n_grids = 5)$map$n_grids, 5L)
})

test_that("plot() draws single-lambda fits, paths and bandwidth paths", {
  pdf(NULL)
  on.exit(dev.off())
  regression <- formula_fit(mpg ~ ., mtcars, lambda = 0.1)
  expect_silent(plot(regression))
  classes <- formula_fit(Species ~ ., iris, lambda = 0.1)
  expect_silent(plot(classes))
  path <- formula_fit(mpg ~ ., mtcars)
  expect_silent(plot(path))
  x <- as.matrix(mtcars[-1])
  bandwidths <- krr_fit(x, mtcars$mpg, rff(x, 60, sigma = 2, seed = 1), sigma = c(1, 2, 4),
                        n_threads = 1, verbose = FALSE)
  expect_identical(length(unique(attr(bandwidths$sigma_path, "paths")$sigma)), 3L)
  expect_silent(plot(bandwidths))

  # The user's title, labels, axes and symbols replace kitchen's (they were
  # "matched by multiple actual arguments").
  grDevices::dev.control("enable")
  drawn_text <- function() {
    unlist(lapply(grDevices::recordPlot()[[1]], function(op) {
      Filter(is.character, unlist(op[[2]], recursive = TRUE))
    }))
  }
  ard <- krr_fit(x, mtcars$mpg, rff(x, 60, seed = 1), sigma = "ard", lambda = 0.1,
                 n_threads = 1, verbose = FALSE)
  for (fit in list(regression, classes, path, bandwidths)) {
    expect_silent(plot(fit, main = "Mine", xlab = "penalty", ylab = "score", pch = 3, log = ""))
    expect_true(all(c("Mine", "penalty", "score") %in% drawn_text()))
  }
  expect_silent(plot(ard, type = "relevance", main = "Relevance", xlab = "1 / sigma"))
  expect_true(all(c("Relevance", "1 / sigma") %in% drawn_text()))
  expect_silent(plot(ard$map, main = "Map"))
  expect_true("Map" %in% drawn_text())
  # a logistic fit's fitted values are probabilities
  logistic <- formula_fit(Species ~ ., iris, lambda = 0.1, loss = "logistic")
  expect_silent(plot(logistic))
  expect_true("fitted probability of the observed class" %in% drawn_text())
})

test_that("a factor's dummy named like a numeric column (V1 level 1, V11) is a column of its own", {
  # model.matrix() names V1's dummy "V11" next to the numeric V11; lm() takes
  # columns by position, and so must the fit: before, krr_fit() refused the
  # repeated name.
  set.seed(1)
  data <- data.frame(y = rnorm(80), V1 = factor(sample(0:1, 80, TRUE)), V11 = rnorm(80))
  data$y <- data$y + 3 * (data$V1 == "1") + data$V11
  fit <- formula_fit(y ~ ., data, lambda = 0.1)
  design <- stats::model.matrix(~ V1 + V11, data)[, -1]
  direct <- krr_fit(unname(design), data$y, lambda = 0.1, n_features = 60, sigma = 2,
                    seed = 1, n_threads = 1, verbose = FALSE)
  expect_equal(unname(predict(fit, data)), unname(predict(direct, unname(design))),
               tolerance = 1e-12)
  # The two columns stay apart at predict time, in any column order.
  flipped <- data
  flipped$V1 <- factor(ifelse(data$V1 == "1", "0", "1"), levels = c("0", "1"))
  expect_false(isTRUE(all.equal(predict(fit, flipped), predict(fit, data))))
  expect_equal(predict(fit, data[, c("V11", "y", "V1")]), predict(fit, data))
})

test_that("rbin and logistic fits name their fitted values as other fits do", {
  set.seed(1)
  fit <- krr_fit(mpg ~ ., mtcars, features = "rbin", n_threads = 1, verbose = FALSE)
  expect_identical(names(fitted(fit)), rownames(mtcars))
  two <- droplevels(iris[51:150, ])
  classes <- krr_fit(Species ~ ., two, features = "rbin", n_threads = 1, verbose = FALSE)
  expect_identical(dimnames(fitted(classes)), list(rownames(two), levels(two$Species)))
  logistic <- krr_fit(Species ~ ., iris, loss = "logistic", n_features = 40, n_threads = 1,
                      verbose = FALSE)
  expect_identical(dimnames(fitted(logistic)), list(rownames(iris), levels(iris$Species)))
})

test_that("subset, weights and offset passed through a wrapper's ... are the caller's", {
  # The wrapper has variables of the same names: lm() ignores them, so must krr_fit().
  wrapper <- function(data, ...) {
    n <- nrow(data)
    w <- rep(1, n)
    krr_fit(mpg ~ wt + hp, data = data, lambda = 1, n_features = 40, seed = 1, n_threads = 1,
            verbose = FALSE, ...)
  }
  caller <- function() {
    n <- 10
    w <- seq(0.1, 5, length.out = 32)
    list(subset = wrapper(mtcars, subset = seq_len(n)), weights = wrapper(mtcars, weights = w))
  }
  fits <- caller()
  expect_identical(fits$subset$n, 10L)
  expect_identical(fits$weights$weights, seq(0.1, 5, length.out = 32))
  # Data columns through the wrapper, as when called directly.
  direct <- krr_fit(mpg ~ wt + hp, mtcars, weights = cyl, subset = am == 1, offset = log(disp),
                    lambda = 1, n_features = 40, seed = 1, n_threads = 1, verbose = FALSE)
  through <- wrapper(mtcars, weights = cyl, subset = am == 1, offset = log(disp))
  expect_identical(through$n, 13L)
  expect_identical(coef(through), coef(direct))
  expect_identical(predict(through, mtcars), predict(direct, mtcars))
  # the offset of new data is the argument's expression, evaluated in them
  doubled <- transform(mtcars, disp = 2 * disp)  # disp is not a predictor
  expect_equal(predict(direct, doubled) - predict(direct, mtcars), rep(log(2), 32),
               ignore_attr = TRUE)
})

test_that("a formula fit's errors and warnings show the user's call; unused predictors warn", {
  d <- data.frame(y = rnorm(30), x1 = runif(30), x2 = runif(30))
  map <- rff(as.matrix(d["x1"]), 10, sigma = 1, seed = 1)
  warned <- tryCatch(krr_fit(y ~ x1 + log(x2), d, features = map, lambda = 1, n_threads = 1),
                     warning = identity)
  expect_match(conditionMessage(warned), "does not use column \"log\\(x2\\)\"")
  expect_match(paste(deparse(conditionCall(warned)), collapse = ""), "^krr_fit\\(y ~ x1 \\+ log\\(x2\\)")
  err <- tryCatch(krr_fit(y ~ x2, d, features = map), error = identity)
  expect_s3_class(err, "kitchen_error_argument")
  expect_no_match(paste(deparse(conditionCall(err)), collapse = ""), "design")
  expect_no_warning(krr_fit(y ~ x1, d, features = map, lambda = 1, n_threads = 1))
})

test_that("an ordered factor response predicts an ordered factor", {
  d <- iris
  d$Species <- factor(d$Species, ordered = TRUE)
  for (loss in c("squared", "logistic")) {
    fit <- krr_fit(Species ~ ., d, n_features = 50, seed = 1, loss = loss, n_threads = 1)
    pred <- predict(fit, d[c(1, 51, 101), ], type = "class")
    expect_true(is.ordered(pred), info = loss)
    expect_identical(levels(pred), levels(d$Species))
    expect_identical(as.character(pred), c("setosa", "versicolor", "virginica"))
  }
  x <- as.matrix(iris[, 1:4])
  chunks <- chunked(lapply(split(seq_len(150), rep(1:5, 30)), function(i) list(x = x[i, ], y = d$Species[i])))
  fit <- krr_fit(chunks, features = rff(x, 50, seed = 1), n_threads = 1)
  expect_true(is.ordered(predict(fit, x[1:3, ], type = "class")))
  # An unordered factor stays one, and its fit has no `ordered` entry.
  plain <- krr_fit(Species ~ ., iris, n_features = 50, seed = 1, n_threads = 1)
  expect_false(is.ordered(predict(plain, iris[1:3, ], type = "class")))
  expect_null(plain$response$ordered)
})

test_that("predicted classes keep the training factor's levels without rows", {
  set.seed(1)
  x <- matrix(runif(400), 200, 2, dimnames = list(NULL, c("a", "b")))
  truth <- factor(ifelse(x[, 1] > 0.5, "a", "b"), levels = c("a", "b", "c"))
  expect_warning(fit <- krr_fit(x, truth, n_features = 20, seed = 1, n_threads = 1),
                 "left out of the fit")
  pred <- predict(fit, x, type = "class")
  expect_identical(levels(pred), c("a", "b", "c"))
  expect_gt(mean(pred == truth), 0.9)  # `==` needs the same level sets
  expect_identical(colnames(predict(fit, x, type = "prob")), c("a", "b"))
  # the formula's subset leaves "z" without rows
  d <- data.frame(x, cls = factor(ifelse(x[, 1] > 0.3, "x", ifelse(x[, 2] > 0.5, "y", "z"))))
  expect_warning(sub <- formula_fit(cls ~ a + b, d, subset = cls != "z"), "after `subset`")
  expect_identical(levels(predict(sub, d, type = "class")), c("x", "y", "z"))
  if (requireNamespace("generics", quietly = TRUE)) {
    expect_identical(levels(generics::augment(sub, newdata = d)$.fitted), c("x", "y", "z"))
  }
  # chunks: the levels of all chunks' factors
  chunks <- chunked(list(list(x = x[1:100, ], y = truth[1:100]),
                         list(x = x[101:200, ], y = truth[101:200])))
  expect_warning(chunked_fit <- krr_fit(chunks, rff(x, 20, seed = 1), lambda = 0.1,
                                        verbose = FALSE), "left out")
  expect_identical(levels(predict(chunked_fit, x, type = "class")), c("a", "b", "c"))
  expect_identical(levels(predict(chunked_fit, chunks, type = "class")), c("a", "b", "c"))
  # a tampered list of levels is refused
  bad <- fit
  bad$response$factor_levels <- c("a", "c")
  expect_error(predict(bad, x, type = "class"), class = "kitchen_error_argument",
               regexp = "factor_levels")
})

test_that("the x / y interface says the same of every y it refuses", {
  x <- matrix(runif(200), 100, 2)
  y <- x[, 1] > 0.5
  said <- "`y` must be a numeric vector or matrix, or a factor for classification"
  expect_error(krr_fit(x, as.character(y), n_features = 10), said, fixed = TRUE)
  expect_error(krr_fit(x, y, n_features = 10), "give `factor(y)`", fixed = TRUE)
  err <- expect_error(krr_fit(x, data.frame(y = as.numeric(y)), n_features = 10),
                      class = "kitchen_error_argument")
  expect_match(conditionMessage(err), said, fixed = TRUE)
  expect_match(conditionMessage(err), "as.matrix(y)", fixed = TRUE)
  expect_error(krr_fit(x, array(0, c(100, 1, 1)), n_features = 10), said, fixed = TRUE)
})

test_that("a matrix as data is named, with or without weights", {
  m <- as.matrix(mtcars)
  w <- rep(1, nrow(m))
  for (fit in list(function() krr_fit(mpg ~ ., m, n_features = 10),
                   function() krr_fit(mpg ~ ., m, weights = w, n_features = 10))) {
    err <- expect_error(fit(), class = "kitchen_error_argument")
    expect_match(conditionMessage(err), "`data` must be a data frame, a list or an environment, not a double matrix")
    expect_match(conditionMessage(err), "as.data.frame(data)", fixed = TRUE)
  }
})
