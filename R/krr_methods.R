# The methods R users expect of a fitted model, beyond predict(), print(),
# summary(), coef() and plot() (R/krr.R): fitted values and residuals (NA
# padded under na.exclude), nobs(), and for formula fits formula(),
# terms(), model.frame() and update().

#' Fitted values, residuals and other standard methods for kitchen fits
#'
#' A fit from [krr_fit()] on data in memory keeps its fitted values (one
#' more pass over the rows after the solve; no features are kept), so
#' `fitted()`, `residuals()` and `predict(fit)` need no data. Fits on
#' [chunked()] data keep none: use `predict(fit, data)`.
#'
#' For a classification fit, the fitted values are the one-vs-rest scores
#' (a matrix with a column per class) and the residuals are the +1 / -1
#' class codes minus those scores; with `loss = "logistic"`, the fitted
#' class probabilities and the 0 / 1 class indicators minus them. With `na.action = na.exclude` in the
#' formula method, rows dropped for NA come back as NA in their places.
#'
#' @param object A fit from [krr_fit()].
#' @param ... Not used (for `update()`: arguments of [krr_fit()] to change).
#' @return `fitted()` and `residuals()`: a vector (one numeric response) or
#'   a matrix. `nobs()`: the number of rows with a non-zero weight.
#'   `formula()`, `terms()`, `model.frame()`: those of a formula fit.
#'   `update()`: the fit again with the changed arguments (or the call, with
#'   `evaluate = FALSE`).
#' @name kitchen_krr-methods
#' @importFrom stats fitted residuals nobs formula terms model.frame update
#' @examples
#' fit <- krr_fit(mpg ~ ., mtcars, n_features = 100, seed = 1, n_threads = 2)
#' head(fitted(fit))
#' head(residuals(fit))
#' nobs(fit)
#' formula(fit)
#' smaller <- update(fit, . ~ . - qsec)
#' formula(smaller)
NULL

#' @rdname kitchen_krr-methods
#' @export
fitted.kitchen_krr <- function(object, ...) {
  validate_fit(object)
  stats::napredict(object$na.action, fitted_values(object))
}

#' @rdname kitchen_krr-methods
#' @export
residuals.kitchen_krr <- function(object, ...) {
  validate_fit(object)
  fitted <- fitted_values(object)
  observed <- object$y
  if (object$response$type == "class") {
    # 0 / 1 indicators against probabilities (logistic), else the +1 / -1 codes
    indicators <- 1 * outer(match(as.character(observed), object$response$levels),
                            seq_along(object$response$levels), "==")
    observed <- if (identical(object[["loss"]], "logistic")) indicators else 2 * indicators - 1
    dimnames(observed) <- dimnames(fitted)
  }
  stats::naresid(object$na.action, observed - fitted)
}

#' @rdname kitchen_krr-methods
#' @export
nobs.kitchen_krr <- function(object, ...) {
  if (is.null(object$weights)) object$n else sum(object$weights != 0)
}

#' @rdname kitchen_krr-methods
#' @param x A fit from [krr_fit()].
#' @export
formula.kitchen_krr <- function(x, ...) {
  formula_fit_only(x, "formula")
  stats::formula(x$terms)
}

#' @rdname kitchen_krr-methods
#' @export
terms.kitchen_krr <- function(x, ...) {
  formula_fit_only(x, "terms")
  x$terms
}

#' @rdname kitchen_krr-methods
#' @param formula A fit from [krr_fit()] (the name is the generic's).
#' @export
model.frame.kitchen_krr <- function(formula, ...) {
  formula_fit_only(formula, "model.frame")
  frame_call <- formula$call
  names(frame_call)[2L] <- "formula"
  frame_call <- frame_call[c(1L, match(c("formula", "data", "subset", "weights", "na.action", "offset"),
                                       names(frame_call), 0L))]
  frame_call$formula <- formula$terms
  frame_call$drop.unused.levels <- TRUE
  frame_call$xlev <- formula$xlevels
  frame_call[[1L]] <- quote(stats::model.frame)
  eval(frame_call, environment(formula$terms))
}

#' @rdname kitchen_krr-methods
#' @param formula. For `update()`: changes to the formula, as in
#'   [update.formula()] (`. ~ . - x3`); formula fits only.
#' @param evaluate For `update()`: `FALSE` returns the new call unevaluated.
#' @export
update.kitchen_krr <- function(object, formula., ..., evaluate = TRUE) {
  call <- object$call
  if (is.null(call)) abort_arg("{.arg object} has no call to update.")
  if (!missing(formula.)) {
    formula_fit_only(object, "update", "a new formula")
    call[[2L]] <- stats::update(stats::formula(object), formula.)
  }
  extras <- match.call(expand.dots = FALSE)$...
  for (name in names(extras)) call[[name]] <- extras[[name]]
  if (!evaluate) return(call)
  eval(call, parent.frame())
}

