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
default_bandwidth_map <- function(map, x, y, weights, backend, call = rlang::caller_env()) {
  x <- map_input(map, x, arg = "x", call = call)
  if (nrow(x) < 20) return(map)
  n_rows <- min(ard_settings$n_rows, max(500, floor(2e7 / ncol(x))))
  problem <- list(data = ard_subsample(map, x, y, weights, n_rows),
                  w0 = spectral_sample(map$kernel, ncol(x), ard_settings$n_frequencies),
                  backend = backend)
  factors <- default_bandwidth_grid$factors
  # Rows: factors; columns: lambdas. Features that are not finite score as
  # unusable (isotropic_scores() refuses them).
  scores <- t(vapply(factors, function(factor) {
    tryCatch(isotropic_scores(problem, log(map$kernel$sigma * factor),
                              default_bandwidth_grid$log_lambdas),
             error = function(e) rep(Inf, length(default_bandwidth_grid$log_lambdas)))
  }, numeric(length(default_bandwidth_grid$log_lambdas))))
  if (!any(is.finite(scores))) return(map)
  best <- arrayInd(best_candidate(scores), dim(scores))[1]
  with_bandwidths(map, map$kernel$sigma * factors[best], x, backend, call = call)
}

# The same for chunked data, on the rows of the first chunks.
default_bandwidth_map_chunked <- function(map, data, backend, call = rlang::caller_env()) {
  rows <- leading_chunk_rows(map, data, ard_settings$n_rows, "to choose the bandwidth on", call)
  default_bandwidth_map(map, rows$x, rows$y, rows$weights, backend, call = call)
}

# ard_objective()'s value at one bandwidth for all columns (log_sigma) and
# each of log_lambdas, from one feature matrix and one factorisation per
# half for all lambdas (rather than features, Gram and Cholesky factor again
# for every lambda).
isotropic_scores <- function(problem, log_sigma, log_lambdas) {
  data <- problem$data
  d <- ncol(data$x)
  z <- rff_features_cpp(data$x, problem$w0 * exp(-log_sigma), rep(0, d), NULL, "cos_sin",
                        problem$backend$blas, problem$backend$n_threads,
                        problem$backend$simd)
  scale_y <- sum(apply(data$y, 2, stats::var)) + 1e-300
  values <- numeric(length(log_lambdas))
  for (fold in 1:2) {
    a <- data$half != fold
    s <- ridge_split(data, z, a)  # R/ard.R
    penalties <- exp(log_lambdas) * sum(s$wa)  # per unit of weight, as Z'WZ
    predictions <- if (2 * sum(a) <= ncol(z)) dual_half_ridge(s, penalties) else
      primal_half_ridge(s, penalties, problem$backend)
    norm <- 2 * sum(s$wb) * scale_y
    for (l in seq_along(log_lambdas)) {
      residual <- predictions[[l]] - s$yb
      values[l] <- values[l] + sum(s$wb * residual^2) / norm
    }
  }
  values
}

# The held-out rows' predictions of the ridge fits on a half (ridge_split()),
# one matrix per penalty: from the features' weighted Gram matrix Z'WZ
# (D x D), reduced once to tridiagonal form for all penalties on kitchen's
# threaded kernels (14 of them at D = 256: 0.1 s, against 0.5 s for R's
# eigen() on the reference BLAS) ...
primal_half_ridge <- function(s, penalties, backend) {
  gram <- gram_of(s$za * sqrt(s$wa), backend)  # R/gram.R
  if (!all(is.finite(gram))) stop("The features are not finite.")  # as eigen() refused them
  w <- ridge_path_coefficients_cpp(gram, crossprod(s$za, s$ya * s$wa), penalties,
                                   backend$lapack, backend$n_threads, backend$simd)
  k <- ncol(s$ya)
  lapply(seq_along(penalties), function(l) s$zb %*% w[, (l - 1) * k + seq_len(k), drop = FALSE])
}

# ... or, for a half with at most half as many rows as features, from the
# rows' K = A A' (n x n), A = W^(1/2) Z: the coefficients
# (A'A + penalty I)^-1 A'b equal A'(K + penalty I)^-1 b, b = W^(1/2) y. On
# mtcars's 12-row halves the 256 x 256 reductions were nearly all of a
# default fit's time; nearer to as many rows as features, the rows'
# products on R's BLAS cost more than they save.
dual_half_ridge <- function(s, penalties) {
  root_w <- sqrt(s$wa)
  a <- s$za * root_w
  eig <- eigen(tcrossprod(a), symmetric = TRUE)
  eigenvalues <- pmax(eig$values, 0)     # rounding can leave tiny negatives
  q <- crossprod(eig$vectors, s$ya * root_w)
  held_out <- tcrossprod(s$zb, a) %*% eig$vectors
  lapply(penalties, function(penalty) held_out %*% (q / (eigenvalues + penalty)))
}
