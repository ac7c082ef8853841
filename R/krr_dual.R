# The dual path of a least-squares fit with far fewer rows than features.
# With centred, weighted features A = W^(1/2) (Z - 1 zbar') (n x D) and
# response b = W^(1/2) (y - ybar), the ridge coefficients are
#   w = (A'A + lambda I)^-1 A'b = A' (AA' + lambda I)^-1 b,
# and A'A (the primal's centred Z'Z) and K = AA' have the same non-zero
# eigenvalues, so GCV's effective df and every CV fold's solution come from
# n x n eigendecompositions instead of D x D tridiagonal reductions. Z is
# held (n x D doubles: less than one of the primal's D x D matrices when
# n < D). The statistics object carries class kitchen_dual_statistics, and
# krr_solve(), cv_path()'s fold_sse(), screen_fold_path() and
# class_calibration() hand it to the functions below, so the bandwidth
# search and the fit object are the primal's.

# Whether krr_fit() takes the dual path: options(kitchen.dual) "auto" (the
# default), TRUE (whenever the fit allows it) or FALSE (never). A dense map
# on data in memory only (rbin, FALKON and chunked data keep their own
# paths); `pays` is the "auto" rule (dual_logistic_pays() for the logistic
# loss, R/krr_logistic_dual.R).
dual_path_chosen <- function(map, n, solver, pays = dual_path_pays, call = rlang::caller_env()) {
  choice <- getOption("kitchen.dual", "auto")
  if (!(isTRUE(choice) || isFALSE(choice) || identical(choice, "auto"))) {
    abort_arg("{.code options(kitchen.dual)} must be {.val auto}, {.code TRUE} or {.code FALSE}.",
              call = call)
  }
  if (isFALSE(choice) || solver != "direct" ||
      !inherits(map, c("kitchen_rff", "kitchen_fastfood", "kitchen_nystrom"))) {
    return(FALSE)
  }
  isTRUE(choice) || pays(n, map$n_features)
}

# "auto": the dual path when the rows are at most a third of the
# features. Its cost is one n x n eigendecomposition per fold and the full
# fit (R's eigen(), LAPACK on R's BLAS), against one D x D tridiagonal
# reduction each (kitchen's threaded SIMD code, a third of an
# eigendecomposition's work and several times faster per flop on the
# reference BLAS). bench/results/dual-path.md: at D = 2000 (every default,
# loaded 2-core AVX-512 machine, reference BLAS) both took 11-13 s at
# n = 1000 = D/2, the primal 11.6-13.4 s and the dual 2.3-2.6 s at n = D/4.
# bench/results/dual-path-rule.md (AVX2 machine, quiet): dual / primal time
# 0.63-0.75 at n = D/2, 0.23-0.24 at n = D/3, 0.10-0.17 at n = D/4
# (D = 1000 and 2000);
# at a third the dual path stays well on the cheaper side of both machines
# (the quarter before left, for instance, Ionosphere's 260 rows at D = 1000
# on the primal path: 3.2 s against 0.87 s).
dual_path_pays <- function(n, n_features) 3 * n <= n_features && dual_rows_allowed(n)

# Both dual paths' row limit. Their eigendecompositions are kitchen's
# (kept_eigen(): interruptible, and half eigen()'s time at n = 1000, D =
# 4000, bench/results/dual-eigen.md), so any number of rows, except where
# they go to R's eigen(), which does not check for interrupts (4 s at 1000
# rows, 12 s at 1500 on that machine at load 9): there at most 1000.
dual_rows_allowed <- function(n) n <= 1000 || !tridiagonal_on_lapack()

is_dual_statistics <- function(stats) inherits(stats, "kitchen_dual_statistics")

# The rows' features Z (n x D), their weighted means, the n x n Gram matrix
# of the centred features (centred at the weighted mean of all rows; a
# fold's own centring is applied to it algebraically), and the sums of the
# response per fold that intercept-only fits and calibration read.
dual_statistics <- function(map, x, y, backend, folds = NULL, weights = NULL) {
  z <- map_features(map, x, backend)
  rows <- nrow(z)
  w <- weights %||% rep(1, rows)
  total <- sum(w)
  zbar <- colSums(w * z) / total
  centred <- z - rep(zbar, each = rows)
  stats <- structure(list(
    z = z, y = y, weights = weights, w = w, n = total, rows = rows, positive_rows = sum(w > 0),
    zbar = zbar,
    row_gram = gram_of(t(centred), backend),  # R/gram.R
    centred_diagonal = colSums(w * centred^2), diagonal = colSums(w * z^2),
    ysum = colSums(w * y), yy = colSums(w * y^2), backend = backend
  ), class = "kitchen_dual_statistics")
  dual_refold(stats, folds)
}

