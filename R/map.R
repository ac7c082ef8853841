# Pieces shared by the feature maps (rff, fastfood, rbin): input rescaling,
# the bandwidth heuristic, checking new data against the map, printing.

# Centre and scale for each input column, from the training data.
input_rescaling <- function(x, method, call = rlang::caller_env()) {
  d <- ncol(x)
  names <- colnames(x)
  if (method == "none") return(list(center = rep(0, d), scale = rep(1, d), names = names))
  if (method == "standard" && inherits(x, "dgCMatrix")) {
    # Moments, so that centring never makes the data dense.
    center <- Matrix::colMeans(x)
    n <- nrow(x)
    spread <- sqrt(pmax(Matrix::colMeans(x^2) - center^2, 0) * n / max(n - 1, 1))
    # a constant column's moments round to a tiny spread: known from its range
    values <- sparse_column_ranges(x)
    constant <- values$low == values$high
    center[constant] <- values$low[constant]
    spread[constant] <- 0
  } else if (method == "standard") {
    moments <- column_moments_cpp(x, resolve_threads(NULL))
    center <- moments$mean
    spread <- moments$sd
  } else {
    range <- if (inherits(x, "dgCMatrix")) sparse_column_ranges(x) else
      column_ranges_cpp(x, resolve_threads(NULL))
    low <- range$low
    high <- range$high
    center <- high / 2 + low / 2   # halves first: no overflow near the largest double
    spread <- high / 2 - low / 2
  }
  spread <- constant_column_scale(spread, center)
  tiny <- which(is.finite(spread) & !is.finite(1 / spread))
  if (length(tiny)) {
    abort_arg(c("{.arg x} has columns too small to rescale (1 / their spread overflows a double).",
                x = "Columns: {column_labels(tiny, names)}.", i = "Multiply them by a large constant first."),
              call = call)
  }
  if (!all(is.finite(spread)) || !all(is.finite(center))) {
    bad <- which(!is.finite(spread) | !is.finite(center))
    abort_arg(c("{.arg x} has columns too large to rescale (their spread overflows a double).",
                x = "Columns: {column_labels(bad, names)}.", i = "Divide them by a large constant first."),
              call = call)
  }
  list(center = as.numeric(center), scale = as.numeric(spread), names = names)
}

# Constant columns (no spread) are centred, and divided by the larger of 1
# and their size: any scale gives zero on the training rows, but an rff map
# folds the centring into its phases (x P - center P), where a constant of
# 1e18 (a timestamp, a batch number) scaled by 1 swamped every other
# column's part of the projection: all rows got the same features.
constant_column_scale <- function(spread, center) {
  constant <- !is.na(spread) & !(spread > 0)  # (NA: refused by the caller)
  spread[constant] <- pmax(1, abs(center[constant]))
  spread
}

# The smallest and largest value of each column of a dgCMatrix, its
# unstored zeros included, from one sort of the stored values (a column at
# a time through Matrix's `[` took about 0.7 ms a column: 67 s at 1e5).
sparse_column_ranges <- function(x) {
  d <- ncol(x)
  counts <- diff(x@p)
  low <- high <- numeric(d)
  stored <- which(counts > 0)
  if (length(stored)) {
    # Sorted within each column, the columns staying where @p says.
    sorted <- x@x[order(rep.int(seq_len(d), counts), x@x)]
    low[stored] <- sorted[x@p[stored] + 1]
    high[stored] <- sorted[x@p[stored + 1]]
  }
  sparse <- counts < nrow(x)  # an unstored zero in the column
  low[sparse] <- pmin(low[sparse], 0)
  high[sparse] <- pmax(high[sparse], 0)
  list(low = low, high = high)
}

