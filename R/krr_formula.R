# The formula interface of krr_fit(), as lm() has it: the model frame
# (subset, weights, na.action, offset), the design matrix (contrasts), and
# the same steps again for new data at predict time.

#' @rdname krr_fit
#' @param data For the formula method: a data frame (or list, or
#'   environment) holding the variables of the formula; by default they are
#'   taken from the formula's environment, as in [lm()].
#' @param subset For the formula method: which rows of `data` to use (an
#'   expression evaluated in `data`, as in [lm()]).
#' @param weights Optional non-negative sample weights, one per row (for
#'   the formula method, an expression evaluated in `data`). The fit
#'   minimises `sum(w * (y - f(x))^2) + lambda * ||beta||^2`, so for a given
#'   map and lambda whole-number weights give the fit on rows replicated
#'   that many times. A zero weight gives the fit without that row: a map
#'   built by name, its bandwidth search and the CV folds leave such rows
#'   out too. CV scores are weighted the same way; GCV's count of
#'   observations is the number of rows with a non-zero weight (precision
#'   weights, as in [lm()]), so that neither choice depends on the weights'
#'   overall scale. The largest weight must lie between `1e-100` and
#'   `1e100` (beyond, Z'WZ and its squares leave double precision's range).
#'   For imbalanced classes, weights inversely proportional to each class's
#'   share (`w <- 1 / table(y)[y]`) raise the minority classes' recall, as
#'   in [glm()]; the class probabilities then follow the reweighted shares
#'   too.
#' @param na.action For the formula method: what to do with rows holding NA
#'   in the model frame, as in [lm()]: by default (`getOption("na.action")`,
#'   normally [na.omit()]) they are dropped and recorded in the fit;
#'   [na.exclude()] also drops them, and pads [fitted()], [residuals()] and
#'   `predict(fit)` with NA in their places; [na.fail()] stops.
#' @param offset For the formula method: a known component of the response
#'   (as in [lm()]), evaluated in `data`; `offset()` terms in the formula do
#'   the same. The fit is on `y - offset`, and [predict()] adds the offset
#'   of `newdata` back. Regression only.
#' @param contrasts For the formula method: contrasts for factor predictors,
#'   as in [model.matrix()].
#' @param model For the formula method: keep the model frame in the fit (as
#'   [lm()] does), for [model.frame()], [model.matrix()] and `augment()`.
#'   With `FALSE` they rebuild it from the fit's call, which needs the data
#'   unchanged and where the call can find them; the fit is then smaller.
#'   Either way, as with [lm()], the fit keeps the formula's environment
#'   (in its `terms`), so a fit made inside a function saves that function's
#'   local objects with it: fit where large objects are not held to keep
#'   saved fits small.
#' @importFrom rlang %||%
#' @export
krr_fit.formula <- function(x, data = NULL, features = "rff", subset, weights, na.action,
                            offset, contrasts = NULL, model = TRUE, folds = NULL, ...) {
  check_flag(model)
  if (!is.null(data) && !is.list(data) && !is.environment(data)) {
    # (said before `weights` or `subset` are looked up in it)
    abort_arg(c("{.arg data} must be a data frame, a list or an environment, not {.obj_type_friendly {data}}.",
                i = if (is.matrix(data)) "Give {.code as.data.frame(data)}, or use {.code krr_fit(x, y)} with a matrix."))
  }
  call <- fit_call(match.call())
  names(call)[2L] <- ""  # printed as krr_fit(y ~ ., data), like lm()'s formula
  # The model frame as lm() makes it, with subset, weights and offset
  # evaluated in data, then where their expressions were written: quosures
  # see through wrappers that pass `...` (the matched call shows ..1, and
  # substitute() the expression without its environment).
  frame_call <- list(quote(stats::model.frame), formula = x, data = data,
                     drop.unused.levels = TRUE)
  extras <- list(subset = rlang::enquo(subset), weights = rlang::enquo(weights),
                 offset = rlang::enquo(offset), folds = rlang::enquo(folds))
  scope <- data  # a list, an environment (checked above) or NULL
  for (name in names(extras)) {
    if (rlang::quo_is_missing(extras[[name]]) || rlang::quo_is_null(extras[[name]])) next
    frame_call[[name]] <- eval(rlang::quo_get_expr(extras[[name]]), scope,
                               rlang::quo_get_env(extras[[name]]))
  }
  if (is.character(frame_call$subset)) {
    # model.frame() would index rows by name and keep none
    abort_arg(c("{.arg subset} must be a logical or numeric vector of rows, not a string.",
                i = "Write the condition without quotes, for instance {.code subset = a > 0}."))
  }
  if (!missing(na.action)) frame_call$na.action <- na.action
  frame <- eval(as.call(frame_call), parent.frame())
  check_integer64(frame, "data")
  if (nrow(frame) == 0L) {
    abort_arg("{.arg data} has no rows left to fit (after {.arg subset} and {.arg na.action}).")
  }
  terms <- attr(frame, "terms")
  if (attr(terms, "intercept") == 0L) {
    cli::cli_warn(c("The fit keeps its intercept: {.code 0 +} or {.code - 1} in the formula only changes how factors are coded.",
                    i = "Kernel ridge fits always have an unpenalised intercept (the response's weighted mean, for centred features)."))
  }
  y <- stats::model.response(frame)
  if (is.character(y) || is.logical(y)) y <- factor(y)
  given_levels <- NULL
  if (is.factor(y)) {
    # model.frame() dropped the levels left without rows (by NA or subset)
    given <- tryCatch(eval(x[[2L]], scope, environment(x)),
                      error = function(cnd) NULL)
    if (is.factor(given) && all(levels(y) %in% levels(given))) {
      in_data <- levels(droplevels(given))
      warn_empty_classes(setdiff(levels(given), in_data), "", call)
      warn_empty_classes(setdiff(in_data, levels(y)), " after `subset` and `na.action`", call)
      given_levels <- levels(given)
    }
  }
  observed <- y
  offset <- stats::model.offset(frame)
  if (!is.null(offset)) {
    if (is.factor(y)) {
      abort_arg("{.arg offset} and {.code offset()} terms need a numeric response, not classes.")
    }
    check_finite(offset, arg = "offset")
    y <- y - offset
  }
  design <- formula_design(terms, frame, contrasts)
  # Its errors are shown as the user's call (the inner one would print
  # krr_fit(design, y, ...), names the user never wrote).
  fit <- withCallingHandlers(tryCatch(
    krr_fit(design, y, features = features, weights = stats::model.weights(frame),
            folds = frame[["(folds)"]], ...),
    kitchen_error_argument = function(cnd) {
      cnd$call <- call
      stop(cnd)
    }), rlang_warning = function(cnd) {
      # kitchen's warnings (cli's), likewise
      cnd$call <- call
      warning(cnd)
      invokeRestart("muffleWarning")
    })
  fit$call <- call
  fit$terms <- terms
  fit$xlevels <- stats::.getXlevels(terms, frame)
  fit$contrasts <- attr(design, "contrasts")
  # the formula term of each design column, for relevance(by = "term")
  fit$column_terms <- stats::setNames(attr(terms, "term.labels")[attr(design, "assign")],
                                      colnames(design))
  fit$na.action <- attr(frame, "na.action")
  fit$offset <- offset
  # The offset argument's expression, evaluated in new data at predict time.
  fit$call_offset <- if (!rlang::quo_is_missing(extras$offset)) rlang::quo_get_expr(extras$offset)
  if (!is.null(offset)) fit$fitted.values <- fit$fitted.values + offset
  fit$y <- observed
  # predicted classes keep the levels without rows, as the user's factor
  if (!is.null(given_levels)) fit$response$factor_levels <- given_levels
  if (model) fit$model <- frame
  fit
}

