# The methods R users expect of a fitted model, beyond predict()
# (R/krr_predict.R): print(), summary(), coef(), plot(), fitted values and
# residuals (NA padded under na.exclude), nobs(), and for formula fits
# formula(), terms(), model.frame(), model.matrix() and update().

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
#' class probabilities and the 0 / 1 class indicators minus them. Two
#' classes give two columns too, where [glm()] gives one vector: code
#' written for glm's `fitted(m) > 0.5` silently recycles a matrix, so take
#' `predict(fit, type = "prob")[, 2]` for the second class's probability
#' and `predict(fit, type = "class")` for the classes. With
#' `na.action = na.exclude` in the formula method, rows dropped for NA come
#' back as NA in their places.
#'
#' `summary()` of a classification fit ends with its confusion matrix
#' (weighted counts, rows the true class, columns `predict()`'s class),
#' also returned as `summary(fit)$confusion`: of the held-out rows when the
#' fit has class probabilities from cross-validated scores (each row
#' classified by the fold fit that did not see it; a little optimistic, as
#' the calibration was fitted on those scores), else of the training rows
#' (its attribute `rows` says which).
#'
#' @param object A fit from [krr_fit()].
#' @param ... Not used (for `update()`: arguments of [krr_fit()] to change).
#' @return `fitted()` and `residuals()`: a vector (one numeric response) or
#'   a matrix. `nobs()`: the number of rows with a non-zero weight.
#'   `deviance()`: the weighted residual sum of squares (summed over the
#'   columns of a matrix response or of the class codes), or for
#'   `loss = "logistic"` minus twice the weighted log-likelihood.
#'   `df.residual()`: `nobs()` less the effective degrees of freedom (the
#'   trace of the hat matrix, intercept included), NA where the fit did not
#'   compute them (a given lambda, [rbin()] maps, the logistic loss).
#'   `sigma()`: `sqrt(deviance / df.residual)`, for one numeric response.
#'   `logLik()` (and with it `AIC()` and `BIC()`): for one numeric response,
#'   the Gaussian log-likelihood at the maximum-likelihood variance, as
#'   [lm()]'s, with the effective degrees of freedom plus one (the
#'   variance); for `loss = "logistic"`, the weighted log-likelihood of the
#'   classes, whose degrees of freedom are not computed (NA, and so are AIC
#'   and BIC). The degrees of freedom are NA too where `df.residual()` is.
#'   These treat lambda as given, though CV or GCV chose it; least-squares
#'   classification has no likelihood and is refused.
#'   `variable.names()`: the predictors the map sees; `case.names()`: the
#'   names of the fitted rows.
#'   `formula()`, `terms()`, `model.frame()`: those of a formula fit;
#'   `model.matrix()`: its predictors as the map sees them (the design
#'   matrix with the fit's contrasts, without the intercept column: the fit
#'   has its own, unpenalised).
#'   `update()`: the fit again with the changed arguments (or the call, with
#'   `evaluate = FALSE`).
#' @name kitchen_krr-methods
#' @importFrom stats fitted residuals nobs formula terms model.frame model.matrix update
#' @importFrom stats deviance df.residual
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
  if (...length()) warn_unused_dots(..., fn = "fitted")  # R/krr_predict.R
  validate_fit(object)
  stats::napredict(object$na.action, fitted_values(object))
}

#' @rdname kitchen_krr-methods
#' @export
residuals.kitchen_krr <- function(object, ...) {
  # lm's `type = "pearson"` and the like: the residuals are the response ones
  if (...length()) warn_unused_dots(..., fn = "residuals")  # R/krr_predict.R
  validate_fit(object)
  stats::naresid(object$na.action, training_residuals(object))
}

# The residuals of the fitted rows (without na.exclude's padding).
training_residuals <- function(object, call = rlang::caller_env()) {
  fitted <- fitted_values(object, call)
  observed <- object$y
  if (object$response$type == "class") {
    # 0 / 1 indicators against probabilities (logistic), else the +1 / -1 codes
    indicators <- 1 * outer(match(as.character(observed), object$response$levels),
                            seq_along(object$response$levels), "==")
    observed <- if (identical(object[["loss"]], "logistic")) indicators else 2 * indicators - 1
    dimnames(observed) <- dimnames(fitted)
  }
  observed - fitted
}

