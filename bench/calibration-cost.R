# What the class calibration (predict(type = "prob") of least-squares
# classification fits, R/calibration.R) costs where it was added on
# 2026-11-28: rbin maps and chunked data with dense maps. Two builds side by
# side (KITCHEN_THIS_LIB and KITCHEN_BASE_LIB), each case in its own process,
# the builds alternating over `repeats` rounds; medians reported.
#   1. CoverType (522,910 training rows, class 2 against the rest, the
#      split of bench/common.R): krr_fit(x, y, rbin(x, 50, scale = "minmax",
#      sigma = 0.227, seed = 1), lambda = 0.5): a given lambda, so the
#      calibration makes its own fold fit (fold 1 alone at this size).
#   2. 100,000 rows of 16 uniform columns, three classes, in 10 chunks of a
#      list: krr_fit(<chunked>, rff(<first 5,000 rows>, 1024, seed = 2)) with
#      the default lambda (CV over chunk folds: calibrated with one more
#      pass) and with lambda = 1 (one pass, not calibrated).
# Also the test error and, where the build calibrates, the held-out
# log-loss of case 1 (58,102 test rows). Run from the repository root:
#   KITCHEN_THIS_LIB=<lib> KITCHEN_BASE_LIB=<lib> Rscript bench/calibration-cost.R [repeats]
# Results go to bench/results/calibration-cost.md.
args <- commandArgs(TRUE)
if (length(args) && args[1] == "--child") {
  suppressPackageStartupMessages(library(kitchen, lib.loc = args[2]))
  source(file.path("bench", "common.R"))
  seconds <- function(expr) system.time(expr)[["elapsed"]]
  if (args[3] == "covtype") {
    covtype <- covtype_split()
    x <- covtype$x[covtype$train, ]
    y <- covtype$y
    fit <- NULL
    time <- seconds(fit <- krr_fit(x, y[covtype$train],
                                   rbin(x, 50, scale = "minmax", sigma = 0.227, seed = 1,
                                        n_threads = 2),
                                   lambda = 0.5, n_threads = 2, verbose = FALSE))
    test <- covtype$x[covtype$test, ]
    truth <- y[covtype$test]
    error <- mean(predict(fit, test, type = "class", n_threads = 2) != truth)
    log_loss <- NA_real_
    if (!is.null(fit$calibration)) {
      p <- predict(fit, test, type = "prob", n_threads = 2)
      log_loss <- -mean(log(pmax(p[cbind(seq_along(truth), as.integer(truth))], 1e-15)))
    }
    out <- list(seconds = time, error = error, log_loss = log_loss)
  } else {
    set.seed(1)
    n <- 1e5
    x <- matrix(runif(n * 16, -2, 2), n, 16)
    y <- factor(ifelse(x[, 1] + 0.5 * rnorm(n) > 0.5, "p", ifelse(x[, 2] > 0, "q", "r")))
    split <- rep(1:10, each = n / 10)
    data <- chunked(lapply(1:10, function(i) list(x = x[split == i, ], y = y[split == i])))
    map <- rff(x[1:5000, ], 1024, seed = 2)
    cv <- NULL
    out <- list(
      cv = seconds(cv <- krr_fit(data, map, n_threads = 2, verbose = FALSE, parallel = "none")),
      given = seconds(krr_fit(data, map, lambda = 1, n_threads = 2, verbose = FALSE,
                              parallel = "none")),
      calibrated = !is.null(cv$calibration))
  }
  saveRDS(out, args[4])
  quit(save = "no")
}

source(file.path("bench", "common.R"))
repeats <- if (length(args)) as.integer(args[1]) else 2L
libs <- c(this = Sys.getenv("KITCHEN_THIS_LIB"), base = Sys.getenv("KITCHEN_BASE_LIB"))
if (any(!nzchar(libs))) stop("set KITCHEN_THIS_LIB and KITCHEN_BASE_LIB")
# for machine_description() (kitchen's version and SIMD level)
suppressPackageStartupMessages(library(kitchen, lib.loc = libs[["this"]]))
load_before <- paste(readLines("/proc/loadavg"), collapse = " ")
child <- function(lib, case) {
  out <- tempfile(fileext = ".rds")
  status <- system2(file.path(R.home("bin"), "Rscript"),
                    c("bench/calibration-cost.R", "--child", lib, case, out))
  if (status != 0) stop("child failed: ", lib, " ", case)
  readRDS(out)
}
runs <- list()
for (round in seq_len(repeats)) {
  for (build in names(libs)) {
    for (case in c("covtype", "chunked")) {
      message(format(Sys.time(), "%H:%M:%S "), build, " ", case, " round ", round)
      runs[[length(runs) + 1]] <- c(list(build = build, case = case), child(libs[[build]], case))
    }
  }
}
pick <- function(build, case, what) {
  vapply(Filter(function(r) r$build == build && r$case == case, runs), function(r) r[[what]], 0)
}
row <- function(build) {
  cov <- pick(build, "covtype", "seconds")
  cv <- pick(build, "chunked", "cv")
  given <- pick(build, "chunked", "given")
  sprintf("| %s | %.1f (%s) | %.2f%% | %s | %.2f (%s) | %.2f (%s) | %s |", build, median(cov),
          paste(sprintf("%.1f", cov), collapse = ", "),
          100 * pick(build, "covtype", "error")[1],
          format(pick(build, "covtype", "log_loss")[1], digits = 4),
          median(cv), paste(sprintf("%.2f", cv), collapse = ", "),
          median(given), paste(sprintf("%.2f", given), collapse = ", "),
          all(as.logical(pick(build, "chunked", "calibrated"))))
}
write_result(c(
  "# What the class calibration of rbin and chunked fits costs (bench/calibration-cost.R)",
  "",
  machine_description(),
  sprintf("load average before / after: %s / %s", load_before,
          paste(readLines("/proc/loadavg"), collapse = " ")),
  sprintf("%d rounds, builds alternating: this = %s, base = %s", repeats, libs[["this"]],
          libs[["base"]]),
  "",
  "| build | CoverType rbin, lambda 0.5: s (runs) | test error | test log-loss | chunked, CV: s (runs) | chunked, lambda 1: s (runs) | chunked CV fit calibrated |",
  "| --- | --- | --- | --- | --- | --- | --- |",
  row("this"), row("base")), "calibration-cost.md")
