# The dense fit's pass over rows (krr_statistics(), chunks): features, Z'Z,
# Z'y and the column sums of Z are made in C++ one block at a time, into
# buffers kept across blocks and chunks (src/fit_blocks.cpp); the response's
# own sums stay here.

# Keeps the block loop's buffers until the calling function exits (nested
# holders share them; the last one out frees them).
hold_fit_workspace <- function(frame = parent.frame()) {
  fit_workspace_hold_cpp(TRUE)
  do.call(on.exit, list(quote(fit_workspace_hold_cpp(FALSE)), add = TRUE), envir = frame)
}

# A pass over rows for a checked map, with k response columns and n_sets
# sets of sums (one per fold, or one), on the call's backend
# (backend_settings(): the C++ side reads its threads, SIMD cap and BLAS
# choice).
fit_pass <- function(map, k, n_sets, backend, call = rlang::caller_env()) {
  pass <- fit_pass_cpp(map, as.integer(k), as.integer(n_sets), backend)
  if (is.character(pass)) abort_invalid_map("features", class(map)[1], pass, call = call)
  attr(pass, "backend") <- backend  # for maps whose features R makes
  pass
}

# Adds the rows `rows` (indices) of x (checked, map_input()) to the pass,
# one call whatever their number; y: their responses, w: their weights or
# NULL, set: their folds or NULL.
fit_block <- function(pass, map, x, rows, y, w, set, call = rlang::caller_env()) {
  root <- if (!is.null(w)) sqrt(w)
  if (!is.null(root)) y <- root * y
  rows <- as.integer(rows)
  if (inherits(map, "kitchen_nystrom")) {
    # Kernel values times K_CC^(-1/2): the features made in R, summed in C++.
    x <- nystrom_features(map, x[rows, , drop = FALSE], attr(pass, "backend"))
    rows <- seq_len(nrow(x))
  } else if (inherits(x, "dgCMatrix")) {
    if (!identical(rows, seq_len(nrow(x)))) x <- x[rows, , drop = FALSE]
    if (inherits(map, "kitchen_fastfood")) x <- Matrix::t(x)  # its core reads rows as columns
    rows <- seq_len(length(rows))
  }
  problem <- fit_block_cpp(pass, x, rows, y, root, if (!is.null(set)) as.integer(set))
  if (is.character(problem)) abort_invalid_map("features", class(map)[1], problem, call = call)
  invisible(pass)
}

# The pass's Z'Z (upper triangle), Z'y and sums of Z added to the
# statistics of `acc` (total, or per fold); `fresh`: acc held no rows before
# the pass, so its zeros are replaced rather than added to. Z'y is named by
# the response columns, as crossprod(z, y) named it.
finish_fit_pass <- function(pass, acc, fresh, response_names) {
  sums <- fit_pass_sums_cpp(pass)
  place <- function(stats, set) {
    if (fresh) {
      stats$gram <- set[[1]]
      stats$zy <- set[[2]]
      stats$zsum <- set[[3]]
    } else {
      stats$gram <- gram_combine_cpp(stats$gram, set[[1]], 1, 1L)  # interruptible
      stats$zy <- stats$zy + set[[2]]
      stats$zsum <- stats$zsum + set[[3]]
    }
    colnames(stats$zy) <- response_names
    stats
  }
  if (is.null(acc$per_fold)) {
    acc$total <- place(acc$total, sums[[1]])
  } else {
    acc$per_fold <- Map(place, acc$per_fold, sums)
  }
  acc
}