#' @rdname kitchen_krr-methods
#' @export
deviance.kitchen_krr <- function(object, ...) {
  if (...length()) warn_unused_dots(..., fn = "deviance")
  validate_fit(object)
  w <- object$weights %||% 1
  if (identical(object[["loss"]], "logistic")) {
    # -2 log-likelihood: each row's weighted log-probability of its class
    fitted <- fitted_values(object)
    truth <- cbind(seq_len(nrow(fitted)), match(as.character(object$y), object$response$levels))
    return(-2 * sum(w * log(fitted[truth])))
  }
  sum(w * training_residuals(object)^2)
}

#' @rdname kitchen_krr-methods
#' @export
df.residual.kitchen_krr <- function(object, ...) {
  nobs(object) - chosen_df(object)
}

#' @rdname kitchen_krr-methods
#' @importFrom stats sigma
#' @export
sigma.kitchen_krr <- function(object, ...) {
  if (object$response$type != "vector" || identical(object[["loss"]], "logistic")) {
    abort_arg("{.fn sigma} is the residual standard deviation of a fit to one numeric response.")
  }
  # scaled by the largest residual, so that y * 1e-170 (whose squares
  # underflow) gives sigma * 1e-170, not 0
  r <- training_residuals(object)
  largest <- max(abs(r))
  if (!is.finite(largest) || largest == 0) return(sqrt(stats::deviance(object) / stats::df.residual(object)))
  largest * sqrt(sum((object$weights %||% 1) * (r / largest)^2) / stats::df.residual(object))
}

#' @rdname kitchen_krr-methods
#' @importFrom stats logLik
#' @export
logLik.kitchen_krr <- function(object, ...) {
  if (...length()) warn_unused_dots(..., fn = "logLik")
  validate_fit(object)
  df <- chosen_df(object)
  if (identical(object[["loss"]], "logistic")) {
    value <- -stats::deviance(object) / 2
    df <- NA_real_  # not computed (an intercept-only fit's path says 0: its intercepts count)
  } else {
    if (object$response$type != "vector") {
      abort_arg(c("{.fn logLik} is the Gaussian log-likelihood of a fit to one numeric response.",
                  i = if (object$response$type == "class") {
                    "Least-squares class scores have no likelihood; {.code loss = \"logistic\"} has one."
                  }))
    }
    # lm()'s: the variance at its maximum-likelihood value (weighted
    # residual sum of squares over the rows with non-zero weight), which
    # adds one degree of freedom
    residuals <- training_residuals(object)
    w <- object$weights %||% rep(1, length(residuals))
    kept <- w != 0
    n <- sum(kept)
    value <- 0.5 * (sum(log(w[kept])) -
                      n * (log(2 * pi) + 1 - log(n) + log(sum(w[kept] * residuals[kept]^2))))
    df <- df + 1
  }
  structure(value, df = df, nobs = nobs(object), class = "logLik")
}

# The fit's effective degrees of freedom, intercept included (the trace of
# its hat matrix): known for the lambda paths scored by GCV or CV on
# dense maps, NA otherwise (a given lambda, binning, the logistic loss).
chosen_df <- function(object) {
  chosen <- object$path$df[object$path$lambda == object$lambda]
  if (length(chosen)) chosen[1] else NA_real_
}

#' @rdname kitchen_krr-methods
#' @param full Not used (the generic's).
#' @importFrom stats variable.names case.names
#' @export
variable.names.kitchen_krr <- function(object, full = FALSE, ...) object$col_names

#' @rdname kitchen_krr-methods
#' @export
case.names.kitchen_krr <- function(object, full = FALSE, ...) {
  fitted <- fitted_values(object)
  names <- if (is.matrix(fitted)) rownames(fitted) else names(fitted)
  names %||% as.character(seq_len(NROW(fitted)))
}

