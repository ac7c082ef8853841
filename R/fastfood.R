#' Fastfood random features
#'
#' Builds a Fastfood feature map (Le, Sarlos and Smola, 2013): random
#' Fourier features whose frequency matrix is never stored nor multiplied
#' densely. Each block of `p` frequencies is
#' `V = 1 / (sigma sqrt(p)) S H G Pi H B`, with `B` random signs, `Pi` a random
#' permutation, `G` a Gaussian diagonal, `H` the Walsh-Hadamard transform
#' (see [fwht()]) and `S` a diagonal giving each row the length of a draw
#' from the kernel's spectral law. Inputs are zero-padded to `p`, the next
#' power of two at least `d`; enough independent blocks are stacked for the
#' frequencies requested and the last one is cut. A row then costs
#' O(n_features log d) operations instead of O(n_features d), and the map
#' holds O(n_features) numbers instead of a `d x n_features` matrix.
#'
#' With `structure = "sorf"` the blocks are instead structured orthogonal
#' random features (SORF; Yu et al. 2016):
#' `V = sqrt(p) / sigma (H D1) (H D2) (H D3)` with `H` the normalised
#' Walsh-Hadamard transform and `D1`, `D2`, `D3` random sign diagonals. Each
#' factor is orthogonal, so the rows of a block are exactly orthogonal, all of
#' length `sqrt(p) / sigma` (the mean length of a Gaussian frequency), and a
#' row costs three transforms per block and no Gaussian draws. SORF mimics
#' [rff()] with `orthogonal = TRUE` at Fastfood's cost; its kernel estimate is
#' only asymptotically unbiased (the bias shrinks like `1 / sqrt(p)`), and it
#' holds for the Gaussian kernel only (its rows have one fixed length, so no
#' other radial law can be given to them). The bias matters at small input
#' dimension: with kernel values of 0.1 to 0.65 and `D = 1024`, the largest
#' bias over 60 seeds was 0.077 at `d = 5`, 0.086 at `d = 8`, 0.040 at 16,
#' 0.019 at 32 and 0.011 at 64, where plain Fastfood's mean errors were 0.008
#' to 0.010, its Monte Carlo noise (`bench/results/sorf-bias.md` in
#' kitchen's source repository): below `d = 32` or so, plain Fastfood
#' estimates the kernel better.
#'
#' SORF is a `structure` of a Fastfood map rather than a `type`, because
#' `type` already chooses the nonlinearity (`"cos_sin"` or `"cos_phase"`),
#' which SORF maps take too; and it is not an [rff()] option, because an rff
#' map holds its dense frequency matrix, which SORF exists to avoid. A SORF
#' map is a `kitchen_fastfood` map, so it goes everywhere a Fastfood map goes
#' (predict(), [krr_fit()] with every lambda and sigma choice, chunked data).
#'
#' The map is used exactly like one from [rff()]: the same inputs, rescaling,
#' bandwidth heuristic and feature types (see there). Only rotation-invariant
#' kernels can be built this way: the Gaussian kernel (`S` from a chi law
#' with `p` degrees of freedom) and the Matern kernel (`S` from the length of
#' a multivariate t vector with `2 nu` degrees of freedom). For the Laplacian
#' and Cauchy kernels use [rff()].
#'
#' @inheritParams rff
#' @param kernel `"gaussian"` or `"matern"`, or an object made by
#'   [kernel_gaussian()] or [kernel_matern()] (`"gaussian"` only for
#'   `structure = "sorf"`).
#' @param structure `"fastfood"` (the default: `S H G Pi H B` blocks) or
#'   `"sorf"` (`H D1 H D2 H D3` blocks, Gaussian kernel only); see Details.
#' @return An object of class `c("kitchen_fastfood", "kitchen_map")`: a plain
#'   list holding the kernel, the input dimension `d`, the rescaling
#'   (`center`, `scale`) and the random numbers of the blocks, column `b` of
#'   each matrix for block `b`: `signs` (the diagonal of `B` as a raw `p x
#'   n_blocks` matrix, 0 for -1 and 1 for +1), `perm` (`Pi`, integer,
#'   1-based, `(Pi v)[i] = v[perm[i]]`), `gauss`
#'   (the diagonal of `G`), `radial` (the diagonal of `S`, one value per
#'   frequency: the row length at `sigma = 1` divided by the Frobenius norm
#'   of its block's `G`) and `phases` for `"cos_phase"`. A SORF map has
#'   `structure = "sorf"`, no `perm`, `gauss` nor `radial`, and `signs` with
#'   three columns per block: `D1`, `D2`, `D3` of block `b` in columns
#'   `3b - 2`, `3b - 1`, `3b`. Use
#'   [predict()][predict.kitchen_fastfood] to compute features and
#'   [as.matrix()][as.matrix.kitchen_fastfood] to see the implied frequencies.
#' @references Le, Q., Sarlos, T. and Smola, A. (2013). Fastfood:
#'   Approximating Kernel Expansions in Loglinear Time. Proceedings of the
#'   30th International Conference on Machine Learning.
#'
#'   Yu, F. X., Suresh, A. T., Choromanski, K., Holtmann-Rice, D. and
#'   Kumar, S. (2016). Orthogonal Random Features. Advances in Neural
#'   Information Processing Systems 29.
#' @seealso [predict.kitchen_fastfood()], [summary.kitchen_map()], [rff()], [kernels].
#' @export
#' @examples
#' x <- matrix(rnorm(200 * 5), 200, 5)
#' map <- fastfood(x, n_features = 512, sigma = 2, seed = 1)
#' map
#' z <- predict(map, x[1:5, ], n_threads = 1)
#' xs <- scale(x[1:5, ], center = map$center, scale = map$scale)
#' round(tcrossprod(z) - kernel_matrix(xs, kernel = map$kernel), 2)
#' # Structured orthogonal blocks:
#' fastfood(x, n_features = 512, sigma = 2, seed = 1, structure = "sorf")
fastfood <- function(x, n_features, kernel = "gaussian", sigma = NULL,
                     type = c("cos_sin", "cos_phase"),
                     scale = c("standard", "minmax", "none"), clip = TRUE, seed = NULL,
                     structure = c("fastfood", "sorf"), ...) {
  rlang::check_required(x)
  rlang::check_required(n_features)
  type <- match_choice(type, c("cos_sin", "cos_phase"))
  scale <- match_choice(scale, c("standard", "minmax", "none"))
  structure <- match_choice(structure, c("fastfood", "sorf"))
  check_feature_count(n_features, type)
  check_flag(clip)
  sigma_given <- !is.null(sigma) || !is.character(kernel)
  kernel <- as_kernel(kernel, sigma = sigma, ...)
  if (structure == "sorf") check_sorf_kernel(kernel)
  check_radial_kernel(kernel)

  m <- if (type == "cos_sin") n_features / 2 else n_features
  check_block_count(known_columns(x), m)  # before any per-column work
  with_seed(seed, {
    setup <- map_setup(x, scale, kernel, sigma_given)
    d <- setup$d
    p <- as.integer(block_length(d))
    n_blocks <- ceiling(m / p)
    check_block_count(d, m)  # chunked data: known now
    if (!all(is.finite(1 / (setup$kernel$sigma * setup$rescale$scale)))) {
      abort_arg(c("{.arg sigma} ({format(setup$kernel$sigma)}) times the column scales is too small: the frequencies overflow.",
                  i = "Rescale {.arg x}, or use a larger {.arg sigma}."))
    }
    # One byte per sign (0 for -1, 1 for +1): a quarter of an integer.
    # SORF: D1, D2, D3 of each block, and nothing else.
    n_signs <- if (structure == "sorf") 3L * n_blocks else n_blocks
    signs <- matrix(as.raw(sample.int(2L, p * n_signs, replace = TRUE) - 1L), p, n_signs)
    perm <- gauss <- radial <- NULL
    if (structure == "fastfood") {
      perm <- matrix(as.integer(replicate(n_blocks, sample.int(p))), p, n_blocks)
      gauss <- matrix(stats::rnorm(p * n_blocks), p, n_blocks)
      # S = s / ||G||_F makes each row's length s (paper, eq. 35 and 36).
      block_norm <- sqrt(colSums(gauss^2))
      radial <- radial_sample(setup$kernel, p, m) / block_norm[(seq_len(m) - 1) %/% p + 1]
      check_frequencies_finite(radial, setup$kernel)  # R/rff.R
    }
    phases <- if (type == "cos_phase") stats::runif(m, 0, 2 * pi) else NULL
  })

  structure(list(
    kernel = setup$kernel, d = d, n_features = as.integer(n_features), type = type,
    structure = structure, scaling = setup$scaling, center = setup$rescale$center, scale = setup$rescale$scale,
    col_names = setup$rescale$names, clip = if (clip) setup$range,
    signs = signs, perm = perm, gauss = gauss, radial = radial, phases = phases
  ), class = c("kitchen_fastfood", "kitchen_map"))
}

