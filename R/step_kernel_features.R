# step_kernel_features(): random kernel features as a recipes step, so any
# model (glmnet for a kernel lasso or logistic model, ...) can use them.
# recipes is a Suggests: prep(), bake(), tidy() and required_pkgs() are
# registered lazily for their generics (S3method(recipes::prep, ...)).

#' Random kernel features in a recipe
#'
#' `step_kernel_features()` is a \pkg{recipes} step that replaces numeric
#' predictors by random features of a kernel: a [rff()] or [fastfood()]
#' map is built on the training data in `prep()` (its input rescaling and
#' its random draws), and `bake()` adds the `num_features` feature columns
#' it computes for any data. A linear model on those columns approximates a
#' kernel machine, so any model of the tidymodels can use them (a lasso or
#' a logistic regression with glmnet, for example). Needs \pkg{recipes}.
#'
#' @param recipe A recipe (from `recipes::recipe()`).
#' @param ... Selectors of the numeric columns to featurise (see
#'   `recipes::selections`), such as `recipes::all_numeric_predictors()`.
#' @param role The role of the new columns.
#' @param trained Whether the step has been prepared (set by recipes).
#' @param map `"rff"` or `"fastfood"`.
#' @param num_features Number of features, rounded up to an even number
#'   (cosine and sine pairs), as [kernel_ridge()] rounds it; tunable (see
#'   [num_features()]).
#' @param sigma Bandwidth of the kernel, or `NULL` for the median
#'   distance between training rows (see [rff()]); tunable (see
#'   [kernel_bandwidth()]).
#' @param kernel The kernel (a name or an object from [kernels]).
#' @param seed Seed of the map's random draws (drawn from R's stream when
#'   the step is made, so a recipe prepares the same map each time).
#' @param prefix Prefix of the new column names, numbered with as many
#'   digits as the count needs (`kf_1` ... `kf_8`, `kf_001` ... `kf_100`).
#' @param keep_original_cols Keep the selected columns next to the features?
#' @param object The map, once prepared.
#' @param columns The selected columns, once prepared.
#' @param skip Skip the step when baking new data? (See recipes.)
#' @param id The step's identifier.
#' @details The selected training columns must be free of NA (impute them in
#'   an earlier step); rows of new data with NA in them get NA features, as
#'   recipes' own steps give them. Selectors that match no column leave the
#'   data as it is.
#' @return The recipe with the step added. `tidy()` of the step gives one
#'   row per selected column, with the map, the number of features, the
#'   bandwidth and the step's id.
#' @seealso [rff()], [fastfood()], [kernel_ridge()].
#' @export
#' @examples
#' if (requireNamespace("recipes", quietly = TRUE)) {
#'   rec <- step_kernel_features(recipes::recipe(mpg ~ ., data = mtcars),
#'                               recipes::all_numeric_predictors(),
#'                               num_features = 20, sigma = 3, seed = 1)
#'   prepped <- recipes::prep(rec)
#'   baked <- recipes::bake(prepped, new_data = mtcars[1:3, ])
#'   print(dim(baked))  # inside if (): print() shows each value
#'   print(generics::tidy(prepped, number = 1))
#' }
step_kernel_features <- function(recipe, ..., role = "predictor", trained = FALSE, map = "rff",
                                 num_features = 100, sigma = NULL, kernel = "gaussian",
                                 seed = sample.int(10^5, 1), prefix = "kf_",
                                 keep_original_cols = FALSE, object = NULL, columns = NULL,
                                 skip = FALSE, id = NULL) {
  rlang::check_installed("recipes", "for `step_kernel_features()`.")
  terms <- rlang::enquos(...)
  if ("n_features" %in% names(terms)) {
    # (in `...` it would be taken as a column selector, with recipes' own error)
    abort_arg("{.fn step_kernel_features} takes {.arg num_features} (tidymodels' naming), not {.arg n_features}.")
  }
  map <- match_choice(map, c("rff", "fastfood"))
  # num_features and sigma may be tune() placeholders until prep().
  if (is.numeric(num_features)) num_features <- cos_sin_count(num_features)  # R/parsnip.R
  check_count(seed, min = 0)
  check_flag(keep_original_cols)
  if (!is.character(prefix) || length(prefix) != 1L || is.na(prefix)) {
    abort_arg("{.arg prefix} must be a single string, not {.obj_type_friendly {prefix}}.")
  }
  recipes::add_step(recipe, new_step_kernel_features(
    terms = terms, role = role, trained = trained, map = map,
    num_features = num_features, sigma = sigma, kernel = kernel, seed = seed,
    prefix = prefix, keep_original_cols = keep_original_cols, object = object,
    columns = columns, skip = skip, id = id %||% recipes::rand_id("kernel_features")))
}

new_step_kernel_features <- function(terms, role, trained, map, num_features, sigma, kernel,
                                     seed, prefix, keep_original_cols, object, columns, skip,
                                     id) {
  recipes::step(subclass = "kernel_features", terms = terms, role = role, trained = trained,
                map = map, num_features = num_features, sigma = sigma, kernel = kernel,
                seed = seed, prefix = prefix, keep_original_cols = keep_original_cols,
                object = object, columns = columns, skip = skip, id = id)
}

