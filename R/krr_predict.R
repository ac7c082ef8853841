# predict() for krr_fit() fits: blocks of new rows through the map and the
# coefficients (chunked newdata: R/krr_chunked.R), as values, classes,
# probabilities or links.

#' Predictions from a random-feature ridge regression
#'
#' @param object A fit from [krr_fit()].
#' @param newdata New data with the training columns (matched by name when
#'   the training data had names); a data frame for formula fits. Or chunked
#'   data from [chunked()]: the predictions for all rows are returned in
#'   chunk order, one chunk read at a time. Left out, the fitted values of
#'   the training rows (padded with NA under `na.exclude`, see
#'   [fitted()][kitchen_krr-methods]).
#' @param type `"response"` for the fitted values (a vector for a single
#'   response, else a matrix with one column per response or class; for a
#'   `loss = "logistic"` fit, the class probabilities), `"class"` for the
#'   predicted class of a classification fit, `"prob"` for the class
#'   probabilities (an n x K matrix whose rows sum to 1, the classes as
#'   column names): those of the model for `loss = "logistic"` fits, and
#'   for least-squares fits a multinomial logistic calibration of the
#'   one-vs-rest scores (a small ridge penalty on its slopes, see [krr_fit()]). With more
#'   than 30 classes, or with 3 or more and fewer than 10 rows (of those it
#'   is fitted on) per coefficient of that model (`(K + 1)(K - 1)` of them), each class's link
#'   is on its own score alone, "vector scaling" (the full model's cost
#'   grows as the fifth power of the number of classes, and with few rows it
#'   is overconfident). It is fitted at `krr_fit()` time on each training row's
#'   score from the fold fit that did not see it (the CV folds, or 5
#'   interleaved folds): every least-squares classification fit but those
#'   of `solver = "falkon"` and, with dense maps, of chunked data without
#'   `lambda = "cv"`, and fits whose CV folds left some fold's fit without a
#'   row of a class (the error says which). `"class"` is the class with the
#'   largest probability, so the two always agree; a least-squares fit
#'   without probabilities gives the class with the largest score. (The
#'   largest score and the largest calibrated probability disagreed on 0.3%
#'   to 8% of test rows over 9 data sets, and the two were equally accurate
#'   within noise: `bench/results/class-from-prob.md`.)
#'   For logistic fits `"link"` (the log-odds of the second class for two classes, as
#'   [glm()]; the log-probabilities for more).
#' @inheritParams krr_fit
#' @param parallel For chunked `newdata` only: `"auto"` (the default)
#'   predicts each chunk in a future when a [future][future::plan] plan other
#'   than sequential is set, `"future"` always does, `"none"` never does; the
#'   predictions are the same, in chunk order (see [chunked()]).
#' @param na.action For formula fits: what to do with rows of `newdata`
#'   holding NA in the predictors. The default [na.pass()] predicts NA for
#'   them, in their places, as [predict.lm()] does; [na.omit()] drops them.
#'   Rows with infinite values (given, or made by the formula, as `log(0)`,
#'   or in the offset) predict NA in their places whatever `na.action`. (Matrix `newdata` must
#'   be free of NA and infinite values, and a warning says `na.action` is
#'   not used.)
#' @param verbose Show a progress bar while predicting many rows (or many
#'   chunks).
#' @param ... Not used (a warning names them).
#' @return For `type = "response"`, a numeric vector (one response) or a
#'   matrix with a column per response or class; for `type = "class"`, a
#'   factor with the training factor's levels (levels without training rows
#'   too, which the fit never predicts, so that predictions compare with the
#'   truth by `==`).
#' @seealso [krr_fit()], [chunked()] for predictions on data larger than
#'   memory.
#' @export
#' @examples
#' set.seed(1)
#' x <- matrix(runif(1000 * 2, -3, 3), 1000, 2)
#' y <- sin(x[, 1]) + cos(x[, 2]) + rnorm(1000, sd = 0.1)
#' fit <- krr_fit(x[1:800, ], y[1:800], rff(x[1:800, ], 200, sigma = 1, seed = 1),
#'                n_threads = 2)
#' yhat <- predict(fit, x[801:1000, ], n_threads = 2)
#' sqrt(mean((yhat - y[801:1000])^2))
#'
#' # Classes, and the fitted +1 / -1 scores behind them
#' label <- factor(ifelse(y > 0.5, "high", "low"))
#' classifier <- krr_fit(x[1:800, ], label[1:800],
#'                       rff(x[1:800, ], 200, sigma = 1, seed = 1), n_threads = 2)
#' table(predict(classifier, x[801:1000, ], type = "class", n_threads = 2),
#'       label[801:1000])
#' head(predict(classifier, x[801:1000, ], n_threads = 2), 3)
predict.kitchen_krr <- function(object, newdata, type = c("response", "class", "prob", "link"),
                                n_threads = NULL, block_size = 4096,
                                parallel = c("auto", "future", "none"),
                                na.action = stats::na.pass, verbose = FALSE, ...) {
  # A few rows of a plain matrix through an rff map: checked and computed in
  # one call, NULL when anything needs the general path below
  # (src/small_calls.cpp; called without its RcppExports wrapper, whose
  # closure costs about 0.7 us).
  if (...length()) {
    if (missing(newdata) && "new_data" %in% names(list(...))) {
      # else the training fits would come back, with only a warning
      abort_arg(c("{.fn predict} of a kitchen fit takes {.arg newdata}, not {.arg new_data}.",
                  i = "{.arg new_data} is the tidymodels spelling ({.fn augment} takes both)."))
    }
    warn_unused_dots(...)
  }
  if (!missing(newdata) && (missing(type) || identical(type, "response")) && missing(na.action) &&
      !is.null(out <- .Call(`_kitchen_krr_predict_small_cpp`, object, newdata, n_threads, block_size,
                            verbose))) {
    return(out)
  }
  validate_fit(object)
  if (!missing(na.action) && is.null(object$terms)) {
    cli::cli_warn("{.arg na.action} is not used: it is for fits from a formula (matrix {.arg newdata} must be free of NA).")
  }
  type <- match_choice(type, c("response", "class", "prob", "link"))
  logistic <- identical(object[["loss"]], "logistic")
  if (type %in% c("class", "prob") && object$response$type != "class") {
    abort_arg("{.code type = \"{type}\"} needs a classification fit (a factor {.arg y}); this one is a regression.")
  }
  calibrated <- type == "prob" && !logistic && !is.null(object$calibration)
  if (type == "link" && !logistic) {
    abort_arg(c("{.code type = \"link\"} needs a fit with {.code loss = \"logistic\"}.",
                i = "Least-squares scores of a classification fit are not probabilities."))
  }
  if (type == "prob" && !logistic && is.null(object$calibration)) {
    problem <- object[["uncalibrated"]]
    abort_arg(c("{.code type = \"prob\"} needs a classification fit with {.code loss = \"logistic\"}, or a least-squares classification fit whose scores were calibrated.",
                if (!is.null(problem)) c(x = "This fit's were not: {problem}.") else
                  c(i = "Least-squares fits calibrate their scores on held-out ones, except with {.code solver = \"falkon\"} and, with dense maps, on chunked data without {.code lambda = \"cv\"}.")))
  }
  check_flag(verbose)
  if (missing(newdata) || is.null(newdata)) {
    fitted <- fitted_values(object)
    out <- if (type == "class") class_of(object, fitted) else
      if (logistic) logistic_output(log(fitted), type) else
      if (calibrated) calibrated_probabilities(fitted, object$calibration, object$response$levels) else
      fitted
    return(stats::napredict(object$na.action, out))
  }
  if (inherits(newdata, "kitchen_chunked")) {
    return(predict_chunked(object, newdata, type, n_threads, block_size, parallel, verbose))
  }
  check_count(block_size)
  match_choice(parallel, c("auto", "future", "none"))  # checked here too, though unused
  predict_newdata(object, newdata, type, backend_settings(n_threads), block_size, na.action,
                  verbose)
}

