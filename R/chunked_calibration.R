# Class probabilities for least-squares fits of chunked data with dense
# maps (rbin maps: R/krr_binned_chunked.R), as class_calibration() makes
# them in memory (R/calibration.R): each row scored by the fold fit at the
# chosen lambda that did not see it, then a multinomial logistic model of
# the labels on those scores. The folds are CV's (whole chunks), so only
# fits that chose lambda by CV are calibrated (NULL otherwise): with GCV or
# a given lambda, fold statistics would cost one more full pass (measured:
# 100,000 rows in 10 chunks, D = 1024, lambda given: 3.0 s without, 7.7 s
# with it and the scoring), and those fits are one pass today. One pass
# more scores the rows: the fold fits go to each chunk (in a future under
# a plan), which sends back its scores, labels and weights, for every
# `stride`-th row so that at most about `max_rows` come back: plenty for a
# model of (K + 1)(K - 1) numbers, and the scores of a billion rows would
# not fit in memory. `backend` is this process's (the chunks' is in
# `engine`). Each chunk must hold what it held on the fit's first pass
# (`first_pass`, check_same_chunk()).
chunked_class_calibration <- function(data, fit, stats, block_size, backend, engine, verbose,
                                      call, first_pass, max_rows = 1e5) {
  if (is.null(stats$folds)) return(NULL)
  fold_fits <- fold_ridge_fits(stats, fit$lambda, backend)  # R/calibration.R
  parts <- list()
  args <- list(object = fit, fold_fits = fold_fits, stride = max(1, ceiling(fit$n / max_rows)),
               block_size = block_size, what = "could not be scored")
  n_read <- for_each_chunk_task(data, "calibration_chunk", args, engine = engine,
                                verbose = verbose, call = call,
                                label = "Calibrating class probabilities",
                                consume = function(part, i) {
    with_chunk(data, i, "holds bad data", call = call,
               check_same_chunk(first_pass, i, part$fingerprint))  # R/krr_chunked.R
    parts[[i]] <<- part
  })
  check_chunk_count(first_pass, n_read, call)
  scores <- do.call(rbind, lapply(parts, `[[`, "scores"))
  labels <- unlist(lapply(parts, `[[`, "labels"))
  weights <- unlist(lapply(parts, `[[`, "weights"))
  scores_calibration(scores, labels, weights, backend)  # R/calibration.R
}

# The task run on chunk i (maybe in a worker): the scores of every
# `stride`-th row by the fit of the chunk's fold, with their class numbers
# and weights, and the chunk's fingerprint (read as the fit's passes read
# it: training_chunk(), R/krr_chunked.R).
calibration_chunk <- function(chunk, i, object, fold_fits, stride, block_size, backend) {
  fold <- fold_fits[[chunk_fold(i, length(fold_fits))]]
  object$coefficients <- fold$coefficients
  object$intercept <- fold$intercept
  read <- training_chunk(chunk, object$map, object$col_names)
  x <- read$x
  rows <- seq(1, nrow(x), by = stride)
  weights <- read$weights %||% rep(1, nrow(x))
  list(scores = predict_rows(object, x[rows, , drop = FALSE], task_backend(backend), block_size,
                             FALSE),
       labels = match(as.character(chunk$y)[rows], object$response$levels),
       weights = weights[rows],
       fingerprint = chunk_fingerprint(x, read$coded, read$weights))
}
