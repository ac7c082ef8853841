#' Random binning features
#'
#' Builds a random binning map (Rahimi and Recht, 2007, section 4): `n_grids`
#' randomly shifted grids of random pitch cut the input space into bins, and
#' a point's features say which bin it falls in on each grid. The inner
#' product `z(x)'z(y)` is the share of grids in which `x` and `y` share a
#' bin, an unbiased estimate of a separable kernel such as the Laplacian
#' kernel `exp(-||x - y||_1 / sigma)`. The features are sparse: exactly one
#' non-zero, `1 / sqrt(n_grids)`, per grid and row.
#'
#' For each grid and input dimension the pitch `delta` is drawn from
#' `p(delta) = delta k''(delta)` (for the Laplacian kernel, a Gamma law with
#' shape 2 and scale `sigma`) and the shift `u` uniformly on `[0, delta]`; a
#' rescaled value `v` falls in bin `ceiling((v - u) / delta)`, and the vector
#' of a row's bin numbers names its bin in that grid. Only kernels with such
#' a pitch law can be used: the Gaussian, Cauchy and Matern kernels have
#' none, and are refused.
#'
#' **Stratified grids (the default).** Drawn independently, the pitches of
#' a few dozen grids bunch by chance, leaving parts of the pitch law
#' uncovered. With `stratified = TRUE` each column's `n_grids` pitches fall
#' one in each of `n_grids` equally likely slices of the law (in random
#' order over the grids), and the shifts likewise. Each grid's pitch and
#' shift still follow the paper's law, independently across columns, so the
#' estimate stays unbiased, and its error is smaller: 4 to 23% lower
#' against the exact Laplacian kernel over five sizes
#' (`bench/results/rbin.md` in kitchen's source repository). `FALSE` draws them independently, as the paper does:
#' the maps earlier versions of kitchen drew from the same `seed`.
#'
#' **Occupied bins (the default).** As in the paper's implementation, only
#' bins that hold at least one row of `x` become columns: the map stores,
#' for each grid, a 64-bit key for each occupied bin (8 bytes a bin), and the
#' features have one column per occupied bin. A new point that falls in a
#' bin no training row occupied gets no feature in that grid (its row of
#' features then has fewer than `n_grids` non-zeros); `predict()` reports how
#' often that happens. Bins are identified by a 64-bit hash of their bin
#' numbers, so two distinct bins share a column with probability about
#' `2^-64`.
#'
#' **Hashed mode (`n_buckets`).** Each grid's bin keys are hashed into
#' `n_buckets` columns instead: the map stores no table, needs no data
#' (`x` may be the dimension) and every point has a feature in every grid.
#' Distinct bins that hash to the same bucket share a column, which adds
#' about `1 / n_buckets` to each kernel estimate; choose `n_buckets` well
#' above the number of occupied bins per grid.
#'
#' Inputs are rescaled as in [rff()] (`scale`), by default min-max, and
#' `sigma = NULL` takes the median Manhattan distance between up to 1000
#' rescaled rows: far wider than binning on many rows fits best, so
#' [krr_fit()] searches narrower ones for a map it builds by name from
#' 2,000 rows on (see "What the defaults do" there); for a map built here,
#' give `sigma`, or `sigma = "auto"` to [krr_fit()]. Building
#' the map and computing features run in C++ on the raw data, spread over
#' `n_threads` threads; the map is the same for any number of threads.
#'
#' @inheritParams rff
#' @param scale How each column is rescaled before binning: `"minmax"` (the
#'   default) maps its training range onto `[-1, 1]`, `"standard"` centres it
#'   and divides by its standard deviation, `"none"` leaves it. The pitches
#'   are drawn per column in these units, so the scaling sets how many bins
#'   a column spans: standardised, a 0/1 indicator set in 1% of the rows
#'   spans 10 units and outweighs the continuous columns; min-max, every
#'   column spans 2. On CoverType (44 indicator columns, 50 grids) the best
#'   test error over a grid of bandwidths was 4.03% standardised and 3.51%
#'   min-max (`bench/results/rbin.md`).
#' @param n_grids Number of random grids `P`, a whole number.
#' @param kernel A kernel name or object with a binning pitch law: only
#'   `"laplacian"` among kitchen's kernels.
#' @param ... Further kernel parameters when `kernel` is a name (the
#'   Laplacian kernel takes none).
#' @param n_buckets `NULL` for one column per occupied bin, or a whole number
#'   of hashed columns per grid.
#' @param stratified `TRUE` (the default) to draw each column's pitches and
#'   shifts over the grids in strata of their laws, `FALSE` to draw them
#'   independently (see Details).
#' @inheritParams kitchen_threads
#' @param x Training data (a numeric matrix, a numeric data frame or a
#'   `Matrix::dgCMatrix`), chunked data ([chunked()]: the bins occupied by
#'   the rows of every chunk, read in two passes, as futures under a future
#'   plan; the default `sigma` from up to 1000 rows of chunk 1), or, in
#'   hashed mode only, the input dimension.
#' @return An object of class `c("kitchen_rbin", "kitchen_map")`: a plain
#'   list holding the kernel, the rescaling, the pitches and shifts (`d x
#'   n_grids` matrices, in rescaled units) and, unless hashed, the keys of
#'   the occupied bins (`keys`, a raw vector) with their number per grid
#'   (`n_bins`). `n_features` is the number of feature columns.
#' @references Rahimi, A. and Recht, B. (2007). Random Features for
#'   Large-Scale Kernel Machines. Advances in Neural Information Processing
#'   Systems 20.
#' @seealso [predict.kitchen_rbin()], [summary.kitchen_map()], [krr_fit()], [kernel_laplacian()].
#' @export
#' @examples
#' x <- matrix(rnorm(500 * 3), 500, 3)
#' map <- rbin(x, n_grids = 200, sigma = 2, seed = 1, n_threads = 1)
#' map
#' z <- predict(map, x[1:4, ], n_threads = 1)
#' z[, 1:8]
#' # Share of grids where two rows share a bin, against the exact kernel
#' xs <- scale(x[1:4, ], center = map$center, scale = map$scale)
#' round(as.matrix(Matrix::tcrossprod(z)) - kernel_matrix(xs, kernel = map$kernel), 2)
#'
#' # Hashed mode needs no data
#' hashed <- rbin(3, n_grids = 50, sigma = 1, n_buckets = 1024, seed = 1)
#' dim(predict(hashed, x[1:4, ], n_threads = 1))
rbin <- function(x, n_grids, kernel = "laplacian", sigma = NULL,
                 scale = c("minmax", "standard", "none"), clip = TRUE, n_buckets = NULL, seed = NULL,
                 stratified = TRUE, n_threads = NULL, ...) {
  rlang::check_required(x)
  rlang::check_required(n_grids)
  scale <- match_choice(scale, c("minmax", "standard", "none"))
  check_count(n_grids)
  check_flag(clip)
  check_flag(stratified)
  if (!is.null(n_buckets)) {
    check_count(n_buckets)
    check_column_count(as.numeric(n_grids) * n_buckets, "{.arg n_grids} x {.arg n_buckets}")
  }
  backend <- backend_settings(n_threads)
  if (inherits(x, "kitchen_chunked")) {
    return(rbin_chunked(x, n_grids, kernel, sigma, scale, clip, n_buckets, seed, stratified,
                        backend, ...))
  }
  sigma_given <- !is.null(sigma) || !is.character(kernel)
  kernel <- as_kernel(kernel, sigma = sigma, ...)
  binning_pitch(kernel, 0)  # refuses kernels without a pitch law, before any work
  is_dimension <- is.numeric(x) && length(x) == 1L && is.null(dim(x))
  if (is_dimension && is.null(n_buckets)) {
    abort_arg(c("{.arg x} must be data: the map's columns are the bins occupied by the training rows.",
                i = "Give {.arg n_buckets} for a hashed map that needs no data."))
  }
  check_grid_count(known_columns(x), n_grids)  # before any per-column work
  if (!is_dimension) x <- as_data_matrix(x, allow_sparse = TRUE)

  with_seed(seed, {
    setup <- map_setup(x, scale, kernel, sigma_given)
    d <- setup$d
    grids <- binning_grids(setup$kernel, d, n_grids, stratified)
  })

  map <- list(
    kernel = setup$kernel, d = d, n_grids = as.integer(n_grids),
    n_buckets = if (!is.null(n_buckets)) as.integer(n_buckets),
    scaling = setup$scaling, center = setup$rescale$center, scale = setup$rescale$scale,
    col_names = setup$rescale$names, clip = if (clip) setup$range, pitch = grids$pitch,
    shift = grids$shift,
    keys = NULL, n_bins = NULL,
    n_features = if (!is.null(n_buckets)) as.integer(n_grids * n_buckets))
  check_bin_range(map, x, "x")
  if (is.null(n_buckets)) {
    built <- rbin_build_cpp(x, map$pitch, map$shift, map$center, map$scale, backend$n_threads,
                            backend$simd)
    if (is.character(built)) abort_arg(built)  # only when R's checks were bypassed
    check_column_count(sum(as.numeric(built$n_bins)), "The number of occupied bins")
    map$keys <- built$keys
    map$n_bins <- built$n_bins
    map$n_features <- as.integer(sum(as.numeric(built$n_bins)))
  }
  structure(map, class = c("kitchen_rbin", "kitchen_map"))
}

