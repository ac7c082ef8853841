# Plain-R references for the kernels, written straight from their formulas
# (one pair of points at a time, no shared code with the package).

ref_kernel_value <- function(r, kernel) {
  s <- kernel$sigma
  switch(kernel$name,
    gaussian = exp(-sum(r^2) / (2 * s^2)),
    laplacian = exp(-sum(abs(r)) / s),
    cauchy = prod(1 / (1 + r^2 / s^2)),
    matern = {
      nu <- kernel$nu
      t <- sqrt(2 * nu) * sqrt(sum(r^2)) / s
      if (t == 0) 1 else 2^(1 - nu) / gamma(nu) * t^nu * besselK(t, nu)
    })
}

ref_kernel_matrix <- function(x, y, kernel) {
  k <- matrix(0, nrow(x), nrow(y))
  for (i in seq_len(nrow(x))) {
    for (j in seq_len(nrow(y))) k[i, j] <- ref_kernel_value(x[i, ] - y[j, ], kernel)
  }
  k
}

# One kernel of each kind, Matern with closed forms and without.
test_kernels <- function(sigma = 1) {
  list(kernel_gaussian(sigma), kernel_laplacian(sigma), kernel_cauchy(sigma),
       kernel_matern(sigma, 0.5), kernel_matern(sigma, 1.5), kernel_matern(sigma, 2.5),
       kernel_matern(sigma, 0.8), kernel_matern(sigma, 3.7))
}

kernel_label <- function(kernel) paste(utils::capture.output(print(kernel)), collapse = "")