#' @rdname kitchen_krr-methods
#' @export
nobs.kitchen_krr <- function(object, ...) {
  n <- if (!is.null(object$weights)) sum(object$weights != 0) else object$observed_rows %||% object$n
  # an integer as for lm(), also for chunked fits (whose row count is summed
  # as a double), unless it is too large for one
  if (n <= .Machine$integer.max) as.integer(n) else n
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
  if (!is.null(formula[["model"]])) return(formula[["model"]])
  # model = FALSE: rebuilt from the call, which must still find the data
  frame_call <- formula$call
  names(frame_call)[2L] <- "formula"
  frame_call <- frame_call[c(1L, match(c("formula", "data", "subset", "weights", "na.action", "offset"),
                                       names(frame_call), 0L))]
  frame_call$formula <- formula$terms
  frame_call$drop.unused.levels <- TRUE
  frame_call$xlev <- formula$xlevels
  frame_call[[1L]] <- quote(stats::model.frame)
  hint <- "The fit keeps no model frame ({.code model = FALSE}); refit with {.code model = TRUE}, the default, to keep it."
  frame <- tryCatch(eval(frame_call, environment(formula$terms)), error = function(cnd) {
    abort_arg(c("The model frame of {.arg formula} cannot be rebuilt from its call.", i = hint),
              parent = cnd)
  })
  # At least the response must be the one fitted (lm() would keep its frame).
  response <- stats::model.response(frame)
  if (is.factor(formula$y)) response <- as.character(response)
  fitted_y <- if (is.factor(formula$y)) as.character(formula$y) else formula$y
  if (NROW(response) != NROW(fitted_y) ||
      !isTRUE(all.equal(response, fitted_y, check.attributes = FALSE))) {
    abort_arg(c("The model frame of {.arg formula} cannot be rebuilt from its call: its data changed after the fit.",
                i = hint))
  }
  frame
}

#' @rdname kitchen_krr-methods
#' @export
model.matrix.kitchen_krr <- function(object, ...) {
  formula_fit_only(object, "model.matrix")
  # the columns the map saw: no intercept column, the fit's contrasts
  formula_design(object$terms, stats::model.frame(object), object$contrasts)
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
  # The call is stored as krr_fit(...) (as printed); evaluated as
  # kitchen::krr_fit(), it works where kitchen is loaded but not attached
  # (code that imports it, PSOCK and callr workers).
  if (identical(call[[1L]], as.name("krr_fit"))) call[[1L]] <- quote(kitchen::krr_fit)
  eval(call, parent.frame())
}

formula_fit_only <- function(fit, what, need = "a formula", call = rlang::caller_env()) {
  if (is.null(fit$terms)) {
    abort_arg("{.fn {what}} needs {need}: this fit was made from a matrix, not a formula.",
              call = call)
  }
}

# The share of training rows whose fitted class is their own (a
# classification fit that kept its fitted values), each row counting by its
# weight as in the fit (rows weighted 0 not at all; logistic fits count so).
training_accuracy <- function(fit) {
  correct <- as.character(class_of(fit, fit$fitted.values)) == as.character(fit$y)
  stats::weighted.mean(correct, fit$weights %||% rep(1, length(correct)))
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

# Sample weights: NULL, or one finite non-negative number per row, none
# above `weight_limit` and (`whole`: all the fit's weights, not one chunk's)
# not all 0, the largest not below 1 / weight_limit.
check_weights <- function(weights, n, arg = rlang::caller_arg(weights), whole = TRUE,
                          call = rlang::caller_env()) {
  if (is.null(weights)) return(NULL)
  force(arg)  # before `weights` is converted below
  # 1 / table(y)[y], the class weights of an imbalanced response
  if (inherits(weights, "table") && length(dim(weights)) == 1L) weights <- as.vector(weights)
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
  # (a chunk's may: chunks of no weight are rows of none, as in memory)
  if (whole && !any(weights > 0)) abort_arg("{.arg {arg}} must not all be zero.", call = call)
  largest <- max(weights)
  if (largest > weight_limit || whole && largest < 1 / weight_limit) {
    abort_arg(c("{.arg {arg}} must have their largest value between {1 / weight_limit} and {weight_limit}, not {format(largest)}.",
                i = "Beyond, sums of squares of the weighted features overflow or underflow double precision.",
                i = "Divide them by a constant: a {.arg lambda} chosen by {.val gcv} or {.val cv} does not depend on the weights' overall scale (a given one must be divided too)."),
              call = call)
  }
  weights
}

# The weights' overall scale must leave Z'WZ and its squares in double
# precision's range: the lambda choice was exact from 1e-100 to 1e140 and
# failed or moved at 1e-200 and 1e200.
weight_limit <- 1e100

# The rows with a non-zero weight when some weights are 0 (else NULL: all
# rows), and those rows of a matrix or weight vector.
weighted_rows <- function(weights) if (!is.null(weights) && any(weights == 0)) which(weights > 0)
rows_of <- function(x, rows) {
  if (is.null(rows) || is.null(x)) return(x)
  if (is.null(dim(x))) x[rows] else x[rows, , drop = FALSE]
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
    # logistic fits' fitted values are probabilities: chance is 1 / classes
    logistic <- identical(fit[["loss"]], "logistic")
    plot_with(graphics::boxplot, list(own ~ truth, xlab = "observed class",
                                      ylab = sprintf("fitted %s of the observed class",
                                                     if (logistic) "probability" else "score"),
                                      main = title), ...)
    graphics::abline(h = if (logistic) 1 / length(fit$response$levels) else 0, lty = 2)
    return(invisible(fit))
  }
  observed <- as.matrix(fit$y)
  plot_with(graphics::plot, list(as.vector(as.matrix(fitted)), as.vector(observed), pch = 20,
                                 xlab = "fitted", ylab = "observed", main = title), ...)
  graphics::abline(0, 1, lty = 2)
  invisible(fit)
}

