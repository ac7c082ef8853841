# Sample weights: sum_i w_i (y_i - f(x_i))^2 + lambda ||beta||^2. Whole-number
# weights give the fit on replicated rows at a given lambda, zero weights
# the fit without those rows, for dense maps, rbin (CG) and chunked data.
# GCV counts the rows with a non-zero weight (precision weights, as in
# lm()), so that the weights' scale cannot move its choice.

weights_toy <- function(n = 240, d = 3) {
  set.seed(21)
  x <- matrix(runif(n * d, -2, 2), n, d, dimnames = list(NULL, c("a", "b", "c")))
  list(x = x, y = sin(2 * x[, 1]) + x[, 2] + rnorm(n, sd = 0.2),
       w = sample(0:3, n, replace = TRUE))
}

# The same lambda and the same predictions (coefficients themselves are
# ill-conditioned when GCV picks a tiny lambda: rounding in a different
# summation order moves them more than the fit).
expect_same_fit <- function(a, b, tolerance = 1e-8) {
  expect_equal(a$lambda, b$lambda, tolerance = tolerance)
  x <- matrix(seq(-2, 2, length.out = 30), 10, 3, dimnames = list(NULL, c("a", "b", "c")))
  expect_equal(predict(a, x), predict(b, x), tolerance = tolerance)
}

test_that("whole-number weights give the fit on replicated rows (dense maps)", {
  toy <- weights_toy()
  copies <- rep(seq_along(toy$w), toy$w)
  for (make in list(function(x) rff(x, 60, sigma = 1, seed = 3),
                    function(x) fastfood(x, 64, sigma = 1, seed = 3))) {
    map <- make(toy$x)
    weighted <- krr_fit(toy$x, toy$y, map, lambda = 0.3, weights = toy$w, block_size = 50,
                        n_threads = 1, verbose = FALSE)
    replicated <- krr_fit(toy$x[copies, ], toy$y[copies], map, lambda = 0.3,
                          block_size = 50, n_threads = 1, verbose = FALSE)
    expect_same_fit(weighted, replicated)
    expect_equal(weighted$training_rmse, replicated$training_rmse, tolerance = 1e-8)
    # GCV: the same hat matrix trace and residuals along the path, over the
    # rows with a non-zero weight (m) instead of the copies (N)
    for (lambda in list("gcv", c(0.01, 0.1, 1))) {
      weighted <- krr_fit(toy$x, toy$y, map, lambda = lambda, weights = toy$w, block_size = 50,
                          n_threads = 1, verbose = FALSE)
      replicated <- krr_fit(toy$x[copies, ], toy$y[copies], map, lambda = weighted$path$lambda,
                            block_size = 50, n_threads = 1, verbose = FALSE)
      df <- replicated$path$df
      expect_equal(weighted$path$df, df, tolerance = 1e-8)
      m <- sum(toy$w > 0)
      big_n <- sum(toy$w)
      rss <- replicated$path$gcv * (big_n - df)^2 / big_n
      expect_equal(weighted$path$gcv, m * rss / (m - df)^2, tolerance = 1e-8)
    }
  }
})

test_that("GCV's choice does not depend on the weights' scale (primal and dual paths)", {
  toy <- weights_toy(120)
  w <- runif(120, 0.2, 3)
  for (features in c(60, 400)) {  # 400 > 120 rows: the dual path
    map <- rff(toy$x, features, sigma = 1, seed = 3)
    fits <- lapply(c(1, 1 / sum(w), 1e6), function(k) {
      list(gcv = krr_fit(toy$x, toy$y, map, lambda = "gcv", weights = w * k, n_threads = 1,
                         verbose = FALSE),
           auto = krr_fit(toy$x, toy$y, map, sigma = "auto", lambda = "gcv", weights = w * k,
                          n_threads = 1, verbose = FALSE))
    })
    for (f in fits[-1]) {
      for (kind in c("gcv", "auto")) {
        expect_equal(f[[kind]]$map$kernel$sigma, fits[[1]][[kind]]$map$kernel$sigma)
        expect_equal(f[[kind]]$path$df, fits[[1]][[kind]]$path$df, tolerance = 1e-6)
        expect_equal(fitted(f[[kind]]), fitted(fits[[1]][[kind]]), tolerance = 1e-6)
      }
    }
  }
})

