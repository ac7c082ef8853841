# A'A, symmetric and whole, through the same products: the Gram matrix of
# A's columns (A the weighted features for Z'WZ, or t(Z) for the rows' Z Z').
gram_of <- function(a, n_threads) {
  gram_symmetrize_cpp(gram_update_cpp(matrix(0, ncol(a), ncol(a)), a, products_on_blas(),
                                      n_threads, resolve_simd()))
}
