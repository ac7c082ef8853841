# Checks of map and fit objects before predict(), print() and the other
# methods use them: they are plain lists, so they may have been edited by
# hand or read back from a file. Each check costs O(size of the object) at
# most, and says which field is wrong (the map's fields are checked by
# map_problem_cpp(), src/validate_map.cpp). The C++ glue re-checks every
# size it indexes with, so bypassing these checks gives an error, never a
# crash.

map_classes <- c("kitchen_rff", "kitchen_fastfood", "kitchen_rbin", "kitchen_nystrom")

# The map, or an argument error naming the first malformed field. `deep`
# also runs the checks predict() leaves to C++ (finite frequencies, sorted
# bin keys), for methods that do not compute features: print(), coef(),
# krr_fit().
validate_map <- function(map, arg = rlang::caller_arg(map), deep = FALSE,
                         call = rlang::caller_env()) {
  class <- map_classes[inherits(map, map_classes, which = TRUE) > 0][1]
  if (is.na(class) || !is.list(map)) {
    abort_arg("{.arg {arg}} must be a feature map from {.fn rff}, {.fn fastfood}, {.fn rbin} or {.fn nystrom}, not {.obj_type_friendly {map}}.",
              call = call)
  }
  # The fields and shapes, in C++: as R code this cost more than the
  # features of one row.
  problem <- map_problem_cpp(map, class)
  # In depth only when asked: predict() and as.matrix() hand the map to C++
  # glue that checks all of it before use (twice cost a fifth of one row's
  # Fastfood features).
  if (is.null(problem)) problem <- clip_problem(map$clip, map$d)
  if (is.null(problem) && deep && class == "kitchen_fastfood") problem <- fastfood_map_problem_cpp(map)
  if (is.null(problem) && deep && class == "kitchen_rff") problem <- rff_map_problem_cpp(map)
  if (is.null(problem) && deep && class == "kitchen_rbin") {
    # Features of no rows: the C++ glue checks the whole map first.
    hashed <- !is.null(map$n_buckets)
    out <- rbin_columns_cpp(matrix(0, 0, map$d), map$pitch, map$shift, map$center, map$scale,
                            if (hashed) raw(0) else map$keys, if (hashed) integer(0) else map$n_bins,
                            if (hashed) map$n_buckets else 0, 1L, "scalar")
    if (is.character(out)) problem <- out
  }
  if (!is.null(problem)) abort_invalid_map(arg, class, problem, call = call)
  invisible(map)
}

# `problem` names the field (cli markup, no user text in it).
abort_invalid_map <- function(arg, class, problem = NULL, call = rlang::caller_env()) {
  abort_arg(c("{.arg {arg}} is not a valid {.cls {class}} map (missing or malformed fields).",
              x = problem), call = call)
}

is_whole <- function(x, min = 1) {
  is.numeric(x) && length(x) == 1L && !is.na(x) && is.finite(x) && x == trunc(x) && x >= min
}

is_doubles <- function(x, n) is.double(x) && length(x) == n

is_double_matrix <- function(x, rows, cols) {
  is.matrix(x) && is.double(x) && isTRUE(all(dim(x) == c(rows, cols)))
}

# The fit, or an argument error naming the first malformed field. `full`
# also checks what print(), summary(), plot() and coef() show, and the map
# in depth (predict() leaves that to C++).
validate_fit <- function(fit, arg = rlang::caller_arg(fit), full = FALSE,
                         call = rlang::caller_env()) {
  if (!inherits(fit, "kitchen_krr") || !is.list(fit)) {
    abort_arg("{.arg {arg}} must be a fit from {.fn krr_fit}, not {.obj_type_friendly {fit}}.", call = call)
  }
  validate_map(fit$map, arg = paste0(arg, "$map"), deep = full, call = call)
  problem <- fit_problem(fit, full)
  if (!is.null(problem)) {
    abort_arg(c("{.arg {arg}} is not a valid {.cls kitchen_krr} fit (missing or malformed fields).",
                x = problem), call = call)
  }
  invisible(fit)
}

fit_problem <- function(fit, full) {
  w <- fit$coefficients
  # predict() of rbin fits checks the coefficients it uses (binned_scores()):
  # scanning millions of them would cost more than predicting a row.
  scan <- full || !inherits(fit$map, "kitchen_rbin")
  if (!is_double_matrix(w, fit$map$n_features, ncol(w)) || ncol(w) < 1 ||
      (scan && first_nonfinite_cpp(w) > 0)) {
    return(paste0("{.field coefficients} must be a ", fit$map$n_features,
                  "-row matrix of finite doubles (one row per feature of {.field map})."))
  }
  k <- ncol(w)
  if (!is_doubles(fit$intercept, k) || !all(is.finite(fit$intercept))) {
    return(paste0("{.field intercept} must hold ", k, " finite double", if (k > 1) "s", "."))
  }
  response <- fit$response
  if (!is.list(response) || !isTRUE(response$type %in% c("vector", "matrix", "class")) ||
      length(response$type) != 1L || (response$type == "vector" && k != 1)) {
    return("{.field response} must say the response type ({.val vector}, {.val matrix} or {.val class}).")
  }
  if (response$type == "class" && (!is.character(response$levels) || length(response$levels) != k)) {
    return(paste0("{.field response$levels} must hold the ", k, " class names."))
  }
  if (response$type == "class" && !is.null(response$factor_levels) &&
      (!is.character(response$factor_levels) || !all(response$levels %in% response$factor_levels))) {
    return("{.field response$factor_levels} must be NULL or the training factor's levels.")
  }
  if (!is.null(response$names) && (!is.character(response$names) || length(response$names) != k)) {
    return(paste0("{.field response$names} must be NULL or ", k, " names."))
  }
  if (!is.null(fit$terms) && !inherits(fit$terms, "terms")) {
    return("{.field terms} must be NULL or the model's terms.")
  }
  if (!full) return(NULL)
  if (!is.numeric(fit$lambda) || length(fit$lambda) != 1L || !isTRUE(fit$lambda >= 0)) {
    return("{.field lambda} must be one non-negative number.")
  }
  if (!is.data.frame(fit$path) || nrow(fit$path) < 1 || !is.numeric(fit$path$lambda)) {
    return("{.field path} must be a data frame of lambda candidates.")
  }
  if (!is_whole(fit$n)) return("{.field n} must be a whole number >= 1.")
  if (!is.numeric(fit$training_rmse) || length(fit$training_rmse) != k) {
    return(paste0("{.field training_rmse} must hold ", k, " number", if (k > 1) "s", "."))
  }
  if (!is.numeric(fit$time) || length(fit$time) != 2L) return("{.field time} must hold 2 numbers.")
  solver <- fit$solver
  if (!is.null(solver) && (!is.list(solver) || !is.numeric(solver$iterations) ||
                           !is.numeric(solver$residual) || !is.numeric(solver$tol) ||
                           !is.logical(solver$converged))) {
    return("{.field solver} must be NULL or the conjugate-gradient report.")
  }
  if (nrow(fit$path) > 1 && !is.null(fit$path$cv) && !is_whole(fit$n_folds)) {
    return("{.field n_folds} must be a whole number for a fit chosen by CV.")
  }
  NULL
}
