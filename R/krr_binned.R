# krr_fit() on random binning features: Z has millions of columns but only
# n_grids non-zeros per row, so Z'Z is never formed. The ridge system
# (Zc'Zc + lambda I) w = Zc'(y - ybar), with Zc the centred features, is
# solved by preconditioned conjugate gradients using only the products Z v
# and Z'u (multithreaded C++ on the n x n_grids matrix of column numbers,
# 4 bytes a non-zero). The preconditioner is the diagonal of Zc'Zc + lambda I.

# The fit, as krr_solve() returns it for dense maps, plus the solver's report
# and the fitted values. `cols` (or NULL) are the bin columns of x when
# already known (chunked data). `folds` (or NULL) scores the candidate lambdas by
# K-fold CV; `weights` (or NULL) weighs the rows: every system below is
# centred and solved with row weights (0 / 1 ones select CV folds).
# `start` (or NULL) warm-starts the fold solves and `patience` stops the
# path (binned_cv_path()): the bandwidth search continues from its screen.
# `classify` (class codes) scores lambdas by misclassification and returns
# each row's held-out scores for the class calibration (`held_out_scores`:
# from the CV path, or from calibration_folds() at a given lambda).
binned_ridge <- function(map, x, y, lambda, folds, tol, max_iter, backend, verbose,
                         weights = NULL, cols = NULL, top = NULL, start = NULL, patience = 2,
                         classify = FALSE, call = rlang::caller_env()) {
  if (is.numeric(lambda) && any(lambda <= 0)) {
    # CG needs Z'Z + lambda I positive definite; Z'Z alone is singular.
    abort_arg("{.arg lambda} candidates must be positive for {.fn rbin} maps, not {.val {lambda[lambda <= 0][1]}}.",
              call = call)
  }
  weights <- weights %||% rep(1, nrow(y))
  began <- proc.time()[["elapsed"]]
  if (is.null(cols)) cols <- rbin_columns(map, x, backend, arg = "x")  # else from the chunks
  features_time <- proc.time()[["elapsed"]] - began
  value <- 1 / sqrt(map$n_grids)
  ops <- binned_ops(cols, value, map$n_features, backend)
  path <- held_out_scores <- NULL
  fold_start <- start
  start <- start %||% matrix(0, map$n_features, ncol(y))
  if (!is.null(folds)) {
    path <- binned_cv_path(ops, y, folds, value, map$n_features, lambda, tol, max_iter, verbose,
                           weights, top = top, start = fold_start, patience = patience,
                           classify = classify)
    if (!nrow(path)) abort_no_lambda(if (is.numeric(lambda)) lambda else attr(path, "tried"), is.numeric(lambda), call)
    lambda <- path$lambda[binned_best(path)]
    start <- attr(path, "start")
    held_out_scores <- attr(path, "scores")
    attr(path, "start") <- attr(path, "tried") <- attr(path, "losses") <- attr(path, "scores") <- NULL
  }

  system <- binned_system(ops, weights, value)
  solved <- binned_solve(system, y, lambda, start, tol, max_iter)
  # A lambda below the rounding of Zc'Zc (more bins than rows) leaves the
  # system singular: CG divides by ~0 and returns NaN.
  if (!all(is.finite(solved$residual))) abort_small_lambda(lambda, call)
  w <- solved$coefficients
  colnames(w) <- colnames(y)
  fitted <- binned_fitted(ops, system, y, w)
  if (!all(solved$converged)) {
    cli::cli_warn(c("Conjugate gradients did not reach {.arg tol} = {tol} in {max_iter} iterations.",
                    i = "Relative residual {format(max(solved$residual), digits = 3)}; raise {.arg max_iter} or {.arg lambda}."))
  }
  if (classify && is.null(held_out_scores)) {
    held_out_scores <- binned_calibration_scores(ops, y, value, map$n_features, lambda, w, tol,
                                                 max_iter, weights)
  }
  list(coefficients = w, intercept = drop(system$ybar(y) - crossprod(w, system$zbar)),
       lambda = lambda,
       path = if (is.null(path)) data.frame(lambda = lambda, df = NA_real_, gcv = NA_real_) else path,
       training_rmse = sqrt(colSums(weights * (y - fitted)^2) / sum(weights)),
       fitted = fitted, held_out_scores = held_out_scores, total_weight = sum(weights),
       features_time = features_time,
       solver = list(method = "conjugate gradients", iterations = solved$iterations,
                     converged = solved$converged, residual = solved$residual,
                     tol = tol, max_iter = max_iter))
}

