# Kernel logistic regression on random features: krr_fit(loss = "logistic").
#
# Minimises sum_i w_i * (-log p_i[y_i]) + lambda * ||beta||^2 over the
# coefficients of every class (intercepts not penalised), p_i the softmax of
# the class links b_k + z(x_i)'beta_k; with two classes the first class's
# link is fixed at 0, so that p_i is the logistic function of one link.
# Solved by L-BFGS preconditioned by Boehning's bound (logistic_bound()):
# one pass for Z'WZ, then one cheap pass (features and the gradient, never
# the n x D matrix) per trial point. The data are reached through a
# `source` (memory_logistic_source(); a chunked source would give the same
# two passes): statistics(folds) and
# gradient(state, part), `part` NULL for all rows, or list(fold, side) for
# the training ("train") or held-out ("test") rows of one fold.

# The fit as krr_solve() returns it (coefficients D x K, intercepts, lambda,
# path), with the solver's report.
logistic_ridge <- function(source, n_features, levels, lambda, n_folds, tol, max_iter, verbose,
                           call = rlang::caller_env()) {
  cv <- !is.numeric(lambda) || length(lambda) > 1
  began <- proc.time()[["elapsed"]]
  stats <- source$statistics(cv)
  read <- proc.time()[["elapsed"]] - began  # summary()'s "features + Z'Z"
  # The dual source's features span the rows in fewer columns (its
  # statistics carry the map's n_features for the lambda candidates:
  # R/krr_logistic_dual.R).
  n_features <- source$n_features %||% n_features
  expand <- source$expand %||% identity
  levels <- levels %||% stats$chunks$response$levels  # chunked data: known after a pass
  diagonal <- diag(stats$gram)
  if (features_constant(diagonal - stats$zsum^2 / stats$n, diagonal)) {
    out <- logistic_intercept_only(source, stats, n_features, levels, lambda, cv)
    out$coefficients <- expand(out$coefficients)
    out$read <- read
    return(out)
  }
  path <- NULL
  if (cv) {
    path <- logistic_cv_path(source, stats, n_features, levels, lambda, n_folds, tol, verbose)
    if (!nrow(path)) abort_no_lambda(attr(path, "tried"), is.numeric(lambda), call)
    best <- best_candidate(path$cv)
    lambda <- path$lambda[best]
    start <- attr(path, "starts")[[best]]
    attr(path, "starts") <- attr(path, "tried") <- NULL
  }
  # Warm-started, after CV, from the mean of the fold solutions at the
  # chosen lambda: close to the full-data solution, so few passes remain.
  fit <- logistic_bound(stats, function(state) source$gradient(state), n_features,
                        length(levels), lambda, if (cv) start,
                        logistic_stop(tol, max_iter, settle = TRUE),
                        source$solver(NULL), source$backend)
  if (is.null(fit)) abort_small_lambda(lambda, call)
  if (!fit$converged) {
    cli::cli_warn(c("The logistic fit did not converge in {max_iter} passes over the data.",
                    i = "Relative change of the objective {format(fit$change, digits = 3)}; raise {.arg max_iter} or {.arg lambda}."))
  }
  fit$coefficients <- expand(fit$coefficients)
  colnames(fit$coefficients) <- names(fit$intercept) <- levels
  list(coefficients = fit$coefficients, intercept = fit$intercept, lambda = lambda,
       path = path %||% data.frame(lambda = lambda, df = NA_real_, gcv = NA_real_),
       total_weight = stats$n, training_rmse = rep(NA_real_, length(levels)), read = read,
       logistic = list(passes = fit$passes, converged = fit$converged, change = fit$change,
                       log_loss = fit$log_loss / stats$n,
                       accuracy = fit$correct / stats$n,
                       dual = !is.null(source$expand)))
}

