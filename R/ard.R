# Per-column bandwidths learned from the data (automatic relevance
# determination), for krr_fit(sigma = "ard").
#
# The ARD kernel with bandwidths s_j on x is the kernel at bandwidth 1 on
# x_j / s_j, so random Fourier features with frequencies W = diag(1 / s) W0
# (W0 drawn once from the kernel's spectral law at bandwidth 1, then kept)
# are smooth functions of u = log(s). On a subsample of the training rows,
# split in two halves, ridge regression on such features is fitted on each
# half and scored on the other; the mean held-out squared error is
# minimised over (u, log lambda) by L-BFGS-B with its exact gradient
# (ard_objective()), which stops when the relative decrease falls below
# `factr` times the machine epsilon or after `max_iter` iterations. The
# search costs O(n_rows * d * n_frequencies) per step, independent of the
# number of training rows and of the final map's size.
#
# d + 1 parameters fitted on the same rows they are scored on can overfit
# (Sonar: 60 columns, 150 rows; 9 test errors against the isotropic
# bandwidth's 7). So the learned bandwidths are kept only if they beat the
# map's own bandwidth, by more than one standard error, on rows the search
# never saw (ard_check()): ridge on the same features, fitted on the
# search's rows with each one's lambda, scored on other training rows.
# With enough rows these are fresh rows
# beyond the subsample; otherwise the subsample is split in five parts,
# the search is run on each part's complement and scored on the part (the
# comparison is then of the procedure, as in cross-validation), and if
# per-column bandwidths win, the fit takes the geometric mean of those five
# searches' bandwidths: the ones the check scored, and steadier than one
# search's. With two halves and a search once more on the whole subsample
# (before), rff D = 300 on the 11 sets of the defaults suite under 5000
# rows (bench/ard-small.R, map seeds 1-5) was worse than the isotropic
# default by more than 1% in 4 of 55 fits (up to 1.5x: Ionosphere, 6 test
# errors of 91 against 4; 5 with the halves searched in the other order);
# with five parts and the mean, in 2 (the worst the same 1.5x). Fastfood:
# 2 before, 1 now. The mean gain is the same to noise (geometric mean
# ratio 0.863-0.879 before, 0.868 now; Fastfood 0.858 and 0.850). Not for
# rbin maps, whose Laplacian proxy keeps the two halves and the search on
# the whole subsample (ard_cross_fit()).
#
# On the search's own rows an irrelevant column can settle at a moderate
# bandwidth, fitting chance structure there (Friedman #1 with 95 noise
# columns: noise columns at 47-64 and the weak linear term 5 x5 at 39; set
# to the upper bound, each noise column lowered the error on fresh rows by
# 1-3 standard errors, x5 raised it by 26). So, with fresh rows, each
# column the search left below its upper bound is pruned to it (in effect
# left out) if that does not make the fresh rows' error worse at all
# (ard_prune()), and the pruned set is kept if it passes as a whole. Not the
# one-standard-error rule of the check: a column's help to a 256-feature
# proxy understates its help to the final fit: on CoverType (rff,
# D = 5000) that rule left out 29 of 54 columns, test error 12.05%; this
# one 16 columns, 11.31% (11.44% before pruning and the larger subsample).
#
# rbin maps on large data average the log-bandwidths of three searches on
# independent draws instead, with no pruning (ard_search_count()).

# The subsample: n_rows rows, or a fraction row_fraction of the training
# rows up to max_rows. 4000 rows are too few to see what fine structure
# needs on large data: on CoverType (522910 rows, rbin's Laplacian proxy)
# per-column bandwidths learned on 4000 rows held out no better than one
# bandwidth (0.637 against 0.638) and were dropped; on 16000 rows, 0.600
# against 0.626 (bench/results/ard-covtype.md). The search's cost grows
# linearly with its rows.
#
# For rff, Fastfood and Nystroem maps the proxy's frequencies grow with the
# subsample, 128 per 4000 rows (16000 rows: 512): few features fitted on
# many rows cannot follow fine structure, and the search then widens the
# bandwidths of columns that matter at a fine scale. On CoverType (16000
# rows, rff, D = 2048) 128 frequencies gave 13.78% test error, 512 gave
# 12.57% (column weights of the greedy search in bench/covtype-weights.R:
# 12.40%), 64000 rows with 128 frequencies 13.36%; at D = 5000, 11.31% ->
# 9.51%. rbin's Laplacian proxy keeps 128: with 512 on CoverType the
# isotropic proxy came within a standard error of the per-column one, the
# check dropped it, and rbin's test error rose from 2.32% to 4.01%
# (bench/results/ard-covtype*.md). Up to 4000 rows (any data of up to 128,000
# rows) nothing changes.
ard_settings <- list(n_rows = 4000, row_fraction = 1 / 32, max_rows = 16000,
                     n_frequencies = 128, max_iter = 50, n_check = 2000, min_fresh_rows = 1000,
                     n_searches = 3L)

