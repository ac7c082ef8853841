# A ridge fit whose effective degrees of freedom nearly equal the number of
# rows reproduces its training responses, noise included: its training
# error says nothing and its test error is usually far worse. This happens
# when lambda is given too small, or chosen among candidates that are all
# too small, with at least as many features as rows. krr_fit() warns then
# (the effective df is known when lambda was chosen from candidates).

interpolation_share <- 0.9

warn_if_interpolating <- function(fit, call = rlang::caller_env()) {
  chosen <- fit$path$df[fit$path$lambda == fit$lambda]
  df <- if (length(chosen)) chosen[1] else NA_real_
  if (is.na(df) || df < interpolation_share * fit$n) return(invisible(fit))
  cli::cli_warn(c(
    "The fit nearly interpolates its {fit$n} training rows (effective degrees of freedom {format(df, digits = 3)}).",
    i = "Its training error is meaningless and its predictions may be poor: use a larger {.arg lambda}, {.code lambda = \"cv\"}, fewer features or more rows."),
    call = call)
  invisible(fit)
}
