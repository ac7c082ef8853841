# Held-out log-loss of kernel logistic regression against the least-squares
# fit's calibrated probabilities over several random train / test splits
# (the fixed split of bench/logistic.R has 50 to 192 test rows: one or two
# misclassified rows move its log-loss by more than the methods differ).
# Each split: rows drawn at random with the sizes of bench/logistic.R, an
# rff map of D features drawn with the split's seed (median-distance
# bandwidth, as rff() chooses it), random 5 folds shared by both fits,
# lambda by CV (least squares: squared error, then the calibration;
# logistic: held-out log-loss). KITCHEN_BENCH_SIGMA=auto gives both fits
# sigma = "auto" (bandwidth candidates 1/4 .. 4 times the map's, each
# fit scoring them by its own CV criterion).
#
# Run from the repository root:
#   KITCHEN_BENCH_SPLITS=10 KITCHEN_BENCH_D=300 KITCHEN_BENCH_SETS=iris,Sonar,Pima,Ionosphere \
#     nice -n 10 Rscript bench/logistic-splits.R
# CoverType (binary, KITCHEN_BENCH_COVTYPE_TRAIN rows from its 522,910, 10,000 test rows)
# and Satellite (mlbench, 6 classes: 4435 training, 2000 test rows) may be named in SETS.
# Per-split rows go to KITCHEN_BENCH_OUT (a CSV file), the summary to stdout.

source(file.path("bench", "logistic.R"))  # class_sets(), scores_of(); its main part does not run

splits <- as.integer(Sys.getenv("KITCHEN_BENCH_SPLITS", "10"))
sigma_mode <- Sys.getenv("KITCHEN_BENCH_SIGMA", "")
out_file <- Sys.getenv("KITCHEN_BENCH_OUT", "")

split_sets <- function() class_sets()

one_split <- function(set, s) {
  all_rows <- c(set$train, set$test)
  set.seed(1000 + s)
  rows <- sample(all_rows)
  set$train <- rows[seq_along(set$train)]
  set$test <- rows[length(set$train) + seq_along(set$test)]
  design <- model_design(set)
  colnames(design$train) <- colnames(design$test) <- make.unique(colnames(design$train))
  y_train <- droplevels(set$frame[set$train, set$response])
  y_test <- factor(set$frame[set$test, set$response], levels = levels(y_train))
  keep <- !is.na(y_test)
  d <- if (set$name == "CoverType") covtype_d else small_d
  map <- rff(design$train, d, seed = s)
  folds <- sample(rep_len(1:5, length(set$train)))
  sigma <- if (identical(sigma_mode, "auto")) "auto" else NULL
  rows <- list()
  for (loss in c("squared", "logistic")) {
    began <- proc.time()[["elapsed"]]
    fit <- krr_fit(design$train, y_train, map, loss = loss, folds = folds, sigma = sigma,
                   n_threads = threads, verbose = FALSE)
    seconds <- proc.time()[["elapsed"]] - began
    prob <- predict(fit, design$test[keep, , drop = FALSE], type = "prob", n_threads = threads)
    best <- which(fit$path$lambda == fit$lambda)
    rows[[loss]] <- data.frame(data = set$name, split = s, method = loss, t(scores_of(prob, y_test[keep])),
                               seconds = seconds, lambda = fit$lambda,
                               lambda_rank = best, path_length = nrow(fit$path),
                               sigma = fit$map$kernel$sigma[1])
  }
  do.call(rbind, rows)
}

if (sys.nframe() == 0L) {
  load_before <- readLines("/proc/loadavg")
  sets <- split_sets()
  results <- NULL
  for (set in sets) {
    for (s in seq_len(splits)) {
      out <- one_split(set, s)
      print(out, row.names = FALSE)
      results <- rbind(results, out)
      if (nzchar(out_file)) utils::write.csv(results, out_file, row.names = FALSE)
    }
  }
  cat("load average before / after:", load_before, "/", readLines("/proc/loadavg"), "\n")
  wide <- reshape(results[c("data", "split", "method", "log_loss", "accuracy")],
                  idvar = c("data", "split"), timevar = "method", direction = "wide")
  summary_rows <- lapply(split(wide, wide$data), function(w) {
    diff <- w$log_loss.logistic - w$log_loss.squared
    data.frame(data = w$data[1], splits = nrow(w),
               ls_log_loss = sprintf("%.4f (%.4f)", mean(w$log_loss.squared), stats::sd(w$log_loss.squared)),
               logistic_log_loss = sprintf("%.4f (%.4f)", mean(w$log_loss.logistic), stats::sd(w$log_loss.logistic)),
               difference = sprintf("%+.4f (se %.4f)", mean(diff), stats::sd(diff) / sqrt(length(diff))),
               logistic_lower = sprintf("%d of %d", sum(diff < 0), length(diff)),
               ls_accuracy = sprintf("%.4f", mean(w$accuracy.squared)),
               logistic_accuracy = sprintf("%.4f", mean(w$accuracy.logistic)))
  })
  print(do.call(rbind, summary_rows), row.names = FALSE)
}
