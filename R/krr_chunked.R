# krr_fit() and predict() on chunked data (R/chunked.R): one pass over the
# chunks per bandwidth candidate gathers the sufficient statistics (in this
# process or as futures: R/chunked_future.R), with chunks matched to the
# map's columns by name and checked to be the same on every pass.

#' @rdname krr_fit
#' @export
krr_fit.kitchen_chunked <- function(x, features = "rff", lambda = "cv", sigma = NULL, n_folds = 5,
                                    n_threads = NULL, verbose = interactive(),
                                    block_size = 4096, parallel = c("auto", "future", "none"),
                                    loss = c("squared", "logistic"), tol = NULL, max_iter = 1000,
                                    ...) {
  call <- fit_call(match.call())
  if (...length()) {
    if ("y" %in% names(list(...))) {
      abort_arg("{.arg y} must not be given with chunked data: each chunk holds its response.")
    }
    if ("weights" %in% names(list(...))) {
      abort_arg(c("{.arg weights} must not be given with chunked data: each chunk holds its own.",
                  i = "Give each chunk a {.field weights} element, or name the column with {.code chunked(paths, weights = )}."))
    }
    if ("folds" %in% names(list(...))) {
      abort_arg(c("{.arg folds} must not be given with chunked data: CV's folds are whole chunks.",
                  i = "Chunk i is in fold (i - 1) %% n_folds + 1; set {.arg n_folds}, or order the chunks."))
    }
  }
  backend <- with_progress(backend_settings(n_threads), verbose)  # this process's; the chunks' in `engine`
  map_args <- map_seed_drawn(features, list(...))
  fit_seed <- map_args$seed  # given or drawn, as in memory
  map <- chunked_map(features, x, map_args)
  if ((is.null(sigma) || identical(sigma, "ard")) && bandwidth_left_to_krr_fit(features, map, ...)) {
    # As in memory (R/default_bandwidth.R), on the first chunks' rows.
    map <- with_seed(map_args$seed, default_bandwidth_map_chunked(map, x, backend))
  }
  binned <- inherits(map, "kitchen_rbin")
  if (!binned) check_gram_size(map$n_features, features)
  check_lambda(lambda)
  check_flag(verbose)
  check_count(block_size)
  loss <- match_choice(loss, c("squared", "logistic"))
  logistic <- loss == "logistic"
  # The logistic loss has no GCV: every lambda choice is by CV.
  logistic_cv <- logistic && !(is.numeric(lambda) && length(lambda) == 1)
  note_cv_for_gcv(lambda, binned, logistic, n_folds)  # R/default_lambda.R
  if (logistic && is.character(lambda)) lambda <- "cv"
  if (identical(lambda, "cv") || logistic_cv) check_count(n_folds, min = 2)
  if (missing(lambda) && !binned) lambda <- chunked_default_lambda(x, n_folds)
  engine <- chunk_engine(parallel, n_threads, backend)
  tol <- tol %||% default_tol(binned && loss == "squared")  # R/krr_binned.R
  if (binned) {
    check_positive(tol)
    check_count(max_iter)
    # (with "ard": whether the fit without it searches, for a fallback to that fit)
    search <- binned_search_by_default(if (identical(sigma, "ard")) NULL else sigma, features, map,
                                       ..., loss = loss, lambda = lambda)
    return(binned_chunked_fit(x, map, lambda, sigma, n_folds, tol, max_iter, backend, verbose,
                              engine, call, loss, fit_seed, search))  # R/krr_binned_chunked.R
  }
  ard <- NULL
  if (identical(sigma, "ard")) {
    # as in memory (R/krr.R): under the map's seed, the stream untouched
    ard <- with_stream_restored(with_seed(derived_seed(fit_seed),
                                          ard_map_chunked(map, x, backend)))  # R/ard.R
    map <- ard$map
    sigma <- NULL
  }
  note_sigma_candidates(sigma, map$d)  # R/krr.R
  sigmas <- if (!is.null(ard)) ard_scale_candidates(ard, map, lambda, loss) else
    bandwidth_candidates(sigma, map, lambda)  # (R/ard.R)
  fold_count <- if (identical(lambda, "cv") || logistic_cv) n_folds
  here <- rlang::current_env()  # errors from the pass name krr_fit()
  first_pass <- new.env()  # what each chunk held, to check later passes against

  # (chunked classes gather calibration folds only with CV: GCV helps them too)
  need <- fit_memory_need(map, features, NA_real_, FALSE, fold_count, length(sigmas),
                          regression = TRUE)  # R/fit_memory.R
  if (!logistic) check_fit_memory(need)

  started <- proc.time()[["elapsed"]]
  search <- if (logistic) {
    check_positive(tol)
    check_count(max_iter)
    chunked_logistic_fit(x, map, sigmas, lambda, fold_count, tol, max_iter, block_size, engine,
                         verbose, here)  # R/krr_logistic_chunked.R
  } else with_memory_hint(krr_bandwidth_search(map, sigmas, lambda, function(candidate) {
    chunked_statistics(x, candidate, fold_count, block_size, engine, verbose, call = here,
                       first_pass = first_pass)
  }, backend), need)
  if (!logistic) {
    y_shift <- (search$stats$y_shift %||% 0) / search$stats$y_scale
    search <- unscale_search(unshift_search(search, y_shift), search$stats$y_scale)  # R/response_scale.R
  }
  info <- search$stats$chunks
  warn_rows_far_outside(info$far_outside, search$stats$rows)  # R/clip.R
  fit <- warn_if_interpolating(new_krr_fit(search, if (!is.null(fold_count)) seq_len(fold_count),
                                           info$response, search$stats$rows, info$col_names,
                                           started, call))
  fit$ard <- ard$report
  fit$seed <- fit_seed
  # nobs(): rows of non-zero weight (chunked fits keep no weights)
  fit$observed_rows <- search$stats$positive_rows
  warn_if_chunks_differ(fit$path, fit$lambda, observed_rows(search$stats), fit$total_weight)
  if (logistic) {
    fit$loss <- loss
    fit$logistic <- search$solution$logistic
  } else if (identical(info$response$type, "class")) {
    # for predict(type = "prob"), as in memory (R/chunked_calibration.R);
    # a class's weight in a fold is (n + its +1 / -1 codes' sum) / 2
    folds <- search$stats$folds
    fit$uncalibrated <- if (!is.null(folds)) calibration_problem(
      do.call(rbind, lapply(folds, function(f) (f$n + f$ysum) / 2)), info$response$levels, call)
    if (is.null(fit$uncalibrated)) {
      fit$calibration <- chunked_class_calibration(x, fit, search$stats, block_size, backend,
                                                   engine, verbose, here, first_pass)
    }
  }
  fit
}

