# Bandwidth candidates for krr_fit() on random binning maps (`sigma` a
# vector or "auto"). A new bandwidth scales every grid's pitches and shifts
# (the pitch law is Gamma(2, sigma): the random draws are kept, rescaled),
# so the bins change and the map's table of occupied bins is built again
# from the training rows: about as long as computing their columns.
#
# Scoring every candidate by K-fold CV costs K solves per lambda and
# candidate (`sigmas` is a list of numbers, or "auto": auto_bandwidths()). Instead each candidate's lambda path is scored on the first
# fold only (held-out error of the fit on the other folds, the path stopped
# early as in binned_cv_path()), which ranks bandwidths as well: their
# errors differ far more than the fold-to-fold noise. The best bandwidth
# then gets K-fold CV over the lambdas fold 1 cannot tell from its best
# (binned_lambda_choice()) and the final fit, warm-started from the fold
# solutions. Each path over the default lambda grid starts a
# decade above the best lambda of the previous candidate (relative to
# n / n_features), not at the top of the grid. The cost is one path on one
# fold per candidate, K - 1 fold solves per close lambda, and the fit.
#
# `baseline` (after sigma = "ard" kept per-column bandwidths: the map with
# its one bandwidth) is screened first, as it is, and the per-column
# candidates must beat it on fold 1 by more than one standard error of the
# paired difference of the held-out rows' losses, the rule the dense check
# applies (R/ard.R): that check scores the dense proxy, and on small data a
# binned fit can lose what the proxy gained (Pima: fold-1 error 0.216
# against 0.233 for the map's own, 2 of 116 rows; test error 0.245 against
# 0.224, bench/results/ard.md). Otherwise the
# fit is the one without per-column bandwidths, to the bit: the baseline
# map as it is, or with `baseline_auto` (where the fit without "ard"
# searches the scale: binned_search_by_default()) the search with "auto"
# from it; `baseline_kept` says which, `baseline_check` holds both fold-1
# errors.
binned_bandwidth_search <- function(map, bins, y, sigmas, lambda, folds, tol, max_iter, backend,
                                    verbose, weights, classify = FALSE, baseline = NULL,
                                    starts = NULL, groups = NULL, baseline_auto = FALSE) {
  read <- 0
  timed <- function(code) {
    began <- proc.time()[["elapsed"]]
    on.exit(read <<- read + proc.time()[["elapsed"]] - began)
    code
  }
  # The fit at a candidate's lambdas, on its bin columns read once more.
  ridge <- function(candidate) {
    binned_ridge(candidate, NULL, y, lambda, folds, tol, max_iter, backend, verbose, weights,
                 cols = timed(bins$columns(candidate)), classify = classify)
  }
  if (bandwidth_fixed(sigmas, folds)) {
    chosen <- if (is.null(sigmas[[1]])) map else timed(bins$rebin(map, sigmas[[1]]))
    return(list(map = chosen, solution = ridge(chosen), sigma_path = NULL, read = read))
  }
  weights_all <- weights %||% rep(1, nrow(y))
  top <- NULL  # the relative lambda the next path starts from (binned_lambdas())
  relative <- function(l, candidate) l / (sum(weights_all) / candidate$n_features)
  # The best candidate so far keeps its bin columns (4 bytes a row and
  # grid), fold-1 path and solution, for binned_lambda_choice(): no second
  # pass over x.
  kept <- list(score = Inf, tie = Inf)
  # `window`: a step near the best (group_steps()) is scored from a half
  # decade above the best's lambda and stops at the first lambda that does
  # not improve: its best lambda is near the best's, and each lambda of a
  # path on new bins costs up to `cv_iter` CG iterations.
  screen <- function(s, from = map, window = FALSE) {
    candidate <- if (is.null(s)) from else timed(bins$rebin(from, s))
    cols <- timed(bins$columns(candidate))
    # A step that moves no row to another bin (group_steps(), for instance
    # on a column wider than its range at both bandwidths) has the best's
    # bin columns, so its fold-1 score.
    if (!is.null(kept$cols) && identical(cols, kept$cols)) {
      return(utils::modifyList(kept$result, list(map = candidate)))
    }
    value <- 1 / sqrt(candidate$n_grids)
    ops <- binned_ops(cols, value, candidate$n_features, backend)
    # (a bar per candidate: say which, since they stop early at unknown points)
    label <- sprintf("Screening sigma = %s on fold 1",
                     format(bandwidth_level(candidate$kernel$sigma), digits = 3))
    from_top <- if (window && !is.null(kept$result)) {
      sqrt(10) * relative(kept$result$solution$lambda, kept$result$map)
    } else top
    path <- binned_cv_path(ops, y, folds, value, candidate$n_features, lambda, tol, max_iter,
                           verbose, weights_all, patience = if (window) 1 else 2, use_folds = 1L,
                           top = from_top, classify = classify, label = label)
    at <- binned_best(path)
    # with misclassification scores, the squared error breaks ties
    tie <- if (classify) path$cv_mse[at]
    # The same rule as the final choice below, so the two cannot differ.
    better <- length(at) && binned_best(list(cv = c(kept$score, path$cv[at]),
                                             cv_mse = if (classify) c(kept$tie, tie))) == 2
    kept_path <- path
    attr(path, "start") <- attr(path, "losses") <- NULL
    # Warm start across candidates: the next path starts a decade above this best.
    top <<- 10 * relative(path$lambda[at], candidate)
    result <- list(map = candidate, solution = list(path = path, lambda = path$lambda[at]),
                   score = if (length(at)) path$cv[at] else Inf,
                   tie = if (length(at) && classify) tie else Inf)
    if (better) {
      kept <<- list(score = path$cv[at], tie = tie, cols = cols, ops = ops, path = kept_path,
                    result = result)
    }
    result
  }
  if (!is.null(baseline)) {
    baseline_screened <- screen(NULL, from = baseline)
    # Only its fold-1 losses are needed (its bin columns are not: a fallback
    # fit reads them again).
    baseline_path <- kept$path
    kept <- list(score = Inf, tie = Inf)
    top <- NULL  # the per-column candidates' screen as without a baseline
  }
  # "auto": the overall scale searched from each of `starts` (per-column
  # bandwidths with and without pruning, binned_ard_starts(), R/ard.R), or
  # from the map's bandwidth; each candidate remembers its start.
  screened <- if (identical(sigmas, "auto")) {
    starts <- starts %||% list(map$kernel$sigma)
    unlist(lapply(seq_along(starts), function(k) {
      lapply(auto_bandwidths(starts[[k]], screen), c, list(start = k))
    }), recursive = FALSE)
  } else lapply(sigmas, screen)
  # Large data: steps on each group's bandwidth from the best (group_steps()).
  steps <- NULL
  if (!is.null(groups) && identical(sigmas, "auto")) {
    steps <- group_steps(screened, groups, function(s) screen(s, window = TRUE))
    screened <- steps$screened
  }
  check <- if (!is.null(baseline)) baseline_check(baseline_path, kept$path)
  start <- NULL  # which of `starts` the chosen bandwidth came from
  if (!is.null(check) && !check$beaten && baseline_auto) {
    # The fit without "ard" searches the baseline's scale: that fit, to the bit.
    fallback <- binned_bandwidth_search(baseline, bins, y, "auto", lambda, folds, tol, max_iter,
                                        backend, verbose, weights, classify)
    fallback$read <- fallback$read + read
    fallback$baseline_kept <- TRUE
    fallback$baseline_check <- check$errors
    return(fallback)
  }
  if (!is.null(check) && !check$beaten) {
    chosen <- baseline
    solution <- ridge(baseline)
  } else {
    scores <- vapply(screened, `[[`, 0, "score")
    best <- binned_best(list(cv = scores, cv_mse = if (classify) vapply(screened, `[[`, 0, "tie")))
    chosen <- screened[[best]]$map
    start <- screened[[best]]$start
    solution <- if (is.null(kept$path)) {
      ridge(chosen)  # every path broke down: binned_ridge() says so
    } else {
      binned_lambda_choice(chosen, y, lambda, folds, tol, max_iter, backend, verbose, weights,
                           kept, relative, classify)
    }
    screened[[best]]$solution <- solution
  }
  kept <- NULL
  per_column <- rep(TRUE, length(screened))
  if (!is.null(baseline)) {
    screened <- c(list(baseline_screened), screened)
    per_column <- c(FALSE, per_column)
  }
  scores <- vapply(screened, `[[`, 0, "score")
  order <- order(vapply(screened, function(f) bandwidth_level(f$map$kernel$sigma), 0))
  sigma_path <- bandwidth_path(screened[order], scores[order])
  if (!is.null(baseline)) sigma_path$per_column <- per_column[order]
  list(map = chosen, solution = solution, sigma_path = sigma_path,
       read = read, baseline_kept = if (!is.null(check)) !check$beaten,
       baseline_check = check$errors, start = start, group_steps = steps$log)
}

