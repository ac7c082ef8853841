# A kitchen option naming one of `choices` (the first is the default), or
# an argument error naming the option.
option_choice <- function(name, choices, call = rlang::caller_env()) {
  choice <- getOption(name, choices[1])
  if (!is.character(choice) || length(choice) != 1L || !choice %in% choices) {
    abort_arg("{.arg options({name})} must be one of {.val {choices}}, not {.val {choice}}.",
              call = call)
  }
  choice
}

# The BLAS cannot change within a session: look once (extSoftVersion() is
# slow next to a one-row prediction).
blas_is_optimised <- function() {
  if (is.null(gemm_cache$optimised)) {
    blas <- tolower(extSoftVersion()[["BLAS"]])
    gemm_cache$optimised <- grepl("openblas|mkl|blis|accelerate|atlas|armpl|flexiblas", blas)
  }
  gemm_cache$optimised
}

gemm_cache <- new.env(parent = emptyenv())

# With an option at "auto", R's BLAS (or LAPACK on it) takes dense work
# only when it is an optimised one and kitchen's SIMD kernels are
# unavailable or switched off.
blas_beats_kitchen <- function(call = rlang::caller_env()) {
  blas_is_optimised() && simd_used(call) == "scalar"
}

# Dense products (Z'Z in krr_fit(), the projection X W of rff features),
# under the option `kitchen.gemm`: "blas" for R's BLAS, "eigen" for
# kitchen's own code (its SIMD kernels, or Eigen when SIMD is off), "auto"
# for blas_beats_kitchen(). kitchen's AVX2/AVX-512 kernels (gram_simd.hpp,
# gemm_simd.hpp) beat an optimised BLAS on this project's machines (Z'Z
# with AVX-512: 166 against OpenBLAS 0.3.21's 89 GFlop/s on 2 threads,
# bench/results/gram.md).
products_on_blas <- function(call = rlang::caller_env()) {
  switch(option_choice("kitchen.gemm", c("auto", "blas", "eigen"), call),
         blas = TRUE, eigen = FALSE, auto = blas_beats_kitchen(call))
}

# A'A, symmetric and whole, through the same products: the Gram matrix of
# A's columns (A the weighted features for Z'WZ, or t(Z) for the rows' Z Z').
gram_of <- function(a, n_threads) {
  gram_symmetrize_cpp(gram_update_cpp(matrix(0, ncol(a), ncol(a)), a, products_on_blas(),
                                      n_threads, resolve_simd()))
}
