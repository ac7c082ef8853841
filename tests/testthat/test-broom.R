# tidy(), glance() and augment() (registered for generics when it loads),
# checked against coef(), summary(), fitted(), predict() and sums made here.

broom_fit <- function(..., lambda = "gcv") {
  krr_fit(..., lambda = lambda, n_features = 60, sigma = 2, seed = 1, n_threads = 1, verbose = FALSE)
}

test_that("tidy() gives the coefficients, and the lambda path with the chosen candidate", {
  skip_if_not_installed("generics")
  fit <- broom_fit(mpg ~ wt + hp + qsec, mtcars)
  coefs <- generics::tidy(fit)
  expect_identical(coefs$term, c("(Intercept)", sprintf("feature_%d", 1:60)))
  expect_identical(coefs$estimate, unname(coef(fit)[, 1]))

  path <- generics::tidy(fit, matrix = "lambda")
  expect_equal(path$lambda, fit$path$lambda)
  expect_equal(path$gcv, fit$path$gcv)
  expect_identical(sum(path$chosen), 1L)
  expect_identical(path$lambda[path$chosen], fit$lambda)
  expect_identical(path$gcv[path$chosen], min(path$gcv))
  expect_error(generics::tidy(fit, matrix = "nope"), class = "kitchen_error_argument")

  # Several bandwidths: every (sigma, lambda) pair, the best one chosen.
  several <- krr_fit(mpg ~ wt + hp, mtcars, n_features = 60, sigma = c(1, 2, 4), seed = 1,
                     lambda = "gcv", n_threads = 1)
  path <- generics::tidy(several, matrix = "lambda")
  expect_identical(nrow(path), 3L * nrow(several$path))
  expect_setequal(unique(path$sigma), c(1, 2, 4))
  expect_identical(path$sigma[path$chosen], several$map$kernel$sigma)
  expect_identical(path$gcv[path$chosen], min(path$gcv))
  # by CV, the bandwidths were ranked by a screen: its scores are not
  # glance()'s K-fold cv, and are named so
  screened <- krr_fit(mpg ~ wt + hp, mtcars, n_features = 60, sigma = c(1, 2, 4), seed = 1,
                      lambda = "cv", n_threads = 1)
  path <- generics::tidy(screened, matrix = "lambda")
  expect_named(path, c("sigma", "lambda", "screen", "chosen"))
  expect_identical(sum(path$chosen), 1L)
  expect_false(isTRUE(all.equal(path$screen[path$chosen], generics::glance(screened)$cv)))
})

test_that("tidy() has a response column for classes and several responses", {
  skip_if_not_installed("generics")
  fit <- broom_fit(Species ~ ., iris)
  coefs <- generics::tidy(fit)
  expect_identical(nrow(coefs), 3L * 61L)
  expect_identical(unique(coefs$response), levels(iris$Species))
  expect_identical(coefs$estimate[coefs$response == "virginica"], unname(coef(fit)[, "virginica"]))
})

test_that("glance() reports size, lambda, scores and training error of the fit", {
  skip_if_not_installed("generics")
  # GCV with 60 features on 32 weighted rows (GCV counts the 32 rows, not
  # the weights' sum of 118, which chose a fit close to interpolation)
  fit <- broom_fit(mpg ~ wt + hp + qsec, mtcars, weights = gear)
  expect_lt(fit$path$df[fit$path$lambda == fit$lambda], 0.9 * 32)
  one <- generics::glance(fit)
  expect_identical(nrow(one), 1L)
  s <- summary(fit)
  expect_identical(one$n, 32L)
  expect_identical(one$n_features, 60L)
  expect_identical(one$map, "rff")
  expect_identical(one$kernel, "gaussian")
  expect_identical(one$sigma, 2)
  expect_identical(one$lambda, fit$lambda)
  expect_identical(one$gcv, s$gcv)
  expect_identical(one$df, s$df)
  expect_true(is.na(one$cv))
  # Weighted training RMSE, from the fitted values (the fit's own comes from
  # the sufficient statistics: y'y - 2 b'Z'y + b'Z'Zb loses digits to
  # cancellation when the fit is this close).
  w <- mtcars$gear
  expect_equal(one$rmse, sqrt(sum(w * (mtcars$mpg - fitted(fit))^2) / sum(w)), tolerance = 1e-4)
  expect_true(is.na(one$accuracy))
  expect_equal(one$logLik, as.numeric(logLik(fit)))
  expect_equal(one$AIC, AIC(fit))
  expect_equal(one$BIC, BIC(fit))
  expect_false(is.na(one$AIC))

  cv <- broom_fit(mpg ~ wt + hp, mtcars, lambda = "cv", n_folds = 4)
  expect_identical(generics::glance(cv)$cv, min(cv$path$cv))

  classes <- broom_fit(Species ~ ., iris)
  expect_identical(generics::glance(classes)$accuracy,
                   mean(predict(classes, iris, type = "class") == iris$Species))
  expect_equal(generics::glance(classes)$rmse,
               sqrt(mean(residuals(classes)^2)), tolerance = 1e-8)

  # Per-column bandwidths: still one row, their geometric mean as sigma.
  set.seed(2)
  x <- matrix(runif(300 * 3), 300, 3)
  ard <- krr_fit(x, sin(6 * x[, 1]) + rnorm(300, sd = 0.1), rff(x, 60, seed = 1), sigma = "ard",
                 n_threads = 1, verbose = FALSE)
  expect_length(ard$map$kernel$sigma, 3)
  one <- generics::glance(ard)
  expect_identical(nrow(one), 1L)
  expect_equal(one$sigma, exp(mean(log(ard$map$kernel$sigma))))
})