# A graphics call with kitchen's arguments `defaults`, any of which the
# user's `...` (main, xlab, log, pch, ...) replaces, as in plot.lm().
plot_with <- function(fun, defaults, ...) do.call(fun, utils::modifyList(defaults, list(...)))

# The log axes of a plot of scores against lambda: both, unless a score is
# 0 (a misclassification rate on separable classes) or below.
score_axes <- function(score) if (all(score > 0, na.rm = TRUE)) "xy" else "x"

# plot() with several bandwidths: the score against lambda for each one,
# the chosen (sigma, lambda) marked.
plot_bandwidth_paths <- function(fit, ...) {
  paths <- attr(fit$sigma_path, "paths")
  by_cv <- !is.null(paths$cv)
  score <- if (by_cv) paths$cv else paths$gcv
  sigmas <- unique(paths$sigma)
  colours <- grDevices::hcl.colors(length(sigmas), "Dark 3")
  plot_with(graphics::plot, list(
    paths$lambda, score, log = score_axes(score), type = "n", xlab = "lambda",
    # least-squares candidates are screened on fold 1 (rbin and dense maps alike)
    ylab = if (identical(fit[["loss"]], "logistic")) "CV log-loss" else
      if (!is.null(paths$cv_mse)) "fold-1 held-out misclassification rate" else
      if (by_cv) "fold-1 held-out mean squared error" else "GCV score",
    main = "Choice of sigma and lambda"), ...)
  for (i in seq_along(sigmas)) {
    mine <- paths$sigma == sigmas[i]
    graphics::lines(paths$lambda[mine], score[mine], type = "b", pch = 20, col = colours[i])
  }
  graphics::abline(v = fit$lambda, lty = 2)
  graphics::legend("topleft", legend = sprintf("sigma = %s", format(sigmas, digits = 3)),
                   col = colours, lty = 1, pch = 20, bty = "n", cex = 0.8)
  invisible(fit)
}

