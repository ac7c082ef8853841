#' Random Fourier features
#'
#' Builds a random Fourier feature map (Rahimi and Recht, 2007): by Bochner's
#' theorem a shift-invariant kernel is the Fourier transform of a probability
#' law; drawing frequencies `w` from it gives features `z(x)` whose inner
#' products `z(x)'z(y)` estimate `k(x, y)` with error O(1 / sqrt(n_features)).
#'
#' Inputs are rescaled inside the map (the same rescaling is applied by
#' `predict()`): `"standard"` centres each column and divides it by its
#' standard deviation, `"minmax"` maps each column's training range to
#' `[-1, 1]`, `"none"` leaves the data alone. Constant columns are centred
#' and divided by the larger of 1 and their absolute value (a constant
#' timestamp of 1.7e18 would otherwise drown the other columns in rounding).
#' The rescaling is folded into the frequencies, so sparse input stays
#' sparse.
#'
#' When `sigma` is `NULL` and `x` is data, the bandwidth is the median of the
#' pairwise distances between up to 1000 randomly chosen (rescaled) rows:
#' Manhattan distances for the Laplacian kernel, Euclidean otherwise. When
#' more than half of those pairs are identical rows (indicator data, say),
#' the median is taken over the pairs of distinct rows; when all rows are
#' identical, the bandwidth is 1.
#'
#' @param x Training data (a numeric matrix, a numeric data frame or a
#'   `Matrix::dgCMatrix`; other sparse matrices of package Matrix, such as
#'   triplet, row-compressed or logical ones, are taken as the `dgCMatrix`
#'   they equal; rows are observations), chunked data ([chunked()]:
#'   the rescaling and clipping range from one pass over all chunks, as
#'   futures under a future plan; the default `sigma` from up to 1000 rows of
#'   chunk 1), or a single whole number, the input dimension `d`, when there
#'   is no data at hand (then `sigma` must be given and no rescaling is done).
#' @param n_features Number of output features (even for `"cos_sin"`).
#' @param kernel A kernel name (`"gaussian"`, `"laplacian"`, `"cauchy"`,
#'   `"matern"`) or a kernel object from [kernels].
#' @param sigma Bandwidth, or `NULL` to take it from `kernel` when that is an
#'   object, else from the data (see Details). A vector gives one bandwidth
#'   per input column, in the units of the rescaled inputs (see [kernels]),
#'   matched to the columns by name when it has names (`x1`, `x2`, ... for
#'   `x` without column names, as [relevance()] labels them), else by
#'   position; it is kept, in the columns' order, as
#'   `map$kernel$sigma`.
#' @param type `"cos_sin"`: `n_features / 2` frequencies, `z(x) = [cos(Wx),
#'   sin(Wx)] / sqrt(n_features / 2)`. `"cos_phase"`: `n_features`
#'   frequencies and random phases `b ~ U[0, 2 pi]`, `z(x) = sqrt(2 /
#'   n_features) cos(Wx + b)`. The first has lower variance.
#' @param scale Rescaling of the inputs: `"standard"`, `"minmax"` or
#'   `"none"`.
#' @param clip When `TRUE` (the default) and `x` is data, the map keeps
#'   each column's training range and clips new inputs to it before
#'   computing their features, so that a row far outside the training data
#'   (an outlier, a heavy tail) is treated like the most extreme training row
#'   rather than landing where the random features are arbitrary. Training
#'   rows are unchanged. Sparse columns keep 0 in their range. Ignored when
#'   `x` is a dimension.
#' @param seed `NULL` to draw from R's random stream (so [set.seed()] before
#'   the call reproduces the map), or a whole number used locally without
#'   disturbing the stream (`.Random.seed` and the generator kinds are
#'   restored; only under `RNGkind(normal.kind = "Box-Muller")` is the
#'   caller's next normal deviate lost, a cache outside `.Random.seed` that
#'   R clears on any `set.seed()`).
#' @param orthogonal `FALSE` for independent frequencies. `TRUE` for
#'   orthogonal random features (Yu et al. 2016): the frequencies come in
#'   blocks of `d` mutually orthogonal directions (the Q factor of a Gaussian
#'   `d x d` matrix, sign-corrected so that it is uniformly distributed), each
#'   scaled by an independent length from the kernel's radial law (chi with
#'   `d` degrees of freedom for the Gaussian kernel). Each frequency keeps
#'   its marginal law, so the estimate stays unbiased, and the orthogonality
#'   lowers its variance. Only radial kernels (`"gaussian"`, `"matern"`)
#'   have such a construction; per-column bandwidths apply to it as to
#'   independent frequencies.
#' @param ... Further kernel parameters when `kernel` is a name (`nu` for
#'   `"matern"`).
#' @return An object of class `c("kitchen_rff", "kitchen_map")`: a plain list
#'   holding the kernel, the input dimension, the rescaling, the frequencies
#'   (as a `d x m` projection already divided by `sigma` and the column
#'   scales) and phases. Use [predict()][predict.kitchen_rff] to compute
#'   features.
#' @references Rahimi, A. and Recht, B. (2007). Random Features for
#'   Large-Scale Kernel Machines. Advances in Neural Information Processing
#'   Systems 20.
#'
#'   Yu, F. X., Suresh, A. T., Choromanski, K., Holtmann-Rice, D. and Kumar, S.
#'   (2016). Orthogonal Random Features. Advances in Neural Information
#'   Processing Systems 29.
#' @seealso [predict.kitchen_rff()], [summary.kitchen_map()], [kernels], [kernel_matrix()].
#' @export
#' @examples
#' x <- matrix(rnorm(200 * 3), 200, 3)
#' map <- rff(x, n_features = 500, kernel = "gaussian", sigma = 2, seed = 1)
#' map
#' z <- predict(map, x[1:5, ], n_threads = 1)
#' # z %*% t(z) approximates the kernel matrix of the rescaled data
#' xs <- scale(x[1:5, ], center = map$center, scale = map$scale)
#' round(tcrossprod(z) - kernel_matrix(xs, kernel = map$kernel), 2)
rff <- function(x, n_features, kernel = "gaussian", sigma = NULL,
                type = c("cos_sin", "cos_phase"),
                scale = c("standard", "minmax", "none"), clip = TRUE, seed = NULL,
                orthogonal = FALSE, ...) {
  rlang::check_required(x)
  rlang::check_required(n_features)
  type <- match_choice(type, c("cos_sin", "cos_phase"))
  check_flag(orthogonal)
  scale <- match_choice(scale, c("standard", "minmax", "none"))
  check_feature_count(n_features, type)
  check_flag(clip)
  sigma_given <- !is.null(sigma) || !is.character(kernel)
  kernel <- as_kernel(kernel, sigma = sigma, ...)
  if (orthogonal) check_orthogonal_kernel(kernel, "orthogonal")

  m <- if (type == "cos_sin") n_features / 2 else n_features
  check_frequency_count(known_columns(x), m)  # before any per-column work
  with_seed(seed, {
    setup <- map_setup(x, scale, kernel, sigma_given)
    check_frequency_count(setup$d, m)  # chunked data: known now
    w <- if (orthogonal) orthogonal_spectral_sample(setup$kernel, setup$d, m) else
      spectral_sample(setup$kernel, setup$d, m)
    phases <- if (type == "cos_phase") stats::runif(m, 0, 2 * pi) else NULL
  })

  check_frequencies_finite(w, setup$kernel)
  projection <- w / (setup$kernel$sigma * setup$rescale$scale)
  if (!all(is.finite(projection))) {
    abort_arg(c("{.arg sigma} ({format(setup$kernel$sigma)}) times the column scales is too small: the frequencies overflow.",
                i = "Rescale {.arg x}, or use a larger {.arg sigma}."))
  }
  structure(list(
    kernel = setup$kernel, d = setup$d, n_features = as.integer(n_features), type = type,
    scaling = setup$scaling, center = setup$rescale$center, scale = setup$rescale$scale,
    col_names = setup$rescale$names, clip = if (clip) setup$range,
    projection = projection,
    phases = phases,
    orthogonal = orthogonal
  ), class = c("kitchen_rff", "kitchen_map"))
}