# Fastfood rotates random Gaussian directions, so only kernels that depend
# on ||x - y||_2 alone can be built by changing the row lengths.
check_radial_kernel <- function(kernel, call = rlang::caller_env()) {
  if (!kernel$name %in% c("gaussian", "matern")) {
    also <- if (kernel$name == "laplacian") " or {.fn rbin}" else ""  # rbin()'s one kernel
    abort_arg(c("{.fn fastfood} needs a rotation-invariant kernel ({.val gaussian} or {.val matern}), not {.val {kernel$name}}.",
                i = paste0("The {kernel$name} kernel is not a function of the Euclidean distance; use {.fn rff}",
                           also, " for it.")),
              call = call)
  }
}

# SORF's rows all have length sqrt(p) / sigma, the Gaussian law's (chi(p)
# lengths concentrate there); a Matern law's heavy-tailed lengths cannot be
# given to them without the Gaussian diagonal SORF does away with.
check_sorf_kernel <- function(kernel, call = rlang::caller_env()) {
  if (kernel$name != "gaussian") {
    abort_arg(c("{.code structure = \"sorf\"} holds for the gaussian kernel only, not the {kernel$name} kernel.",
                i = "Its rows all have one length, which matches the Gaussian spectral law only.",
                i = "Use {.code structure = \"fastfood\"} or {.code rff(orthogonal = TRUE)} for the {kernel$name} kernel."),
              call = call)
  }
}

