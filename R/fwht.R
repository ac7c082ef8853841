#' Fast Walsh-Hadamard transform
#'
#' Computes `H %*% x` for the Walsh-Hadamard matrix `H` in Sylvester (natural)
#' order, defined by `H_1 = 1` and `H_2n = rbind(cbind(H_n, H_n),
#' cbind(H_n, -H_n))`, without forming `H`: O(n log n) operations per vector.
#' A matrix is transformed column by column, the columns spread over threads;
#' a column longer than 2^24 is transformed in pieces spread over threads, so
#' that one long vector uses them too and a long call stops promptly when
#' interrupted (the same result, bit for bit).
#'
#' The kernels use AVX-512 or AVX2 when the CPU has them (see
#' [kitchen_simd()]) and give bitwise identical results on every instruction
#' set and for every number of threads.
#'
#' @section Speed:
#' Each call also pays for its result: on a large matrix, R's garbage
#' collector and the operating system's first touch of the fresh memory can
#' cost more than the transform (both also make R's own `x + 0` slow).
#' Transform many columns per call rather than one at a time.
#' `bench/fwht.R` in kitchen's source repository measures each part; its
#' results are in `bench/results/fwht.md`.
#'
#' @param x A numeric vector, or a numeric matrix whose columns are
#'   transformed. Its length (number of rows for a matrix) must be a power of
#'   two. NA, NaN and infinite values are refused with an error. `x` itself is
#'   never modified.
#' @param normalize If `TRUE`, scale by `1 / sqrt(n)` so the transform is
#'   orthonormal (and its own inverse).
#' @inheritParams kitchen_threads
#' @return A double vector or matrix of the same shape as `x`, with the same
#'   attributes (names, dims and dimnames among them). Outputs beyond the largest double are `Inf`
#'   or `-Inf`; finite input never gives NaN.
#' @export
#' @examples
#' fwht(c(1, 0, 0, 0))
#' fwht(c(1, 2, 3, 4), normalize = TRUE)
#'
#' # Each column of a matrix is transformed; applying the transform twice
#' # multiplies by n.
#' x <- matrix(rnorm(8 * 3), 8, 3)
#' all.equal(fwht(fwht(x)), 8 * x)
#'
#' # The explicit Hadamard matrix gives the same answer.
#' hadamard <- function(n) if (n == 1) matrix(1) else {
#'   h <- hadamard(n / 2); rbind(cbind(h, h), cbind(h, -h))
#' }
#' all.equal(fwht(x), hadamard(8) %*% x)
fwht <- function(x, normalize = FALSE, n_threads = NULL) {
  # Small finite double input: checked and transformed in one call, NULL
  # when anything needs the general path below (src/small_calls.cpp; called
  # without its RcppExports wrapper, whose closure costs about 0.7 us).
  if (!is.null(out <- .Call(`_kitchen_fwht_small_cpp`, x, normalize, n_threads))) return(out)
  if (!(is.double(x) || is.integer(x)) || is.object(x) || length(dim(x)) > 2L) {
    abort_arg("{.arg x} must be a numeric vector or matrix, not {.obj_type_friendly {x}}.")
  }
  n <- if (is.matrix(x)) nrow(x) else length(x)
  if (n < 1 || log2(n) != round(log2(n))) {
    abort_arg(c("The length of each column of {.arg x} must be a power of two.",
                x = "Found length {format(n, scientific = FALSE)}."))
  }
  check_flag(normalize)
  n_threads <- resolve_threads(n_threads)
  if (is.integer(x)) storage.mode(x) <- "double"
  # The C++ side checks for NA/NaN/Inf while it copies x (no extra pass over
  # the data) and returns NULL if it finds one.
  out <- fwht_cpp(x, n, normalize, n_threads, resolve_simd())
  if (is.null(out)) abort_nonfinite(x)
  if (first_nonfinite_cpp(out) > 0) {
    # A partial sum overflowed, and Inf - Inf gave NaN. On x / n (exact: n
    # is a power of two) no partial sum can exceed max |x|; times n, only
    # the outputs that truly exceed the largest double become +-Inf.
    out <- fwht_cpp(x / n, n, normalize, n_threads, resolve_simd()) * n
  }
  out
}
