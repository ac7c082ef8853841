# Does krr_fit() with every default give errors a user can trust? A suite of
# real data sets (regression and classification, 100 to 100,000 training
# rows, factor columns, heavy tails, outliers, irrelevant columns), each
# with a fixed split, on which kitchen's defaults (formula interface, rff
# and fastfood with 300, 1000 and 4000 features, rbin with its default 100
# grids) are compared with the linear model (lm / glm / nnet::multinom),
# ranger and kernlab::ksvm with their defaults, exact kernel ridge with
# sigma and lambda chosen by CV, and predicting the mean / majority class.
# Then the targets of the issue "Defaults a user can trust": iris and mtcars
# over 5 splits, CPU on raw inputs over 5 map seeds, and (full mode) the
# cost of the default fit on bench/krr.R's problem against lambda = "gcv".
#
# Run from the repository root:
#   Rscript bench/defaults.R            # full: about 40 min on 2 free cores
#   Rscript bench/defaults.R --quick    # or KITCHEN_BENCH_QUICK=1: D = 300
#     and 1000, CoverType on 20,000 training rows, no cost section
#   KITCHEN_BENCH_FEATURES=300,1000,4000 sets the feature counts, and
#   --cost adds the cost section to a quick run; KITCHEN_BENCH_OUTPUT=name
#   writes bench/results/name.md and name.png instead of defaults.*;
#   KITCHEN_BENCH_MAPS=rff,fastfood,rbin (the default) chooses the maps;
#   KITCHEN_BENCH_SETS="CPU raw,house_16H" runs only those data sets (and not
#   the repeated splits and seeds)
# KITCHEN_BENCH_ARGS='sigma = "ard"' adds arguments to every kitchen fit (to
# compare a non-default choice with the defaults on the whole suite).
# KITCHEN_BENCH_CACHE=dir keeps the reference methods' results (everything
# but kitchen) in dir, so that a re-run after changing kitchen refits only
# kitchen. Results: bench/results/defaults.md and defaults.png.
# Needs mlbench, modeldata, ranger, kernlab (Debian: r-cran-*), nnet, MASS.

source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))

quick <- "--quick" %in% commandArgs(TRUE) || nzchar(Sys.getenv("KITCHEN_BENCH_QUICK"))
feature_counts <- if (quick) c(300, 1000) else c(300, 1000, 4000)
if (nzchar(Sys.getenv("KITCHEN_BENCH_FEATURES"))) {
  feature_counts <- as.numeric(strsplit(Sys.getenv("KITCHEN_BENCH_FEATURES"), ",")[[1]])
}
with_cost <- !quick || "--cost" %in% commandArgs(TRUE)
output <- Sys.getenv("KITCHEN_BENCH_OUTPUT", "defaults")
maps <- strsplit(Sys.getenv("KITCHEN_BENCH_MAPS", "rff,fastfood,rbin"), ",")[[1]]
only_sets <- strsplit(Sys.getenv("KITCHEN_BENCH_SETS"), ",")[[1]]
with_targets <- !length(only_sets)
extra_args <- eval(parse(text = sprintf("list(%s)", Sys.getenv("KITCHEN_BENCH_ARGS"))))
threads <- 2

# --- Data sets: list(name, frame, response, train rows, test rows) -----------

# Factor levels with fewer than `min_rows` rows in the whole data set are
# merged into "other", so that a fixed split never meets a level in the
# test rows that its training rows lack (lm and model.frame refuse that).
lump_rare_levels <- function(frame, min_rows = 20) {
  for (j in names(frame)) {
    column <- frame[[j]]
    if (is.factor(column)) {
      counts <- table(column)
      rare <- names(counts)[counts < min_rows]
      if (length(rare)) {
        levels(column)[levels(column) %in% rare] <- "other"
        frame[[j]] <- droplevels(column)
      }
    }
  }
  frame[vapply(frame, function(col) length(unique(col)) > 1, TRUE)]
}

dataset <- function(name, frame, response, n_train, note, n_test = nrow(frame) - n_train) {
  frame <- lump_rare_levels(as.data.frame(frame))
  names(frame) <- make.names(names(frame), unique = TRUE)
  response <- make.names(response)
  split <- split_rows(nrow(frame), n_train, n_test)
  list(name = name, frame = frame, response = response, train = split$train, test = split$test,
       note = note)
}

