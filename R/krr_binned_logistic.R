# krr_fit(loss = "logistic") on random binning features: the objective of
# R/krr_logistic.R, sum_i w_i * (-log p_i[y_i]) + lambda * ||beta||^2
# (intercepts unpenalised; with two classes class 1's link fixed at 0),
# minimised by Newton's method with each step solved matrix-free by
# conjugate gradients: Z is applied only through the products on each
# row's bin columns (as the least-squares fit, R/krr_binned.R), never
# forming Z'WZ. The intercepts are eliminated from each Newton system (its
# Schur complement, src/binned_logistic.cpp), as centring does for least
# squares; every free class is solved at once, the classes coupled through
# the softmax Hessian. Each CG solve starts from the previous Newton step
# and stops at a relative residual that tightens as the objective settles
# (an inexact Newton method); a step that does not lower the objective
# enough is halved. lambda by K-fold CV of the held-out log-loss, largest
# candidate first, each fold warm-started from its previous solution.

# The fit, as binned_ridge() returns it, with the Newton report in
# `logistic`. cols: the bin columns of the rows; labels: class numbers
# 1..k; weights: n numbers; folds: NULL or the fold of each row;
# use_folds: the folds scored (a bandwidth screen scores fold 1 only).
binned_logistic_ridge <- function(map, cols, labels, levels, weights, folds, lambda, tol,
                                   max_iter, backend, verbose, use_folds = NULL,
                                   call = rlang::caller_env()) {
  if (is.numeric(lambda) && any(lambda <= 0)) {
    abort_arg("{.arg lambda} candidates must be positive for {.fn rbin} maps, not {.val {lambda[lambda <= 0][1]}}.",
              call = call)
  }
  problem <- list(cols = cols, value = 1 / sqrt(map$n_grids), n_col = map$n_features,
                  labels = labels, k = length(levels), backend = backend)
  path <- NULL
  start <- NULL
  if (!is.null(folds)) {
    path <- binned_logistic_cv_path(problem, weights, folds, lambda, tol, max_iter, verbose,
                                    use_folds %||% seq_len(max(folds)))
    if (!nrow(path)) abort_no_lambda(attr(path, "tried"), is.numeric(lambda), call)
    best <- best_candidate(path$cv)
    lambda <- path$lambda[best]
    start <- attr(path, "start")
    attr(path, "start") <- attr(path, "tried") <- NULL
    if (!is.null(use_folds)) {  # a screen: the path is the result
      return(list(path = path, lambda = lambda, score = path$cv[best]))
    }
  }
  fit <- binned_logistic_newton(problem, weights, lambda, start, tol, max_iter)
  if (is.null(fit)) abort_small_lambda(lambda, call)
  if (!fit$converged) {
    cli::cli_warn(c("The logistic fit did not converge in {fit$steps} Newton steps.",
                    i = "Relative decrease expected from the last step {format(fit$change, digits = 3)}; raise {.arg max_iter} or {.arg lambda}."))
  }
  colnames(fit$coefficients) <- names(fit$intercept) <- colnames(fit$links) <- levels
  total <- sum(weights)
  list(coefficients = fit$coefficients, intercept = fit$intercept, lambda = lambda,
       path = path %||% data.frame(lambda = lambda, df = NA_real_, gcv = NA_real_),
       total_weight = total, training_rmse = rep(NA_real_, length(levels)),
       fitted = fit$links,
       logistic = list(method = "Newton-CG", passes = fit$steps, cg_iterations = fit$cg_iterations,
                       converged = fit$converged, change = fit$change,
                       log_loss = fit$log_loss / total, accuracy = fit$correct / total))
}

