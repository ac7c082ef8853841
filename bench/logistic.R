# Kernel logistic regression (krr_fit(loss = "logistic")) against the
# least-squares fit's calibrated probabilities (predict(type = "prob") of
# the default squared loss) with the same map, on the classification data
# sets of bench/defaults.R (iris, Sonar, Pima, Ionosphere, CoverType) and the
# 7-class CoverType (CoverType7): held-out
# log-loss, accuracy and Brier score, next to kernlab's
# ksvm(prob.model = TRUE) where n <= 20,000; fit time of both kitchen fits
# side by side (medians of interleaved runs) and their peak R memory.
#
# Both kitchen fits: rff map with D features (2048 for both CoverType sets, 1000
# otherwise; bandwidth as rff() chooses it), lambda by 5-fold CV with the
# same folds (the least squares on its squared error, the logistic fit on
# its held-out log-loss), 2 threads.
#
# Run from the repository root:
#   nice -n 10 Rscript bench/logistic.R
#   KITCHEN_BENCH_COVTYPE_TRAIN=20000 sets CoverType's training rows (default
#   5,000; its test rows are 10,000), KITCHEN_BENCH_COVTYPE_D the feature
#   count of both CoverType sets (default 2048), KITCHEN_BENCH_D that of the
#   other sets (default 1000); KITCHEN_BENCH_REPEATS=3 the timed runs per fit
#   on the small sets (both CoverType sets: 1); KITCHEN_BENCH_SETS=iris,Sonar
#   the data sets to run (default all six but Satellite); KITCHEN_BENCH_OUTPUT=name writes
#   bench/results/name.md instead of logistic.md, which keeps the notes
#   written under earlier runs' tables.
# The shared CoverType file is the binary version (class 2 against the rest);
# the 7-class one is CoverType7, Blackard and Dean's split (11,340 training,
# 3,780 test rows, D = KITCHEN_BENCH_COVTYPE_D), fetched once from the CRAN
# archive (load_covtype7() in bench/common.R). The other multinomial cases
# are iris (3 classes) and, named in KITCHEN_BENCH_SETS, mlbench's Satellite
# (6 classes, 4435 training / 2000 test rows).
# Needs mlbench, modeldata, kernlab (as bench/defaults.R).

source(file.path("bench", "defaults.R"))  # data sets and model_design(); its main part does not run

covtype_train <- as.integer(Sys.getenv("KITCHEN_BENCH_COVTYPE_TRAIN", "5000"))
repeats <- as.integer(Sys.getenv("KITCHEN_BENCH_REPEATS", "3"))
covtype_d <- as.integer(Sys.getenv("KITCHEN_BENCH_COVTYPE_D", "2048"))
small_d <- as.integer(Sys.getenv("KITCHEN_BENCH_D", "1000"))
chosen_sets <- strsplit(Sys.getenv("KITCHEN_BENCH_SETS", "iris,Sonar,Pima,Ionosphere,CoverType,CoverType7"),
                        ",")[[1]]
output <- Sys.getenv("KITCHEN_BENCH_OUTPUT", "logistic")

# mlbench's Satellite (6 classes, 6435 rows): the multi-class case at scale
# here, as the 7-class CoverType is not on this machine. Its own row order
# splits it: the first 4435 rows train, the last 2000 test (as the UCI
# Statlog split).
satellite_set <- function() {
  env <- new.env()
  utils::data("Satellite", package = "mlbench", envir = env)
  list(name = "Satellite", frame = env$Satellite, response = "classes", train = seq_len(4435),
       test = 4435 + seq_len(2000))
}

class_sets <- function() {
  sets <- if (length(setdiff(chosen_sets, c("Satellite", "CoverType7")))) load_datasets() else list()
  names(sets) <- vapply(sets, `[[`, "", "name")
  if ("Satellite" %in% chosen_sets) sets[["Satellite"]] <- satellite_set()
  if ("CoverType7" %in% chosen_sets) {
    sets[["CoverType7"]] <- c(list(name = "CoverType7", response = "V55"), load_covtype7())
  }
  sets <- sets[chosen_sets]
  cover <- sets[["CoverType"]]
  if (is.null(cover)) return(sets)
  set.seed(7)
  rows <- sample(c(cover$train, cover$test), covtype_train + 10000)
  cover$train <- rows[seq_len(covtype_train)]
  cover$test <- rows[-seq_len(covtype_train)]
  sets[["CoverType"]] <- cover
  sets
}

scores_of <- function(prob, y) {
  prob <- as.matrix(prob)[, levels(y), drop = FALSE]
  onehot <- outer(as.integer(y), seq_along(levels(y)), "==") * 1
  picked <- pmax(prob[cbind(seq_along(y), as.integer(y))], 1e-15)
  c(log_loss = -mean(log(picked)),
    accuracy = mean(levels(y)[max.col(prob, "first")] == as.character(y)),
    brier = mean(rowSums((prob - onehot)^2)))
}