# One sweep of steps on the bandwidths of each group of columns (a column,
# or the columns of a one-hot variable: R/ard_groups.R), from the best of
# the `screened` candidates of the overall scale: the group's bandwidths
# halved, or if that does not lower fold 1's error, doubled; a step is
# taken when it lowers fold 1's error (`score`, strictly), groups in order
# of their relevance (narrowest first). The dense proxy's relative
# bandwidths are near but not at what binning on all rows wants, and fold
# 1 (a fifth of the rows) ranks them as the test set does: on CoverType
# (rbin, 50 grids, 522,910 rows) a sweep of all 12 groups took fold 1's
# error from 0.0247 to 0.0213 and the test error from 2.25% to 1.89% (map
# seed 1; seed 5: 0.0273 to 0.0217, 2.47% to 2.04%;
# bench/results/ard-covtype-rbin.md).
# Used where the search is averaged (ard_search_count(), R/ard.R): a step
# costs a screen on all rows, and fold 1 of smaller data holds too few
# rows to tell steps apart. Only the `max_groups` most relevant groups are
# stepped (the least relevant matter least: wide data would take two
# screens a column), and each step's path is a window around the best's
# lambda (screen()): on CoverType all 12 groups and full paths took 18
# screens of about 60 s each and the whole call 25.5 minutes (1.89%; seed
# 1, alone on the machine; the target is 15 minutes). The 6 most relevant
# groups with windows: 2.05%, 2.08% and 2.32% on seeds 1, 3 and 5 (2.25%,
# 2.39% and 2.47% without steps). All 12 with windows: 2.02% and 2.03% on
# seeds 1 and 5, in 16.9 and 17.4 minutes; once the CV path kept its
# right-hand sides and the solver's memory between lambdas
# (binned_cv_path()), 14.0 minutes each, and 2.14% in 12.9 on seed 3: the
# worst seed of three at 2.14% instead of 2.32%, so 12 (all of CoverType's)
# is the default.
# Returns the candidates with the steps' appended (each naming its start)
# and a log of the steps.
group_steps <- function(screened, groups, screen, factors = c(1 / 2, 2), max_groups = 12) {
  scores <- vapply(screened, `[[`, 0, "score")
  from <- screened[[best_candidate(scores)]]
  sigma <- from$map$kernel$sigma
  score <- from$score
  level <- tapply(sigma, groups, bandwidth_level)  # R/krr_bandwidth_search.R
  log <- list()
  for (g in utils::head(as.integer(names(level))[order(level)], max_groups)) {
    for (f in factors) {
      s <- sigma
      s[groups == g] <- s[groups == g] * f
      candidate <- c(screen(s), list(start = from$start))
      screened[[length(screened) + 1]] <- candidate
      taken <- candidate$score < score
      log[[length(log) + 1]] <- data.frame(group = g, factor = f, error = candidate$score,
                                           taken = taken)
      if (taken) {
        sigma <- s
        score <- candidate$score
        break
      }
    }
  }
  list(screened = screened, log = do.call(rbind, log))
}