# The map of a chunked fit: given, or built by name from the chunks (one
# pass, two for rbin: R/map_setup_chunked.R) as krr_features() builds it
# from data in memory. Nystroem centers are rows: they need the data in
# memory.
chunked_map <- function(features, data, args, call = rlang::caller_env()) {
  if (identical(features, "nystrom")) {
    abort_arg(c("{.code features = \"nystrom\"} needs the training rows in memory (its centers are rows).",
                i = "Build the map on a sample of rows, for example {.code nystrom(read_chunk(x, 1)$x, 1000)}, or use {.val rff}, {.val fastfood} or {.val rbin}."),
              call = call)
  }
  do.call(krr_features, c(list(features, data), args, list(call = call)))
}

# The CV fold of chunk i (whole chunks are folds, in turn), for every
# chunked fit: least squares, rbin and logistic.
chunk_fold <- function(i, n_folds) (i - 1) %% n_folds + 1

# One pass over the chunks: the sufficient statistics of krr_statistics(),
# with `chunks` describing the response and columns seen. Each chunk gives
# its own partial sums (fit_chunk(), in this process or in a future), added
# here in chunk order, so that the result does not depend on the engine.
# With `n_folds`, chunk i goes to fold chunk_fold(i, n_folds). Each pass
# (one per bandwidth candidate) must read the same chunks: the first records
# each chunk's fingerprint in the environment `first_pass`, later ones
# compare.
chunked_statistics <- function(data, map, n_folds, block_size, engine, verbose, call,
                               first_pass = new.env()) {
  hold_fit_workspace()  # block buffers and a spare Z'Z kept from chunk to chunk
  acc <- NULL
  response <- NULL
  col_names <- NULL
  far_outside <- 0  # rows clipped far from the map's range (R/clip.R)
  weighted <- NULL  # whether the chunks so far came with weights
  args <- list(map = map, col_names = NULL, block_size = block_size, what = "holds bad data")
  n_read <- for_each_chunk_task(data, "fit_chunk", args, engine = engine, verbose = verbose,
                                call = call, consume = function(part, i) {
    with_chunk(data, i, "holds bad data", call = call, {
      if (is.null(acc)) col_names <<- part$col_names  # the first chunk with rows
      part <- chunk_in_first_order(data, i, part, col_names, fit_chunk, args, engine)
      check_same_chunk(first_pass, i, part$fingerprint)
      weighted <<- check_chunk_weighting(weighted, part$weighted)
      merged <- merge_response(response, part$response)
      response <<- merged$state
      fold <- if (!is.null(n_folds)) chunk_fold(i, n_folds)
      far_outside <<- far_outside + part$far_outside
      acc <<- add_partial(acc, map, part$stats, part$y_scale, merged$columns,
                          response_width(merged$state), n_folds, fold, part$y_shift)
    })
  })
  check_chunks_read(n_read, n_folds, call)
  check_chunk_count(first_pass, n_read, call)
  stats <- finish_statistics(acc)
  check_chunk_weights(stats$n, vapply(stats$folds, `[[`, 0, "n"), call)
  stats$y_scale <- acc$y_scale
  stats$y_shift <- acc$y_shift
  if (response$type == "class") {
    response <- class_levels(response, call)
    stats <- class_statistics(stats, response)
  }
  stats$chunks <- list(response = response, col_names = col_names, far_outside = far_outside)
  stats
}

