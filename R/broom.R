# broom-style summaries of a krr_fit() through the generics package
# (Suggests): the methods are registered lazily by R when generics is
# loaded (S3method(generics::tidy, ...) in NAMESPACE), so kitchen loads
# without it.

#' Tidy summaries of a kitchen fit (broom style)
#'
#' Methods for the [generics][generics::tidy] functions `tidy()`, `glance()`
#' and `augment()`, as the broom package has them for other models. They
#' are available when the \pkg{generics} package (or broom, or tidymodels,
#' which load it) is installed and loaded.
#'
#' * `tidy(x)` gives the coefficients: one row per term (`"(Intercept)"`,
#'   then `"feature_1"`, ... for the random features, as in [coef()]), with
#'   a `response` column for fits with several responses or classes.
#'   `tidy(x, matrix = "lambda")` gives the candidates scored when lambda
#'   was chosen: `lambda`, the effective degrees of freedom `df`, the `gcv`
#'   score, the `cv` error with `lambda = "cv"`, and `chosen` marking the
#'   fit's own. With several bandwidths, one row per bandwidth `sigma` and
#'   lambda; by CV, with a column `screen` instead of `df`, `gcv` and `cv`,
#'   the held-out error that
#'   ranked the bandwidths (of CV fold 1, or of a smaller map on all folds:
#'   see `sigma` in the Details of [krr_fit()]), not the K-fold `cv` of
#'   `glance()`;
#'   the chosen bandwidth's full path is the fit's `path` element.
#' * `glance(x)` gives one row: the rows `n` (see [nobs()]), the number of
#'   random features `n_features`, the `map` and `kernel`, the bandwidth
#'   `sigma` (with per-column bandwidths their geometric mean, as in
#'   `tidy(matrix = "lambda")`; the columns' own are in [relevance()]),
#'   `lambda`, the effective degrees of freedom `df`, the `gcv` score and
#'   the `cv` error at that lambda (NA when not computed; for classes on
#'   an [rbin()] map, the misclassification rate), the
#'   training `rmse` (over all response or class columns; with weights, the
#'   weighted `sqrt(sum(w * r^2) / sum(w))`) and, for
#'   classification, the training `accuracy`, and for `loss = "logistic"`
#'   fits the training `log_loss` (NA otherwise); `logLik`, `AIC` and `BIC`
#'   as [logLik()] gives them (NA where it has none: least-squares classes,
#'   several responses, chunked data, no effective df).
#' * `augment(x)` adds to the training data (`data`, or for formula fits
#'   the model frame by default) the fitted values `.fitted` and residuals
#'   `.resid`; `augment(x, newdata = nd)` adds the predictions for `nd`
#'   (and residuals when `nd` holds the response of a formula fit). For
#'   classification, `.fitted` is the predicted class and `.score_<class>`
#'   the one-vs-rest scores behind it (not probabilities), or for
#'   `loss = "logistic"` fits `.prob_<class>` the class probabilities;
#'   there are no residuals. With several numeric responses the columns are
#'   `.fitted_<response>` and `.resid_<response>`.
#'
#' The results are tibbles when the \pkg{tibble} package is installed, data
#' frames otherwise.
#'
#' @param x A fit from [krr_fit()].
#' @param matrix For `tidy()`: `"coefficients"` or `"lambda"` (the
#'   candidate path).
#' @param data For `augment()`: the training data, one row per training row
#'   (or per row of the original data when a formula fit dropped rows with
#'   NA). By default the model frame of a formula fit; for fits on a matrix,
#'   only the new columns are returned.
#' @param newdata For `augment()`: new data to predict (as for
#'   [predict()][predict.kitchen_krr]); `NULL` for the training data.
#' @param ... For `augment()`: `new_data`, the tidymodels spelling of
#'   `newdata` (other arguments get a warning). Not used by `tidy()` and
#'   `glance()`.
#' @return A tibble (or data frame).
#' @name kitchen_krr-tidiers
#' @examples
#' if (requireNamespace("generics", quietly = TRUE)) {
#'   fit <- krr_fit(mpg ~ ., mtcars, n_features = 100, seed = 1, n_threads = 2)
#'   # inside if (): print() shows each value, not only the last
#'   print(generics::tidy(fit))
#'   print(head(generics::tidy(fit, matrix = "lambda")))
#'   print(generics::glance(fit))
#'   print(head(generics::augment(fit)))
#' }
NULL

