# The class calibration of least-squares classification fits (the small
# multinomial model behind predict(type = "prob"), R/calibration.R) on many
# classes: UCI letter recognition (mlbench::LetterRecognition, 26 classes,
# the first 16,000 rows), `krr_fit(x, y, rff(x, D, sigma = 2.726, seed = 1))`
# with lambda by the default 5-fold CV, 2 threads. Two builds side by side
# (KITCHEN_THIS_LIB and KITCHEN_BASE_LIB), each fit in its own process, the
# builds alternating; reported: the whole fit's seconds and those inside
# class_calibration() (the whole calibration: the folds' fits at the chosen
# lambda, their out-of-fold scores and the small model) and in
# fit_calibration() (the small model; both wrapped in the namespace),
# medians over the repeats,
# and the largest difference between the two builds' probabilities on the
# 4,000 test rows. Run from the repository root:
#   KITCHEN_THIS_LIB=<lib> KITCHEN_BASE_LIB=<lib> Rscript bench/calibration.R [repeats] [D]
# Results go to bench/results/calibration.md.
args <- commandArgs(TRUE)
if (length(args) && args[1] == "--child") {
  suppressPackageStartupMessages(library(kitchen, lib.loc = args[2]))
  ns <- asNamespace("kitchen")
  spent <- c(class_calibration = 0, fit_calibration = 0)
  for (name in names(spent)) local({
    inner <- get(name, envir = ns)
    what <- name
    unlockBinding(what, ns)
    assign(what, function(...) {
      began <- proc.time()[["elapsed"]]
      on.exit(spent[[what]] <<- spent[[what]] + proc.time()[["elapsed"]] - began)
      inner(...)
    }, envir = ns)
  })
  data("LetterRecognition", package = "mlbench", envir = environment())
  x <- as.matrix(LetterRecognition[, -1])
  y <- LetterRecognition$lettr
  set.seed(1)
  began <- proc.time()[["elapsed"]]
  fit <- krr_fit(x[1:16000, ], y[1:16000], rff(x[1:16000, ], as.integer(args[3]), sigma = 2.726,
                                                seed = 1), n_threads = 2, verbose = FALSE)
  seconds <- proc.time()[["elapsed"]] - began
  saveRDS(list(seconds = seconds, calibration = spent[["fit_calibration"]],
               whole_calibration = spent[["class_calibration"]],
               prob = predict(fit, x[16001:20000, ], type = "prob")), args[4])
  quit(save = "no")
}
source(file.path("bench", "common.R"))
repeats <- if (length(args) >= 1) as.integer(args[1]) else 3L
n_features <- if (length(args) >= 2) as.integer(args[2]) else 512L
libs <- c(this = Sys.getenv("KITCHEN_THIS_LIB"), base = Sys.getenv("KITCHEN_BASE_LIB"))
if (!all(nzchar(libs))) stop("Set KITCHEN_THIS_LIB and KITCHEN_BASE_LIB.")
load_before <- readLines("/proc/loadavg")
runs <- list()
for (r in seq_len(repeats)) {
  for (build in names(libs)) {
    out <- tempfile(fileext = ".rds")
    status <- system2(file.path(R.home("bin"), "Rscript"),
                      c("bench/calibration.R", "--child", libs[[build]], n_features, out))
    if (status != 0) stop("the child for ", build, " failed")
    runs[[length(runs) + 1]] <- c(list(build = build), readRDS(out))
  }
}
median_of <- function(build, field) {
  stats::median(vapply(Filter(function(x) x$build == build, runs), `[[`, 0, field))
}
prob_this <- Filter(function(x) x$build == "this", runs)[[1]]$prob
prob_base <- Filter(function(x) x$build == "base", runs)[[1]]$prob
suppressPackageStartupMessages(library(kitchen, lib.loc = libs[["this"]]))
lines <- c("# The class calibration on 26 classes (bench/calibration.R)", "",
           machine_description(),
           sprintf("load average before / after: %s / %s", load_before, readLines("/proc/loadavg")),
           sprintf("D = %d, %d repeats, builds alternating: this = %s, base = %s", n_features,
                   repeats, libs[["this"]], libs[["base"]]), "",
           "| build | fit s (median) | of which class_calibration() s | of which fit_calibration() s | all fits (s) |",
           "| --- | --- | --- | --- | --- |")
for (build in names(libs)) {
  lines <- c(lines, sprintf("| %s | %.2f | %.2f | %.2f | %s |", build, median_of(build, "seconds"),
                            median_of(build, "whole_calibration"), median_of(build, "calibration"),
                            paste(sprintf("%.2f", vapply(Filter(function(x) x$build == build, runs),
                                                         `[[`, 0, "seconds")), collapse = ", ")))
}
lines <- c(lines, "", sprintf("Largest difference of the test rows' probabilities between the builds: %.3g",
                              max(abs(prob_this - prob_base))))
write_result(lines, "calibration.md")