#' Frequencies of a random Fourier feature map
#'
#' The map's `d x m` frequency matrix, one column per frequency, divided by
#' `sigma`, oriented and scaled as [as.matrix.kitchen_fastfood()] gives a
#' Fastfood map's: the projections are `xs %*% as.matrix(map)` for the
#' rescaled data `xs = (x - center) / scale`. (The map stores them divided
#' by the column scales too, as `projection`, to apply to `x - center`.)
#'
#' @param x A map from [rff()].
#' @param ... Not used.
#' @return A `d x m` numeric matrix, `m = n_features / 2` for `"cos_sin"`
#'   and `n_features` for `"cos_phase"`, with the map's column names as row
#'   names.
#' @export
#' @examples
#' x <- matrix(rnorm(20 * 3), 20, 3)
#' map <- rff(x, n_features = 8, sigma = 1, seed = 1)
#' w <- as.matrix(map)
#' xs <- scale(x[1:2, ], center = map$center, scale = map$scale)
#' all.equal(predict(map, x[1:2, ]), cbind(cos(xs %*% w), sin(xs %*% w)) / 2,
#'           check.attributes = FALSE)
as.matrix.kitchen_rff <- function(x, ...) {
  validate_map(x, deep = TRUE)
  w <- x$projection * x$scale
  rownames(w) <- x$col_names
  w
}