load_datasets <- function() {
  env <- new.env()
  utils::data(list = c("BostonHousing", "Sonar", "PimaIndiansDiabetes", "Ionosphere"),
              package = "mlbench", envir = env)
  utils::data(list = c("ames", "concrete"), package = "modeldata", envir = env)
  cpu <- load_cpu()
  covtype <- local({
    e <- new.env()
    load(shared_data("covtype.RData"), envir = e)
    x <- e$covtype.libsvm$X
    colnames(x) <- paste0("x", seq_len(ncol(x)))
    data.frame(x, cover = factor(e$covtype.libsvm$y))
  })
  covtype_train <- if (quick) 20000 else 100000
  list(
    dataset("iris", datasets::iris, "Species", 100, "3 classes"),
    dataset("mtcars", datasets::mtcars, "mpg", 24, "24 training rows"),
    dataset("BostonHousing", env$BostonHousing, "medv", 400, "factor chas, skewed crim"),
    dataset("Sonar", env$Sonar, "Class", 150, "60 correlated columns, 150 rows"),
    dataset("Pima", env$PimaIndiansDiabetes, "diabetes", 576, "zeros for missing values (outliers)"),
    # Factor V1 renamed: its dummy column "V11" would repeat the name of V11,
    # which krr_fit() refuses (names match new data's columns).
    dataset("Ionosphere", stats::setNames(env$Ionosphere, sub("^V1$", "V1f", names(env$Ionosphere))),
            "Class", 260, "factor V1 (renamed V1f), constant V2 dropped"),
    dataset("ames", env$ames, "Sale_Price", 2200, "40 factor columns, heavy-tailed price and areas"),
    dataset("concrete", env$concrete, "compressive_strength", 800, "duplicated rows, skewed ages"),
    dataset("wine red", data.frame(load_wine("red")$x, quality = load_wine("red")$y), "quality",
            1200, "discrete response"),
    dataset("wine white", data.frame(load_wine("white")$x, quality = load_wine("white")$y),
            "quality", 3700, "discrete response, outlying rows"),
    dataset("Parkinsons", data.frame(load_parkinsons()$x, total_UPDRS = load_parkinsons()$y),
            "total_UPDRS", 4700, "subjects repeated across the split"),
    dataset("CPU raw", data.frame(cpu$x, usr = cpu$y), "usr", 6554,
            "raw inputs: heavy tails, zero-inflated columns"),
    dataset("house_16H", data.frame(load_census()$x, target = load_census()$y), "target", 18186,
            "heavy-tailed price and ratios"),
    dataset("CoverType", covtype, "cover", covtype_train,
            sprintf("binary; %s training rows of 522,910 (subsample), 20,000 test rows",
                    format(covtype_train, big.mark = ",")), n_test = 20000))
}

# --- Methods: each returns test predictions (numbers or a factor) ------------

is_class <- function(set) is.factor(set$frame[[set$response]])
formula_of <- function(set) stats::as.formula(paste(set$response, "~ ."))

test_error <- function(set, yhat) {
  y <- set$frame[set$test, set$response]
  if (is_class(set)) return(misclassified(yhat, y))
  # RMSE relative to the test spread: 1 is as good as the mean, 0 perfect.
  rmse(yhat, y) / stats::sd(y)
}

fit_baseline <- function(set) {
  y <- set$frame[set$train, set$response]
  n <- length(set$test)
  if (is_class(set)) return(factor(rep(names(which.max(table(y))), n), levels = levels(y)))
  rep(mean(y), n)
}

fit_linear <- function(set) {
  train <- set$frame[set$train, ]
  test <- set$frame[set$test, ]
  y <- train[[set$response]]
  if (!is_class(set)) {
    return(suppressWarnings(stats::predict(stats::lm(formula_of(set), train), test)))
  }
  if (nlevels(y) == 2) {
    fit <- suppressWarnings(stats::glm(formula_of(set), stats::binomial(), train))
    p <- suppressWarnings(stats::predict(fit, test, type = "response"))
    return(factor(levels(y)[1 + (p > 0.5)], levels = levels(y)))
  }
  fit <- nnet::multinom(formula_of(set), train, trace = FALSE, MaxNWts = 1e5)
  stats::predict(fit, test)
}

