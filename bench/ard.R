# Per-column bandwidths learned by krr_fit(sigma = "ard") (issue 18), against
# one bandwidth chosen by krr_fit(sigma = "auto"). Run from the repository
# root:  Rscript bench/ard.R   (about 5 min on a loaded 2-core machine)
# Results: bench/results/ard.md.
#
# * Friedman #1 with 95 irrelevant uniform columns: 10000 training, 5000
#   test rows (seed 1), rff D = 1000; test RMSE against the same fit on the
#   5 true columns, and the ranks of the true columns' bandwidths.
# * CPU (cpu_act) on raw inputs, split 6554 / 1638 (split_rows(), seed
#   2007), rff D = 300, minmax scaling; relative test error.
# * Cost: 1e5 x 64 (8 relevant columns), rff D = 2048: the whole ARD call
#   against the same call with the map's bandwidth, side by side, 2 threads.
# Everything is learned from the training rows only.

source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))
threads <- 2
load_start <- scan("/proc/loadavg", n = 1, quiet = TRUE)

friedman <- function(n, noise = 95) {
  x <- matrix(runif(n * (5 + noise)), n, 5 + noise)
  y <- 10 * sin(pi * x[, 1] * x[, 2]) + 20 * (x[, 3] - 0.5)^2 + 10 * x[, 4] + 5 * x[, 5] + rnorm(n)
  list(x = x, y = y)
}
elapsed <- function(expr) {
  start <- proc.time()[["elapsed"]]
  value <- expr
  list(value = value, seconds = proc.time()[["elapsed"]] - start)
}
fit_rff <- function(x, y, D, sigma, scale = "standard") {
  krr_fit(x, y, rff(x, D, scale = scale, seed = 1), sigma = sigma, n_threads = threads,
          verbose = FALSE)
}

# --- Friedman #1 with noise columns ------------------------------------------
set.seed(1)
train <- friedman(10000)
test <- friedman(5000)
fr_ard <- elapsed(fit_rff(train$x, train$y, 1000, "ard"))
fr_iso <- elapsed(fit_rff(train$x, train$y, 1000, "auto"))
fr_true <- elapsed(fit_rff(train$x[, 1:5], train$y, 1000, "auto"))
fr_rmse <- c(ard = rmse(predict(fr_ard$value, test$x), test$y),
             iso = rmse(predict(fr_iso$value, test$x), test$y),
             true = rmse(predict(fr_true$value, test$x[, 1:5]), test$y))
ranks <- rank(fr_ard$value$map$kernel$sigma)[1:5]

# --- CPU, raw inputs -----------------------------------------------------------
cpu <- c(load_cpu(), split_rows(length(load_cpu()$y), 6554, 1638))
cpu_error <- function(sigma) {
  x <- cpu$x[cpu$train, ]
  fit <- elapsed(fit_rff(x, cpu$y[cpu$train], 300, sigma, scale = "minmax"))
  # Test inputs clipped to the training range, as in the issue's reference.
  xt <- cpu$x[cpu$test, ]
  low <- apply(x, 2, min)
  high <- apply(x, 2, max)
  xt <- pmin(pmax(xt, rep(low, each = nrow(xt))), rep(high, each = nrow(xt)))
  list(error = relative_error(predict(fit$value, xt), cpu$y[cpu$test]), seconds = fit$seconds,
       top = names(utils::head(sort(relevance(fit$value), decreasing = TRUE), 5)))
}
set.seed(1)
cpu_ard <- cpu_error("ard")
set.seed(1)
cpu_iso <- cpu_error("auto")

# --- Cost on 1e5 x 64, D = 2048 ----------------------------------------------------
set.seed(3)
n <- 1e5
x <- matrix(rnorm(n * 64), n, 64)
y <- sin(x[, 1]) + x[, 2] * x[, 3] + rowSums(x[, 4:8]) / 3 + rnorm(n, sd = 0.1)
map <- rff(x, 2048, seed = 1)
cost_single <- elapsed(krr_fit(x, y, map, n_threads = threads, verbose = FALSE))
cost_ard <- elapsed(krr_fit(x, y, map, sigma = "ard", n_threads = threads, verbose = FALSE))

fmt <- function(v, digits = 3) format(v, digits = digits)
write_result(c(
  "# Per-column bandwidths: krr_fit(sigma = \"ard\")", "",
  machine_description(), "",
  sprintf("Command: `%sRscript bench/ard.R`; load average %.1f at the start, %.1f at the end (machine shared with other agents: times are indicative).", nice_prefix(), load_start, scan("/proc/loadavg", n = 1, quiet = TRUE)), "",
  "## Friedman #1 + 95 irrelevant uniform columns (10000 / 5000 rows, rff D = 1000)", "",
  markdown_table(data.frame(
    fit = c("sigma = \"ard\", 100 columns", "sigma = \"auto\", 100 columns", "sigma = \"auto\", the 5 true columns"),
    "test RMSE" = sprintf("%.3f", fr_rmse), "seconds" = fmt(c(fr_ard$seconds, fr_iso$seconds, fr_true$seconds)),
    check.names = FALSE)), "",
  sprintf("RMSE ratio ard / true columns: %.3f (target <= 1.15). Bandwidth ranks of the true columns x1..x5: %s (target: 1..5 in any order).",
          fr_rmse[["ard"]] / fr_rmse[["true"]], paste(ranks, collapse = ", ")),
  sprintf("ARD search: %d objective evaluations on %d rows, %.1f s; %d columns left out after it (no help on the %d fresh rows), %d of them noise columns.",
          fr_ard$value$ard$iterations, fr_ard$value$ard$rows, fr_ard$value$ard$time,
          length(fr_ard$value$ard$pruned), fr_ard$value$ard$check_rows, sum(fr_ard$value$ard$pruned > 5)), "",
  "## CPU (cpu_act), raw inputs, 6554 / 1638 rows, rff D = 300, minmax scaling, clipped test inputs", "",
  markdown_table(data.frame(
    fit = c("sigma = \"ard\"", "sigma = \"auto\""),
    "relative test error" = sprintf("%.2f%%", 100 * c(cpu_ard$error, cpu_iso$error)),
    seconds = fmt(c(cpu_ard$seconds, cpu_iso$seconds)), check.names = FALSE)), "",
  sprintf("Target <= 3.2%%. Most relevant columns (ard): %s.", paste(cpu_ard$top, collapse = ", ")), "",
  "## Cost: 1e5 x 64, rff D = 2048, 2 threads (one run each, side by side)", "",
  markdown_table(data.frame(
    call = c("krr_fit(x, y, map)", "krr_fit(x, y, map, sigma = \"ard\")"),
    seconds = fmt(c(cost_single$seconds, cost_ard$seconds)))), "",
  sprintf("Ratio: %.2f (target <= 10); of which the search: %.1f s.",
          cost_ard$seconds / cost_single$seconds, cost_ard$value$ard$time), "",
  "CoverType: bench/ard-covtype.R (rff D = 5000, bench/results/ard-covtype.md) and bench/ard-covtype.R rbin (P = 50, bench/results/ard-covtype-rbin.md).",
  "The defaults suite: bench/defaults.R with `KITCHEN_BENCH_ARGS='sigma = \"ard\"'` (section added by hand below)."),
  "ard.md")