# Arguments predict() does not take (lm()'s interval or se.fit) would
# otherwise pass unseen.
warn_unused_dots <- function(..., fn = "predict") {
  unused <- names(list(...)) %||% ""
  unused <- unused[nzchar(unused)]
  cli::cli_warn(c("Arguments in {.arg ...} are not used by {.fn {fn}} for kitchen fits and maps.",
                  i = if (length(unused)) "Ignored: {.arg {unused}}."))
}

# predict() on new rows in memory, for a checked fit, type and block size,
# on the call's backend (backend_settings()); errors name `call`.
predict_newdata <- function(object, newdata, type, backend, block_size, na.action, verbose,
                            call = rlang::caller_env()) {
  design <- NULL
  if (!is.null(object$terms)) {
    design <- formula_newdata(object, newdata, na.action, call = call)
    newdata <- design$x
    if (!is.null(design$complete)) newdata <- newdata[design$complete, , drop = FALSE]
  }
  newdata <- fit_input(object, newdata, call = call)
  out <- predict_rows(object, newdata, backend, block_size, verbose)
  if (!is.null(design$complete)) {
    # Rows with NA (kept by na.pass): NA predictions in their places.
    padded <- matrix(NA_real_, length(design$complete), ncol(out),
                     dimnames = list(rownames(design$x), colnames(out)))
    padded[design$complete, ] <- out
    out <- padded
  }
  if (!is.null(design$offset)) out <- out + design$offset
  if (type == "class") return(class_of(object, out))
  if (identical(object[["loss"]], "logistic")) return(logistic_output(out, type))
  if (type == "prob") return(calibrated_probabilities(out, object$calibration, object$response$levels))
  if (object$response$type == "vector") drop(out) else out
}