# krr_fit()'s `tol` when none is given: 1e-6, but 1e-5 for the final CG
# of least squares on rbin maps. On CoverType (522,910 rows, 3.2 million
# bins, sigma 0.318, lambda 0.05) the step from 1e-5 to 1e-6 took 147 of
# 430 iterations and changed the class of none of the 58,102 test rows
# (1e-4: 5 rows; bench/results/rbin.md).
default_tol <- function(binned_squares) if (binned_squares) 1e-5 else 1e-6

# The products Z v and Z'u. The glue checks every column number it uses and
# returns a string naming the problem instead of a product: only when the
# map or `cols` were changed behind R's checks.
binned_ops <- function(cols, value, n_features, backend, call = rlang::caller_env()) {
  checked <- function(out) {
    if (is.character(out)) abort_arg(c("The bin columns of the rows are malformed.", x = out), call = call)
    out
  }
  list(
    times = function(v) checked(binned_times_cpp(cols, v, value, backend$n_threads)),
    cross = function(u) {
      checked(binned_crossprod_cpp(cols, u, n_features, value, backend$n_threads))
    },
    scores = function(w) checked(binned_scores_cpp(cols, w, value, backend$n_threads)),
    cg = function(rows, zbar, diagonal, b, start, lambda, tol, max_iter, workspace = NULL) {
      checked(binned_cg_cpp(cols, rows, zbar, diagonal, b, start, lambda, value, tol, max_iter,
                            backend$n_threads, workspace))
    })
}

# K-fold CV over the candidate lambdas, largest first, each fold's solve
# warm-started from its previous one. Like glmnet's path, it stops once
# the CV error has risen for `patience` candidates in a row past its
# minimum (the smallest lambdas need the most iterations); the candidates
# not reached are dropped from the path; a candidate that improves on the
# best by less than a relative `gain` counts as no better. Fold solves stop
# at a relative residual of max(tol, cv_tol) or after `cv_iter` iterations
# (early stopping: the next lambda continues from there, and scores need
# less precision than the final fit; without the cap, the small lambdas of
# a too wide bandwidth took minutes on CoverType). `use_folds` scores on some folds only (a bandwidth screen); the
# attribute "start" is the mean of the fold solutions at the best lambda,
# a warm start for the fit on all rows. `start` (or NULL for zeros) starts
# every fold's first solve. With one fold, the attribute "losses" holds the
# weighted squared error of each held-out row (a column per lambda).
#
# With `classify` (class codes, one column per class) the score `cv` is the
# held-out misclassification rate, and `cv_mse` the squared error, which
# breaks ties (binned_best()); "losses" are then the weighted 0/1 errors.
# With `keep_scores` (by default when every fold is scored) the attribute
# "scores" holds the held-out scores at the best lambda (n x K, NA in the
# rows of the folds not scored).
# The squared error of the +1/-1 codes keeps falling as lambda shrinks
# towards interpolation long after the classes stop improving: on CoverType
# (522,910 rows, min-max scaling, sigma 0.227) it chose lambda = 0.0026
# and 3.90% test error where lambda = n / n_features gives 3.51%
# (bench/results/rbin.md). The error the fit is judged by does not.
binned_cv_path <- function(ops, y, folds, value, n_features, lambda, tol, max_iter, verbose,
                           weights, patience = 2, use_folds = seq_len(max(folds)),
                           cv_tol = 1e-3, cv_iter = 50, gain = 1e-3, top = NULL, start = NULL,
                           classify = FALSE,
                           keep_scores = classify && length(use_folds) == max(folds),
                           label = "Cross-validating lambda") {
  lambdas <- if (is.character(lambda)) binned_lambdas(sum(weights), n_features, top) else
    sort(lambda, decreasing = TRUE)
  systems <- lapply(use_folds, function(k) binned_system(ops, weights * (folds != k), value))
  # Z'(y - ybar) of each fold, the same at every lambda: made once (seven
  # classes on 7.5 million bins: 3 s a fold)
  rhs <- lapply(systems, binned_rhs, y = y)
  # and the solver's working memory: gigabytes, whose fresh pages took up to
  # 2.5 s a solve to fault in (src/binned_solve.cpp)
  workspace <- binned_cg_workspace_cpp()
  on.exit(binned_cg_workspace_free_cpp(workspace), add = TRUE)
  starts <- rep(list(start %||% matrix(0, n_features, ncol(y))), length(use_folds))
  losses <- list()
  best_start <- starts[[1]]
  # The held-out scores at the best lambda so far, for the class
  # calibration (R/calibration.R); NA in the rows of folds not scored.
  scores <- best_scores <- if (keep_scores) matrix(NA_real_, nrow(y), ncol(y))
  cv <- mse <- rep(NA_real_, length(lambdas))
  cv_tol <- max(tol, cv_tol)
  scored <- sum(weights[folds %in% use_folds])
  bar <- if (verbose) cli::cli_progress_bar(label, total = length(lambdas), clear = TRUE)
  for (l in seq_along(lambdas)) {
    sse <- squares <- 0
    for (f in seq_along(use_folds)) {
      solved <- binned_solve(systems[[f]], y, lambdas[l], starts[[f]], cv_tol,
                             min(max_iter, cv_iter), rhs[[f]], workspace)
      if (!all(is.finite(solved$residual))) {
        sse <- NA_real_  # lambda too small: CG broke down; smaller ones would too
        break
      }
      starts[[f]] <- solved$coefficients
      held_out <- folds == use_folds[f]
      fitted <- binned_fitted(ops, systems[[f]], y, solved$coefficients)
      if (keep_scores) scores[held_out, ] <- fitted[held_out, , drop = FALSE]
      error <- rowSums((y[held_out, , drop = FALSE] - fitted[held_out, , drop = FALSE])^2)
      squares <- squares + sum(weights[held_out] * error)
      if (classify) {
        error <- max.col(fitted[held_out, , drop = FALSE], "first") !=
          max.col(y[held_out, , drop = FALSE], "first")
      }
      sse <- sse + sum(weights[held_out] * error)
      if (length(use_folds) == 1) losses[[l]] <- weights[held_out] * error
    }
    cv[l] <- sse / scored
    mse[l] <- squares / scored
    if (verbose) cli::cli_progress_update(id = bar)
    if (is.na(cv[l])) break
    best <- binned_best(list(cv = cv[seq_len(l)], cv_mse = if (classify) mse[seq_len(l)]))
    if (best == l) {
      # (one fold: no arithmetic, which copies millions of coefficients)
      best_start <- if (length(starts) == 1) starts[[1]] else Reduce(`+`, starts) / length(starts)
      best_scores <- scores
    }
    # Candidates that do not improve on the best by a relative `gain` count
    # as no better: a path that only creeps down stops too.
    improved <- which(cv[seq_len(l)] < c(Inf, cummin(cv[seq_len(l - 1)]) * (1 - gain))[seq_len(l)])
    if (l - max(improved) >= patience) break
  }
  reached <- !is.na(cv)
  path <- data.frame(lambda = lambdas[reached], df = rep(NA_real_, sum(reached)),
                     gcv = rep(NA_real_, sum(reached)), cv = cv[reached])
  if (classify) path$cv_mse <- mse[reached]
  structure(path,
            start = best_start, tried = lambdas, scores = if (any(reached)) best_scores,
            losses = if (length(use_folds) == 1) do.call(cbind, losses[reached]))
}

