# Orthogonal random features (Yu, Suresh, Choromanski, Holtmann-Rice and
# Kumar, 2016): frequencies in blocks of d orthogonal directions, each with
# an independent length from the kernel's radial law. A radial spectral law
# is a uniform direction times an independent length, and each column of a
# Haar-distributed orthogonal matrix is a uniform direction: every frequency
# keeps its law (so features stay unbiased) while those of a block are
# exactly orthogonal, which lowers the variance of the kernel estimate.

# The kernels whose spectral law is radial (a function of ||w||_2 only).
radial_kernels <- c("gaussian", "matern")

check_orthogonal_kernel <- function(kernel, arg, call = rlang::caller_env()) {
  if (!kernel$name %in% radial_kernels) {
    abort_arg(c("{.code {arg} = TRUE} needs a radial kernel ({.val {radial_kernels}}), not the {kernel$name} kernel.",
                i = "The {kernel$name} kernel's spectral law is not a function of the frequency's length, so orthogonal directions would change the kernel.",
                i = "Use {.code {arg} = FALSE} for it."),
              call = call)
  }
  invisible(kernel)
}

# A d x m matrix of frequencies at sigma = 1: ceiling(m / d) orthogonal
# blocks, the last one cut to m columns. Uses R's random stream.
orthogonal_spectral_sample <- function(kernel, d, m) {
  n_blocks <- ceiling(m / d)
  blocks <- lapply(seq_len(n_blocks), function(b) haar_orthogonal(d))
  directions <- do.call(cbind, blocks)[, seq_len(m), drop = FALSE]
  # Lengths from the radial law (radial_sample(), fastfood.R): chi(d) for
  # the Gaussian kernel; for the Matern kernel, whose law is a multivariate
  # t with 2 nu degrees of freedom, chi(d) times sqrt(2 nu / chi^2(2 nu)).
  directions * rep(radial_sample(kernel, d, m), each = d)
}

# A d x d orthogonal matrix from the Haar law: Q of the QR decomposition of
# a Gaussian matrix, its columns' signs set by the signs of R's diagonal
# (without that, Q depends on the QR algorithm's sign convention and is not
# uniformly distributed; Mezzadri 2007).
haar_orthogonal <- function(d) {
  decomposition <- qr(matrix(stats::rnorm(d * d), d, d))
  signs <- sign(diag(qr.R(decomposition)))
  signs[signs == 0] <- 1
  qr.Q(decomposition) * rep(signs, each = d)
}