# Row lengths of the frequency blocks at sigma = 1: the norm of a p-variate
# draw from the kernel's spectral law (its radial law). Belongs next to
# spectral_sample() in kernels.R.
radial_sample <- function(kernel, p, m) {
  chi <- sqrt(stats::rchisq(m, df = p))
  switch(kernel$name,
    gaussian = chi,
    # Multivariate t with 2 nu degrees of freedom: a Gaussian vector divided
    # by sqrt(chi^2_{2 nu} / (2 nu)).
    matern = chi * sqrt(2 * kernel$nu / stats::rchisq(m, df = 2 * kernel$nu)))
}

#' Features of new data from a Fastfood map
#'
#' @inheritParams predict.kitchen_rff
#' @param object A map from [fastfood()].
#' @return A numeric matrix with one row per row of `newdata` and
#'   `n_features` columns, whose row inner products approximate the kernel.
#' @export
#' @examples
#' x <- matrix(c(0, 0, 1, 1), 2, byrow = TRUE)
#' map <- fastfood(2, n_features = 4000, sigma = 1, seed = 42)
#' z <- predict(map, x, n_threads = 1)
#' # The features' inner product approximates the kernel, exp(-1) here; the
#' # error shrinks like 1 / sqrt(n_features).
#' c(features = sum(z[1, ] * z[2, ]),
#'   kernel = kernel_matrix(x, kernel = kernel_gaussian(sigma = 1))[1, 2])
predict.kitchen_fastfood <- function(object, newdata, n_threads = NULL, ...) {
  if (...length()) warn_unused_dots(...)  # R/krr_predict.R
  validate_map(object)
  newdata <- map_input(object, newdata, allow_empty = TRUE)
  fastfood_features(object, newdata, backend_settings(n_threads))
}

# Features of checked data (map_input()).
fastfood_features <- function(map, x, backend, call = rlang::caller_env()) {
  out <- fastfood_apply(map, x, backend, call = call)
  rownames(out) <- rownames(x)
  out
}

