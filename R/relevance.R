#' Relevance of each input column
#'
#' With one bandwidth per input column (from `krr_fit(sigma = "ard")`, or a
#' map built with a vector `sigma`), a column whose bandwidth is large
#' changes the kernel little: `1 / sigma_j` measures how much column `j`
#' matters. Bandwidths are in the units of the map's rescaled inputs (see
#' the `scale` argument of [rff()]), so relevances of columns rescaled the
#' same way compare directly.
#'
#' A factor enters a formula fit as several dummy columns (and a term such
#' as `poly(x, 2)` as several columns): `by = "term"` gives one relevance per
#' term of the formula, the largest of its columns' (a column the map
#' leaves out counts 0), so that with one bandwidth every term has the same,
#' whatever its number of levels.
#'
#' @param object A fit from [krr_fit()] or a feature map ([rff()],
#'   [fastfood()], [rbin()]).
#' @param by `"column"` (the default): one relevance per input column.
#'   `"term"`, for fits from a formula: one per term of the formula.
#' @param ... Not used.
#' @return A named numeric vector, `1 / sigma` for each input column, in the
#'   order of the columns (all equal for a single bandwidth). Names are the
#'   column names, or `x1`, `x2`, ... when the data had none. With `by =
#'   "term"`, one value per term, named by the terms, in the formula's
#'   order.
#' @seealso [krr_fit()]; `plot(fit, type = "relevance")` and `plot(map)` draw
#'   them sorted, as a bar chart of the `top` largest (30 by default, say
#'   `plot(map, top = 100)`; the title says when columns are left out), and
#'   `plot(fit, type = "relevance", by = "term")` those of the terms.
#' @export
#' @examples
#' set.seed(1)
#' x <- matrix(runif(300 * 3), 300, 3, dimnames = list(NULL, c("a", "b", "c")))
#' y <- sin(4 * x[, "a"]) + x[, "b"] + rnorm(300, sd = 0.1)
#' # bandwidths given, one per column
#' relevance(rff(x, 100, sigma = c(0.5, 1, 4), seed = 1))
#' # named bandwidths go to their columns, in any order
#' relevance(rff(x, 100, sigma = c(c = 4, a = 0.5, b = 1), seed = 1))
#' # or learned from the data (c does not enter y); one value per column, or
#' # per term of a formula: a factor's dummy columns together
#' d <- data.frame(x, g = factor(sample(c("p", "q", "r"), 300, TRUE)))
#' d$y <- y + (d$g == "q")
#' fit <- krr_fit(y ~ ., d, n_features = 100, sigma = "ard", seed = 1, n_threads = 1)
#' sort(relevance(fit), decreasing = TRUE)
#' relevance(fit, by = "term")
relevance <- function(object, ...) UseMethod("relevance")

#' @rdname relevance
#' @export
relevance.kitchen_krr <- function(object, by = c("column", "term"), ...) {
  if (...length()) warn_unused_dots(..., fn = "relevance")
  validate_fit(object)
  by <- match_choice(by, c("column", "term"))
  out <- relevance(object$map)
  if (is.null(object$map$col_names) && !is.null(object$col_names)) names(out) <- object$col_names
  if (by == "term") out <- term_relevance(object, out)
  out
}

# relevance(by = "term"): the columns' relevances gathered by the formula
# term each column comes from (fit$column_terms, R/krr_formula.R), the
# largest of each term's. (A root of their sum of squares made a factor of
# 10 levels 3 times as relevant as a number under one bandwidth.)
term_relevance <- function(fit, columns, call = rlang::caller_env()) {
  terms <- fit$column_terms
  if (is.null(terms)) {
    abort_arg(c("{.code by = \"term\"} needs a fit from a formula, whose terms group the columns.",
                i = if (is.null(fit$terms)) "This fit was given a matrix: its relevances are per column." else
                  "This fit was made by an older kitchen, which did not keep its columns' terms: refit it."),
              call = call)
  }
  values <- numeric(length(terms))
  values[match(names(columns), names(terms))] <- columns  # columns the map leaves out count 0
  labels <- unique(terms)
  stats::setNames(vapply(labels, function(t) max(values[terms == t]), 0), labels)
}

#' @rdname relevance
#' @export
relevance.kitchen_map <- function(object, ...) {
  if (...length()) warn_unused_dots(..., fn = "relevance")
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
plot_relevance <- function(fit, type, top = 30, by = "column", ...) {
  check_count(top, arg = "top")
  if (!identical(by, "column") && inherits(fit, "kitchen_map")) {
    abort_arg("{.arg by} is for fits from a formula; a map's relevances are per column.")
  }
  r <- sort(if (identical(by, "column")) relevance(fit) else relevance(fit, by = by),
            decreasing = TRUE)
  what <- if (identical(by, "term")) "terms" else "input columns"
  title <- if (length(r) > top) {
    sprintf("Relevance of the %s: the %d largest of %d", what, top, length(r))
  } else {
    sprintf("Relevance of the %s", what)
  }
  plot_with(graphics::barplot, list(rev(utils::head(r, top)), horiz = TRUE, las = 1,
                                    xlab = "relevance (1 / bandwidth)", main = title), ...)  # R/krr_methods.R
  invisible(fit)
}