# The proxy's number of frequencies for a subsample of n_rows rows (above).
ard_frequencies <- function(n_rows, binned = FALSE) {
  growth <- if (binned) 1 else max(1, n_rows / ard_settings$n_rows)
  as.integer(ceiling(ard_settings$n_frequencies * growth))
}

# The overall scale of kept per-column bandwidths, screened on all training
# rows by the fit's own lambda choice (dense maps, squared loss, lambda not
# one number; rbin maps get theirs from R/krr_binned_search.R): the
# learned bandwidths as they are, or times 2^-1/2 (ties to the first). The
# search's proxy has fewer features than the fit's map and is fitted on
# fewer rows, and both push its bandwidths wider than the fit can use: on
# CoverType (rff, D = 5000) the learned bandwidths times 1, 0.84 and 0.707
# gave 9.51%, 9.29% and 9.17% test error, while at D = 2048 times 0.5 was
# worse than 0.707 (13.24% against 12.52%), and so was 1.414 (13.17%;
# bench/results/ard-covtype.md). Two candidates, so that both get the full
# CV (R/krr_bandwidth_search.R): on CoverType each costs a pass of Z'Z at
# D = 5000 over 522,910 rows.
ard_scale_factors <- c(1, 2^-0.5)

# The bandwidth candidates after the search: one (the map's) unless the
# screen above applies.
ard_scale_candidates <- function(ard, map, lambda, loss) {
  if (!isTRUE(ard$report$kept) || loss != "squared" ||
      (is.numeric(lambda) && length(lambda) == 1)) {
    return(list(NULL))
  }
  lapply(ard_scale_factors, function(f) map$kernel$sigma * f)
}

# The binned screen's verdict on kept per-column bandwidths (their fold-1
# error against the map's one bandwidth, R/krr_binned_search.R): they are
# dropped after all when they do not beat it there.
binned_ard_verdict <- function(report, search, folds) {
  report$binned_check <- search$baseline_check
  report$binned_check_rows <- sum(folds == 1L)
  if (isTRUE(search$baseline_kept)) report$kept <- FALSE else report$group_steps <- search$group_steps
  if (identical(search$start, 2L)) {
    report$pruned_kept <- report$pruned  # the binned fit took them back
    report$pruned <- integer()
  }
  report
}

# The per-column bandwidths whose overall scale the binned screen searches
# (R/krr_binned_search.R): the map's, and those before pruning when it
# left columns out. Pruning judges a column on the dense proxy's fresh
# rows, and binning on all rows can use columns that proxy cannot: on
# CoverType (rbin, 50 grids, map seed 2) it left out the distance to roads
# (a weight of 8 in the greedy search of bench/covtype-weights.R) and the
# test error was 3.65%, 2.16% with every column; on CPU raw (rbin, the
# defaults suite) pruning won, 0.136 against 0.142. Fold 1 of the binned
# fit chose the better one on both (bench/results/ard-covtype-rbin.md).
binned_ard_starts <- function(ard) {
  c(list(ard$map$kernel$sigma), if (!is.null(ard$unpruned)) list(ard$unpruned))
}

# The groups of columns whose bandwidths the binned screen steps one by one
# after the overall scale (group_steps(), R/krr_binned_search.R), or NULL:
# where the search was averaged (ard_search_count()), the large data whose
# fold 1 can rank such steps.
binned_ard_groups <- function(ard) {
  if (isTRUE(ard$report$searches > 1)) ard$report$groups
}