test_that("zero weights give the fit without those rows, also for classes and CV", {
  toy <- weights_toy()
  keep <- toy$w > 0
  w01 <- as.numeric(keep)
  map <- rff(toy$x, 60, sigma = 1, seed = 4)
  expect_same_fit(krr_fit(toy$x, toy$y, map, lambda = "gcv", weights = w01, n_threads = 1,
                          verbose = FALSE),
                  krr_fit(toy$x[keep, ], toy$y[keep], map, lambda = "gcv", n_threads = 1,
                          verbose = FALSE))
  label <- factor(ifelse(toy$y > 0.3, "hi", "lo"))
  expect_same_fit(krr_fit(toy$x, label, map, lambda = "gcv", weights = w01, n_threads = 1,
                          verbose = FALSE),
                  krr_fit(toy$x[keep, ], label[keep], map, lambda = "gcv", n_threads = 1,
                          verbose = FALSE))
  folds <- rep(1:3, length.out = nrow(toy$x))
  by_cv <- krr_fit(toy$x, toy$y, map, lambda = "cv", folds = folds, weights = w01, n_threads = 1,
                   verbose = FALSE)
  dropped <- krr_fit(toy$x[keep, ], toy$y[keep], map, lambda = "cv", folds = folds[keep],
                     n_threads = 1, verbose = FALSE)
  expect_equal(by_cv$path$cv, dropped$path$cv, tolerance = 1e-8)
  expect_same_fit(by_cv, dropped)
})

test_that("a class whose rows all weigh 0 is left out, as a class without rows (every path)", {
  x <- as.matrix(iris[, 1:4])
  y <- iris$Species
  w <- as.numeric(y != "virginica")
  keep <- w > 0
  map <- rff(x, 60, seed = 3)
  empty <- "1 class of `y` has no rows of non-zero weight and is left out of the fit: \"virginica\""
  dropped <- krr_fit(x[keep, ], droplevels(y[keep]), map, lambda = 1e-3, n_threads = 1,
                     verbose = FALSE)
  expect_warning(weighted <- krr_fit(x, y, map, lambda = 1e-3, weights = w, n_threads = 1,
                                     verbose = FALSE), empty)
  expect_identical(weighted$response$levels, c("setosa", "versicolor"))
  expect_equal(predict(weighted, x), predict(dropped, x), tolerance = 1e-10)
  expect_identical(colnames(predict(weighted, x, type = "prob")), c("setosa", "versicolor"))
  expect_warning(logistic <- krr_fit(x, y, map, lambda = 1e-3, weights = w, loss = "logistic",
                                     n_threads = 1, verbose = FALSE), empty)
  expect_equal(predict(logistic, x, type = "prob"),
               predict(krr_fit(x[keep, ], droplevels(y[keep]), map, lambda = 1e-3,
                               loss = "logistic", n_threads = 1, verbose = FALSE),
                       x, type = "prob"), tolerance = 1e-8)
  expect_warning(binned <- krr_fit(x, y, rbin(x, 10, seed = 3), lambda = 1e-3, weights = w,
                                   n_threads = 1, verbose = FALSE), empty)
  expect_identical(binned$response$levels, c("setosa", "versicolor"))
  # chunked: the class is in every chunk, with weight 0
  chunks <- lapply(split(seq_len(150), rep(1:3, 50)),
                   function(r) list(x = x[r, ], y = y[r], weights = w[r]))
  expect_warning(from_chunks <- krr_fit(chunked(unname(chunks)), map, lambda = 1e-3,
                                        n_threads = 1, verbose = FALSE), empty)
  expect_equal(predict(from_chunks, x), predict(dropped, x), tolerance = 1e-8)
  # character labels have no declared levels, but the class was there
  labelled <- lapply(chunks, function(chunk) within(chunk, y <- as.character(y)))
  expect_warning(krr_fit(chunked(unname(labelled)), map, lambda = 1e-3, n_threads = 1,
                         verbose = FALSE), empty)
  expect_warning(chunked_logistic <- krr_fit(chunked(unname(chunks)), map, lambda = 1e-3,
                                             loss = "logistic", n_threads = 1, verbose = FALSE),
                 empty)
  expect_equal(predict(chunked_logistic, x, type = "prob"),
               predict(logistic, x, type = "prob"), tolerance = 1e-6)
  # one class left with weight: no fit
  expect_error(expect_warning(krr_fit(x, y, map, weights = as.numeric(y == "setosa"),
                                      verbose = FALSE),
                              "2 classes of `y` have no rows of non-zero weight and are left out"),
               "at least two classes")
})

