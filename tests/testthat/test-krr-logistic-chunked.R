# Kernel logistic regression on chunked data and with threads: every way of
# reading the data reaches the coefficients of a direct Newton solve in R of
# the same objective on the explicit features predict(map, x), and chunked
# fits equal in-memory fits with the same folds.

logistic_data <- function(n, classes, seed) {
  set.seed(seed)
  x <- matrix(runif(n * 2, -2, 2), n, 2)
  score <- cbind(sin(2 * x[, 1]), x[, 2], -x[, 1] * x[, 2])[, seq_len(classes)]
  label <- max.col(score + matrix(rnorm(n * classes, sd = 0.6), n), "first")
  list(x = x, y = factor(letters[label], levels = letters[seq_len(classes)]))
}

# Newton's method with step halving on sum w * -log p[y] + lambda ||beta||^2,
# beta the feature coefficients of every class (one link, class 2's minus
# class 1's, for two classes); intercepts unpenalised, class 1's fixed at 0
# for more than two classes (the softmax only sees their differences).
newton_logistic <- function(z, y, lambda, w = rep(1, nrow(z))) {
  k <- nlevels(y)
  d <- ncol(z)
  onehot <- outer(as.integer(y), seq_len(k), "==") * 1
  free <- if (k == 2) 1 else k
  design <- cbind(1, z)
  # theta: the (d + 1) x free matrix, stacked; for k > 2 the first entry
  # (class 1's intercept) is dropped.
  keep <- if (k == 2) seq_len(d + 1) else seq_len((d + 1) * k)[-1]
  links_of <- function(m) if (k == 2) cbind(0, design %*% m) else design %*% m
  unpack <- function(theta) {
    full <- numeric((d + 1) * free)
    full[keep] <- theta
    matrix(full, d + 1, free)
  }
  objective <- function(m) {
    links <- links_of(m)
    shift <- apply(links, 1, max)
    log_p <- links - shift - log(rowSums(exp(links - shift)))
    -sum(w * rowSums(onehot * log_p)) + lambda * sum(m[-1, ]^2)
  }
  theta <- numeric(length(keep))
  for (iteration in 1:100) {
    m <- unpack(theta)
    links <- links_of(m)
    p <- exp(links - apply(links, 1, max))
    p <- p / rowSums(p)
    if (k == 2) {
      gradient <- crossprod(design, w * (p[, 2] - onehot[, 2])) + 2 * lambda * c(0, m[-1, 1])
      hessian <- crossprod(design, w * p[, 2] * (1 - p[, 2]) * design) +
        diag(2 * lambda * c(0, rep(1, d)))
    } else {
      gradient <- c(crossprod(design, w * (p - onehot)) + 2 * lambda * rbind(0, m[-1, ]))
      hessian <- matrix(0, (d + 1) * k, (d + 1) * k)
      for (a in 1:k) for (b in 1:k) {
        weight <- w * p[, a] * ((a == b) - p[, b])
        hessian[(a - 1) * (d + 1) + 1:(d + 1), (b - 1) * (d + 1) + 1:(d + 1)] <-
          crossprod(design, weight * design) + (a == b) * diag(2 * lambda * c(0, rep(1, d)))
      }
      gradient <- gradient[keep]
      hessian <- hessian[keep, keep]
    }
    step <- solve(hessian, gradient)
    before <- objective(m)
    t <- 1
    while (objective(unpack(theta - t * step)) > before && t > 1e-10) t <- t / 2
    theta <- theta - t * step
    if (max(abs(t * step)) < 1e-13) break
  }
  m <- unpack(theta)
  if (k == 2) m <- cbind(0, m)
  list(coefficients = m[-1, , drop = FALSE], intercept = m[1, ])
}

# Intercepts are compared as differences from the first class's.
relative_intercepts <- function(b) unname(b - b[1])