# The learned bandwidths applied to `map` if they beat its own bandwidth on
# held-out rows (otherwise `map` unchanged), with a report of the search.
# x: training data (checked), y: the n x k response matrix, weights: NULL
# or n non-negative numbers.
ard_map <- function(map, x, y, weights, backend, call = rlang::caller_env()) {
  x <- map_input(map, x, arg = "x", call = call)
  if (nrow(x) < 20) {
    abort_arg("{.code sigma = \"ard\"} needs at least 20 training rows to learn bandwidths from, not {nrow(x)}.",
              call = call)
  }
  started <- proc.time()[["elapsed"]]
  # The subsample is held dense: at most about 2e7 numbers.
  n_rows <- max(ard_settings$n_rows, min(ard_settings$max_rows, floor(nrow(x) * ard_settings$row_fraction)))
  n_rows <- min(n_rows, max(500, floor(2e7 / ncol(x))))
  fresh <- nrow(x) - n_rows >= ard_settings$min_fresh_rows
  n_check <- if (fresh) min(nrow(x) - n_rows, ard_settings$n_check) else 0
  draw <- ard_draw(map, x, y, weights, n_rows, n_check)
  data <- draw$data
  w0 <- draw$w0
  groups <- one_hot_groups(x)  # R/ard_groups.R
  check <- ard_check(data, draw$search_rows, map$kernel, w0, backend, groups,
                     ard_cross_fit(map))
  n_searches <- ard_search_count(map, n_rows, fresh)
  if (n_searches > 1) {
    check <- ard_averaged(check, n_searches, map, x, y, weights, backend, n_rows, n_check, groups)
  }
  search <- if (check$kept) {
    check$search %||% ard_search(data, map$kernel, w0, ard_settings$max_iter, backend, groups)
  }
  pruned <- integer()
  unpruned <- NULL
  # (one search's fresh rows; the mean of several has none: ard_averaged())
  if (check$kept && !is.null(check$train)) {
    unpruned <- search$sigma
    search <- ard_prune(search, check$train, check$held_out, w0, backend)
    pruned <- search$pruned
  }
  report <- list(kept = check$kept, check = check$errors,
                 check_rows = if (fresh) n_check * n_searches else nrow(data$x),
                 objective = search$objective %||% NA_real_,
                 iterations = check$iterations + if (is.null(check$search)) search$iterations %||% 0L else 0L,
                 converged = search$converged %||% NA, rows = nrow(data$x) - n_check,
                 pruned = pruned, groups = groups, searches = n_searches)
  if (check$kept) map <- with_bandwidths(map, search$sigma, x, backend, call = call)
  # rbin maps: the bandwidths before pruning too, for the binned screen to
  # choose between (binned_ard_starts()).
  list(map = map, report = c(report, list(time = proc.time()[["elapsed"]] - started)),
       unpruned = if (length(pruned) && inherits(map, "kitchen_rbin")) unpruned)
}

# Do per-column bandwidths searched on some rows predict other rows better
# than the kernel's own bandwidth? Each is scored by ridge on the features
# of w0, fitted on the search's rows with its lambda (ARD's from the search,
# the isotropic one's the best of a grid on the same two halves) and scored
# on the held-out rows. search_rows: which rows of `data` the search uses,
# the others checking it; NULL to cross-fit `cross$parts` random parts of
# `data` (each scoring a search on the others).
# Returns kept, the mean held-out errors, the paired gains (per held-out
# row, isotropic loss minus ARD's), the objective evaluations spent, and
# the search to keep: cross-fitted, the mean of the parts' searches
# (mean_search()) if `cross$average`, else NULL (the bandwidths are still
# to be learned on all of `data`).
ard_check <- function(data, search_rows, kernel, w0, backend, groups = seq_len(ncol(data$x)),
                      cross = ard_cross_fit(NULL)) {
  parts <- if (is.null(search_rows)) {
    k <- cross$parts
    part <- sample(rep(seq_len(k), length.out = nrow(data$x)))
    lapply(seq_len(k), function(i) part != i)
  } else list(search_rows)
  errors <- c(ard = 0, isotropic = 0)
  gain <- numeric()   # per held-out row: isotropic loss minus ARD's
  iterations <- 0L
  searches <- list()
  for (inside in parts) {
    train <- ard_rows(data, inside)
    search <- ard_search(train, kernel, w0, ard_settings$max_iter, backend, groups)
    searches[[length(searches) + 1]] <- search
    iterations <- iterations + search$iterations
    problem <- list(data = train, w0 = w0, backend = backend)
    log_sigma <- rep_len(log(kernel$sigma), ncol(data$x))
    # A grid as fine as the search's continuous lambda, for a fair match.
    log_lambdas <- seq(-14, 4, by = 0.5)
    scores <- tryCatch(isotropic_scores(problem, log_sigma, log_lambdas), error = function(e) Inf)
    log_lambda <- log_lambdas[best_candidate(scores)]
    held_out <- ard_rows(data, !inside)
    ard <- held_out_losses(c(log(search$sigma), search$log_lambda), train, held_out, w0, backend)
    isotropic <- if (any(is.finite(scores))) {
      held_out_losses(c(log_sigma, log_lambda), train, held_out, w0, backend)
    } else rep(Inf, length(ard))
    errors <- errors + c(ard = mean(ard), isotropic = mean(isotropic))
    gain <- c(gain, isotropic - ard)
  }
  fresh <- length(parts) == 1
  list(kept = ard_kept(errors, gain), errors = errors / length(parts), gain = gain,
       iterations = iterations,
       search = if (fresh) search else if (cross$average) mean_search(searches, ncol(data$x)),
       train = if (fresh) train, held_out = if (fresh) held_out)
}