# Median pairwise distance between up to 1000 random rescaled rows; the
# median over distinct rows when most pairs are identical (indicator data:
# the median would be 0), and 1 when all are (or there is one row).
median_distance_bandwidth <- function(x, rescale, kernel, max_rows = 1000) {
  rows <- if (nrow(x) > max_rows) sort(sample.int(nrow(x), max_rows)) else seq_len(nrow(x))
  xs <- as.matrix(x[rows, , drop = FALSE])
  xs <- sweep(sweep(xs, 2, rescale$center), 2, rescale$scale, "/")
  # dist()'s distances, on contiguous rows (src/pairwise_distances.cpp)
  manhattan <- kernel$name == "laplacian"
  distances <- if (nrow(xs) > 1) pairwise_distances_cpp(xs, manhattan, resolve_threads(NULL))
  sigma <- if (length(distances)) stats::median(distances) else 1
  if (sigma == 0 && any(distances > 0)) sigma <- stats::median(distances[distances > 0])
  if (!is.finite(sigma) || sigma <= 0) 1 else sigma
}

# newdata as the C++ side expects it for this map: checked, columns matched
# by name when the map has names, dense double or dgCMatrix. `checked`:
# newdata already came through as_data_matrix() (a fit's entry), so it is
# not scanned again. `allow_empty`: zero rows to predict are not an error.
map_input <- function(map, newdata, arg = rlang::caller_arg(newdata),
                      call = rlang::caller_env(), checked = FALSE, clip = TRUE,
                      allow_empty = FALSE) {
  # `arg` stays a promise until an error needs it (naming the caller's
  # expression costs more than checking one row), so `newdata` itself is
  # never reassigned here.
  x <- if (checked) newdata else
    as_data_matrix(used_columns(newdata, map$col_names, arg, call), allow_sparse = TRUE, arg = arg,
                   call = call, allow_empty = allow_empty)
  x <- columns_by_name(x, map$col_names, "map was built with", arg, call)
  if (ncol(x) != map$d) {
    abort_arg("{.arg {arg}} must have {map$d} column{?s} like the map's training data, not {ncol(x)}.",
              call = call)
  }
  if (clip && !is.null(map$clip)) x <- clip_to_range(x, map$clip)
  x
}

# x's columns `names`, in that order, when x and `names` both name columns
# (x as it is otherwise). `whose`: "map was built with", "model was fitted
# with", for the error when some are missing.
columns_by_name <- function(x, names, whose, arg, call) {
  given <- colnames(x)
  if (is.null(names) || is.null(given) || identical(given, names)) return(x)
  # x[, names] would take the first of two equal names.
  check_column_names(given[given %in% names], arg, call)
  missing <- setdiff(names, given)
  if (length(missing)) {
    abort_arg(c("{.arg {arg}} lacks columns the {whose}.", x = "Missing: {.val {missing}}."),
              call = call)
  }
  x[, names, drop = FALSE]
}

# A data frame's columns named `names` when it has them all, so that other
# columns (an ID, a date) are ignored whatever their type, as predict.lm()
# ignores them; anything else as it is.
used_columns <- function(data, names, arg, call) {
  if (!is.data.frame(data) || is.null(names) || !all(names %in% names(data))) return(data)
  check_column_names(names(data)[names(data) %in% names], arg, call)
  data[names]
}

# A chunk's rows as map_input() gives them (clipped), with the number that
# lay far outside the map's range before (rows_far_outside()).
chunk_map_input <- function(map, newdata) {
  x <- map_input(map, newdata, arg = "x", clip = FALSE)
  far <- rows_far_outside(x, map$clip)
  if (!is.null(map$clip)) x <- clip_to_range(x, map$clip)
  list(x = x, far_outside = far)
}

# Columns are matched by name: each name must say which column it is.
check_column_names <- function(names, arg, call) {
  # x[, ""] finds no column: an empty name cannot be matched either.
  bad <- names[is.na(names) | !nzchar(names) | duplicated(names)]
  if (length(bad)) {
    abort_arg(c("{.arg {arg}} must have distinct column names, without NA or empty ones, to match columns by name.",
                x = "Repeated, NA or empty: {.val {unique(bad)}}."), call = call)
  }
}

