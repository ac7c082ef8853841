# The candidates that get the full map's K-fold CV after a screen.
bandwidth_finalists <- 2L

# Bandwidth candidates (`sigma`) of a dense fit (rff, fastfood, Nystroem
# maps; in memory or chunked). Each candidate costs one pass over the data
# (`pass(map)` returns its sufficient statistics). With GCV, each is then
# scored by one tridiagonal reduction of its Z'Z and the (sigma, lambda)
# pair with the lowest GCV score is kept.
#
# With K-fold CV, scoring every candidate in full would cost K reductions
# each (plus the final one): at D = 4096 about five seconds apiece, the bulk
# of the search. Instead every candidate is screened by the held-out error
# of fold 1 over the lambda path (one reduction), as rbin's candidates are
# (R/krr_binned_search.R), and only the best `n_full` (two) get the other
# K - 1 folds, continuing from their fold-1 errors, so that their CV scores
# are the full search's to the last bit; the better of them by CV is kept
# and solved. The choice is the full search's whenever the full search's
# best is among the screen's best two (fold 1 alone, a fifth of the rows,
# can misrank close candidates on small data). bench/bandwidth-search.R
# compares both.
#
# Large rff and Fastfood maps (at least `kitchen.bandwidth_proxy` features,
# 2048 by default) on the primal path are screened by a proxy instead: the
# map's leading quarter of frequencies (the first D / 4 features of every
# candidate, the same random draws rescaled) is cross-validated over all K
# folds for each candidate, at 1/16 of a full pass's Gram product and 1/64
# of a full reduction; the proxy's best two get the full map's pass and
# K-fold CV, and the better of them by that CV is kept: two full passes and
# 2K + 1 full reductions (11 with K = 5), against five passes and 2K + 4
# (14) for the fold-1 screen with five candidates. Their CV scores
# and the fit are the full search's to the last bit, and so is the choice
# whenever the full search's best is among the proxy's best two. Neither
# cheaper rule kept the choice (bench/results/bandwidth-proxy.md): the
# proxy's best alone prefers wider bandwidths (census, letter), and fold 1
# of the full map misranked two CPU candidates whose full CV scores differ
# by 11%.
# With at most two candidates (bandwidth_finalists) no proxy is made: it
# would screen none out, and both get the full map's K-fold CV anyway.
krr_bandwidth_search <- function(map, sigmas, lambda, pass, backend, primal = TRUE) {
  hold_fit_workspace()  # the block buffers serve every pass and chunk
  read <- 0
  proxy <- if (length(sigmas) > bandwidth_finalists && identical(lambda, "cv") && primal) {
    bandwidth_proxy(map)
  }
  n_passes <- length(sigmas) + if (!is.null(proxy)) bandwidth_finalists else 0
  tick <- progress_ticker(backend, "Choosing the bandwidth", if (length(sigmas) > 1) n_passes else 0)
  run_pass <- function(s, base = map) {
    candidate <- if (is.null(s)) base else rescale_bandwidth(base, s)
    begin <- proc.time()[["elapsed"]]
    stats <- pass(candidate)
    read <<- read + proc.time()[["elapsed"]] - begin
    tick()
    list(map = candidate, stats = stats)
  }
  if (length(sigmas) > 1 && identical(lambda, "cv")) {
    if (!is.null(proxy)) {
      return(proxy_bandwidth_search(sigmas, proxy, run_pass, backend, function() read))
    }
    return(screened_bandwidth_search(sigmas, run_pass, backend, function() read))
  }
  fits <- lapply(sigmas, function(s) {
    f <- run_pass(s)
    f$solution <- krr_solve(f$stats, lambda, backend)
    f
  })
  score <- if (is.null(fits[[1]]$solution$path$cv)) "gcv" else "cv"
  scores <- vapply(fits, function(f) min(f$solution$path[[score]], Inf, na.rm = TRUE), 0)
  best <- if (length(fits) > 1) best_candidate(scores) else 1L
  list(map = fits[[best]]$map, solution = fits[[best]]$solution,
       stats = fits[[best]]$stats, sigma_path = bandwidth_path(fits, scores), read = read)
}