# K-fold CV over the candidate lambdas (largest first); stops as the dense
# path (logistic_cv_path(), cv_path_done()). Fold fits stop at a relative decrease
# of max(tol, 1e-6). Attribute "start": the mean of the fold solutions
# at the best lambda (the final fit's warm start).
binned_logistic_cv_path <- function(problem, weights, folds, lambda, tol, max_iter, verbose,
                                    use_folds, patience = 2) {
  lambdas <- if (is.character(lambda)) binned_logistic_lambdas(sum(weights), problem$n_col) else
    sort(lambda, decreasing = TRUE)
  starts <- vector("list", length(use_folds))
  cv <- accuracy <- rep(NA_real_, length(lambdas))
  fold_losses <- matrix(NA_real_, length(lambdas), length(use_folds))
  best_start <- NULL
  scored <- sum(weights[folds %in% use_folds])
  bar <- if (verbose) cli::cli_progress_bar("Cross-validating lambda", total = length(lambdas), clear = TRUE)
  for (l in seq_along(lambdas)) {
    loss <- correct <- 0
    for (f in seq_along(use_folds)) {
      held_out <- folds == use_folds[f]
      fit <- binned_logistic_newton(problem, weights * !held_out, lambdas[l], starts[[f]],
                                    max(tol, 1e-6), max_iter)
      if (is.null(fit)) {
        loss <- NA_real_  # too small a lambda; the smaller ones that follow too
        break
      }
      scores <- logistic_pass_scores(fit$p, problem$labels, weights * held_out)
      starts[[f]] <- fit[c("coefficients", "intercept")]  # not the n x k links and probabilities
      fold_losses[l, f] <- scores$log_loss
      loss <- loss + scores$log_loss
      correct <- correct + scores$correct
    }
    cv[l] <- loss / scored
    if (is.na(cv[l])) break
    accuracy[l] <- correct / scored
    if (best_candidate(cv) == l) {  # one n_features x k mean kept, not one per lambda
      best_start <- mean_fold_solution(starts)  # R/krr_logistic.R
    }
    if (!is.null(bar)) cli::cli_progress_update(id = bar)
    if (cv_path_done(l, cv, fold_losses, patience)) break
  }
  structure(logistic_path_frame(lambdas, cv, accuracy), start = best_start, tried = lambdas)
}

# Candidates: the mean eigenvalue of Z'WZ / 4 (every row has unit norm, so
# that of Z'WZ is sum(w) / n_features), times 10^1 .. 10^-6, as the dense
# path's grid (logistic_lambdas()).
binned_logistic_lambdas <- function(total_weight, n_features) {
  max(total_weight / n_features / 4, .Machine$double.eps) * 10^seq(1, -6, length.out = 15)
}

# The weighted log-loss and correct weight of probabilities p (n x k).
logistic_pass_scores <- function(p, labels, w) {
  picked <- p[cbind(seq_along(labels), labels)]
  list(log_loss = -sum(w * log(pmax(picked, 1e-300))),
       correct = sum(w[max.col(p, "first") == labels]))
}

# Newton's method from `start` (list(coefficients, intercept), or NULL for
# the intercept-only model) on the rows weighted by `w` (0 leaves a row
# out). Returns the solution with its links and probabilities on every row,
# or NULL if a CG solve broke down (lambda below the rounding of Z'WZ).
# max_iter caps each step's CG iterations; `max_steps` the Newton steps.
binned_logistic_newton <- function(problem, w, lambda, start, tol, max_iter, max_steps = 100) {
  k <- problem$k
  free <- if (k == 2) 2L else seq_len(k)
  onehot <- outer(problem$labels, seq_len(k), "==") * 1
  state <- start %||% binned_logistic_start(onehot, w, problem$n_col)
  state <- state[c("coefficients", "intercept")]
  pass <- binned_logistic_pass(problem, state, free, w, lambda)
  delta <- matrix(0, problem$n_col, length(free))
  change <- Inf
  steps <- cg_iterations <- 0L
  while (steps < max_steps) {
    step <- binned_newton_step(problem, pass, onehot, w, free, lambda, delta,
                               cg_tol = min(0.1, max(sqrt(change), 1e-12)), max_iter)
    if (is.null(step)) return(NULL)
    steps <- steps + 1L
    cg_iterations <- cg_iterations + step$iterations
    delta <- step$coefficients
    change <- step$decrement / 2 / max(pass$objective, 1e-300)
    # Backtracking (Armijo): Newton's step, halved while it does not lower
    # the objective by a fraction of the decrease it predicts.
    t <- 1
    repeat {
      trial <- state
      trial$coefficients[, free] <- trial$coefficients[, free] + t * step$coefficients
      trial$intercept[free] <- trial$intercept[free] + t * step$intercept
      trial_pass <- binned_logistic_pass(problem, trial, free, w, lambda)
      if (trial_pass$objective <= pass$objective - 1e-4 * t * step$decrement) break
      t <- t / 2
      if (t < 1e-10) break
    }
    if (t < 1e-10) break  # no decrease left above rounding: at the minimum
    state <- trial
    pass <- trial_pass
    if (change < tol) break
  }
  c(state, list(links = pass$links, p = pass$p, log_loss = pass$log_loss, correct = pass$correct,
                steps = steps, cg_iterations = cg_iterations, converged = change < tol,
                change = change))
}

