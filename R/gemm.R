# The option `kitchen.gemm` ("auto", "blas" or "eigen"): with "auto", R's
# BLAS when it is an optimised one; "eigen" means kitchen's own code (its
# SIMD kernels, or Eigen when SIMD is off). See products_on_blas().
use_blas <- function(call = rlang::caller_env()) {
  choice <- getOption("kitchen.gemm", "auto")
  if (!is.character(choice) || length(choice) != 1L || !choice %in% c("auto", "blas", "eigen")) {
    abort_arg("{.arg options(kitchen.gemm)} must be one of {.val {c('auto', 'blas', 'eigen')}}, not {.val {choice}}.",
              call = call)
  }
  switch(choice, blas = TRUE, eigen = FALSE, auto = blas_is_optimised())
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

# Dense products (Z'Z in krr_fit(), the projection X W of rff features):
# kitchen's own AVX2/AVX-512 kernels (gram_simd.hpp, gemm_simd.hpp) beat an
# optimised BLAS on this project's machines (Z'Z with AVX-512: 166 against
# OpenBLAS 0.3.21's 89 GFlop/s on 2 threads, bench/results/gram.md), so with
# "auto" R's BLAS takes them only when SIMD is unavailable or switched off
# (Eigen otherwise).
products_on_blas <- function(call = rlang::caller_env()) {
  if (!identical(getOption("kitchen.gemm", "auto"), "auto")) return(use_blas(call))
  blas_is_optimised() && min(simd_detect_cpp(), resolve_simd(call)) == 0L
}
