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
                               verbose, engine, call, loss = "squared", seed = NULL,
                               search_by_default = FALSE) {
  if (is.numeric(lambda) && any(lambda <= 0)) {
    abort_arg("{.arg lambda} candidates must be positive for {.fn rbin} maps, not {.val {lambda[lambda <= 0][1]}}.",
              call = call)
  }
  by_cv <- !(is.numeric(lambda) && length(lambda) == 1)
  candidates <- if (!identical(sigma, "ard")) bandwidth_candidates(sigma, map, lambda, call = call)  # checked before any pass
  if (identical(lambda, "gcv")) lambda <- "cv"  # binned fits have no GCV
  started <- proc.time()[["elapsed"]]
  parts <- list()
  response <- NULL
  col_names <- NULL
  weighted <- NULL  # whether the chunks so far came with weights
  args <- list(map = map, col_names = NULL, what = "holds bad data")
  first_pass <- new.env()  # each chunk's fingerprint, for later passes (chunked_bins())
  n_read <- for_each_chunk_task(data, "binned_chunk", args, engine = engine, verbose = verbose,
                                call = call, consume = function(part, i) {
    with_chunk(data, i, "holds bad data", call = call, {
      if (!length(parts)) col_names <<- part$col_names  # the first chunk with rows
      part <- chunk_in_first_order(data, i, part, col_names, binned_chunk, args, engine)
      check_same_chunk(first_pass, i, part$fingerprint)
      weighted <<- check_chunk_weighting(weighted, !is.null(part$weights))  # R/krr_chunked.R
      merged <- merge_response(response, part$response)
      response <<- merged$state
      part$columns <- merged$columns
      part$response <- NULL
      part$chunk <- i
      parts[[length(parts) + 1]] <<- part  # (chunks without rows have none)
    })
  })
  check_chunks_read(n_read, if (by_cv) n_folds, call)  # R/krr_chunked.R
  check_chunk_count(first_pass, n_read, call)
  rows <- vapply(parts, function(p) nrow(p$cols), 0)
  warn_rows_far_outside(sum(vapply(parts, `[[`, 0, "far_outside")), sum(rows), call)  # R/clip.R
  cols <- do.call(rbind, lapply(parts, `[[`, "cols"))
  y <- chunked_binned_response(parts, response, call)
  response <- y$response
  weights <- unlist(lapply(seq_along(parts), function(i) parts[[i]]$weights %||% rep(1, rows[i])))
  has_weights <- any(vapply(parts, function(p) !is.null(p$weights), TRUE))
  folds <- if (by_cv) rep(chunk_fold(vapply(parts, `[[`, 0, "chunk"), n_folds), rows)
  fold_weights <- if (by_cv) vapply(seq_len(n_folds), function(k) sum(weights[folds == k]), 0)
  check_chunk_weights(sum(weights), fold_weights, call)  # R/krr_chunked.R
  read <- proc.time()[["elapsed"]] - started
  rm(parts)

  logistic <- loss == "logistic"
  if (logistic && !identical(response$type, "class")) {
    abort_arg("{.code loss = \"logistic\"} needs class labels (a factor or character {.field y} in each chunk), not numbers.",
              call = call)
  }
  y_scale <- if (logistic) 1 else response_scale(y$y)
  shifted <- shifted_response(y$y / y_scale, weights, identical(response$type, "class"))
  bins <- chunked_bins(data, engine, col_names, first_pass, list(map = map, cols = cols), call)
  ard <- isotropic <- NULL
  if (identical(sigma, "ard")) {
    # As in memory (R/krr.R), the proxy search on the first chunks' rows.
    ard <- with_stream_restored(with_seed(derived_seed(seed),
                                          ard_map_chunked(map, data, backend, call = call)))  # R/ard.R
    sigma <- NULL  # dropped: as without "ard" (searched by default below)
    if (isTRUE(ard$report$kept)) {
      if (!logistic && by_cv) isotropic <- map
      map <- bins$rebin(ard$map, ard$map$kernel$sigma)  # its bins: from every chunk
    }
  }
  # as in memory (R/krr.R), once the rows are counted
  searched_by_default <- search_by_default && sum(weights > 0) >= binned_search_rows
  if (searched_by_default && !isTRUE(ard$report$kept)) sigma <- "auto"
  note_sigma_candidates(sigma, map$d)  # R/krr.R
  sigmas <- if (identical(sigma, "auto") || !is.null(isotropic)) "auto" else
    candidates %||% bandwidth_candidates(sigma, map, lambda, call = call)  # "ard": its map's
  search <- if (logistic) {
    binned_logistic_search(map, bins, max.col(y$y, "first"), response$levels, sigmas, lambda,
                           folds, weights, tol, max_iter, backend, verbose)  # R/krr_binned_logistic.R
  } else {
    binned_bandwidth_search(map, bins, shifted$y, sigmas,
                            lambda, folds, tol, max_iter,
                            backend, verbose, if (has_weights) weights,
                            classify = identical(response$type, "class"),
                            baseline = isotropic,
                            starts = if (!is.null(isotropic)) binned_ard_starts(ard),
                            baseline_auto = searched_by_default)  # R/krr_binned_search.R
  }
  rm(bins)
  search$read <- search$read + read
  search$solution$fitted <- NULL  # chunked fits keep no fitted values
  search <- unscale_search(unshift_search(search, shifted$shift), y_scale)  # R/response_scale.R
  if (!is.null(isotropic)) ard$report <- binned_ard_verdict(ard$report, search, folds)  # R/ard.R
  fit <- warn_if_interpolating(new_krr_fit(search, if (by_cv) seq_len(n_folds), response,
                                           length(weights), col_names, started, call))
  fit$ard <- ard$report
  fit$seed <- seed
  fit$weights <- if (has_weights) weights
  if (!logistic && identical(response$type, "class")) {
    # for predict(type = "prob"), as in memory (R/calibration.R)
    fit$uncalibrated <- calibration_problem(
      fold_class_weights(y$y, weights, folds %||% calibration_folds(length(weights))),
      response$levels, call)  # R/calibration.R
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
# another, each chunk checked against its fingerprint of the first pass
# (the environment `first_pass`, as chunked_statistics() checks).
# `first`: the map of the first pass and its columns, not read again.
chunked_bins <- function(data, engine, col_names, first_pass, first, call) {
  force(first)  # now: the caller's `map` may change after
  columns <- function(map) {
    if (identical(map, first$map)) return(first$cols)
    cols <- list()
    n_read <- for_each_chunk_task(data, "binned_chunk_columns",
                                  list(map = map, col_names = col_names, what = "holds bad data"),
                                  engine = engine, verbose = FALSE, call = call,
                                  consume = function(part, i) {
      with_chunk(data, i, "holds bad data", call = call, check_same_chunk(first_pass, i, part$fingerprint))
      cols[[i]] <<- part$cols
    })
    check_chunk_count(first_pass, n_read, call)
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
# per grid, and what the chunk must still hold (chunk_fingerprint()).
binned_chunk_columns <- function(chunk, i, map, col_names, backend) {
  rows <- training_chunk(chunk, map, col_names)  # R/krr_chunked.R
  list(cols = rbin_columns(map, rows$x, task_backend(backend), arg = "x"),
       fingerprint = chunk_fingerprint(rows$x, rows$coded, rows$weights))
}

# The task run on each chunk (maybe in a worker): checks the chunk and
# returns the column of each row's bin per grid, its response coding,
# weights and column names. `col_names` (chunk 1's, when known and needed)
# orders the columns.
binned_chunk <- function(chunk, i, map, col_names, backend) {
  rows <- training_chunk(chunk, map, col_names)  # R/krr_chunked.R
  list(cols = rbin_columns(map, rows$x, task_backend(backend), arg = "x"), y = rows$coded$y,
       response = rows$coded$state, weights = rows$weights, col_names = colnames(rows$x),
       far_outside = rows$far_outside,
       fingerprint = chunk_fingerprint(rows$x, rows$coded, rows$weights))
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
