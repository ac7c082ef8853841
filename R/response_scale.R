# krr_fit() scores lambda candidates (GCV, CV) on the response divided by a
# power of two near its largest magnitude, and multiplies the solution back.
# The scores are homogeneous of degree 2 in y, so the choice cannot depend
# on the units of y; without this, y'y overflows for |y| near 1e154 (every
# score is Inf and the first candidate wins) and underflows to 0 for |y|
# near 1e-160. A power of two divides and multiplies exactly: a response
# already of order 1 gives the same bits as before.

# One scale for all response columns (so that their relative weights in a
# multi-response score are kept), 1 for class codes and zero responses.
response_scale <- function(y) {
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