#' @export
print.kitchen_krr <- function(x, ...) {
  validate_fit(x, full = TRUE)
  cat(if (identical(x[["loss"]], "logistic")) "<kitchen kernel logistic regression on random features>\n" else
    "<kitchen ridge regression on random features>\n")
  if (!is.null(x$call)) {
    # deparse() breaks lines after the cutoff, not before: room for the
    # prefix and the word that crosses it.
    cutoff <- max(20L, min(70L, getOption("width") - 20L))
    cat("Call: ", paste(deparse(x$call, width.cutoff = cutoff), collapse = "\n  "), "\n", sep = "")
  }
  task <- if (identical(x[["loss"]], "logistic")) {
    sprintf("classification, %d classes (%s)", length(x$response$levels),
            if (length(x$response$levels) == 2) "logistic" else "multinomial logistic")
  } else if (x$response$type == "class") {
    sprintf("classification, %d classes (one-vs-rest)", length(x$response$levels))
  } else sprintf("regression, %d response%s", ncol(x$coefficients),
                 if (ncol(x$coefficients) > 1) "s" else "")
  print_map_fields(c(
    task = task,
    features = sprintf("%s, %d features, %s", class(x$map)[1], x$map$n_features,
                       kernel_label(x$map$kernel)),
    rows = if (is.null(x$na.action)) sprintf("%.0f", x$n) else  # a double for chunked data
      sprintf("%.0f (%d dropped for missing values)", x$n, length(x$na.action)),
    weights = if (!is.null(x$weights)) sprintf("given, sum %s", format(sum(x$weights), digits = 4)) else
      if (isTRUE(x$response$weighted)) {
        sprintf("given with the chunks, sum %s", format(x$total_weight, digits = 4))
      },
    relevance = if (length(x$map$kernel$sigma) > 1L) relevance_label(x),
    lambda = format(x$lambda, digits = 4),
    "chosen by" = if (nrow(x$path) > 1) sprintf("%s over %d candidates%s",
      if (is.null(x$path$cv)) "GCV" else sprintf("%d-fold CV", x$n_folds), nrow(x$path),
      if (is.null(x$sigma_path)) "" else sprintf(" and %d bandwidths", nrow(x$sigma_path))) else
      # df 0 only when every feature is constant (intercept_only_fit())
      if (identical(x$path$df, 0)) "none needed: the features are constant (intercept only)" else
      "given"))
  invisible(x)
}

#' @export
summary.kitchen_krr <- function(object, ...) {
  validate_fit(object, full = TRUE)
  chosen <- object$path[object$path$lambda == object$lambda, , drop = FALSE][1, ]
  structure(list(fit = object, gcv = chosen$gcv, cv = chosen$cv, df = chosen$df,
                 cv_accuracy = chosen$cv_accuracy, cv_mse = chosen$cv_mse,
                 confusion = confusion_matrix(object)),
            class = "summary.kitchen_krr")
}

# A classifier's confusion matrix (weighted counts; rows the true class,
# columns predict()'s): of the held-out rows when the fit calibrated its
# probabilities on cross-validated scores (each row classified by the fold
# fit that did not see it), else of the training rows (attribute "rows"
# says which); NULL for regression and fits that keep no fitted values.
confusion_matrix <- function(fit) {
  if (fit$response$type != "class") return(NULL)
  levels <- fit$response$levels
  counts <- attr(fit$calibration, "held_out_confusion")
  rows <- "held-out"
  if (is.null(counts)) {
    if (is.null(fit$fitted.values) || is.null(fit$y)) return(NULL)
    rows <- "training"
    predicted <- match(as.character(class_of(fit, fit$fitted.values)), levels)
    counts <- confusion_counts(match(as.character(fit$y), levels), predicted,
                               fit$weights %||% rep(1, length(predicted)), length(levels))
  }
  dimnames(counts) <- list(true = levels, predicted = levels)
  structure(counts, rows = rows)
}

