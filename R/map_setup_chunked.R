# map_setup() for chunked data: one pass over the chunks (as futures under
# a future plan) gathers each column's range and moments, from which come
# the rescaling (min-max and none exactly as in memory; standard from
# pooled means and variances, equal up to rounding) and the clipping range.
# The default bandwidth (median distance) is taken on up to 1000 rows of
# the first chunk with rows. Call inside with_seed(), as map_setup(): the
# pass draws no random numbers, the bandwidth does.
chunked_map_setup <- function(data, scale, kernel, sigma_given, backend,
                              call = rlang::caller_env()) {
  engine <- chunk_engine("auto", backend$n_threads, backend, call = call)
  parts <- list()  # the chunks with rows, in order
  n_read <- for_each_chunk_task(data, "chunk_column_summary", list(what = "holds bad data"),
                                engine = engine, verbose = FALSE, call = call,
                                consume = function(part, i) {
    part$chunk <- i
    parts[[length(parts) + 1]] <<- part
  })
  check_chunks_read(n_read, NULL, call)  # R/krr_chunked.R
  col_names <- parts[[1]]$names
  d <- parts[[1]]$d
  for (k in seq_along(parts)) {
    with_chunk(data, parts[[k]]$chunk, "holds bad data", call = call, {
      if (parts[[k]]$d != d) {
        differing <- union(setdiff(parts[[k]]$names, col_names), setdiff(col_names, parts[[k]]$names))
        abort_arg(c("{.arg x} must have the {d} columns of chunk {parts[[1]]$chunk}, not {parts[[k]]$d}.",
                    x = if (length(differing)) "Differing: {.val {differing}}."))
      }
      if (!is.null(col_names)) parts[[k]] <- reorder_summary(parts[[k]], col_names)
    })
  }
  pooled <- function(field) list(low = do.call(pmin, lapply(parts, function(p) p[[field]]$low)),
                                 high = do.call(pmax, lapply(parts, function(p) p[[field]]$high)))
  range <- pooled("range")
  rescale <- pooled_rescaling(parts, pooled("values"), scale, col_names, call)
  if (sigma_given) {
    kernel$sigma <- bandwidth_for_columns(kernel$sigma, d, col_names, call = call)
  } else {
    first <- as_data_matrix(chunk_read(data, parts[[1]]$chunk, call = call)$x,
                            allow_sparse = TRUE, arg = "x", call = call)
    if (!is.null(col_names)) first <- first[, col_names, drop = FALSE]
    kernel$sigma <- median_distance_bandwidth(first, rescale, kernel)
  }
  list(d = d, kernel = kernel, scaling = scale, rescale = rescale, range = range,
       n_rows = vapply(parts, `[[`, 0, "n"), engine = engine)
}

# The task run on each chunk of the pass: its size, column names, ranges
# and moments (mean and the sum of squared deviations).
chunk_column_summary <- function(chunk, i, backend) {
  x <- as_data_matrix(chunk$x, allow_sparse = TRUE, arg = "x")
  if (!is.null(colnames(x))) check_column_names(colnames(x), "x", NULL)
  n <- nrow(x)
  mean <- if (inherits(x, "dgCMatrix")) Matrix::colMeans(x) else colMeans(x)
  squares <- if (inherits(x, "dgCMatrix")) {
    pmax(Matrix::colSums(x^2) - n * mean^2, 0)
  } else {
    colSums(sweep(x, 2, mean)^2)
  }
  # the values' range (rescaling, constant columns) and the clipping range
  # (sparse chunks: 0 kept in it, R/clip.R)
  values <- data_column_ranges(x)
  list(n = n, d = ncol(x), names = colnames(x), values = values, range = input_range(x, values),
       mean = as.numeric(mean), squares = as.numeric(squares))
}

# A chunk summary with its columns in the order of chunk 1's names.
reorder_summary <- function(part, col_names) {
  if (identical(part$names, col_names)) return(part)
  if (is.null(part$names) || !setequal(part$names, col_names)) {
    abort_arg("{.arg x} must have the columns of chunk 1.")
  }
  at <- match(col_names, part$names)
  part$range <- list(low = part$range$low[at], high = part$range$high[at])
  part$values <- list(low = part$values$low[at], high = part$values$high[at])
  part$mean <- part$mean[at]
  part$squares <- part$squares[at]
  part
}

# The rescaling of input_rescaling() from the chunk summaries and the
# range of the values (`range`: not the clipping range, which keeps 0 for
# sparse chunks).
pooled_rescaling <- function(parts, range, method, names, call) {
  d <- length(range$low)
  if (method == "none") return(list(center = rep(0, d), scale = rep(1, d), names = names))
  if (method == "standard") {
    n <- vapply(parts, `[[`, 0, "n")
    center <- Reduce(`+`, Map(function(p, k) p$mean * k, parts, n)) / sum(n)
    squares <- Reduce(`+`, lapply(parts, function(p) p$squares + p$n * (p$mean - center)^2))
    spread <- sqrt(squares / max(sum(n) - 1, 1))
    # a constant column's pooled mean can round away from its value
    constant <- range$low == range$high
    center[constant] <- range$low[constant]
    spread[constant] <- 0
    # values near 1e-310 whose squares underflow: not constant, too small
    spread[!constant & !(spread > 0)] <- NA
  } else {
    center <- range$high / 2 + range$low / 2
    spread <- range$high / 2 - range$low / 2
  }
  spread <- constant_column_scale(spread, center)
  bad <- which(is.na(spread) | !is.finite(spread) | !is.finite(1 / spread) | !is.finite(center))
  if (length(bad)) {
    abort_arg(c("{.arg x} has columns too large or too small to rescale.",
                x = "Columns: {column_labels(bad, names)}.",
                i = "Multiply or divide them by a large constant first."), call = call)
  }
  list(center = as.numeric(center), scale = as.numeric(spread), names = names)
}
