# Per-column bandwidths learned from the data (automatic relevance
# determination), for krr_fit(sigma = "ard").
#
# The ARD kernel with bandwidths s_j on x is the kernel at bandwidth 1 on
# x_j / s_j, so random Fourier features with frequencies W = diag(1 / s) W0
# (W0 drawn once from the kernel's spectral law at bandwidth 1, then kept)
# are smooth functions of u = log(s). On a subsample of the training rows,
# split in two halves, ridge regression on such features is fitted on each
# half and scored on the other; the mean held-out squared error is
# minimised over (u, log lambda) by L-BFGS-B with its exact gradient
# (ard_objective()), which stops when the relative decrease falls below
# `factr` times the machine epsilon or after `max_iter` iterations. The
# search costs O(n_rows * d * n_frequencies) per step, independent of the
# number of training rows and of the final map's size.

ard_settings <- list(n_rows = 4000, n_frequencies = 128, max_iter = 50)

# The learned bandwidths applied to `map`, with a report of the search.
# x: training data (checked), y: the n x k response matrix, weights: NULL
# or n non-negative numbers.
ard_map <- function(map, x, y, weights, n_threads, call = rlang::caller_env()) {
  x <- map_input(map, x, arg = "x", call = call)
  if (nrow(x) < 20) {
    abort_arg("{.code sigma = \"ard\"} needs at least 20 training rows to learn bandwidths from, not {nrow(x)}.",
              call = call)
  }
  started <- proc.time()[["elapsed"]]
  # The subsample is held dense: at most about 2e7 numbers.
  n_rows <- min(ard_settings$n_rows, max(500, floor(2e7 / ncol(x))))
  data <- ard_subsample(map, x, y, weights, n_rows)
  search <- ard_search(data, map$kernel, ard_settings$n_frequencies, ard_settings$max_iter,
                       n_threads)
  list(map = with_bandwidths(map, search$sigma, x, n_threads, call = call),
       report = c(search[c("objective", "iterations", "converged")],
                  list(rows = nrow(data$x), time = proc.time()[["elapsed"]] - started)))
}

# Chunked data: the search runs on the first chunks, read until they hold
# the subsample's rows (each chunk checked as in the fit).
ard_map_chunked <- function(map, data, n_threads, call = rlang::caller_env()) {
  xs <- list()
  ys <- list()
  ws <- list()
  rows <- 0
  i <- 0
  while (rows < ard_settings$n_rows) {
    chunk <- chunk_read(data, i + 1, call = call)
    if (is.null(chunk)) break
    i <- i + 1
    x <- map_input(map, with_chunk(data, i, "holds bad data", call = call,
                                   as_data_matrix(chunk$x, allow_sparse = TRUE, arg = "x")),
                   arg = "x", call = call)
    xs[[i]] <- as.matrix(x)
    ys[[i]] <- chunk$y
    ws[[i]] <- chunk$weights %||% rep(1, nrow(x))
    rows <- rows + nrow(x)
  }
  if (rows == 0) abort_arg("{.arg x} has no chunks to learn the bandwidths from.", call = call)
  y <- if (is.factor(ys[[1]])) unlist(ys) else do.call(rbind, lapply(ys, as.matrix))
  y <- with_chunk(data, 1, "holds bad data", call = call, krr_response(y, rows)$y)
  ard_map(map, do.call(rbind, xs), y, unlist(ws), n_threads, call = call)
}

# Up to n_rows random rows, rescaled as the map rescales them, with their
# responses and weights, and the two halves they are split in.
ard_subsample <- function(map, x, y, weights, n_rows) {
  rows <- if (nrow(x) > n_rows) sort(sample.int(nrow(x), n_rows)) else seq_len(nrow(x))
  xs <- as.matrix(x[rows, , drop = FALSE])
  xs <- (xs - rep(map$center, each = nrow(xs))) / rep(map$scale, each = nrow(xs))
  w <- if (is.null(weights)) rep(1, length(rows)) else weights[rows]
  list(x = xs, y = y[rows, , drop = FALSE], w = w,
       half = sample(rep(1:2, length.out = length(rows))))
}

# Starts from the best isotropic bandwidth (the map's times 2^-2 .. 2^2) and
# lambda on a small grid, then descends on all the log-bandwidths at once.
ard_search <- function(data, kernel, n_frequencies, max_iter, n_threads) {
  d <- ncol(data$x)
  w0 <- spectral_sample(kernel, d, n_frequencies)
  base <- rep_len(log(kernel$sigma), d)
  problem <- list(data = data, w0 = w0, n_threads = n_threads)
  score <- function(theta) ard_objective(theta, problem, gradient = FALSE)$value
  factors <- log(2) * (-2:2)
  factor <- factors[which.min(vapply(factors, function(f) score(c(base + f, -4)), 0))]
  log_lambdas <- c(-8, -6, -4, -2, 0)
  log_lambda <- log_lambdas[which.min(vapply(log_lambdas, function(l) score(c(base + factor, l)), 0))]
  start <- c(base + factor, log_lambda)
  # Bounds keep the search where features stay informative: a column whose
  # bandwidth reaches the upper one is in effect left out.
  lower <- c(start[seq_len(d)] - log(100), -14)
  upper <- c(start[seq_len(d)] + log(1e4), 4)
  cache <- new.env()
  evaluate <- function(theta) {
    if (!identical(cache$theta, theta)) {
      cache$theta <- theta
      cache$result <- ard_objective(theta, problem)
    }
    cache$result
  }
  fit <- stats::optim(start, function(theta) evaluate(theta)$value,
                      function(theta) evaluate(theta)$gradient,
                      method = "L-BFGS-B", lower = lower, upper = upper,
                      control = list(maxit = max_iter, factr = 1e9))
  list(sigma = exp(fit$par[seq_len(d)]), log_lambda = fit$par[d + 1],
       objective = fit$value, iterations = fit$counts[["function"]],
       converged = fit$convergence == 0)
}