# The task run on each chunk (maybe in a worker): checks the chunk and
# returns its partial sums (one triangle of Z'Z, Z'y, sums, y'y, n) with its
# response coding and column names; never the features. `col_names` (chunk
# 1's, when known and needed) orders the columns.
fit_chunk <- function(chunk, i, map, col_names, block_size, backend) {
  rows <- training_chunk(chunk, map, col_names)
  coded <- rows$coded
  # a response far from 0 is shifted by its mean (R/response_scale.R)
  shifted <- shifted_response(coded$y, rows$weights, coded$state$type == "class")
  y <- shifted$y
  y_scale <- response_scale(y)  # 1 for class indicators
  acc <- new_accumulator(map, ncol(coded$y))
  acc <- accumulate_rows(acc, map, rows$x, y / y_scale, NULL, block_size, task_backend(backend),
                         weights = rows$weights)
  list(stats = acc$total, y_scale = y_scale, y_shift = shifted$shift, response = coded$state,
       col_names = colnames(rows$x),
       far_outside = rows$far_outside, weighted = !is.null(rows$weights),
       fingerprint = chunk_fingerprint(rows$x, coded, rows$weights))
}

# What a fit reads of a training chunk, for every map: its rows in chunk 1's
# column order (`col_names`), clipped as the map clips (column by column, so
# the order comes first), its coded response and checked weights.
training_chunk <- function(chunk, map, col_names) {
  if (is.null(chunk$y)) abort_arg("The chunk has no response {.field y}.")
  if (length(dim(chunk$x)) == 2 && nrow(chunk$x) == 0) {  # (chunks of none are passed by)
    abort_arg("{.arg x} has no rows, but {.arg y} has {NROW(chunk$y)} value{?s} and {.arg weights} {length(chunk$weights)}: a chunk of no rows has none of either.")
  }
  given <- colnames(chunk$x)
  if (!is.null(given)) check_column_names(given, "x", NULL)  # they order the other chunks
  rows <- chunk_map_input(map, match_chunk_columns(chunk$x, col_names))
  weights <- check_weights(chunk$weights, nrow(rows$x), arg = "weights", whole = FALSE)
  list(x = rows$x, far_outside = rows$far_outside,
       coded = chunk_response(chunk$y, nrow(rows$x), weights), weights = weights)
}

# What a chunk must hold again on a later pass: its row count and sums
# weighted by row position (rows or labels in another order count as other
# data), y's class indicators also by the rank of their label (they sum to
# 1 in every row; their columns come in the order labels were first seen).
chunk_fingerprint <- function(x, coded, weights) {
  position <- as.double(seq_len(nrow(x)))
  labels <- coded$state$seen
  column <- if (is.null(labels)) seq_len(ncol(coded$y)) else rank(labels)
  c(rows = nrow(x), x = sum(position %*% x), y = sum((position %*% coded$y) * column),
    weights = if (!is.null(weights)) sum(position * weights))
}

# A chunk's rows and sums must be those it had on the first pass.
check_same_chunk <- function(first_pass, i, fingerprint) {
  key <- as.character(i)
  known <- first_pass[[key]]
  if (is.null(known)) {
    assign(key, fingerprint, envir = first_pass)
  } else if (!identical(known, fingerprint)) {
    abort_arg(c("It differs from what it held on the first pass over the data (row count or sums).",
                i = same_chunks_hint))
  }
}

