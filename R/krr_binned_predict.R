# Predictions of a fit on a random binning map straight from the bin
# columns of the rows: each row's score is the sum of the coefficients of
# its bins, O(n_grids) a row. The sparse feature matrix (a dgCMatrix with a
# column pointer per bin, millions of them) would cost O(number of bins)
# for every block, however few its rows. The coefficients are checked for
# finite values where they are used (validate_fit() leaves the O(number of
# bins) scan of all of them to print(), coef() and the other methods).
binned_scores <- function(object, x, backend, call = rlang::caller_env()) {
  map <- object$map
  cols <- rbin_columns(map, x, backend, call = call)
  out <- binned_scores_cpp(cols, object$coefficients, 1 / sqrt(map$n_grids), backend$n_threads)
  if (is.character(out)) {
    abort_arg(c("{.arg object} is not a valid {.cls kitchen_krr} fit (missing or malformed fields).",
                x = out), call = call)
  }
  out
}
