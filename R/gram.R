# A'A, symmetric and whole, through the same products: the Gram matrix of
# A's columns (A the weighted features for Z'WZ, or t(Z) for the rows' Z Z').
gram_of <- function(a, backend) {
  gram_symmetrize_cpp(gram_update_cpp(matrix(0, ncol(a), ncol(a)), a, backend$blas,
                                      backend$n_threads, backend$simd))
}
