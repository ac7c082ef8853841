# krr_fit() on chunked data with a random binning map. The conjugate-gradient
# solver needs the products Z v and Z'u on every iteration (50 to 300 a
# fit, several times that for CV), so reading the chunks once per
# iteration would read the data hundreds of times. Instead each chunk is
# read once (in a worker under a future plan) and returns only the column
# of each row's bin per grid, 4 bytes a row and grid (CoverType at
# P = 50: 200 bytes a row, against 432 for its 54 doubles), with its
# response and weights; the main process holds those and solves exactly as
# in memory. Chunk i goes to fold chunk_fold(i, n_folds), as for dense
# maps. Bandwidth candidates (`sigma`) are searched as in memory
# (R/krr_binned_search.R), each one's bins found by two more passes over
# the chunks (its table of occupied bins, then the rows' columns:
# chunked_bins()).
binned_chunked_fit <- function(data, map, lambda, sigma, n_folds, tol, max_iter, backend,
                               verbose, engine, call, loss = "squared") {
  if (is.numeric(lambda) && any(lambda <= 0)) {
    abort_arg("{.arg lambda} candidates must be positive for {.fn rbin} maps, not {.val {lambda[lambda <= 0][1]}}.",
              call = call)
  }
  by_cv <- !(is.numeric(lambda) && length(lambda) == 1)
  if (!identical(sigma, "ard")) bandwidth_candidates(sigma, map, lambda, call = call)  # checked before any pass
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
  y_shift <- if (!identical(response$type, "class")) response_shift(y$y / y_scale, weights) else 0
  bins <- chunked_bins(data, engine, col_names, rows, list(map = map, cols = cols), call)
  ard <- isotropic <- NULL
  if (identical(sigma, "ard")) {
    # As in memory (R/krr.R), the proxy search on the first chunks' rows.
    ard <- with_stream_restored(ard_map_chunked(map, data, backend, call = call))  # R/ard.R
    sigma <- NULL
    if (isTRUE(ard$report$kept)) {
      if (!logistic && by_cv) isotropic <- map
      map <- bins$rebin(ard$map, ard$map$kernel$sigma)  # its bins: from every chunk
    }
  }
  note_sigma_candidates(sigma, map$d)  # R/krr.R
  sigmas <- if (identical(sigma, "auto") || !is.null(isotropic)) "auto" else
    bandwidth_candidates(sigma, map, lambda, call = call)
  search <- if (logistic) {
    binned_logistic_search(map, bins, max.col(y$y, "first"), response$levels, sigmas, lambda,
                           folds, weights, tol, max_iter, backend, verbose)  # R/krr_binned_logistic.R
  } else {
    binned_bandwidth_search(map, bins, y$y / y_scale - rep(y_shift, each = nrow(y$y)), sigmas,
                            lambda, folds, tol, max_iter,
                            backend, verbose, if (has_weights) weights,
                            classify = identical(response$type, "class"),
                            baseline = isotropic)  # R/krr_binned_search.R
  }
  rm(bins)
  search$read <- search$read + read
  search$solution$fitted <- NULL  # chunked fits keep no fitted values
  search <- unscale_search(unshift_search(search, y_shift), y_scale)  # R/response_scale.R
  if (!is.null(isotropic)) ard$report <- binned_ard_verdict(ard$report, search, folds)  # R/ard.R
  fit <- warn_if_interpolating(new_krr_fit(search, if (by_cv) seq_len(n_folds), response,
                                           length(weights), col_names, started, call))
  fit$ard <- ard$report
  fit$weights <- if (has_weights) weights
  if (!logistic && identical(response$type, "class")) {
    # for predict(type = "prob"), as in memory (R/calibration.R)
    fit$uncalibrated <- calibration_problem(
      fold_class_weights(y$y, weights, folds %||% calibration_folds(length(weights))),
      response$levels)  # R/calibration.R
    if (is.null(fit$uncalibrated)) {
      fit$calibration <- calibration_of_scores(search$solution$held_out_scores, y$y,
                                               if (has_weights) weights, backend)
    }
  }
  if (logistic) {
    fit$loss <- loss
    fit$logistic <- search$solution$logistic
  }
  fit
}

# Where binned_bandwidth_search() finds the bins of chunked rows (as
# memory_bins() does in memory): a candidate's table of occupied bins from
# one pass over the chunks (chunked_bin_table()), its rows' columns from
# another, checked against the `rows` each chunk held in the first pass.
# `first`: the map of the first pass and its columns, not read again.
chunked_bins <- function(data, engine, col_names, rows, first, call) {
  force(first)  # now: the caller's `map` may change after
  columns <- function(map) {
    if (identical(map, first$map)) return(first$cols)
    cols <- list()
    n_read <- for_each_chunk_task(data, "binned_chunk_columns",
                                  list(map = map, col_names = col_names, what = "holds bad data"),
                                  engine = engine, verbose = FALSE, call = call,
                                  consume = function(part, i) {
      if (i > length(rows) || nrow(part) != rows[i]) {
        abort_arg("Chunk {i} changed between passes over the data: chunk sources must give the same rows on every pass.",
                  call = call)
      }
      cols[[i]] <<- part
    })
    if (n_read != length(rows)) {
      abort_arg("The data changed between passes: {length(rows)} chunks, then {n_read}.", call = call)
    }
    do.call(rbind, cols)
  }
  list(rebin = function(map, sigma) {
         map <- rbin_rescaled(map, sigma)  # R/krr_binned_search.R
         if (is.null(map$n_buckets)) map <- chunked_bin_table(data, map, engine, col_names, call)
         map
       },
       columns = columns)
}

# The task run on each chunk of a later pass: the column of each row's bin
# per grid (the chunk was checked in the first pass).
binned_chunk_columns <- function(chunk, i, map, col_names, backend) {
  x <- map_input(map, match_chunk_columns(chunk$x, col_names), arg = "x")
  rbin_columns(map, x, task_backend(backend), arg = "x")
}

# The task run on each chunk (maybe in a worker): checks the chunk and
# returns the column of each row's bin per grid, its response coding,
# weights and column names. `col_names` (chunk 1's, when known and needed)
# orders the columns.
binned_chunk <- function(chunk, i, map, col_names, backend) {
  if (is.null(chunk$y)) abort_arg("The chunk has no response {.field y}.")
  given <- colnames(chunk$x)
  if (!is.null(given)) check_column_names(given, "x", NULL)
  # In chunk 1's order before clipping, which is column by column.
  rows <- chunk_map_input(map, match_chunk_columns(chunk$x, col_names))
  x <- rows$x
  names <- colnames(x)
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