# The best row of a binned CV path: the lowest `cv`; with misclassification
# scores (a `cv_mse` column), equal rates are told apart by the squared
# error (on a few hundred held-out rows many lambdas tie).
binned_best <- function(path) {
  if (is.null(path$cv_mse) || !length(path$cv)) return(best_candidate(path$cv))
  tied <- which(path$cv == min(path$cv, na.rm = TRUE))
  tied[best_candidate(path$cv_mse[tied])]
}

# Held-out scores for the class calibration when lambda was given: fits at
# that lambda on the folds of calibration_folds(), each started from the
# fit on all rows `w` (close to theirs), to the CV path's precision. From
# 25,000 rows on, fold 1's fit alone: its 5,000 or more held-out rows are
# plenty for a calibration (with many classes, one of 2K - 1 numbers when
# they are fewer than 10 per coefficient of the full model: R/calibration.R),
# and each fold costs
# about as much as the fit (on CoverType, 522,910 rows, lambda 0.5: 44 s
# for the fit, 51 s more for five folds; with fold 1 alone 40.2 s against
# 30.5 s uncalibrated, and the same test log-loss, 0.104:
# bench/results/calibration-cost.md).
binned_calibration_scores <- function(ops, y, value, n_features, lambda, w, tol, max_iter,
                                      weights, all_folds_below = 25000) {
  folds <- calibration_folds(nrow(y))
  path <- binned_cv_path(ops, y, folds, value, n_features, lambda, tol, max_iter, FALSE, weights,
                         use_folds = if (nrow(y) < all_folds_below) seq_len(max(folds)) else 1L,
                         start = w, classify = TRUE, keep_scores = TRUE)
  attr(path, "scores")
}

