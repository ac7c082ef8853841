#' Exact kernel matrix
#'
#' Computes the matrix of exact kernel values `K[i, k] = k(x_i, y_k)` between
#' the rows of `x` and the rows of `y`: the quantity that random features
#' approximate, and the reference to measure them against.
#'
#' Distances are summed coordinate by coordinate, so values are accurate even
#' for nearby points and `kernel_matrix(x)` has exactly 1 on its diagonal. The
#' columns of `K` are computed in blocks spread over threads; the result is
#' the same, bit for bit, for any number of threads.
#'
#' The Matern kernel uses closed forms for `nu` = 0.5, 1.5 and 2.5. For other
#' values of `nu` it applies the Bessel formula (see [kernels]) with
#' [besselK()], on the main thread, and sets `k = 1` at distance 0 (the limit).
#'
#' The result is an ordinary dense matrix of `n * m` doubles, so its size is
#' capped at `2^31 - 1` entries (17 GB; for example 46340 x 46340): larger
#' requests are refused before anything is allocated, with an error giving the
#' memory they would need. Beyond that size, compute the matrix in blocks of
#' rows of `x`, or use random features.
#'
#' @param x Data, one observation per row: a numeric matrix, a data frame of
#'   numeric columns or a sparse `dgCMatrix` (package Matrix, made dense).
#'   NA, NaN and infinite values are refused.
#' @param y `NULL` (the default) for `y = x`, or data like `x` with the same
#'   number of columns (matched to `x`'s by name when both have names, as
#'   `predict()` matches new data to a map's columns).
#' @param kernel A kernel object such as [kernel_gaussian()] (see [kernels]),
#'   or a kernel name (`"gaussian"`, `"laplacian"`, `"cauchy"`, `"matern"`)
#'   for that kernel with its default parameters.
#' @inheritParams kitchen_threads
#' @return A numeric matrix with `nrow(x)` rows and `nrow(y)` columns; its
#'   dimnames are the row names of `x` and `y`, if any.
#' @seealso [kernels] for the kernel objects and their formulas.
#' @export
#' @examples
#' x <- matrix(rnorm(5 * 3), 5, 3)
#' kernel_matrix(x, n_threads = 1)
#' kernel_matrix(x, kernel = kernel_laplacian(sigma = 2), n_threads = 2)
#'
#' # Between two sets of points, with row names carried over.
#' y <- matrix(rnorm(2 * 3), 2, 3, dimnames = list(c("a", "b"), NULL))
#' kernel_matrix(x, y, kernel = kernel_matern(sigma = 1, nu = 2.5), n_threads = 1)
#'
#' # The Gaussian kernel by hand.
#' d2 <- outer(rowSums(x^2), rowSums(y^2), "+") - 2 * tcrossprod(x, y)
#' all.equal(kernel_matrix(x, y, n_threads = 1), exp(-d2 / 2), check.attributes = FALSE)
kernel_matrix <- function(x, y = NULL, kernel = kernel_gaussian(), n_threads = NULL) {
  if (inherits(y, "kitchen_kernel")) {
    abort_arg(c("{.arg y} is a kernel: the second argument is the second set of rows.",
                i = "Give the kernel by name: {.code kernel_matrix(x, kernel = ...)}."))
  }
  x <- as_dense_data(x)
  y <- if (is.null(y)) x else as_dense_data(y)
  if (ncol(y) != ncol(x)) {
    abort_arg("{.arg y} must have the same number of columns as {.arg x} ({ncol(x)}), not {ncol(y)}.")
  }
  y <- columns_as_in(y, colnames(x))
  kernel <- as_kernel(kernel)
  n_threads <- resolve_threads(n_threads)
  check_kernel_matrix_size(nrow(x), nrow(y))
  kernel$sigma <- bandwidth_for_columns(kernel$sigma, ncol(x), colnames(x), arg = "kernel$sigma")
  if (length(kernel$sigma) > 1L && all(kernel$sigma == kernel$sigma[1])) {
    kernel$sigma <- kernel$sigma[1]
  }
  if (length(kernel$sigma) > 1L) {
    # Per-column bandwidths: the kernel of x_j / sigma_j at bandwidth 1.
    x <- per_column_bandwidth_data(x, kernel$sigma)
    y <- per_column_bandwidth_data(y, kernel$sigma)
    kernel$sigma <- 1
  }

  kind <- kernel_matrix_kind(kernel)
  k <- kernel_matrix_cpp(x, y, FALSE, kind, kernel$sigma, n_threads)
  if (kind == "distance") k <- matern_from_distance(k, 1, kernel$nu)  # k holds r / sigma
  if (!is.null(rownames(x)) || !is.null(rownames(y))) {
    dimnames(k) <- list(rownames(x), rownames(y))
  }
  k
}

