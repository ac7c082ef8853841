# kernel_ridge(): krr_fit() as a parsnip model (engine "kitchen"), for
# tidymodels workflows and tuning. parsnip and dials are Suggests: the model
# is registered in parsnip's model environment when parsnip's namespace
# loads (R/zzz.R), or on the first call of kernel_ridge().

#' Kernel ridge regression on random features, as a parsnip model
#'
#' `kernel_ridge()` specifies a [krr_fit()] model for the tidymodels
#' packages: fit it with `parsnip::fit()`, put it in a workflow, tune its
#' arguments with \pkg{tune}. The engine is `"kitchen"`; the modes are
#' `"regression"` and `"classification"`. Needs the \pkg{parsnip} package.
#'
#' The arguments follow parsnip's conventions, translated for [krr_fit()]
#' by `kernel_ridge_fit()`:
#' * `penalty` is per observation: the fit minimises the mean squared error
#'   plus `penalty * ||beta||^2`, so `krr_fit()`'s `lambda` is `penalty`
#'   times the number of rows (with case weights, times their sum), and the
#'   same `penalty` suits any data size. `NULL` (the default) lets
#'   `krr_fit()` choose lambda (by 5-fold CV, its default).
#' * `rbf_sigma` is the inverse kernel width as in `parsnip::svm_rbf()`
#'   (kernlab): `k(x, y) = exp(-rbf_sigma ||x - y||^2)` on the standardised
#'   predictors, so the map's bandwidth is `1 / sqrt(2 rbf_sigma)` (and its
#'   `scale` `"standard"` unless given; an engine `sigma` as well is an
#'   error). `NULL` leaves the map to
#'   [krr_fit()]'s defaults: minmax scaling and a bandwidth chosen on a
#'   subsample of the training rows (see "What the defaults do" there).
#' * `num_features`: the number of random features (default 1000), rounded
#'   up to an even number (cosine and sine pairs).
#' * `map`: `"rff"` ([rff()]) or `"fastfood"` ([fastfood()]).
#'
#' Engine arguments given to `parsnip::set_engine()` go to [krr_fit()] (for
#' example `n_threads`, `loss = "logistic"` for classification,
#' `lambda = "cv"` when `penalty` is not set) or to the map (`seed`,
#' `scale`, `type`).
#'
#' Case weights (`hardhat::importance_weights()` or
#' `hardhat::frequency_weights()`, added with `workflows::add_case_weights()`
#' or `parsnip::fit(case_weights = )`) are [krr_fit()]'s `weights`.
#'
#' Predictions: `type = "numeric"` for regression, `"class"` for
#' classification, and `"prob"`; `"raw"` gives [predict.kitchen_krr()]'s
#' `type = "response"` (the class scores of a least-squares classifier,
#' the probabilities of a logistic one). With the engine argument
#' `loss = "logistic"` (kernel logistic regression, see [krr_fit()]),
#' `"prob"` gives the model's class probabilities. With the default squared
#' loss, kitchen fits one-vs-rest least-squares scores (near +1 for the
#' class, -1 otherwise) and `"prob"` is what [predict.kitchen_krr()] gives
#' for `type = "prob"`: a multinomial logistic calibration of the scores
#' (a small ridge penalty on its slopes, see [krr_fit()]), fitted on each training row's cross-validated score. A fit without that
#' calibration (`solver = "falkon"`) gives the softmax of the scores,
#' `exp(s_k) / sum_j exp(s_j)`, which ranks the rows like the scores (enough
#' for ROC curves and their AUC) but whose values are not the chances of
#' each class. A fit whose calibration could not be made (a CV fold whose
#' fit saw no row of some class; the fit warns) has no `"prob"`
#' predictions: they are an error, which tune records as a note. Outcome
#' levels without training rows are left out of the fit (with a warning)
#' and get probability 0.
#'
#' `"class"` is the most probable class, as `predict(type = "class")`
#' gives it, so it agrees with the largest `.pred_<level>`.
#'
#' The tuning parameters have \pkg{dials} ranges: `dials::penalty()`,
#' `dials::rbf_sigma()`, [num_features()] and [feature_map()].
#'
#' @param mode `"unknown"`, `"regression"` or `"classification"`.
#' @param penalty Ridge penalty per observation (see Details), or `NULL` for
#'   [krr_fit()]'s own choice (5-fold CV).
#' @param rbf_sigma Inverse width of the Gaussian kernel (see Details), or
#'   `NULL` for the median heuristic.
#' @param num_features Number of random features.
#' @param map `"rff"` or `"fastfood"`.
#' @param engine `"kitchen"`.
#' @return A model specification of class `c("kernel_ridge", "model_spec")`.
#' @seealso [krr_fit()], [step_kernel_features()] for random features in a
#'   recipe.
#' @export
#' @examples
#' if (requireNamespace("parsnip", quietly = TRUE)) {
#'   spec <- kernel_ridge(mode = "regression", penalty = 1e-4, rbf_sigma = 0.1,
#'                        num_features = 200)
#'   spec <- parsnip::set_engine(spec, "kitchen", seed = 1, n_threads = 2)
#'   fit <- parsnip::fit(spec, mpg ~ ., data = mtcars)
#'   predict(fit, mtcars[1:3, ])
#' }
kernel_ridge <- function(mode = "unknown", penalty = NULL, rbf_sigma = NULL,
                         num_features = NULL, map = NULL, engine = "kitchen") {
  rlang::check_installed("parsnip", "for `kernel_ridge()`.")
  register_kernel_ridge()
  args <- list(penalty = rlang::enquo(penalty), rbf_sigma = rlang::enquo(rbf_sigma),
               num_features = rlang::enquo(num_features), map = rlang::enquo(map))
  parsnip::new_model_spec("kernel_ridge", args = args, eng_args = NULL, mode = mode,
                          user_specified_mode = !missing(mode), method = NULL,
                          engine = engine, user_specified_engine = !missing(engine))
}

