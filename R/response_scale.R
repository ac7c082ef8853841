# krr_fit() scores lambda candidates (GCV, CV) on the response divided by a
# power of two near its largest magnitude, and multiplies the solution back.
# The scores are homogeneous of degree 2 in y, so the choice cannot depend
# on the units of y; without this, y'y overflows for |y| near 1e154 (every
# score is Inf and the first candidate wins) and underflows to 0 for |y|
# near 1e-160. A power of two divides and multiplies exactly: a response
# already of order 1 gives the same bits as before.

# One scale for all response columns (so that their relative weights in a
# multi-response score are kept), 1 for class codes and zero responses
# (and for none: a chunk of no weight codes no classes).
response_scale <- function(y) {
  if (length(y) == 0) return(1)
  top <- max(abs(y))
  if (!(top > 0)) return(1)
  2^floor(log2(top))
}

# The search result of a fit on y / scale, for y itself.
unscale_search <- function(search, scale) {
  if (scale == 1) return(search)
  s <- search$solution
  s$coefficients <- s$coefficients * scale
  s$intercept <- s$intercept * scale
  s$training_rmse <- s$training_rmse * scale
  if (!is.null(s$fitted)) s$fitted <- s$fitted * scale
  if (!is.null(s$held_out_scores)) s$held_out_scores <- s$held_out_scores * scale
  for (score in intersect(c("gcv", "cv"), names(s$path))) s$path[[score]] <- s$path[[score]] * scale^2
  search$solution <- s
  if (!is.null(search$sigma_path)) {
    search$sigma_path$score <- search$sigma_path$score * scale^2
    paths <- attr(search$sigma_path, "paths")
    for (score in intersect(c("gcv", "cv"), names(paths))) paths[[score]] <- paths[[score]] * scale^2
    attr(search$sigma_path, "paths") <- paths
  }
  # fold-1 errors of rbin's per-column bandwidths and of the map's own
  if (!is.null(search$baseline_check)) search$baseline_check <- search$baseline_check * scale^2
  search
}

# A response far from zero against its spread (Unix times, prices with a
# large baseline) loses its centred sum of squares to cancellation: y'y -
# n ybar^2 of y + 1e8 kept no digit of the spread, so GCV and CV chose a
# lambda 2000 times too large and training RMSE printed 0. Such a column
# (|mean| over 64 standard deviations) is shifted by its weighted mean
# before the sums; ridge with an unpenalised intercept only moves its
# intercept by the shift. Other responses, class codes among them, are
# left as they are (a shift of 0), bit for bit.
response_shift <- function(y, weights = NULL) {
  w <- weights %||% rep(1, nrow(y))
  if (!any(w > 0)) return(rep(0, ncol(y)))  # a chunk of no weight
  mean <- colSums(w * y) / sum(w)
  spread <- sqrt(colSums(w * (y - rep(mean, each = nrow(y)))^2) / sum(w))
  ifelse(spread > 0 & abs(mean) > 64 * spread, mean, 0)
}

# y less its response_shift() (none for class codes), and the shift.
shifted_response <- function(y, weights, class) {
  shift <- if (class) 0 else response_shift(y, weights)
  if (any(shift != 0)) y <- y - rep(shift, each = nrow(y))
  list(y = y, shift = shift)
}

# The search result of a fit on y - shift (one number per response column,
# in the units of that fit's y), for y itself.
unshift_search <- function(search, shift) {
  if (!any(shift != 0)) return(search)
  s <- search$solution
  s$intercept <- s$intercept + shift
  if (!is.null(s$fitted)) s$fitted <- s$fitted + rep(shift, each = nrow(s$fitted))
  search$solution <- s
  search
}