test_that("a map built by name, its bandwidth search and the folds leave zero-weighted rows out", {
  toy <- weights_toy()
  keep <- toy$w > 0
  x <- toy$x
  x[which(!keep)[1:3], 1] <- 50  # outliers the user weighs out: before, they set the map's range
  for (args in list(list(features = "rff"), list(features = "rbin", n_grids = 20),
                    list(features = "rff", sigma = "ard"))) {
    weighted <- do.call(krr_fit, c(list(x, toy$y, weights = as.numeric(keep), seed = 2,
                                        n_threads = 1, verbose = FALSE), args))
    dropped <- do.call(krr_fit, c(list(x[keep, ], toy$y[keep], seed = 2, n_threads = 1,
                                       verbose = FALSE), args))
    expect_equal(weighted$map$kernel$sigma, dropped$map$kernel$sigma)
    expect_equal(weighted$lambda, dropped$lambda)
    expect_equal(predict(weighted, x[keep, ]), predict(dropped, x[keep, ]), tolerance = 1e-6)
  }
  # the folds: drawn for the weighted rows only, from the stream as without the others
  set.seed(5)
  weighted <- krr_fit(x, toy$y, rff(x[keep, ], 60, sigma = 1, seed = 1), weights = as.numeric(keep),
                      n_threads = 1, verbose = FALSE)
  set.seed(5)
  dropped <- krr_fit(x[keep, ], toy$y[keep], rff(x[keep, ], 60, sigma = 1, seed = 1),
                     n_threads = 1, verbose = FALSE)
  expect_equal(weighted$path$cv, dropped$path$cv, tolerance = 1e-8)
})

test_that("weights match a direct weighted ridge solve", {
  toy <- weights_toy(150)
  w <- runif(150, 0.1, 2)
  map <- rff(toy$x, 40, sigma = 1, seed = 5)
  fit <- krr_fit(toy$x, toy$y, map, lambda = 0.2, weights = w, n_threads = 1, verbose = FALSE)
  z <- predict(map, toy$x)
  zbar <- colSums(w * z) / sum(w)
  ybar <- sum(w * toy$y) / sum(w)
  zc <- sweep(z, 2, zbar)
  beta <- solve(crossprod(zc, w * zc) + diag(0.2, 40), crossprod(zc, w * (toy$y - ybar)))
  expect_equal(drop(fit$coefficients), drop(beta), tolerance = 1e-9)
  expect_equal(fit$intercept, ybar - sum(zbar * beta), tolerance = 1e-9)
  expect_equal(nobs(fit), 150L)
  expect_equal(fitted(fit), drop(z %*% beta) + ybar - sum(zbar * beta), tolerance = 1e-9,
               ignore_attr = TRUE)
})

