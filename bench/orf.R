# Orthogonal random features against i.i.d. random Fourier features: the
# relative Frobenius error of Z Z' against the exact Gaussian kernel matrix
# (issue 20 target: ORF at D = 4d at most 0.8 x i.i.d. rff's), 800 points,
# d = 16, mean over 10 seeds, at D = d, 2d, 4d, 8d, 16d frequencies
# (cos_sin features, so 2D features). Data: standard normal rows; sigma =
# sqrt(d), the setting of Yu et al. (2016, figure 1), and sigma = the
# median distance. Run from the repository root:
#   Rscript bench/orf.R           # about a minute
source("bench/common.R")
library(kitchen)

n <- 800
d <- 16
seeds <- 1:10
set.seed(2016)
x <- matrix(rnorm(n * d), n, d)
median_sigma <- median(dist(x))

relative_error <- function(z, exact) norm(tcrossprod(z) - exact, "F") / norm(exact, "F")

rows <- list()
for (sigma in c(sqrt(d), median_sigma)) {
  kernel <- kernel_gaussian(sigma)
  exact <- kernel_matrix(x, kernel = kernel)
  for (multiple in c(1, 2, 4, 8, 16)) {
    D <- multiple * d
    errors <- sapply(c(FALSE, TRUE), function(orthogonal) {
      sapply(seeds, function(seed) {
        map <- rff(x, 2 * D, kernel = kernel, scale = "none", seed = seed, orthogonal = orthogonal)
        relative_error(predict(map, x), exact)
      })
    })
    rows[[length(rows) + 1]] <- sprintf("| %.2f | %d (%dd) | %.4f | %.4f | %.3f |", sigma, D, multiple,
                                        mean(errors[, 1]), mean(errors[, 2]),
                                        mean(errors[, 2]) / mean(errors[, 1]))
  }
}

load <- readLines("/proc/loadavg")
write_result(c(
  "# Orthogonal random features: kernel approximation", "",
  machine_description(), sprintf("load average at the end: %s", load), "",
  "Command: `Rscript bench/orf.R`.", "",
  sprintf("%d standard normal points, d = %d, Gaussian kernel; relative Frobenius error ||Z Z' - K||_F / ||K||_F, mean over %d seeds; D frequencies, 2D cos_sin features.", n, d, length(seeds)),
  "Target (issue 20): at D = 4d, ORF error at most 0.8 x i.i.d. rff's.", "",
  "| sigma | D | i.i.d. rff | orthogonal | ratio |", "| --- | --- | --- | --- | --- |",
  unlist(rows)), "orf.md")
