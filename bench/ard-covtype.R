# Forest CoverType with krr_fit(sigma = "ard"), rff D = 5000 (issue 18):
# everything learned inside krr_fit() from the 522910 training rows (split of
# covtype_split()), the 58102 test rows used once. Run from the repository
# root: Rscript bench/ard-covtype.R  (long: one full pass with D = 5000).
# Results: bench/results/ard-covtype.md.

source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))
covtype <- covtype_split()
x <- covtype$x[covtype$train, ]
started <- proc.time()[["elapsed"]]
set.seed(1)
fit <- krr_fit(x, covtype$y[covtype$train], rff(x, 5000, scale = "minmax", seed = 1),
               sigma = "ard", n_threads = 2, verbose = FALSE)
seconds <- proc.time()[["elapsed"]] - started
error <- misclassified(predict(fit, covtype$x[covtype$test, ], type = "class", n_threads = 2),
                       covtype$y[covtype$test])
write_result(c(
  "# CoverType, rff D = 5000, krr_fit(sigma = \"ard\")", "", machine_description(), "",
  sprintf("Test error %.2f%% (target <= 9.3%%); whole call %.1f min (target < 15), of which the search %.1f s.",
          100 * error, seconds / 60, fit$ard$time),
  sprintf("Most relevant columns: %s.",
          paste(names(utils::head(sort(relevance(fit), decreasing = TRUE), 8)), collapse = ", "))),
  "ard-covtype.md")