# How ard_check() cross-fits data with no fresh rows: five parts and the
# mean of their searches (top of this file), or for rbin maps two halves,
# then a search on the whole subsample: with five parts and the mean, a
# test of 2500 rows (y from 2 of 6 uniform columns, tests/testthat/test-ard.R)
# gave rbin an irrelevant column among the two most relevant and a test
# RMSE of 0.082-0.215 over map seeds 1-4, against 0.061-0.094.
# (NULL: a dense map's)
ard_cross_fit <- function(map) {
  if (inherits(map, "kitchen_rbin")) list(parts = 2L, average = FALSE) else
    list(parts = 5L, average = TRUE)
}

# Several searches as one: the geometric mean of their bandwidths (their
# log-bandwidths averaged), their mean objective, converged if all did.
mean_search <- function(searches, d) {
  log_sigma <- rowMeans(vapply(searches, function(s) log(s$sigma), numeric(d)))
  list(sigma = exp(log_sigma), objective = mean(vapply(searches, `[[`, 0, "objective")),
       converged = all(vapply(searches, `[[`, TRUE, "converged")))
}

# Per-column bandwidths are kept if better by more than one standard error of
# the mean paired gain (the simpler model stays otherwise; R/paired_gain.R).
# Not finite: features or solves that failed count as losing.
ard_kept <- function(errors, gain) {
  is.finite(errors[["ard"]]) && (!is.finite(errors[["isotropic"]]) || clearly_better(gain))
}

# A subsample of n_rows + n_check rows (ard_subsample()), the proxy's
# frequencies at bandwidth 1, and with fresh rows (n_check > 0) which of the
# subsample's rows the search uses: the others, at random (its rows are
# sorted), check it.
ard_draw <- function(map, x, y, weights, n_rows, n_check) {
  data <- ard_subsample(map, x, y, weights, n_rows + n_check)
  w0 <- spectral_sample(map$kernel, ncol(x),
                        ard_frequencies(n_rows, binned = inherits(map, "kitchen_rbin")))
  search_rows <- if (n_check > 0) sample(rep(c(TRUE, FALSE), c(nrow(data$x) - n_check, n_check)))
  list(data = data, w0 = w0, search_rows = search_rows)
}

# How many searches, on independent draws, ard_map() averages: one, or for
# rbin maps on more than 32 x 4000 training rows (where the subsample is a
# thirty-second of them and the search's bandwidths decide the final fit's
# bins on all rows) ard_settings$n_searches. The search lands far from one
# draw to the next: on CoverType (rbin, 50 grids, map seed 4) three draws
# put aspect's bandwidths 79 times apart; one draw's bandwidths gave 2.88%
# test error, the mean of three 2.23%; over map seeds 1-5, 2.23-2.47%
# against 2.16-2.88% with one search, and five searches did no better
# (bench/results/ard-covtype-rbin.md). Not measured on smaller data or for
# dense maps, whose search costs more (rff at D = 5000: 158 s a search on
# CoverType).
ard_search_count <- function(map, n_rows, fresh) {
  if (inherits(map, "kitchen_rbin") && fresh && n_rows > ard_settings$n_rows) {
    ard_settings$n_searches
  } else 1L
}

