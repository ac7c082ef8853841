# K-fold cross-validation of krr_fit() from per-fold sufficient statistics,
# gathered in the same single pass over the data: for each fold, the ridge
# solution on the other folds is evaluated on this one without featurising
# anything again.

# Fold of each row: given by the user (checked), or drawn from R's random
# stream so that set.seed() reproduces it; `kept` (weighted_rows()): the
# rows drawn, when the others have weight 0; `strata`: each row's class,
# for folds stratified by class (stratified_folds()).
krr_folds <- function(folds, n, n_folds, kept = NULL, strata = NULL, call = rlang::caller_env()) {
  if (is.null(folds)) {
    check_count(n_folds, min = 2, arg = "n_folds", call = call)
    m <- if (is.null(kept)) n else length(kept)
    if (n_folds > m) {
      rows <- if (is.null(kept)) "the number of rows" else "the number of rows with non-zero weight"
      abort_arg("{.arg n_folds} ({n_folds}) must not exceed {rows} ({m}).", call = call)
    }
    drawn <- if (is.null(strata)) sample(rep_len(seq_len(n_folds), m)) else
      stratified_folds(if (is.null(kept)) strata else strata[kept], n_folds)
    if (is.null(kept)) return(drawn)
    # drawn for the weighted rows alone, as without the others (weight 0:
    # in any fold, they count in none)
    folds <- rep(1L, n)
    folds[kept] <- drawn
    return(folds)
  }
  if (!is.numeric(folds) || length(folds) != n || anyNA(folds) ||
      any(folds != trunc(folds)) || any(folds < 1)) {
    abort_arg("{.arg folds} must give a whole-number fold (1, 2, ...) for each of the {n} rows.",
              call = call)
  }
  folds <- match(folds, sort(unique(folds)))  # folds numbered 1..K, none empty
  if (max(folds) < 2) abort_arg("{.arg folds} must define at least two folds.", call = call)
  folds
}

# Folds for classes: each class's rows, in a random order, dealt to the
# folds in turn, so that a class of two rows or more has training rows in
# every fold's fit (with random folds a rare class could sit in one fold,
# whose fit then never saw it: no calibrated probabilities, and a CV score
# of a fit that cannot predict it), as caret's createFolds() stratifies.
# The folds' sizes differ by at most one, as with random folds. Classes go
# in the order they first appear in the rows, not of their levels: a
# relevelled factor dealt in level order got other folds, and probabilities
# 0.01 to 0.12 apart.
stratified_folds <- function(strata, n_folds) {
  shuffled <- sample.int(length(strata))
  appearance <- match(strata, unique(strata))
  dealt <- shuffled[order(appearance[shuffled])]  # by class, random within each
  folds <- integer(length(strata))
  folds[dealt] <- rep_len(seq_len(n_folds), length(strata))
  folds
}

# Mean squared validation error over the folds, for each lambda. Each
# fold's coefficients along the whole path come from one tridiagonal
# reduction of its training Gram matrix (ridge_path.cpp), and its error from
# its own sufficient statistics: sum over its rows of (y - b - z'w)^2.
# `screened`: fold_sse() of the first fold, already computed by the
# bandwidth screen (krr_bandwidth_search()); the sum continues from it in the
# same order, so the scores are the same to the last bit.
cv_path <- function(stats, lambdas, backend, screened = NULL) {
  if (is.null(screened)) return(fold_sse(stats, lambdas, backend, seq_along(stats$folds)) / stats$n)
  fold_sse(stats, lambdas, backend, seq_along(stats$folds)[-1], screened) / stats$n
}

# The summed squared validation error of the folds `which` (positions in
# stats$folds), added to `sse`, for each lambda.
fold_sse <- function(stats, lambdas, backend, which, sse = numeric(length(lambdas))) {
  if (is_dual_statistics(stats)) return(dual_fold_sse(stats, lambdas, which, sse))  # R/krr_dual.R
  band <- use_band_reduction(ncol(stats$gram))
  tick <- progress_ticker(backend, "Cross-validating lambda", length(which))  # R/progress.R
  for (fold in stats$folds[which]) {
    train <- fold_training_moments(stats, fold)
    zbar <- train$zbar
    ybar <- train$ybar
    k <- length(ybar)
    # the centred training Gram matrix made as the reduction reads it, never
    # in memory beside its working copy (1.15 GB each at D = 12,000)
    w <- ridge_path_fold_coefficients_cpp(stats$gram, fold$gram, zbar, train$n, train$zy,
                                          lambdas, backend$lapack, backend$n_threads,
                                          backend$simd, band)
    b <- rep(ybar, length(lambdas)) - drop(crossprod(w, zbar))   # intercepts, by column
    err <- rep(fold$yy, length(lambdas)) - 2 * b * rep(fold$ysum, length(lambdas)) -
      2 * colSums(w * fold$zy[, rep(seq_len(k), length(lambdas)), drop = FALSE]) +
      fold$n * b^2 + 2 * b * drop(crossprod(w, fold$zsum)) +
      fold_quadratic_forms_cpp(fold$gram, w, backend$n_threads, backend$simd)
    # from sums: a fold fitted exactly (a constant y) can leave -1e-17 of
    # cancellation, not an error
    sse <- sse + colSums(matrix(pmax(err, 0), k))
    tick()
  }
  sse
}

# Whether lambda paths (the folds' and the fit's GCV path) come from a band
# form of the Gram matrix (ridge_path.cpp, band_reduction.hpp) rather than
# a tridiagonal one: from `kitchen.band_reduction` features on (documented
# in ?krr_fit; tests set it low). The same path to rounding; faster for
# large matrices (bench/results/band-reduction.md), on the AVX2 / AVX-512
# kernels only (the C++ falls back to the tridiagonal form without them, or
# with options(kitchen.tridiagonal = "lapack")).
use_band_reduction <- function(dim) {
  dim >= getOption("kitchen.band_reduction", 2048)
}

# The training part of a CV fold (all rows less the fold's), without its
# Gram matrix: its count, feature and response means and centred Z'y, for
# the fold solves that make the centred Gram matrix from the total's less
# the fold's (fold_sse(), fold_ridge_fit() in R/calibration.R).
fold_training_moments <- function(stats, fold) {
  train <- sum_statistics(stats, fold, sign = -1, gram = FALSE)
  n <- train$n
  zbar <- train$zsum / n
  ybar <- train$ysum / n
  list(n = n, zbar = zbar, ybar = ybar, zy = train$zy - n * tcrossprod(zbar, ybar))
}
