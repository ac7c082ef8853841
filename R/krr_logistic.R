# Kernel logistic regression on random features: krr_fit(loss = "logistic").
#
# Minimises sum_i w_i * (-log p_i[y_i]) + lambda * ||beta||^2 over the
# coefficients of every class (intercepts not penalised), p_i the softmax of
# the class links b_k + z(x_i)'beta_k; with two classes the first class's
# link is fixed at 0, so that p_i is the logistic function of one link.
# Solved by bound optimisation (logistic_bound()): one pass for Z'WZ, then
# one cheap pass (features and the gradient, never the n x D matrix) per
# step.

# The fit as krr_solve() returns it (coefficients D x K, intercepts, lambda,
# path), with the solver's report and the fitted probabilities.
logistic_ridge <- function(map, x, response, weights, lambda, folds, block_size, n_threads,
                           verbose, tol, max_iter) {
  onehot <- (response$y + 1) / 2
  weights <- weights %||% rep(1, nrow(x))
  path <- NULL
  if (!is.numeric(lambda) || length(lambda) > 1) {
    path <- logistic_cv_path(map, x, onehot, weights, lambda, folds, block_size, n_threads,
                             verbose, tol)
    lambda <- path$lambda[which.min(path$cv)]
  }
  fit <- logistic_bound(map, x, onehot, weights, lambda, NULL, block_size, n_threads, tol,
                        max_iter)
  if (!fit$converged) {
    cli::cli_warn(c("The logistic fit did not converge in {max_iter} passes over the data.",
                    i = "Relative change of the objective {format(fit$change, digits = 3)}; raise {.arg max_iter} or {.arg lambda}."))
  }
  probabilities <- softmax_rows(logistic_links(map, x, fit, block_size, n_threads))
  dimnames(probabilities) <- list(rownames(x), response$levels)
  colnames(fit$coefficients) <- names(fit$intercept) <- response$levels
  list(coefficients = fit$coefficients, intercept = fit$intercept, lambda = lambda,
       path = path %||% data.frame(lambda = lambda, df = NA_real_, gcv = NA_real_),
       fitted = probabilities,
       training_rmse = sqrt(colSums(weights * (onehot - probabilities)^2) / sum(weights)),
       logistic = list(passes = fit$passes, converged = fit$converged, change = fit$change,
                       log_loss = fit$log_loss / sum(weights),
                       accuracy = sum(weights * (max.col(probabilities, "first") == max.col(onehot, "first"))) /
                         sum(weights)))
}

# Bound optimisation (Boehning 1992): the Hessian of the log-loss is at most
# c [1 Z]'W[1 Z] with c = 1/4 for two classes and 1/2 for more (W the sample
# weights), a matrix that does not change between steps. So Z'WZ is read
# once (`stats`, or one pass here), factored once per lambda, and each step
# needs only the gradient: one pass computing features and Z'W(Y - P), no
# Gram matrix, every class at once. Steps are extrapolated (Nesterov's
# momentum, restarted when the objective rises), and every step of the
# bound itself never raises it.
logistic_bound <- function(map, x, onehot, weights, lambda, start, block_size, n_threads,
                           tol, max_iter, stats = NULL) {
  k <- ncol(onehot)
  free <- if (k == 2) 2L else seq_len(k)
  curvature <- if (k == 2) 1 / 4 else 1 / 2
  stats <- stats %||% krr_statistics(map, x, matrix(0, nrow(x), 1), block_size, n_threads,
                                     FALSE, NULL, weights)
  n <- stats$n
  zbar <- stats$zsum / n
  factor <- chol(curvature * (stats$gram - n * tcrossprod(zbar)) +
                   diag(2 * lambda, length(zbar)))
  state <- start %||% logistic_start(map, onehot, weights)
  accepted <- NULL
  momentum <- 1
  passes <- 0L
  change <- Inf
  repeat {
    pass <- logistic_gradient(map, x, onehot, weights, state, block_size, n_threads)
    passes <- passes + 1L
    objective <- pass$log_loss + lambda * sum(state$coefficients^2)
    if (!is.null(accepted) && objective > accepted$objective) {
      # The extrapolated point is worse: restart from the last bound step.
      if (passes >= max_iter) break
      state <- accepted$bound_step
      momentum <- 1
      next
    }
    if (!is.null(accepted)) {
      change <- abs(accepted$objective - objective) / max(objective, 1e-300)
    }
    previous <- accepted
    accepted <- list(coefficients = state$coefficients, intercept = state$intercept,
                     objective = objective, log_loss = pass$log_loss)
    if (change < tol || passes >= max_iter) break
    # The bound's minimiser from `state`: (c Zc'WZc + 2 lambda) d = g - 2 lambda beta,
    # and the intercepts from c (n db + s'd) = g0.
    rhs <- pass$zg[, free, drop = FALSE] - zbar %o% pass$g0[free] -
      2 * lambda * state$coefficients[, free, drop = FALSE]
    step <- backsolve(factor, forwardsolve(t(factor), rhs))
    bound_step <- state
    bound_step$coefficients[, free] <- state$coefficients[, free] + step
    bound_step$intercept[free] <- state$intercept[free] + pass$g0[free] / (curvature * n) -
      colSums(zbar * step)
    accepted$bound_step <- bound_step
    # Nesterov's extrapolation from the previous bound step.
    next_momentum <- (1 + sqrt(1 + 4 * momentum^2)) / 2
    state <- bound_step
    if (!is.null(previous$bound_step)) {
      blend <- (momentum - 1) / next_momentum
      state$coefficients <- bound_step$coefficients +
        blend * (bound_step$coefficients - previous$bound_step$coefficients)
      state$intercept <- bound_step$intercept +
        blend * (bound_step$intercept - previous$bound_step$intercept)
    }
    momentum <- next_momentum
  }
  c(accepted[c("coefficients", "intercept", "log_loss")],
    list(passes = passes, converged = change < tol, change = change))
}