# newdata for a fit's map, as map_input() makes it. A map without names
# (built from a dimension) takes the columns by position, but a fit on
# named data matched them by name (chunks, to chunk 1's names): so does
# prediction, by the training names.
fit_input <- function(object, newdata, arg = rlang::caller_arg(newdata),
                      call = rlang::caller_env()) {
  # `newdata` is never reassigned: `arg` names the caller's expression.
  training <- object$col_names
  if (!is.null(object$map$col_names) || is.null(training)) {
    return(map_input(object$map, newdata, arg = arg, call = call, allow_empty = TRUE))
  }
  x <- as_data_matrix(used_columns(newdata, training, arg, call), allow_sparse = TRUE, arg = arg,
                      call = call, allow_empty = TRUE)
  map_input(object$map, columns_by_name(x, training, "model was fitted with", arg, call),
            arg = arg, call = call, checked = TRUE, allow_empty = TRUE)
}

# Refuses, with the memory it would need, a map whose numbers (or whose
# features) would pass max_dense_entries, as krr_fit() refuses a large Z'Z.
# `arg`: the argument to blame (see size_arg()).
check_map_size <- function(entries, what, arg, call = rlang::caller_env(),
                           hint = "Use fewer input columns, features or grids.") {
  if (entries > max_dense_entries) {
    abort_arg(c("{.arg {arg}} is too large: {what} would need {gigabytes(entries)} GB (more than 2^31 - 1 numbers).",
                i = hint), call = call)
  }
}

# The input columns of x when known before any work on it: a matrix's or
# data frame's columns, or x itself when it gives a dimension; NULL for
# chunked data (a dimension of 1e9 made two 8 GB vectors before the size
# of the map was checked).
known_columns <- function(x) {
  if (is.numeric(x) && length(x) == 1L && is.null(dim(x))) return(if (is.finite(x)) as.double(x))
  if (length(dim(x)) == 2L) as.double(dim(x)[[2]])
}

# Of a map's d x `count` numbers, the argument to blame when they are too
# many: `x` when its columns (d) are the larger factor (`rff(1e9, 10)`, a
# dimension given as `x`), else `count_arg`; with the two sizes, for the message.
size_arg <- function(d, count, count_arg) if (d > count) "x" else count_arg
size_pair <- function(d, count) paste(format_count(d), "x", format_count(count))

# A count with its thousands marked: "181,110", or "181.110" when numbers
# are written with a decimal comma (options(OutDec = ",")), where a comma
# would read as one and format() warns.
format_count <- function(x) {
  format(x, big.mark = if (identical(getOption("OutDec"), ",")) "." else ",", scientific = FALSE,
         trim = TRUE)
}

# A map whose class was edited to lose its kind: say so, instead of "no
# applicable method".
#' @export
predict.kitchen_map <- function(object, ...) validate_map(object)

# print() of any map: its title and fields (map_description()). A map
# whose class lost its kind fails validate_map() with an argument error.
#' @export
print.kitchen_map <- function(x, ...) {
  validate_map(x, deep = TRUE)
  description <- map_description(x)
  cat("<", description$title, ">\n", sep = "")
  print_map_fields(description$fields)
  invisible(x)
}

# The title and fields of a validated map, by its kind.
map_description <- function(map) {
  if (inherits(map, "kitchen_rff")) rff_description(map) else
    if (inherits(map, "kitchen_fastfood")) fastfood_description(map) else
      if (inherits(map, "kitchen_nystrom")) nystrom_description(map) else rbin_description(map)
}

# "4.7 Kb": an object's size in memory.
object_size_label <- function(x) {
  format(structure(utils::object.size(x), class = "object_size"), units = "auto")
}

# Features of checked data (map_input()) from a validated map, without
# predict()'s checks again.
map_features <- function(map, x, backend, call = rlang::caller_env()) {
  features <- if (inherits(map, "kitchen_rff")) rff_features else
    if (inherits(map, "kitchen_fastfood")) fastfood_features else
      if (inherits(map, "kitchen_nystrom")) nystrom_features else rbin_features
  features(map, x, backend, call = call)
}

