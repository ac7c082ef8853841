# Clipping new inputs to the training range. A kernel machine's prediction
# far outside the training data is its intercept plus whatever the random
# features happen to give there; with heavy-tailed columns (a test row ten
# times larger than any training row) that is a blow-up, not an
# extrapolation. Maps built with `clip = TRUE` keep each column's training
# range and map_input() clips new rows to it, so that such a row is treated
# like the most extreme training row in that direction.

# The training range of each column, as map$clip. Sparse data keep their
# zeros unclipped (the range then includes 0), so clipping never fills in
# a sparse matrix.
input_range <- function(x) {
  if (inherits(x, "dgCMatrix")) {
    low <- pmin(apply_columns(x, min), 0)
    high <- pmax(apply_columns(x, max), 0)
  } else {
    range <- column_ranges_cpp(x, resolve_threads(NULL))
    low <- range$low
    high <- range$high
  }
  list(low = as.numeric(low), high = as.numeric(high))
}

# x with every column clipped to [low, high] (dense or dgCMatrix; x is
# checked data from map_input()). Rows already inside cost one pass.
clip_to_range <- function(x, range) {
  if (inherits(x, "dgCMatrix")) {
    column <- rep.int(seq_len(ncol(x)), diff(x@p))
    x@x <- pmin(pmax(x@x, range$low[column]), range$high[column])
    return(x)
  }
  clip_columns_cpp(x, range$low, range$high)
}

# A map's `clip` field: NULL, or the range of its d columns.
clip_problem <- function(clip, d) {
  if (is.null(clip)) return(NULL)
  if (!is.list(clip) || !is_doubles(clip$low, d) || !is_doubles(clip$high, d) ||
      anyNA(clip$low) || anyNA(clip$high) || any(clip$low > clip$high)) {
    return(paste0("{.field clip} must be NULL or the training range of the ", d,
                  " columns ({.field low} <= {.field high})."))
  }
  NULL
}
