# Kernel logistic regression on random binning maps (Newton-CG, matrix-free):
# in memory and chunked, with 1 and 2 threads, the coefficients equal a
# direct Newton solve in R of the same objective on the explicit sparse
# features predict(map, x); CV scores are the held-out log-loss of fold fits.

# logistic_data(), newton_logistic(), relative_intercepts(): helper-logistic.R.

test_that("in memory and chunked, 1 and 2 threads, rbin fits equal a direct Newton solve", {
  for (classes in 2:3) {
    data <- logistic_data(240, classes, seed = 30 + classes)
    map <- rbin(data$x, 8, sigma = 1, seed = 3)
    w <- rep(c(1, 0.5, 2), 80)
    z <- predict(map, data$x)
    expect_s4_class(z, "dgCMatrix")
    reference <- newton_logistic(as.matrix(z), data$y, 0.3, w)
    chunks <- chunked(lapply(split(seq_len(240), rep(1:4, each = 60)), function(rows) {
      list(x = data$x[rows, ], y = data$y[rows], weights = w[rows])
    }))
    for (threads in 1:2) {
      memory <- krr_fit(data$x, data$y, map, loss = "logistic", lambda = 0.3, weights = w,
                        tol = 1e-12, n_threads = threads, verbose = FALSE)
      chunk_fit <- krr_fit(chunks, map, loss = "logistic", lambda = 0.3, tol = 1e-12,
                           n_threads = threads, verbose = FALSE)
      for (fit in list(memory, chunk_fit)) {
        expect_true(fit$logistic$converged)
        expect_identical(fit$logistic$method, "Newton-CG")
        expect_equal(unname(fit$coefficients), reference$coefficients, tolerance = 1e-6)
        expect_lt(max(abs(unname(fit$coefficients) - reference$coefficients)), 1e-6)
        expect_lt(max(abs(relative_intercepts(fit$intercept) -
                            relative_intercepts(reference$intercept))), 1e-6)
      }
      expect_equal(chunk_fit$coefficients, memory$coefficients, tolerance = 1e-10)
      expect_equal(predict(chunk_fit, chunks, type = "prob"), predict(memory, data$x, type = "prob"),
                   tolerance = 1e-10, ignore_attr = TRUE)
    }
    prob <- predict(memory, data$x, type = "prob")
    expect_identical(colnames(prob), levels(data$y))
    expect_equal(rowSums(prob), rep(1, 240), ignore_attr = TRUE)
    expect_equal(fitted(memory), prob, tolerance = 1e-12)
    expect_output(print(summary(memory)), "Newton-CG")
  }
})

test_that("the Newton system's CG solve equals a dense solve of its Schur complement", {
  set.seed(5)
  n <- 90
  x <- matrix(rnorm(n * 2), n)
  map <- rbin(x, 6, sigma = 1, seed = 2)
  z <- as.matrix(predict(map, x))
  cols <- kitchen:::rbin_columns(map, x, kitchen:::backend_settings(1L))
  for (f in c(1, 3)) {
    links <- matrix(rnorm(n * (f + 1)), n)
    p <- exp(links) / rowSums(exp(links))
    p <- p[, seq_len(f), drop = FALSE]  # the free classes of a softmax over f + 1
    w <- runif(n)
    blocks <- matrix(0, ncol(z) * f, ncol(z) * f)
    cross <- matrix(0, ncol(z) * f, f)
    c_matrix <- diag(colSums(w * p), f) - crossprod(p, w * p)
    for (a in seq_len(f)) for (b in seq_len(f)) {
      weight <- w * p[, a] * ((a == b) - p[, b])
      blocks[(a - 1) * ncol(z) + seq_len(ncol(z)), (b - 1) * ncol(z) + seq_len(ncol(z))] <-
        crossprod(z, weight * z)
      cross[(a - 1) * ncol(z) + seq_len(ncol(z)), b] <- colSums(weight * z)
    }
    c_plus <- kitchen:::pseudo_inverse(c_matrix)
    schur <- blocks - cross %*% c_plus %*% t(cross) + diag(0.2, ncol(z) * f)
    b <- matrix(rnorm(ncol(z) * f), ncol(z))
    solved <- kitchen:::binned_logistic_cg_cpp(cols, p, w, c_plus, matrix(1, ncol(z), f), b,
                                               matrix(0, ncol(z), f), 0.2, 1 / sqrt(6), 1e-13,
                                               1000L, 2L)
    expect_equal(c(solved$x), solve(schur, c(b)), tolerance = 1e-9)
  }
  expect_match(kitchen:::binned_logistic_cg_cpp(cols, p, w[-1], c_plus, matrix(1, ncol(z), 3), b,
                                                matrix(0, ncol(z), 3), 0.2, 1, 1e-6, 10L, 1L),
               "one row per row")
  bad <- cols
  bad[1] <- 1e6L
  expect_match(kitchen:::binned_logistic_cg_cpp(bad, p, w, c_plus, matrix(1, ncol(z), 3), b,
                                                matrix(0, ncol(z), 3), 0.2, 1, 1e-6, 10L, 1L),
               "column numbers")
})