# The fold-1 screen, then the full CV of the best `n_full` candidates.
# Only their statistics are kept (with K = 5 folds, six D x D matrices
# each: 0.8 GB at D = 4096). `read()`: seconds spent in passes.
screened_bandwidth_search <- function(sigmas, run_pass, backend, read,
                                      n_full = bandwidth_finalists) {
  screened <- vector("list", length(sigmas))
  kept <- list()  # the best n_full so far, best first
  for (i in seq_along(sigmas)) {
    f <- run_pass(sigmas[[i]])
    f$screen <- screen_fold_path(f$stats, backend)
    f$index <- i
    screened[[i]] <- list(map = f$map, solution = list(path = f$screen$path,
                                                       lambda = f$screen$lambda))
    kept <- c(kept, list(f))
    order <- order(vapply(kept, function(k) k$screen$score, 0), vapply(kept, `[[`, 0L, "index"))
    kept <- kept[utils::head(order, n_full)]
    f <- NULL
  }
  scores <- vapply(screened, function(s) min(s$solution$path$cv, Inf, na.rm = TRUE), 0)
  # The kept candidates' full CV, in the order of `sigmas` (ties go to the
  # first, as in the full search).
  kept <- kept[order(vapply(kept, `[[`, 0L, "index"))]
  cv <- lapply(kept, function(k) {
    if (is.null(k$screen$sse)) return(NULL)  # constant features: krr_solve() handles them
    cv_path(k$stats, k$screen$path$lambda, backend, screened = k$screen$sse)
  })
  pick <- finalist_pick(vapply(cv, function(v) if (is.null(v)) Inf else min(v), 0))
  # sigma_path: every candidate's fold-1 curve and score (what screened
  # them); the chosen one's lambda is the full CV's.
  solve_finalist(kept[[pick]], cv[[pick]], screened, kept[[pick]]$index, scores, backend, read)
}

# The position of the finalist with the lowest full CV score (the first
# when every score is NaN: krr_solve() says so then).
finalist_pick <- function(full_scores) {
  pick <- best_candidate(full_scores)
  if (length(pick) == 0) 1L else pick
}

# The chosen finalist `best` (a full pass's map and statistics) solved with
# its K-fold CV scores `cv` (NULL for constant features); the screen's
# entry `index` of `screened` takes its map and chosen lambda, and the
# search's result is returned.
solve_finalist <- function(best, cv, screened, index, scores, backend, read) {
  solution <- krr_solve(best$stats, "cv", backend, cv = cv)
  screened[[index]]$map <- best$map
  screened[[index]]$solution$lambda <- solution$lambda
  list(map = best$map, solution = solution, stats = best$stats,
       sigma_path = bandwidth_path(screened, scores), read = read())
}

# The proxy of a large rff or Fastfood map: its leading quarter of
# frequencies (every feature of those, cos and sin, in the map's order; for
# Fastfood, its first quarter of blocks), or NULL for smaller maps, Fastfood
# maps of fewer than four blocks, and other kinds.
# options(kitchen.bandwidth_proxy = n): the least number of features that
# gets one (documented in ?krr_fit; tests set it low).
bandwidth_proxy <- function(map) {
  if (map$n_features < getOption("kitchen.bandwidth_proxy", 2048)) return(NULL)
  if (inherits(map, "kitchen_rff")) {
    return(leading_frequencies(map, max(1L, ncol(map$projection) %/% 4L)))
  }
  if (inherits(map, "kitchen_fastfood")) {
    blocks <- fastfood_block_count(map)  # R/fastfood.R
    if (blocks >= 4L) return(leading_blocks(map, blocks %/% 4L))
  }
  NULL
}

# An rff map of its first m frequencies: the same estimator of the same
# kernel with fewer draws (the features' scale follows n_features).
leading_frequencies <- function(map, m) {
  map$projection <- map$projection[, seq_len(m), drop = FALSE]
  if (!is.null(map$phases)) map$phases <- map$phases[seq_len(m)]
  map$n_features <- as.integer(m * features_per_frequency(map))
  map
}

# A Fastfood map of its first b blocks (b p frequencies; each block's
# signs, permutation and Gaussian diagonal, or a SORF block's three sign
# columns, with their frequencies' lengths and phases).
leading_blocks <- function(map, b) {
  m <- b * nrow(map$signs)  # p frequencies a block
  sorf <- identical(map$structure, "sorf")
  map$signs <- map$signs[, seq_len(if (sorf) 3L * b else b), drop = FALSE]
  if (!sorf) {
    map$perm <- map$perm[, seq_len(b), drop = FALSE]
    map$gauss <- map$gauss[, seq_len(b), drop = FALSE]
    map$radial <- map$radial[seq_len(m)]
  }
  if (!is.null(map$phases)) map$phases <- map$phases[seq_len(m)]
  map$n_features <- as.integer(m * features_per_frequency(map))
  map
}

