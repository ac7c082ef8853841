# Class probabilities for least-squares classification fits: the one-vs-rest
# scores are not probabilities, so a small multinomial logistic model maps
# them to probabilities, fitted on cross-validated scores (each training
# row scored by the fit that did not see it, at the chosen lambda), so that
# the probabilities are not as overconfident as the training scores.

# The calibration of a fit on rows x (checked for the map) with +1 / -1
# class codes `coded`: a (1 + p) x K matrix of link coefficients on the
# scores (p = 1, the second class's score, for two classes; else K), the
# first class's links fixed at 0. `stats` are the fit's statistics; their
# per-fold sums are used when the fit chose lambda by CV, else those of
# calibration_folds(): gathered by the fit's own pass when it had one
# bandwidth (R/krr.R), else by one more pass over the data here.
class_calibration <- function(map, x, coded, weights, stats, folds, lambda, block_size,
                              backend) {
  if (is_dual_statistics(stats)) {
    return(dual_class_calibration(stats, coded, weights, folds, lambda, backend))  # R/krr_dual.R
  }
  if (is.null(folds) || is.null(stats$folds)) {
    folds <- calibration_folds(nrow(x))
    stats <- krr_statistics(map, x, coded, block_size, backend, FALSE, folds, weights)
  }
  tick <- progress_ticker(backend, "Calibrating class probabilities", 2 * length(stats$folds))
  fold_fits <- fold_ridge_fits(stats, lambda, backend, tick)
  # Fold by fold, so that each block of features is scored by one fit
  # (splitting every block's features by fold copied them: the whole fit
  # took 5-8% longer at n = 1e5, d = 64, D = 512, two classes).
  scores <- matrix(0, nrow(x), ncol(coded))
  z <- NULL  # each block's features, in the previous block's matrix (R/map.R)
  for (k in seq_along(fold_fits)) {
    mine <- which(folds == k)
    for (start in seq(1, by = block_size, length.out = ceiling(length(mine) / block_size))) {
      rows <- mine[start:min(length(mine), start + block_size - 1)]
      z <- block_features(map, x[rows, , drop = FALSE], backend, z)  # rows checked
      scores[rows, ] <- dense_product(z, fold_fits[[k]]$coefficients, backend) +
        rep(fold_fits[[k]]$intercept, each = length(rows))
    }
    tick()
  }
  calibration_of_scores(scores, coded, weights, backend)
}

# Why held-out scores cannot calibrate, or NULL: a fold whose fit saw no
# row of some class (folds given by site, say, one site holding all of a
# class) scores that class's rows as "not that class", and the calibration
# learns it (a probability of 1e-20 for the true class of rows the fit
# classifies right). `class_weights`: the weight of each class (columns)
# in each fold (rows).
calibration_problem <- function(class_weights, levels, call = rlang::caller_env()) {
  training <- sweep(-class_weights, 2, colSums(class_weights), "+")
  lacking <- which(training <= 0 & rep(colSums(class_weights) > 0, each = nrow(training)),
                   arr.ind = TRUE)
  if (!nrow(lacking)) return(NULL)
  problem <- sprintf("the fit of CV fold %d saw no row of class \"%s\", so the held-out scores cannot be calibrated",
                     lacking[1, 1], levels[lacking[1, 2]])
  # said now, not first when predict(type = "prob") refuses
  cli::cli_warn(c("The fit has no class probabilities: {problem}.",
                  i = "A class with very few rows does this; {.code loss = \"logistic\"} gives probabilities, as do {.arg folds} that leave rows of every class in each fold's training rows."),
                call = call)
  problem
}

# The weight of each class in each fold, from +1 / -1 class codes and a fold
# number per row.
fold_class_weights <- function(coded, weights, folds) {
  rowsum((weights %||% rep(1, nrow(coded))) * (coded > 0), folds)
}

# Row i in fold (i - 1) %% 5 + 1 when the fit has no CV folds: no random
# numbers drawn, so that a fit leaves the RNG state as before.
calibration_folds <- function(n) (seq_len(n) - 1L) %% min(5L, n) + 1L

