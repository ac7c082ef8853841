# Explicit Sylvester-order Hadamard matrix, the reference for fwht().
hadamard <- function(n) {
  h <- matrix(1, 1, 1)
  while (nrow(h) < n) h <- rbind(cbind(h, h), cbind(h, -h))
  h
}

# Values spanning many orders of magnitude with random signs, so that any
# change in the order of floating-point operations shows in the result.
wild_values <- function(n) {
  sample(c(-1, 1), n, replace = TRUE) * exp(stats::rnorm(n, sd = 20))
}

# Runs code with the SIMD level capped at `level`.
with_simd <- function(level, code) {
  old <- options(kitchen.simd = level)
  on.exit(options(old))
  force(code)
}
