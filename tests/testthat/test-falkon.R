# krr_fit(solver = "falkon"): FALKON's preconditioned conjugate gradients on
# Nystroem maps, against the direct solve of the same ridge problem.

falkon_data <- function(n = 1500, seed = 1) {
  set.seed(seed)
  x <- matrix(runif(n * 4, -2, 2), n, 4)
  y <- sin(x[, 1]) * cos(x[, 2]) + 0.3 * x[, 3] + rnorm(n, sd = 0.1)
  list(x = x, y = y)
}

test_that("FALKON matches the direct solve to 1e-7 (relative) over lambdas and kernels", {
  data <- falkon_data()
  maps <- list(nystrom(data$x, 150, sigma = 1.5, seed = 1),
               nystrom(data$x, 120, kernel = "laplacian", sigma = 3, centers = "kmeans", seed = 2),
               nystrom(data$x, 100, kernel = "matern", nu = 1.5, sigma = c(1, 2, 1.5, 4), seed = 3))
  for (map in maps) {
    for (lambda in c(1e-2, 1)) {
      direct <- krr_fit(data$x, data$y, map, lambda = lambda, verbose = FALSE)
      falkon <- krr_fit(data$x, data$y, map, lambda = lambda, solver = "falkon", tol = 1e-11,
                        verbose = FALSE)
      expect_true(all(falkon$solver$converged))
      scale <- max(abs(direct$coefficients))
      expect_lt(max(abs(falkon$coefficients - direct$coefficients)) / scale, 1e-7)
      expect_lt(abs(falkon$intercept - direct$intercept), 1e-7)
      expect_lt(max(abs(fitted(falkon) - fitted(direct))), 1e-7)
      expect_lt(max(abs(predict(falkon, data$x[1:50, ]) - predict(direct, data$x[1:50, ]))), 1e-7)
      expect_equal(falkon$training_rmse, direct$training_rmse, tolerance = 1e-7)
    }
  }
})

test_that("the explicit preconditioned CG on dense features gives the same weights", {
  # A reference from the definitions: (Zc'Zc + lambda I) w = Zc'(y - ybar).
  data <- falkon_data(600, seed = 2)
  map <- nystrom(data$x, 60, sigma = 1, seed = 4)
  z <- predict(map, data$x)
  zc <- scale(z, scale = FALSE)
  w <- solve(crossprod(zc) + diag(0.05, 60), crossprod(zc, data$y - mean(data$y)))
  fit <- krr_fit(data$x, data$y, map, lambda = 0.05, solver = "falkon", tol = 1e-12, verbose = FALSE)
  expect_lt(max(abs(fit$coefficients - w)), 1e-8 * max(abs(w)))
  expect_lt(fit$solver$iterations, 60)  # the preconditioner does its job: fewer than M steps
})

test_that("weights, several responses, classes and sparse x follow the direct solve", {
  data <- falkon_data(800, seed = 3)
  x <- data$x
  map <- nystrom(x, 80, sigma = 1.2, seed = 5)
  w <- runif(nrow(x), 0.2, 3)
  y2 <- cbind(a = data$y, b = x[, 4]^2)
  direct <- krr_fit(x, y2, map, lambda = 0.02, weights = w, verbose = FALSE)
  falkon <- krr_fit(x, y2, map, lambda = 0.02, weights = w, solver = "falkon", tol = 1e-11,
                    verbose = FALSE)
  expect_identical(colnames(falkon$coefficients), c("a", "b"))
  expect_lt(max(abs(predict(falkon, x) - predict(direct, x))), 1e-7)
  classes <- factor(ifelse(data$y > 0.3, "high", ifelse(data$y < -0.3, "low", "mid")))
  direct <- krr_fit(x, classes, map, lambda = 0.1, verbose = FALSE)
  falkon <- krr_fit(x, classes, map, lambda = 0.1, solver = "falkon", tol = 1e-11, verbose = FALSE)
  # FALKON fits have no calibrated probabilities: classes by the largest score
  expect_identical(predict(falkon, x, type = "class"), largest_score_class(direct, x))
  sparse <- Matrix::Matrix(x * (abs(x) > 1), sparse = TRUE)
  sparse_map <- nystrom(sparse, 60, sigma = 2, seed = 6)
  direct <- krr_fit(sparse, data$y, sparse_map, lambda = 0.1, verbose = FALSE)
  falkon <- krr_fit(sparse, data$y, sparse_map, lambda = 0.1, solver = "falkon", tol = 1e-11,
                    verbose = FALSE)
  expect_lt(max(abs(fitted(falkon) - fitted(direct))), 1e-7)
})

test_that("what FALKON does not solve is refused, naming the argument", {
  data <- falkon_data(300, seed = 4)
  map <- nystrom(data$x, 30, sigma = 1, seed = 1)
  fit <- function(...) krr_fit(data$x, data$y, ..., solver = "falkon", verbose = FALSE)
  expect_error(fit(rff(data$x, 40, sigma = 1, seed = 1), lambda = 0.1), "nystrom",
               class = "kitchen_error_argument")
  expect_error(fit(map, lambda = "cv"), "lambda", class = "kitchen_error_argument")
  expect_error(fit(map, lambda = c(0.1, 1)), "lambda", class = "kitchen_error_argument")
  expect_error(fit(map, lambda = 0.1, sigma = c(1, 2)), "sigma", class = "kitchen_error_argument")
  expect_error(fit(nystrom(data$x, 30, kernel = "matern", nu = 0.7, sigma = 1, seed = 1), lambda = 0.1),
               "closed form", class = "kitchen_error_argument")
  expect_error(krr_fit(data$x, data$y, map, lambda = 0.1, solver = "cg", verbose = FALSE),
               "solver", class = "kitchen_error_argument")
  classes <- factor(data$y > 0)
  expect_error(krr_fit(data$x, classes, map, lambda = 0.1, loss = "logistic", solver = "falkon",
                       verbose = FALSE), "squared", class = "kitchen_error_argument")
})

test_that("an unconverged solve warns, and the fit still predicts", {
  data <- falkon_data(500, seed = 5)
  map <- nystrom(data$x, 50, sigma = 1, seed = 1)
  expect_warning(fit <- krr_fit(data$x, data$y, map, lambda = 1e-4, solver = "falkon", tol = 1e-14,
                                max_iter = 2, verbose = FALSE), "did not reach")
  expect_identical(fit$solver$iterations, 2L)
  expect_false(all(fit$solver$converged))
  expect_length(predict(fit, data$x[1:3, ]), 3)
  expect_output(print(summary(fit)), "FALKON")
})

test_that("an interrupt stops a long FALKON solve promptly", {
  skip_if_not_installed("processx")
  skip_on_os("windows")  # no SIGINT to send
  skip_if(nzchar(Sys.getenv("KITCHEN_SANITIZER")), "under the sanitizer")
  # The map is built in about a second; then each iteration streams 2e5 x 300
  # kernel values, for minutes (tol cannot be reached).
  code <- paste("library(kitchen); set.seed(1); x <- matrix(rnorm(2e5 * 8), 2e5);",
                "map <- nystrom(x, 300, sigma = 2, seed = 1); cat('ready\\n');",
                "krr_fit(x, x[, 1], map, lambda = 1e-8, solver = 'falkon', tol = 1e-300,",
                "max_iter = 1e6, verbose = FALSE)")
  # after "ready", inside the iterations
  delay <- interrupt_delay(code, warm_up = 3, ready = TRUE)
  expect_false(is.na(delay), label = "still running at the signal")
  expect_lt(delay, 2.5)
})