# Features that do not vary (constant x, or one row): no coefficient can
# lower the log-loss, so the fit is the class shares (logistic_start()) for
# every lambda, and CV scores predicting each fold by the others' shares.
logistic_intercept_only <- function(source, stats, n_features, levels, lambda, cv) {
  k <- length(levels)
  state <- logistic_start(stats, n_features, k)
  pass <- source$gradient(state)
  lambdas <- if (is.character(lambda)) logistic_lambdas(stats) else sort(lambda, decreasing = TRUE)
  path <- data.frame(lambda = lambdas, df = 0, gcv = NA_real_)
  if (cv) {
    loss <- correct <- 0
    for (f in seq_along(stats$folds)) {
      train <- sum_statistics(stats, stats$folds[[f]], sign = -1, gram = FALSE)
      held_out <- source$gradient(logistic_start(train, n_features, k), list(fold = f, side = "test"))
      loss <- loss + held_out$log_loss
      correct <- correct + held_out$correct
    }
    path$cv <- loss / stats$n
    path$cv_accuracy <- correct / stats$n
  }
  coefficients <- state$coefficients
  colnames(coefficients) <- names(state$intercept) <- levels
  list(coefficients = coefficients, intercept = state$intercept, lambda = lambdas[[1]],
       path = path, total_weight = stats$n, training_rmse = rep(NA_real_, k),
       logistic = list(passes = 1L, converged = TRUE, change = 0,
                       log_loss = pass$log_loss / stats$n, accuracy = pass$correct / stats$n))
}

# When a solve stops (kitchen::logistic_stop in kitchen/logistic_bound.hpp):
# after `max_iter` passes, or once an accepted step lowers the objective by
# less than `tol` (relative) and, with `settle`, the quasi-Newton model
# predicts less than that below too. Final fits settle: on iris at lambda
# 1e-4 (dual path) the step test alone stopped 3.4e-4 to 7e-4 (relative,
# depending on the rounding of the trajectory) above the minimum, with it
# 1.8e-4 to 2e-4. CV's fold solves do not: settling them too made the 7-class
# CoverType fit (D = 2048) take 146 s instead of 91 s, for held-out scores
# that need less.
logistic_stop <- function(tol, max_iter, settle = FALSE) {
  list(tol = tol, max_iter = as.integer(max_iter), settle = settle)
}

# One solve of the penalised log-loss at `lambda`: bound-preconditioned
# limited-memory BFGS (logistic_lbfgs()). The Hessian of the log-loss is
# at most c [1 Z]'W[1 Z] with c = 1/4 for two classes and 1/2 for more (W
# the sample weights; Boehning 1992), a matrix that does not change between
# steps: Z'WZ is read once (`stats`) and factored once per lambda, and each
# step needs only the gradient, one pass computing features and Z'W(Y - P)
# (no Gram matrix, every class at once). The bound's inverse is the
# preconditioner.
#
# `solve`, when given, runs the same loop elsewhere (in C++ on features held
# in memory: memory_logistic_source(), kept_features_solver()), with the
# result of this function.
logistic_bound <- function(stats, gradient, n_features, k, lambda, start, stop,
                           solve = NULL, backend) {
  free <- if (k == 2) 2L else seq_len(k)
  curvature <- if (k == 2) 1 / 4 else 1 / 2
  n <- stats$n
  zbar <- stats$zsum / n
  state <- start %||% logistic_start(stats, n_features, k)
  # From a warm start with the features in memory, when it pays, the
  # preconditioner puts each row's curvature at the start in place of the
  # bound's constant c (kept_features_solver()); otherwise, or if that is
  # not positive definite, it is the bound. Solves with different preconditioners stop at
  # different points within `tol`: the internal option
  # kitchen.logistic_warm_curvature = FALSE lets tests compare the
  # in-memory solver with the streamed passes step for step.
  if (!is.null(start) && !is.null(solve) && solve$curvature_pays(start$passes, k) &&
      getOption("kitchen.logistic_warm_curvature", TRUE)) {
    fit <- solve$run(NULL, free, lambda, state, stop)
    if (!is.null(fit)) return(fit)
  }
  # The bound c ((G - G_fold) - n zbar zbar') + 2 lambda I: G_fold the
  # held-out rows' Gram matrix for a CV fold (fold_training_statistics()),
  # so that no fold's training Gram matrix is made. Its factor is NULL for
  # a lambda too small to make it positive definite to double precision
  # (rounding in Z'WZ, with more features than rows). Made and factored in
  # C++, by blocks between interrupt checks (as ridge_solve() does from 1025
  # features): R's chol() on the reference BLAS took 4 times as long at
  # D = 1024 (0.213 s against 0.051 s) and held interrupts, and CV factors
  # the bound once per fold and lambda. With features in memory the factor
  # is made inside the C++ solve and never reaches R.
  bound <- list(gram = stats$gram, fold_gram = stats$fold_gram, zbar = zbar, n = n,
                curvature = curvature)
  if (!is.null(solve)) return(solve$run(bound, free, lambda, state, stop))
  factor <- logistic_bound_factor_cpp(stats$gram, stats$fold_gram, zbar, n, curvature, lambda,
                                      backend$n_threads, backend$simd)
  if (is.null(factor)) return(NULL)
  inverse <- list(factor = factor, zbar = zbar, scale = curvature * n)
  logistic_lbfgs(gradient, inverse, free, lambda, state, stop)  # R/logistic_lbfgs.R
}

