#' Nystroem features
#'
#' Builds a Nystroem feature map (Williams and Seeger, 2001): with `M`
#' centers `C` taken from the data, the features of a row `x` are
#' `z(x) = k(x, C) K_CC^(-1/2)`, so that `z(x)'z(y) = k(x, C) K_CC^+ k(C, y)`
#' is the kernel projected onto the span of the centers' kernel functions.
#' Unlike random Fourier features, the approximation adapts to where the data
#' are, and is exact on the centers; it works for every kernel kitchen has.
#'
#' `K_CC^(-1/2)` is a pseudo-inverse square root: `U diag(1 / sqrt(l)) U'`
#' from the eigendecomposition of `K_CC`, over the eigenvalues `l` above
#' `M * .Machine$double.eps * max(l)` (below that, an eigenvalue is rounding
#' noise and its eigenvector arbitrary). Duplicated centers or a very large
#' bandwidth thus give a rank-deficient `K_CC` and fewer effective features
#' (`map$rank`), never infinite ones. It is computed by kitchen's threaded
#' tridiagonal reduction, LAPACK's MRRR eigensolver on the kept eigenvalues
#' only and kitchen's SIMD products (about `3 M^3` operations on threads, and
#' up to four `M x M` matrices at once: 3.2 GB at `M = 10000`); with an
#' optimised BLAS and kitchen's SIMD kernels off, or with
#' `options(kitchen.tridiagonal = "lapack")`, by [eigen()] on R's LAPACK.
#' The two agree to rounding (to the conditioning of `K_CC`).
#'
#' Centers, in the rescaled units of the inputs (see [rff()] for `scale`):
#' * `"uniform"`: `n_centers` distinct rows drawn uniformly.
#' * `"kmeans"`: k-means++ seeding (Arthur and Vassilvitskii, 2007) on the
#'   rows scaled by the bandwidths, followed by ten Lloyd iterations
#'   ([stats::kmeans()]); on a uniform subsample of at most
#'   `max(10000, 10 * n_centers)` rows. Centers are then cluster means
#'   (Zhang, Tsang and Kwok, 2008).
#' * `"leverage"`: rows drawn without replacement with probabilities
#'   proportional to approximate ridge leverage scores
#'   `[K (K + lambda I)^(-1)]_ii` (Alaoui and Mahoney, 2015), computed on a
#'   uniform subsample of at most `max(10000, 10 * n_centers)` rows from
#'   uniform Nystroem features of that subsample, with `lambda = trace(K) /
#'   n_centers` (so the effective dimension is at most `n_centers`).
#'
#' @inheritParams rff
#' @param x Training data: a numeric matrix, a numeric data frame or a
#'   `Matrix::dgCMatrix` (rows are observations). The centers are rows of
#'   it (or, for `"kmeans"`, means of rows); a sparse `x` is made dense row
#'   block by row block when features are computed.
#' @param n_centers Number of centers `M`, at most `nrow(x)`: the number of
#'   features. Memory is `O(M d + M^2)`; features cost `O(M d + M^2)` per
#'   row. For many centers (thousands and more), fit with
#'   `krr_fit(solver = "falkon")`, which never forms the `n x M` features.
#' @param centers How centers are chosen: `"uniform"`, `"kmeans"` or
#'   `"leverage"` (see Details).
#' @return An object of class `c("kitchen_nystrom", "kitchen_map")`: a
#'   plain list holding the kernel, the input dimension, the rescaling, the
#'   `M x d` centers (rescaled inputs), the `M x M` matrix `K_CC^(-1/2)`
#'   (`normalization`), its `rank` and the center rule. Use
#'   [predict()][predict.kitchen_nystrom] to compute features; [krr_fit()]
#'   takes the map (or `features = "nystrom"`), and its bandwidth candidates
#'   keep the centers and recompute `K_CC`.
#' @references Williams, C. K. I. and Seeger, M. (2001). Using the Nystroem
#'   Method to Speed Up Kernel Machines. Advances in Neural Information
#'   Processing Systems 13.
#'
#'   Zhang, K., Tsang, I. W. and Kwok, J. T. (2008). Improved Nystroem
#'   Low-Rank Approximation and Error Analysis. ICML.
#'
#'   Alaoui, A. E. and Mahoney, M. W. (2015). Fast Randomized Kernel Ridge
#'   Regression with Statistical Guarantees. Advances in Neural Information
#'   Processing Systems 28.
#' @seealso [summary.kitchen_map()], [rff()], [kernel_matrix()], [krr_fit()].
#' @export
#' @examples
#' x <- matrix(rnorm(300 * 3), 300, 3)
#' map <- nystrom(x, n_centers = 50, sigma = 2, seed = 1)
#' map
#' z <- predict(map, x[1:5, ], n_threads = 1)
#' # z %*% t(z) approximates the kernel matrix of the rescaled data
#' xs <- scale(x[1:5, ], center = map$center, scale = map$scale)
#' round(tcrossprod(z) - kernel_matrix(xs, kernel = map$kernel), 3)
nystrom <- function(x, n_centers, kernel = "gaussian", sigma = NULL,
                    centers = c("uniform", "kmeans", "leverage"),
                    scale = c("standard", "minmax", "none"), clip = TRUE, seed = NULL, ...) {
  rlang::check_required(x)
  rlang::check_required(n_centers)
  centers <- match_choice(centers, c("uniform", "kmeans", "leverage"))
  scale <- match_choice(scale, c("standard", "minmax", "none"))
  check_flag(clip)
  if (is.numeric(x) && length(x) == 1L && is.null(dim(x))) {
    abort_arg("{.arg x} must be data for {.fn nystrom} (its centers are rows of it), not a dimension.")
  }
  if (inherits(x, "kitchen_chunked")) {
    abort_arg(c("{.arg x} must be data in memory for {.fn nystrom} (its centers are rows of it), not chunked data.",
                i = "Build the map on a sample of rows, for example {.code nystrom(read_chunk(x, 1)$x, 1000)}; {.fn rff}, {.fn fastfood} and {.fn rbin} take chunked data."))
  }
  check_count(n_centers, arg = "n_centers")
  sigma_given <- !is.null(sigma) || !is.character(kernel)
  kernel <- as_kernel(kernel, sigma = sigma, ...)
  x <- as_data_matrix(x, allow_sparse = TRUE, arg = "x")
  if (n_centers > nrow(x)) {
    abort_arg("{.arg n_centers} must be at most the number of rows of {.arg x} ({nrow(x)}), not {n_centers}.")
  }
  check_map_size(as.double(n_centers)^2, "The n_centers x n_centers matrix K_CC", "n_centers",
                 hint = "Use fewer centers: a few thousand usually approximate the kernel well.")

  with_seed(seed, {
    setup <- map_setup(x, scale, kernel, sigma_given)
    chosen <- switch(centers,
      uniform = rescaled_rows(x, sort(sample.int(nrow(x), n_centers)), setup$rescale),
      kmeans = kmeans_centers(x, n_centers, setup),
      leverage = leverage_centers(x, n_centers, setup))
  })
  map <- structure(list(
    kernel = setup$kernel, d = setup$d, n_features = as.integer(n_centers),
    scaling = setup$scaling, center = setup$rescale$center, scale = setup$rescale$scale,
    col_names = setup$rescale$names, clip = if (clip) setup$range,
    centers = chosen, centers_rule = centers
  ), class = c("kitchen_nystrom", "kitchen_map"))
  nystrom_with_bandwidth(map, setup$kernel$sigma)
}