# One pass: the weighted log-loss at `state` and its gradient in the links'
# coefficients: Z'W(Y - P) (D x K) and colSums(W(Y - P)).
logistic_gradient <- function(map, x, onehot, weights, state, block_size, n_threads) {
  k <- ncol(onehot)
  zg <- matrix(0, map$n_features, k)
  g0 <- numeric(k)
  log_loss <- 0
  n <- nrow(x)
  for (start in seq(1, n, by = block_size)) {
    rows <- start:min(n, start + block_size - 1)
    z <- predict(map, x[rows, , drop = FALSE], n_threads = n_threads)
    p <- softmax_rows(z %*% state$coefficients + rep(state$intercept, each = length(rows)))
    y <- onehot[rows, , drop = FALSE]
    w <- weights[rows]
    log_loss <- log_loss - sum(w * log(pmax(rowSums(p * y), 1e-300)))
    residual <- w * (y - p)
    zg <- zg + crossprod(z, residual)
    g0 <- g0 + colSums(residual)
  }
  list(log_loss = log_loss, zg = zg, g0 = g0)
}

# The intercept-only model: links log(class share), no feature weight.
logistic_start <- function(map, onehot, weights) {
  share <- pmax(colSums(weights * onehot) / sum(weights), 1e-10)
  intercept <- log(share) - if (ncol(onehot) == 2) log(share[1]) else 0
  list(coefficients = matrix(0, map$n_features, ncol(onehot)), intercept = intercept)
}

# Class links of the rows of x under a fit (n x K).
logistic_links <- function(map, x, fit, block_size, n_threads) {
  n <- nrow(x)
  out <- matrix(0, n, ncol(fit$coefficients))
  for (start in seq(1, n, by = block_size)) {
    rows <- start:min(n, start + block_size - 1)
    z <- predict(map, x[rows, , drop = FALSE], n_threads = n_threads)
    out[rows, ] <- z %*% fit$coefficients
  }
  sweep(out, 2, fit$intercept, "+")
}

# Row-wise softmax, shifted by the row maximum so that nothing overflows.
softmax_rows <- function(links) {
  links <- as.matrix(links)
  e <- exp(links - apply(links, 1, max))
  e / rowSums(e)
}

