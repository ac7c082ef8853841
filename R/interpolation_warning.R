# A ridge fit whose effective degrees of freedom nearly equal the number of
# rows reproduces its training responses, noise included: its training
# error says nothing and its test error is usually far worse. This happens
# when lambda is given too small, or chosen among candidates that are all
# too small, with at least as many features as rows. krr_fit() warns then
# (the effective df is known when lambda was chosen from candidates, and
# computed for a given one when the features are nearly as many as rows). When
# K-fold CV chose it, the held-out rows were predicted best that way
# (Sonar's nearly separable classes: CV often chooses the smallest
# candidate, and those fits have the lowest test errors of
# bench/defaults-d-ratio.R), so the warning says so instead of advising CV.

interpolation_share <- 0.9

# `effective_df`: a given lambda's, which the path does not hold.
warn_if_interpolating <- function(fit, effective_df = NULL, call = rlang::caller_env()) {
  df <- chosen_df(fit)  # R/krr_methods.R
  if (is.na(df) && !is.null(effective_df)) df <- effective_df
  if (is.na(df) || df < interpolation_share * fit$n) return(invisible(fit))
  by_cv <- !is.null(fit$path$cv) && !is.null(fit$n_folds)
  advice <- if (by_cv) {
    "{fit$n_folds}-fold CV chose this lambda{if (fit$lambda == min(fit$path$lambda)) ', the smallest candidate' else ''}: the held-out rows were predicted best with this little penalty. Its training error is meaningless; judge the fit on new rows."
  } else {
    "Its training error is meaningless and its predictions may be poor: use a larger {.arg lambda}, {.code lambda = \"cv\"}, fewer features or more rows."
  }
  cli::cli_warn(c(
    "The fit nearly interpolates its {fit$n} training rows (effective degrees of freedom {format(df, digits = 3)}).",
    i = advice),
    call = call)
  invisible(fit)
}
