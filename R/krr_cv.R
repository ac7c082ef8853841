# K-fold cross-validation of krr_fit() from per-fold sufficient statistics,
# gathered in the same single pass over the data: for each fold, the ridge
# solution on the other folds is evaluated on this one without featurising
# anything again.

# Fold of each row: given by the user (checked), or drawn from R's random
# stream so that set.seed() reproduces it.
krr_folds <- function(folds, n, n_folds, call = rlang::caller_env()) {
  if (is.null(folds)) {
    check_count(n_folds, min = 2, arg = "n_folds", call = call)
    if (n_folds > n) abort_arg("{.arg n_folds} ({n_folds}) must not exceed the number of rows ({n}).", call = call)
    return(sample(rep_len(seq_len(n_folds), n)))
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

# Mean squared validation error over the folds, for each lambda.
cv_path <- function(stats, lambdas) {
  sse <- numeric(length(lambdas))
  for (fold in stats$folds) {
    train <- sum_statistics(stats, fold, sign = -1)
    n <- train$n
    zbar <- train$zsum / n
    ybar <- train$ysum / n
    decomposition <- eigen(train$gram - n * tcrossprod(zbar), symmetric = TRUE)
    values <- pmax(decomposition$values, 0)
    rotated <- crossprod(decomposition$vectors, train$zy - n * tcrossprod(zbar, ybar))
    sse <- sse + vapply(lambdas, function(l) {
      w <- decomposition$vectors %*% (rotated / (values + l))
      b <- drop(ybar - crossprod(w, zbar))
      # sum over the fold's rows of (y - b - z'w)^2, from its statistics
      sum(fold$yy - 2 * b * fold$ysum - 2 * colSums(w * fold$zy) + fold$n * b^2 +
            2 * b * drop(crossprod(w, fold$zsum)) + colSums(w * (fold$gram %*% w)))
    }, 0)
  }
  sse / stats$n
}
