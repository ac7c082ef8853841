# The eigenpairs of the symmetric matrix k whose eigenvalues exceed
# relative_cutoff times the largest, in eigen()'s form (values decreasing,
# vectors as columns), for the dual paths' n x n Gram matrices
# (R/krr_dual.R, R/krr_logistic_dual.R). On kitchen's threaded reduction and
# LAPACK's MRRR for the kept pairs (src/symmetric_eigen.cpp), which checks
# for interrupts and outruns R's eigen() on the reference BLAS; on R's
# eigen() where the reduction goes to LAPACK (option kitchen.tridiagonal,
# R/backends.R). The two agree to rounding.
kept_eigen <- function(k, relative_cutoff, backend) {
  if (!backend$lapack) {
    if (!is.double(k)) storage.mode(k) <- "double"
    return(kept_eigen_cpp(k, relative_cutoff, backend$n_threads, backend$simd))
  }
  if (nrow(k) == 0) return(list(values = numeric(), vectors = matrix(0, 0, 0)))
  dimnames(k) <- NULL
  e <- eigen(k, symmetric = TRUE)
  keep <- e$values > relative_cutoff * max(e$values[1], 0)
  list(values = e$values[keep], vectors = e$vectors[, keep, drop = FALSE])
}
