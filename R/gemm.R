# Where dense products (random Fourier projections, later Z'Z) run: R's BLAS
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