#' Frequencies implied by a Fastfood map
#'
#' Forms the dense frequency matrix that a Fastfood map applies implicitly,
#' oriented like the `projection` of an [rff()] map: `d x m`, one column per
#' frequency, already divided by `sigma` (but not by the column scales), so
#' that the projections are `xs %*% as.matrix(map)` for the rescaled data
#' `xs = (x - center) / scale`. Meant for checks and teaching: it costs
#' `d x m` numbers, which the map itself avoids.
#'
#' @param x A map from [fastfood()].
#' @param ... Not used.
#' @return A `d x m` numeric matrix, `m = n_features / 2` for `"cos_sin"`
#'   and `n_features` for `"cos_phase"`.
#' @export
#' @examples
#' map <- fastfood(3, n_features = 8, sigma = 1, seed = 1)
#' w <- as.matrix(map)
#' x <- matrix(rnorm(6), 2, 3)
#' all.equal(predict(map, x), cbind(cos(x %*% w), sin(x %*% w)) / 2)
as.matrix.kitchen_fastfood <- function(x, ...) {
  validate_map(x, deep = TRUE)
  d <- x$d
  # Row j of the projections of the identity is e_j V' = column j of V.
  w <- fastfood_apply(x, diag(1, d), backend_settings(), project_only = TRUE,
                      center = rep(0, d), scale = rep(1, d), arg = "x")
  rownames(w) <- x$col_names
  w
}

# Hands the map and checked data to the C++ core, which checks the map's
# fields (types, sizes, ranges) again itself, so that it never reads out of
# bounds even for a map validate_map() has not seen.
fastfood_apply <- function(map, x, backend, project_only = FALSE,
                           center = map$center, scale = map$scale,
                           arg = "object", call = rlang::caller_env()) {
  sparse <- inherits(x, "dgCMatrix")
  # The core reads one row at a time: a dgCMatrix goes over by rows.
  if (sparse) x <- Matrix::t(x)
  out <- fastfood_features_cpp(x, sparse, map, center, scale, project_only, backend$n_threads,
                               backend$simd)
  if (is.character(out)) abort_invalid_map(arg, "kitchen_fastfood", out, call = call)
  out
}

# The number of blocks of p frequencies (SORF: three sign columns a block).
fastfood_block_count <- function(map) {
  ncol(map$signs) %/% (if (identical(map$structure, "sorf")) 3L else 1L)
}

# The title and fields print() and summary() show (map_description()).
fastfood_description <- function(x) {
  sorf <- identical(x$structure, "sorf")
  p <- nrow(x$signs)
  m <- if (x$type == "cos_sin") x$n_features / 2 else x$n_features
  n_blocks <- fastfood_block_count(x)
  last <- m - (n_blocks - 1) * p
  list(title = if (sorf) "kitchen SORF features (structured orthogonal, H D1 H D2 H D3 blocks)" else
         "kitchen Fastfood features",
       fields = c(
         kernel = kernel_label(x$kernel),
         "input dimension" = sprintf("%d (padded to %d)", x$d, p),
         features = sprintf("%d (%s)", x$n_features, x$type),
         blocks = sprintf("%d block%s of %d frequenc%s%s", n_blocks, if (n_blocks == 1) "" else "s",
                          p, if (p == 1) "y" else "ies",
                          if (last == p) "" else if (n_blocks == 1) sprintf(", cut to %d", last) else
                            sprintf(", the last cut to %d", last)),
         scaling = x$scaling))
}

# The length of a Fastfood block: d padded to a power of two.
block_length <- function(d) 2^ceiling(log2(max(d, 1)))

# Refuses the diagonals and permutations of the blocks that give m
# frequencies on d columns past max_dense_entries, blaming the larger
# factor; d NULL: not known yet.
check_block_count <- function(d, m, call = rlang::caller_env()) {
  if (is.null(d)) return(invisible())
  p <- block_length(d)
  check_map_size(4 * p * ceiling(m / p),
                 paste("The diagonals and permutations of", size_pair(d, m),
                       "(input columns x frequencies)"),
                 size_arg(d, m, "n_features"), call = call)
}
