#' SIMD instruction sets used by kitchen
#'
#' The compiled kernels of kitchen are built with R's portable compiler flags
#' and pick faster instruction sets (AVX2, AVX-512) at run time when the CPU
#' has them. The option `kitchen.simd`, or else the environment variable
#' `KITCHEN_SIMD`, caps the level used: one of `"auto"` (default, the best the
#' CPU supports), `"avx512"`, `"avx2"` or `"scalar"` (the portable code).
#' A cap above what the CPU supports falls back to what it supports. Results
#' are identical on every level, except the dense products (`Z'Z` in
#' [krr_fit()], the projections of [rff()] features), whose AVX2 and AVX-512
#' kernels (identical to each other, with fused multiply-adds) round
#' differently from the portable code, at the level of 1e-15 relative, and
#' the tridiagonal reduction behind `lambda = "gcv"` / `"cv"` in
#' [krr_fit()], which rounds differently on each level (backward stable on
#' all).
#'
#' @return A list with `cpu`, the best level this CPU supports, and `used`,
#'   the level kitchen uses under the current option or environment variable.
#' @export
#' @examples
#' kitchen_simd()
#' old <- options(kitchen.simd = "scalar")
#' kitchen_simd()
#' options(old)
kitchen_simd <- function() {
  list(cpu = simd_detect_cpp(), used = simd_used())
}

# Lowest first: a level implies the ones before it.
simd_levels <- function() c("scalar", "avx2", "avx512")

# The level kitchen's kernels run at: the cap, or less if the CPU has less.
simd_used <- function(call = rlang::caller_env()) {
  levels <- simd_levels()
  levels[[min(match(simd_detect_cpp(), levels), match(resolve_simd(call), levels))]]
}

# The requested cap by name, as the C++ side takes it ("scalar", "avx2",
# "avx512"; the glue caps it at what the CPU supports).
resolve_simd <- function(call = rlang::caller_env()) {
  value <- getOption("kitchen.simd")
  if (is.null(value)) {
    value <- env_value_cpp("KITCHEN_SIMD", "auto")  # Sys.getenv() costs a microsecond
    if (identical(value, "auto")) return("avx512")  # fast path: nothing set
    arg <- "KITCHEN_SIMD"
  } else {
    arg <- "options(kitchen.simd)"
  }
  choices <- c(simd_levels(), "auto")
  if (!is.character(value) || length(value) != 1L || !value %in% choices) {
    abort_arg("{.arg {arg}} must be one of {.val {choices}}, not {.val {value}}.",
              call = call)
  }
  if (value == "auto") "avx512" else value
}
