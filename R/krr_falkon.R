# krr_fit(solver = "falkon"): ridge regression on a Nystroem map with many
# centers by FALKON's preconditioned conjugate gradients (Rudi, Carratino
# and Rosasco, 2017; kitchen/falkon.hpp). The direct solve reads Z'Z
# (M x M) from the n x M features, which costs n M^2 for the features'
# products with K_CC^(-1/2) and as much again for Z'Z; FALKON instead
# streams the kernel values K(x_block, C) in each iteration (n M d) and
# factors one M x M matrix, the preconditioner.

# The solvers krr_fit() offers for squared-loss fits in memory.
krr_solvers <- c("direct", "falkon")

# Refuses what FALKON does not solve: it needs a Nystroem map, one positive
# lambda (no GCV nor CV: they need the eigendecomposition of Z'Z), the
# squared loss and one bandwidth.
check_falkon_fit <- function(map, lambda, sigma, loss, call = rlang::caller_env()) {
  if (!inherits(map, "kitchen_nystrom")) {
    abort_arg(c("{.code solver = \"falkon\"} needs a {.fn nystrom} map, not a {.cls {class(map)[1]}} one.",
                i = "Use {.code solver = \"direct\"} for other maps."), call = call)
  }
  if (!(is.numeric(lambda) && length(lambda) == 1 && lambda > 0)) {
    abort_arg(c("{.code solver = \"falkon\"} needs one positive {.arg lambda}.",
                i = "GCV and CV need the direct solve: choose lambda with it on a subsample, or use {.code solver = \"direct\"}."),
              call = call)
  }
  if (!is.null(sigma)) {
    abort_arg("{.code solver = \"falkon\"} keeps the map's bandwidth: {.arg sigma} must be {.code NULL}.",
              call = call)
  }
  if (loss != "squared") {
    abort_arg("{.code solver = \"falkon\"} solves the squared loss only, not {.val {loss}}.", call = call)
  }
  if (kernel_matrix_kind(map$kernel) == "distance") {
    abort_arg(c("{.code solver = \"falkon\"} needs a kernel with a closed form (not a Matern kernel with nu = {map$kernel$nu}).",
                i = "Use nu = 0.5, 1.5 or 2.5, or {.code solver = \"direct\"}."), call = call)
  }
  invisible(map)
}

# The search krr_fit() makes a fit of (as krr_bandwidth_search() returns it):
# one map, one lambda, the solution with its fitted values and the solver's
# report. x: checked by map_input(); y: n x k; weights: NULL or n values.
falkon_search <- function(map, x, y, weights, lambda, tol, max_iter, backend,
                          call = rlang::caller_env()) {
  began <- proc.time()[["elapsed"]]
  if (inherits(x, "dgCMatrix")) x <- as.matrix(x)
  if (!is.double(x)) storage.mode(x) <- "double"
  weights <- weights %||% rep(1, nrow(y))
  sigma <- rep_len(map$kernel$sigma, map$d)
  scaled_centers <- map$centers / rep(sigma, each = nrow(map$centers))
  out <- falkon_solve_cpp(x, map$center, map$scale * sigma, scaled_centers, map$normalization,
                          kernel_matrix_kind(map$kernel), y, weights, lambda, tol, max_iter,
                          backend$n_threads)
  if (is.character(out)) abort_arg(c("The FALKON solve failed.", x = out), call = call)
  converged <- out$residual <= tol
  if (!all(converged)) {
    cli::cli_warn(c("FALKON's conjugate gradients did not reach {.arg tol} = {tol} in {max_iter} iterations.",
                    i = "Relative residual {format(max(out$residual), digits = 3)}; raise {.arg max_iter} or {.arg lambda}."))
  }
  w <- out$coefficients
  colnames(w) <- colnames(y)
  intercept <- drop(out$ybar - crossprod(w, out$zbar))
  fitted <- out$fitted + rep(intercept, each = nrow(y))
  colnames(fitted) <- colnames(y)
  solution <- list(
    coefficients = w, intercept = intercept, lambda = lambda,
    path = data.frame(lambda = lambda, df = NA_real_, gcv = NA_real_),
    training_rmse = sqrt(colSums(weights * (y - fitted)^2) / out$total_weight),
    fitted = fitted, total_weight = out$total_weight,
    solver = list(method = "FALKON (preconditioned conjugate gradients)",
                  iterations = out$iterations, converged = converged, residual = out$residual,
                  tol = tol, max_iter = max_iter))
  list(map = map, solution = solution, sigma_path = NULL, read = 0)
}