fit_ranger <- function(set) {
  fit <- ranger::ranger(formula_of(set), set$frame[set$train, ], num.threads = threads, seed = 1)
  stats::predict(fit, set$frame[set$test, ], num.threads = threads)$predictions
}

fit_ksvm <- function(set) {
  set.seed(1)
  fit <- suppressMessages(kernlab::ksvm(formula_of(set), data = set$frame[set$train, ]))
  out <- kernlab::predict(fit, set$frame[set$test, ])
  if (is_class(set)) out else drop(out)
}

# Exact kernel ridge regression on the standardised design (the rescaling
# kitchen's maps do), gaussian kernel; classes coded +1 / -1 one-vs-rest as
# in krr_fit(). sigma (median heuristic times 2^(-2:2)) and lambda (13
# values) are chosen by 5-fold CV on at most 1000 training rows (an
# eigendecomposition per fold and sigma gives every lambda at once), then
# the chosen pair is solved by Cholesky on all training rows.
fit_exact_krr <- function(set) {
  design <- model_design(set)
  x <- design$train
  y <- design$y
  set.seed(1)
  tune <- if (nrow(x) > 1000) sort(sample(nrow(x), 1000)) else seq_len(nrow(x))
  base_sigma <- stats::median(stats::dist(x[tune, , drop = FALSE]))
  sigmas <- base_sigma * 2^(-2:2)
  lambdas <- 10^seq(-4, 2, by = 0.5)
  folds <- sample(rep_len(1:5, length(tune)))
  sse <- matrix(0, length(sigmas), length(lambdas))
  for (s in seq_along(sigmas)) {
    kernel <- kernel_gaussian(sigmas[s])
    k_all <- kernel_matrix(x[tune, , drop = FALSE], kernel = kernel, n_threads = threads)
    for (f in 1:5) {
      fit_rows <- folds != f
      yf <- y[tune[fit_rows], , drop = FALSE]
      mean_f <- colMeans(yf)
      eig <- eigen(k_all[fit_rows, fit_rows], symmetric = TRUE)
      projected <- crossprod(eig$vectors, sweep(yf, 2, mean_f))
      cross <- k_all[!fit_rows, fit_rows, drop = FALSE] %*% eig$vectors
      truth <- y[tune[!fit_rows], , drop = FALSE]
      for (l in seq_along(lambdas)) {
        yhat <- sweep(cross %*% (projected / (eig$values + lambdas[l])), 2, mean_f, "+")
        sse[s, l] <- sse[s, l] + sum((yhat - truth)^2)
      }
    }
  }
  best <- arrayInd(which.min(sse), dim(sse))
  kernel <- kernel_gaussian(sigmas[best[1]])
  k <- kernel_matrix(x, kernel = kernel, n_threads = threads)
  diag(k) <- diag(k) + lambdas[best[2]]
  factor <- chol(k)
  rm(k)
  means <- colMeans(y)
  alpha <- backsolve(factor, backsolve(factor, sweep(y, 2, means), transpose = TRUE))
  out <- sweep(kernel_matrix(design$test, x, kernel = kernel, n_threads = threads) %*% alpha,
               2, means, "+")
  if (is_class(set)) factor(design$levels[max.col(out, ties.method = "first")], design$levels)
  else drop(out)
}

# The model matrix (no intercept) of the training and test rows,
# standardised with the training moments; y as krr_fit() codes it.
model_design <- function(set) {
  terms <- stats::terms(formula_of(set), data = set$frame)
  matrix_of <- function(rows) {
    m <- stats::model.matrix(terms, set$frame[rows, ])
    m[, colnames(m) != "(Intercept)", drop = FALSE]
  }
  train <- matrix_of(set$train)
  test <- matrix_of(set$test)
  center <- colMeans(train)
  spread <- apply(train, 2, stats::sd)
  spread[!(spread > 0)] <- 1
  y <- set$frame[set$train, set$response]
  levels <- NULL
  if (is.factor(y)) {
    levels <- levels(y)
    y <- 2 * outer(as.integer(y), seq_along(levels), "==") - 1
  } else {
    y <- as.matrix(y)
  }
  list(train = scale(train, center, spread), test = scale(test, center, spread), y = y,
       levels = levels)
}

