# Kernel logistic regression on chunked data: a logistic source (the
# interface of memory_logistic_source(), R/krr_logistic.R) whose passes read
# the chunks through for_each_chunk_task() (R/chunked_future.R), in this
# process or as futures. The statistics pass is chunked_statistics(); each
# gradient pass sends every chunk the current coefficients (D x K numbers)
# and gets back its partial log-loss and gradient, added in chunk order, so
# the fit does not depend on the engine. With CV, chunk i belongs to fold
# chunk_fold(i, n_folds), as for least squares.
#
# When the features of all rows take at most logistic_kept_entries() (as in
# memory: R/krr_logistic.R), one more read after the statistics pass keeps
# them, and every pass and solve then runs in C++ on them as for data in
# memory (memory_logistic_source()): 5000 CoverType rows in 10 chunks at
# D = 512 took 16 s reading the chunks on every pass, against 0.3 s for
# least squares.

# The fit of krr_fit.kitchen_chunked(loss = "logistic"): the search result
# of logistic_search(), with `stats$chunks` (response, columns) and
# `stats$rows` for new_krr_fit().
chunked_logistic_fit <- function(data, map, sigmas, lambda, n_folds, tol, max_iter, block_size,
                                 engine, verbose, call) {
  first_pass <- new.env()
  seen <- new.env()  # what the statistics pass learnt: classes, columns, rows
  search <- logistic_search(map, sigmas, function(candidate) {
    chunked_logistic_source(data, candidate, n_folds, block_size, engine, verbose, call,
                            first_pass, seen)
  }, NULL, lambda, n_folds, tol, max_iter, verbose)
  search$stats <- list(chunks = seen$chunks, rows = seen$rows, n = seen$n,
                       positive_rows = seen$positive_rows)
  search
}

chunked_logistic_source <- function(data, map, n_folds, block_size, engine, verbose, call,
                                    first_pass, seen) {
  backend <- task_backend(engine$backend)  # for the passes on kept features, here
  kept <- NULL  # passes on the kept features, when they fit (keep_chunk_features())
  list(
    backend = backend,
    statistics = function(by_fold) {
      stats <- chunked_statistics(data, map, if (by_fold) n_folds, block_size, engine, verbose,
                                  call = call, first_pass = first_pass)
      if (!identical(stats$chunks$response$type, "class")) {
        abort_arg("{.code loss = \"logistic\"} needs class labels (a factor or character {.field y} in each chunk), not numbers.",
                  call = call)
      }
      seen$chunks <- stats$chunks
      seen$rows <- stats$rows
      seen$n <- stats$n
      seen$positive_rows <- stats$positive_rows
      if (as.double(stats$rows) * map$n_features <= logistic_kept_entries()) {
        rows <- keep_chunk_features(data, map, seen, if (by_fold) n_folds, engine, verbose,
                                    call, first_pass)
        kept <<- kept_features_passes(rows$features, rows$labels, rows$weights, rows$folds,
                                      backend)
      }
      stats
    },
    gradient = function(state, part = NULL) {
      if (!is.null(kept)) return(kept$gradient(state, part))
      args <- list(map = map, col_names = seen$chunks$col_names,
                   levels = seen$chunks$response$levels, state = state, part = part,
                   n_folds = n_folds, block_size = block_size, what = "holds bad data")
      out <- NULL
      n_read <- for_each_chunk_task(data, "logistic_chunk_gradient", args, engine = engine,
                                    verbose = FALSE, call = call, consume = function(value, i) {
        if (is.null(value)) return()
        # every pass must read the chunks the statistics pass read
        with_chunk(data, i, "holds bad data", call = call,
                   check_same_chunk(first_pass, i, value$fingerprint))
        value$fingerprint <- NULL
        out <<- if (is.null(out)) value else sum_logistic_gradients(out, value)
      })
      check_chunk_count(first_pass, n_read, call)
      out
    },
    solver = function(part) {  # without kept features, every pass reads the chunks
      if (!is.null(kept)) kept$solver(part)
    })
}

