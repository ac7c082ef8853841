# Is the overall scale of the bandwidths that krr_fit(sigma = "ard") learns
# on its subsample the one the full fit wants? (issue 18: rbin's per-column
# bandwidths are screened again for their scale on all rows, rff's are not.)
# CoverType (binary, the 522,910 training rows of covtype_split()), rff with
# D features and min-max scaling: the ARD fit, then the same map with every
# learned bandwidth times each factor, lambda by 5-fold CV; the test rows
# only score.
# Run from the repository root:
#   D=2048 FACTORS=0.5,0.707,1.414 Rscript bench/ard-scale.R
# Prints one line per fit (results: bench/results/ard-covtype.md).

source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))
n_features <- as.integer(Sys.getenv("D", "2048"))
factors <- as.numeric(strsplit(Sys.getenv("FACTORS", "0.5,0.707,1.414"), ",")[[1]])
covtype <- covtype_split()
x <- covtype$x[covtype$train, ]
y <- covtype$y[covtype$train]
test_error <- function(fit) {
  100 * misclassified(predict(fit, covtype$x[covtype$test, ], type = "class", n_threads = 2),
                      covtype$y[covtype$test])
}
set.seed(1)
map <- rff(x, n_features, scale = "minmax", seed = 1)
started <- proc.time()[["elapsed"]]
fit <- krr_fit(x, y, map, sigma = "ard", n_threads = 2, verbose = FALSE)
cat(sprintf("ard (factor 1): test error %.3f%%, lambda %.3g, %.0f s (search %.0f s)\n",
            test_error(fit), fit$lambda, proc.time()[["elapsed"]] - started, fit$ard$time))
for (factor in factors) {
  scaled <- kitchen:::rescale_bandwidth(fit$map, fit$map$kernel$sigma * factor)
  started <- proc.time()[["elapsed"]]
  set.seed(1)
  refit <- krr_fit(x, y, scaled, n_threads = 2, verbose = FALSE)
  cat(sprintf("factor %.3f: test error %.3f%%, lambda %.3g, %.0f s\n", factor, test_error(refit),
              refit$lambda, proc.time()[["elapsed"]] - started))
}