# The predictors as a numeric matrix without the intercept column (the fit
# has its own, unpenalised).
formula_design <- function(terms, frame, contrasts = NULL) {
  design <- stats::model.matrix(terms, frame, contrasts.arg = contrasts)
  keep <- colnames(design) != "(Intercept)"
  out <- design[, keep, drop = FALSE]
  # A factor V1's dummy "V11" can meet a numeric column V11; lm() takes the
  # columns by position. Maps match columns by name, so make them distinct:
  # new data goes through the same terms and gets the same names.
  if (ncol(out) == 0L) {
    abort_arg("The formula has no predictors: a kernel fit needs at least one.",
              call = rlang::caller_env(2))
  }
  colnames(out) <- make.unique(colnames(out))
  attr(out, "contrasts") <- attr(design, "contrasts")
  attr(out, "assign") <- attr(design, "assign")[keep]  # each column's term
  out
}

# New data for a formula fit: the design matrix and the offset (or NULL), by
# the training terms, factor levels and contrasts. Rows with NA become NA
# predictions with the default na.pass, as in predict.lm(), and so do rows
# with infinite values (whatever na.action).
formula_newdata <- function(object, newdata, na.action, call = rlang::caller_env()) {
  if (!is.data.frame(newdata) && !(is.list(newdata) && !is.object(newdata)) &&
      !is.environment(newdata)) {
    abort_arg("{.arg newdata} must be a data frame for a formula fit, not {.obj_type_friendly {newdata}}.",
              call = call)
  }
  terms <- stats::delete.response(object$terms)
  frame <- tryCatch(
    stats::model.frame(terms, newdata, na.action = na.action, xlev = object$xlevels),
    error = function(cnd) {
      # model.frame() says "object 'disp' not found": name the argument and
      # every variable it lacks.
      absent <- if (!is.environment(newdata)) setdiff(all.vars(terms), names(newdata))
      if (!length(absent)) stop(cnd)
      abort_arg(c("{.arg newdata} lacks variable{?s} the fit uses: {.var {absent}}.",
                  i = "It needs the columns of the training data named in the formula."),
                call = call)
    })
  check_newdata_classes(terms, frame, call)
  check_integer64(frame, "newdata", call)
  design <- formula_design(terms, frame, object$contrasts)
  offset <- if (!is.null(object$offset)) newdata_offset(object, frame, newdata, call)
  # Rows with infinite values (a value, or log(0) in the formula, or in the
  # offset) predict NA too, as NA rows under na.pass: one such record failed
  # a whole batch. Looked for row by row only when one scan finds an NA or
  # an infinite value (model.matrix() gives doubles).
  complete <- if (first_nonfinite_cpp(design) > 0) rowSums(!is.finite(design)) == 0 else
    rep(TRUE, nrow(design))
  if (!is.null(offset)) complete <- complete & is.finite(offset)
  list(x = design, offset = offset, complete = if (!all(complete)) complete)
}

