# Test error of rbin fits on CoverType at fixed bandwidths: for each sigma in
# SIGMAS (comma-separated, default 0.2,0.23,0.27,0.323,0.38,0.45), a map
# drawn with that sigma (`rbin(x, 50, scale = "minmax", sigma = s, seed =
# SEED)`, SEED default 1) on the 522,910 training rows, lambda by 5-fold CV,
# the test rows scored once. Shows the CV and test error around the
# bandwidth sigma = "auto" picks (0.32 on min-max inputs), and how far one
# draw's error moves. Run from the repository root:
#   SIGMAS=0.27,0.323 SEED=1 Rscript bench/rbin-sigma-sweep.R
source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))
covtype <- covtype_split()
x <- covtype$x; y <- covtype$y; train <- covtype$train; test <- covtype$test
x_train <- x[train, ]
seed <- as.integer(Sys.getenv("SEED", "1"))
sigmas <- as.numeric(strsplit(Sys.getenv("SIGMAS", "0.2,0.23,0.27,0.323,0.38,0.45"), ",")[[1]])
for (s in sigmas) {
  t0 <- proc.time()[[3]]
  map <- rbin(x_train, 50, scale = "minmax", sigma = s, n_threads = 2, seed = seed)
  fit <- krr_fit(x_train, y[train], map, lambda = "cv", n_threads = 2, verbose = FALSE)
  err <- mean(predict(fit, x[test, ], type = "class", n_threads = 2) != y[test])
  cat(sprintf("sigma %.3f lambda %.3g CV error %.5f test error %.3f%% (%.0f s)\n", s, fit$lambda,
              min(fit$path$cv, na.rm = TRUE), 100 * err, proc.time()[[3]] - t0))
}