# The intercept-only model: links log(class share), no feature weight. The
# +1 / -1 coded statistics give the shares: sum w y = 2 (class weight) - n.
logistic_start <- function(stats, n_features, k) {
  share <- pmax((stats$ysum / stats$n + 1) / 2, 1e-10)
  intercept <- log(share) - if (k == 2) log(share[1]) else 0
  list(coefficients = matrix(0, n_features, k), intercept = intercept)
}

# One pass over rows x with classes `onehot` (0 / 1 columns): the weighted
# log-loss at `state`, the weight of correctly classified rows, and the
# gradient in the links' coefficients, Z'W(Y - P) (D x K) and
# colSums(W(Y - P)).
logistic_gradient <- function(map, x, onehot, weights, state, block_size, backend) {
  k <- ncol(onehot)
  out <- list(log_loss = 0, correct = 0, zg = matrix(0, map$n_features, k), g0 = numeric(k))
  n <- nrow(onehot)
  labels <- max.col(onehot, "first")
  z <- NULL  # each block's features, in the previous block's matrix (R/map.R)
  for (start in seq(1, max(n, 1), by = block_size)) {
    if (n == 0) break
    rows <- start:min(n, start + block_size - 1)
    z <- block_features(map, x[rows, , drop = FALSE], backend, z)  # rows checked
    out <- add_logistic_gradient(out, z, onehot[rows, , drop = FALSE], labels[rows],
                                 weights[rows], state)
  }
  out
}

# Adds the log-loss, correct weight and gradient of the rows with features
# z (classes `onehot`, class numbers `labels`, weights w) to `out`.
add_logistic_gradient <- function(out, z, onehot, labels, w, state) {
  links <- z %*% state$coefficients
  links <- links + rep(state$intercept, each = nrow(links))
  p <- softmax_rows(links)
  residual <- w * (onehot - p)
  out$log_loss <- out$log_loss - sum(w * log(pmax(p[cbind(seq_along(labels), labels)], 1e-300)))
  out$correct <- out$correct + sum(w[max.col(p, "first") == labels])
  out$zg <- out$zg + crossprod(z, residual)
  out$g0 <- out$g0 + colSums(residual)
  out
}

# Features of at most this many entries (2^25: 256 MB) are kept whatever
# the least-squares fit would hold: below it, featurising the rows again in
# R on every pass costs far more than the memory saved. 20,000 binary
# CoverType rows at D = 512 (10.2 million entries, over the 2^23 kept
# before): 66 s streamed against 9.9 s kept (least squares 0.9 s); peak
# resident memory 189 MB streamed, 205 MB kept, least squares 180 MB. At
# the cap (60,000 rows, D = 512) the kept fit peaks at 496 MB (least
# squares 170 MB): the features and a fold's gathered copy. Satellite
# (4435 rows, D = 300, 6 classes) streamed took 195 s against 0.56 s for
# least squares. options(kitchen.logistic_kept_entries) changes it
# (documented in krr_fit(): a machine short of memory can lower it).
logistic_kept_entries <- function() getOption("kitchen.logistic_kept_entries", 2^25)

