# The ridge solve where the data leave it nothing to do, or cannot be
# solved as asked: each case gets an answer or a message naming the
# argument, instead of an error from deep inside the linear algebra.

# Sums of y and its squares past the largest double (y of about 1e154 and
# more) make every score Inf or NaN.
check_response_sums <- function(stats, call = rlang::caller_env(2)) {
  if (!all(is.finite(stats$yy)) || !all(is.finite(stats$zy))) {
    abort_arg(c("{.arg y} is too large: the sum of its squares overflows a double.",
                i = "Divide {.arg y} by a constant (the predictions scale with it)."),
              call = call)
  }
}

# Features that do not vary over the rows (constant x, or a single row):
# centring leaves only rounding, well below the uncentred diagonal.
features_constant <- function(centred_diagonal, diagonal) {
  !(max(centred_diagonal) > 1e3 * .Machine$double.eps * max(diagonal))
}

# The fit is then the mean of y: no coefficient can lower the error, and
# every lambda scores the same (df 0; GCV and CV errors of the mean).
intercept_only_fit <- function(stats, lambda, ybar, zbar, yy) {
  lambdas <- if (is.character(lambda)) 1 else lambda
  w <- matrix(0, length(zbar), length(ybar), dimnames = list(NULL, colnames(stats$zy)))
  path <- data.frame(lambda = lambdas, df = 0,
                     gcv = if (length(lambdas) > 1 || is.character(lambda)) sum(yy) / stats$n else NA_real_)
  if (identical(lambda, "cv")) path$cv <- mean_cv_error(stats)
  list(coefficients = w, intercept = ybar, lambda = lambdas[[1]], path = path,
       training_rmse = sqrt(pmax(yy, 0) / stats$n))
}

# K-fold CV error of predicting each fold by the mean of the others.
mean_cv_error <- function(stats) {
  sse <- 0
  for (fold in stats$folds) {
    b <- (stats$ysum - fold$ysum) / (stats$n - fold$n)
    # from sums: a constant y can leave -1e-17 of cancellation, not an error
    sse <- sse + max(sum(fold$yy - 2 * b * fold$ysum + fold$n * b^2), 0)
  }
  sse / stats$n
}

# The ridge coefficients (Z'Z + lambda I)^-1 Z'y by a Cholesky
# factorisation; a lambda too small to make Z'Z + lambda I positive definite
# (rounding in Z'Z, with more features than rows) is named, with what to do.
# From `blocked_from` features on, the factorisation runs by blocks in C++
# (fold_algebra.cpp), over threads and interruptible: R's chol() on the
# reference BLAS takes 30 s at D = 4096 and cannot be stopped. Below, R's
# chol() is faster to start and gives the results kitchen always gave.
ridge_solve <- function(gram, lambda, zy, backend, blocked_from = 1025L,
                        call = rlang::caller_env(2)) {
  if (nrow(gram) >= blocked_from) {
    w <- ridge_cholesky_solve_cpp(gram, lambda, zy, backend$n_threads)
    if (is.null(w)) abort_small_lambda(lambda, call)
    return(w)
  }
  diag(gram) <- diag(gram) + lambda
  factor <- tryCatch(chol(gram), error = function(e) abort_small_lambda(lambda, call))
  backsolve(factor, forwardsolve(t(factor), zy))
}

abort_small_lambda <- function(lambda, call) {
  abort_arg(c("{.arg lambda} ({format(lambda)}) is too small: Z'Z + lambda I is not positive definite to double precision.",
              i = "Use a larger {.arg lambda}, or {.val gcv} to choose one."),
            call = call)
}

# `given`: the candidates were the user's (else the default grid, where
# asking for "gcv" would not help).
abort_no_lambda <- function(lambdas, given, call = rlang::caller_env(2)) {
  hint <- if (given) {
    "The candidates reach up to {format(max(lambdas))}; give larger ones, or {.val gcv}."
  } else {
    "The default candidates reach up to {format(max(lambdas))}: the features' sums of squares are out of double precision's range or not finite (look at the scale of the data and of {.arg weights})."
  }
  abort_arg(c("No {.arg lambda} candidate makes Z'Z + lambda I positive definite to double precision.",
              i = hint),
            call = call)
}