# The calibration from the training rows' held-out scores (n x K; rows of
# NA, not held out, are left out) and the fit's +1 / -1 class codes; NULL
# without scores (an rbin fit whose fold solves broke down at its lambda).
calibration_of_scores <- function(scores, coded, weights, backend) {
  if (is.null(scores)) return(NULL)
  weights <- weights %||% rep(1, nrow(coded))
  rows <- !is.na(scores[, 1])
  scores_calibration(scores[rows, , drop = FALSE], max.col(coded[rows, , drop = FALSE], "first"),
                     weights[rows], backend)
}

# The calibration of held-out scores (rows) of known class numbers
# (`labels`), carrying the held-out misclassification rate of the classes
# predict() gives (the most probable, weighted as in the fit) and their
# confusion counts for summary():
# the one estimate of a least-squares classifier's test error when lambda
# was chosen by squared error (a little optimistic: the calibration is
# fitted on these scores).
scores_calibration <- function(scores, labels, weights, backend) {
  calibration <- fit_calibration(calibration_inputs(scores), labels, weights, backend)
  classes <- max.col(calibrated_probabilities(scores, calibration, NULL), "first")
  attr(calibration, "held_out_error") <- sum(weights * (classes != labels)) / sum(weights)
  attr(calibration, "held_out_confusion") <- confusion_counts(labels, classes, weights, ncol(scores))
  calibration
}

# The k x k weighted counts of rows of class i (row) given class j (column),
# by class numbers 1..k.
confusion_counts <- function(labels, classes, weights, k) {
  counts <- matrix(0, k, k)
  cells <- (classes - 1L) * k + labels
  sums <- rowsum(weights, cells)
  counts[as.integer(rownames(sums))] <- sums[, 1]
  counts
}

# The ridge fits at `lambda` of the rows outside each fold of `stats`, in
# memory (class_calibration()) and for chunked data (R/chunked_calibration.R);
# `tick()` after each (progress_ticker()).
fold_ridge_fits <- function(stats, lambda, backend, tick = function() NULL) {
  constant <- features_constant(centred_gram_diagonal(stats), diag(stats$gram))
  # one D x D matrix for every fold's factor: a fresh one per fold paid the
  # first touch of its pages each time (128 MB at D = 4096)
  scratch <- if (!constant) matrix(0, nrow(stats$gram), ncol(stats$gram))
  lapply(stats$folds, function(held_out) {
    fit <- fold_ridge_fit(stats, held_out, lambda, backend, constant, scratch)
    tick()
    fit
  })
}

# The ridge fit at `lambda` of the rows outside the CV fold `held_out`: its
# coefficients from the total's and the fold's Gram matrices in one C++ call
# (src/centred_factor.cpp; no D x D matrix left to R's collector, the
# factorisation over threads, its factor in `scratch`), its intercept from
# its means. krr_solve() on the fold's training statistics, as before, when
# the features are constant (an intercept-only fit) or the matrix is not
# positive definite (it names lambda).
fold_ridge_fit <- function(stats, held_out, lambda, backend, constant, scratch = NULL) {
  train <- fold_training_moments(stats, held_out)  # R/krr_cv.R
  w <- if (!constant) {
    ridge_fold_solve_cpp(stats$gram, held_out$gram, train$zbar, train$n, train$zy, lambda,
                         backend$n_threads, backend$simd, scratch)
  }
  if (is.null(w)) return(krr_solve(sum_statistics(stats, held_out, sign = -1), lambda, backend))
  list(coefficients = w, intercept = drop(train$ybar - crossprod(w, train$zbar)))
}

# The calibration model's inputs: for two classes the scores are opposite
# (+1 / -1 codes), so only the second class's is kept.
calibration_inputs <- function(scores) {
  scores <- as.matrix(scores)
  if (ncol(scores) == 2) scores[, 2, drop = FALSE] else scores
}