# The statistics with rows assigned to `folds` (NULL: none).
dual_refold <- function(stats, folds) {
  stats$fold_of <- folds
  stats$folds <- if (!is.null(folds)) lapply(seq_len(max(folds)), function(k) {
    rows <- which(folds == k)
    w <- stats$w[rows]
    y <- stats$y[rows, , drop = FALSE]
    list(rows = rows, n = sum(w), ysum = colSums(w * y), yy = colSums(w * y^2))
  })
  stats
}

# The eigendecomposition of the training rows' K = A_T A_T', with A_T
# centred at the training rows' weighted mean: c_i . delta (`shift`, for
# every row) and delta . delta (`offset`), delta the move from the mean of
# all rows, turn the stored Gram matrix into the training one. Eigenvalues
# at rounding level (at most n * eps times the largest) are set to 0: their
# eigenvectors are in the null space of A_T' (the centring direction,
# duplicated rows), so they add nothing to the coefficients, and their part
# of b stays in the residual exactly (`rest`, per response). Only the kept
# eigenpairs are found (kept_eigen(): interruptible, on kitchen's threads).
dual_training_set <- function(stats, train) {
  w <- stats$w[train]
  n <- sum(w)
  shift <- drop(stats$row_gram[, train, drop = FALSE] %*% w) / n
  offset <- sum(w * shift[train]) / n
  root <- sqrt(w)
  k <- (stats$row_gram[train, train, drop = FALSE] - shift[train] -
          rep(shift[train], each = length(train)) + offset) * root * rep(root, each = length(train))
  ybar <- colSums(w * stats$y[train, , drop = FALSE]) / n
  b <- root * (stats$y[train, , drop = FALSE] - rep(ybar, each = length(train)))
  e <- kept_eigen(k, length(train) * .Machine$double.eps, stats$backend)  # R/kept_eigen.R
  c <- crossprod(e$vectors, b)
  list(train = train, n = n, root = root, shift = shift, offset = offset, ybar = ybar,
       values = e$values, vectors = e$vectors, c = c,
       rest = colSums((b - e$vectors %*% c)^2))
}

# (K + lambda I)^-1 b's coordinates in the kept eigenvectors, zero-eigenvalue
# parts left out (see dual_training_set()).
dual_inverse <- function(set, lambda) set$c / (set$values + lambda)

# The feature-space coefficients w = A_T' alpha and the intercept of the
# training set's fit at `lambda`.
dual_coefficients <- function(stats, set, lambda) {
  v <- set$root * (set$vectors %*% dual_inverse(set, lambda))
  z <- stats$z[set$train, , drop = FALSE]
  zbar <- colSums(stats$w[set$train] * z) / set$n
  w <- crossprod(z - rep(zbar, each = nrow(z)), v)
  colnames(w) <- colnames(stats$y)
  list(coefficients = w, intercept = drop(set$ybar - crossprod(w, zbar)))
}

# Weighted residual sum of squares of each response at lambda: the residual
# b - K alpha is lambda alpha, so RSS = sum_i (lambda c_i / (e_i + lambda))^2
# over the kept eigenpairs plus b's part outside them, without the primal's
# cancellation.
dual_rss <- function(set, lambda) {
  colSums((lambda / (set$values + lambda) * set$c)^2) + set$rest
}

# GCV over the lambdas, as ridge_gcv_path() (ridge_path.hpp): n RSS /
# (n - df)^2 with df = 1 + sum e / (e + lambda); NaN at lambda = 0, where
# the primal's A'A + lambda I is singular (rank below D).
dual_gcv_path <- function(set, lambdas, n) {
  df <- vapply(lambdas, function(l) 1 + sum(set$values / (set$values + l)), 0)
  rss <- vapply(lambdas, function(l) sum(dual_rss(set, l)), 0)
  gcv <- ifelse(lambdas > 0, n * rss / (n - df)^2, NaN)
  list(df = df, gcv = gcv)
}

