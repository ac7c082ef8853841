# rbin() on chunked data: the table of occupied bins of all rows, built
# chunk by chunk and merged grid by grid (rbin_merge_keys_cpp(), a sorted
# union), so the map has a column for every bin any training row occupies,
# as rbin() on the bound rows would. Two passes over the chunks (as futures
# under a future plan): the first is chunked_map_setup()'s (the rescaling,
# clipping range and default bandwidth); the second gathers each chunk's
# distinct keys per grid.
rbin_chunked <- function(data, n_grids, kernel, sigma, scale, clip, n_buckets, seed, stratified,
                         backend, ..., call = rlang::caller_env()) {
  sigma_given <- !is.null(sigma) || !is.character(kernel)
  kernel <- as_kernel(kernel, sigma = sigma, ..., call = call)
  binning_pitch(kernel, 0, call = call)
  with_seed(seed, {
    setup <- chunked_map_setup(data, scale, kernel, sigma_given, backend, call = call)
    d <- setup$d
    kernel <- setup$kernel
    check_grid_count(d, n_grids, call = call)
    grids <- binning_grids(kernel, d, n_grids, stratified)
  })
  map <- structure(list(
    kernel = kernel, d = d, n_grids = as.integer(n_grids),
    n_buckets = if (!is.null(n_buckets)) as.integer(n_buckets),
    scaling = scale, center = setup$rescale$center, scale = setup$rescale$scale,
    col_names = setup$rescale$names, clip = if (clip) setup$range, pitch = grids$pitch,
    shift = grids$shift, keys = NULL, n_bins = NULL,
    n_features = if (!is.null(n_buckets)) as.integer(n_grids * n_buckets)),
    class = c("kitchen_rbin", "kitchen_map"))
  if (!is.null(n_buckets)) return(map)
  check_bin_range(map, rbind(setup$range$low, setup$range$high), "x", call = call)
  chunked_bin_table(data, map, setup$engine, call = call)
}

# The map with its table of occupied bins: the distinct keys of each
# chunk, merged. `col_names`: chunk 1's, to match the columns of chunks
# to a map without names.
chunked_bin_table <- function(data, map, engine, col_names = NULL, call = rlang::caller_env()) {
  table <- list(keys = raw(0), n_bins = integer(map$n_grids))
  for_each_chunk_task(data, "rbin_chunk_keys",
                      list(map = map, col_names = col_names, what = "holds bad data"),
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

# The task run on each chunk for the table: its distinct bin keys per
# grid, list(keys, n_bins) as rbin_build_cpp() returns them.
rbin_chunk_keys <- function(chunk, i, map, backend, col_names = NULL) {
  x <- map_input(map, match_chunk_columns(chunk$x, col_names), arg = "x")
  check_bin_range(map, x, "x")
  backend <- task_backend(backend)
  built <- rbin_build_cpp(x, map$pitch, map$shift, map$center, map$scale, backend$n_threads,
                          backend$simd)
  if (is.character(built)) abort_arg(built)
  built
}