# Do the per-column candidates' fold-1 losses (`path`, at its best lambda)
# beat the one-bandwidth baseline's (`baseline`) by more than one standard
# error of the paired difference? A path that broke down at every lambda
# (NULL) beats nothing and is beaten by anything.
baseline_check <- function(baseline, path) {
  error <- function(p) if (is.null(p)) NA_real_ else p$cv[binned_best(p)]
  errors <- c(ard = error(path), isotropic = error(baseline))
  if (is.null(path) || is.null(baseline)) {
    return(list(beaten = is.null(baseline) && !is.null(path), errors = errors))
  }
  losses <- function(p) attr(p, "losses")[, binned_best(p)]
  list(beaten = clearly_better(losses(baseline) - losses(path)), errors = errors)
}

# Lambda at the chosen bandwidth, from its fold-1 path (`kept`, from the
# screen). Fold 1 holds a fifth of the rows: when they are many, its
# scores already tell most lambdas apart, and K-fold CV of a lambda that
# fold 1 finds clearly worse buys nothing but time. So only the lambdas
# whose fold-1 score is within two standard errors of the best (the errors
# of the held-out rows compared pairwise) get the other folds, from fold
# 1's solution; if fold 1's best is the first lambda of its path, the one
# above it is scored on fold 1 first. When no other lambda is that close,
# fold 1's best is kept without more CV, and `path` is fold 1's path (its
# scores, like `sigma_path`'s). Then the fit on all rows.
binned_lambda_choice <- function(map, y, lambda, folds, tol, max_iter, backend, verbose,
                                 weights, kept, relative, classify = FALSE) {
  path <- kept$path
  losses <- attr(path, "losses")
  start <- attr(path, "start")
  value <- 1 / sqrt(map$n_grids)
  weights_all <- weights %||% rep(1, nrow(y))
  while (is.character(lambda) && binned_best(path) == 1 &&
         relative(path$lambda[1], map) * sqrt(10) <= 10 * (1 + 1e-9)) {
    up <- binned_cv_path(kept$ops, y, folds, value, map$n_features, path$lambda[1] * sqrt(10), tol,
                         max_iter, verbose, weights_all, use_folds = 1L, start = start,
                         classify = classify)
    if (!nrow(up)) break
    losses <- cbind(attr(up, "losses"), losses)
    if (up$cv < path$cv[1]) start <- attr(up, "start")
    path <- rbind(up, path)
  }
  attr(path, "start") <- attr(path, "losses") <- attr(path, "tried") <- NULL
  best <- binned_best(path)
  close <- vapply(seq_len(nrow(path)), function(l) {
    !clearly_better(losses[, l] - losses[, best], n_se = 2)  # no spread: close
  }, TRUE)
  if (sum(close) == 1) {
    solution <- binned_ridge(map, NULL, y, path$lambda[best], NULL, tol, max_iter, backend,
                             verbose, weights, cols = kept$cols, start = start, classify = classify)
    solution$path <- path
    return(solution)
  }
  binned_ridge(map, NULL, y, path$lambda[close], folds, tol, max_iter, backend, verbose, weights,
               cols = kept$cols, start = start, patience = Inf, classify = classify)
}