# bit64's integer64 columns are doubles to model.matrix(), which reads their
# bits as numbers near 1e-310: refused with the fix, not as "too small".
check_integer64 <- function(frame, arg, call = rlang::caller_env()) {
  wide <- names(frame)[vapply(frame, inherits, TRUE, "integer64")]
  if (length(wide)) {
    abort_arg(c("{.arg {arg}} has {.cls integer64} {cli::qty(length(wide))}column{?s} {.var {wide}}: model matrices read {?its/their} bits as other numbers.",
                i = "Convert {cli::qty(length(wide))}{?it/them} with {.fn as.numeric} first."), call = call)
  }
}

# Each variable of newdata of the type it was fitted with, as predict.lm()
# checks: numbers read back as text would otherwise become factor dummies
# and fail far from the cause (a "missing" column).
check_newdata_classes <- function(terms, frame, call) {
  fitted <- attr(terms, "dataClasses")
  if (is.null(fitted)) return(invisible())
  tryCatch(stats::.checkMFClasses(fitted, frame), error = function(cnd) {
    abort_arg(c("{.arg newdata} has a variable of another type than in the training data.",
                x = conditionMessage(cnd)), call = call)
  })
}

# The offset for new data: offset() terms from the frame, plus the `offset`
# argument evaluated in newdata (as predict.lm() does).
newdata_offset <- function(object, frame, newdata, call = rlang::caller_env()) {
  offset <- stats::model.offset(frame) %||% numeric(nrow(frame))
  given <- object[["call_offset"]]
  if (!is.null(given)) {
    absent <- if (!is.environment(newdata)) {
      Filter(function(v) !v %in% names(newdata) && !exists(v, envir = environment(object$terms)),
             all.vars(given))
    }
    if (length(absent)) {
      # eval() would say "object 'off' not found", as for the formula's variables
      abort_arg(c("{.arg newdata} lacks variable{?s} the fit's {.arg offset} uses: {.var {absent}}.",
                  i = "The offset is evaluated in {.arg newdata}, as {.fn predict.lm} does."),
                call = call)
    }
    value <- eval(given, newdata, environment(object$terms))
    if (length(value) != nrow(frame)) {
      abort_arg(c("The fit's {.arg offset} gives {length(value)} value{?s} for the {nrow(frame)} row{?s} of {.arg newdata}.",
                  i = "Give the offset as a column of {.arg newdata} (or as {.code offset()} in the formula) to predict new rows."),
                call = call)
    }
    offset <- offset + value
  }
  offset
}