# The frequencies (or Fastfood radii) drawn from the kernel's spectral law
# must be finite: a Matern kernel's law is a multivariate t with 2 nu degrees
# of freedom, whose draws overflow for a tiny nu.
check_frequencies_finite <- function(w, kernel, call = rlang::caller_env()) {
  if (all(is.finite(w))) return(invisible())
  if (kernel$name == "matern") {
    abort_arg(c("{.arg nu} ({format(kernel$nu)}) is too small: the Matern kernel's spectral law draws infinite frequencies.",
                i = "Use a larger {.arg nu} ({.code nu = 0.5} is the exponential kernel)."),
              call = call)
  }
  abort_arg("The {kernel$name} kernel's spectral law drew frequencies that are not finite.", call = call)
}

#' Features of new data from a random Fourier feature map
#'
#' @param object A map from [rff()].
#' @param newdata Data with the map's columns: a numeric matrix, a numeric
#'   data frame or a `Matrix::dgCMatrix`. When the map was built from data
#'   with column names, columns are matched by name.
#' @inheritParams kitchen_threads
#' @param ... Not used.
#' @return A numeric matrix with one row per row of `newdata` and
#'   `n_features` columns, whose row inner products approximate the kernel.
#' @details The product of the data by the frequencies runs on kitchen's
#'   multithreaded AVX2 or AVX-512 kernels when the CPU has them (see
#'   [kitchen_simd()]), with the cosines computed while each block of the
#'   result is in cache; otherwise on R's BLAS when it is an optimised one,
#'   else on Eigen. `options(kitchen.gemm = "blas")` forces R's BLAS.
#'
#'   A call on a few rows of a matrix takes a short path (one pass of checks
#'   and the arithmetic on one thread). In a long loop of such calls on
#'   Linux, much of the time can go to page faults: when R's garbage
#'   collector frees the earlier results, glibc returns the top of the heap
#'   to the system, and each new result of tens of kilobytes or more (8 KB
#'   per row at 1024 features) lands on fresh pages. Starting R with the
#'   environment variable `MALLOC_TRIM_THRESHOLD_=268435456` (glibc's own
#'   setting, for the whole R process) keeps that memory; `bench/results/latency.md` in kitchen's
#'   source repository measures both ways. It trades bulk work for small
#'   calls: setting it also turns off glibc's adaptive mmap threshold, so
#'   every large block is mapped afresh, and fits and predictions on many
#'   rows took 2 to 10 times longer with it on one machine (a 1e5-row
#'   `krr_fit()` 4.4-5.1 s without, 11.1-12.3 s with it). Set it for
#'   sessions of many small calls only.
#' @export
#' @examples
#' x <- matrix(c(0, 0, 1, 1), 2, byrow = TRUE)
#' map <- rff(2, n_features = 4000, sigma = 1, seed = 42)
#' z <- predict(map, x, n_threads = 1)
#' # The features' inner product approximates the kernel, exp(-1) here; the
#' # error shrinks like 1 / sqrt(n_features).
#' c(features = sum(z[1, ] * z[2, ]),
#'   kernel = kernel_matrix(x, kernel = kernel_gaussian(sigma = 1))[1, 2])
predict.kitchen_rff <- function(object, newdata, n_threads = NULL, ...) {
  if (...length()) warn_unused_dots(...)  # R/krr_predict.R
  # A few rows of a plain matrix: checked and computed in one call, NULL
  # when anything needs the general path below (src/small_calls.cpp; called
  # without its RcppExports wrapper, whose closure costs about 0.7 us).
  if (!missing(newdata) &&
      !is.null(out <- .Call(`_kitchen_rff_predict_small_cpp`, object, newdata, n_threads))) {
    return(out)
  }
  validate_map(object)
  newdata <- map_input(object, newdata, allow_empty = TRUE)
  rff_features(object, newdata, backend_settings(n_threads))
}

# Features of checked data (map_input()); the C++ side checks the map's
# sizes and that its numbers are finite.
rff_features <- function(map, x, backend, call = rlang::caller_env()) {
  out <- rff_map_features_cpp(x, map, backend$blas, backend$n_threads, backend$simd)
  if (is.character(out)) abort_invalid_map("object", "kitchen_rff", out, call = call)
  rownames(out) <- rownames(x)
  out
}

# The title and fields print() and summary() show (map_description()).
rff_description <- function(x) {
  list(title = "kitchen random Fourier features",
       fields = c(
         kernel = kernel_label(x$kernel),
         "input dimension" = x$d,
         features = sprintf("%d (%s%s)", x$n_features, x$type,
                            if (isTRUE(x$orthogonal)) ", orthogonal" else ""),
         scaling = x$scaling))
}

# Refuses d x m frequencies past max_dense_entries, blaming the larger
# factor (`rff(1e9, 10)`: `x`, a dimension); d NULL: not known yet.
check_frequency_count <- function(d, m, call = rlang::caller_env()) {
  if (is.null(d)) return(invisible())
  check_map_size(as.double(d) * m,
                 paste("The", size_pair(d, m), "frequencies (input columns x frequencies)"),
                 size_arg(d, m, "n_features"), call = call)
}
