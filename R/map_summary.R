#' Summarise a feature map
#'
#' What a map does to each input column: how it is rescaled and clipped,
#' its bandwidth there and, for [rbin()] maps, the width of the bins and how
#' many bins each grid holds.
#'
#' @param object A feature map from [rff()], [fastfood()], [rbin()] or
#'   [nystrom()] (a fit's map is `fit$map`).
#' @param x A `summary.kitchen_map` object.
#' @param max_columns The most input columns `print()` lists; all are in
#'   `$columns`.
#' @param ... Not used.
#' @return An object of class `summary.kitchen_map`, a list with:
#'   \describe{
#'     \item{`title`, `fields`}{What `print(object)` shows, with the map's
#'       size in memory added.}
#'     \item{`columns`}{A data frame with one row per input column, named
#'       after the training data's columns (`x1`, `x2`, ... when they had
#'       none): `center` and `scale`, the rescaling `(x - center) / scale`
#'       applied before the map; `low` and `high`, the range new inputs are
#'       clipped to (in the input's units; `NA` when the map does not
#'       clip); `sigma`, the bandwidth in rescaled units, and `relevance`,
#'       `1 / sigma` (see [relevance()]); for rbin maps `bin_width`, the
#'       median width of a bin over the grids, in the input's units.}
#'     \item{`bins_per_grid`}{For rbin maps that keep bin tables, the
#'       number of occupied bins of each grid; otherwise `NULL`.}
#'   }
#' @seealso [relevance()]; `summary()` of a fit ([krr_fit()]).
#' @export
#' @examples
#' map <- rbin(iris[, 1:4], n_grids = 20, seed = 1)
#' s <- summary(map)
#' s
#' s$columns
summary.kitchen_map <- function(object, ...) {
  validate_map(object, deep = TRUE)
  description <- map_description(object)
  fields <- description$fields
  # rbin's print() shows the size already: bin tables can be large.
  if (!"size" %in% names(fields)) fields <- c(fields, size = object_size_label(object))
  bins <- if (inherits(object, "kitchen_rbin") && is.null(object$n_buckets)) object$n_bins
  if (!is.null(bins)) {
    fields <- c(fields, "bins per grid" = sprintf("%s to %s (median %s)",
      format_count(min(bins)), format_count(max(bins)),
      format_count(stats::median(bins))))
  }
  structure(list(title = description$title, fields = fields, columns = map_columns(object),
                 bins_per_grid = bins),
            class = "summary.kitchen_map")
}

#' @rdname summary.kitchen_map
#' @export
print.summary.kitchen_map <- function(x, max_columns = 20, ...) {
  check_count(max_columns)
  cat("<", x$title, ">\n", sep = "")
  print_map_fields(x$fields)
  columns <- x$columns
  cat("\nInput columns: rescaled as (x - center) / scale and clipped to [low, high]",
      if (all(is.na(columns$low))) " (no clipping)", ";\nsigma and relevance in rescaled units",
      if (!is.null(columns$bin_width)) ", bin width in input units", ":\n", sep = "")
  shown <- utils::head(columns, max_columns)
  print(format(shown, digits = 3), quote = FALSE)
  if (nrow(columns) > nrow(shown)) {
    cat(sprintf("... and %d more columns (all in `$columns`)\n", nrow(columns) - nrow(shown)))
  }
  invisible(x)
}

# One row per input column of a validated map: its rescaling, clipping
# range, bandwidth and (rbin) median bin width.
map_columns <- function(map) {
  d <- map$d
  sigma <- rep_len(map$kernel$sigma, d)
  # validate_map() has checked center and scale (length d; 0 and 1 for a
  # map built from a dimension).
  out <- data.frame(center = map$center, scale = map$scale,
                    low = map$clip$low %||% rep(NA_real_, d),
                    high = map$clip$high %||% rep(NA_real_, d),
                    sigma = sigma, relevance = 1 / sigma,
                    row.names = map$col_names %||% paste0("x", seq_len(d)))
  if (inherits(map, "kitchen_rbin")) {
    # pitch is d x n_grids in rescaled units; scale brings it back.
    out$bin_width <- map$scale * apply(map$pitch, 1, stats::median)
  }
  out
}