#' @export
print.summary.kitchen_krr <- function(x, ...) {
  print(x$fit)
  fit <- x$fit
  # Two classes coded +1 / -1 and -1 / +1 (or probabilities p and 1 - p)
  # have mirrored columns: one RMSE and one CG count (binned_solve() skips
  # the second) say it all.
  mirrored <- fit$response$type == "class" && length(fit$response$levels) == 2
  least_squares <- is.null(fit$logistic)
  # GCV and CV add the squared errors of all response (or class) columns
  columns <- ncol(fit$coefficients)
  summed <- if (columns > 1) sprintf(" (summed over the %d columns)", columns) else ""
  print_map_fields(c(
    # (not known for chunked logistic fits)
    "training RMSE" = if (!all(is.na(fit$training_rmse))) {
      rmse <- if (mirrored) fit$training_rmse[1] else fit$training_rmse
      if (length(rmse) > 8) {
        sprintf("%s to %s over the %d columns (mean %s)", format(min(rmse), digits = 4),
                format(max(rmse), digits = 4), length(rmse), format(mean(rmse), digits = 4))
      } else paste(format(rmse, digits = 4), collapse = ", ")
    },
    "training accuracy" = if (least_squares && fit$response$type == "class" &&
                                !is.null(fit$fitted.values)) {
      format(training_accuracy(fit), digits = 4)
    },
    # Rows that do not apply (no GCV or df for iterative and logistic fits,
    # no squared error for logistic ones) are left out, not shown as "-".
    "GCV score" = if (!is.na(x$gcv)) paste0(format(x$gcv, digits = 4), summed),
    # rbin classification paths score lambda by misclassification (krr_binned.R)
    "CV misclassification rate" = if (!is.null(x$cv_mse)) {
      paste(format(x$cv, digits = 4), "(the largest score's, which chose lambda)")
    },
    "CV mean squared error" = if (!is.null(x$cv) && least_squares) {
      paste0(format(x$cv_mse %||% x$cv, digits = 4), summed)
    },
    "effective df" = if (!is.na(x$df)) format(x$df, digits = 4),
    "log-loss, accuracy" = if (!is.null(fit$logistic)) sprintf("%s, %s (training)",
      format(fit$logistic$log_loss, digits = 4), format(fit$logistic$accuracy, digits = 4)),
    "CV log-loss, accuracy" = if (!is.null(fit$logistic) && !is.null(x$cv)) sprintf("%s, %s",
      format(x$cv, digits = 4), format(x$cv_accuracy %||% NA_real_, digits = 4)),
    "logistic solver" = if (!is.null(fit$logistic)) sprintf("%s, %s (relative change %s)",
      if (identical(fit$logistic$method, "Newton-CG")) {
        sprintf("Newton-CG, %d steps, %d CG iterations", fit$logistic$passes,
                fit$logistic$cg_iterations)
      } else {
        sprintf("L-BFGS, %d passes over the data%s", fit$logistic$passes,
                if (isTRUE(fit$logistic$dual)) " (dual path: in the span of the rows)" else "")
      },
      if (fit$logistic$converged) "converged" else "NOT converged",
      format(fit$logistic$change, digits = 2)),
    "held-out misclassification" = if (!is.null(attr(fit$calibration, "held_out_error"))) {
      sprintf("%s (the most probable class; each row scored by the fold fit at this lambda that did not see it)",
              format(attr(fit$calibration, "held_out_error"), digits = 4))
    },
    "class probabilities" = if (!is.null(fit$calibration)) "calibrated on cross-validated scores" else
      if (!is.null(fit[["uncalibrated"]])) paste("none:", fit[["uncalibrated"]]),
    "bandwidth search" = if (!is.null(fit$ard)) {
      paste0(sprintf("per column on %d rows, %d objective evaluations, %.2f s", fit$ard$rows,
                     fit$ard$iterations, fit$ard$time),
             # rbin on large data: the mean of searches on independent draws (R/ard.R)
             if (isTRUE(fit$ard$searches > 1)) {
               sprintf("; the mean of %d searches, each on its own rows", fit$ard$searches)
             },
             # Fits saved before the held-out check have no verdict. rbin's
             # bandwidths that pass it face the binned fit's check: its
             # verdict is the last word.
             if (!is.null(fit$ard$kept)) {
               sprintf("; %s (held-out error %s against %s for one bandwidth, on %d rows)",
                       if (!is.null(fit$ard$binned_check)) "better on the search's rows" else
                         if (fit$ard$kept) "kept" else "dropped",
                       format(fit$ard$check[["ard"]], digits = 3),
                       format(fit$ard$check[["isotropic"]], digits = 3), fit$ard$check_rows)
             },
             if (length(fit$ard$pruned)) sprintf("; %d columns left out (no help on those rows)",
                                                 length(fit$ard$pruned)),
             if (length(fit$ard$pruned_kept)) {
               sprintf("; %d columns the proxy left out kept (better on the binned fit's fold 1)",
                       length(fit$ard$pruned_kept))
             },
             one_hot_summary(fit$ard$groups),  # R/ard_groups.R
             if (!is.null(fit$ard$binned_check)) {
               sprintf("; binned fit, fold 1: error %s against %s for one bandwidth (%d rows): %s",
                       format(fit$ard$binned_check[["ard"]], digits = 3),
                       format(fit$ard$binned_check[["isotropic"]], digits = 3),
                       fit$ard$binned_check_rows,
                       if (fit$ard$kept) "kept" else
                         "dropped (not better by one standard error; one bandwidth for all columns)")
             },
             group_steps_summary(fit$ard$group_steps))
    },
    "seed" = if (!is.null(fit[["seed"]])) {
      sprintf("%d (of the map built by name; update(fit, seed = fit$seed) makes this fit again)",
              fit[["seed"]])
    },
    "solver" = if (!is.null(fit$logistic)) NULL else if (isTRUE(fit[["dual"]])) {
      "eigendecomposition of the rows' n x n Gram matrix ZZ' (dual path: fewer rows than features)"
    } else if (is.null(fit$solver)) "eigendecomposition / Cholesky of Z'Z" else
      sprintf("%s, %s iterations, relative residual %s (tol %g)%s",
              fit$solver$method %||% "conjugate gradients",
              paste(if (mirrored) fit$solver$iterations[1] else fit$solver$iterations, collapse = ", "),
              format(max(fit$solver$residual), digits = 2), fit$solver$tol,
              if (all(fit$solver$converged)) "" else ", NOT converged"),
    "time (s)" = if (is.null(fit$solver) && !inherits(fit$map, "kitchen_rbin")) {
      sprintf("features + %s %s, solve %s", if (isTRUE(fit[["dual"]])) "ZZ'" else "Z'Z",
              seconds(fit$time[[1]]), seconds(fit$time[[2]]))
    } else if (inherits(fit$map, "kitchen_nystrom")) {
      sprintf("solve %s (kernel values streamed in each iteration)", seconds(fit$time[[2]]))
    } else {
      sprintf("bin columns %s, solve %s", seconds(fit$time[[1]]), seconds(fit$time[[2]]))
    }))
  print_confusion(x$confusion)
  invisible(x)
}

