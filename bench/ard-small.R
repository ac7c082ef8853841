# sigma = "ard" against the isotropic default on the defaults suite's data
# sets of fewer than 5000 training rows (bench/defaults.R), where ARD's
# held-out check has no fresh rows and cross-fits the subsample (R/ard.R),
# over map seeds 1-5 (set.seed(s) before each fit, as bench/defaults.R
# does with seed 1): each fit's test error with and without "ard", how
# often "ard" is worse by more than 1% relative, and the geometric mean of
# the ratios. One fixed split per data set, so a ratio moves by whole test
# rows (Ionosphere: 91, one row is 1/91).
#   Rscript bench/ard-small.R                    # rff, D = 300
#   KITCHEN_BENCH_MAP=fastfood KITCHEN_BENCH_D=1000 Rscript bench/ard-small.R
#   KITCHEN_BENCH_SETS="BostonHousing,Ionosphere" limits the data sets
# Results: bench/results/ard-small.md (by hand, with the build and machine).
suppressMessages(source(file.path("bench", "defaults.R")))
features <- Sys.getenv("KITCHEN_BENCH_MAP", "rff")
D <- as.numeric(Sys.getenv("KITCHEN_BENCH_D", "300"))
sets <- Filter(function(set) {
  length(set$train) < 5000 && (!length(only_sets) || set$name %in% only_sets)
}, load_datasets())
cat(sprintf("kitchen %s from %s; %s D = %d; %s\n", utils::packageVersion("kitchen"),
            find.package("kitchen"), features, D, extSoftVersion()[["BLAS"]]))
rows <- list()
for (set in sets) {
  for (seed in 1:5) {
    fit_error <- function(...) {
      set.seed(seed)
      fit <- krr_fit(formula_of(set), set$frame[set$train, ], features = features, n_features = D,
                     n_threads = threads, verbose = FALSE, ...)
      type <- if (is_class(set)) "class" else "response"
      list(error = test_error(set, stats::predict(fit, set$frame[set$test, ], type = type,
                                                  n_threads = threads)),
           ard = fit$ard)
    }
    isotropic <- fit_error()
    ard <- fit_error(sigma = "ard")
    row <- data.frame(data = set$name, seed = seed, ard = ard$error, isotropic = isotropic$error,
                      ratio = ard$error / isotropic$error, kept = ard$ard$kept,
                      search_seconds = ard$ard$time)
    cat(sprintf("%-14s seed %d: ard %.4f, isotropic %.4f, ratio %.3f (%s, search %.1f s)\n",
                set$name, seed, row$ard, row$isotropic, row$ratio,
                if (row$kept) "kept" else "dropped", row$search_seconds))
    rows[[length(rows) + 1]] <- row
  }
}
all <- do.call(rbind, rows)
cat(sprintf("%d fits: worse by more than 1%% in %d (worst %.3f), better by more than 1%% in %d; geometric mean ratio %.4f\n",
            nrow(all), sum(all$ratio > 1.01), max(all$ratio), sum(all$ratio < 0.99),
            exp(mean(log(all$ratio)))))