#' Features of new data from a random binning map
#'
#' @inheritParams predict.kitchen_rff
#' @param object A map from [rbin()].
#' @return A sparse `Matrix::dgCMatrix` with one row per row of `newdata`
#'   and `object$n_features` columns, holding `1 / sqrt(n_grids)` in the
#'   column of each row's bin on each grid. Rows that fall in bins no
#'   training row occupied have no entry for those grids; the attributes
#'   `unseen` (the number of such row-grid pairs) and `rows_with_unseen`
#'   (the number of rows with at least one) report it. Both are 0 in hashed
#'   mode.
#' @export
#' @examples
#' set.seed(1)
#' x <- matrix(runif(300 * 2), 300, 2)
#' # clip = FALSE: new rows are not moved into the training range
#' map <- rbin(x, n_grids = 20, sigma = 0.5, seed = 1, clip = FALSE, n_threads = 1)
#' z <- predict(map, matrix(c(0.5, 0.5, 5, 5), 2, byrow = TRUE), n_threads = 1)
#' Matrix::rowSums(z > 0)   # 20 and 0: the far point falls in unseen bins on every grid
#' attr(z, "rows_with_unseen")
predict.kitchen_rbin <- function(object, newdata, n_threads = NULL, ...) {
  if (...length()) warn_unused_dots(...)  # R/krr_predict.R
  validate_map(object)
  newdata <- map_input(object, newdata, allow_empty = TRUE)
  rbin_features(object, newdata, backend_settings(n_threads))
}

