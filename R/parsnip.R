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
#'   times the number of rows, and the same `penalty` suits any data size.
#'   `NULL` (the default) lets `krr_fit()` choose lambda (by 5-fold CV, its
#'   default).
#' * `rbf_sigma` is the inverse kernel width as in `parsnip::svm_rbf()`
#'   (kernlab): `k(x, y) = exp(-rbf_sigma ||x - y||^2)` on the standardised
#'   predictors, so the map's bandwidth is `1 / sqrt(2 rbf_sigma)` (and its
#'   `scale` `"standard"` unless given). `NULL` leaves the map to
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
#' Predictions: `type = "numeric"` for regression, `"class"` for
#' classification, and `"prob"`. With the engine argument
#' `loss = "logistic"` (kernel logistic regression, see [krr_fit()]),
#' `"prob"` gives the model's class probabilities. With the default squared
#' loss, kitchen fits one-vs-rest least-squares scores (near +1 for the
#' class, -1 otherwise) and `"prob"` is what [predict.kitchen_krr()] gives
#' for `type = "prob"`: a multinomial logistic calibration of the scores,
#' fitted on each training row's cross-validated score. A fit without that
#' calibration (`solver = "falkon"`) gives the softmax of the scores,
#' `exp(s_k) / sum_j exp(s_j)`, which ranks the rows like the scores (enough
#' for ROC curves and their AUC) but whose values are not the chances of
#' each class.
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
#' @param x,y For `kernel_ridge_fit()`, the engine's fit function (called
#'   by parsnip): the predictors as a numeric matrix and the response.
#' @export
kernel_ridge_fit <- function(x, y, penalty = NULL, rbf_sigma = NULL, num_features = 1000,
                             map = "rff", ...) {
  map <- match_choice(map, c("rff", "fastfood"))
  check_count(num_features)
  lambda <- NULL  # krr_fit()'s own choice
  if (!is.null(penalty)) {
    check_positive(penalty)
    lambda <- penalty * NROW(x)
  }
  args <- list(...)
  if (!is.null(args$lambda)) {
    if (!is.null(penalty)) abort_arg("Give {.arg penalty} or an engine {.arg lambda}, not both.")
    lambda <- args$lambda
    args$lambda <- NULL
  }
  if (!is.null(rbf_sigma)) {
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
  args$n_features <- 2 * ceiling(num_features / 2)
  args$lambda <- lambda
  fit <- do.call(krr_fit, c(list(x, y, features = map), args))
  # do.call() wrote the data themselves into the call, which print() showed
  # (thousands of lines) and the fit kept as a second copy. Named instead,
  # as parsnip's own engines do (lm(formula = y ~ ., data = data)); short
  # values stay as they are.
  short <- function(name) {
    value <- args[[name]]
    if (is.null(value) || (is.atomic(value) && length(value) <= 10)) value else as.name(name)
  }
  fit$call <- as.call(c(list(as.name("krr_fit"), x = quote(x), y = quote(y), features = map),
                        stats::setNames(lapply(names(args), short), names(args))))
  fit
}

# parsnip's "prob" predictions, one column per class, from the fit's
# type = "response" predictions: the probabilities of a loss = "logistic"
# fit as they are; least-squares scores through the fit's calibration, as
# its predict(type = "prob") does (R/calibration.R), or their softmax when
# it has none (see ?kernel_ridge).
kernel_ridge_prob <- function(scores, object) {
  prob <- as.matrix(scores)
  if (!identical(object$fit[["loss"]], "logistic")) {
    prob <- if (!is.null(object$fit$calibration)) {
      calibrated_probabilities(prob, object$fit$calibration, NULL)
    } else {
      softmax_rows(prob)
    }
  }
  colnames(prob) <- object$lvl
  tidy_frame(as.data.frame(prob, optional = TRUE))
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
      interface = "matrix", protect = c("x", "y"),
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
    list(pre = NULL, post = post, func = c(fun = "predict"),
         args = list(object = quote(object$fit), newdata = quote(new_data),
                     type = type))
  }
  parsnip::set_pred(model, eng = "kitchen", mode = "regression", type = "numeric",
                    value = predict_value("response"))
  parsnip::set_pred(model, eng = "kitchen", mode = "classification", type = "class",
                    value = predict_value("class"))
  parsnip::set_pred(model, eng = "kitchen", mode = "classification", type = "prob",
                    value = predict_value("response", post = kernel_ridge_prob))
  invisible(TRUE)
}

#' Tuning parameters of kernel_ridge() (dials)
#'
#' Parameter objects for tuning [kernel_ridge()] with \pkg{tune}, made by
#' \pkg{dials} (needed): `num_features()` is the number of random features,
#' `feature_map()` the kind of map. The penalty and the kernel width use
#' `dials::penalty()` and `dials::rbf_sigma()`.
#'
#' @param range The smallest and largest number of features.
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
feature_map <- function(values = c("rff", "fastfood")) {
  rlang::check_installed("dials", "for `feature_map()`.")
  dials::new_qual_param(type = "character", values = values,
                        label = c(feature_map = "Random Feature Map"), finalize = NULL)
}