# Rows in memory as a logistic source. `coded` is the +1 / -1 class coding
# of krr_response(). When the features of all rows take no more memory than
# the least-squares fit's Gram matrix and one block (n <= D + block_size),
# or at most logistic_kept_entries, they are computed once and kept, and every pass, and the whole
# bound-optimisation loop (`solver(part)`), runs in C++ on them
# (src/logistic_bound.cpp): on small data the R loop was mostly per-pass
# overhead. Otherwise each pass featurises the rows again, in blocks; the
# rows of each fold are then split off once, when first asked for.
memory_logistic_source <- function(map, x, coded, weights, folds, block_size, backend) {
  if (logistic_dual_chosen(map, nrow(x))) {
    return(dual_logistic_source(map, x, coded, weights, folds, backend))  # R/krr_logistic_dual.R
  }
  weights <- weights %||% rep(1, nrow(x))
  onehot <- (coded + 1) / 2
  features <- NULL
  if (nrow(x) <= map$n_features + block_size ||
      as.double(nrow(x)) * map$n_features <= logistic_kept_entries()) {
    features <- map_features(map, x, backend)  # rows checked
    if (!is.matrix(features)) features <- as.matrix(features)
    storage.mode(features) <- "double"
  }
  labels <- max.col(onehot, "first")
  kept <- if (!is.null(features)) {
    kept_features_passes(features, labels, weights, folds, backend)
  }
  parts <- list()
  rows_of <- function(part) {
    key <- paste(part$fold, part$side)
    if (is.null(parts[[key]])) {
      rows <- part_rows(part, folds, nrow(x))
      parts[[key]] <<- list(x = x[rows, , drop = FALSE], onehot = onehot[rows, , drop = FALSE],
                            weights = weights[rows])
    }
    parts[[key]]
  }
  list(
    backend = backend,
    statistics = function(by_fold) {
      krr_statistics(map, x, coded, block_size, backend, FALSE, if (by_fold) folds, weights)
    },
    gradient = function(state, part = NULL) {
      if (!is.null(kept)) return(kept$gradient(state, part))
      if (is.null(part)) {
        return(logistic_gradient(map, x, onehot, weights, state, block_size, backend))
      }
      rows <- rows_of(part)
      logistic_gradient(map, rows$x, rows$onehot, rows$weights, state, block_size, backend)
    },
    solver = function(part) if (!is.null(kept)) kept$solver(part))
}

# A logistic source's passes and solver on features held in memory (n x D,
# from data in memory or kept from chunks), with the rows' class numbers,
# weights and folds: each pass and solve runs in C++ on the rows of `part`,
# on the backends of `backend` (backend_settings()).
kept_features_passes <- function(features, labels, weights, folds, backend) {
  rows_of <- function(part) part_rows(part, folds, nrow(features))
  list(
    gradient = function(state, part) {
      logistic_pass_cpp(features, rows_of(part), labels, weights, state$coefficients,
                        state$intercept, backend$n_threads, backend$simd)
    },
    solver = function(part) {
      kept_features_solver(features, rows_of(part), labels, weights, backend,
                           single_precision = single_precision_folds(part))
    })
}

# CV's fold solves (part: a fold's training rows) run on their rows and
# preconditioner factor rounded to single precision, with every product
# and sum in double (src/logistic_bound.cpp): a pass is bound by the memory
# it reads once the rows exceed the cache. They score lambdas and stop at a
# relative change of 1e-5 (logistic_cv_path()), far above that rounding;
# their scores move within what that stop leaves (on 7-class CoverType,
# 11,340 rows, D = 2048: 1e-4 relative at the chosen lambda, 0.5% at the
# smallest scored, as between other settings of the solver), the same
# lambda on every set measured, and that fit took 106 s instead of 140
# (bench/results/logistic.md). The final fit (part NULL) stays in double.
# The internal option kitchen.logistic_single_precision = FALSE keeps every
# solve in double, for tests that compare the in-memory solver with the
# streamed passes step for step.
single_precision_folds <- function(part) {
  !is.null(part) && !isFALSE(getOption("kitchen.logistic_single_precision"))
}

# The rows of a source's `part`: all of them (NULL), or the training
# ("train") or held-out ("test") rows of one fold.
part_rows <- function(part, folds, n) {
  if (is.null(part)) return(seq_len(n))
  which((folds == part$fold) == (part$side == "test"))
}

# logistic_bound()'s `solve` on features held in memory: run() is its loop
# in C++ (src/logistic_bound.cpp) on the rows `rows`, preconditioned by
# the `bound` (logistic_bound()), or, when that is NULL, by c [1 Z]'W[1 Z]
# with each row's weight times its curvature at `state` (about
# (1 - sum_k p_k^2) / 2; p(1 - p) for two classes) in place of the bound's
# constant c (NULL when that is not positive definite). Near a good start most rows are fitted with
# confidence and the bound is far too steep: on Satellite (6 classes,
# D = 300), from the solution at the next larger lambda, L-BFGS needed a
# third of the passes with it, for one pass and one weighted Z'Z. That Z'Z
# costs about D / (4K) passes (n D^2 / 2 multiply-adds against 2 n D K), so
# curvature_pays() only when the solve that gave the start took more passes
# than that (Pima, D = 1000, 2 classes: built for every warm start, the fit
# took 1.79 s instead of 1.35 s). D is the map's feature count
# `map_features`, also on the dual path, which then takes the primal's
# steps.
kept_features_solver <- function(features, rows, labels, weights, backend,
                                 map_features = ncol(features), single_precision = FALSE) {
  list(
    curvature_pays = function(passes, k) isTRUE(passes > map_features / (4 * k)),
    run = function(bound, free, lambda, state, stop) {
      logistic_bound_cpp(features, rows, labels, weights, bound, as.integer(free), lambda,
                         state$coefficients, state$intercept, stop, backend$n_threads,
                         backend$simd, backend$blas, single_precision)
    })
}