#' @rdname kitchen_krr-tidiers
#' @exportS3Method generics::tidy
tidy.kitchen_krr <- function(x, matrix = c("coefficients", "lambda"), ...) {
  validate_fit(x, full = TRUE)
  matrix <- match_choice(matrix, c("coefficients", "lambda"))
  if (matrix == "lambda") return(tidy_frame(lambda_path(x)))
  coefs <- stats::coef(x)
  out <- data.frame(term = rep(rownames(coefs), ncol(coefs)), estimate = as.vector(coefs),
                    stringsAsFactors = FALSE)
  if (ncol(coefs) > 1) {
    names <- colnames(coefs) %||% sprintf("y%d", seq_len(ncol(coefs)))
    out <- data.frame(response = rep(names, each = nrow(coefs)), out, stringsAsFactors = FALSE)
  }
  tidy_frame(out)
}

# The scored candidates: one row per lambda (per bandwidth and lambda when
# several bandwidths were tried), the fit's own marked.
lambda_path <- function(fit) {
  paths <- attr(fit$sigma_path, "paths")
  if (!is.null(paths)) {
    out <- as.data.frame(paths)
    # by CV, a screen's scores (R/krr_bandwidth_search.R), not K-fold CV's
    names(out)[names(out) == "cv"] <- "screen"
    out$chosen <- out$sigma == bandwidth_level(fit$map$kernel$sigma) & out$lambda == fit$lambda
  } else {
    out <- fit$path
    out$chosen <- out$lambda == fit$lambda
  }
  rownames(out) <- NULL
  out
}

#' @rdname kitchen_krr-tidiers
#' @exportS3Method generics::glance
glance.kitchen_krr <- function(x, ...) {
  validate_fit(x, full = TRUE)
  chosen <- x$path[x$path$lambda == x$lambda, , drop = FALSE][1, ]
  classification <- x$response$type == "class"
  accuracy <- NA_real_
  if (classification && !is.null(x$fitted.values)) {
    accuracy <- training_accuracy(x)  # R/krr_methods.R
  }
  likelihood <- likelihood_summary(x)
  tidy_frame(data.frame(
    n = nobs(x), n_features = x$map$n_features, map = sub("^kitchen_", "", class(x$map)[1]),
    kernel = x$map$kernel$name, sigma = bandwidth_level(x$map$kernel$sigma), lambda = x$lambda,
    df = chosen$df, gcv = chosen$gcv, cv = chosen$cv %||% NA_real_,
    rmse = sqrt(mean(x$training_rmse^2)), accuracy = accuracy,
    log_loss = x$logistic$log_loss %||% NA_real_, logLik = likelihood[["logLik"]],
    AIC = likelihood[["AIC"]], BIC = likelihood[["BIC"]], stringsAsFactors = FALSE))
}

# logLik(), AIC() and BIC() of a fit, NA where logLik() refuses it (classes
# by least squares, several responses) or it keeps no fitted values (chunked).
likelihood_summary <- function(fit) {
  ll <- tryCatch(stats::logLik(fit), kitchen_error_argument = function(e) NULL)
  if (is.null(ll)) return(c(logLik = NA_real_, AIC = NA_real_, BIC = NA_real_))
  c(logLik = as.numeric(ll), AIC = stats::AIC(ll), BIC = stats::BIC(ll))
}