#' @rdname kernel_ridge
#' @param object A `kernel_ridge()` specification.
#' @param parameters A one-row data frame of parameter values (from tune),
#'   or `NULL`.
#' @param fresh Replace all the arguments (`TRUE`) or only those given.
#' @param ... For `update()`: engine arguments to change. For
#'   `kernel_ridge_fit()`: arguments of [krr_fit()] or of the map.
#' @export
update.kernel_ridge <- function(object, parameters = NULL, penalty = NULL, rbf_sigma = NULL,
                                num_features = NULL, map = NULL, fresh = FALSE, ...) {
  args <- list(penalty = rlang::enquo(penalty), rbf_sigma = rlang::enquo(rbf_sigma),
               num_features = rlang::enquo(num_features), map = rlang::enquo(map))
  parsnip::update_spec(object = object, parameters = parameters, args_enquo_list = args,
                       fresh = fresh, cls = "kernel_ridge", ...)
}

#' @rdname kernel_ridge
#' @param fit,new_data,type For `kernel_ridge_predict()`, the engine's
#'   predict function (called by parsnip): the [krr_fit()] fit, the new
#'   predictors and its prediction type. Rows of `new_data` with `NA` get
#'   `NA` predictions, as parsnip's other engines give them.
#' @export
kernel_ridge_predict <- function(fit, new_data, type = "response") {
  complete <- stats::complete.cases(new_data)
  if (all(complete)) return(stats::predict(fit, new_data, type = type))
  known <- stats::predict(fit, new_data[complete, , drop = FALSE], type = type)
  pad_rows(known, complete, length(complete))  # R/broom.R
}