# Candidates for lambda: the mean eigenvalue of Z'Z is n / n_features
# (every row has unit norm; with weights, n is their sum), and the grid spans six decades below ten
# times it, descending so each solve starts from the previous solution.
# `top` (or NULL) cuts the grid above that multiple of n / n_features.
binned_lambdas <- function(n, n_features, top = NULL) {
  relative <- 10^seq(1, -5, by = -0.5)
  # A warm start from a similar problem: the grid from `top` (relative) down.
  if (!is.null(top)) relative <- relative[relative <= top * (1 + 1e-9) | relative == min(relative)]
  (n / n_features) * relative
}

# The centred system on the rows weighted by `rows` (0 leaves a row out).
binned_system <- function(ops, rows, value) {
  n_rows <- sum(rows)
  column_sums <- ops$cross(rows)                 # value x rows in each column
  zbar <- column_sums / n_rows
  # diagonal of Zc'Zc: value^2 count - n zbar^2, with count = column_sums / value
  diagonal <- pmax(value * column_sums - n_rows * zbar^2, 0)
  list(
    rows = rows, n = n_rows, zbar = zbar,
    ybar = function(y) colSums(y * rows) / n_rows,
    diagonal = diagonal,
    solve = function(b, lambda, start, tol, max_iter, workspace = NULL) {
      ops$cg(rows, zbar, diagonal, b, start, lambda, tol, max_iter, workspace)
    },
    # Zc'W(y - ybar) for a response vector, or a matrix of them (one pass)
    rhs = function(y) {
      ops$cross(rows * (y - rep(colSums(as.matrix(y) * rows) / n_rows, each = NROW(y))))
    })
}

# Fitted values of every row (the held-out ones too) for coefficients w:
# all columns in C++ (in R, each column's copy and arithmetic cost 0.8 s
# on 7.5 million bins).
binned_fitted <- function(ops, system, y, w) {
  offset <- system$ybar(y) - drop(crossprod(system$zbar, w))
  fitted <- ops$scores(w)
  fitted + rep(offset, each = nrow(fitted))
}

# Each response column by preconditioned conjugate gradients from `start`
# (binned_cg_cpp(), src/binned_solve.cpp), up to 8 columns (classes) in
# lockstep: each iteration reads the rows' bins once for all of them (26
# classes took 26 passes per iteration), and each column's solution is
# bitwise the one it gets alone. At most 8, as 8 values of a bin fill one
# cache line, and each column of a group holds eight vectors of
# n_features numbers in memory at once (64 MB per million bins).
# `rhs` (binned_rhs()) and a `workspace` (binned_cg_workspace_cpp()) may be
# given: a path of lambdas makes them once.
binned_solve <- function(system, y, lambda, start, tol, max_iter, rhs = binned_rhs(system, y),
                         workspace = NULL) {
  k <- ncol(y)
  out <- list(coefficients = start, iterations = integer(k), residual = numeric(k))
  for (g in seq_along(rhs$groups)) {
    # no copies of these columns-by-classes matrices that are not needed:
    # with millions of bins each is hundreds of megabytes of fresh pages
    group <- rhs$groups[[g]]
    b <- rhs$b[[g]]
    whole <- identical(group, seq_len(k))
    solved <- system$solve(b, lambda, if (whole) start else start[, group, drop = FALSE], tol,
                           max_iter, workspace)
    if (whole) out$coefficients <- solved$x else out$coefficients[, group] <- solved$x
    out$iterations[group] <- solved$iterations
    out$residual[group] <- solved$residual
  }
  if (rhs$mirrored) {
    out$coefficients[, 2] <- -out$coefficients[, 1]
    out$residual[2] <- out$residual[1]
  }
  out$converged <- out$residual <= tol
  out
}

# The right-hand sides Zc'W(y - ybar) of binned_solve(), in its groups of
# columns. Two classes coded +1/-1 and -1/+1 are `mirrored`: the second
# solution is minus the first, which alone is solved.
binned_rhs <- function(system, y) {
  k <- ncol(y)
  mirrored <- k == 2 && all(y[, 2] == -y[, 1])
  solved_columns <- if (mirrored) 1L else seq_len(k)
  size <- ceiling(length(solved_columns) / ceiling(length(solved_columns) / 8))  # groups of equal size
  groups <- split(solved_columns, ceiling(seq_along(solved_columns) / size))
  b <- lapply(groups, function(group) system$rhs(y[, group, drop = FALSE]))
  list(groups = unname(groups), b = unname(b), mirrored = mirrored)
}