# Seconds and peak R memory (MB, Ncells + Vcells "max used" past the start)
# of one call.
measured <- function(f) {
  invisible(gc(reset = TRUE))
  before <- sum(gc()[, 2])
  started <- proc.time()[["elapsed"]]
  value <- f()
  seconds <- proc.time()[["elapsed"]] - started
  peak <- sum(gc()[, 6]) - before
  list(value = value, seconds = seconds, memory = peak)
}

run_set <- function(set) {
  design <- model_design(set)
  # model.matrix() can repeat a name (Ionosphere's V1 factor and V11); maps match columns by name.
  colnames(design$train) <- colnames(design$test) <- make.unique(colnames(design$train))
  y_train <- set$frame[set$train, set$response]
  y_test <- set$frame[set$test, set$response]
  large <- set$name %in% c("CoverType", "CoverType7")
  d <- if (large) covtype_d else small_d
  map <- rff(design$train, d, seed = 1)
  folds <- local({ set.seed(11); sample(rep_len(1:5, length(set$train))) })
  fit_with <- function(loss) function() {
    krr_fit(design$train, y_train, map, loss = loss, folds = folds, n_threads = threads,
            verbose = FALSE)
  }
  runs <- if (large) 1 else repeats
  times <- matrix(NA_real_, runs, 2, dimnames = list(NULL, c("squared", "logistic")))
  memory <- times
  for (r in seq_len(runs)) {  # interleaved, so that both see the same load
    for (loss in c("squared", "logistic")) {
      m <- measured(fit_with(loss))
      times[r, loss] <- m$seconds
      memory[r, loss] <- m$memory
      if (loss == "squared") squared <- m$value else logistic <- m$value
    }
  }
  rows <- list(
    data.frame(method = "least squares, calibrated", t(scores_of(
      predict(squared, design$test, type = "prob", n_threads = threads), y_test))),
    data.frame(method = "logistic", t(scores_of(
      predict(logistic, design$test, type = "prob", n_threads = threads), y_test))))
  if (length(set$train) <= 20000) {
    set.seed(1)
    svm <- measured(function() {
      kernlab::ksvm(design$train, y_train, prob.model = TRUE)
    })
    prob <- kernlab::predict(svm$value, design$test, type = "probabilities")
    rows[[3]] <- data.frame(method = "ksvm(prob.model = TRUE)", t(scores_of(prob, y_test)))
  }
  out <- do.call(rbind, rows)
  out$seconds <- c(stats::median(times[, "squared"]), stats::median(times[, "logistic"]),
                   if (nrow(out) == 3) svm$seconds)
  out$memory_mb <- c(stats::median(memory[, "squared"]), stats::median(memory[, "logistic"]),
                     if (nrow(out) == 3) svm$memory)
  out$time_ratio <- c(NA, stats::median(times[, "logistic"] / times[, "squared"]), NA)[seq_len(nrow(out))]
  cbind(data = set$name, n_train = length(set$train), n_test = length(set$test),
        classes = nlevels(y_train), D = d, out,
        lambda = c(squared$lambda, logistic$lambda, NA)[seq_len(nrow(out))],
        passes = c(NA, logistic$logistic$passes, NA)[seq_len(nrow(out))])
}

if (sys.nframe() == 0L) {
  load_before <- readLines("/proc/loadavg")
  sets <- class_sets()
  results <- do.call(rbind, lapply(sets, function(set) {
    message(sprintf("%s: %d training, %d test rows", set$name, length(set$train), length(set$test)))
    out <- run_set(set)
    print(out)
    out
  }))
  fmt <- function(v, digits = 4) ifelse(is.na(v), "-", formatC(v, digits = digits, format = "fg"))
  table <- c("| data | n train / test | K | D | method | log-loss | accuracy | Brier | fit s | logistic / LS time | peak MB | lambda |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|",
             sprintf("| %s | %d / %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |",
                     results$data, results$n_train, results$n_test, results$classes, results$D,
                     results$method, fmt(results$log_loss), fmt(results$accuracy),
                     fmt(results$brier), fmt(results$seconds, 3), fmt(results$time_ratio, 3),
                     fmt(results$memory_mb, 3), fmt(results$lambda, 3)))
  write_result(c("# Kernel logistic regression against calibrated least squares", "",
                 sprintf("Command: `KITCHEN_BENCH_D=%d KITCHEN_BENCH_COVTYPE_D=%d KITCHEN_BENCH_COVTYPE_TRAIN=%d KITCHEN_BENCH_REPEATS=%d KITCHEN_BENCH_SETS=%s %sRscript bench/logistic.R`",
                         small_d, covtype_d, covtype_train, repeats, paste(chosen_sets, collapse = ","),
                         nice_prefix()), "",
                 machine_description(),
                 sprintf("load average before / after: %s / %s", load_before,
                         readLines("/proc/loadavg")), "",
                 "Held-out log-loss, accuracy and Brier score (mean over rows of sum_k (p_k - y_k)^2).",
                 "Fit seconds: medians of interleaved runs (CoverType: one run), 2 threads;",
                 "peak MB: R heap (gc() max used) above the start of the fit.", "",
                 table), paste0(output, ".md"))
}