# Predictions of the fit on checked rows (map_input()), as a matrix with a
# column per response or class, block by block.
predict_rows <- function(object, x, backend, block_size, verbose, label = "Predicting") {
  n <- nrow(x)
  out <- matrix(0, n, ncol(object$coefficients), dimnames = list(rownames(x), object$response$names))
  bar <- if (verbose && n > block_size) cli::cli_progress_bar(label, total = n, clear = TRUE)
  z <- NULL  # each block's features, in the previous block's matrix (R/map.R)
  for (start in seq(1, max(n, 1), by = block_size)) {
    rows <- start:min(n, start + block_size - 1)
    if (n == 0) break
    out[rows, ] <- if (inherits(object$map, "kitchen_rbin")) {
      binned_scores(object, x[rows, , drop = FALSE], backend)  # R/krr_binned_predict.R
    } else {
      z <- block_features(object$map, x[rows, , drop = FALSE], backend, z)
      block_scores(z, object$coefficients, backend)
    }
    if (!is.null(bar)) cli::cli_progress_update(set = max(rows), id = bar)
  }
  out + rep(object$intercept, each = n)  # as sweep(), without its R-level cost
}

# z %*% coefficients. On the reference BLAS, whose dgemm runs on one thread,
# kitchen sums it on threads in the same order, so the same bits
# (src/ordered_product.cpp); it declines (NULL) where %*% would not call
# dgemm, and options(matprod =) other than "default" keep %*%. It pays from
# 2 columns (bench/results/ordered-product.md, a 4096 x 4096 block on 2
# threads: 2 columns 0.016 s against 0.023, 26 columns 0.047 against
# 0.35); with one, the reference dgemv is as fast.
block_scores <- function(z, coefficients, backend) {
  if (isTRUE(backend$reference_blas) && ncol(coefficients) >= 2 &&
      is.matrix(z) && is.double(z) && identical(getOption("matprod", "default"), "default")) {
    scores <- ordered_product_cpp(z, coefficients, backend$n_threads, backend$simd)
    if (!is.null(scores)) return(scores)
  }
  z %*% coefficients
}

# The class of each row (an ordered factor when the response was one): the
# largest probability where the fit has them, so that type = "class" and
# type = "prob" agree (a least-squares fit's largest score disagreed with its
# calibrated probabilities on 0.3-8% of test rows, bench/results/
# class-from-prob.md), else the largest score.
class_of <- function(object, scores) {
  scores <- as.matrix(scores)
  if (!identical(object[["loss"]], "logistic") && !is.null(object$calibration)) {
    scores <- calibrated_probabilities(scores, object$calibration, object$response$levels)
  }
  factor(object$response$levels[max.col(scores, ties.method = "first")],
         levels = predicted_levels(object), ordered = isTRUE(object$response$ordered))
}

# The levels of predicted classes: those of the training factor, levels
# without rows too (the fit never predicts them, but `pred == truth` and
# table() need the same levels as the truth), else the fit's classes. Fits
# saved before they were kept have the fit's classes.
predicted_levels <- function(object) {
  object$response$factor_levels %||% object$response$levels
}
