#' Relevance of each input column
#'
#' With one bandwidth per input column (from `krr_fit(sigma = "ard")`, or a
#' map built with a vector `sigma`), a column whose bandwidth is large
#' changes the kernel little: `1 / sigma_j` measures how much column `j`
#' matters. Bandwidths are in the units of the map's rescaled inputs (see
#' the `scale` argument of [rff()]), so relevances of columns rescaled the
#' same way compare directly.
#'
#' @param object A fit from [krr_fit()] or a feature map ([rff()],
#'   [fastfood()], [rbin()]).
#' @param ... Not used.
#' @return A named numeric vector, `1 / sigma` for each input column, in the
#'   order of the columns (all equal for a single bandwidth). Names are the
#'   column names, or `x1`, `x2`, ... when the data had none.
#' @seealso [krr_fit()]; `plot(fit, type = "relevance")` and `plot(map)` draw
#'   them sorted, as a bar chart of the `top` largest (30 by default, say
#'   `plot(map, top = 100)`; the title says when columns are left out).
#' @export
#' @examples
#' set.seed(1)
#' x <- matrix(runif(300 * 3), 300, 3, dimnames = list(NULL, c("a", "b", "c")))
#' y <- sin(4 * x[, "a"]) + x[, "b"] + rnorm(300, sd = 0.1)
#' # bandwidths learned from the data (c does not enter y)
#' fit <- krr_fit(x, y, rff(x, 100, seed = 1), sigma = "ard", n_threads = 1)
#' sort(relevance(fit), decreasing = TRUE)
#' # or given, one per column
#' relevance(rff(x, 100, sigma = c(0.5, 1, 4), seed = 1))
#' # named bandwidths go to their columns, in any order
#' relevance(rff(x, 100, sigma = c(c = 4, a = 0.5, b = 1), seed = 1))
relevance <- function(object, ...) UseMethod("relevance")

#' @rdname relevance
#' @export
relevance.kitchen_krr <- function(object, ...) {
  validate_fit(object)
  out <- relevance(object$map)
  if (is.null(object$map$col_names) && !is.null(object$col_names)) names(out) <- object$col_names
  out
}

#' @rdname relevance
#' @export
relevance.kitchen_map <- function(object, ...) {
  validate_map(object)
  out <- rep_len(1 / object$kernel$sigma, object$d)
  names(out) <- object$col_names %||% paste0("x", seq_len(object$d))
  out
}

#' @export
relevance.default <- function(object, ...) {
  abort_arg("{.arg object} must be a fit from {.fn krr_fit} or a feature map, not {.obj_type_friendly {object}}.")
}

# "a (1.9), b (1.2), ..." for print(): the `top` most relevant columns.
relevance_label <- function(fit, top = 5) {
  r <- sort(relevance(fit), decreasing = TRUE)
  shown <- utils::head(r, top)
  sprintf("%s%s (1 / sigma per column, most relevant first)",
          paste(sprintf("%s %s", names(shown), format(shown, digits = 3)), collapse = ", "),
          if (length(r) > top) sprintf(", ... %d more", length(r) - top) else "")
}

# plot() of a map: its columns' relevance, as plot(fit, type = "relevance").
#' @export
plot.kitchen_map <- function(x, ...) {
  validate_map(x)
  plot_relevance(x, ...)
}

# plot(fit, type = "relevance"): the relevances as a sorted bar chart, the
# `top` largest.
plot_relevance <- function(fit, type, top = 30, ...) {
  check_count(top, arg = "top")
  r <- sort(relevance(fit), decreasing = TRUE)
  title <- if (length(r) > top) {
    sprintf("Relevance of the input columns: the %d largest of %d", top, length(r))
  } else {
    "Relevance of the input columns"
  }
  plot_with(graphics::barplot, list(rev(utils::head(r, top)), horiz = TRUE, las = 1,
                                    xlab = "relevance (1 / bandwidth)", main = title), ...)  # R/krr_methods.R
  invisible(fit)
}
