# The one rule that picks the best candidate from its scores: lambda by CV
# (krr_solve()), the bandwidth search (krr_bandwidth_search()), the binned
# and logistic paths, ARD's grids; GCV applies the same C++ function inside
# ridge_gcv_path_cpp() (kitchen/lowest_score.hpp). The lowest score, the
# first of equal ones, NaN skipped, as which.min(); integer(0) when every
# score is NaN.
best_candidate <- function(scores) {
  best <- lowest_score_cpp(as.double(scores))
  if (best == 0L) integer(0) else best
}
