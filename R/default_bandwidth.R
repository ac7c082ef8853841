# The bandwidth of an rff or fastfood map that krr_fit() builds by name
# when `sigma` is left NULL. The median of the pairwise distances sets the
# scale of the inputs, not how smooth the response is in them: on CPU's raw
# inputs its bandwidth was half the one that cross-validation prefers, and
# the test error 15% higher (bench/results/defaults.md). So the median
# heuristic's bandwidth is only the centre of a grid, 2^-3 .. 2^3 times it,
# and the factor kept is the one whose ridge regression on a few random
# features, fitted on one half of a subsample of the training rows and
# scored on the other (ard_objective() at equal bandwidths, over a coarse
# grid of lambdas), has the lowest held-out error. It costs the same at any
# n and any number of features (at most 4000 rows, 256 features); lambda is
# then chosen for the real fit as usual.

default_bandwidth_grid <- list(factors = 2^(-3:3), log_lambdas = c(-10, -8, -6, -4, -2, 0))

# `map` (built from x with the median heuristic) with the chosen bandwidth,
# its random draws kept; unchanged below 20 rows (halves too small to score).
# y: the n x k response matrix, weights: NULL or n non-negative numbers.
default_bandwidth_map <- function(map, x, y, weights, n_threads, call = rlang::caller_env()) {
  x <- map_input(map, x, arg = "x", call = call)
  if (nrow(x) < 20) return(map)
  n_rows <- min(ard_settings$n_rows, max(500, floor(2e7 / ncol(x))))
  problem <- list(data = ard_subsample(map, x, y, weights, n_rows),
                  w0 = spectral_sample(map$kernel, ncol(x), ard_settings$n_frequencies),
                  n_threads = n_threads)
  factors <- default_bandwidth_grid$factors
  # Rows: factors; columns: lambdas. Features eigen() refuses (not finite)
  # score as unusable.
  scores <- t(vapply(factors, function(factor) {
    tryCatch(isotropic_scores(problem, log(map$kernel$sigma * factor),
                              default_bandwidth_grid$log_lambdas),
             error = function(e) rep(Inf, length(default_bandwidth_grid$log_lambdas)))
  }, numeric(length(default_bandwidth_grid$log_lambdas))))
  if (!any(is.finite(scores))) return(map)
  best <- arrayInd(best_candidate(scores), dim(scores))[1]
  with_bandwidths(map, map$kernel$sigma * factors[best], x, n_threads, call = call)
}

# ard_objective()'s value at one bandwidth for all columns (log_sigma) and
# each of log_lambdas, from one feature matrix and one eigendecomposition
# per half (rather than features, Gram and Cholesky factor again for every
# lambda). A half with at most half as many rows as features is solved
# through its rows' Gram matrix (the same ridge fit): on mtcars's 12-row
# halves the 256 x 256 eigendecompositions were nearly all of a default
# fit's time. (Nearer to as many rows as features, the rows' products on
# R's BLAS cost more than they save.)
isotropic_scores <- function(problem, log_sigma, log_lambdas) {
  data <- problem$data
  d <- ncol(data$x)
  z <- rff_features_cpp(data$x, problem$w0 * exp(-log_sigma), rep(0, d), NULL, "cos_sin",
                        products_on_blas(), problem$n_threads, resolve_simd())
  scale_y <- sum(apply(data$y, 2, stats::var)) + 1e-300
  values <- numeric(length(log_lambdas))
  for (fold in 1:2) {
    a <- data$half != fold
    s <- ridge_split(data, z, a)  # R/ard.R
    predict_held_out <- if (2 * sum(a) <= ncol(z)) dual_half_ridge(s) else
      primal_half_ridge(s, problem$n_threads)
    norm <- 2 * sum(s$wb) * scale_y
    for (l in seq_along(log_lambdas)) {
      residual <- predict_held_out(exp(log_lambdas[l]) * sum(a)) - s$yb
      values[l] <- values[l] + sum(s$wb * residual^2) / norm
    }
  }
  values
}

# The held-out rows' predictions of the ridge fit on a half (ridge_split()),
# as a function of the penalty, from one eigendecomposition: of the
# features' weighted Gram matrix Z'WZ (D x D) ...
primal_half_ridge <- function(s, n_threads) {
  # Z'WZ on kitchen's SIMD kernels (R's reference BLAS would dominate).
  eig <- eigen(gram_of(s$za * sqrt(s$wa), n_threads), symmetric = TRUE)  # R/gemm.R
  eigenvalues <- pmax(eig$values, 0)     # rounding can leave tiny negatives
  q <- crossprod(eig$vectors, crossprod(s$za, s$ya * s$wa))
  function(penalty) s$zb %*% (eig$vectors %*% (q / (eigenvalues + penalty)))
}

# ... or of the rows' K = A A' (n x n), A = W^(1/2) Z: the coefficients
# (A'A + penalty I)^-1 A'b equal A'(K + penalty I)^-1 b, b = W^(1/2) y.
dual_half_ridge <- function(s) {
  root_w <- sqrt(s$wa)
  a <- s$za * root_w
  eig <- eigen(tcrossprod(a), symmetric = TRUE)
  eigenvalues <- pmax(eig$values, 0)
  q <- crossprod(eig$vectors, s$ya * root_w)
  held_out <- tcrossprod(s$zb, a) %*% eig$vectors
  function(penalty) held_out %*% (q / (eigenvalues + penalty))
}
