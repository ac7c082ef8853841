# krr_fit() on chunked data with a random binning map. The conjugate-gradient
# solver needs the products Z v and Z'u on every iteration (50 to 300 a
# fit, several times that for CV), so reading the chunks once per
# iteration would read the data hundreds of times. Instead each chunk is
# read once (in a worker under a future plan) and returns only the column
# of each row's bin per grid, 4 bytes a row and grid (CoverType at
# P = 50: 200 bytes a row, against 432 for its 54 doubles), with its
# response and weights; the main process holds those and solves exactly as
# in memory. Chunk i goes to fold chunk_fold(i, n_folds), as for dense
# maps. Bandwidth candidates would need the data again for each
# candidate's bin table: the map's bandwidth is kept.
binned_chunked_fit <- function(data, map, lambda, sigma, n_folds, tol, max_iter, backend,
                               verbose, engine, call, loss = "squared") {
  if (!is.null(sigma)) {
    abort_arg(c("Choosing {.arg sigma} is not available for {.fn rbin} maps on chunked data.",
                i = "Build the map with the bandwidth to use (the bins depend on it), and keep {.code sigma = NULL}."),
              call = call)
  }
  if (is.numeric(lambda) && any(lambda <= 0)) {
    abort_arg("{.arg lambda} candidates must be positive for {.fn rbin} maps, not {.val {lambda[lambda <= 0][1]}}.",
              call = call)
  }
  by_cv <- !(is.numeric(lambda) && length(lambda) == 1)
  if (identical(lambda, "gcv")) lambda <- "cv"  # binned fits have no GCV
  started <- proc.time()[["elapsed"]]
  parts <- list()
  response <- NULL
  col_names <- NULL
  args <- list(map = map, col_names = NULL, what = "holds bad data")
  n_read <- for_each_chunk_task(data, "binned_chunk", args, engine = engine, verbose = verbose,
                                call = call, consume = function(part, i) {
    with_chunk(data, i, "holds bad data", call = call, {
      if (i == 1) col_names <<- part$col_names
      part <- chunk_in_first_order(data, i, part, col_names, binned_chunk, args, engine)
      merged <- merge_response(response, part$response)
      response <<- merged$state
      part$columns <- merged$columns
      part$response <- NULL
      parts[[i]] <<- part
    })
  })
  if (n_read == 0) abort_arg("{.arg x} has no chunks: chunk 1 is {.code NULL}.", call = call)
  if (by_cv && n_read < n_folds) {
    abort_arg("{.code lambda = \"cv\"} assigns whole chunks to folds: {.arg n_folds} ({n_folds}) must not exceed the number of chunks ({n_read}).",
              call = call)
  }
  rows <- vapply(parts, function(p) nrow(p$cols), 0)
  warn_rows_far_outside(sum(vapply(parts, `[[`, 0, "far_outside")), sum(rows), call)  # R/clip.R
  cols <- do.call(rbind, lapply(parts, `[[`, "cols"))
  y <- chunked_binned_response(parts, response, call)
  response <- y$response
  weights <- unlist(lapply(seq_along(parts), function(i) parts[[i]]$weights %||% rep(1, rows[i])))
  has_weights <- any(vapply(parts, function(p) !is.null(p$weights), TRUE))
  folds <- if (by_cv) rep(chunk_fold(seq_along(parts), n_folds), rows)
  read <- proc.time()[["elapsed"]] - started
  rm(parts)

  logistic <- loss == "logistic"
  if (logistic && !identical(response$type, "class")) {
    abort_arg("{.code loss = \"logistic\"} needs class labels (a factor or character {.field y} in each chunk), not numbers.",
              call = call)
  }
  y_scale <- if (logistic) 1 else response_scale(y$y)
  solution <- if (logistic) {
    binned_logistic_ridge(map, cols, max.col(y$y, "first"), response$levels, weights, folds,
                          lambda, tol, max_iter, backend, verbose, call = call)  # R/krr_binned_logistic.R
  } else {
    binned_ridge(map, NULL, y$y / y_scale, lambda, folds, tol, max_iter, backend,
                 verbose, if (has_weights) weights, cols = cols,
                 classify = identical(response$type, "class"))
  }
  solution$fitted <- NULL  # chunked fits keep no fitted values
  search <- unscale_search(list(map = map, solution = solution, sigma_path = NULL, read = read),
                           y_scale)
  fit <- warn_if_interpolating(new_krr_fit(search, if (by_cv) seq_len(n_folds), response,
                                           length(weights), col_names, started, call))
  fit$weights <- if (has_weights) weights
  if (!logistic && identical(response$type, "class")) {
    # for predict(type = "prob"), as in memory (R/calibration.R)
    fit$calibration <- calibration_of_scores(search$solution$held_out_scores, y$y,
                                             if (has_weights) weights, backend)
  }
  if (logistic) {
    fit$loss <- loss
    fit$logistic <- solution$logistic
  }
  fit
}

# The task run on each chunk (maybe in a worker): checks the chunk and
# returns the column of each row's bin per grid, its response coding,
# weights and column names. `col_names` (chunk 1's, when known and needed)
# orders the columns.
binned_chunk <- function(chunk, i, map, col_names, backend) {
  if (is.null(chunk$y)) abort_arg("The chunk has no response {.field y}.")
  rows <- chunk_map_input(map, chunk$x)
  x <- rows$x
  names <- colnames(x)
  if (!is.null(names)) check_column_names(names, "x", NULL)
  if (!is.null(col_names)) x <- match_chunk_columns(x, col_names)
  coded <- chunk_response(chunk$y, nrow(x))
  weights <- check_weights(chunk$weights, nrow(x), arg = "weights")
  list(cols = rbin_columns(map, x, task_backend(backend), arg = "x"), y = coded$y,
       response = coded$state, weights = weights, col_names = names,
       far_outside = rows$far_outside)
}

# The response of all chunks as krr_response() codes it in memory: numbers
# as they are, classes as +1 / -1 columns in the order of their levels.
chunked_binned_response <- function(parts, response, call) {
  k <- response_width(response)
  y <- do.call(rbind, lapply(parts, function(p) {
    out <- matrix(0, nrow(p$y), k)
    out[, p$columns] <- p$y
    out
  }))
  if (identical(response$type, "class")) {
    response <- class_levels(response, call)
    y <- 2 * y[, match(response$levels, response$seen), drop = FALSE] - 1
    colnames(y) <- response$levels
  } else {
    colnames(y) <- response$names
  }
  list(y = y, response = response)
}