# Columns divided by their bandwidths; refused if that overflows.
per_column_bandwidth_data <- function(x, sigma, call = rlang::caller_env()) {
  x <- x / rep(sigma, each = nrow(x))
  if (!all(is.finite(x))) {
    abort_arg("{.arg kernel$sigma} has bandwidths so small that the inputs divided by them overflow.",
              call = call)
  }
  x
}

# Refuses, before any allocation, a result too large to hold.
check_kernel_matrix_size <- function(n, m, call = rlang::caller_env()) {
  entries <- as.double(n) * as.double(m)
  if (entries > max_dense_entries) {
    gb <- gigabytes(entries)
    abort_arg(c("The kernel matrix would be too large: {n} x {m} entries need {gb} GB.",
                i = "{.fn kernel_matrix} computes at most 2^31 - 1 entries (17 GB).",
                i = "Compute it in blocks of rows of {.arg x}, or use random features."),
              call = call)
  }
}

# x as a dense double matrix, checked; a dgCMatrix is made dense.
as_dense_data <- function(x, arg = rlang::caller_arg(x), call = rlang::caller_env()) {
  x <- as_data_matrix(x, allow_sparse = TRUE, arg = arg, call = call)
  if (inherits(x, "dgCMatrix")) x <- as.matrix(x)
  x
}

# What the C++ core computes for `kernel` (see kitchen::kernel_kind): the
# kernel itself, or, for a Matern nu without closed form, the distance.
kernel_matrix_kind <- function(kernel) {
  if (kernel$name != "matern") return(kernel$name)
  closed_forms <- c(matern12 = 0.5, matern32 = 1.5, matern52 = 2.5)
  kind <- names(closed_forms)[closed_forms == kernel$nu]
  if (length(kind) == 1L) kind else "distance"
}

# Matern kernel values from Euclidean distances r (the shape of r is kept):
# 2^(1 - nu) / Gamma(nu) t^nu K_nu(t) with t = sqrt(2 nu) r / sigma, on the
# log scale so neither t^nu nor K_nu(t) overflows; 1 at r = 0, the limit.
matern_from_distance <- function(r, sigma, nu) {
  large <- nu > matern_asymptotic_nu
  # the expansion for large nu takes t^2 / nu = 2 (r / sigma)^2: t itself
  # overflows for huge nu
  t <- if (large) 2 * (r / sigma)^2 else sqrt(2 * nu) * r / sigma
  positive <- t > 0 & is.finite(t)
  tp <- t[positive]
  log_k <- if (large) {
    log_matern_large_nu(tp, nu)
  } else {
    (1 - nu) * log(2) - lgamma(nu) + nu * log(tp) + log_bessel_k(tp, nu)
  }
  r[] <- 1
  r[is.infinite(t)] <- 0  # a distance that overflowed: the limit, not Inf * 0
  # pmin: rounding must not push a value above k(0) = 1; an infinite log_k
  # only arises for t so small that k is 1 to double precision.
  r[positive] <- pmin(exp(log_k), 1)
  r
}

# Above this nu the Matern kernel comes from the uniform expansion below:
# besselK() and the recurrence cost O(nu) time and memory per value (a
# crash in besselK() at nu = 1e20), and the terms of the Bessel formula,
# each about nu log(t), cancel to a value near 0 (all digits lost at 1e16).
matern_asymptotic_nu <- 100