# sigma = "auto" for binning. The median-distance bandwidth of rbin() suits
# a smooth kernel estimate, but binning fits best with bins far narrower
# (on CoverType, 1/16 to 1/64 of it), so a fixed grid around it misses the
# best. From the map's bandwidth, candidates are halved while the screened
# error falls, stopping at the first that does worse (errors over sigma
# have one minimum); if the first halving already does worse, doubling is
# tried the same way. At most `max_steps` candidates besides the first.
# No finer step follows: a sqrt(2) refinement was tried on CoverType (min-
# max scaling) and fold 1's screen could not rank the neighbours (0.03-0.06
# points apart, the noise of its truncated solves) and cost 303 CG
# iterations, 177 of the call's 977 s (bench/results/rbin.md). Candidates are
# ranked by score, ties by `tie` (binned_best()).
# After sigma = "ard", `sigma` holds the learned per-column bandwidths and
# the candidates scale them all together (their ratios, learned on the
# dense proxy, are kept).
# Whether an rbin search has nothing to screen: the map's bandwidth
# (`sigmas` list(NULL)), or one given with one lambda (no folds to screen it
# on). The map is then fitted as it is, rescaled to that bandwidth.
bandwidth_fixed <- function(sigmas, folds) {
  length(sigmas) == 1 && !identical(sigmas, "auto") && (is.null(sigmas[[1]]) || is.null(folds))
}