# Mean held-out squared error (relative to the response's variance) of
# ridge regression on cos / sin features with frequencies diag(exp(-u)) w0,
# fitted on one half of the rows and scored on the other, both ways; theta
# = c(u, log(lambda / n_half)). With `gradient`, also its exact gradient.
ard_objective <- function(theta, problem, gradient = TRUE) {
  data <- problem$data
  d <- ncol(data$x)
  u <- theta[seq_len(d)]
  w <- problem$w0 * exp(-u)      # row j divided by s_j
  m <- ncol(w)
  # [cos(x w), sin(x w)] / sqrt(m) on kitchen's SIMD kernels.
  z <- rff_features_cpp(data$x, w, rep(0, d), NULL, 0L, products_on_blas(), problem$n_threads,
                        resolve_simd())
  scale_y <- sum(apply(data$y, 2, stats::var)) + 1e-300
  value <- 0
  grad_u <- numeric(d)
  grad_l <- 0
  for (fold in 1:2) {
    a <- data$half != fold
    b <- !a
    wa <- data$w[a]
    wb <- data$w[b]
    mean_y <- colSums(data$y[a, , drop = FALSE] * wa) / sum(wa)
    ya <- sweep(data$y[a, , drop = FALSE], 2, mean_y)
    yb <- sweep(data$y[b, , drop = FALSE], 2, mean_y)
    za <- z[a, , drop = FALSE]
    zb <- z[b, , drop = FALSE]
    lambda <- exp(theta[d + 1]) * sum(a)
    gram <- gram_update_cpp(matrix(0, 2 * m, 2 * m), za * sqrt(wa), products_on_blas(),
                            problem$n_threads, resolve_simd())
    gram <- gram_symmetrize_cpp(gram)
    diag(gram) <- diag(gram) + lambda
    chol_gram <- chol(gram)
    solve_gram <- function(v) backsolve(chol_gram, forwardsolve(t(chol_gram), v))
    beta <- solve_gram(crossprod(za, ya * wa))
    rb <- zb %*% beta - yb
    norm <- 2 * sum(wb) * scale_y
    value <- value + sum(wb * rb^2) / norm
    if (!gradient) next
    pb <- 2 * wb * rb / norm               # dL / d(predictions on b)
    adjoint <- solve_gram(crossprod(zb, pb))
    ea <- ya - za %*% beta
    qa <- za %*% adjoint
    # dL = <pb, dZb beta> + <wa ea, dZa adjoint> - <wa qa, dZa beta>
    mb <- feature_derivative_weights(zb, pb, beta)
    ma <- feature_derivative_weights(za, wa * ea, adjoint) -
      feature_derivative_weights(za, wa * qa, beta)
    # d proj[i, k] / d u_j = -x[i, j] w[j, k]
    grad_u <- grad_u - rowSums(w * (crossprod(data$x[b, , drop = FALSE], mb) +
                                      crossprod(data$x[a, , drop = FALSE], ma)))
    grad_l <- grad_l - lambda * sum(adjoint * beta)
  }
  list(value = value, gradient = if (gradient) c(grad_u, grad_l))
}

# For sum_i sum_c sum_l p[i, l] dZ[i, c] v[c, l] with Z = [cos P, sin P] /
# sqrt(m): the weight of each d P[i, k] (d cos = -sin dP, d sin = cos dP).
feature_derivative_weights <- function(z, p, v) {
  m <- ncol(z) / 2
  cos_z <- z[, seq_len(m), drop = FALSE]
  sin_z <- z[, m + seq_len(m), drop = FALSE]
  cos_z * tcrossprod(p, v[m + seq_len(m), , drop = FALSE]) -
    sin_z * tcrossprod(p, v[seq_len(m), , drop = FALSE])
}

# `map` with per-column bandwidths `sigma` (in its rescaled units), its
# random draws kept: rff frequencies and rbin pitches are rescaled (and the
# occupied bins found again on x); fastfood applies sigma itself.
with_bandwidths <- function(map, sigma, x, n_threads, call = rlang::caller_env()) {
  ratio <- map$kernel$sigma / sigma
  if (inherits(map, "kitchen_nystrom")) {
    return(nystrom_with_bandwidth(map, sigma))
  } else if (inherits(map, "kitchen_rff")) {
    map$projection <- map$projection * ratio
  } else if (inherits(map, "kitchen_rbin")) {
    map$pitch <- map$pitch / ratio
    map$shift <- map$shift / ratio
    if (is.null(map$n_buckets)) {
      built <- rbin_build_cpp(x, map$pitch, map$shift, map$center, map$scale, n_threads,
                              resolve_simd())
      check_column_count(sum(as.numeric(built$n_bins)), "The number of occupied bins", call = call)
      map$keys <- built$keys
      map$n_bins <- built$n_bins
      map$n_features <- as.integer(sum(as.numeric(built$n_bins)))
    }
  }
  map$kernel$sigma <- sigma
  map
}
