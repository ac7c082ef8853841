# Bandwidth candidates for krr_fit() on random binning maps (`sigma` a
# vector or "auto"). A new bandwidth scales every grid's pitches and shifts
# (the pitch law is Gamma(2, sigma): the random draws are kept, rescaled),
# so the bins change and the map's table of occupied bins is built again
# from the training rows: about as long as computing their columns.
#
# Scoring every candidate by K-fold CV costs K solves per lambda and
# candidate. Instead each candidate's lambda path is scored on the first
# fold only (held-out error of the fit on the other folds, the path stopped
# early as in binned_cv_path()), which ranks bandwidths as well: their
# errors differ far more than the fold-to-fold noise. The best bandwidth
# then gets the full K-fold CV over lambda and the final fit, warm-started
# from its fold solutions. The cost is about two CV paths at one bandwidth
# plus one path on one fold per other candidate.
binned_bandwidth_search <- function(map, x, y, sigmas, lambda, folds, tol, max_iter, n_threads,
                                    verbose, weights) {
  if (length(sigmas) == 1 && is.null(sigmas[[1]])) {
    solution <- binned_ridge(map, x, y, lambda, folds, tol, max_iter, n_threads, verbose, weights)
    return(list(map = map, solution = solution, sigma_path = NULL, read = solution$features_time))
  }
  weights_all <- weights %||% rep(1, nrow(y))
  read <- 0
  screened <- lapply(sigmas, function(s) {
    began <- proc.time()[["elapsed"]]
    candidate <- rbin_with_bandwidth(map, x, s, n_threads)
    cols <- rbin_columns(candidate, x, n_threads, arg = "x")
    read <<- read + proc.time()[["elapsed"]] - began
    ops <- binned_ops(cols, 1 / sqrt(candidate$n_grids), candidate$n_features, n_threads)
    path <- binned_cv_path(ops, y, folds, 1 / sqrt(candidate$n_grids), candidate$n_features,
                           lambda, tol, max_iter, verbose, weights_all, use_folds = 1L)
    attr(path, "start") <- NULL
    list(map = candidate, solution = list(path = path, lambda = path$lambda[which.min(path$cv)]))
  })
  scores <- vapply(screened, function(f) min(f$solution$path$cv), 0)
  best <- which.min(scores)
  chosen <- screened[[best]]$map
  solution <- binned_ridge(chosen, x, y, lambda, folds, tol, max_iter, n_threads, verbose, weights)
  screened[[best]]$solution <- solution
  list(map = chosen, solution = solution, sigma_path = bandwidth_path(screened, scores),
       read = read + solution$features_time)
}

# The map with bandwidth `sigma` (one number), its occupied bins found again
# in `x` (checked data, map_input()). Hashed maps need no table.
rbin_with_bandwidth <- function(map, x, sigma, n_threads, call = rlang::caller_env()) {
  ratio <- sigma / map$kernel$sigma  # one per input column for per-column bandwidths
  map$pitch <- map$pitch * ratio
  map$shift <- map$shift * ratio
  map$kernel$sigma <- sigma
  check_bin_range(map, x, "x", call = call)
  if (is.null(map$n_buckets)) {
    built <- rbin_build_cpp(x, map$pitch, map$shift, map$center, map$scale, n_threads, resolve_simd())
    if (is.character(built)) abort_arg(built, call = call)  # only when R's checks were bypassed
    check_column_count(sum(as.numeric(built$n_bins)), "The number of occupied bins", call = call)
    map$keys <- built$keys
    map$n_bins <- built$n_bins
    map$n_features <- as.integer(sum(as.numeric(built$n_bins)))
  }
  map
}