# So must the number of chunks, and which of them have no rows.
check_chunk_count <- function(first_pass, n_read, call) {
  if (is.null(first_pass$n_read)) first_pass$n_read <- n_read
  if (n_read != first_pass$n_read) {
    abort_arg(c("{.arg x} gave {n_read} chunk{?s} on this pass over the data, {first_pass$n_read} on the first.",
                i = same_chunks_hint), call = call)
  }
  empty <- attr(n_read, "empty")
  known <- attr(first_pass$n_read, "empty")
  if (!identical(empty, known)) {
    changed <- union(setdiff(empty, known), setdiff(known, empty))
    abort_arg(c("Chunk {changed[1]} had {if (changed[1] %in% known) 'no' else 'some'} rows on the first pass over the data and {if (changed[1] %in% known) 'some' else 'none'} on this one.",
                i = same_chunks_hint), call = call)
  }
}

# Weights come with every chunk or with none (`weighted`: this chunk's;
# `seen`: the chunks' before it, NULL for the first): a chunk without them
# among weighted ones would weigh each of its rows 1, unnoticed.
check_chunk_weighting <- function(seen, weighted) {
  if (is.null(seen) || identical(seen, weighted)) return(weighted)
  abort_arg(c(if (weighted) "It has {.field weights}; the chunks before it have none." else
                "It has no {.field weights}; the chunks before it have.",
              i = "Give every chunk weights (1 for a row of full weight), or none."))
}

# After a pass: the chunks' weights (their sum `total`, and each CV fold's
# in `fold_totals`) must not all be zero, nor a fold's: a chunk may weigh
# nothing, as rows may in memory, but not every chunk of a fold.
check_chunk_weights <- function(total, fold_totals, call) {
  if (total == 0) abort_arg("{.arg weights} must not all be zero: every chunk's are.", call = call)
  bare <- which(fold_totals == 0)
  if (length(bare)) {
    abort_arg(c("{.code lambda = \"cv\"} assigns whole chunks to folds: fold {bare[1]} has no rows of positive weight.",
                i = "Use fewer folds ({.arg n_folds}), or leave the chunks of no weight out."),
              call = call)
  }
}

# After a fit's first pass (n_read: for_each_chunk_task()'s count, with
# the chunks of no rows, which are passed by): some chunk must have rows,
# and with CV (n_folds) every fold (whole chunks by position: chunk_fold()).
check_chunks_read <- function(n_read, n_folds, call) {
  if (n_read == 0) abort_arg("{.arg x} has no chunks: chunk 1 is {.code NULL}.", call = call)
  empty <- attr(n_read, "empty")
  if (length(empty) == n_read) {
    none <- if (n_read == 1) "its chunk has none" else paste("all", n_read, "chunks have none")
    abort_arg("{.arg x} has no rows: {none}.", call = call)
  }
  if (is.null(n_folds)) return(invisible())
  if (n_read < n_folds) {
    abort_arg("{.code lambda = \"cv\"} assigns whole chunks to folds: {.arg n_folds} ({n_folds}) must not exceed the number of chunks ({n_read}).",
              call = call)
  }
  fold_of <- chunk_fold(seq_len(n_read), n_folds)
  bare <- setdiff(seq_len(n_folds), fold_of[!seq_len(n_read) %in% empty])
  if (length(bare)) {
    chunks <- which(fold_of == bare[1])
    its <- if (length(chunks) == 1) "Its chunk" else "Its chunks"
    abort_arg(c("{.code lambda = \"cv\"} assigns whole chunks to folds: fold {bare[1]} has no rows.",
                x = "{its} ({paste(chunks, collapse = ', ')}) {if (length(chunks) == 1) 'has' else 'have'} none.",
                i = "Use fewer folds ({.arg n_folds}), or leave the chunks without rows out."),
              call = call)
  }
}

same_chunks_hint <- paste("A source must give the same chunks on every pass (one pass per",
                          "{.arg sigma} candidate and one for class probabilities; a",
                          "logistic fit, one per iteration).")

# TRUE when a chunk has chunk 1's columns in another order (an error when
# they are other columns); never for maps with names, which order them.
chunk_columns_differ <- function(names, col_names) {
  if (is.null(col_names) || is.null(names) || identical(names, col_names)) return(FALSE)
  if (!setequal(names, col_names)) {
    abort_arg(c("{.arg x} must have the columns of chunk 1.",
                x = "Differing: {.val {union(setdiff(names, col_names), setdiff(col_names, names))}}."))
  }
  TRUE
}

