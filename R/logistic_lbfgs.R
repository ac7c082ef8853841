# Limited-memory BFGS (the last 10 steps) on the penalised log-loss, the
# R twin of the C++ loop (kitchen/logistic_bound.hpp, logistic_bound_solve():
# the same steps, for data read by `gradient(state)` passes). Its initial
# inverse Hessian is the preconditioner M^-1 scaled by s'y / y'M^-1 y of
# the newest step; M is given by `inverse`: the upper Cholesky factor R of
# its centred coefficient block (R'R = c Zc'WZc + 2 lambda I for Boehning's
# bound), the weighted feature means zbar and the intercepts' curvature
# `scale` (c W). The bound is far above the Hessian where rows are fitted
# with confidence; the BFGS pairs learn the true curvature (the bound's own
# steps needed 2 to 3 times the passes on Satellite). Each trial point
# costs one pass; steps are accepted on sufficient decrease (Armijo) and
# halved otherwise; a direction that does not descend falls back to the
# preconditioned gradient step. Stops as `stop` says (logistic_stop()) or
# when no step can lower the objective beyond rounding. Only the classes
# `free` move (the second, for two classes).
logistic_lbfgs <- function(gradient, inverse, free, lambda, state, stop) {
  tol <- stop$tol
  inverse_times <- function(v) {  # M^-1 v
    step <- backsolve(inverse$factor, backsolve(inverse$factor,
                                                v$coefficients - inverse$zbar %o% v$intercept,
                                                transpose = TRUE))
    list(coefficients = step,
         intercept = v$intercept / inverse$scale - colSums(inverse$zbar * step))
  }
  evaluate <- function(state) {
    pass <- gradient(state)
    list(state = state, pass = pass,
         objective = pass$log_loss + lambda * sum(state$coefficients^2),
         gradient = list(coefficients = 2 * lambda * state$coefficients[, free, drop = FALSE] -
                           pass$zg[, free, drop = FALSE],
                         intercept = -pass$g0[free]))
  }
  dot <- function(a, b) sum(a$coefficients * b$coefficients) + sum(a$intercept * b$intercept)
  add <- function(a, x, y) {  # a x + y
    list(coefficients = a * x$coefficients + y$coefficients,
         intercept = a * x$intercept + y$intercept)
  }
  scaled <- function(a, x) list(coefficients = a * x$coefficients, intercept = a * x$intercept)
  moved <- function(state, direction, t) {
    state$coefficients[, free] <- state$coefficients[, free] + t * direction$coefficients
    state$intercept[free] <- state$intercept[free] + t * direction$intercept
    state
  }
  memory <- 10
  # s, y and M^-1 y (the difference of the M^-1 g, so that each step
  # applies M^-1 once), oldest first, with s'y.
  steps <- changes <- preconditioned_changes <- list()
  curvatures <- numeric()
  current <- evaluate(state)
  current$preconditioned <- inverse_times(current$gradient)
  passes <- 1L
  change <- Inf
  converged <- FALSE
  while (passes < stop$max_iter) {
    # Two-loop recursion for -H g, with H0 = gamma M^-1: q = g - sum alpha_i y_i
    # and, alongside, r = M^-1 q.
    q <- current$gradient
    r <- current$preconditioned
    alpha <- numeric(length(steps))
    for (i in rev(seq_along(steps))) {
      alpha[i] <- dot(steps[[i]], q) / curvatures[i]
      q <- add(-alpha[i], changes[[i]], q)
      r <- add(-alpha[i], preconditioned_changes[[i]], r)
    }
    if (length(steps)) {
      newest <- length(steps)
      r <- scaled(curvatures[newest] / dot(changes[[newest]], preconditioned_changes[[newest]]), r)
    }
    for (i in seq_along(steps)) {
      r <- add(alpha[i] - dot(changes[[i]], r) / curvatures[i], steps[[i]], r)
    }
    direction <- scaled(-1, r)
    slope <- dot(current$gradient, direction)
    if (!(slope < 0)) {  # not a descent direction: the preconditioned gradient step
      steps <- changes <- preconditioned_changes <- list()
      curvatures <- numeric()
      direction <- scaled(-1, current$preconditioned)
      slope <- dot(current$gradient, direction)
    }
    if (stop$settle && change < tol && -slope <= 2 * tol * current$objective) {
      converged <- TRUE
      break
    }
    t <- 1
    accepted <- rounding <- FALSE
    repeat {
      trial <- evaluate(moved(current$state, direction, t))
      passes <- passes + 1L
      if (trial$objective <= current$objective + 1e-4 * t * slope) {
        accepted <- TRUE
        break
      }
      # A predicted decrease below the objective's rounding: nothing left.
      rounding <- -t * slope <= 1e-14 * current$objective
      if (passes >= stop$max_iter || rounding) break
      t <- t / 2
    }
    trial_change <- abs(current$objective - trial$objective) / max(trial$objective, 1e-300)
    if (!accepted) {
      if (rounding) {
        change <- trial_change
        converged <- TRUE
      }
      break
    }
    change <- trial_change
    trial$preconditioned <- inverse_times(trial$gradient)
    s <- scaled(t, direction)
    y <- add(-1, current$gradient, trial$gradient)
    sy <- dot(s, y)
    if (sy > 1e-12 * sqrt(dot(s, s) * dot(y, y))) {
      if (length(steps) == memory) {
        steps[[1]] <- changes[[1]] <- preconditioned_changes[[1]] <- NULL
        curvatures <- curvatures[-1]
      }
      steps[[length(steps) + 1]] <- s
      changes[[length(changes) + 1]] <- y
      preconditioned_changes[[length(preconditioned_changes) + 1]] <-
        add(-1, current$preconditioned, trial$preconditioned)
      curvatures <- c(curvatures, sy)
    }
    current <- trial
    if (!stop$settle && change < tol) {
      converged <- TRUE
      break
    }
  }
  list(coefficients = current$state$coefficients, intercept = current$state$intercept,
       log_loss = current$pass$log_loss, correct = current$pass$correct,
       passes = passes, converged = converged, change = change)
}
