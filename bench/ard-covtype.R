# Forest CoverType with krr_fit(sigma = "ard") (issue 18): everything learned
# inside krr_fit() from the 522910 training rows (split of covtype_split()),
# the 58102 test rows used once. Run from the repository root:
#   Rscript bench/ard-covtype.R        rff, D = 5000 (long: one full pass with
#                                      D = 5000 and 5-fold CV's statistics,
#                                      about 2.5 GB)
#   Rscript bench/ard-covtype.R rbin   rbin, P = 50 (lambda by 5-fold CV with
#                                      conjugate gradients)
#   PROXY_FREQUENCIES=256 Rscript bench/ard-covtype.R   the proxy's size set by hand
#   MAPSEED=2 Rscript bench/ard-covtype.R rbin          another draw of the map (default seed 1)
# Results: bench/results/ard-covtype.md (rff), ard-covtype-rbin.md (rbin).

source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))
# PROXY_FREQUENCIES=f: the ARD proxy's frequencies per 4000 subsample rows
# (an experiment; the package's rule is 128).
if (nzchar(Sys.getenv("PROXY_FREQUENCIES"))) {
  settings <- kitchen:::ard_settings
  settings$n_frequencies <- as.integer(Sys.getenv("PROXY_FREQUENCIES"))
  utils::assignInNamespace("ard_settings", settings, "kitchen")
}
args <- commandArgs(trailingOnly = TRUE)
which_map <- match.arg(if (length(args)) args[1] else "rff", c("rff", "rbin"))
load_average <- function() scan("/proc/loadavg", n = 1, quiet = TRUE)
load_before <- load_average()
covtype <- covtype_split()
x <- covtype$x[covtype$train, ]
started <- proc.time()[["elapsed"]]
set.seed(1)
map_seed <- as.integer(Sys.getenv("MAPSEED", "1"))  # MAPSEED=s: the map's seed
map <- if (which_map == "rff") rff(x, 5000, scale = "minmax", seed = map_seed) else
  rbin(x, 50, scale = "minmax", seed = map_seed, n_threads = 2)
fit <- krr_fit(x, covtype$y[covtype$train], map, sigma = "ard", n_threads = 2, verbose = FALSE)
seconds <- proc.time()[["elapsed"]] - started
error <- misclassified(predict(fit, covtype$x[covtype$test, ], type = "class", n_threads = 2),
                       covtype$y[covtype$test])
peak <- grep("^VmHWM", readLines("/proc/self/status"), value = TRUE)
fit_relevance <- relevance(fit)
target <- if (which_map == "rff") 9.3 else 2.1
label <- if (which_map == "rff") "rff D = 5000" else "rbin P = 50"
write_result(c(
  sprintf("# CoverType, %s, krr_fit(sigma = \"ard\")", label), "", machine_description(), "",
  sprintf("Command: `%s%sRscript bench/ard-covtype.R%s`; load average %.1f before, %.1f after (machine shared with other agents).",
          if (map_seed == 1) "" else sprintf("MAPSEED=%d ", map_seed), nice_prefix(),
          if (which_map == "rff") "" else " rbin", load_before, load_average()), "",
  sprintf("Test error %.2f%% (target <= %.1f%%); whole call (map, search, final fit) %.1f min (target < 15), of which the search %.1f s.",
          100 * error, target, seconds / 60, fit$ard$time),
  sprintf("Per-column bandwidths %s: held-out error %.4f against %.4f for the map's bandwidth, on %d rows the search did not see%s.",
          if (fit$ard$kept) "kept" else "dropped", fit$ard$check[["ard"]], fit$ard$check[["isotropic"]],
          fit$ard$check_rows,
          if (isTRUE(fit$ard$searches > 1)) sprintf(" (the mean of %d searches on independent draws)", fit$ard$searches) else ""),
  if (!is.null(fit$ard$binned_check)) {
    sprintf("Binned fit, fold 1 (%d rows): error %.4f with them against %.4f for the map's one bandwidth: %s.",
            fit$ard$binned_check_rows, fit$ard$binned_check[["ard"]],
            fit$ard$binned_check[["isotropic"]], if (fit$ard$kept) "kept" else "dropped")
  },
  if (!is.null(fit$sigma_path)) c("", "Overall scale of the learned bandwidths (screened on fold 1; per_column FALSE: the map's own):", "",
                                  markdown_table(data.frame(lapply(as.data.frame(fit$sigma_path), signif, 4))),
                                  ""),
  if (!is.null(fit$ard$group_steps)) {
    steps <- fit$ard$group_steps
    sprintf("Steps on one group's bandwidths after the overall scale: %d screened on fold 1, %d taken (groups %s).",
            nrow(steps), sum(steps$taken),
            paste(sprintf("%d x %g", steps$group[steps$taken], steps$factor[steps$taken]), collapse = ", "))
  },
  if (length(fit$ard$pruned)) sprintf("Columns left out after the search (no help on the fresh rows): %s.",
                                      paste(fit$ard$pruned, collapse = ", ")),
  if (length(fit$ard$pruned_kept)) sprintf("Columns the proxy left out, kept by the binned fit's fold 1: %s.",
                                           paste(fit$ard$pruned_kept, collapse = ", ")),
  sprintf("Lambda %.3g (5-fold CV). Peak resident memory: %s.", fit$lambda, sub("^VmHWM:\\s*", "", peak)),
  if (which_map == "rbin") sprintf("Occupied bins: %d; solver: %s.", fit$map$n_features, format(fit$solver)[1]),
  sprintf("Most relevant columns: %s.",
          paste(names(utils::head(sort(fit_relevance, decreasing = TRUE), 8)), collapse = ", ")),
  # every column's relevance, for the choosing-a-map vignette's CoverType chart
  sprintf("Relevance (1 / bandwidth) of every column: %s.",
          paste(sprintf("%s %.4g", names(fit_relevance), fit_relevance), collapse = ", "))),
  if (which_map == "rff") "ard-covtype.md" else "ard-covtype-rbin.md")