# The intercept-only model on the rows weighted by w: links log(class share).
binned_logistic_start <- function(onehot, w, n_col) {
  share <- pmax(colSums(w * onehot) / sum(w), 1e-10)
  k <- ncol(onehot)
  list(coefficients = matrix(0, n_col, k),
       intercept = log(share) - if (k == 2) log(share[1]) else 0)
}

# Links, probabilities, the weighted log-loss, correct weight and the
# penalised objective at `state`.
binned_logistic_pass <- function(problem, state, free, w, lambda) {
  n <- nrow(problem$cols)
  links <- matrix(0, n, problem$k)
  links[, free] <- binned_scores_checked(problem, state$coefficients[, free, drop = FALSE])
  links <- links + rep(state$intercept, each = n)
  p <- softmax_rows(links)
  scores <- logistic_pass_scores(p, problem$labels, w)
  c(scores, list(links = links, p = p, beta_free = state$coefficients[, free, drop = FALSE],
                 objective = scores$log_loss + lambda * sum(state$coefficients^2)))
}

binned_scores_checked <- function(problem, coefficients) {
  out <- binned_scores_cpp(problem$cols, coefficients, problem$value, problem$backend$n_threads)
  if (is.character(out)) abort_arg(c("The bin columns of the rows are malformed.", x = out))
  out
}

# Z'u for each column of u (n x f): n_col x f.
binned_cross_columns <- function(problem, u) {
  vapply(seq_len(ncol(u)), function(j) {
    out <- binned_crossprod_cpp(problem$cols, u[, j], problem$n_col, problem$value,
                                problem$backend$n_threads)
    if (is.character(out)) abort_arg(c("The bin columns of the rows are malformed.", x = out))
    out
  }, numeric(problem$n_col))
}

# T(U)_ik = w_i p_ik (u_ik - sum_l p_il u_il): the softmax Hessian's
# weights applied to U (n x f) (kitchen/binned_logistic.hpp).
logistic_hessian_weights <- function(p, w, u) {
  w * p * (u - rowSums(p * u))
}