# Adds a chunk's partial sums to the running ones (per fold with folds);
# `columns` places its response columns among the `k` known so far. Each
# chunk's sums are of y / y_scale, its own power of two (R/response_scale.R);
# the running sums are kept in units of the largest so far, so that at the
# end they are in those of response_scale() of all rows, as in memory.
# Powers of two rescale exactly: a response of order 1 gives the same bits.
# A chunk's sums are of y - y_shift (0, or the mean of a response far from
# 0): they are moved to chunk 1's shift, a small step when chunks agree.
add_partial <- function(acc, map, stats, y_scale, columns, k, n_folds, fold, y_shift = 0) {
  if (is.null(acc)) {
    acc <- new_accumulator(map, k, n_folds)
    acc$y_scale <- y_scale
    acc$y_shift <- y_shift
  }
  if (y_scale > acc$y_scale) {
    acc$total <- rescale_response_sums(acc$total, acc$y_scale / y_scale)
    if (!is.null(acc$per_fold)) {
      acc$per_fold <- lapply(acc$per_fold, rescale_response_sums, acc$y_scale / y_scale)
    }
    acc$y_scale <- y_scale
  } else if (y_scale < acc$y_scale) {
    stats <- rescale_response_sums(stats, y_scale / acc$y_scale)
  }
  step <- (y_shift - acc$y_shift) / acc$y_scale
  if (any(step != 0)) stats <- shift_response_sums(stats, step)
  acc <- widen_accumulator(acc, k)
  if (!identical(columns, seq_len(k))) {
    zy <- matrix(0, nrow(stats$zy), k)
    zy[, columns] <- stats$zy
    ysum <- yy <- numeric(k)
    ysum[columns] <- stats$ysum
    yy[columns] <- stats$yy
    stats$zy <- zy
    stats$ysum <- ysum
    stats$yy <- yy
  }
  if (is.null(fold)) {
    acc$total <- add_statistics(acc$total, stats)
  } else {
    acc$per_fold[[fold]] <- add_statistics(acc$per_fold[[fold]], stats)
  }
  acc
}

# Sums of y (Z'y, sum y, y'y) for y + step (one number per column).
shift_response_sums <- function(stats, step) {
  stats$yy <- stats$yy + 2 * step * stats$ysum + stats$n * step^2
  stats$ysum <- stats$ysum + stats$n * step
  stats$zy <- stats$zy + outer(stats$zsum, step)
  stats
}

# Sums of y (Z'y, sum y, y'y) for y multiplied by `ratio`.
rescale_response_sums <- function(stats, ratio) {
  stats$zy <- stats$zy * ratio
  stats$ysum <- stats$ysum * ratio
  stats$yy <- stats$yy * ratio * ratio  # ratio^2 alone could underflow
  stats
}

# A chunk holding chunk 1's columns in another order, for a map without
# names: its task is run again here with the columns of chunk 1.
chunk_in_first_order <- function(data, i, part, col_names, task, args, engine) {
  if (!chunk_columns_differ(part$col_names, col_names)) return(part)
  args$col_names <- col_names
  args$backend <- engine$backend
  redo <- run_chunk_task(data, i, task, args)
  if (!is.null(redo$error)) stop(redo$error)
  redo$value
}

# Without names on the map, chunks are matched to the first chunk's names
# (x: a chunk's x, as it came; NULL col_names leave it as it is).
match_chunk_columns <- function(x, col_names) {
  names <- colnames(x)
  if (is.null(col_names) || is.null(names) || identical(names, col_names)) return(x)
  if (!setequal(names, col_names)) {
    abort_arg(c("{.arg x} must have the columns of chunk 1.",
                x = "Differing: {.val {union(setdiff(names, col_names), setdiff(col_names, names))}}."))
  }
  x[, col_names, drop = FALSE]
}

# New classes in a chunk: zero columns for them in the running statistics.
widen_accumulator <- function(acc, k) {
  widen <- function(s) {
    extra <- k - ncol(s$zy)
    if (extra <= 0) return(s)
    s$zy <- cbind(s$zy, matrix(0, nrow(s$zy), extra))
    s$ysum <- c(s$ysum, numeric(extra))
    s$yy <- c(s$yy, numeric(extra))
    s
  }
  acc$total <- widen(acc$total)
  if (!is.null(acc$per_fold)) acc$per_fold <- lapply(acc$per_fold, widen)
  acc
}