# The check and search of `first` (ard_check() with fresh rows) and of
# n_searches - 1 more draws, pooled: the bandwidths are the geometric mean
# of the searches' (their log-bandwidths averaged), kept if the pooled
# paired gains on the draws' fresh rows pass ard_kept(). The mean has no
# pruning step: each draw's pruning is judged on its own 2000 rows and
# searches that leave out different columns would average to columns
# half-left out.
ard_averaged <- function(first, n_searches, map, x, y, weights, backend, n_rows, n_check, groups) {
  checks <- c(list(first), lapply(seq_len(n_searches - 1), function(i) {
    draw <- ard_draw(map, x, y, weights, n_rows, n_check)
    ard_check(draw$data, draw$search_rows, map$kernel, draw$w0, backend, groups)
  }))
  errors <- colMeans(do.call(rbind, lapply(checks, `[[`, "errors")))
  gain <- unlist(lapply(checks, `[[`, "gain"))
  list(kept = ard_kept(errors, gain), errors = errors, gain = gain,
       iterations = sum(vapply(checks, `[[`, 0, "iterations")),
       search = mean_search(lapply(checks, `[[`, "search"), ncol(x)))
}

# The search's bandwidths with the columns that do not help on fresh rows
# set to their upper bound (see the top of this file), and `pruned`, their
# indices. Each group of columns (one column, or the columns of one
# categorical variable: R/ard_groups.R) below its bound is tried alone
# against the search's bandwidths, by the mean held-out loss; the ones
# whose removal does not raise it are then tried together, and pruned if
# that passes the same rule.
ard_prune <- function(search, train, held_out, w0, backend) {
  d <- length(search$sigma)
  groups <- search$groups %||% seq_len(d)
  theta <- c(log(search$sigma), search$log_lambda)
  full <- held_out_losses(theta, train, held_out, w0, backend)
  not_worse <- function(losses) {
    gain <- full - losses
    all(is.finite(losses)) && mean(gain) >= 0
  }
  columns_of <- function(group_ids) which(groups %in% group_ids)
  without <- function(group_ids) {
    columns <- columns_of(group_ids)
    replace(theta, columns, search$log_upper[columns])
  }
  candidates <- unique(groups[theta[seq_len(d)] < search$log_upper - 1e-8])
  candidates <- candidates[vapply(candidates, function(g) {
    not_worse(held_out_losses(without(g), train, held_out, w0, backend))
  }, TRUE)]
  if (length(candidates) > 1 &&
      !not_worse(held_out_losses(without(candidates), train, held_out, w0, backend))) {
    candidates <- integer()
  }
  pruned <- columns_of(candidates)
  search$sigma[pruned] <- exp(search$log_upper[pruned])
  search$pruned <- pruned
  search
}

# The rows `rows` (logical) of a subsample, split in two new halves.
ard_rows <- function(data, rows) {
  list(x = data$x[rows, , drop = FALSE], y = data$y[rows, , drop = FALSE], w = data$w[rows],
       half = sample(rep(1:2, length.out = sum(rows))))
}

# Weighted squared error (relative to its response's variance) on the rows
# of `held_out` of ridge regression fitted on all rows of `train`, on the
# features of w0 at the log-bandwidths and log(lambda / n) in theta: the
# mean of held_out_losses(), each row's share (Inf if the solve failed).
held_out_error <- function(theta, train, held_out, w0, backend) {
  mean(held_out_losses(theta, train, held_out, w0, backend))
}