# kitchen with every default but the map and its size.
fit_kitchen <- function(set, features, n_features = NULL, seed = 1) {
  set.seed(seed)
  args <- list(formula_of(set), set$frame[set$train, ], features = features,
               n_threads = threads, verbose = FALSE)
  if (!is.null(n_features)) args$n_features <- n_features
  fit <- do.call(krr_fit, c(args, extra_args))
  if (!is.null(fit$ard)) {
    message(sprintf("  %s %s: per-column bandwidths %s (held-out error %.4f against %.4f isotropic, %d rows%s)",
                    set$name, features, if (fit$ard$kept) "kept" else "dropped",
                    fit$ard$check[["ard"]], fit$ard$check[["isotropic"]], fit$ard$check_rows,
                    if (is.null(fit$ard$binned_check)) "" else {
                      sprintf("; binned fold 1: %.4f against %.4f", fit$ard$binned_check[["ard"]],
                              fit$ard$binned_check[["isotropic"]])
                    }))
  }
  type <- if (is_class(set)) "class" else "response"
  structure(stats::predict(fit, set$frame[set$test, ], type = type, n_threads = threads),
            lambda = fit$lambda)
}

# Error and seconds (fit + predict) of one method on one data set; NA when
# the method is not run at this size (or fails, with the reason printed).
run_method <- function(set, label, f) {
  started <- proc.time()[["elapsed"]]
  yhat <- tryCatch(f(set), error = function(e) {
    message(sprintf("  %s on %s failed: %s", label, set$name, conditionMessage(e)))
    NULL
  })
  seconds <- proc.time()[["elapsed"]] - started
  if (is.null(yhat)) return(data.frame(data = set$name, method = label, error = NA, seconds = NA))
  message(sprintf("  %-22s %-18s error %.4f  %.1f s", set$name, label, test_error(set, yhat), seconds))
  data.frame(data = set$name, method = label, error = test_error(set, yhat), seconds = seconds)
}

reference_methods <- function(set) {
  n <- length(set$train)
  cache <- Sys.getenv("KITCHEN_BENCH_CACHE")
  file <- if (nzchar(cache)) file.path(cache, sprintf("defaults-%s-%d.rds", make.names(set$name), n))
  if (!is.null(file) && file.exists(file)) return(readRDS(file))
  out <- rbind(
    run_method(set, "mean / majority", fit_baseline),
    run_method(set, "linear", fit_linear),
    run_method(set, "ranger", fit_ranger),
    if (n <= 20000) run_method(set, "ksvm", fit_ksvm),
    if (n <= 10000) run_method(set, "exact KRR (CV)", fit_exact_krr))
  if (!is.null(file)) {
    dir.create(cache, showWarnings = FALSE, recursive = TRUE)
    saveRDS(out, file)
  }
  out
}

kitchen_methods <- function(set) {
  runs <- list()
  for (features in intersect(c("rff", "fastfood"), maps)) {
    for (D in feature_counts) {
      runs[[length(runs) + 1]] <- run_method(set, sprintf("kitchen %s D=%d", features, D),
                                             function(s) fit_kitchen(s, features, D))
    }
  }
  if ("rbin" %in% maps) {
    runs[[length(runs) + 1]] <- run_method(set, "kitchen rbin (100 grids)",
                                           function(s) fit_kitchen(s, "rbin"))
  }
  do.call(rbind, runs)
}

# --- The targets of the issue ---------------------------------------------------

# Mean error over 5 random splits of the same sizes (seeds 1-5).
repeated_splits <- function(set, n_train) {
  per_split <- t(vapply(1:5, function(seed) {
    split <- split_rows(nrow(set$frame), n_train, seed = seed)
    s <- set
    s$train <- split$train
    s$test <- split$test
    c(kitchen = test_error(s, fit_kitchen(s, "rff")),
      linear = test_error(s, fit_linear(s)),
      baseline = test_error(s, fit_baseline(s)))
  }, numeric(3)))
  per_split
}

# CPU raw inputs, rff D = 300, map seeds 1-5: Rahimi & Recht's error measure.
cpu_seeds <- function(set) {
  y <- set$frame[set$test, set$response]
  vapply(1:5, function(seed) relative_error(fit_kitchen(set, "rff", 300, seed = seed), y), 0)
}

