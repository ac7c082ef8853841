# The dual path of krr_fit() (R/krr_dual.R) against the primal one
# (options(kitchen.dual = FALSE)), side by side: every default (formula
# interface, rff, 5-fold CV, the bandwidth search), on mtcars (D = 1000,
# 2000, 4000), iris and mlbench's Sonar (D = 4000), each on a fixed split;
# then synthetic regressions with n rows and D = 2000 features at n = D/8,
# D/4, D/2 to see where the two cost the same (the rule of "auto" is 3n <= D:
# bench/dual-path-rule.R).
# The two paths alternate (which goes first alternates too), the load average
# is read before each fit, and the test error of both is reported.
# Run from the repository root:
#   nice -n 10 Rscript bench/dual-path.R [repeats]
# Results go to bench/results/dual-path.md.
source("bench/common.R")
library(kitchen)
args <- commandArgs(trailingOnly = TRUE)
repeats <- if (length(args)) as.integer(args[1]) else 1L

data("Sonar", package = "mlbench")
split <- function(n, n_train, seed) {
  set.seed(seed)
  sample(n, n_train)
}
sets <- list(
  mtcars = list(data = mtcars, formula = mpg ~ ., train = split(32, 24, 1)),
  iris = list(data = iris, formula = Species ~ ., train = split(150, 100, 1)),
  Sonar = list(data = Sonar, formula = Class ~ ., train = split(208, 150, 1))
)
synthetic <- function(n, seed = 7) {
  set.seed(seed)
  x <- matrix(runif((n + 500) * 8, -2, 2), n + 500, 8)
  data <- data.frame(y = sin(x[, 1]) * cos(x[, 2]) + 0.3 * x[, 3] + rnorm(n + 500, sd = 0.1), x)
  list(data = data, formula = y ~ ., train = seq_len(n))
}
cases <- list(
  list(set = "mtcars", d = 1000), list(set = "mtcars", d = 2000), list(set = "mtcars", d = 4000),
  list(set = "iris", d = 4000), list(set = "Sonar", d = 4000),
  list(set = "synthetic", n = 250, d = 2000), list(set = "synthetic", n = 500, d = 2000),
  list(set = "synthetic", n = 1000, d = 2000)
)

run <- function(case, dual) {
  s <- if (case$set == "synthetic") synthetic(case$n) else sets[[case$set]]
  train <- s$data[s$train, ]
  test <- s$data[-s$train, ]
  response <- all.vars(s$formula)[1]
  options(kitchen.dual = dual)
  load <- as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
  set.seed(2)
  elapsed <- system.time(fit <- suppressWarnings(
    krr_fit(s$formula, train, n_features = case$d, n_threads = 2, verbose = FALSE)
  ))[["elapsed"]]
  error <- if (is.factor(train[[response]])) {
    mean(predict(fit, test, type = "class") != test[[response]])
  } else {
    sqrt(mean((predict(fit, test) - test[[response]])^2))
  }
  data.frame(set = case$set, n = nrow(train), d = case$d,
             path = if (dual) "dual" else "primal", seconds = elapsed, load = load,
             lambda = fit$lambda, sigma = fit$map$kernel$sigma, test_error = error)
}

rows <- list()
for (r in seq_len(repeats)) {
  for (i in seq_along(cases)) {
    order <- if ((i + r) %% 2 == 0) c(FALSE, TRUE) else c(TRUE, FALSE)
    for (dual in order) {
      rows[[length(rows) + 1]] <- run(cases[[i]], dual)
      print(rows[[length(rows)]], row.names = FALSE)
    }
  }
}
runs <- do.call(rbind, rows)
saveRDS(runs, "bench/results/dual-path-runs.rds")

key <- paste(runs$set, runs$n, runs$d)
summary_rows <- lapply(unique(key), function(k) {
  p <- runs[key == k & runs$path == "primal", ]
  d <- runs[key == k & runs$path == "dual", ]
  data.frame(set = p$set[1], n = p$n[1], D = p$d[1],
             primal_s = stats::median(p$seconds), dual_s = stats::median(d$seconds),
             ratio = stats::median(p$seconds) / stats::median(d$seconds),
             load = sprintf("%.1f-%.1f", min(c(p$load, d$load)), max(c(p$load, d$load))),
             same_lambda = isTRUE(all.equal(p$lambda, d$lambda, tolerance = 1e-12)),
             same_sigma = isTRUE(all.equal(p$sigma, d$sigma, tolerance = 1e-12)),
             primal_error = p$test_error[1], dual_error = d$test_error[1])
})
table <- do.call(rbind, summary_rows)
fmt <- function(df) {
  c(paste("|", paste(names(df), collapse = " | "), "|"),
    paste("|", paste(rep("---", ncol(df)), collapse = " | "), "|"),
    apply(df, 1, function(row) paste("|", paste(row, collapse = " | "), "|")))
}
table$primal_s <- sprintf("%.2f", table$primal_s)
table$dual_s <- sprintf("%.2f", table$dual_s)
table$ratio <- sprintf("%.1f", table$ratio)
table$primal_error <- signif(table$primal_error, 6)
table$dual_error <- signif(table$dual_error, 6)
writeLines(c("# Dual path against primal path (bench/dual-path.R)", "",
             machine_description(), sprintf("repeats: %d (medians of seconds)", repeats), "",
             sprintf("Every default (formula, rff, lambda = \"cv\", bandwidth search), 2 threads%s;",
                     if (nzchar(nice_prefix())) sprintf(", `%s`", trimws(nice_prefix())) else ""),
             "test error: RMSE (mtcars, synthetic) or misclassification rate (iris, Sonar) on the held-out rows.", "",
             fmt(table)),
           "bench/results/dual-path.md")