test_that("augment() adds fitted values and residuals, for training or new data", {
  skip_if_not_installed("generics")
  fit <- krr_fit(mpg ~ wt + hp, mtcars, n_features = 60, sigma = 2, seed = 1, n_threads = 1)
  aug <- generics::augment(fit)
  expect_identical(names(aug), c("mpg", "wt", "hp", ".fitted", ".resid"))
  expect_identical(aug$.fitted, unname(fitted(fit)))
  expect_equal(aug$.resid, mtcars$mpg - aug$.fitted)

  new <- generics::augment(fit, newdata = mtcars[1:5, ])
  expect_identical(names(new), c(names(mtcars), ".fitted", ".resid"))
  expect_equal(new$.fitted, unname(predict(fit, mtcars[1:5, ])))
  expect_equal(new$.resid, mtcars$mpg[1:5] - new$.fitted)
  # Without the response in newdata: predictions only.
  no_y <- generics::augment(fit, newdata = mtcars[1:5, c("wt", "hp")])
  expect_identical(names(no_y), c("wt", "hp", ".fitted"))

  # A matrix fit: the columns alone, or bound to the data given.
  x <- as.matrix(mtcars[c("wt", "hp")])
  mfit <- broom_fit(x, mtcars$mpg)
  expect_identical(names(generics::augment(mfit)), c(".fitted", ".resid"))
  with_data <- generics::augment(mfit, data = mtcars)
  expect_equal(with_data$.resid, unname(residuals(mfit)))
  expect_error(generics::augment(mfit, data = mtcars[1:3, ]), "one row per training row",
               class = "kitchen_error_argument")
  # A formula fit made through a wrapper keeps its model frame; without it
  # (model = FALSE) its data cannot be found again.
  wrapped <- broom_fit(mpg ~ wt + hp, mtcars)
  expect_identical(generics::augment(wrapped)$wt, mtcars$wt)
  slim <- broom_fit(mpg ~ wt + hp, mtcars, model = FALSE)
  expect_error(generics::augment(slim), "Give them as", class = "kitchen_error_argument")
  expect_identical(generics::augment(slim, data = mtcars)$.fitted, unname(fitted(slim)))
})

test_that("augment() puts NA in the places of rows a formula fit dropped", {
  skip_if_not_installed("generics")
  data <- mtcars
  data$hp[c(3, 10)] <- NA
  fit <- krr_fit(mpg ~ wt + hp, data, lambda = 0.1, n_features = 60, sigma = 2, seed = 1,
                 n_threads = 1)
  aug <- generics::augment(fit, data = data)
  expect_identical(nrow(aug), 32L)
  expect_true(all(is.na(aug$.fitted[c(3, 10)])))
  expect_equal(aug$.fitted[-c(3, 10)], unname(fitted(fit)))
  expect_equal(aug$.resid[-c(3, 10)], unname(residuals(fit)))
  # The default: the model frame, the rows used.
  expect_identical(nrow(generics::augment(fit)), 30L)
})

test_that("augment() of a classifier gives the class and the scores behind it", {
  skip_if_not_installed("generics")
  fit <- krr_fit(Species ~ ., iris, n_features = 60, sigma = 2, seed = 1, n_threads = 1)
  aug <- generics::augment(fit)
  expect_identical(aug$.fitted, predict(fit, type = "class"))
  expect_identical(unname(as.matrix(aug[paste0(".score_", levels(iris$Species))])),
                   unname(fitted(fit)))
  expect_false(".resid" %in% names(aug))
  new <- generics::augment(fit, newdata = iris[c(1, 51, 101), ])
  expect_identical(new$.fitted, predict(fit, iris[c(1, 51, 101), ], type = "class"))
})

test_that("chunked fits have no fitted values to augment but can augment new data", {
  skip_if_not_installed("generics")
  x <- as.matrix(mtcars[c("wt", "hp")])
  chunks <- chunked(list(list(x = x[1:16, ], y = mtcars$mpg[1:16]),
                         list(x = x[17:32, ], y = mtcars$mpg[17:32])))
  fit <- krr_fit(chunks, features = rff(x, 60, sigma = 2, seed = 1), n_threads = 1, verbose = FALSE)
  expect_error(generics::augment(fit), "chunked", class = "kitchen_error_argument")
  expect_equal(generics::augment(fit, newdata = x)$.fitted, unname(predict(fit, x)))
  expect_equal(generics::glance(fit)$n, 32)
})

test_that("a logistic fit is glanced with its log-loss and augmented with probabilities", {
  skip_if_not_installed("generics")
  fit <- krr_fit(Species ~ ., iris, loss = "logistic", n_features = 60, sigma = 2, seed = 1,
                 n_threads = 1)
  one <- generics::glance(fit)
  expect_identical(one$log_loss, fit$logistic$log_loss)
  expect_identical(one$accuracy, mean(predict(fit, iris, type = "class") == iris$Species))
  aug <- generics::augment(fit)
  probs <- as.matrix(aug[paste0(".prob_", levels(iris$Species))])
  expect_equal(unname(probs), unname(predict(fit, iris, type = "prob")), tolerance = 1e-12)
  expect_identical(aug$.fitted, predict(fit, type = "class"))
  least_squares <- generics::glance(krr_fit(Species ~ ., iris, n_features = 60, seed = 1,
                                            n_threads = 1))
  expect_true(is.na(least_squares$log_loss))
  expect_equal(one$logLik, -fit$logistic$log_loss * 150)  # the log-loss is per row
  expect_true(is.na(one$AIC))  # no effective df for the logistic loss
  expect_true(all(is.na(least_squares[c("logLik", "AIC", "BIC")])))  # no likelihood
})
