# The fixed fits and predictions of test-pinned-results.R. Every argument
# that shapes a result is given (bandwidth, scaling, clipping, lambda, folds,
# threads, block size), so changed defaults do not move them; blocks are
# small so that every fit crosses several blocks. tools/pin-results.R stores
# their values, from the code before a change that must not alter them.
pinned_results <- function() {
  set.seed(20221)
  n <- 700
  x <- matrix(runif(n * 5, -2, 2), n, 5, dimnames = list(NULL, paste0("v", 1:5)))
  y <- sin(x[, 1]) * cos(x[, 2]) + 0.3 * x[, 3] + rnorm(n, sd = 0.1)
  y2 <- cbind(a = y, b = x[, 4]^2 + rnorm(n, sd = 0.2))
  classes <- factor(ifelse(y > 0.3, "high", ifelse(y < -0.3, "low", "mid")))
  w <- runif(n, 0.2, 3)
  folds <- rep_len(1:5, n)
  new_x <- matrix(runif(60 * 5, -2.5, 2.5), 60, 5, dimnames = list(NULL, paste0("v", 1:5)))
  fit_args <- list(n_threads = 2L, verbose = FALSE, block_size = 128)

  maps <- list(
    rff = rff(x, 96, kernel = "gaussian", sigma = 1.3, type = "cos_sin", scale = "standard",
              clip = TRUE, seed = 1),
    rff_phase = rff(x, 80, kernel = "laplacian", sigma = 2, type = "cos_phase",
                    scale = "minmax", clip = FALSE, seed = 2),
    fastfood = fastfood(x, 128, kernel = "gaussian", sigma = 1.1, type = "cos_sin",
                        scale = "standard", clip = TRUE, seed = 3),
    fastfood_phase = fastfood(x, 48, kernel = "matern", nu = 1.5, sigma = 0.9,
                              type = "cos_phase", scale = "none", clip = FALSE, seed = 4),
    rbin = rbin(x, 20, kernel = "laplacian", sigma = 1.5, scale = "standard", clip = TRUE,
                seed = 5, stratified = FALSE, n_threads = 2L)
  )
  fit <- function(...) do.call(krr_fit, c(list(...), fit_args))
  fits <- list(
    rff_fixed = fit(x, y, maps$rff, lambda = 0.01),
    rff_gcv = fit(x, y, maps$rff, lambda = "gcv"),
    rff_cv = fit(x, y, maps$rff_phase, lambda = "cv", folds = folds),
    rff_weights_gcv = fit(x, y, maps$rff, lambda = "gcv", weights = w),
    rff_weights_cv = fit(x, y, maps$rff, lambda = "cv", folds = folds, weights = w),
    rff_matrix_y = fit(x, y2, maps$rff_phase, lambda = c(1e-3, 1e-2, 1e-1)),
    rff_classes = fit(x, classes, maps$rff, lambda = 10^(-4:0)),
    rff_sigmas = fit(x, y, maps$rff, lambda = "gcv", sigma = c(0.7, 1.3, 2.6)),
    fastfood_fixed = fit(x, y, maps$fastfood, lambda = 0.05),
    fastfood_gcv = fit(x, y, maps$fastfood_phase, lambda = "gcv"),
    fastfood_cv = fit(x, y, maps$fastfood, lambda = "cv", folds = folds, weights = w),
    rbin_fixed = fit(x, y, maps$rbin, lambda = 0.1, tol = 1e-8, max_iter = 500),
    rbin_cv = fit(x, y, maps$rbin, lambda = c(0.01, 0.1, 1), folds = folds, tol = 1e-6,
                  max_iter = 500)
  )
  chunks <- lapply(split(seq_len(n), rep(1:5, each = n / 5)), function(rows) {
    list(x = x[rows, , drop = FALSE], y = y[rows], weights = w[rows])
  })
  unweighted <- lapply(chunks, function(ch) ch[c("x", "y")])
  fits$chunked_fixed <- fit(chunked(unweighted), features = maps$rff, lambda = 0.01,
                            parallel = "none")
  fits$chunked_cv <- fit(chunked(unweighted), features = maps$fastfood, lambda = "cv",
                         parallel = "none")
  fits$chunked_weights <- fit(chunked(chunks), features = maps$rff_phase, lambda = "gcv",
                              parallel = "none")

  few <- new_x[1:12, , drop = FALSE]
  sparse_x <- Matrix::Matrix(few * (abs(few) > 1), sparse = TRUE)
  features <- lapply(maps, function(m) {
    list(dense_1 = predict(m, few, n_threads = 1L),
         dense_2 = predict(m, few, n_threads = 2L),
         one_row = predict(m, new_x[7, , drop = FALSE], n_threads = 1L),
         sparse = predict(m, sparse_x, n_threads = 2L))
  })
  summarise <- function(f) {
    list(coefficients = f$coefficients, intercept = f$intercept, lambda = f$lambda,
         path = f$path, sigma_path = f$sigma_path, rmse = f$training_rmse,
         fitted = f$fitted.values, sigma = f$map$kernel$sigma,
         predicted = predict(f, new_x, n_threads = 2L, block_size = 16),
         one_row = predict(f, new_x[3, , drop = FALSE], n_threads = 1L))
  }
  list(features = features, fits = lapply(fits, summarise))
}

# What the stored values depend on besides kitchen's code: they are
# compared bitwise only on the same platform.
pinned_platform <- function() {
  list(simd = kitchen_simd()$used, blas = extSoftVersion()[["BLAS"]],
       lapack = La_library(), r = R.version$version.string, machine = R.version$arch)
}
