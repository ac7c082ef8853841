# Predictions of a fit on a random binning map straight from the bin
# columns of the rows: each row's score is the sum of the coefficients of
# its bins, O(n_grids) a row. The sparse feature matrix (a dgCMatrix with a
# column pointer per bin, millions of them) would cost O(number of bins)
# for every block, however few its rows.
binned_scores <- function(object, x, n_threads, call = rlang::caller_env()) {
  map <- object$map
  cols <- rbin_columns(map, x, n_threads, call = call)
  value <- 1 / sqrt(map$n_grids)
  scores <- vapply(seq_len(ncol(object$coefficients)), function(k) {
    out <- binned_times_cpp(cols, object$coefficients[, k], value, n_threads)
    if (is.character(out)) abort_invalid_map("object$map", "kitchen_rbin", out, call = call)
    out
  }, numeric(nrow(x)))
  matrix(scores, nrow(x))
}
