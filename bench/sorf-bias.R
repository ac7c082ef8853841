# The bias of SORF's kernel estimate (fastfood(structure = "sorf")) at small
# input dimension, against plain Fastfood's: 6 points (Gaussian rows
# rescaled so that kernel values lie in 0.1-0.65), Gaussian kernel, sigma 1,
# D = 1024, scale = "none"; the mean over 60 map seeds of z(x)'z(y) - k(x, y)
# for each pair, its largest absolute value, and that value over its
# standard error (Monte Carlo noise alone gives about 2). Run from the
# repository root: Rscript bench/sorf-bias.R; results in
# bench/results/sorf-bias.md.
source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))
seeds <- 60
rows <- list()
for (d in c(5, 8, 16, 32, 64)) {
  set.seed(3)
  x <- matrix(rnorm(6 * d), 6, d) / sqrt(d) * 1.2  # distances of order 1
  exact <- kernel_matrix(x, kernel = kernel_gaussian(1))
  pairs <- upper.tri(exact)
  for (structure in c("fastfood", "sorf")) {
    errors <- vapply(seq_len(seeds), function(s) {
      z <- predict(fastfood(x, 1024, sigma = 1, scale = "none", seed = s, structure = structure),
                   x, n_threads = 1)
      (tcrossprod(z) - exact)[pairs]
    }, numeric(sum(pairs)))
    bias <- rowMeans(errors)
    se <- apply(errors, 1, stats::sd) / sqrt(seeds)
    rows[[length(rows) + 1]] <- sprintf("| %d | %s | %.4f | %.1f | %.2f-%.2f |", d, structure,
                                        max(abs(bias)), max(abs(bias / se)),
                                        min(exact[pairs]), max(exact[pairs]))
  }
}
write_result(c("# SORF's kernel bias at small input dimension (bench/sorf-bias.R)", "",
               machine_description(), "",
               "| d | structure | largest mean error over 60 seeds | over its standard error | kernel values |",
               "| --- | --- | --- | --- | --- |", unlist(rows)), "sorf-bias.md")
