# rbin() on chunked data: the table of occupied bins of all rows, built
# chunk by chunk and merged grid by grid (rbin_merge_keys_cpp(), a sorted
# union), so the map has a column for every bin any training row occupies,
# as rbin() on the bound rows would. Two passes over the chunks (as futures
# under a future plan): the first gathers each column's range and moments,
# for the rescaling (min-max and none exactly as in memory; standard from
# pooled means and variances, equal up to rounding) and the clipping
# range; the second, each chunk's distinct keys per grid. The default
# bandwidth (median distance) is taken on up to 1000 rows of chunk 1.
rbin_chunked <- function(data, n_grids, kernel, sigma, scale, clip, n_buckets, seed, stratified,
                         backend, ..., call = rlang::caller_env()) {
  sigma_given <- !is.null(sigma) || !is.character(kernel)
  kernel <- as_kernel(kernel, sigma = sigma, ..., call = call)
  binning_pitch(kernel, 0, call = call)
  engine <- chunk_engine("auto", backend$n_threads, backend, call = call)
  parts <- list()
  n_read <- for_each_chunk_task(data, "rbin_chunk_summary", list(what = "holds bad data"),
                                engine = engine, verbose = FALSE, call = call,
                                consume = function(part, i) parts[[i]] <<- part)
  if (n_read == 0) abort_arg("{.arg x} has no chunks: chunk 1 is {.code NULL}.", call = call)
  col_names <- parts[[1]]$names
  d <- parts[[1]]$d
  for (i in seq_along(parts)) {
    with_chunk(data, i, "holds bad data", call = call, {
      if (parts[[i]]$d != d) abort_arg("{.arg x} must have the {d} columns of chunk 1.")
      if (!is.null(col_names)) parts[[i]] <- reorder_summary(parts[[i]], col_names)
    })
  }
  range <- list(low = do.call(pmin, lapply(parts, function(p) p$range$low)),
                high = do.call(pmax, lapply(parts, function(p) p$range$high)))
  rescale <- pooled_rescaling(parts, range, scale, col_names, call)
  if (sigma_given) check_bandwidth_length(kernel$sigma, d, call = call)
  with_seed(seed, {
    if (!sigma_given) {
      first <- as_data_matrix(chunk_read(data, 1, call = call)$x, allow_sparse = TRUE, arg = "x",
                              call = call)
      if (!is.null(col_names)) first <- first[, col_names, drop = FALSE]
      kernel$sigma <- median_distance_bandwidth(first, rescale, kernel)
    }
    check_map_size(2 * as.double(d) * n_grids, "The pitches and shifts of the grids", "n_grids",
                   call = call)
    grids <- binning_grids(kernel, d, n_grids, stratified)
  })
  map <- structure(list(
    kernel = kernel, d = d, n_grids = as.integer(n_grids),
    n_buckets = if (!is.null(n_buckets)) as.integer(n_buckets),
    scaling = scale, center = rescale$center, scale = rescale$scale, col_names = col_names,
    clip = if (clip) range, pitch = grids$pitch, shift = grids$shift, keys = NULL, n_bins = NULL,
    n_features = if (!is.null(n_buckets)) as.integer(n_grids * n_buckets)),
    class = c("kitchen_rbin", "kitchen_map"))
  if (!is.null(n_buckets)) return(map)
  check_bin_range(map, rbind(range$low, range$high), "x", call = call)
  table <- list(keys = raw(0), n_bins = integer(n_grids))
  for_each_chunk_task(data, "rbin_chunk_keys", list(map = map, what = "holds bad data"),
                      engine = engine, verbose = FALSE, call = call,
                      consume = function(part, i) {
    merged <- rbin_merge_keys_cpp(table$keys, table$n_bins, part$keys, part$n_bins)
    if (is.character(merged)) abort_arg(merged, call = call)  # only if a worker was tampered with
    check_column_count(sum(as.numeric(merged$n_bins)), "The number of occupied bins", call = call)
    table <<- merged
  })
  map$keys <- table$keys
  map$n_bins <- table$n_bins
  map$n_features <- as.integer(sum(as.numeric(table$n_bins)))
  map
}

# The task run on each chunk of the first pass: its size, column names,
# ranges and moments (mean and the sum of squared deviations).
rbin_chunk_summary <- function(chunk, i, backend) {
  x <- as_data_matrix(chunk$x, allow_sparse = TRUE, arg = "x")
  if (!is.null(colnames(x))) check_column_names(colnames(x), "x", NULL)
  n <- nrow(x)
  mean <- if (inherits(x, "dgCMatrix")) Matrix::colMeans(x) else colMeans(x)
  squares <- if (inherits(x, "dgCMatrix")) {
    pmax(Matrix::colSums(x^2) - n * mean^2, 0)
  } else {
    colSums(sweep(x, 2, mean)^2)
  }
  list(n = n, d = ncol(x), names = colnames(x), range = input_range(x), mean = as.numeric(mean),
       squares = as.numeric(squares))
}

# A chunk summary with its columns in the order of chunk 1's names.
reorder_summary <- function(part, col_names) {
  if (identical(part$names, col_names)) return(part)
  if (is.null(part$names) || !setequal(part$names, col_names)) {
    abort_arg("{.arg x} must have the columns of chunk 1.")
  }
  at <- match(col_names, part$names)
  part$range <- list(low = part$range$low[at], high = part$range$high[at])
  part$mean <- part$mean[at]
  part$squares <- part$squares[at]
  part
}

# The rescaling of input_rescaling() from the chunk summaries.
pooled_rescaling <- function(parts, range, method, names, call) {
  d <- length(range$low)
  if (method == "none") return(list(center = rep(0, d), scale = rep(1, d), names = names))
  if (method == "standard") {
    n <- vapply(parts, `[[`, 0, "n")
    center <- Reduce(`+`, Map(function(p, k) p$mean * k, parts, n)) / sum(n)
    squares <- Reduce(`+`, lapply(parts, function(p) p$squares + p$n * (p$mean - center)^2))
    spread <- sqrt(squares / max(sum(n) - 1, 1))
  } else {
    center <- range$high / 2 + range$low / 2
    spread <- range$high / 2 - range$low / 2
  }
  spread[!(spread > 0)] <- 1
  if (!all(is.finite(spread) & is.finite(1 / spread)) || !all(is.finite(center))) {
    abort_arg("{.arg x} has columns too large or too small to rescale.", call = call)
  }
  list(center = as.numeric(center), scale = as.numeric(spread), names = names)
}

# The task run on each chunk of the second pass: its distinct bin keys per
# grid, list(keys, n_bins) as rbin_build_cpp() returns them.
rbin_chunk_keys <- function(chunk, i, map, backend) {
  x <- map_input(map, chunk$x, arg = "x")
  check_bin_range(map, x, "x")
  backend <- task_backend(backend)
  built <- rbin_build_cpp(x, map$pitch, map$shift, map$center, map$scale, backend$n_threads,
                          backend$simd)
  if (is.character(built)) abort_arg(built)
  built
}