#' Features of new data from a Nystroem map
#'
#' @param object A map from [nystrom()].
#' @inheritParams predict.kitchen_rff
#' @return A numeric matrix with one row per row of `newdata` and
#'   `n_centers` columns, `k(x, C) K_CC^(-1/2)`, whose row inner products
#'   approximate the kernel.
#' @details Rows are taken in blocks: the kernel values of a block with the
#'   centers are computed over threads, coordinate by coordinate as in
#'   [kernel_matrix()], then multiplied by `K_CC^(-1/2)` on kitchen's AVX2 or
#'   AVX-512 product kernels when the CPU has them (see [kitchen_simd()]),
#'   else on Eigen. The Matern kernel with a `nu` other than 0.5, 1.5 or 2.5
#'   uses [besselK()] on the main thread.
#' @export
#' @examples
#' x <- matrix(rnorm(100 * 2), 100, 2)
#' map <- nystrom(x, n_centers = 20, kernel = "laplacian", seed = 1)
#' dim(predict(map, x[1:3, ], n_threads = 1))
predict.kitchen_nystrom <- function(object, newdata, n_threads = NULL, ...) {
  if (...length()) warn_unused_dots(...)  # R/krr_predict.R
  validate_map(object)
  newdata <- map_input(object, newdata, allow_empty = TRUE)
  nystrom_features(object, newdata, backend_settings(n_threads))
}

