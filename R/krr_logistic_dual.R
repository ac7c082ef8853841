# The dual path of krr_fit(loss = "logistic"): far fewer rows than features.
#
# The penalised log-likelihood's gradient in the coefficients is Z'G (G the
# n x K matrix of weighted residuals) plus 2 lambda beta, so every solution,
# and every step of the solver from beta = 0 or from an earlier solution
# (combinations of gradients, through a preconditioner that maps the span
# to itself), lies in the span of the rows of Z. With the eigendecomposition
# Z Z' = U S U' (rank r <= n), V = Z' U S^(-1/2) has orthonormal columns
# spanning those rows, and beta = V C gives Z beta = Phi C and
# ||beta||^2 = ||C||^2, Phi = Z V = U S^(1/2) (n x r). The problem on the
# features Z (D columns) is therefore the same problem on Phi (r columns):
# the same objective, the same steps (the bound c Phi'W Phi + 2 lambda is
# the primal's restricted to the span, and so is the curvature at a warm
# start), the same lambdas, folds and
# solutions, mapped back by V. Each fold and lambda then factors an r x r
# bound instead of a D x D one, and each pass costs n r K instead of n D K:
# on iris (150 rows, 1000 features, 3 classes) the primal's D x D Cholesky
# factorisations (R's chol() then) were 56% of a 9.9 s fit and the passes
# 30%.

# "auto": at most half as many rows as features (and at most 1000 where the
# eigendecomposition goes to R's eigen(), which does not check for
# interrupts: R/krr_dual.R). One n x n eigendecomposition against a D x D
# factorisation per fold and lambda (kitchen's blocked Cholesky). With
# kitchen's eigendecomposition (kept_eigen()), n = 1001, D = 3000, 2
# classes: primal 11.6 s, dual 6.1 s (bench/results/dual-eigen.md). Measured
# with R's eigen() on the reference BLAS (AVX2 machine,
# reference BLAS, default CV fits on a given rff map, 8 synthetic columns):
# D = 1000: n = 500 primal 1.82 s, dual 0.75 s; n = 600 2.02 / 1.62 s;
# n = 700 1.90 / 2.16 s (2 classes), 3.25 / 2.49 s (3); n = 900 2.07 / 4.10 s.
# D = 2000: n = 600 (3 classes) 14.4 / 2.8 s, n = 1000 20.0 / 9.0 s.
dual_logistic_pays <- function(n, n_features) 2 * n <= n_features && dual_rows_allowed(n)  # R/krr_dual.R

# Whether a logistic fit of n in-memory rows takes the dual path: one rule
# for memory_logistic_source() and for krr_fit()'s size cap.
logistic_dual_chosen <- function(map, n, call = rlang::caller_env()) {
  dual_path_chosen(map, n, "direct", dual_logistic_pays, call = call)
}

# The rows' features reduced to their span: list(phi, basis = V). Only
# eigenvalues that are zero, negative or denormal next to the largest
# (eps^2 times it) are left out: the primal's solution also has small
# components along directions of eigenvalues at rounding level (c_j of order
# sqrt(s_j), times a basis vector of order 1 / sqrt(s_j)), and dropping
# those (below n eps times the largest) moved its coefficients by 3e-7
# relative on smooth low-dimensional data, its links by far less.
row_span_features <- function(map, x, backend) {
  z <- map_features(map, x, backend)
  if (!is.matrix(z)) z <- as.matrix(z)
  eig <- kept_eigen(gram_of(t(z), backend), .Machine$double.eps^2, backend)  # R/gram.R, R/kept_eigen.R
  if (length(eig$values) == 0) {  # all-zero features: one direction, phi = 0
    return(list(phi = matrix(0, nrow(z), 1), basis = matrix(0, ncol(z), 1)))
  }
  root <- sqrt(eig$values)
  phi <- eig$vectors * rep(root, each = nrow(eig$vectors))
  basis <- crossprod(z, eig$vectors) * rep(1 / root, each = ncol(z))
  list(phi = phi, basis = basis)
}

# The statistics krr_statistics() gives, of the feature matrix z itself:
# weighted Z'Z, Z'y, column sums and the response's sums, in total and per
# fold (the folds' sum is the total).
feature_matrix_statistics <- function(z, y, folds, weights, backend) {
  of_rows <- function(rows) {
    w <- weights[rows]
    zr <- z[rows, , drop = FALSE]
    yr <- y[rows, , drop = FALSE]
    list(gram = gram_of(zr * sqrt(w), backend), zy = crossprod(zr, w * yr), zsum = colSums(w * zr),
         ysum = colSums(w * yr), yy = colSums(w * yr^2), n = sum(w), rows = length(rows))
  }
  if (is.null(folds)) return(c(of_rows(seq_len(nrow(z))), list(folds = NULL)))
  per_fold <- lapply(seq_len(max(folds)), function(k) of_rows(which(folds == k)))
  total <- Reduce(function(a, b) sum_statistics(a, b, gram = FALSE), per_fold)
  total$gram <- gram_sum_cpp(lapply(per_fold, `[[`, "gram"), 1L)
  total$folds <- per_fold
  total
}

# memory_logistic_source() on the reduced features phi (r columns), with
# the working dimension (`n_features`) and the map back to the D
# coefficients of the features (`expand`).
dual_logistic_source <- function(map, x, coded, weights, folds, backend) {
  weights <- weights %||% rep(1, nrow(x))
  span <- row_span_features(map, x, backend)
  phi <- span$phi
  labels <- max.col((coded + 1) / 2, "first")
  row_numbers <- function(part) part_rows(part, folds, nrow(x))  # R/krr_logistic.R
  list(
    backend = backend,
    n_features = ncol(phi),
    expand = function(coefficients) span$basis %*% coefficients,
    statistics = function(by_fold) {
      stats <- feature_matrix_statistics(phi, coded, if (by_fold) folds, weights, backend)
      stats$penalised <- map$n_features  # logistic_lambdas(): the primal's candidates
      stats
    },
    gradient = function(state, part = NULL) {
      logistic_pass_cpp(phi, row_numbers(part), labels, weights, state$coefficients,
                        state$intercept, backend$n_threads, backend$simd)
    },
    solver = function(part) {
      kept_features_solver(phi, row_numbers(part), labels, weights, backend,
                           map$n_features, single_precision = single_precision_folds(part))
    })
}
