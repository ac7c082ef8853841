# Where dense products (random Fourier projections, Z'Z) run: R's BLAS
# when it is an optimised one, else the Eigen code compiled into kitchen,
# which beats the reference BLAS several times over. The option
# `kitchen.gemm` ("auto", "blas" or "eigen") overrides the choice.
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

# Z'Z in krr_fit(): kitchen's own AVX2/AVX-512 kernels (gram_simd.hpp) match
# or beat an optimised BLAS's dsyrk on this project's machines (AVX-512: 166
# against OpenBLAS 0.3.21's 89 GFlop/s on 2 threads, bench/results/gram.md),
# so with "auto" the BLAS takes Z'Z only on CPUs without AVX2.
gram_on_blas <- function(call = rlang::caller_env()) {
  if (!identical(getOption("kitchen.gemm", "auto"), "auto")) return(use_blas(call))
  blas_is_optimised() && kitchen_simd()$used == "scalar"
}