# Row-wise softmax, shifted by the row maximum so that nothing overflows.
softmax_rows <- function(links) {
  links <- as.matrix(links)
  e <- exp(links - row_max(links))
  e / rowSums(e)
}

# The largest entry of each row (a loop over the few class columns: apply()
# over rows cost more than the rest of a pass on small data).
row_max <- function(m) {
  out <- m[, 1]
  for (j in seq_len(ncol(m))[-1]) out <- pmax(out, m[, j])
  out
}

# K-fold CV of the held-out log-loss over candidate lambdas, largest first,
# each fold warm-started where its previous solutions point
# (predicted_start()) and solved to a relative
# change of max(tol, 1e-5): scores need less precision than the final fit
# (on 7 mlbench sets 1e-5 moved the CV minimum by at most 8e-4 relative and
# chose the same lambda as 1e-6 on all but iris's flat curve, in a third
# fewer passes; bench/results/logistic.md);
# stops as cv_path_done() says (the CV loss risen in every fold, or for
# `patience` candidates, past its minimum). Each fold's Z'WZ comes from the
# per-fold sums of one pass.
logistic_cv_path <- function(source, stats, n_features, levels, lambda, n_folds, tol, verbose,
                             patience = 2) {
  lambdas <- if (is.character(lambda)) logistic_lambdas(stats) else sort(lambda, decreasing = TRUE)
  starts <- before <- vector("list", n_folds)
  cv <- accuracy <- rep(NA_real_, length(lambdas))
  fold_losses <- matrix(NA_real_, length(lambdas), n_folds)
  means <- vector("list", length(lambdas))
  bar <- if (verbose) cli::cli_progress_bar("Cross-validating lambda", total = length(lambdas), clear = TRUE)
  for (l in seq_along(lambdas)) {
    loss <- correct <- 0
    for (k in seq_len(n_folds)) {
      train <- list(fold = k, side = "train")
      fit <- logistic_bound(fold_training_statistics(stats, k),
                            function(state) source$gradient(state, train), n_features,
                            length(levels), lambdas[l],
                            predicted_start(starts[[k]], before[[k]], lambdas, l),
                            logistic_stop(max(tol, 1e-5), 200), source$solver(train),
                            source$backend)
      if (is.null(fit)) {
        loss <- NA_real_  # too small a lambda; the smaller ones that follow too
        break
      }
      before[k] <- starts[k]  # (a NULL kept)
      starts[[k]] <- fit
      held_out <- source$gradient(fit, list(fold = k, side = "test"))
      fold_losses[l, k] <- held_out$log_loss
      loss <- loss + held_out$log_loss
      correct <- correct + held_out$correct
    }
    cv[l] <- loss / stats$n
    if (is.na(cv[l])) break
    accuracy[l] <- correct / stats$n
    means[[l]] <- mean_fold_solution(starts)
    if (!is.null(bar)) cli::cli_progress_update(id = bar)
    if (cv_path_done(l, cv, fold_losses, patience)) break
  }
  structure(logistic_path_frame(lambdas, cv, accuracy), starts = means[!is.na(cv)],
            tried = lambdas)
}

# A fold's start at candidate l: its solution at l - 1 (`last`) moved on
# along the path by the secant through its solutions at l - 2 (`before`)
# and l - 1, in log lambda (a step of at most the secant's own length).
# The solutions move smoothly with log lambda; on 7-class CoverType
# (D = 2048) CV took 1493 passes from these starts against 2310 from the
# last solutions (74 -> 52 s), the same lambda chosen
# (bench/results/logistic.md).
predicted_start <- function(last, before, lambdas, l) {
  if (is.null(last) || is.null(before)) return(last)
  step <- min(1, log(lambdas[l - 1] / lambdas[l]) / log(lambdas[l - 2] / lambdas[l - 1]))
  if (!is.finite(step) || step <= 0) return(last)  # repeated candidates
  last$coefficients <- last$coefficients + step * (last$coefficients - before$coefficients)
  last$intercept <- last$intercept + step * (last$intercept - before$intercept)
  last
}