# Multinomial logistic regression of `labels` (class numbers) on `inputs`
# by Newton's method with step halving (newton_with_halving()), with a
# small ridge penalty on the slopes (so that separable classes give finite
# coefficients): 2e-3 * sum_k ||b_k - mean_k b_k||^2 over all K classes'
# slopes, which does not depend on the order of the levels (a penalty on
# classes 2..K alone, against class 1's fixed 0, did: 3e-5 in the
# probabilities of a relevelled factor), and is 1e-3 * b_2^2 for two
# classes. Small: (1 + p) x (K - 1) parameters, but each Hessian reads
# every row: ((K + 1)(K - 1))^2 / 2 products per row, 0.4 s at 16,000 rows
# and 26 classes. Two are spared. At the start
# (all links 0) every row's probabilities are 1 / K, so the Hessian is the
# Kronecker product of (I / K - 11' / K^2) and X'WX. And once a step
# changes the objective by less than 1e-6 of itself, the steps that are
# left (one or two, which only confirm convergence) keep the last Hessian:
# near the minimum it hardly moves, and the step halving still guards each
# step.
fit_calibration <- function(inputs, labels, weights, backend, penalty = 1e-3, max_iter = 100) {
  if (ncol(inputs) > max_full_calibration_classes || few_rows_for_full_calibration(inputs, weights)) {
    return(fit_scaling_calibration(inputs, labels, weights, penalty, max_iter))
  }
  k <- max(labels, 2L)
  design <- cbind(1, inputs)
  d <- ncol(design)
  onehot <- outer(labels, seq_len(k), "==") * 1
  # theta holds classes 2..K's coefficients (class 1's are 0); with
  # b_1 = 0, sum_k ||b_k - mean b||^2 = theta' ((I - 11' / K) (x) R) theta,
  # R the slopes' diagonal (intercepts not penalised)
  ridge <- kronecker(2 * (diag(k - 1) - 1 / k), diag(c(0, rep(penalty, d - 1)), d))
  links_of <- function(theta) cbind(0, design %*% matrix(theta, d, k - 1))
  objective <- function(theta) {
    links <- links_of(theta)
    shift <- row_max(links)
    log_p <- links - shift - log(rowSums(exp(links - shift)))
    list(value = -sum(weights * rowSums(onehot * log_p)) + sum(theta * (ridge %*% theta)))
  }
  theta <- numeric(d * (k - 1))
  penalty_hessian <- 2 * ridge + diag(1e-12, length(theta))
  hessian <- kronecker(diag(1 / k, k - 1) - 1 / k^2, crossprod(design, weights * design)) +
    penalty_hessian
  derivatives <- function(theta, current, iteration, change) {
    p <- softmax_rows(links_of(theta))
    gradient <- c(crossprod(design, weights * (p - onehot)[, -1, drop = FALSE])) +
      2 * c(ridge %*% theta)
    close <- abs(change) <= 1e-6 * max(abs(current$value), 1)
    if (iteration > 1 && !close) {
      hessian <<- calibration_hessian(design, p[, -1, drop = FALSE], weights, backend) +
        penalty_hessian
    }
    list(gradient = gradient, hessian = hessian)
  }
  theta <- newton_with_halving(theta, objective, derivatives, max_iter)
  cbind(0, matrix(theta, d, k - 1))
}

# Minimises `objective(theta)$value` by Newton steps, each halved until the
# objective does not rise (down to 1e-8 of a step); stops once a step
# changes it by at most 1e-12 of itself, or after max_iter steps.
# `derivatives(theta, current, iteration, change)` gives the gradient and
# Hessian at theta (`current`: the objective there; `change`: the last
# step's decrease, Inf before the first).
newton_with_halving <- function(theta, objective, derivatives, max_iter) {
  current <- objective(theta)
  change <- Inf
  for (iteration in seq_len(max_iter)) {
    step_of <- derivatives(theta, current, iteration, change)
    step <- solve(step_of$hessian, step_of$gradient)
    t <- 1
    repeat {
      candidate <- objective(theta - t * step)
      if (candidate$value <= current$value || t < 1e-8) break
      t <- t / 2
    }
    theta <- theta - t * step
    change <- current$value - candidate$value
    current <- candidate
    if (abs(change) <= 1e-12 * max(abs(current$value), 1)) break
  }
  theta
}

# The most classes whose calibration is the full multinomial model above:
# its (K + 1)(K - 1) coefficients make a Hessian of K^4 entries, each read
# over every row, so its cost grows as K^5 (n = 5000: 0.5 s at 20 classes,
# 52-63 s at 60; n = 20,000: 778 s at 100). With more classes, each class's
# probability follows its own score alone: fit_scaling_calibration().
max_full_calibration_classes <- 30L