test_that("in memory and chunked, 1 and 2 threads, fits equal a direct Newton solve", {
  for (classes in 2:3) {
    data <- logistic_data(240, classes, seed = 10 + classes)
    map <- rff(data$x, 16, sigma = 1, seed = 3)
    w <- rep(c(1, 0.5, 2), 80)
    reference <- newton_logistic(predict(map, data$x), data$y, 0.3, w)
    chunks <- chunked(lapply(split(seq_len(240), rep(1:4, each = 60)), function(rows) {
      list(x = data$x[rows, ], y = data$y[rows], weights = w[rows])
    }))
    for (threads in 1:2) {
      memory <- krr_fit(data$x, data$y, map, loss = "logistic", lambda = 0.3, weights = w,
                        tol = 1e-15, max_iter = 20000, n_threads = threads, verbose = FALSE,
                        block_size = 50)
      chunk_fit <- krr_fit(chunks, map, loss = "logistic", lambda = 0.3, tol = 1e-15,
                           max_iter = 20000, n_threads = threads, verbose = FALSE,
                           block_size = 50)
      for (fit in list(memory, chunk_fit)) {
        expect_equal(unname(fit$coefficients), reference$coefficients, tolerance = 1e-6)
        # Unpenalised, the intercepts converge last: to 1e-6 absolute.
        expect_lt(max(abs(relative_intercepts(fit$intercept) -
                            relative_intercepts(reference$intercept))), 1e-6)
      }
      expect_equal(chunk_fit$coefficients, memory$coefficients, tolerance = 1e-8)
      expect_equal(chunk_fit$intercept, memory$intercept, tolerance = 1e-8)
      expect_identical(chunk_fit$loss, "logistic")
      expect_equal(chunk_fit$logistic$log_loss, memory$logistic$log_loss, tolerance = 1e-10)
      expect_equal(predict(chunk_fit, data$x, type = "prob"), predict(memory, data$x, type = "prob"),
                   tolerance = 1e-8)
    }
  }
})

test_that("chunked CV over chunk folds equals in-memory CV with the same folds", {
  data <- logistic_data(300, 3, seed = 21)
  map <- rff(data$x, 20, sigma = 1, seed = 4)
  chunk_of <- rep(1:6, each = 50)
  chunks <- chunked(lapply(1:6, function(i) list(x = data$x[chunk_of == i, ],
                                                 y = as.character(data$y[chunk_of == i]))))
  folds <- (chunk_of - 1) %% 3 + 1
  lambdas <- c(3, 0.3, 0.03)
  memory <- krr_fit(data$x, data$y, map, loss = "logistic", lambda = lambdas, folds = folds,
                    n_threads = 1, verbose = FALSE)
  chunk_fit <- krr_fit(chunks, map, loss = "logistic", lambda = lambdas, n_folds = 3,
                       n_threads = 1, verbose = FALSE)
  expect_equal(chunk_fit$path$cv, memory$path$cv, tolerance = 1e-8)
  expect_equal(chunk_fit$path$cv_accuracy, memory$path$cv_accuracy)
  expect_identical(chunk_fit$lambda, memory$lambda)
  expect_equal(chunk_fit$coefficients, memory$coefficients, tolerance = 1e-8)
  expect_identical(levels(predict(chunk_fit, chunks, type = "class")), levels(data$y))
})

test_that("chunked logistic fits run as futures, and refuse numeric responses", {
  skip_if_not_installed("future")
  data <- logistic_data(160, 2, seed = 5)
  map <- rff(data$x, 12, sigma = 1, seed = 6)
  chunks <- chunked(lapply(1:4, function(i) {
    rows <- (i - 1) * 40 + 1:40
    list(x = data$x[rows, ], y = data$y[rows])
  }))
  here <- krr_fit(chunks, map, loss = "logistic", lambda = 0.1, n_threads = 1, verbose = FALSE,
                  parallel = "none")
  as_futures <- krr_fit(chunks, map, loss = "logistic", lambda = 0.1, n_threads = 1,
                        verbose = FALSE, parallel = "future")
  expect_equal(as_futures$coefficients, here$coefficients, tolerance = 1e-12)
  numbers <- chunked(list(list(x = data$x, y = rnorm(160))))
  expect_error(krr_fit(numbers, map, loss = "logistic", lambda = 0.1, verbose = FALSE),
               "class labels")
})