# The confusion matrix under summary()'s fields, when it fits a console
# (at most 12 classes; else where to find it).
print_confusion <- function(confusion) {
  if (is.null(confusion)) return(invisible())
  what <- sprintf("Confusion matrix of the %s rows (rows: true class; columns: predicted)",
                  attr(confusion, "rows"))
  if (nrow(confusion) > 12) {
    cat(sprintf("\n%s: %d classes, in summary(fit)$confusion\n", what, nrow(confusion)))
    return(invisible())
  }
  cat("\n", what, ":\n", sep = "")
  counts <- unclass(confusion)
  attr(counts, "rows") <- NULL
  print(if (all(counts == round(counts))) round(counts) else signif(counts, 3))
  invisible()
}

# Seconds to two decimals, with the session's decimal mark (as the other
# numbers summary() prints).
seconds <- function(x) formatC(x, format = "f", digits = 2, decimal.mark = getOption("OutDec"))

#' @export
coef.kitchen_krr <- function(object, ...) {
  validate_fit(object, full = TRUE)
  out <- rbind(object$intercept, object$coefficients)
  rownames(out) <- c("(Intercept)", sprintf("feature_%d", seq_len(nrow(object$coefficients))))
  colnames(out) <- object$response$names
  out
}

#' @export
plot.kitchen_krr <- function(x, ...) {
  validate_fit(x, full = TRUE)
  type <- list(...)$type
  if (!is.null(type) && !identical(type, "relevance")) {
    # else graphics::plot() says type is "matched by multiple actual arguments"
    abort_arg("{.arg type} must be {.val relevance} (the per-column relevance) or left out, not {.val {type}}.")
  }
  if (identical(type, "relevance")) {
    plot_relevance(x, ...)  # R/relevance.R
  } else if (nrow(x$path) < 2) {
    plot_fitted(x, ...)
  } else if (!is.null(x$sigma_path) && !is.null(attr(x$sigma_path, "paths"))) {
    plot_bandwidth_paths(x, ...)
  } else {
    by_cv <- !is.null(x$path$cv)
    score <- if (by_cv) x$path$cv else x$path$gcv
    plot_with(graphics::plot, list(
      x$path$lambda, score, log = score_axes(score), type = "b", pch = 20, xlab = "lambda",
      ylab = if (identical(x[["loss"]], "logistic")) "CV log-loss" else
        if (!is.null(x$path$cv_mse)) "CV misclassification rate" else
        if (by_cv) "CV mean squared error" else "GCV score",
      main = sprintf("Choice of lambda (%s)", if (by_cv) "cross-validation" else "GCV")), ...)
    graphics::abline(v = x$lambda, lty = 2)
  }
  invisible(x)
}
