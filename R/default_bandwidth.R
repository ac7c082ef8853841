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
  grid <- expand.grid(factor = default_bandwidth_grid$factors,
                      log_lambda = default_bandwidth_grid$log_lambdas)
  log_sigma <- log(map$kernel$sigma)
  scores <- mapply(function(factor, log_lambda) {
    theta <- c(rep(log_sigma + log(factor), ncol(x)), log_lambda)
    # A singular half (duplicated rows, tiny lambda) scores as unusable.
    tryCatch(ard_objective(theta, problem, gradient = FALSE)$value, error = function(e) Inf)
  }, grid$factor, grid$log_lambda)
  if (!any(is.finite(scores))) return(map)
  with_bandwidths(map, map$kernel$sigma * grid$factor[which.min(scores)], x, n_threads,
                  call = call)
}