test_that("rbin fits take weights (replicated and dropped rows)", {
  toy <- weights_toy(200)
  copies <- rep(seq_along(toy$w), toy$w)
  map <- rbin(toy$x, 15, seed = 6)
  weighted <- krr_fit(toy$x, toy$y, map, lambda = 0.5, weights = toy$w, tol = 1e-12,
                      n_threads = 1, verbose = FALSE)
  replicated <- krr_fit(toy$x[copies, ], toy$y[copies], map, lambda = 0.5, tol = 1e-12,
                        n_threads = 1, verbose = FALSE)
  expect_same_fit(weighted, replicated, tolerance = 1e-7)
  expect_equal(weighted$training_rmse, replicated$training_rmse, tolerance = 1e-7)
  folds <- rep(1:3, length.out = 200)
  keep <- toy$w > 0
  cv_w <- krr_fit(toy$x, toy$y, map, lambda = "cv", folds = folds, weights = as.numeric(keep),
                  tol = 1e-10, n_threads = 1, verbose = FALSE)
  cv_d <- krr_fit(toy$x[keep, ], toy$y[keep], map, lambda = "cv", folds = folds[keep],
                  tol = 1e-10, n_threads = 1, verbose = FALSE)
  # CV solves stop at a relative residual of 1e-4: scores agree to that.
  expect_equal(cv_w$path$cv, cv_d$path$cv, tolerance = 1e-3)
  expect_same_fit(cv_w, cv_d, tolerance = 1e-6)
})

test_that("chunked data take weights per chunk (list element or file column)", {
  toy <- weights_toy(240)
  map <- rff(toy$x, 40, sigma = 1, seed = 7)
  rows <- split(seq_len(240), rep(1:3, each = 80))
  chunks <- lapply(unname(rows), function(r) list(x = toy$x[r, ], y = toy$y[r], weights = toy$w[r]))
  fit <- krr_fit(chunked(chunks), map, lambda = "gcv", n_threads = 1, verbose = FALSE)
  in_memory <- krr_fit(toy$x, toy$y, map, lambda = "gcv", weights = toy$w, n_threads = 1,
                       verbose = FALSE)
  expect_same_fit(fit, in_memory)
  expect_identical(fit$n, 240)
  paths <- vapply(1:3, function(i) tempfile(fileext = ".csv"), "")
  on.exit(unlink(paths))
  for (i in 1:3) {
    utils::write.csv(data.frame(toy$x[rows[[i]], ], resp = toy$y[rows[[i]]], w = toy$w[rows[[i]]]),
                     paths[i], row.names = FALSE)
  }
  from_files <- krr_fit(chunked(paths, y = "resp", weights = "w"), map, lambda = "gcv",
                        n_threads = 1, verbose = FALSE)
  expect_same_fit(from_files, in_memory)
  expect_error(krr_fit(chunked(chunks), map, weights = toy$w), class = "kitchen_error_argument")
  chunks[[2]]$weights[3] <- -1
  expect_error(krr_fit(chunked(chunks), map, n_threads = 1, verbose = FALSE), "Chunk 2")
})

test_that("bad weights are refused with the argument named", {
  toy <- weights_toy(50)
  map <- rff(toy$x, 20, sigma = 1, seed = 8)
  fit_with <- function(w) krr_fit(toy$x, toy$y, map, weights = w, n_threads = 1, verbose = FALSE)
  expect_error(fit_with(rep(1, 49)), "one weight per row")
  expect_error(fit_with(c(-1, rep(1, 49))), "must not be negative")
  expect_error(fit_with(c(NA, rep(1, 49))), "weights")
  expect_error(fit_with(rep(0, 50)), "all be zero")
  expect_error(fit_with(letters[1:50]), "numeric vector")
  # An overall scale whose squares leave double precision's range.
  expect_error(fit_with(rep(1e200, 50)), "largest value between 1e-100 and 1e\\+?100, not 1e\\+200")
  expect_error(fit_with(rep(1e-200, 50)), "largest value between", class = "kitchen_error_argument")
  expect_error(krr_fit(toy$x, toy$y, map, weights = c(1e101, rep(1, 49)), n_threads = 1), "largest value")
})