# log k for the Matern kernel at large nu, from s = t^2 / nu = 2 (r / sigma)^2
# > 0 (t = sqrt(2 nu) r / sigma), by the uniform asymptotic expansion of
# K_nu(nu z) (DLMF 10.41.4, terms U_0 .. U_4 of 10.41.10) and Stirling's
# series for lgamma(nu), with the large terms cancelled by hand:
# log k = nu f(z) - stirling(nu) - log(1 + z^2) / 4 + log(sum_k (-1)^k U_k(p) / nu^k),
# z = t / nu, q = sqrt(1 + z^2), p = 1 / q, f(z) = 1 - q + log((1 + q) / 2)
# = log1p(h) - 2 h with h = (q - 1) / 2. As nu grows, nu f(z) -> -s / 4 =
# -r^2 / (2 sigma^2): the Gaussian kernel. The first term left out,
# U_5 / nu^5, is about 1e-12 relative to k at nu = 100 (and shrinks as nu^-5).
log_matern_large_nu <- function(s, nu) {
  z2 <- s / nu
  q <- sqrt(1 + z2)
  nu_h <- s / (2 * (1 + q))               # nu h, without forming nu times a tiny h
  h <- nu_h / nu
  # (h - log1p(h)) / h, by its series where the difference would cancel
  excess <- ifelse(h < 1e-4, h / 2 - h^2 / 3 + h^3 / 4, 1 - log1p(h) / h)
  p <- 1 / q
  p2 <- p^2
  u1 <- p * (3 - 5 * p2) / 24
  u2 <- p2 * (81 - p2 * (462 - 385 * p2)) / 1152
  u3 <- p^3 * (30375 - p2 * (369603 - p2 * (765765 - 425425 * p2))) / 414720
  u4 <- p2^2 * (4465125 - p2 * (94121676 - p2 * (349922430 - p2 * (446185740 - 185910725 * p2)))) /
    39813120
  series <- 1 - u1 / nu + u2 / nu^2 - u3 / nu^3 + u4 / nu^4
  stirling <- 1 / (12 * nu) - 1 / (360 * nu^3) + 1 / (1260 * nu^5)
  -nu_h * (1 + excess) - stirling - log1p(z2) / 4 + log(series)
}

# log K_nu(t) for t > 0. besselK() overflows for small t and large nu (only
# possible for nu >= 1); there, the forward recurrence
# K_(mu+1)(t) = K_(mu-1)(t) + (2 mu / t) K_mu(t), run on ratios from
# mu = nu - floor(nu), stays finite.
log_bessel_k <- function(t, nu) {
  out <- log(besselK(t, nu, expon.scaled = TRUE)) - t
  big <- !is.finite(out)
  if (any(big) && nu >= 1) {
    tb <- t[big]
    mu <- nu - floor(nu)
    k_mu <- besselK(tb, mu, expon.scaled = TRUE)
    ratio <- besselK(tb, mu + 1, expon.scaled = TRUE) / k_mu  # K_(mu+1) / K_mu
    log_k <- log(k_mu) - tb + log(ratio)                     # log K_(mu+1)
    for (step in seq_len(floor(nu) - 1)) {
      mu <- mu + 1
      ratio <- 1 / ratio + 2 * mu / tb
      log_k <- log_k + log(ratio)
    }
    out[big] <- log_k
  }
  out
}

# y's columns in the order of `names` (x's), when both have names: matched
# by name, as predict() matches new data to a map's columns.
columns_as_in <- function(y, names, call = rlang::caller_env()) {
  given <- colnames(y)
  if (is.null(names) || is.null(given) || identical(given, names)) return(y)
  check_column_names(given, "y", call)
  if (!setequal(given, names)) {
    abort_arg(c("{.arg y} must have the columns of {.arg x} when both have names.",
                x = "Differing: {.val {union(setdiff(given, names), setdiff(names, given))}}."),
              call = call)
  }
  y[, names, drop = FALSE]
}
