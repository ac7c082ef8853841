# Forest CoverType with krr_fit(sigma = "ard"), rff D = 5000 (issue 18):
# everything learned inside krr_fit() from the 522910 training rows (split of
# covtype_split()), the 58102 test rows used once. Run from the repository
# root: Rscript bench/ard-covtype.R  (long: one full pass with D = 5000, and
# 5-fold CV's statistics: about 2.5 GB).
# Results: bench/results/ard-covtype.md.

source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))
load_average <- function() scan("/proc/loadavg", n = 1, quiet = TRUE)
load_before <- load_average()
covtype <- covtype_split()
x <- covtype$x[covtype$train, ]
started <- proc.time()[["elapsed"]]
set.seed(1)
fit <- krr_fit(x, covtype$y[covtype$train], rff(x, 5000, scale = "minmax", seed = 1),
               sigma = "ard", n_threads = 2, verbose = FALSE)
seconds <- proc.time()[["elapsed"]] - started
error <- misclassified(predict(fit, covtype$x[covtype$test, ], type = "class", n_threads = 2),
                       covtype$y[covtype$test])
peak <- grep("^VmHWM", readLines("/proc/self/status"), value = TRUE)
write_result(c(
  "# CoverType, rff D = 5000, krr_fit(sigma = \"ard\")", "", machine_description(), "",
  sprintf("Command: `nice -n 10 Rscript bench/ard-covtype.R`; load average %.1f before, %.1f after (machine shared with other agents).",
          load_before, load_average()), "",
  sprintf("Test error %.2f%% (target <= 9.3%%); whole call %.1f min (target < 15), of which the search %.1f s.",
          100 * error, seconds / 60, fit$ard$time),
  sprintf("Per-column bandwidths %s: held-out error %.4f against %.4f for the map's bandwidth, on %d rows the search did not see.",
          if (fit$ard$kept) "kept" else "dropped", fit$ard$check[["ard"]], fit$ard$check[["isotropic"]],
          fit$ard$check_rows),
  sprintf("Lambda %.3g (5-fold CV). Peak resident memory: %s.", fit$lambda, sub("^VmHWM:\\s*", "", peak)),
  sprintf("Most relevant columns: %s.",
          paste(names(utils::head(sort(relevance(fit), decreasing = TRUE), 8)), collapse = ", "))),
  "ard-covtype.md")
