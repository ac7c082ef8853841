# Kernel logistic regression on random binning maps (matrix-free Newton-CG,
# R/krr_binned_logistic.R) against the least-squares rbin fit on the same
# map and folds: fit time, held-out accuracy, the logistic fit's log-loss
# and Brier score, Newton steps and CG iterations, and the peak resident
# memory of the process (VmHWM: run one loss per process to compare).
# Least-squares rbin fits give no probabilities (no calibration for rbin
# maps), so only accuracy is compared.
#
# Data: CoverType (binary, the shared file: class 2 against the rest;
# KITCHEN_BENCH_ROWS training rows of its 522,910, default 50,000; 20,000
# test rows) with rbin(x, 50, sigma = 1.39) (the bandwidth bench/rbin.R's
# sigma = "auto" chose on all rows); Satellite (mlbench, 6 classes, a
# random 4435 / 2000 split) with rbin(x, 50) at the median-distance
# bandwidth / 4 (about where least squares' sigma = "auto" stops).
# lambda by 5-fold CV, the same random folds for both fits; 2 threads.
#
# Run from the repository root, one loss per process for the memory figures:
#   KITCHEN_BENCH_SETS=CoverType KITCHEN_BENCH_LOSSES=squared nice -n 10 Rscript bench/logistic-rbin.R
#   KITCHEN_BENCH_SETS=CoverType KITCHEN_BENCH_LOSSES=logistic nice -n 10 Rscript bench/logistic-rbin.R
# or both losses interleaved in one process (KITCHEN_BENCH_LOSSES=squared,logistic,
# the default) for the time ratio.

source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))

sets <- strsplit(Sys.getenv("KITCHEN_BENCH_SETS", "CoverType,Satellite"), ",")[[1]]
losses <- strsplit(Sys.getenv("KITCHEN_BENCH_LOSSES", "squared,logistic"), ",")[[1]]
rows <- as.integer(Sys.getenv("KITCHEN_BENCH_ROWS", "50000"))
threads <- 2

peak_mb <- function() {
  status <- readLines("/proc/self/status")
  as.numeric(sub("[^0-9]*([0-9]+).*", "\\1", grep("^VmHWM", status, value = TRUE))) / 1024
}

load_set <- function(name) {
  if (name == "CoverType") {
    cov <- covtype_split()
    train <- cov$train[seq_len(rows)]
    test <- cov$test[seq_len(20000)]
    x_train <- cov$x[train, ]
    return(list(name = name, x_train = x_train, y_train = cov$y[train], x_test = cov$x[test, ],
                y_test = cov$y[test], map = rbin(x_train, 50, sigma = 1.39, seed = 1, n_threads = threads)))
  }
  env <- new.env()
  utils::data("Satellite", package = "mlbench", envir = env)
  x <- as.matrix(env$Satellite[, -37])
  y <- env$Satellite$classes
  set.seed(1)
  train <- sample(nrow(x), 4435)
  test <- setdiff(seq_len(nrow(x)), train)
  median_map <- rbin(x[train, ], 50, seed = 1, n_threads = threads)
  list(name = name, x_train = x[train, ], y_train = y[train], x_test = x[test, ], y_test = y[test],
       map = rbin(x[train, ], 50, sigma = median_map$kernel$sigma / 4, seed = 1, n_threads = threads))
}

run <- function(set) {
  set.seed(11)
  folds <- sample(rep_len(1:5, length(set$y_train)))
  out <- list()
  for (loss in losses) {
    before <- peak_mb()
    began <- proc.time()[["elapsed"]]
    fit <- krr_fit(set$x_train, set$y_train, set$map, loss = loss, folds = folds,
                   n_threads = threads, verbose = FALSE)
    seconds <- proc.time()[["elapsed"]] - began
    accuracy <- mean(predict(fit, set$x_test, type = "class", n_threads = threads) == set$y_test)
    row <- data.frame(data = set$name, n_train = length(set$y_train), n_test = length(set$y_test),
                      classes = nlevels(set$y_train), bins = set$map$n_features, loss = loss,
                      seconds = seconds, accuracy = accuracy, log_loss = NA_real_, brier = NA_real_,
                      lambda = fit$lambda, candidates = nrow(fit$path),
                      newton_steps = NA_integer_, cg_iterations = NA_integer_,
                      peak_before_mb = before, peak_mb = peak_mb())
    if (loss == "logistic") {
      prob <- predict(fit, set$x_test, type = "prob", n_threads = threads)
      onehot <- outer(as.integer(set$y_test), seq_len(ncol(prob)), "==") * 1
      row$log_loss <- -mean(log(pmax(prob[cbind(seq_along(set$y_test), as.integer(set$y_test))], 1e-15)))
      row$brier <- mean(rowSums((prob - onehot)^2))
      row$newton_steps <- fit$logistic$passes
      row$cg_iterations <- fit$logistic$cg_iterations
    }
    print(row, row.names = FALSE)
    out[[loss]] <- row
  }
  do.call(rbind, out)
}

load_before <- readLines("/proc/loadavg")
results <- do.call(rbind, lapply(sets, function(name) run(load_set(name))))
print(results, row.names = FALSE)
cat("load average before / after:", load_before, "/", readLines("/proc/loadavg"), "\n")