# Features of checked data (map_input()); the C++ side checks the map's
# sizes and the keys' order.
rbin_features <- function(map, x, backend, call = rlang::caller_env()) {
  n_grids <- map$n_grids
  check_column_count(as.numeric(nrow(x)) * n_grids,
                     "The number of non-zeros ({.arg newdata} rows x {.arg n_grids})",
                     hint = "Compute the features in blocks of rows.", call = call)
  cols <- rbin_columns(map, x, backend, call = call)
  first <- if (is.null(map$n_buckets)) c(0, cumsum(as.numeric(map$n_bins))) else
    seq(0, n_grids) * as.numeric(map$n_buckets)
  # The glue makes a dgCMatrix, whose class lives in Matrix. kitchen loads
  # Matrix only here: a session with Matrix loaded pays for it in every
  # full garbage collection (146 ms instead of 43 ms here, see NEWS).
  loadNamespace("Matrix")
  z <- rbin_sparse_cpp(cols, first, 1 / sqrt(n_grids), backend$n_threads)
  if (is.character(z)) abort_invalid_map("object", "kitchen_rbin", z, call = call)  # checks bypassed
  z@Dimnames <- list(rownames(x), NULL)
  missing <- rbin_unseen_cpp(cols)
  attr(z, "unseen") <- missing[[1]]
  attr(z, "rows_with_unseen") <- missing[[2]]
  z
}