# From 0/1 class indicators to the +1 / -1 coding: y = 2 I - 1, so
# Z'y = 2 Z'I - colSums(Z), sum(y) = 2 count - n and y'y = n.
class_statistics <- function(stats, response) {
  levels <- response$levels
  order <- match(levels, response$seen)
  recode <- function(s) {
    s$zy <- 2 * s$zy[, order, drop = FALSE] - s$zsum
    colnames(s$zy) <- levels
    s$ysum <- 2 * s$ysum[order] - s$n
    s$yy <- rep(s$n, length(levels))
    s
  }
  stats <- recode(stats)
  if (!is.null(stats$folds)) stats$folds <- lapply(stats$folds, recode)
  stats
}

# Predictions for every row of chunked newdata, in chunk order (each chunk
# predicted where it is read: in this process or in a future).
predict_chunked <- function(object, newdata, type, n_threads, block_size, parallel,
                            verbose = FALSE, call = rlang::caller_env()) {
  check_count(block_size, call = call)
  engine <- chunk_engine(parallel, n_threads, backend_settings(n_threads, call), call = call)
  parts <- list()
  args <- list(object = object, type = type, block_size = block_size,
               what = "could not be predicted")
  # (chunks of no rows too: they give results of no rows of the right shape)
  for_each_chunk_task(newdata, "predict_chunk", args, engine = engine, verbose = verbose,
                      call = call, consume = function(value, i) parts[[i]] <<- value,
                      label = "Predicting chunks", skip_empty = FALSE)
  if (type == "class") {
    return(factor(unlist(lapply(parts, as.character)), levels = predicted_levels(object),
                  ordered = isTRUE(object$response$ordered)))
  }
  # by the parts' shape: a vector per chunk (one response; a binary logistic
  # fit's link: rbind() made them a matrix of one row per chunk) or a matrix
  if (length(parts) && !is.null(dim(parts[[1]]))) do.call(rbind, parts) else unlist(parts)
}

predict_chunk <- function(chunk, i, object, type, block_size, backend) {
  # Checked here so that the message names `x` (formula fits check in
  # model.frame()).
  x <- if (is.null(object$terms)) fit_input(object, chunk$x, arg = "x") else chunk$x
  predict_newdata(object, x, type, task_backend(backend), block_size, stats::na.pass, FALSE)
}

# CV over whole chunks scores each lambda on chunks its fold fit never saw.
# When the chunks differ from each other (rows ordered by region or time),
# that is grouped CV: at its chosen lambda it scores the fit well above
# GCV's estimate for unseen rows, and its lambda is far larger (grouped CV
# smooths more). An at-scale tour's CoverType in its file order (10
# chunks): at lambda 41, CV 1.47 against GCV 1.18 (1.24 times; df 357 of
# 522,910 rows), GCV's own choice 0.014, test error 20.5% against 18.7%
# with the same map. GCV is compared per unit of weight, as CV is, and only
# where it is a good estimate (df at most 5% of the rows: near
# interpolation it is optimistic, and so would be every comparison). A
# warning, not an error: grouped CV can be what the user wants.
warn_if_chunks_differ <- function(path, lambda, rows, total_weight, ratio = 1.2,
                                  lambda_ratio = 10, max_df_share = 0.05) {
  if (is.null(path$cv) || is.null(path$gcv) || is.null(path$df) || nrow(path) < 2 ||
      !any(is.finite(path$gcv))) {
    return(invisible())
  }
  at <- which(path$lambda == lambda)[1]
  cv <- path$cv[at]
  gcv <- path$gcv[at] * rows / total_weight
  if (!isTRUE(is.finite(cv) && is.finite(gcv) && gcv > 0 && cv > ratio * gcv &&
              path$df[at] <= max_df_share * rows)) {
    return(invisible())
  }
  by_gcv <- path$lambda[which.min(path$gcv)]
  if (lambda < lambda_ratio * by_gcv) return(invisible())
  cli::cli_warn(c(
    "Chunks held out by CV are predicted worse than rows held out at random would be: at lambda {format(lambda, digits = 3)}, CV error {format(cv, digits = 3)} against GCV's {format(gcv, digits = 3)}. The chunks differ from each other, and CV chose a far larger lambda than GCV would ({format(by_gcv, digits = 3)}).",
    i = "CV's folds are whole chunks. If the chunks are groups on purpose (sites, periods), this is the grouped CV you want; if the rows are only stored in some order, spread them across the chunks at random."))
}