# map_features() of one block of rows among many, written into `buffer` (the
# previous block's result, or NULL) when the map is rff or Fastfood and x
# dense: each fresh block-sized matrix meant fresh pages, whose first touch
# cost more than the features (predict() of 1e5 rows, D = 1024: 210,000 page
# faults). The same numbers as map_features(), without row names. Pass the
# result as the next block's buffer, and read it before then.
block_features <- function(map, x, backend, buffer = NULL, call = rlang::caller_env()) {
  rff <- inherits(map, "kitchen_rff")
  if (!(rff || inherits(map, "kitchen_fastfood")) || !is.matrix(x) || !is.double(x)) {
    return(map_features(map, x, backend, call = call))
  }
  if (is.null(buffer) || nrow(buffer) != nrow(x)) buffer <- matrix(0, nrow(x), map$n_features)
  problem <- if (rff) {
    rff_features_into_cpp(x, map, backend$blas, backend$n_threads, backend$simd, buffer)
  } else {
    fastfood_features_into_cpp(x, map, backend$n_threads, backend$simd, buffer)
  }
  if (is.character(problem)) abort_invalid_map("object", class(map)[1], problem, call = call)
  buffer
}

kernel_label <- function(kernel) {
  extra <- if (!is.null(kernel$nu)) sprintf(", nu = %s", format(kernel$nu)) else ""
  sigma <- kernel$sigma
  if (length(sigma) > 1L) {
    return(sprintf("%s (%d bandwidths, one per column, from %s to %s%s)", kernel$name,
                   length(sigma), format(min(sigma), digits = 3), format(max(sigma), digits = 3),
                   extra))
  }
  sprintf("%s (sigma = %s%s)", kernel$name, format(sigma, digits = 4), extra)
}

print_map_fields <- function(fields) {
  width <- max(nchar(names(fields)))
  # long values wrap to the console's width, under the values' column
  room <- max(20L, getOption("width", 80L) - width - 5L)
  indent <- strrep(" ", width + 5L)
  values <- vapply(fields, function(value) {
    paste(strwrap(value, width = room), collapse = paste0("\n", indent))
  }, "")
  cat(sprintf("  %s : %s\n", formatC(names(fields), width = -width), values), sep = "")
}

# What every map needs from `x` before drawing its random numbers: the input
# dimension, the column rescaling (none when `x` is a dimension) and the
# kernel with its bandwidth, from the median heuristic unless `sigma_given`.
# Call inside with_seed(): the heuristic samples rows. Chunked data: one pass
# over the chunks (R/map_setup_chunked.R).
map_setup <- function(x, scale, kernel, sigma_given, call = rlang::caller_env()) {
  if (inherits(x, "kitchen_chunked")) {
    return(chunked_map_setup(x, scale, kernel, sigma_given, backend_settings(NULL), call = call))
  }
  if (is.numeric(x) && length(x) == 1L && is.null(dim(x))) {
    check_count(x, arg = "x", call = call)
    if (!sigma_given) {
      abort_arg("{.arg sigma} must be given when {.arg x} is a dimension, not data.", call = call)
    }
    d <- as.integer(x)
    kernel$sigma <- bandwidth_for_columns(kernel$sigma, d, NULL, call = call)
    rescale <- list(center = rep(0, d), scale = rep(1, d), names = NULL)
    return(list(d = d, kernel = kernel, scaling = "none", rescale = rescale, range = NULL))
  }
  x <- as_data_matrix(x, allow_sparse = TRUE, arg = "x", call = call)
  check_column_names(colnames(x), "x", call)
  if (sigma_given) {
    kernel$sigma <- bandwidth_for_columns(kernel$sigma, ncol(x), colnames(x), call = call)
  }
  rescale <- input_rescaling(x, scale, call = call)
  if (!sigma_given) kernel$sigma <- median_distance_bandwidth(x, rescale, kernel)
  list(d = ncol(x), kernel = kernel, scaling = scale, rescale = rescale, range = input_range(x))
}

# n_features: a count, even for cos_sin features (cosine and sine pairs),
# small enough that the features of a block of 1024 rows fit in
# max_dense_entries (checked before any random number is drawn).
check_feature_count <- function(n_features, type, arg = "n_features", call = rlang::caller_env()) {
  check_count(n_features, arg = arg, call = call)
  check_map_size(1024 * as.double(n_features), "The features of a block of 1024 rows",
                 arg, call = call)
  if (type == "cos_sin" && n_features %% 2 != 0) {
    abort_arg("{.arg {arg}} must be even for {.code type = \"cos_sin\"}, not {n_features}.",
              call = call)
  }
}
