# Clipping new inputs to the training range. A kernel machine's prediction
# far outside the training data is its intercept plus whatever the random
# features happen to give there; with heavy-tailed columns (a test row ten
# times larger than any training row) that is a blow-up, not an
# extrapolation. Maps built with `clip = TRUE` keep each column's training
# range and map_input() clips new rows to it, so that such a row is treated
# like the most extreme training row in that direction.

# The training range of each column, as map$clip. Sparse training data
# keep 0 in every column's range, so that clipping sparse new rows never
# fills them in; a map built on dense rows can have ranges without 0.
input_range <- function(x, values = data_column_ranges(x)) {
  if (inherits(x, "dgCMatrix")) {
    values <- list(low = pmin(values$low, 0), high = pmax(values$high, 0))
  }
  list(low = as.numeric(values$low), high = as.numeric(values$high))
}

# x with every column clipped to [low, high] (dense or dgCMatrix; x is
# checked data from map_input()). Rows already inside cost one pass.
clip_to_range <- function(x, range) {
  if (inherits(x, "dgCMatrix")) {
    column <- rep.int(seq_len(ncol(x)), diff(x@p))
    x@x <- pmin(pmax(x@x, range$low[column]), range$high[column])
    # The zeros not stored are inputs too: in a column whose range lacks 0
    # (a map built on dense rows) they are clipped as well, which fills the
    # column in; else a row gave other features as sparse than as dense.
    filled <- which(range$low > 0 | range$high < 0)
    if (length(filled)) {
      block <- as.matrix(x[, filled, drop = FALSE])
      x[, filled] <- pmin(pmax(block, rep(range$low[filled], each = nrow(x))),
                          rep(range$high[filled], each = nrow(x)))
    }
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

# The rows of x (unclipped) that lie outside `range` by more than its width
# in some column: rows the map's own rows did not cover, as when a chunked
# fit's map was built on its first chunk and the chunks are split by a
# column. Clipping them changes the data, not only extremes. 0 for maps
# without a range; sparse rows are not counted.
rows_far_outside <- function(x, range) {
  if (is.null(range) || inherits(x, "dgCMatrix") || !nrow(x)) return(0)
  width <- range$high - range$low
  far <- logical(nrow(x))
  for (j in seq_len(ncol(x))) {  # a column at a time: no n x d temporaries
    far <- far | x[, j] < range$low[j] - width[j] | x[, j] > range$high[j] + width[j]
  }
  sum(far)
}

# The warning of a chunked fit whose training rows were clipped that way:
# from 1% of the rows on.
warn_rows_far_outside <- function(far, rows, call = rlang::caller_env()) {
  if (is.null(far) || far < 0.01 * rows) return(invisible())
  cli::cli_warn(c("{format(100 * far / rows, digits = 2)}% of the training rows lie outside the range of the rows the map was built on (by more than its width) and were clipped to it.",
                  i = "Build the map on rows drawn from all chunks, or with {.code clip = FALSE} (see {.help kitchen::chunked})."),
                call = call)
}