# Features of checked data (map_input()).
nystrom_features <- function(map, x, backend, call = rlang::caller_env()) {
  if (inherits(x, "dgCMatrix")) x <- as.matrix(x)
  if (!is.double(x)) storage.mode(x) <- "double"
  sigma <- rep_len(map$kernel$sigma, map$d)
  kind <- kernel_matrix_kind(map$kernel)
  if (kind == "distance") {
    xs <- (x - rep(map$center, each = nrow(x))) / rep(map$scale, each = nrow(x))
    out <- kernel_matrix(xs, map$centers, map$kernel, n_threads = backend$n_threads) %*%
      map$normalization
    dimnames(out) <- NULL
  } else {
    scaled_centers <- map$centers / rep(sigma, each = nrow(map$centers))
    out <- nystrom_features_cpp(x, map$center, map$scale * sigma, scaled_centers,
                                map$normalization, kind, backend$n_threads, backend$simd)
    if (is.character(out)) abort_invalid_map("object", "kitchen_nystrom", out, call = call)
  }
  rownames(out) <- rownames(x)
  out
}

# The map at bandwidth `sigma` (one, or one per column): centers kept,
# K_CC and its pseudo-inverse square root computed again.
nystrom_with_bandwidth <- function(map, sigma, call = rlang::caller_env()) {
  map$kernel$sigma <- as.numeric(sigma)
  # The features divide the centers and rows by the bandwidths (as rff()
  # divides its frequencies): an overflow there gives NaN features.
  per_column <- rep_len(map$kernel$sigma, map$d)
  if (!all(is.finite(map$centers / rep(per_column, each = nrow(map$centers)))) ||
      !all(is.finite(1 / (map$scale * per_column)))) {
    abort_arg(c("{.arg sigma} ({format(sigma)}) times the column scales is too small: the centers divided by it overflow.",
                i = "Rescale {.arg x}, or use a larger {.arg sigma}."), call = call)
  }
  k_cc <- kernel_matrix(map$centers, kernel = map$kernel, n_threads = resolve_threads(NULL))
  root <- inverse_square_root(k_cc)
  map$normalization <- root$matrix
  map$rank <- root$rank
  map
}

# The pseudo-inverse square root of a symmetric positive semi-definite
# matrix, over the eigenvalues above the rounding level n eps max(l): by
# kitchen's tridiagonal reduction and LAPACK's MRRR on the kept eigenpairs
# (src/inverse_root.cpp), or by R's eigen() where option kitchen.tridiagonal
# hands the reduction to LAPACK (an optimised BLAS without kitchen's SIMD,
# or "lapack" set). The two agree to rounding.
inverse_square_root <- function(k) {
  if (!tridiagonal_on_lapack()) {
    # No copy of k (800 MB at M = 10,000) unless its type needs one.
    if (!is.double(k)) storage.mode(k) <- "double"
    return(inverse_square_root_cpp(k, resolve_threads(NULL), resolve_simd()))
  }
  dimnames(k) <- NULL
  e <- eigen(k, symmetric = TRUE)
  kept <- e$values > nrow(k) * .Machine$double.eps * max(e$values[1], 0)
  u <- e$vectors[, kept, drop = FALSE]
  scaled <- u * rep(1 / sqrt(e$values[kept]), each = nrow(u))
  list(matrix = tcrossprod(scaled, u), rank = sum(kept))
}

# Rows of x, rescaled (dense M x d).
rescaled_rows <- function(x, rows, rescale) {
  xs <- as.matrix(x[rows, , drop = FALSE])
  storage.mode(xs) <- "double"
  out <- (xs - rep(rescale$center, each = length(rows))) / rep(rescale$scale, each = length(rows))
  dimnames(out) <- NULL
  out
}

# A uniform subsample of rows for the center rules that look at the data.
center_pool <- function(x, n_centers) {
  size <- min(nrow(x), max(10000, 10 * n_centers))
  if (size == nrow(x)) seq_len(nrow(x)) else sort(sample.int(nrow(x), size))
}