held_out_losses <- function(theta, train, held_out, w0, backend) {
  d <- ncol(train$x)
  x <- rbind(train$x, held_out$x)
  z <- rff_features_cpp(x, w0 * exp(-theta[seq_len(d)]), rep(0, d), NULL, "cos_sin",
                        backend$blas, backend$n_threads, backend$simd)
  y <- rbind(train$y, held_out$y)
  is_train <- seq_len(nrow(x)) <= nrow(train$x)
  s <- ridge_split(list(y = y, w = c(train$w, held_out$w)), z, is_train)
  gram <- gram_of(s$za * sqrt(s$wa), backend)  # R/gram.R
  # lambda per unit of weight: multiplying every weight by c changes nothing
  diag(gram) <- diag(gram) + exp(theta[d + 1]) * sum(train$w)
  chol_gram <- tryCatch(chol(gram), error = function(e) NULL)
  if (is.null(chol_gram) || !all(is.finite(z))) return(rep(Inf, nrow(held_out$x)))
  beta <- backsolve(chol_gram, forwardsolve(t(chol_gram), crossprod(s$za, s$ya * s$wa)))
  scale_y <- sum(apply(held_out$y, 2, stats::var)) + 1e-300
  s$wb * rowSums((s$zb %*% beta - s$yb)^2) / (mean(s$wb) * scale_y)
}

# The two sides of a held-out ridge problem on features z: rows `train`
# (logical) to fit on, the others to score on, with their weights and the
# responses centred at the training side's weighted mean. data: y (n x k)
# and w (n weights).
ridge_split <- function(data, z, train) {
  wa <- data$w[train]
  mean_y <- colSums(data$y[train, , drop = FALSE] * wa) / sum(wa)
  list(wa = wa, wb = data$w[!train],
       ya = sweep(data$y[train, , drop = FALSE], 2, mean_y),
       yb = sweep(data$y[!train, , drop = FALSE], 2, mean_y),
       za = z[train, , drop = FALSE], zb = z[!train, , drop = FALSE])
}

# Runs `code`, then puts R's random stream back as it was: a fit whose
# per-column bandwidths are dropped is then the fit without sigma = "ard"
# (same CV folds), not one drawn from a stream the search moved on.
with_stream_restored <- function(code) {
  env <- globalenv()
  had_seed <- exists(".Random.seed", envir = env, inherits = FALSE)
  if (had_seed) old <- get(".Random.seed", envir = env, inherits = FALSE)
  on.exit(if (had_seed) assign(".Random.seed", old, envir = env) else
    suppressWarnings(rm(".Random.seed", envir = env)))
  code
}

# Chunked data: the search runs on the first chunks' rows.
ard_map_chunked <- function(map, data, backend, call = rlang::caller_env()) {
  rows <- leading_chunk_rows(map, data, ard_settings$n_rows + ard_settings$n_check,
                             "to learn the bandwidths from", call)
  ard_map(map, rows$x, rows$y, rows$weights, backend, call = call)
}

# Rows of the first chunks, read until they hold `n_rows` (each chunk
# checked as in the fit), as map_input() gives them, with their response
# matrix (in the units a search sees in memory: R/response_scale.R) and
# weights. `purpose` ends the error when there are none.
leading_chunk_rows <- function(map, data, n_rows, purpose, call = rlang::caller_env()) {
  xs <- list()
  ys <- list()
  ws <- list()
  rows <- 0
  i <- 0
  first <- NULL  # the first chunk with rows
  while (rows < n_rows) {
    chunk <- chunk_read(data, i + 1, call = call)
    if (is.null(chunk)) break
    i <- i + 1
    if (chunk_is_empty(chunk)) next  # R/chunked_future.R
    x <- map_input(map, with_chunk(data, i, "holds bad data", call = call,
                                   as_data_matrix(chunk$x, allow_sparse = TRUE, arg = "x")),
                   arg = "x", call = call)
    w <- with_chunk(data, i, "holds bad data", call = call,
                    check_weights(chunk$weights, nrow(x), arg = "weights", whole = FALSE)) %||% rep(1, nrow(x))
    if (!any(w > 0)) next  # a chunk of no weight: no rows to search on
    first <- first %||% i
    k <- length(xs) + 1
    xs[[k]] <- as.matrix(x)
    ys[[k]] <- chunk$y
    ws[[k]] <- w
    rows <- rows + nrow(x)
  }
  if (rows == 0) abort_arg("{.arg x} has no chunks {purpose}.", call = call)
  # class labels as a factor (character labels, as a file's column, too:
  # their levels sorted, as class_levels() orders them)
  y <- if (is.factor(ys[[1]])) {
    unlist(ys)
  } else if (is.character(ys[[1]])) {
    factor(unlist(ys))
  } else {
    do.call(rbind, lapply(ys, as.matrix))
  }
  weights <- unlist(ws)
  y <- with_chunk(data, first, "holds bad data", call = call, krr_response(y, rows, weights)$y)
  list(x = do.call(rbind, xs), y = y / response_scale(y), weights = weights)
}