#' @rdname kernel_ridge
#' @param x,y For `kernel_ridge_fit()`, the engine's fit function (called
#'   by parsnip): the predictors as a numeric matrix and the response (a
#'   data frame of numeric outcomes for several, as workflows pass them).
#' @export
kernel_ridge_fit <- function(x, y, penalty = NULL, rbf_sigma = NULL, num_features = 1000,
                             map = "rff", ...) {
  map <- match_choice(map, c("rff", "fastfood"))
  if (is.data.frame(y)) {
    # several outcomes (mpg + disp ~ .) come from workflows as a tibble
    y <- if (ncol(y) == 1) y[[1]] else as.matrix(y)
  }
  args <- list(...)
  lambda <- NULL  # krr_fit()'s own choice
  if (!is.null(penalty)) {
    check_positive(penalty)
    # per unit of weight: case weights (hardhat's) count as rows
    args$weights <- check_weights(args$weights, NROW(x))
    lambda <- penalty * if (is.null(args$weights)) NROW(x) else sum(args$weights)
  }
  if (!is.null(args$lambda)) {
    if (!is.null(penalty)) abort_arg("Give {.arg penalty} or an engine {.arg lambda}, not both.")
    lambda <- args$lambda
    args$lambda <- NULL
  }
  if (!is.null(rbf_sigma)) {
    if (!is.null(args$sigma)) abort_arg("Give {.arg rbf_sigma} or an engine {.arg sigma}, not both.")
    check_positive(rbf_sigma)
    args$sigma <- 1 / sqrt(2 * rbf_sigma)
    # kernlab's width is on standardised predictors (krr_fit() names minmax).
    if (is.null(args$scale)) args$scale <- "standard"
  }
  if (!is.null(args$features)) {
    abort_arg("The engine chooses its map with the engine argument {.arg map} ({.val rff} or {.val fastfood}), not {.arg features}.")
  }
  if (!is.null(args$n_features)) {
    # An engine n_features is the user's choice: the default num_features is not.
    if (!missing(num_features)) abort_arg("Give {.arg num_features} or an engine {.arg n_features}, not both.")
    num_features <- args$n_features
    check_count(num_features, arg = "n_features")
  }
  args$n_features <- cos_sin_count(num_features)
  args$lambda <- lambda
  args <- args[!vapply(args, is.null, TRUE)]
  # The data and long values named in the call, as parsnip's own engines do
  # (lm(formula = y ~ ., data = data)); short values stay as they are. A
  # call made by do.call() holds the data themselves: print() and every
  # warning showed them (thousands of lines), and the fit kept a copy.
  short <- function(name) {
    value <- args[[name]]
    if (is.atomic(value) && length(value) <= 10) value else as.name(name)
  }
  call <- as.call(c(list(quote(krr_fit), x = quote(x), y = quote(y), features = map),
                    stats::setNames(lapply(names(args), short), names(args))))
  fit <- eval(call, list2env(c(list(x = x, y = y), args), parent = environment(krr_fit)))
  fit$call <- call
  fit
}

# A number of random features for cosine and sine pairs: even, rounded up
# (a tuning grid proposes any count).
cos_sin_count <- function(n, arg = "num_features", call = rlang::caller_env()) {
  check_count(n, arg = arg, call = call)
  2 * ceiling(n / 2)
}

# parsnip's "prob" predictions, one column per level of the outcome, from
# the fit's type = "response" predictions: the probabilities of a
# loss = "logistic" fit as they are; least-squares scores through the fit's
# calibration, as its predict(type = "prob") does (R/calibration.R), or
# their softmax when the solver makes none (falkon: see ?kernel_ridge). A
# fit whose calibration failed (its CV folds left a fold without a class)
# has no probabilities: the error says why, as predict() does. Levels
# without training rows (left out of the fit, with a warning) get 0.
kernel_ridge_prob <- function(scores, object) {
  fit <- object$fit
  scores <- as.matrix(scores)
  complete <- stats::complete.cases(scores)  # rows of new data with NA
  prob <- scores[complete, , drop = FALSE]
  if (!identical(fit[["loss"]], "logistic")) {
    if (!is.null(fit[["uncalibrated"]])) {
      abort_arg(c("This fit has no class probabilities.", x = "Its scores were not calibrated: {fit[['uncalibrated']]}."),
                call = NULL)
    }
    prob <- if (!is.null(fit$calibration)) {
      calibrated_probabilities(prob, fit$calibration, NULL)
    } else {
      softmax_rows(prob)
    }
  }
  levels <- object$lvl %||% fit$response$levels
  out <- matrix(0, nrow(prob), length(levels), dimnames = list(NULL, levels))
  out[, match(fit$response$levels, levels)] <- prob
  tidy_frame(as.data.frame(pad_rows(out, complete, length(complete)), optional = TRUE))
}

