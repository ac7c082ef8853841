# Does the default fit's error rise from D = 1000 to D = 4000 (issue 17)?
# The suite's fixed split has 8 to 230 test rows on the small data sets, so
# one or two test rows decide its ratio; here the same comparison is averaged
# over random splits of the same sizes (split seeds 1-S), with the paired
# standard error of the difference.
#   Rscript bench/defaults-d-ratio.R [splits] [sets]
suppressMessages(source("bench/defaults.R"))
args <- commandArgs(TRUE)
n_splits <- if (length(args) >= 1) as.integer(args[1]) else 20
all_sets <- load_datasets()
names(all_sets) <- vapply(all_sets, `[[`, "", "name")
set_names <- if (length(args) >= 2) strsplit(args[2], ",")[[1]] else
  c("iris", "mtcars", "BostonHousing", "Sonar", "Pima", "Ionosphere", "concrete")
load_before <- readLines("/proc/loadavg")
started <- proc.time()[["elapsed"]]
rows <- list()
for (name in set_names) {
  set <- all_sets[[name]]
  for (features in c("rff", "fastfood")) {
    errors <- t(vapply(seq_len(n_splits), function(seed) {
      split <- split_rows(nrow(set$frame), length(set$train), length(set$test), seed = seed)
      s <- set
      s$train <- split$train
      s$test <- split$test
      c(test_error(s, fit_kitchen(s, features, 1000)), test_error(s, fit_kitchen(s, features, 4000)))
    }, numeric(2)))
    difference <- errors[, 2] - errors[, 1]
    rows[[length(rows) + 1]] <- data.frame(
      data = name, map = features, splits = n_splits,
      `D=1000` = mean(errors[, 1]), `D=4000` = mean(errors[, 2]),
      ratio = mean(errors[, 2]) / mean(errors[, 1]),
      `difference (se)` = sprintf("%+.4f (%.4f)", mean(difference), stats::sd(difference) / sqrt(n_splits)),
      `4000 worse / better / tied` = sprintf("%d / %d / %d", sum(difference > 0), sum(difference < 0),
                                             sum(difference == 0)),
      check.names = FALSE)
    message(sprintf("%s %s: %.4f -> %.4f", name, features, mean(errors[, 1]), mean(errors[, 2])))
  }
}
table <- do.call(rbind, rows)
numeric_columns <- c("D=1000", "D=4000", "ratio")
table[numeric_columns] <- lapply(table[numeric_columns], three_digits)
write_result(c(
  "# Default fits at D = 1000 and D = 4000 over random splits (bench/defaults-d-ratio.R)",
  "",
  machine_description(),
  sprintf("load average before / after: %s / %s; %.0f s in all", load_before,
          readLines("/proc/loadavg"), proc.time()[["elapsed"]] - started),
  "",
  sprintf(paste("`krr_fit(y ~ ., train, features = map, n_features = D)` with every other default, as",
                "bench/defaults.R, on %d random splits of each data set's sizes (split seeds 1-%d;",
                "the suite's fixed split is seed 2007). Error: misclassification rate, or test RMSE",
                "over the test responses' standard deviation. ratio: mean error at 4000 over mean",
                "error at 1000; difference: mean of the paired differences (4000 - 1000), with its",
                "standard error."), n_splits, n_splits),
  "",
  markdown_table(table)), "defaults-d-ratio.md")