#' @rdname kitchen_krr-tidiers
#' @exportS3Method generics::augment
augment.kitchen_krr <- function(x, data = NULL, newdata = NULL, ...) {
  dots <- list(...)
  # tidymodels spells it new_data
  if (is.null(newdata) && !is.null(dots$new_data)) newdata <- dots$new_data
  dots$new_data <- NULL
  if (length(dots)) do.call(warn_unused_dots, c(dots, list(fn = "augment")))  # R/krr_predict.R
  validate_fit(x)
  if (!is.null(newdata)) {
    fitted <- as.matrix(predict(x, newdata))
    observed <- newdata_response(x, newdata)
    base <- as.data.frame(newdata)
    return(tidy_frame(cbind(base, augment_columns(x, fitted, observed, nrow(base)))))
  }
  fitted <- as.matrix(fitted_values(x))
  observed <- x$y
  if (is.null(data)) {
    base <- if (!is.null(x$terms)) training_frame(x, nrow(fitted)) else
      data.frame(row.names = seq_len(nrow(fitted)))
  } else {
    base <- as.data.frame(data)
    dropped <- x$na.action
    if (nrow(base) == nrow(fitted) + length(dropped) && length(dropped) > 0) {
      # The original data of a fit that dropped rows with NA: NA in their places.
      kept <- setdiff(seq_len(nrow(base)), dropped)
      fitted <- pad_rows(fitted, kept, nrow(base))
      observed <- pad_rows(as.matrix(observed), kept, nrow(base))
      if (x$response$type == "class") {
        observed <- factor(observed, levels = x$response$levels)
      } else if (x$response$type == "vector") observed <- drop(observed)
    } else if (nrow(base) != nrow(fitted)) {
      abort_arg("{.arg data} must have one row per training row ({nrow(fitted)}), not {nrow(base)}.")
    }
  }
  tidy_frame(cbind(base, augment_columns(x, fitted, observed, nrow(base))))
}

# The model frame of a formula fit, rebuilt from its call (as broom does
# for lm()); that fails when the call's data can no longer be found.
training_frame <- function(fit, n, call = rlang::caller_env()) {
  frame <- tryCatch(stats::model.frame(fit), error = function(e) NULL)
  if (is.null(frame) || nrow(frame) != n) {
    abort_arg(c("The training data of {.arg x} cannot be rebuilt from its call.",
                i = "Give them as {.arg data}."), call = call)
  }
  frame
}

# .fitted / .resid (or .fitted_<name>, .resid_<name>; for classes .fitted
# is the class and .score_<level> the scores) as a data frame.
augment_columns <- function(fit, fitted, observed, n) {
  out <- data.frame(row.names = seq_len(n))
  if (fit$response$type == "class") {
    out$.fitted <- class_of(fit, fitted)
    out$.fitted[!stats::complete.cases(fitted)] <- NA
    # A logistic fit's fitted values are probabilities; least squares', scores.
    kind <- if (identical(fit[["loss"]], "logistic")) ".prob_" else ".score_"
    for (j in seq_len(ncol(fitted))) out[[paste0(kind, fit$response$levels[j])]] <- fitted[, j]
    return(out)
  }
  single <- fit$response$type == "vector"
  names <- if (single) "" else paste0("_", fit$response$names %||% sprintf("y%d", seq_len(ncol(fitted))))
  observed <- if (!is.null(observed)) as.matrix(observed)
  for (j in seq_len(ncol(fitted))) {
    out[[paste0(".fitted", names[j])]] <- unname(fitted[, j])
    if (!is.null(observed)) out[[paste0(".resid", names[j])]] <- unname(observed[, j] - fitted[, j])
  }
  out
}

# The response in newdata of a formula fit, or NULL when absent (or a
# matrix fit, whose newdata has predictors only).
newdata_response <- function(fit, newdata) {
  if (is.null(fit$terms) || attr(fit$terms, "response") == 0L) return(NULL)
  lhs <- attr(fit$terms, "variables")[[2L]]
  tryCatch(eval(lhs, as.data.frame(newdata), environment(fit$terms)), error = function(e) NULL)
}

# n rows of `values` (a matrix, vector or factor) in the places `kept`
# (indices or a logical vector), NA in the others: augment()'s rows left out
# by na.action, and kernel_ridge_predict()'s rows with NA (R/parsnip.R).
pad_rows <- function(values, kept, n) {
  if (!is.matrix(values)) {
    out <- values[rep(NA_integer_, n)]  # keeps a factor's levels
    out[kept] <- values
    return(out)
  }
  out <- matrix(NA, n, ncol(values), dimnames = list(NULL, colnames(values)))
  storage.mode(out) <- storage.mode(values)
  out[kept, ] <- values
  out
}

# broom's tidiers return tibbles: one when tibble is installed.
tidy_frame <- function(df) {
  if (requireNamespace("tibble", quietly = TRUE)) tibble::as_tibble(df) else df
}