# Features per frequency of an rff or Fastfood map: its cosine and sine, or
# one cosine with a phase.
features_per_frequency <- function(map) if (identical(map$type, "cos_sin")) 2L else 1L

# Every candidate's proxy cross-validated over all K folds; the best two
# (`n_finalists`, in the order of `sigmas`) get the full map's pass and
# K-fold CV, and the better of them by that score (ties to the first) is
# solved. sigma_path: the proxy's scores and curves (what screened them
# all), the chosen one's lambda the full CV's.
proxy_bandwidth_search <- function(sigmas, proxy, run_pass, backend, read,
                                   n_finalists = bandwidth_finalists) {
  all_folds <- function(stats) screen_fold_path(stats, backend, which = seq_along(stats$folds))
  screened <- lapply(sigmas, function(s) {
    f <- run_pass(s, base = proxy)
    screen <- all_folds(f$stats)
    list(map = f$map, solution = list(path = screen$path, lambda = screen$lambda),
         score = screen$score)
  })
  scores <- vapply(screened, `[[`, 0, "score")
  finalists <- sort(utils::head(order(scores, seq_along(scores)), n_finalists))
  full <- lapply(finalists, function(i) {
    f <- run_pass(sigmas[[i]])
    f$cv <- all_folds(f$stats)
    f
  })
  pick <- finalist_pick(vapply(full, function(f) f$cv$score, 0))
  best <- full[[pick]]
  full <- NULL
  # (the lambdas and CV scores krr_solve() would compute; none for constant features)
  solve_finalist(best, if (!is.null(best$cv$sse)) best$cv$path$cv, screened, finalists[[pick]],
                 scores, backend, read)
}

# Fold 1's (or the folds `which`) summed squared held-out error over
# krr_solve()'s lambdas (sse, to continue the CV from), its mean per unit
# weight as the path's `cv` column, the best of them (score) and its lambda.
# Constant features (or no finite error) score Inf.
screen_fold_path <- function(stats, backend, which = 1L) {
  if (is_dual_statistics(stats)) return(dual_screen_fold_path(stats))  # R/krr_dual.R
  centred_diagonal <- centred_gram_diagonal(stats)
  if (features_constant(centred_diagonal, diag(stats$gram))) {
    return(list(sse = NULL, score = Inf, lambda = NA_real_,
                path = data.frame(lambda = NA_real_, cv = Inf)))
  }
  lambdas <- default_lambdas(centred_diagonal, observed_rows(stats))
  sse <- fold_sse(stats, lambdas, backend, which)
  # (all folds: divided as cv_path() divides, to the same bits)
  cv <- sse / if (length(which) == length(stats$folds)) stats$n else
    sum(vapply(stats$folds[which], `[[`, 0, "n"))
  best <- best_candidate(cv)
  list(sse = sse, score = if (length(best)) cv[best] else Inf,
       lambda = if (length(best)) lambdas[best] else NA_real_,
       path = data.frame(lambda = lambdas, cv = cv))
}

# With several bandwidth candidates: each one's score and chosen lambda, and
# (attribute "paths") the scores of all its lambdas, for plot().
# Per-column bandwidths (rbin's scale screened after sigma = "ard") are
# listed by bandwidth_level().
bandwidth_path <- function(fits, scores) {
  if (length(fits) < 2) return(NULL)
  paths <- lapply(fits, function(f) cbind(sigma = bandwidth_level(f$map$kernel$sigma), f$solution$path))
  structure(data.frame(sigma = vapply(fits, function(f) bandwidth_level(f$map$kernel$sigma), 0),
                       lambda = vapply(fits, function(f) f$solution$lambda, 0), score = scores),
            paths = do.call(rbind, paths))
}

# One number for a bandwidth: itself, or the geometric mean of per-column
# ones (candidates that scale one vector keep its shape, so this orders them).
bandwidth_level <- function(sigma) if (length(sigma) == 1) sigma else exp(mean(log(sigma)))