# Up to n_rows random rows, rescaled as the map rescales them, with their
# responses and weights, and the two halves they are split in.
ard_subsample <- function(map, x, y, weights, n_rows) {
  rows <- if (nrow(x) > n_rows) sort(sample.int(nrow(x), n_rows)) else seq_len(nrow(x))
  xs <- as.matrix(x[rows, , drop = FALSE])
  xs <- (xs - rep(map$center, each = nrow(xs))) / rep(map$scale, each = nrow(xs))
  w <- if (is.null(weights)) rep(1, length(rows)) else weights[rows]
  list(x = xs, y = y[rows, , drop = FALSE], w = w,
       half = sample(rep(1:2, length.out = length(rows))))
}

# Starts from the best isotropic bandwidth (the map's times 2^-2 .. 2^2) and
# lambda on a small grid, then descends on all the log-bandwidths at once,
# one per group of columns (`groups`: each column's group, 1..G; columns
# that code one categorical variable share a bandwidth, R/ard_groups.R).
# w0: the d x m frequencies at bandwidth 1.
ard_search <- function(data, kernel, w0, max_iter, backend, groups = seq_len(ncol(data$x))) {
  d <- ncol(data$x)
  n_groups <- max(groups)
  base <- rep_len(log(kernel$sigma), d)
  problem <- list(data = data, w0 = w0, backend = backend)
  score <- function(theta) ard_objective(theta, problem, gradient = FALSE)$value
  factors <- log(2) * (-2:2)
  factor <- factors[best_candidate(vapply(factors, function(f) score(c(base + f, -4)), 0))]
  log_lambdas <- c(-8, -6, -4, -2, 0)
  log_lambda <- log_lambdas[best_candidate(vapply(log_lambdas, function(l) score(c(base + factor, l)), 0))]
  # The search's parameters: each group's log-bandwidth (that of its first
  # column; the others keep their offsets from it), then log lambda;
  # expand() gives the columns' theta. Single columns are searched as they
  # were before groups.
  start_columns <- base + factor
  first <- match(seq_len(n_groups), groups)
  offset <- start_columns - start_columns[first][groups]
  expand <- function(par) c(par[groups] + offset, par[n_groups + 1])
  start <- c(start_columns[first], log_lambda)
  # Bounds keep the search where features stay informative: a column whose
  # bandwidth reaches the upper one is in effect left out.
  lower <- c(start[seq_len(n_groups)] - log(100), -14)
  upper <- c(start[seq_len(n_groups)] + log(1e4), 4)
  cache <- new.env()
  evaluate <- function(par) {
    if (!identical(cache$par, par)) {
      cache$par <- par
      cache$result <- ard_objective(expand(par), problem)
    }
    cache$result
  }
  group_gradient <- function(par) {
    gradient <- evaluate(par)$gradient
    c(as.vector(rowsum(gradient[seq_len(d)], groups, reorder = TRUE)), gradient[d + 1])
  }
  fit <- stats::optim(start, function(par) evaluate(par)$value, group_gradient,
                      method = "L-BFGS-B", lower = lower, upper = upper,
                      control = list(maxit = max_iter, factr = 1e9))
  theta <- expand(fit$par)
  list(sigma = exp(theta[seq_len(d)]), log_lambda = theta[d + 1],
       log_upper = upper[groups] + offset, groups = groups,
       objective = fit$value, iterations = fit$counts[["function"]],
       converged = fit$convergence == 0)
}

