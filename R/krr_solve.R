# The ridge solve from the sufficient statistics: a fixed lambda by
# Cholesky, or the lambda path scored by GCV (and CV: R/krr_cv.R) from one
# tridiagonal reduction of Z'Z.

# The number of observations: the rows with a non-zero weight. GCV's m in
# m RSS / (m - df)^2, and the rank bound of the default lambdas. Weights are
# precision weights, as in lm() (whose residual df also counts rows): with
# the weights' sum, their scale moved GCV's choice (weights summing to 1
# left m - df < 0 and chose the smallest lambda), and rows weighted 0
# moved the lambda grid. Without weights, m is the row count as before.
observed_rows <- function(stats) stats$positive_rows %||% stats$rows

# Ridge solution with an unpenalised intercept from the sufficient statistics.
# `cv`: the CV scores of the default lambdas when already computed (by the
# bandwidth search, R/krr_bandwidth_search.R), not computed again.
krr_solve <- function(stats, lambda, backend, cv = NULL) {
  if (is_dual_statistics(stats)) return(dual_solve(stats, lambda, backend, cv))  # R/krr_dual.R
  check_response_sums(stats)
  n <- stats$n
  zbar <- stats$zsum / n
  ybar <- stats$ysum / n
  zy <- stats$zy - n * tcrossprod(zbar, ybar)        # centred Z'y
  yy <- stats$yy - n * ybar^2                        # centred y'y, per response
  # the centred Z'Z's diagonal, as gram_center_cpp() computes it; the matrix
  # itself only after CV, which holds the folds' matrices (1.15 GB each at
  # D = 12,000) and two working ones
  centred_diagonal <- centred_gram_diagonal(stats)
  if (features_constant(centred_diagonal, diag(stats$gram))) {
    return(intercept_only_fit(stats, lambda, ybar, zbar, yy))
  }
  if (identical(lambda, "cv")) {
    lambdas <- default_lambdas(centred_diagonal, observed_rows(stats))
    cv <- cv %||% cv_path(stats, lambdas, backend)
  } else {
    cv <- NULL
  }
  gram <- gram_center_cpp(stats$gram, zbar, n, backend$n_threads)  # centred Z'Z (C++: interruptible)

  effective_df <- NULL
  if (is.numeric(lambda) && length(lambda) == 1) {
    w <- ridge_solve(gram, lambda, zy, backend)
    path <- data.frame(lambda = lambda, df = NA_real_, gcv = NA_real_)
    if (ncol(gram) + 1 >= interpolation_share * stats$rows) {
      # only then can a given lambda interpolate (warn_if_interpolating());
      # its df from kitchen's reduction, threaded and interruptible (R's
      # eigen() took 27 s at D = 4096, four times the whole GCV path)
      effective_df <- ridge_gcv_path_cpp(gram, zy, sum(yy), observed_rows(stats), lambda, 1L,
                                         backend$lapack, backend$n_threads, backend$simd,
                                         use_band_reduction(ncol(gram)))$df
    }
  } else {
    # GCV from the tridiagonal form of Z'Z (no eigenvectors; see
    # ridge_path.hpp); the candidates' scale is the trace over the count of
    # non-zero eigenvalues (default_lambdas()). With "cv", K-fold CV
    # chooses; the GCV scores are reported alongside, from the same
    # reduction of Z'Z that gives the chosen coefficients.
    if (is.null(cv)) lambdas <- if (is.character(lambda)) default_lambdas(centred_diagonal, observed_rows(stats)) else lambda
    chosen <- if (is.null(cv)) 0L else best_candidate(cv)
    if (length(chosen) == 0) abort_no_lambda(lambdas, is.numeric(lambda))  # every CV score NaN
    scored <- ridge_gcv_path_cpp(gram, zy, sum(yy), observed_rows(stats), lambdas, chosen, backend$lapack,
                                 backend$n_threads, backend$simd, use_band_reduction(ncol(gram)))
    if (scored$best == 0) abort_no_lambda(lambdas, is.numeric(lambda))
    path <- data.frame(lambda = lambdas, df = scored$df, gcv = scored$gcv)
    if (!is.null(cv)) path$cv <- cv
    lambda <- lambdas[scored$best]
    w <- scored$coefficients
  }
  colnames(w) <- colnames(zy)
  rss <- yy - 2 * colSums(w * zy) + gram_quadratic_forms_cpp(gram, w, backend$n_threads)
  list(coefficients = w, intercept = drop(ybar - crossprod(w, zbar)), lambda = lambda,
       path = path, training_rmse = sqrt(pmax(rss, 0) / n), effective_df = effective_df)
}

# The centred Z'Z's diagonal, as gram_center_cpp() computes it.
centred_gram_diagonal <- function(stats) {
  zbar <- stats$zsum / stats$n
  diag(stats$gram) - stats$n * (zbar * zbar)
}

# 50 candidates from ten times the mean non-zero eigenvalue of the centred
# Z'Z down ten decades. `values`: its diagonal (the trace's terms); `rows`:
# the row count. Once centred, Z'Z has at most min(D, rows - 1) non-zero
# eigenvalues, which share the trace: a mean over all D eigenvalues would put
# the grid D / rows times lower with more features than rows, and on small
# data CV then chose its top candidate, with 4000 features a quarter of the
# penalty it chose with 1000 (bench/results/defaults-d-ratio.md).
default_lambdas <- function(values, rows) {
  rank <- max(1, min(length(values), rows - 1))
  # (times exactly 1 with at least as many rows as features: the same bits)
  scale <- mean(values) * (length(values) / rank)
  # No absolute floor but for a trace of zero: the trace scales with the
  # weights, and so must the candidates (a floor at double.eps moved the
  # choice for weights of 1e-20).
  if (!(scale > 0)) scale <- .Machine$double.eps
  scale * 10^seq(1, -9, length.out = 50)
}
