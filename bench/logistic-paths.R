# Kernel logistic regression (krr_fit(loss = "logistic")) on its two paths
# (issue 19): where the dual path (R/krr_logistic_dual.R) pays against the
# primal one, forced by options(kitchen.dual), on synthetic data; and the
# fit times of two cases with more rows than features, which take the
# primal path: mlbench's Satellite (4435 training rows, 6 classes, D = 300)
# and 5000 rows of the shared binary CoverType (D = 1024), each next to the
# least-squares fit on the same map and folds. To compare builds, run it
# once per build with R_LIBS set to each build's library.
#   Rscript bench/logistic-paths.R        # about 3 min on 2 free cores
# Results: bench/results/logistic-paths.md.
source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))
load_before <- readLines("/proc/loadavg")

synthetic_seconds <- function(n, n_features, k, dual) {
  old <- options(kitchen.dual = dual)
  on.exit(options(old))
  set.seed(n)
  x <- matrix(stats::rnorm(n * 8), n)
  score <- cbind(sin(2 * x[, 1]), x[, 2], -x[, 1] * x[, 3])[, seq_len(k)]
  y <- factor(max.col(score + matrix(stats::rnorm(n * k, sd = 0.5), n)))
  map <- rff(x, n_features, seed = 1)
  seconds(krr_fit(x, y, map, loss = "logistic", n_threads = 2, verbose = FALSE))
}
sizes <- list(c(500, 1000, 2), c(600, 1000, 2), c(700, 1000, 2), c(700, 1000, 3),
              c(900, 1000, 2), c(600, 2000, 3), c(1000, 2000, 2))
rule <- do.call(rbind, lapply(sizes, function(s) {
  primal <- synthetic_seconds(s[1], s[2], s[3], FALSE)
  dual <- synthetic_seconds(s[1], s[2], s[3], TRUE)
  data.frame(n = s[1], D = s[2], classes = s[3], `primal s` = three_digits(primal),
             `dual s` = three_digits(dual), `auto takes` = if (2 * s[1] <= s[2]) "dual" else "primal",
             check.names = FALSE)
}))

# Logistic and least-squares fits on one map and one set of folds.
side_by_side <- function(name, x, y, train, test, n_features) {
  map <- rff(x[train, ], n_features, seed = 1)
  set.seed(1)
  folds <- sample(rep_len(1:5, length(train)))
  logistic_s <- seconds(fit <- krr_fit(x[train, ], y[train], map, loss = "logistic", folds = folds,
                                       n_threads = 2, verbose = FALSE))
  squares_s <- seconds(krr_fit(x[train, ], y[train], map, folds = folds, n_threads = 2,
                               verbose = FALSE))
  p <- predict(fit, x[test, ], type = "prob", n_threads = 2)
  truth <- as.integer(y[test])
  data.frame(data = name, `n train / test` = sprintf("%d / %d", length(train), length(test)),
             classes = nlevels(y), D = n_features, `logistic s` = three_digits(logistic_s),
             `least squares s` = three_digits(squares_s),
             ratio = three_digits(logistic_s / squares_s), lambda = signif(fit$lambda, 4),
             `test log-loss` = round(-mean(log(p[cbind(seq_along(truth), truth)])), 5),
             passes = fit$logistic$passes, check.names = FALSE)
}
env <- new.env()
utils::data("Satellite", package = "mlbench", envir = env)
satellite <- side_by_side("Satellite", as.matrix(env$Satellite[, -37]), env$Satellite$classes,
                          1:4435, 4436:6435, 300)
load(shared_data("covtype.RData"), envir = env)
set.seed(5)
pick <- sample(nrow(env$covtype.libsvm$X), 15000)
covtype <- side_by_side("CoverType (binary)", as.matrix(env$covtype.libsvm$X[pick, ]),
                        factor(env$covtype.libsvm$y[pick]), 1:5000, 5001:15000, 1024)

write_result(c(
  "# Kernel logistic regression: the dual path's rule, and fits with more rows than features (bench/logistic-paths.R)", "",
  machine_description(),
  sprintf("load average before / after: %s / %s", load_before, readLines("/proc/loadavg")), "",
  "## Primal against dual path (synthetic rows of 8 columns, a given rff map, lambda by 5-fold CV, one run each)", "",
  markdown_table(rule), "",
  "## Logistic against least-squares fits, the same map and folds (primal path)", "",
  markdown_table(rbind(satellite, covtype))), "logistic-paths.md")