# Mean held-out squared error (relative to the response's variance) of
# ridge regression on cos / sin features with frequencies diag(exp(-u)) w0,
# fitted on one half of the rows and scored on the other, both ways; theta
# = c(u, log(lambda / n_half)). With `gradient`, also its exact gradient.
ard_objective <- function(theta, problem, gradient = TRUE) {
  data <- problem$data
  d <- ncol(data$x)
  u <- theta[seq_len(d)]
  w <- problem$w0 * exp(-u)      # row j divided by s_j
  m <- ncol(w)
  # [cos(x w), sin(x w)] / sqrt(m) on kitchen's SIMD kernels.
  z <- rff_features_cpp(data$x, w, rep(0, d), NULL, "cos_sin", problem$backend$blas,
                        problem$backend$n_threads, problem$backend$simd)
  scale_y <- sum(apply(data$y, 2, stats::var)) + 1e-300
  # The tall products on kitchen's threaded kernels, not R's BLAS (on the
  # reference BLAS they took a quarter of a CoverType search; those with a
  # long inner dimension and a narrow result, Z'y, are faster in R).
  product <- function(a, b) dense_product(a, b, problem$backend)
  value <- 0
  grad_u <- numeric(d)
  grad_l <- 0
  for (fold in 1:2) {
    a <- data$half != fold
    b <- !a
    s <- ridge_split(data, z, a)
    wa <- s$wa
    wb <- s$wb
    za <- s$za
    zb <- s$zb
    lambda <- exp(theta[d + 1]) * sum(wa)  # per unit of weight, as the Gram matrix
    gram <- gram_of(za * sqrt(wa), problem$backend)
    diag(gram) <- diag(gram) + lambda
    chol_gram <- chol(gram)
    solve_gram <- function(v) backsolve(chol_gram, forwardsolve(t(chol_gram), v))
    beta <- solve_gram(crossprod(za, s$ya * wa))
    rb <- product(zb, beta) - s$yb
    norm <- 2 * sum(wb) * scale_y
    value <- value + sum(wb * rb^2) / norm
    if (!gradient) next
    pb <- 2 * wb * rb / norm               # dL / d(predictions on b)
    adjoint <- solve_gram(crossprod(zb, pb))
    ea <- s$ya - product(za, beta)
    qa <- product(za, adjoint)
    # dL = <pb, dZb beta> + <wa ea, dZa adjoint> - <wa qa, dZa beta> (the
    # last two in one call: the weights are linear in the pairs)
    mb <- feature_derivative_weights(zb, pb, beta, product)
    ma <- feature_derivative_weights(za, cbind(wa * ea, -wa * qa), cbind(adjoint, beta), product)
    # d proj[i, k] / d u_j = -x[i, j] w[j, k]
    grad_u <- grad_u - rowSums(w * (product(t(data$x[b, , drop = FALSE]), mb) +
                                      product(t(data$x[a, , drop = FALSE]), ma)))
    grad_l <- grad_l - lambda * sum(adjoint * beta)
  }
  list(value = value, gradient = if (gradient) c(grad_u, grad_l))
}

# For sum_i sum_c sum_l p[i, l] dZ[i, c] v[c, l] with Z = [cos P, sin P] /
# sqrt(m): the weight of each d P[i, k] (d cos = -sin dP, d sin = cos dP).
# `product(a, b)`: a %*% b.
feature_derivative_weights <- function(z, p, v, product) {
  m <- ncol(z) / 2
  cos_z <- z[, seq_len(m), drop = FALSE]
  sin_z <- z[, m + seq_len(m), drop = FALSE]
  cos_z * product(p, t(v[m + seq_len(m), , drop = FALSE])) -
    sin_z * product(p, t(v[seq_len(m), , drop = FALSE]))
}

# `map` with per-column bandwidths `sigma` (in its rescaled units), its
# random draws kept: rff frequencies and rbin pitches are rescaled (and the
# occupied bins found again on x); fastfood applies sigma itself.
with_bandwidths <- function(map, sigma, x, backend, call = rlang::caller_env()) {
  ratio <- map$kernel$sigma / sigma
  if (inherits(map, "kitchen_nystrom")) {
    return(nystrom_with_bandwidth(map, sigma))
  } else if (inherits(map, "kitchen_rff")) {
    map$projection <- map$projection * ratio
  } else if (inherits(map, "kitchen_rbin")) {
    map$pitch <- map$pitch / ratio
    map$shift <- map$shift / ratio
    if (is.null(map$n_buckets)) {
      built <- rbin_build_cpp(x, map$pitch, map$shift, map$center, map$scale, backend$n_threads,
                              backend$simd)
      check_column_count(sum(as.numeric(built$n_bins)), "The number of occupied bins", call = call)
      map$keys <- built$keys
      map$n_bins <- built$n_bins
      map$n_features <- as.integer(sum(as.numeric(built$n_bins)))
    }
  }
  map$kernel$sigma <- sigma
  map
}