# k-means++ seeding, then Lloyd iterations, on the pool's rows scaled by the
# bandwidths (the kernel's geometry); centers returned in rescaled units.
kmeans_centers <- function(x, n_centers, setup) {
  xs <- rescaled_rows(x, center_pool(x, n_centers), setup$rescale)
  sigma <- rep_len(setup$kernel$sigma, ncol(xs))
  xs <- xs / rep(sigma, each = nrow(xs))
  distinct <- !duplicated(xs)
  if (sum(distinct) < n_centers) {
    # Fewer distinct rows than centers: every distinct row is a center.
    seeds <- xs[sample(which(distinct), n_centers, replace = sum(distinct) < n_centers), , drop = FALSE]
    return(seeds * rep(sigma, each = n_centers))
  }
  first <- sample.int(nrow(xs), 1)
  chosen <- integer(n_centers)
  chosen[1] <- first
  nearest <- rowSums((xs - rep(xs[first, ], each = nrow(xs)))^2)
  for (i in seq_len(n_centers)[-1]) {
    # D^2 sampling: chosen rows have distance 0 and are never drawn again.
    next_row <- sample.int(nrow(xs), 1, prob = nearest)
    chosen[i] <- next_row
    nearest <- pmin(nearest, rowSums((xs - rep(xs[next_row, ], each = nrow(xs)))^2))
  }
  fitted <- if (n_centers < nrow(xs)) {
    withCallingHandlers(
      stats::kmeans(xs, xs[chosen, , drop = FALSE], iter.max = 10, algorithm = "Lloyd")$centers,
      warning = function(w) {
        if (grepl("converge", conditionMessage(w))) invokeRestart("muffleWarning")
      })
  } else xs[chosen, , drop = FALSE]
  dimnames(fitted) <- NULL
  fitted * rep(sigma, each = n_centers)
}

# Rows drawn with probabilities proportional to approximate ridge leverage
# scores, from uniform Nystroem features of the pool.
leverage_centers <- function(x, n_centers, setup) {
  pool <- center_pool(x, n_centers)
  xs <- rescaled_rows(x, pool, setup$rescale)
  if (length(pool) == n_centers) return(xs)
  landmarks <- xs[sort(sample.int(nrow(xs), n_centers)), , drop = FALSE]
  pilot <- structure(list(kernel = setup$kernel, d = ncol(xs), n_features = as.integer(n_centers),
                          center = rep(0, ncol(xs)), scale = rep(1, ncol(xs)), centers = landmarks),
                     class = c("kitchen_nystrom", "kitchen_map"))
  pilot <- nystrom_with_bandwidth(pilot, setup$kernel$sigma)
  # tau_i = z_i' (Z'Z + lambda I)^(-1) z_i, with lambda = trace(K) / M: the
  # effective dimension sum(tau) is then at most M. Z is computed twice,
  # block by block, so that the pool's n x M features are never held.
  lambda <- nrow(xs) / n_centers  # trace(K) = n: k(x, x) = 1 for every kernel
  blocks <- split(seq_len(nrow(xs)), (seq_len(nrow(xs)) - 1) %/% 2048)
  backend <- backend_settings()
  features <- function(rows) nystrom_features(pilot, xs[rows, , drop = FALSE], backend)
  gram <- diag(lambda, n_centers)
  for (rows in blocks) gram <- gram + crossprod(features(rows))
  root <- chol(gram)
  tau <- unlist(lapply(blocks, function(rows) {
    colSums(backsolve(root, t(features(rows)), transpose = TRUE)^2)
  }), use.names = FALSE)
  # A small floor so every row can be drawn (the scores are approximate).
  prob <- tau + 1e-3 * mean(tau) + .Machine$double.xmin
  xs[sort(sample.int(nrow(xs), n_centers, prob = prob)), , drop = FALSE]
}

# The title and fields print() and summary() show (map_description()).
nystrom_description <- function(x) {
  list(title = "kitchen Nystroem features",
       fields = c(
         kernel = kernel_label(x$kernel),
         "input dimension" = x$d,
         features = sprintf("%d (centers: %s%s)", x$n_features, x$centers_rule %||% "given",
                            if (isTRUE(x$rank < x$n_features)) sprintf(", rank %d", x$rank)
                            else ""),
         scaling = x$scaling))
}
