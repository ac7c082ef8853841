# rbin maps with many classes: the class columns' conjugate-gradient solves
# run in lockstep (binned_solve(), R/krr_binned.R: up to 8 columns share one
# read of the rows' bins per iteration) against one column at a time (as
# before), side by side in one run, on the UCI letter recognition data
# (mlbench::LetterRecognition: the first 16,000 rows to train, 26 classes).
# Both solve the same system at the lambda the default fit chose, from
# zero; the coefficients must be identical. Then the default fit's whole
# call and its test error on the other 4,000 rows.
#
# Run from the package root: Rscript bench/rbin-classes.R
# (needs mlbench; writes bench/results/rbin-classes.md)

source("bench/common.R")
suppressPackageStartupMessages(library(kitchen))
data("LetterRecognition", package = "mlbench", envir = environment())
x <- as.matrix(LetterRecognition[, -1])
y <- LetterRecognition$lettr
train <- 1:16000
threads <- 2L

began <- proc.time()[["elapsed"]]
fit <- krr_fit(x[train, ], y[train], features = "rbin", seed = 1, n_threads = threads,
               verbose = FALSE)
whole_call <- proc.time()[["elapsed"]] - began
test_error <- mean(predict(fit, x[-train, ], type = "class") != y[-train])

ns <- asNamespace("kitchen")
backend <- ns$backend_settings(threads)
map <- fit$map
cols <- ns$rbin_columns(map, ns$map_input(map, x[train, ]), backend)
value <- 1 / sqrt(map$n_grids)
ops <- ns$binned_ops(cols, value, map$n_features, backend)
system <- ns$binned_system(ops, rep(1, length(train)), value)
coded <- ns$krr_response(y[train], length(train))$y
start <- matrix(0, map$n_features, ncol(coded))
tol <- 1e-5
lockstep <- function() ns$binned_solve(system, coded, fit$lambda, start, tol, 1000)
one_by_one <- function() {
  parts <- lapply(seq_len(ncol(coded)), function(j) {
    ns$binned_solve(system, coded[, j, drop = FALSE], fit$lambda, start[, j, drop = FALSE],
                    tol, 1000)
  })
  list(coefficients = do.call(cbind, lapply(parts, `[[`, "coefficients")),
       iterations = vapply(parts, `[[`, 1L, "iterations"))
}
timed <- function(f) {
  began <- proc.time()[["elapsed"]]
  out <- f()
  list(seconds = proc.time()[["elapsed"]] - began, out = out)
}
times <- list(lockstep = numeric(), one_by_one = numeric())
for (r in 1:3) {  # alternated, so that both see the same machine
  a <- timed(lockstep)
  b <- timed(one_by_one)
  times$lockstep[r] <- a$seconds
  times$one_by_one[r] <- b$seconds
  stopifnot(identical(a$out$coefficients, b$out$coefficients))
}
iterations <- a$out$iterations

lines <- c(
  "# rbin with 26 classes: lockstep conjugate gradients",
  "",
  "`Rscript bench/rbin-classes.R`", "",
  machine_description(),
  sprintf("load average at the end: %s", paste(utils::read.table("/proc/loadavg")[1, 1:3], collapse = " ")),
  "",
  sprintf("UCI letter recognition (mlbench): 16,000 training rows, 16 columns, 26 classes; %d threads.", threads),
  sprintf("Default fit `krr_fit(x, y, features = \"rbin\", seed = 1)`: %d grids, %d bins, sigma %.4g, lambda %.4g (5-fold CV).",
          map$n_grids, map$n_features, map$kernel$sigma, fit$lambda),
  sprintf("Whole call %.1f s, test error %.4f on the other 4,000 rows.", whole_call, test_error),
  "",
  sprintf("The final system at that lambda, from zero, tol %g (CG iterations per class: %d to %d, %d in all):",
          tol, min(iterations), max(iterations), sum(iterations)),
  "",
  "| solves | median of 3 (s) | runs (s) |",
  "| --- | --- | --- |",
  sprintf("| lockstep (groups of up to 8 classes) | %.2f | %s |", stats::median(times$lockstep),
          paste(sprintf("%.2f", times$lockstep), collapse = ", ")),
  sprintf("| one class at a time (as before) | %.2f | %s |", stats::median(times$one_by_one),
          paste(sprintf("%.2f", times$one_by_one), collapse = ", ")),
  "",
  sprintf("Ratio (one at a time / lockstep, medians): %.2f. The coefficients are identical (checked on every run).",
          stats::median(times$one_by_one) / stats::median(times$lockstep)))
write_result(lines, "rbin-classes.md")
