# Checks of map and fit objects before predict(), print() and the other
# methods use them: they are plain lists, so they may have been edited by
# hand or read back from a file. Each check costs O(size of the object) at
# most, and says which field is wrong. The C++ glue re-checks every size it
# indexes with, so bypassing these checks gives an error, never a crash.

map_classes <- c("kitchen_rff", "kitchen_fastfood", "kitchen_rbin")

# The map, or an argument error naming the first malformed field. `deep`
# also runs the checks predict() leaves to C++ (finite frequencies, sorted
# bin keys), for methods that do not compute features: print(), coef(),
# krr_fit().
validate_map <- function(map, arg = rlang::caller_arg(map), deep = FALSE,
                         call = rlang::caller_env()) {
  class <- map_classes[inherits(map, map_classes, which = TRUE) > 0][1]
  if (is.na(class) || !is.list(map)) {
    abort_arg("{.arg {arg}} must be a feature map from {.fn rff}, {.fn fastfood} or {.fn rbin}, not {.obj_type_friendly {map}}.",
              call = call)
  }
  problem <- map_common_problem(map, class)
  if (is.null(problem)) {
    problem <- switch(class,
      kitchen_rff = rff_map_problem(map),
      kitchen_fastfood = fastfood_map_problem_cpp(map),
      kitchen_rbin = rbin_map_problem(map))
  }
  if (is.null(problem) && deep && class != "kitchen_fastfood") {
    # Features of no rows: the C++ glue checks the whole map first.
    none <- matrix(0, 0, map$d)
    out <- if (class == "kitchen_rff") {
      rff_features_cpp(none, map$projection, map$center, map$phases,
                       match(map$type, c("cos_sin", "cos_phase")) - 1L, FALSE, 1L, 0L)
    } else {
      hashed <- !is.null(map$n_buckets)
      rbin_columns_cpp(none, map$pitch, map$shift, map$center, map$scale,
                       if (hashed) raw(0) else map$keys, if (hashed) integer(0) else map$n_bins,
                       if (hashed) map$n_buckets else 0, 1L, 0L)
    }
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

# What every map has: dimension, feature count, kernel, rescaling, names.
map_common_problem <- function(map, class) {
  d <- map$d
  if (!is_whole(d)) return("{.field d} must be a whole number >= 1.")
  if (!is_whole(map$n_features)) return("{.field n_features} must be a whole number >= 1.")
  if (!kernel_ok(map$kernel)) return("{.field kernel} must be a kitchen kernel object.")
  if (!isTRUE(map$scaling %in% c("standard", "minmax", "none")) || length(map$scaling) != 1L) {
    return("{.field scaling} must be {.val standard}, {.val minmax} or {.val none}.")
  }
  if (!is_doubles(map$center, d) || !all(is.finite(map$center))) {
    return(paste0("{.field center} must hold ", d, " finite doubles."))
  }
  if (!is_doubles(map$scale, d) || !all(is.finite(map$scale)) || !all(map$scale > 0)) {
    return(paste0("{.field scale} must hold ", d, " positive finite doubles."))
  }
  names <- map$col_names
  if (!is.null(names) && (!is.character(names) || length(names) != d || anyNA(names))) {
    return(paste0("{.field col_names} must be NULL or ", d, " column names."))
  }
  if (class != "kitchen_rbin" && !isTRUE(map$type %in% c("cos_sin", "cos_phase") && length(map$type) == 1L)) {
    return("{.field type} must be {.val cos_sin} or {.val cos_phase}.")
  }
  if (identical(map$type, "cos_sin") && map$n_features %% 2 != 0) {
    return("{.field n_features} must be even for {.val cos_sin} features.")
  }
  NULL
}

# Frequencies and phases; their finiteness is checked in C++ (the offsets
# computed from them are finite only if they all are).
rff_map_problem <- function(map) {
  m <- if (map$type == "cos_sin") map$n_features / 2 else map$n_features
  if (!is_double_matrix(map$projection, map$d, m)) {
    return(paste0("{.field projection} must be a ", map$d, " x ", m, " double matrix."))
  }
  if (map$type == "cos_phase" && !is_doubles(map$phases, m)) {
    return(paste0("{.field phases} must hold ", m, " doubles."))
  }
  NULL
}

# Grids and bin tables; the keys' order is checked in C++.
rbin_map_problem <- function(map) {
  d <- map$d
  n_grids <- map$n_grids
  if (!is_whole(n_grids)) return("{.field n_grids} must be a whole number >= 1.")
  if (!is_double_matrix(map$pitch, d, n_grids) || !all(is.finite(map$pitch)) || !all(map$pitch > 0)) {
    return(paste0("{.field pitch} must be a ", d, " x ", n_grids, " matrix of positive finite doubles."))
  }
  if (!is_double_matrix(map$shift, d, n_grids) || !all(is.finite(map$shift))) {
    return(paste0("{.field shift} must be a ", d, " x ", n_grids, " matrix of finite doubles."))
  }
  if (!is.null(map$n_buckets)) {
    if (!is_whole(map$n_buckets)) return("{.field n_buckets} must be NULL or a whole number >= 1.")
    if (map$n_features != n_grids * map$n_buckets || map$n_features > .Machine$integer.max) {
      return("{.field n_features} must be {.field n_grids} x {.field n_buckets}, at most 2^31 - 1.")
    }
    return(NULL)
  }
  n_bins <- map$n_bins
  if (!is.integer(n_bins) || length(n_bins) != n_grids || anyNA(n_bins) || any(n_bins < 0)) {
    return(paste0("{.field n_bins} must hold ", n_grids, " non-negative integers."))
  }
  total <- sum(as.numeric(n_bins))
  if (!is.raw(map$keys) || length(map$keys) != 8 * total) {
    return(paste0("{.field keys} must be a raw vector of ", format(8 * total, scientific = FALSE),
                  " bytes (8 per bin in {.field n_bins})."))
  }
  if (map$n_features != total) return("{.field n_features} must be the number of bins in {.field n_bins}.")
  NULL
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
  if (!is_double_matrix(w, fit$map$n_features, ncol(w)) || ncol(w) < 1 || !all(is.finite(w))) {
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
