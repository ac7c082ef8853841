# The sufficient statistics of a dense fit, gathered in one pass over the
# rows: Z'Z, Z'y, the column sums of Z and the response's sums, in total or
# per CV fold (the features' part in C++: R/fit_blocks.R).

# One pass over the rows: Z'Z, Z'y, column sums of Z and y, y'y; with
# `folds`, the same statistics per fold too (their sum is the total).
krr_statistics <- function(map, x, y, block_size, backend, verbose, folds = NULL,
                           weights = NULL) {
  acc <- new_accumulator(map, ncol(y), if (!is.null(folds)) max(folds))
  progress <- verbose && nrow(x) > block_size
  # The bar is updated from inside accumulate_rows(): by its id, since cli
  # would otherwise look for a bar of the calling function's frame.
  bar <- if (progress) cli::cli_progress_bar("Reading rows", total = nrow(x), clear = TRUE)
  acc <- accumulate_rows(acc, map, x, y, folds, block_size, backend,
                         if (progress) function(done) cli::cli_progress_update(set = done, id = bar),
                         weights)
  finish_statistics(acc)
}

# Running statistics: the total, or one set per fold (summed at the end).
new_accumulator <- function(map, k, n_folds = NULL) {
  empty <- empty_statistics(map$n_features, k)
  list(total = empty, per_fold = if (!is.null(n_folds)) rep(list(empty), n_folds))
}

# Adds the rows of x (already checked for the map: map_input()) in blocks
# of `block_size`; `folds` (or NULL) gives each row's fold, `weights` (or
# NULL) its weight. Chunked data call this once per chunk, in-memory data
# once. With folds, the rows are taken fold by fold, so that every block
# belongs to one fold: one Gram update of a full block, rather than one per
# fold of a fifth of it (small updates run the products far slower). The
# features' sums are made in C++ (R/fit_blocks.R), the response's here.
accumulate_rows <- function(acc, map, x, y, folds, block_size, backend, progress = NULL,
                            weights = NULL) {
  hold_fit_workspace()
  fresh <- acc$total$rows == 0 && all(vapply(acc$per_fold, function(s) s$rows, 0) == 0)
  pass <- fit_pass(map, ncol(y), max(1L, length(acc$per_fold)), backend)
  groups <- if (is.null(folds)) list(NULL) else split(seq_len(nrow(x)), folds)
  done <- 0
  for (k in seq_along(groups)) {
    members <- groups[[k]]
    fold <- if (!is.null(members)) as.integer(names(groups)[k])
    n <- if (is.null(members)) nrow(x) else length(members)
    for (start in seq(1, n, by = block_size)) {
      rows <- start:min(n, start + block_size - 1)
      if (!is.null(members)) rows <- members[rows]
      yb <- y[rows, , drop = FALSE]
      wb <- if (!is.null(weights)) weights[rows]
      fit_block(pass, map, x, rows, yb, wb, if (!is.null(fold)) rep(fold, length(rows)))
      if (is.null(fold)) {
        acc$total <- add_response_sums(acc$total, yb, wb)
      } else {
        acc$per_fold[[fold]] <- add_response_sums(acc$per_fold[[fold]], yb, wb)
      }
      done <- done + length(rows)
      if (!is.null(progress)) progress(done)
    }
  }
  finish_fit_pass(pass, acc, fresh, colnames(y))
}

# The Gram updates fill one triangle: symmetrise, and sum the folds. The
# accumulator's Gram matrices are its own (made by the fit pass or by
# sum_statistics()), so they are symmetrised in place: at D = 12,000 a copy
# of each fold's is 1.15 GB more, and seconds of first touch.
finish_statistics <- function(acc) {
  per_fold <- acc$per_fold
  if (!is.null(per_fold)) {
    for (s in per_fold) gram_symmetrize_in_place_cpp(s$gram)
    total <- Reduce(function(a, b) sum_statistics(a, b, gram = FALSE), per_fold)
    total$gram <- NULL  # (kept by Reduce() when there is one fold)
    total <- c(list(gram = gram_sum_cpp(lapply(per_fold, `[[`, "gram"), 1L)), total)
  } else {
    total <- acc$total
    gram_symmetrize_in_place_cpp(total$gram)
  }
  total$folds <- per_fold
  total
}

# `n` is the sum of the weights (the row count without weights), `rows` the
# row count, `positive_rows` the count of rows with a non-zero weight (GCV's
# observations: observed_rows()). No Gram matrix until the first rows (a 1.15 GB matrix of zeros
# at D = 12,000 that the fit pass would replace).
empty_statistics <- function(dim, k) {
  list(gram = NULL, zy = matrix(0, dim, k), zsum = numeric(dim),
       ysum = numeric(k), yy = numeric(k), n = 0, rows = 0, positive_rows = 0)
}

# The response's sums; with weights w, weighted: y'w, sum w y^2, sum w
# (Z'WZ, Z'Wy and Z'w come from the block loop, R/fit_blocks.R).
add_response_sums <- function(stats, y, w = NULL) {
  if (is.null(w)) {
    stats$ysum <- stats$ysum + colSums(y)
    stats$yy <- stats$yy + colSums(y^2)
    stats$n <- stats$n + nrow(y)
    stats$positive_rows <- stats$positive_rows + nrow(y)
  } else {
    stats$ysum <- stats$ysum + colSums(w * y)
    stats$yy <- stats$yy + colSums(w * y^2)
    stats$n <- stats$n + sum(w)
    stats$positive_rows <- stats$positive_rows + sum(w > 0)
  }
  stats$rows <- stats$rows + nrow(y)
  stats
}

# a + b, field by field, for running sums a that own their Gram matrix (the
# fit pass made it, or it was b's): the Gram part is added in place, and b's
# is then handed to the block loop, whose next pass of the same size fills
# it again instead of a fresh D x D matrix (R/fit_blocks.R): b must not be
# read afterwards. An empty a (no Gram matrix yet) takes b's.
add_statistics <- function(a, b) {
  if (is.null(a$gram)) return(sum_statistics(a, b))
  gram_add_in_place_cpp(a$gram, b$gram, 1L)  # interruptible
  fit_workspace_recycle_cpp(b$gram)
  c(list(gram = a$gram), sum_statistics(a, b, gram = FALSE))
}

# a + sign * b, field by field; the D x D Gram part in C++ (interruptible:
# at D = 12,000 it is a 1.15 GB pass), or left out. An empty a (no Gram
# matrix yet) plus b is b.
sum_statistics <- function(a, b, sign = 1, gram = TRUE) {
  fields <- c("zy", "zsum", "ysum", "yy", "n", "rows", "positive_rows")
  sum_gram <- function() {
    if (is.null(a$gram) && sign == 1) b$gram else gram_combine_cpp(a$gram, b$gram, sign, 1L)
  }
  c(if (gram) list(gram = sum_gram()),
    stats::setNames(lapply(fields, function(f) a[[f]] + sign * b[[f]]), fields))
}