# One Newton step: the Schur system in the coefficients
# (A - B C^+ B' + 2 lambda I) d = g - B C^+ g0 by CG from `delta`, then the
# intercepts' step d0 = C^+ (g0 - B'd). g, g0: minus the gradient. The
# preconditioner is the diagonal of each class's own block with its own
# intercept eliminated (the least-squares fit's diagonal, with Hessian
# weights). `decrement`: g'd + g0'd0, twice the decrease the quadratic
# model predicts.
binned_newton_step <- function(problem, pass, onehot, w, free, lambda, delta, cg_tol, max_iter) {
  n <- nrow(onehot)
  p <- pass$p[, free, drop = FALSE]
  residual <- w * (onehot[, free, drop = FALSE] - p)
  g0 <- colSums(residual)
  g <- binned_cross_columns(problem, residual)
  # the penalty's gradient from the state the pass was made at
  g <- g - 2 * lambda * pass$beta_free
  wp <- colSums(w * p)
  c_matrix <- diag(wp, length(free)) - crossprod(p, w * p)
  c_plus <- pseudo_inverse(c_matrix)
  x0 <- drop(c_plus %*% g0)
  rhs <- g - binned_cross_columns(problem, logistic_hessian_weights(p, w, matrix(x0, n, length(free), byrow = TRUE)))
  s <- binned_cross_columns(problem, w * p * (1 - p))
  diagonal <- pmax(problem$value * s - sweep(s^2, 2, pmax(diag(c_matrix), 1e-300), "/"), 0) +
    2 * lambda
  solved <- binned_logistic_cg_cpp(problem$cols, p, w, c_plus, diagonal, rhs, delta, 2 * lambda,
                                   problem$value, cg_tol, max_iter, problem$backend$n_threads)
  if (is.character(solved)) abort_arg(c("The bin columns of the rows are malformed.", x = solved))
  if (!all(is.finite(solved$x))) return(NULL)
  d <- solved$x
  zd <- binned_scores_checked(problem, d)
  d0 <- drop(c_plus %*% (g0 - colSums(logistic_hessian_weights(p, w, zd))))
  list(coefficients = d, intercept = d0, iterations = solved$iterations,
       decrement = sum(g * d) + sum(g0 * d0))
}

# The Moore-Penrose inverse of a small symmetric positive semi-definite
# matrix (the intercepts' Hessian: singular along equal intercept steps
# for more than two classes, which do not change the probabilities).
pseudo_inverse <- function(m) {
  e <- eigen(m, symmetric = TRUE)
  keep <- e$values > max(e$values, 0) * 1e-10
  if (!any(keep)) return(matrix(0, nrow(m), ncol(m)))
  v <- e$vectors[, keep, drop = FALSE]
  v %*% (t(v) / e$values[keep])
}

# The search of krr_fit() for a logistic fit on an rbin map, its rows' bins
# from `bins` (memory_bins(), chunked_bins()) (`sigmas`: list(NULL) to keep the map's bandwidth, a list of numbers, or
# "auto"), shaped as binned_bandwidth_search()'s result. Bandwidth
# candidates are screened as for least squares: each one's bins are found
# again and its lambda path scored on fold 1 only; the best gets the full
# K-fold CV and the final fit. `labels`: class numbers of the rows.
binned_logistic_search <- function(map, bins, labels, levels, sigmas, lambda, folds, weights, tol,
                                   max_iter, backend, verbose) {
  weights <- weights %||% rep(1, length(labels))
  read <- 0
  columns_of <- function(candidate) {
    began <- proc.time()[["elapsed"]]
    cols <- bins$columns(candidate)
    read <<- read + proc.time()[["elapsed"]] - began
    cols
  }
  fit <- function(candidate) {
    binned_logistic_ridge(candidate, columns_of(candidate), labels, levels, weights, folds,
                          lambda, tol, max_iter, backend, verbose)
  }
  if (bandwidth_fixed(sigmas, folds)) {  # R/krr_binned_search.R
    chosen <- if (is.null(sigmas[[1]])) map else bins$rebin(map, sigmas[[1]])
    return(list(map = chosen, solution = fit(chosen), sigma_path = NULL, read = read))
  }
  screen <- function(s) {
    candidate <- bins$rebin(map, s)
    screened <- binned_logistic_ridge(candidate, columns_of(candidate), labels, levels, weights,
                                      folds, lambda, tol, max_iter, backend, verbose,
                                      use_folds = 1L)
    list(map = candidate, solution = screened[c("path", "lambda")], score = screened$score)
  }
  screened <- if (identical(sigmas, "auto")) auto_bandwidths(map$kernel$sigma, screen) else
    lapply(sigmas, screen)
  scores <- vapply(screened, `[[`, 0, "score")
  best <- best_candidate(scores)
  chosen <- screened[[best]]$map
  screened[[best]]$solution <- fit(chosen)
  order <- order(vapply(screened, function(f) f$map$kernel$sigma, 0))
  list(map = chosen, solution = screened[[best]]$solution,
       sigma_path = bandwidth_path(screened[order], scores[order]), read = read)
}