test_that("rbin logistic CV scores the held-out log-loss, in memory and chunked alike", {
  data <- logistic_data(300, 3, seed = 21)
  map <- rbin(data$x, 10, sigma = 1, seed = 4)
  chunk_of <- rep(1:6, each = 50)
  folds <- (chunk_of - 1) %% 3 + 1
  lambdas <- c(3, 0.3, 0.03)
  memory <- krr_fit(data$x, data$y, map, loss = "logistic", lambda = lambdas, folds = folds,
                    n_threads = 1, verbose = FALSE)
  expect_identical(memory$lambda, memory$path$lambda[which.min(memory$path$cv)])
  held_loss <- 0
  for (k in 1:3) {
    train <- folds != k
    fold_fit <- krr_fit(data$x, data$y, map, loss = "logistic", lambda = 0.3, weights = 1 * train,
                        tol = 1e-10, n_threads = 1, verbose = FALSE)
    p <- predict(fold_fit, data$x[!train, ], type = "prob")
    held_loss <- held_loss - sum(log(p[cbind(seq_len(sum(!train)), as.integer(data$y[!train]))]))
  }
  expect_equal(memory$path$cv[memory$path$lambda == 0.3], held_loss / 300, tolerance = 1e-4)
  chunks <- chunked(lapply(1:6, function(i) list(x = data$x[chunk_of == i, ],
                                                 y = as.character(data$y[chunk_of == i]))))
  chunk_fit <- krr_fit(chunks, map, loss = "logistic", lambda = lambdas, n_folds = 3,
                       n_threads = 2, verbose = FALSE)
  expect_equal(chunk_fit$path$cv, memory$path$cv, tolerance = 1e-10)
  expect_identical(chunk_fit$lambda, memory$lambda)
  expect_equal(chunk_fit$coefficients, memory$coefficients, tolerance = 1e-10)
  # the default grid, and bandwidth candidates screened on fold 1
  auto <- krr_fit(data$x, data$y, map, loss = "logistic", sigma = c(0.5, 1, 2), folds = folds,
                  n_threads = 2, verbose = FALSE)
  expect_identical(nrow(auto$sigma_path), 3L)
  expect_identical(auto$map$kernel$sigma, auto$sigma_path$sigma[which.min(auto$sigma_path$score)])
  expect_gt(nrow(auto$path), 2)
})

test_that("whole-number weights act as replicated rows for rbin logistic fits", {
  data <- logistic_data(120, 2, seed = 8)
  w <- rep(c(0, 1, 2), 40)
  copies <- rep(seq_along(w), w)
  map <- rbin(data$x, 6, sigma = 1, seed = 6)
  weighted <- krr_fit(data$x, data$y, map, loss = "logistic", lambda = 0.3, weights = w,
                      tol = 1e-12, n_threads = 1, verbose = FALSE)
  replicated <- krr_fit(data$x[copies, ], data$y[copies], map, loss = "logistic", lambda = 0.3,
                        tol = 1e-12, n_threads = 1, verbose = FALSE)
  expect_equal(predict(weighted, data$x, type = "prob"), predict(replicated, data$x, type = "prob"),
               tolerance = 1e-8)
})

test_that("rbin logistic fits refuse bad input by name", {
  data <- logistic_data(100, 2, seed = 9)
  map <- rbin(data$x, 5, sigma = 1, seed = 1)
  expect_error(krr_fit(data$x, data$y, map, loss = "logistic", lambda = c(1, 0), verbose = FALSE),
               "lambda")
  expect_error(krr_fit(data$x, rnorm(100), map, loss = "logistic", verbose = FALSE), "factor")
  numbers <- chunked(list(list(x = data$x, y = rnorm(100))))
  expect_error(krr_fit(numbers, map, loss = "logistic", lambda = 0.1, verbose = FALSE),
               "class labels")
  two <- chunked(list(list(x = data$x[1:50, ], y = data$y[1:50]),
                      list(x = data$x[51:100, ], y = data$y[51:100])))
  # one bandwidth with one lambda: the map's bins found again in each chunk
  rescaled <- krr_fit(two, map, loss = "logistic", sigma = 2, lambda = 0.1, verbose = FALSE)
  expect_equal(coef(rescaled), coef(krr_fit(data$x, data$y, map, loss = "logistic", sigma = 2,
                                            lambda = 0.1, verbose = FALSE)), tolerance = 1e-8)
  expect_error(krr_fit(two, map, loss = "logistic", sigma = "fine", verbose = FALSE), "sigma")
  expect_error(krr_fit(two, map, loss = "logistic", n_folds = 3, verbose = FALSE), "n_folds")
  expect_error(krr_fit(data$x, data$y, map, loss = "logistic", tol = -1, verbose = FALSE), "tol")
})