# Column (0-based) of each row's bin per grid, n x n_grids; -1 for unseen
# bins. `x` is checked data (map_input()).
rbin_columns <- function(map, x, backend, arg = "newdata", call = rlang::caller_env()) {
  # With a clipping range, map_input() has clipped x to the training range,
  # which rbin() checked: no need to check again (a third of a row's time).
  if (is.null(map$clip)) check_bin_range(map, x, arg, call = call)
  hashed <- !is.null(map$n_buckets)
  cols <- rbin_columns_cpp(x, map$pitch, map$shift, map$center, map$scale,
                           if (hashed) raw(0) else map$keys,
                           if (hashed) integer(0) else map$n_bins,
                           if (hashed) map$n_buckets else 0, backend$n_threads, backend$simd)
  if (is.character(cols)) abort_invalid_map("object", "kitchen_rbin", cols, call = call)
  cols
}

# The title and fields print() and summary() show (map_description()).
rbin_description <- function(x) {
  columns <- if (is.null(x$n_buckets)) {
    sprintf("%s occupied bins (%s per grid on average)", format_count(x$n_features),
            format_count(round(x$n_features / x$n_grids)))
  } else {
    sprintf("%s (%s hashed buckets per grid)", format_count(x$n_features),
            format_count(x$n_buckets))
  }
  list(title = "kitchen random binning features",
       fields = c(
         kernel = kernel_label(x$kernel),
         "input dimension" = x$d,
         grids = x$n_grids,
         features = columns,
         scaling = x$scaling,
         size = object_size_label(x)))
}

# Sparse matrices index rows and columns with R integers. `what` may hold
# cli markup.
check_column_count <- function(count, what, hint = NULL, call = rlang::caller_env()) {
  if (count > .Machine$integer.max) {
    abort_arg(c(paste0(what, " must be at most ", .Machine$integer.max, ", not ",
                       format_count(count), "."),
                i = hint), call = call)
  }
}

# A value's bin number is clamped at 2^50 pitches from the origin
# (rbin_terms.hpp): data reaching past that, or a bin width (scale x pitch)
# too small to invert, would put distant points in one bin. Refused
# instead, with a factor 2 of margin. Bin numbers are monotone in the
# value, so each column's extremes tell.
check_bin_range <- function(map, x, arg, call = rlang::caller_env()) {
  if (is.numeric(x) && is.null(dim(x))) return(invisible())  # a dimension: no data
  range <- data_column_ranges(x)
  width <- map$scale * map$pitch  # as rbin_affine() in rbin.hpp, d x n_grids
  a <- ifelse(is.finite(width), 1 / width, (1 / map$scale) / map$pitch)
  b <- map$center * a + map$shift / map$pitch
  reach <- pmax(abs(range$low * a - b), abs(range$high * a - b))
  bad <- !(is.finite(a) & is.finite(b) & reach <= 2^49)
  if (any(bad)) {
    column <- row(bad)[bad][1]
    abort_arg(c("{.arg {arg}} is too large for the bins, or the bins too small for it: column {column} spans more than 2^49 bins.",
                i = "Distant points would share a bin. Rescale the data, or use a larger {.arg sigma}."),
              call = call)
  }
  invisible()
}

# list(low, high) of each column of dense data or a dgCMatrix (whose
# columns hold zeros unless full).
data_column_ranges <- function(x) {
  if (inherits(x, "dgCMatrix")) sparse_column_ranges(x) else column_ranges_cpp(x, resolve_threads(NULL))
}

# Refuses the pitches and shifts of n_grids grids over d columns past
# max_dense_entries, blaming the larger factor; d NULL: not known yet.
check_grid_count <- function(d, n_grids, call = rlang::caller_env()) {
  if (is.null(d)) return(invisible())
  check_map_size(2 * as.double(d) * n_grids,
                 paste("The pitches and shifts of", size_pair(d, n_grids), "(input columns x grids)"),
                 size_arg(d, n_grids, "n_grids"), call = call)
}