#' @exportS3Method recipes::prep
prep.step_kernel_features <- function(x, training, info = NULL, ...) {
  columns <- recipes::recipes_eval_select(x$terms, training, info)
  if (length(columns) == 0L) {
    # nothing to featurise: the step does nothing, as recipes' own steps
    return(new_step_kernel_features(
      terms = x$terms, role = x$role, trained = TRUE, map = x$map,
      num_features = x$num_features, sigma = x$sigma, kernel = x$kernel, seed = x$seed,
      prefix = x$prefix, keep_original_cols = x$keep_original_cols, object = NULL,
      columns = character(0), skip = x$skip, id = x$id))
  }
  numeric <- vapply(training[columns], function(col) is.numeric(col) && !is.object(col), TRUE)
  if (!all(numeric)) {
    abort_arg(c("{.fn step_kernel_features} needs numeric columns.",
                x = "Not numeric: {.val {columns[!numeric]}}."), call = NULL)
  }
  # a tuned value arrives here, of any parity
  num_features <- cos_sin_count(x$num_features, call = NULL)
  if (!is.null(x$sigma)) check_positive(x$sigma, arg = "sigma", call = NULL)
  data <- as.matrix(training[columns])
  check_complete_columns(data)  # else rff()'s error names its `x`
  map <- switch(x$map,
    rff = rff(data, n_features = num_features, kernel = x$kernel, sigma = x$sigma, seed = x$seed),
    fastfood = fastfood(data, n_features = num_features, kernel = x$kernel, sigma = x$sigma,
                        seed = x$seed))
  new_step_kernel_features(
    terms = x$terms, role = x$role, trained = TRUE, map = x$map,
    num_features = num_features, sigma = x$sigma, kernel = x$kernel, seed = x$seed,
    prefix = x$prefix, keep_original_cols = x$keep_original_cols, object = map,
    columns = columns, skip = x$skip, id = x$id)
}

#' @exportS3Method recipes::bake
bake.step_kernel_features <- function(object, new_data, ...) {
  if (!length(object$columns)) return(new_data)  # the selectors matched no column
  recipes::check_new_data(object$columns, object, new_data)
  data <- as.matrix(new_data[object$columns])
  # rows with NA get NA features, as recipes' steps give them
  complete <- stats::complete.cases(data)
  features <- pad_rows(predict(object$object, data[complete, , drop = FALSE]), complete,
                       nrow(data))  # R/broom.R
  colnames(features) <- recipes::names0(ncol(features), object$prefix)
  keep <- if (object$keep_original_cols) names(new_data) else setdiff(names(new_data), object$columns)
  clash <- intersect(colnames(features), keep)
  if (length(clash)) {
    abort_arg(c("The new columns of {.fn step_kernel_features} would replace columns of the data.",
                x = "Already there: {.val {clash}}.", i = "Choose another {.arg prefix}."),
              call = NULL)
  }
  tidy_frame(cbind(as.data.frame(new_data)[keep], as.data.frame(features)))
}

#' @export
print.step_kernel_features <- function(x, width = max(20, options()$width - 35), ...) {
  # num_features may still be a tune() placeholder
  title <- sprintf("Random kernel features (%s, %s) on ", x$map, rlang::as_label(x$num_features))
  recipes::print_step(x$columns, x$terms, x$trained, title, width)
  invisible(x)
}

#' @exportS3Method generics::tidy
tidy.step_kernel_features <- function(x, ...) {
  terms <- if (x$trained) x$columns else
    vapply(x$terms, function(term) rlang::as_label(term), "")
  # tune() placeholders (calls) are shown as NA until prep()
  known <- function(value) if (is.numeric(value)) value else NA_real_
  sigma <- if (x$trained && !is.null(x$object)) x$object$kernel$sigma else known(x$sigma)
  tidy_frame(data.frame(terms = unname(terms), map = rep(x$map, length(terms)),
                        num_features = rep(known(x$num_features), length(terms)),
                        sigma = rep(sigma, length(terms)), id = rep(x$id, length(terms)),
                        stringsAsFactors = FALSE))
}

#' @exportS3Method generics::tunable
tunable.step_kernel_features <- function(x, ...) {
  tidy_frame(data.frame(
    name = c("num_features", "sigma"),
    call_info = I(list(list(pkg = "kitchen", fun = "num_features"),
                       list(pkg = "kitchen", fun = "kernel_bandwidth"))),
    source = "recipe", component = "step_kernel_features", component_id = x$id,
    stringsAsFactors = FALSE))
}

#' @exportS3Method generics::required_pkgs
required_pkgs.step_kernel_features <- function(x, ...) "kitchen"

# The step's training columns must hold no NA (the map's rescaling and
# bandwidth come from them), with the error naming the step and the columns.
check_complete_columns <- function(data) {
  holes <- colnames(data)[colSums(is.na(data)) > 0]
  if (length(holes)) {
    abort_arg(c("{.fn step_kernel_features} needs training data without NA.",
                x = "NA in: {.val {holes}}.",
                i = "Impute them in an earlier step, for example {.fn recipes::step_impute_median}."),
              call = NULL)
  }
}