formula_fit_only <- function(fit, what, need = "a formula", call = rlang::caller_env()) {
  if (is.null(fit$terms)) {
    abort_arg("{.fn {what}} needs {need}: this fit was made from a matrix, not a formula.",
              call = call)
  }
}

# The fitted values kept by krr_fit(): a vector for one numeric response.
fitted_values <- function(object, call = rlang::caller_env()) {
  fitted <- object$fitted.values
  if (is.null(fitted)) {
    abort_arg(c("This fit keeps no fitted values: it was made from chunked data.",
                i = "Use {.code predict(fit, data)} to compute them chunk by chunk."), call = call)
  }
  if (object$response$type == "vector") stats::setNames(drop(fitted), rownames(fitted)) else fitted
}

# Sample weights: NULL, or one finite non-negative number per row, not all 0.
check_weights <- function(weights, n, arg = rlang::caller_arg(weights),
                          call = rlang::caller_env()) {
  if (is.null(weights)) return(NULL)
  force(arg)  # before `weights` is converted below
  if (!is.numeric(weights) || is.object(weights) || !is.null(dim(weights)) && length(dim(weights)) > 1 &&
      ncol(weights) != 1) {
    abort_arg("{.arg {arg}} must be a numeric vector of sample weights, not {.obj_type_friendly {weights}}.",
              call = call)
  }
  weights <- as.double(weights)
  if (length(weights) != n) {
    abort_arg("{.arg {arg}} must have one weight per row of {.arg x} ({n}), not {length(weights)}.",
              call = call)
  }
  check_finite(weights, arg = arg, call = call)
  if (any(weights < 0)) {
    bad <- which(weights < 0)[1]
    abort_arg(c("{.arg {arg}} must not be negative.", x = "Weight {bad} is {weights[bad]}."),
              call = call)
  }
  if (!any(weights > 0)) abort_arg("{.arg {arg}} must not all be zero.", call = call)
  weights
}

# plot() of a fit with one lambda: observed against fitted (regression), or
# the fitted scores by class (classification); chunked fits have neither.
plot_fitted <- function(fit, ...) {
  if (is.null(fit$fitted.values)) {
    abort_arg(c("This fit has a single {.arg lambda} and no fitted values (chunked data): there is nothing to plot.",
                i = "Fit with several lambda candidates to plot their scores."), call = rlang::caller_env())
  }
  fitted <- fitted_values(fit)
  title <- sprintf("kitchen fit, lambda = %s", format(fit$lambda, digits = 3))
  if (fit$response$type == "class") {
    truth <- factor(as.character(fit$y), levels = fit$response$levels)
    own <- fitted[cbind(seq_along(truth), as.integer(truth))]
    graphics::boxplot(own ~ truth, xlab = "observed class", ylab = "fitted score of the observed class",
                      main = title, ...)
    graphics::abline(h = 0, lty = 2)
    return(invisible(fit))
  }
  observed <- as.matrix(fit$y)
  graphics::plot(as.vector(as.matrix(fitted)), as.vector(observed), pch = 20,
                 xlab = "fitted", ylab = "observed", main = title, ...)
  graphics::abline(0, 1, lty = 2)
  invisible(fit)
}

# plot() with several bandwidths: the score against lambda for each one,
# the chosen (sigma, lambda) marked.
plot_bandwidth_paths <- function(fit, ...) {
  paths <- attr(fit$sigma_path, "paths")
  by_cv <- !is.null(paths$cv)
  score <- if (by_cv) paths$cv else paths$gcv
  sigmas <- unique(paths$sigma)
  colours <- grDevices::hcl.colors(length(sigmas), "Dark 3")
  graphics::plot(paths$lambda, score, log = "xy", type = "n", xlab = "lambda",
                 ylab = if (by_cv) "CV mean squared error" else "GCV score",
                 main = "Choice of sigma and lambda", ...)
  for (i in seq_along(sigmas)) {
    mine <- paths$sigma == sigmas[i]
    graphics::lines(paths$lambda[mine], score[mine], type = "b", pch = 20, col = colours[i])
  }
  graphics::abline(v = fit$lambda, lty = 2)
  graphics::legend("topleft", legend = sprintf("sigma = %s", format(sigmas, digits = 3)),
                   col = colours, lty = 1, pch = 20, bty = "n", cex = 0.8)
  invisible(fit)
}