# The model's entries in parsnip's model environment (once per session:
# parsnip refuses a model registered twice).
register_kernel_ridge <- function() {
  if (!requireNamespace("parsnip", quietly = TRUE)) return(invisible(FALSE))
  if ("kernel_ridge" %in% parsnip::get_model_env()$models) return(invisible(FALSE))
  model <- "kernel_ridge"
  parsnip::set_new_model(model)
  for (mode in c("regression", "classification")) {
    parsnip::set_model_mode(model, mode)
    parsnip::set_model_engine(model, mode, "kitchen")
    parsnip::set_dependency(model, "kitchen", "kitchen", mode = mode)
    parsnip::set_fit(model, mode = mode, eng = "kitchen", value = list(
      interface = "matrix", protect = c("x", "y", "weights"),  # case weights
      func = c(pkg = "kitchen", fun = "kernel_ridge_fit"), defaults = list()))
    parsnip::set_encoding(model, mode = mode, eng = "kitchen", options = list(
      predictor_indicators = "traditional", compute_intercept = FALSE,
      remove_intercept = TRUE, allow_sparse_x = FALSE))
  }
  arg <- function(name, pkg, fun) {
    parsnip::set_model_arg(model, eng = "kitchen", parsnip = name, original = name,
                           func = list(pkg = pkg, fun = fun), has_submodel = FALSE)
  }
  arg("penalty", "dials", "penalty")
  arg("rbf_sigma", "dials", "rbf_sigma")
  arg("num_features", "kitchen", "num_features")
  arg("map", "kitchen", "feature_map")
  predict_value <- function(type, post = NULL) {
    list(pre = NULL, post = post, func = c(pkg = "kitchen", fun = "kernel_ridge_predict"),
         args = list(fit = quote(object$fit), new_data = quote(new_data), type = type))
  }
  parsnip::set_pred(model, eng = "kitchen", mode = "regression", type = "numeric",
                    value = predict_value("response"))
  parsnip::set_pred(model, eng = "kitchen", mode = "classification", type = "class",
                    value = predict_value("class"))
  parsnip::set_pred(model, eng = "kitchen", mode = "classification", type = "prob",
                    value = predict_value("response", post = kernel_ridge_prob))
  # what predict(type = "response") of the kitchen fit gives (class scores,
  # or a logistic fit's probabilities), as other engines' "raw"
  for (mode in c("regression", "classification")) {
    parsnip::set_pred(model, eng = "kitchen", mode = mode, type = "raw",
                      value = predict_value("response"))
  }
  invisible(TRUE)
}

#' Tuning parameters of kernel_ridge() (dials)
#'
#' Parameter objects for tuning [kernel_ridge()] with \pkg{tune}, made by
#' \pkg{dials} (needed): `num_features()` is the number of random features,
#' `feature_map()` the kind of map. The penalty and the kernel width use
#' `dials::penalty()` and `dials::rbf_sigma()`. `kernel_bandwidth()` is the
#' bandwidth `sigma` of [step_kernel_features()] (in the map's rescaled
#' units, see [rff()]), on a log2 scale: the default range is 2^-3 to 2^3.
#'
#' @param range The smallest and largest number of features; for
#'   `kernel_bandwidth()`, the smallest and largest bandwidth in the units
#'   of `trans` (log2 by default).
#' @param trans A transformation from \pkg{scales}, or `NULL`.
#' @param values The maps to try.
#' @return A `dials` parameter object.
#' @export
#' @examples
#' if (requireNamespace("dials", quietly = TRUE)) {
#'   print(num_features())  # inside if (): print() shows each value
#'   print(dials::value_seq(num_features(c(100, 1000)), 4))
#'   print(feature_map())
#' }
num_features <- function(range = c(100L, 2000L), trans = NULL) {
  rlang::check_installed("dials", "for `num_features()`.")
  dials::new_quant_param(type = "integer", range = range, inclusive = c(TRUE, TRUE),
                         trans = trans, label = c(num_features = "# Random Features"),
                         finalize = NULL)
}

#' @rdname num_features
#' @export
kernel_bandwidth <- function(range = c(-3, 3), trans = log2_transform()) {
  rlang::check_installed("dials", "for `kernel_bandwidth()`.")
  dials::new_quant_param(type = "double", range = range, inclusive = c(TRUE, TRUE),
                         trans = trans, label = c(kernel_bandwidth = "Kernel Bandwidth"),
                         finalize = NULL)
}

# scales' log2 transformation (dials imports scales), by its name in
# scales 1.3 and later or before.
log2_transform <- function() {
  if (utils::packageVersion("scales") >= "1.3.0") scales::transform_log2() else scales::log2_trans()
}

#' @rdname num_features
#' @export
feature_map <- function(values = c("rff", "fastfood")) {
  rlang::check_installed("dials", "for `feature_map()`.")
  dials::new_qual_param(type = "character", values = values,
                        label = c(feature_map = "Random Feature Map"), finalize = NULL)
}
