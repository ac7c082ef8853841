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

blas_is_optimised <- function() {
  blas <- tolower(extSoftVersion()[["BLAS"]])
  grepl("openblas|mkl|blis|accelerate|atlas|armpl|flexiblas", blas)
}