# All rows' features (n x D, in chunk order), class numbers, weights and
# folds (chunk i's rows in fold chunk_fold(i, n_folds); NULL without CV),
# read once more after the statistics pass, each chunk checked against it.
keep_chunk_features <- function(data, map, seen, n_folds, engine, verbose, call, first_pass) {
  n <- seen$rows
  features <- matrix(0, n, map$n_features)
  labels <- integer(n)
  weights <- numeric(n)
  folds <- if (!is.null(n_folds)) integer(n)
  filled <- 0
  args <- list(map = map, col_names = seen$chunks$col_names,
               levels = seen$chunks$response$levels)
  n_read <- for_each_chunk_task(data, "logistic_chunk_features", args, engine = engine,
                                verbose = verbose, call = call,
                                label = "Keeping the features", consume = function(value, i) {
    with_chunk(data, i, "holds bad data", call = call,
               check_same_chunk(first_pass, i, value$fingerprint))
    rows <- filled + seq_len(nrow(value$features))
    features[rows, ] <<- value$features
    labels[rows] <<- value$labels
    weights[rows] <<- value$weights
    if (!is.null(folds)) folds[rows] <<- chunk_fold(i, n_folds)
    filled <<- filled + length(rows)
  })
  check_chunk_count(first_pass, n_read, call)
  list(features = features, labels = labels, weights = weights, folds = folds)
}

# The task run on each chunk (maybe in a worker): its partial log-loss,
# correct weight and gradient at `state` (logistic_gradient()), or NULL for a
# chunk outside `part` (list(fold, side), NULL for all chunks).
logistic_chunk_gradient <- function(chunk, i, map, col_names, levels, state, part, n_folds,
                                    block_size, backend) {
  if (!is.null(part)) {
    in_fold <- chunk_fold(i, n_folds) == part$fold
    if (in_fold != (part$side == "test")) return(NULL)
  }
  rows <- logistic_chunk_rows(chunk, map, col_names, levels)
  onehot <- 1 * outer(rows$labels, seq_along(levels), "==")
  c(logistic_gradient(map, rows$x, onehot, rows$weights, state, block_size,
                      task_backend(backend)),
    list(fingerprint = rows$fingerprint))
}

# The task that keeps a chunk's features (keep_chunk_features()): its
# features, class numbers and weights, with its fingerprint.
logistic_chunk_features <- function(chunk, i, map, col_names, levels, backend) {
  rows <- logistic_chunk_rows(chunk, map, col_names, levels)
  features <- map_features(map, rows$x, task_backend(backend))  # rows checked
  list(features = as.matrix(features), labels = rows$labels, weights = rows$weights,
       fingerprint = rows$fingerprint)
}

# A chunk's rows, checked as the statistics pass reads them: the map's input
# x, class numbers, weights (1 when none are given) and the fingerprint
# that fit_chunk() computed on the statistics pass.
logistic_chunk_rows <- function(chunk, map, col_names, levels) {
  if (is.null(chunk$y)) abort_arg("The chunk has no response {.field y}.")
  x <- map_input(map, match_chunk_columns(chunk$x, col_names), arg = "x")  # ordered, then clipped
  labels <- match(as.character(chunk$y), levels)
  if (length(labels) != nrow(x)) {
    abort_arg("{.arg y} must have one value per row of {.arg x} ({nrow(x)}), not {length(labels)}.")
  }
  given <- check_weights(chunk$weights, nrow(x), arg = "weights", whole = FALSE)
  weights <- given %||% rep(1, nrow(x))
  # a class whose rows all weigh 0 is not in the fit: any label does
  labels[is.na(labels) & weights == 0] <- 1L
  if (anyNA(labels)) {
    abort_arg("{.arg y} holds labels that were not seen on the first pass over the data.")
  }
  list(x = x, labels = labels, weights = weights,
       fingerprint = chunk_fingerprint(x, chunk_response(chunk$y, nrow(x), given), given))
}

sum_logistic_gradients <- function(a, b) {
  list(log_loss = a$log_loss + b$log_loss, correct = a$correct + b$correct,
       zg = a$zg + b$zg, g0 = a$g0 + b$g0)
}