# With three classes or more, the full model also needs at least 10 rows
# (of those it is fitted on, weighted above 0) per coefficient: on 3,500
# rows of UCI letter (26 classes, 675 coefficients) its probabilities were
# overconfident (test log-loss 0.43, against 0.36 for
# fit_scaling_calibration()'s 51 coefficients; means of 3 splits), while on
# 14,000 rows it was the better one (0.18 against 0.22;
# bench/results/calibration-form.md). An rbin fit's calibration from
# 25,000 rows on is fitted on fold 1's rows (R/krr_binned.R), a fifth.
few_rows_for_full_calibration <- function(inputs, weights) {
  k <- ncol(inputs)
  k >= 3 && sum(weights > 0) < 10 * (k + 1) * (k - 1)
}

# "Vector scaling": class k's link is a_k + b_k s_k (its intercept, and a
# slope on its own least-squares score), fitted as fit_calibration() fits
# the full model (newton_with_halving(), the slopes penalised by
# `penalty`, a_1 = 0). 2K - 1 coefficients: its Hessian's blocks are three
# n x K cross products. Returned in the full model's form, a (K + 1) x K
# matrix (intercepts, then the slopes on its diagonal), so that
# calibrated_probabilities() and saved fits take either.
fit_scaling_calibration <- function(inputs, labels, weights, penalty, max_iter) {
  k <- ncol(inputs)
  onehot <- outer(labels, seq_len(k), "==") * 1
  coefficients <- function(theta) list(a = c(0, theta[seq_len(k - 1)]), b = theta[k - 1 + seq_len(k)])
  objective <- function(theta) {
    cf <- coefficients(theta)
    links <- rep(cf$a, each = nrow(inputs)) + inputs * rep(cf$b, each = nrow(inputs))
    shift <- row_max(links)
    log_p <- links - shift - log(rowSums(exp(links - shift)))
    list(value = -sum(weights * rowSums(onehot * log_p)) + penalty * sum(cf$b^2), p = exp(log_p))
  }
  derivatives <- function(theta, current, iteration, change) {
    p <- current$p
    residual <- weights * (p - onehot)
    cf <- coefficients(theta)
    gradient <- c(colSums(residual)[-1], colSums(residual * inputs) + 2 * penalty * cf$b)
    wp <- weights * p
    ps <- p * inputs
    # sum_i w_i (diag(p_i) - p_i p_i') with each side's features (1 or s)
    h_aa <- diag(colSums(wp), k) - crossprod(p, wp)
    h_ab <- diag(colSums(wp * inputs), k) - crossprod(p, wp * inputs)
    h_bb <- diag(colSums(wp * inputs^2) + 2 * penalty, k) - crossprod(ps, wp * inputs)
    hessian <- rbind(cbind(h_aa[-1, -1, drop = FALSE], h_ab[-1, , drop = FALSE]),
                     cbind(t(h_ab[-1, , drop = FALSE]), h_bb))
    list(gradient = gradient, hessian = hessian + diag(1e-12, 2 * k - 1))
  }
  cf <- coefficients(newton_with_halving(numeric(2 * k - 1), objective, derivatives, max_iter))
  rbind(cf$a, diag(cf$b, k))
}

# The log-loss's Hessian in the slopes of classes 2..K (q: their
# probabilities), sum_i w_i (diag(q_i) - q_i q_i') (x) x_i x_i', made in C++
# (src/calibration_hessian.cpp: the q q' part as one product on kitchen's
# Gram kernels, by blocks of rows). With 26 classes it is a 675 x 675 matrix
# over every training row, once per Newton step.
calibration_hessian <- function(design, q, weights, backend) {
  calibration_hessian_cpp(design, q, weights, backend$n_threads, backend$simd)
}

# Probabilities from least-squares scores (n x K) and a calibration.
calibrated_probabilities <- function(scores, calibration, levels) {
  inputs <- calibration_inputs(scores)
  prob <- softmax_rows(cbind(rep(1, nrow(inputs)), inputs) %*% calibration)
  dimnames(prob) <- list(rownames(scores), levels)
  prob
}