# krr_solve() for dual statistics.
dual_solve <- function(stats, lambda, backend, cv = NULL) {
  check_response_sums(list(yy = stats$yy, zy = 0))
  n <- stats$n
  ybar <- stats$ysum / n
  if (features_constant(stats$centred_diagonal, stats$diagonal)) {
    sums <- c(stats[c("n", "ysum", "folds")],
              list(zy = matrix(0, 0, ncol(stats$y), dimnames = list(NULL, colnames(stats$y)))))
    fit <- intercept_only_fit(sums, lambda, ybar, stats$zbar, stats$yy - n * ybar^2)
    fit$coefficients <- matrix(0, length(stats$zbar), ncol(stats$y),
                               dimnames = list(NULL, colnames(stats$y)))
    return(fit)
  }
  if (identical(lambda, "cv")) {
    lambdas <- default_lambdas(stats$centred_diagonal, observed_rows(stats))
    cv <- cv %||% cv_path(stats, lambdas, backend)
  } else {
    cv <- NULL
  }
  set <- dual_training_set(stats, seq_len(stats$rows))
  if (is.numeric(lambda) && length(lambda) == 1) {
    path <- data.frame(lambda = lambda, df = NA_real_, gcv = NA_real_)
  } else {
    if (is.null(cv)) lambdas <- if (is.character(lambda)) default_lambdas(stats$centred_diagonal, observed_rows(stats)) else lambda
    scored <- dual_gcv_path(set, lambdas, observed_rows(stats))  # R/krr_solve.R
    chosen <- best_candidate(if (is.null(cv)) scored$gcv else cv)
    if (length(chosen) == 0) abort_no_lambda(lambdas, is.numeric(lambda))
    path <- data.frame(lambda = lambdas, df = scored$df, gcv = scored$gcv)
    if (!is.null(cv)) path$cv <- cv
    lambda <- lambdas[chosen]
  }
  fit <- dual_coefficients(stats, set, lambda)
  # a given lambda's effective df, for warn_if_interpolating(): free here
  if (is.na(path$df[1])) fit$effective_df <- 1 + sum(set$values / (set$values + lambda))
  c(fit, list(dual = TRUE, lambda = lambda, path = path,
              training_rmse = sqrt(pmax(dual_rss(set, lambda), 0) / n)))
}

# fold_sse() for dual statistics: each fold's held-out rows are predicted
# through the cross-Gram matrix with the training rows (centred at the
# training mean), C alpha = (C V) diag(1 / (e + lambda)) V'b, for every
# lambda from one eigendecomposition.
dual_fold_sse <- function(stats, lambdas, positions, sse = numeric(length(lambdas))) {
  tick <- progress_ticker(stats$backend, "Cross-validating lambda", length(positions))  # R/progress.R
  for (fold in stats$folds[positions]) {
    held <- fold$rows
    set <- dual_training_set(stats, which(!seq_len(stats$rows) %in% held))
    train <- set$train
    cross <- (stats$row_gram[held, train, drop = FALSE] - set$shift[held] -
                rep(set$shift[train], each = length(held)) + set$offset) *
      rep(set$root, each = length(held))
    projected <- dense_product(cross, set$vectors, stats$backend)
    y <- stats$y[held, , drop = FALSE] - rep(set$ybar, each = length(held))
    w <- stats$w[held]
    for (l in seq_along(lambdas)) {
      sse[l] <- sse[l] + sum(w * (y - projected %*% dual_inverse(set, lambdas[l]))^2)
    }
    tick()
  }
  sse
}

# screen_fold_path() for dual statistics: fold 1's held-out error over the
# default lambdas (the bandwidth search's screen).
dual_screen_fold_path <- function(stats) {
  if (features_constant(stats$centred_diagonal, stats$diagonal)) {
    return(list(sse = NULL, score = Inf, lambda = NA_real_,
                path = data.frame(lambda = NA_real_, cv = Inf)))
  }
  lambdas <- default_lambdas(stats$centred_diagonal, observed_rows(stats))
  sse <- dual_fold_sse(stats, lambdas, 1L)
  cv <- sse / stats$folds[[1]]$n
  best <- best_candidate(cv)
  list(sse = sse, score = if (length(best)) cv[best] else Inf,
       lambda = if (length(best)) lambdas[best] else NA_real_,
       path = data.frame(lambda = lambdas, cv = cv))
}

# class_calibration() for dual statistics: each fold's rows scored by the
# fit at `lambda` on the other folds (the fit's folds, or row i in fold
# (i - 1) %% 5 + 1 as the primal does), from the held features.
dual_class_calibration <- function(stats, coded, weights, folds, lambda, backend) {
  if (is.null(folds) || is.null(stats$folds)) {
    stats <- dual_refold(stats, calibration_folds(stats$rows))
  }
  scores <- matrix(0, stats$rows, ncol(coded))
  for (fold in stats$folds) {
    held <- fold$rows
    set <- dual_training_set(stats, which(!seq_len(stats$rows) %in% held))
    fit <- dual_coefficients(stats, set, lambda)
    scores[held, ] <- stats$z[held, , drop = FALSE] %*% fit$coefficients +
      rep(fit$intercept, each = length(held))
  }
  calibration_of_scores(scores, coded, weights, backend)
}