# The mean of the folds' solutions at one lambda (a warm start), with the
# most passes a fold took (when the solver counts them).
mean_fold_solution <- function(solutions) {
  passes <- unlist(lapply(solutions, `[[`, "passes"))
  list(coefficients = Reduce(`+`, lapply(solutions, `[[`, "coefficients")) / length(solutions),
       intercept = Reduce(`+`, lapply(solutions, `[[`, "intercept")) / length(solutions),
       passes = if (length(passes)) max(passes))
}

# A logistic CV path as a fit's `path`: the lambdas scored (up to the first
# that failed), with no df or GCV for this loss.
logistic_path_frame <- function(lambdas, cv, accuracy) {
  reached <- !is.na(cv)
  data.frame(lambda = lambdas[reached], df = rep(NA_real_, sum(reached)),
             gcv = rep(NA_real_, sum(reached)), cv = cv[reached], cv_accuracy = accuracy[reached])
}

# The statistics of the rows outside fold k: their Gram matrix is the
# total's less the fold's (`gram` and `fold_gram`, both as they are), taken
# entry by entry where the bound is made (logistic_bound()).
fold_training_statistics <- function(stats, k) {
  fold <- stats$folds[[k]]
  out <- sum_statistics(stats, fold, sign = -1, gram = FALSE)
  out$gram <- stats$gram
  out$fold_gram <- fold$gram
  out
}

# Candidates: the mean eigenvalue of the bound c Zc'WZc (c <= 1/2), over
# all D features, times 10^1 .. 10^-6; no absolute floor (it moved the grid
# with the weights' scale). Averaged over the non-zero eigenvalues only, as
# for least squares (default_lambdas()), the held-out log-loss was worse on
# Sonar, Pima and Ionosphere (0.420 -> 0.443, 0.466 -> 0.472, 0.112 ->
# 0.115) and the same on iris (bench/logistic.R, D = 1000).
logistic_lambdas <- function(stats) {
  n <- stats$n
  centred <- diag(stats$gram) - stats$zsum^2 / n
  # (the dual path's trace over the map's n_features: stats$penalised)
  mean_eigenvalue <- (if (is.null(stats$penalised)) mean(centred) else
    sum(centred) / stats$penalised) / 4
  if (!(mean_eigenvalue > 0)) mean_eigenvalue <- .Machine$double.eps
  mean_eigenvalue * 10^seq(1, -6, length.out = 15)
}

# Each bandwidth candidate scored by its CV log-loss (when lambda is chosen
# by CV); the best kept. The same result shape as krr_bandwidth_search().
# `source_for(map)` gives the data source for a candidate map.
logistic_search <- function(map, sigmas, source_for, levels, lambda, n_folds, tol, max_iter,
                            verbose) {
  fits <- lapply(sigmas, function(s) {
    candidate <- if (is.null(s)) map else rescale_bandwidth(map, s)
    list(map = candidate,
         solution = logistic_ridge(source_for(candidate), candidate$n_features, levels, lambda,
                                   n_folds, tol, max_iter, verbose))
  })
  scores <- vapply(fits, function(f) min(f$solution$path$cv %||% NA_real_), 0)
  best <- if (length(fits) > 1) best_candidate(scores) else 1L
  list(map = fits[[best]]$map, solution = fits[[best]]$solution,
       sigma_path = bandwidth_path(fits, scores),
       read = sum(vapply(fits, function(f) f$solution$read, 0)))
}

# The logistic loss needs classes.
check_logistic <- function(response, map, call = rlang::caller_env()) {
  if (response$type != "class") {
    abort_arg("{.code loss = \"logistic\"} needs a factor {.arg y} (classes), not numbers.", call = call)
  }
}

# predict() of a logistic fit from the class links (n x K, named): the
# probabilities ("response", "prob"), or the link: the log-odds of the
# second class for two classes (as glm()), else the log-probabilities.
logistic_output <- function(links, type) {
  if (type != "link") return(softmax_rows(links))
  if (ncol(links) == 2) return(stats::setNames(links[, 2] - links[, 1], rownames(links)))
  shifted <- links - row_max(links)
  shifted - log(rowSums(exp(shifted)))
}