# bench/krr.R's problem (n = 1e5, d = 64, D = 2048, map given): the
# default lambda choice against lambda = "gcv" (the default before this
# issue), interleaved, medians of 3.
default_cost <- function() {
  set.seed(1)
  n <- 100000
  d <- 64
  x <- matrix(stats::rnorm(n * d), n, d)
  y <- sin(x[, 1]) + stats::rnorm(n, sd = 0.1)
  map <- rff(d, 2048, sigma = sqrt(d), seed = 1)
  time_fit <- function(...) seconds(krr_fit(x, y, map, n_threads = threads, verbose = FALSE, ...))
  times <- replicate(3, c(gcv = time_fit(lambda = "gcv"), default = time_fit()))
  apply(times, 1, stats::median)
}

load_line <- function() {
  paste("load average before / after:", Sys.getenv("KITCHEN_LOAD_BEFORE", "?"), "/",
        paste(readLines("/proc/loadavg"), collapse = ""))
}

# --- Main ---------------------------------------------------------------------

if (sys.nframe() == 0L) {
  Sys.setenv(KITCHEN_LOAD_BEFORE = readLines("/proc/loadavg"))
  started <- proc.time()[["elapsed"]]
  all_sets <- load_datasets()
  names(all_sets) <- vapply(all_sets, `[[`, "", "name")
  sets <- if (length(only_sets)) all_sets[only_sets] else all_sets
  results <- do.call(rbind, lapply(sets, function(set) {
    message(sprintf("%s: %d training, %d test rows", set$name, length(set$train), length(set$test)))
    rbind(reference_methods(set), kitchen_methods(set))
  }))

  if (with_targets) {
    iris_runs <- repeated_splits(all_sets[["iris"]], 100)
    mtcars_runs <- repeated_splits(all_sets[["mtcars"]], 24)
    cpu_runs <- cpu_seeds(all_sets[["CPU raw"]])
  }
  cost <- if (with_cost) default_cost()

  # Wide table of errors, and the targets on the default map (rff, D = 1000).
  methods <- unique(results$method)
  error_table <- data.frame(data = vapply(sets, `[[`, "", "name"),
                            rows = vapply(sets, function(s) sprintf("%d / %d", length(s$train), length(s$test)), ""),
                            task = vapply(sets, function(s) if (is_class(s)) "class" else "reg", ""))
  errors <- matrix(NA_real_, length(sets), length(methods), dimnames = list(error_table$data, methods))
  times <- errors
  errors[cbind(results$data, results$method)] <- results$error
  times[cbind(results$data, results$method)] <- results$seconds
  ratio <- function(a, b) errors[, a] / errors[, b]
  targets <- data.frame(
    data = rownames(errors),
    "rff1000 / linear" = ratio("kitchen rff D=1000", "linear"),
    "rff1000 / mean" = ratio("kitchen rff D=1000", "mean / majority"),
    "worst kitchen / linear" = apply(errors[, grepl("^kitchen", methods), drop = FALSE], 1, max) / errors[, "linear"],
    "worst kitchen / mean" = apply(errors[, grepl("^kitchen", methods), drop = FALSE], 1, max) / errors[, "mean / majority"],
    "rff1000 / exact" = if ("exact KRR (CV)" %in% methods) ratio("kitchen rff D=1000", "exact KRR (CV)") else NA,
    "rff1000 / ranger" = ratio("kitchen rff D=1000", "ranger"),
    check.names = FALSE)
  for (features in intersect(c("rff", "fastfood"), maps)) {
    if (all(c(1000, 4000) %in% feature_counts)) {
      targets[[paste(features, "4000 / 1000")]] <-
        ratio(sprintf("kitchen %s D=4000", features), sprintf("kitchen %s D=1000", features))
    }
  }

  result_png(paste0(output, ".png"), width = 1000, height = 700)
  relative <- errors / errors[, "linear"]
  shown <- c("mean / majority", "ranger", "ksvm", "exact KRR (CV)",
             grep("^kitchen (rff|fastfood) D=1000$|^kitchen rbin", methods, value = TRUE))
  shown <- intersect(shown, methods)
  colours <- seq_along(shown)
  graphics::par(mar = c(5, 9, 3, 1))
  plot_values <- pmin(relative[, shown, drop = FALSE], 3)
  graphics::matplot(t(t(plot_values)), seq_len(nrow(relative)), pch = seq_along(shown), col = colours,
                    xlim = c(0, 3), yaxt = "n", ylab = "", xlab = "test error / linear model's (capped at 3)",
                    main = "krr_fit() with every default against the usual tools")
  graphics::axis(2, at = seq_len(nrow(relative)), labels = rownames(relative), las = 1)
  graphics::abline(v = c(1, 1.02), lty = c(1, 3))
  graphics::legend("topright", legend = shown, pch = seq_along(shown), col = colours, cex = 0.8, bg = "white")
  grDevices::dev.off()

  format_matrix <- function(m) {
    out <- as.data.frame(apply(m, 2, three_digits), check.names = FALSE)
    cbind(error_table, out)
  }
  write_result(c(
    "# krr_fit() with every default on real data (bench/defaults.R)", "",
    machine_description(), load_line(),
    sprintf("mode: %s, D = %s; total %.0f s", if (quick) "quick (--quick)" else "full",
            paste(feature_counts, collapse = ", "), proc.time()[["elapsed"]] - started),
    if (length(extra_args)) sprintf("kitchen fits with the extra arguments `%s`",
                                    Sys.getenv("KITCHEN_BENCH_ARGS")), "",
    "Error: misclassification rate for classes; for regression, test RMSE divided by the test",
    "responses' standard deviation (1 = as good as the mean). kitchen: `krr_fit(y ~ ., train,",
    "features = map, n_features = D)` with nothing else set (`set.seed(1)` before each fit);",
    "rbin with its default 100 grids. ranger, ksvm (n <= 20,000): their defaults. Exact KRR",
    "(n <= 10,000): gaussian kernel on the standardised design, sigma and lambda by 5-fold CV",
    "on at most 1000 training rows, solved on all of them. Splits: seed 2007 (bench/common.R).",
    "Factor levels with fewer than 20 rows are merged into \"other\".", "",
    "## Test error", "", markdown_table(format_matrix(errors)), "",
    "## Seconds (fit + predict)", "", markdown_table(format_matrix(times)), "",
    "## Ratios for the targets (below 1 is better for kitchen)", "",
    markdown_table(cbind(targets[1], as.data.frame(lapply(targets[-1], three_digits), check.names = FALSE))), "",
    "## Data sets", "",
    sprintf("- %s: %s", vapply(sets, `[[`, "", "name"), vapply(sets, `[[`, "", "note")), "",
    if (with_targets) c("## Repeated splits and seeds (rff, 1000 features unless said)", "",
    sprintf("- iris 100/50, split seeds 1-5: accuracy %s (mean %.3f); multinomial mean %.3f",
            paste(sprintf("%.2f", 1 - iris_runs[, "kitchen"]), collapse = ", "),
            1 - mean(iris_runs[, "kitchen"]), 1 - mean(iris_runs[, "linear"])),
    sprintf("- mtcars 24/8, split seeds 1-5: RMSE / sd %s; mean RMSE ratio kitchen / lm = %.3f (mean of ratios %.3f); worse than the mean in %d of 5",
            paste(sprintf("%.2f", mtcars_runs[, "kitchen"]), collapse = ", "),
            mean(mtcars_runs[, "kitchen"]) / mean(mtcars_runs[, "linear"]),
            mean(mtcars_runs[, "kitchen"] / mtcars_runs[, "linear"]),
            sum(mtcars_runs[, "kitchen"] > mtcars_runs[, "baseline"])),
    sprintf("- CPU raw inputs, rff D = 300, map seeds 1-5: %s (relative error, Rahimi & Recht's measure)",
            paste(sprintf("%.2f%%", 100 * cpu_runs), collapse = ", "))),
    if (!is.null(cost)) c("",
      "## Cost of the default on bench/krr.R's problem (n = 1e5, d = 64, D = 2048, map given)", "",
      sprintf("lambda = \"gcv\" (the old default) %.2f s, the default %.2f s: ratio %.2f (medians of 3, interleaved)",
              cost[["gcv"]], cost[["default"]], cost[["default"]] / cost[["gcv"]])), "",
    sprintf("Plot: %s.png (error / linear model's, for D = 1000 and the reference methods).", output), "",
    timing_note()
  ), paste0(output, ".md"))
}