auto_bandwidths <- function(sigma, screen, max_steps = 10) {
  screened <- list(screen(sigma))
  for (factor in c(1 / 2, 2)) {
    s <- sigma
    best <- screened[[1]]$score
    for (step in seq_len(max_steps)) {
      s <- s * factor
      candidate <- screen(s)
      screened[[length(screened) + 1]] <- candidate
      if (!(candidate$score < best)) break
      best <- candidate$score
    }
    if (length(screened) > 2) break  # halving helped: no need to try wider bins
  }
  screened
}

# Where a search finds the training rows' bins: `rebin(map, sigma)`, the map
# at another bandwidth with its table of occupied bins built again, and
# `columns(map)`, the rows' bin columns (rbin_columns()). Here rows in
# memory (checked data, map_input()); chunked data: chunked_bins().
memory_bins <- function(x, backend) {
  list(rebin = function(map, sigma) rbin_with_bandwidth(map, x, sigma, backend),
       columns = function(map) rbin_columns(map, x, backend, arg = "x"))
}

# The map with bandwidth `sigma` (one number, or one per column), its occupied bins found again
# in `x` (checked data, map_input()). Hashed maps need no table.
rbin_with_bandwidth <- function(map, x, sigma, backend, call = rlang::caller_env()) {
  map <- rbin_rescaled(map, sigma)
  check_bin_range(map, x, "x", call = call)
  if (is.null(map$n_buckets)) {
    built <- rbin_build_cpp(x, map$pitch, map$shift, map$center, map$scale, backend$n_threads,
                            backend$simd)
    if (is.character(built)) abort_arg(built, call = call)  # only when R's checks were bypassed
    check_column_count(sum(as.numeric(built$n_bins)), "The number of occupied bins", call = call)
    map$keys <- built$keys
    map$n_bins <- built$n_bins
    map$n_features <- as.integer(sum(as.numeric(built$n_bins)))
  }
  map
}

# The map's grids at bandwidth `sigma`: the pitch law is Gamma(2, sigma), so
# its draws, rescaled, are the draws at the new bandwidth. No bin table.
rbin_rescaled <- function(map, sigma) {
  ratio <- sigma / map$kernel$sigma  # one per input column for per-column bandwidths
  map$pitch <- map$pitch * ratio
  map$shift <- map$shift * ratio
  map$kernel$sigma <- sigma
  map
}

# An rbin map named by `features` (its median-distance bandwidth) is
# searched as with sigma = "auto" when sigma is left NULL, lambda is
# chosen (by CV) for the squared loss, and at least `binned_search_rows`
# rows have a non-zero weight. Binning on all rows fits far narrower bins
# than the median distance: on UCI letter (16,000 rows, 26 classes) the
# default fit's test error was 0.142 with it and 0.034 searched, and on the
# 6 data sets of bench/defaults.R with 2,000 rows or more the search was
# better on 5 (CoverType 0.211 -> 0.138, Parkinsons 0.469 -> 0.350) and
# kept the median's bandwidth on ames, for 1.6 times the time
# (bench/results/rbin-default-search.md). On the 8 smaller ones, where its
# fold-1 screen holds under 400 rows, it was no better (2 better, 2 worse,
# 4 unchanged): they keep the median heuristic, at a fraction of the cost.
binned_search_rows <- 2000

binned_search_by_default <- function(sigma, features, map, ..., loss, lambda) {
  is.null(sigma) && bandwidth_left_to_krr_fit(features, map, ..., kinds = "kitchen_rbin") &&
    loss == "squared" && !(is.numeric(lambda) && length(lambda) == 1)  # R/krr.R
}