test_that("the lambda choice is the same from weights of 1e-100 to 1e100 (no absolute floor)", {
  toy <- weights_toy(50)
  w <- runif(50, 0.5, 2)
  for (features in c("rff", "nystrom")) {
    size <- if (features == "rff") list(n_features = 20) else list(n_centers = 20)
    for (lambda in c("gcv", "cv")) {
      fit_at <- function(k) {
        do.call(krr_fit, c(list(toy$x, toy$y, features = features, lambda = lambda, seed = 1,
                                weights = w * k, n_threads = 1, verbose = FALSE), size))
      }
      one <- fit_at(1)
      for (k in c(1e-99, 1e-30, 1e-20, 1e99)) {  # largest weight 2e-99 .. 2e99
        f <- fit_at(k)
        info <- paste(features, lambda, k)
        expect_equal(f$lambda / k, one$lambda, tolerance = 1e-10, info = info)
        expect_equal(fitted(f), fitted(one), tolerance = 1e-8, info = info)
      }
    }
  }
})

test_that("the logistic loss's lambda choice does not depend on the weights' scale either", {
  x <- as.matrix(iris[, 1:4])
  w <- runif(150, 0.5, 2)
  fit_at <- function(k) {
    krr_fit(x, iris$Species, features = "rff", n_features = 50, seed = 1, loss = "logistic",
            weights = w * k, n_threads = 1, verbose = FALSE)
  }
  one <- fit_at(1)
  for (k in c(1e-30, 1e60)) {  # (1e-30 fell below an absolute floor of the grid)
    f <- fit_at(k)
    expect_equal(f$lambda / k, one$lambda, tolerance = 1e-10, info = k)
    expect_equal(predict(f, x, type = "prob"), predict(one, x, type = "prob"), tolerance = 1e-8,
                 info = k)
  }
})

test_that("no lambda candidate: the hint fits what was asked", {
  err <- function(code) conditionMessage(tryCatch(code, error = identity))
  expect_match(err(kitchen:::abort_no_lambda(c(1, 2), TRUE)), "give larger ones")
  expect_match(err(kitchen:::abort_no_lambda(c(1, 2), FALSE)), "default candidates reach up to 2")
  expect_no_match(err(kitchen:::abort_no_lambda(c(1, 2), FALSE)), "give larger ones")
})

test_that("multiplying every weight by a constant leaves the bandwidth choices and the fit alone", {
  x <- as.matrix(mtcars[, c("wt", "hp", "disp")])
  folds <- rep(1:5, length.out = 32)
  base <- seq(0.5, 2, length.out = 32)
  fits <- lapply(c(1, 1 / 32, 1e-8, 1e8), function(k) {
    list(auto = krr_fit(x, mtcars$mpg, weights = base * k, folds = folds, seed = 1,
                        n_features = 200, n_threads = 1, verbose = FALSE),
         ard = krr_fit(x, mtcars$mpg, weights = base * k, folds = folds, seed = 1,
                       n_features = 200, sigma = "ard", n_threads = 1, verbose = FALSE))
  })
  for (f in fits[-1]) {
    for (kind in c("auto", "ard")) {
      expect_identical(f[[kind]]$map$kernel$sigma, fits[[1]][[kind]]$map$kernel$sigma)
      expect_equal(fitted(f[[kind]]), fitted(fits[[1]][[kind]]), tolerance = 1e-8)
    }
  }
})

test_that("class weights written as 1 / table(y)[y] (as ?krr_fit shows) are taken", {
  set.seed(4)
  x <- matrix(rnorm(200 * 2), 200, 2, dimnames = list(NULL, c("a", "b")))
  y <- factor(ifelse(x[, 1] + rnorm(200) > 1.2, "rare", "common"))
  w <- 1 / table(y)[y]
  map <- rff(x, 20, sigma = 1, seed = 1)
  fit <- krr_fit(x, y, map, lambda = 1, weights = w, n_threads = 1)
  expect_identical(coef(fit), coef(krr_fit(x, y, map, lambda = 1, weights = as.vector(w),
                                           n_threads = 1)))
  d <- data.frame(x, y = y, w = as.vector(w))
  d$w_table <- w
  expect_identical(coef(krr_fit(y ~ a + b, d, features = map, lambda = 1, weights = w_table,
                                n_threads = 1)), coef(fit), ignore_attr = TRUE)
})