# K-fold CV of the held-out log-loss over candidate lambdas, largest first,
# each fold warm-started from its previous solution and solved to a relative
# change of max(tol, 1e-6) (scores need less precision than the final fit);
# stops once the CV loss has risen for `patience` candidates past its
# minimum.
logistic_cv_path <- function(map, x, onehot, weights, lambda, folds, block_size, n_threads,
                             verbose, tol, patience = 2) {
  folds <- folds %||% krr_folds(NULL, nrow(x), 5)
  lambdas <- if (is.character(lambda)) {
    logistic_lambdas(map, x, onehot, weights, block_size, n_threads)
  } else sort(lambda, decreasing = TRUE)
  n_folds <- max(folds)
  # Each fold's Z'WZ on its training rows, from one pass with per-fold sums.
  stats <- krr_statistics(map, x, matrix(0, nrow(x), 1), block_size, n_threads, FALSE, folds,
                          weights)
  starts <- vector("list", n_folds)
  cv <- rep(NA_real_, length(lambdas))
  bar <- if (verbose) cli::cli_progress_bar("Cross-validating lambda", total = length(lambdas), clear = TRUE)
  for (l in seq_along(lambdas)) {
    loss <- 0
    for (k in seq_len(n_folds)) {
      train <- folds != k
      fit <- logistic_bound(map, x[train, , drop = FALSE], onehot[train, , drop = FALSE],
                            weights[train], lambdas[l], starts[[k]], block_size, n_threads,
                            tol = max(tol, 1e-6), max_iter = 200,
                            stats = sum_statistics(stats, stats$folds[[k]], sign = -1))
      starts[[k]] <- fit
      held <- softmax_rows(logistic_links(map, x[!train, , drop = FALSE], fit, block_size, n_threads))
      loss <- loss - sum(weights[!train] * log(pmax(rowSums(held * onehot[!train, , drop = FALSE]), 1e-300)))
    }
    cv[l] <- loss / sum(weights)
    if (!is.null(bar)) cli::cli_progress_update(id = bar)
    if (l - which.min(cv) >= patience) break
  }
  reached <- !is.na(cv)
  data.frame(lambda = lambdas[reached], df = NA_real_, gcv = NA_real_, cv = cv[reached])
}

# Candidates: the mean eigenvalue of Z'WZ at the start (w p (1 - p) <= w / 4)
# times 10^1 .. 10^-6.
logistic_lambdas <- function(map, x, onehot, weights, block_size, n_threads) {
  rows <- if (nrow(x) > 2000) sort(sample.int(nrow(x), 2000)) else seq_len(nrow(x))
  z <- predict(map, x[rows, , drop = FALSE], n_threads = n_threads)
  scale <- sum(weights) / length(rows) * sum(weights[rows] * z^2) / sum(weights[rows]) / 4
  max(scale, .Machine$double.eps) * 10^seq(1, -6, length.out = 15)
}

# Each bandwidth candidate scored by its CV log-loss (when lambda is chosen
# by CV); the best kept. The same result shape as krr_bandwidth_search().
logistic_search <- function(map, sigmas, x, response, weights, lambda, folds, block_size,
                            n_threads, verbose, tol, max_iter) {
  began <- proc.time()[["elapsed"]]
  fits <- lapply(sigmas, function(s) {
    candidate <- if (is.null(s)) map else rescale_bandwidth(map, s)
    list(map = candidate,
         solution = logistic_ridge(candidate, x, response, weights, lambda, folds, block_size,
                                   n_threads, verbose, tol, max_iter))
  })
  scores <- vapply(fits, function(f) min(f$solution$path$cv %||% NA_real_), 0)
  best <- if (length(fits) > 1) which.min(scores) else 1L
  list(map = fits[[best]]$map, solution = fits[[best]]$solution,
       sigma_path = bandwidth_path(fits, scores),
       read = proc.time()[["elapsed"]] - began)
}

# The logistic loss needs classes and a dense map.
check_logistic <- function(response, map, call = rlang::caller_env()) {
  if (response$type != "class") {
    abort_arg("{.code loss = \"logistic\"} needs a factor {.arg y} (classes), not numbers.", call = call)
  }
  if (inherits(map, "kitchen_rbin")) {
    abort_arg(c("{.code loss = \"logistic\"} is not available for {.fn rbin} maps yet.",
                i = "Use an {.fn rff} or {.fn fastfood} map, or the squared loss."), call = call)
  }
}

# predict() of a logistic fit from the class links (n x K, named): the
# probabilities ("response", "prob"), or the link: the log-odds of the
# second class for two classes (as glm()), else the log-probabilities.
logistic_output <- function(links, type) {
  if (type != "link") return(softmax_rows(links))
  if (ncol(links) == 2) return(stats::setNames(links[, 2] - links[, 1], rownames(links)))
  links - apply(links, 1, max) - log(rowSums(exp(links - apply(links, 1, max))))
}
