# Le, Sarlos & Smola (2013), Fastfood: Table 2 (time to compute the features
# of one input vector, and memory of the map: fastfood against a dense rff
# map) and Table 3 (test RMSE of the exact kernel, rff and fastfood with the
# gaussian and Matern kernels on CPU, Parkinsons and Wine quality). Run from
# the repository root:
#   Rscript bench/paper-fastfood.R           # full run (about 10 min)
#   Rscript bench/paper-fastfood.R --quick   # Table 2 without d = 8192, smaller D
# (or KITCHEN_BENCH_QUICK=1). Results: bench/results/paper-fastfood.md and
# paper-fastfood-time.png.

quick <- "--quick" %in% commandArgs(TRUE) || nzchar(Sys.getenv("KITCHEN_BENCH_QUICK"))
source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))
threads <- 2
started_script <- proc.time()[["elapsed"]]

# --- Table 2: one input vector ---------------------------------------------------

table2_published <- data.frame(d = c(1024, 4096, 8192), n = c(16384, 32768, 65536),
                               fastfood = c(0.00058, 0.00137, 0.00269),
                               rks = c(0.0139, 0.1222, 0.5351),
                               speedup = c(24, 89, 199), ram = c(256, 1024, 2048))
if (quick) table2_published <- table2_published[1:2, ]

# predict() on one row, 1 thread (R call and result allocation included),
# "cos_phase" so that both maps hold n frequencies as in the paper; median of
# repeated timings. Memory: object.size() of each map.
set.seed(1)
table2 <- do.call(rbind, lapply(seq_len(nrow(table2_published)), function(i) {
  s <- table2_published[i, ]
  one <- matrix(stats::rnorm(s$d), 1, s$d)
  ff <- fastfood(s$d, s$n, sigma = sqrt(s$d), type = "cos_phase", seed = 1)
  t_ff <- median_time(function() predict(ff, one, n_threads = 1), repeats = 31)
  size_ff <- as.numeric(utils::object.size(ff))
  rm(ff)
  rf <- rff(s$d, s$n, sigma = sqrt(s$d), type = "cos_phase", seed = 1)
  t_rf <- median_time(function() predict(rf, one, n_threads = 1), repeats = 7)
  size_rf <- as.numeric(utils::object.size(rf))
  rm(rf)
  gc()
  message(sprintf("Table 2, d = %d: fastfood %.0f us, rff %.1f ms", s$d, 1e6 * t_ff, 1e3 * t_rf))
  data.frame(d = s$d, n = s$n, fastfood = t_ff, rff = t_rf, size_ff = size_ff, size_rf = size_rf)
}))

table2_shown <- data.frame(
  d = table2$d, `n (features)` = table2$n,
  `fastfood (s)` = sprintf("%.5f", table2$fastfood), `rff (s)` = sprintf("%.4f", table2$rff),
  `speed-up` = sprintf("%.0fx", table2$rff / table2$fastfood),
  `fastfood map` = sprintf("%.2f MB", table2$size_ff / 2^20),
  `rff map` = sprintf("%.0f MB", table2$size_rf / 2^20),
  `RAM ratio` = sprintf("%.0fx", table2$size_rf / table2$size_ff),
  `published: Fastfood / RKS (s)` = sprintf("%.5f / %.4f", table2_published$fastfood, table2_published$rks),
  `published speed-up` = sprintf("%dx", table2_published$speedup),
  `published RAM ratio` = sprintf("%dx", table2_published$ram), check.names = FALSE)

result_png("paper-fastfood-time.png")
plot(table2$d, 1e3 * table2$rff, log = "xy", type = "b", pch = 19,
     ylim = range(1e3 * c(table2$rff, table2$fastfood, table2_published$fastfood, table2_published$rks)),
     xlab = "input dimension d (n = 16 d, 8 d, 8 d features)", ylab = "ms per input vector",
     main = "Features of one input vector: rff (dense) vs fastfood")
lines(table2$d, 1e3 * table2$fastfood, type = "b", pch = 19, col = "blue")
lines(table2_published$d, 1e3 * table2_published$rks, type = "b", lty = 2, pch = 1)
lines(table2_published$d, 1e3 * table2_published$fastfood, type = "b", lty = 2, pch = 1, col = "blue")
legend("topleft", c("kitchen rff", "kitchen fastfood", "published RKS (Eigen)", "published Fastfood (Spiral)"),
       col = c("black", "blue", "black", "blue"), lty = c(1, 1, 2, 2), pch = c(19, 19, 1, 1))
invisible(dev.off())

# --- Table 3: accuracy -------------------------------------------------------------

n_features <- if (quick) 512 else 2048
# Published RMSE (Table 3 of the paper; its Wine column does not say red or white).
table3_published <- list(
  CPU = c(exact_gaussian = 7.271, rff_gaussian = 7.103, fastfood_gaussian = 7.366,
          exact_matern = 4.345, fastfood_matern = 4.211),
  Parkinsons = c(exact_gaussian = 0.059, rff_gaussian = 0.054, fastfood_gaussian = 0.054,
                 exact_matern = 0.053, fastfood_matern = 0.052),
  Wine = c(exact_gaussian = 0.819, rff_gaussian = 0.740, fastfood_gaussian = 0.740,
           exact_matern = 0.753, fastfood_matern = 0.720))

# Random splits, seed 2007: CPU as in Rahimi & Recht (6554 / 1638), the
# others 80% / 20%.
with_split <- function(d, n_train) c(d, split_rows(length(d$y), n_train))
datasets <- list(CPU = with_split(load_cpu(), 6554))
for (name in c("Parkinsons", "Wine red", "Wine white")) {
  d <- switch(name, Parkinsons = load_parkinsons(), `Wine red` = load_wine("red"),
              `Wine white` = load_wine("white"))
  datasets[[name]] <- with_split(d, round(0.8 * length(d$y)))
}

# Exact kernel ridge regression with an unpenalised intercept, as krr_fit()
# (which centres the features): ridge on the doubly centred kernel matrix,
# lambda by GCV over 10^(-8 .. 2) from one eigendecomposition.
exact_krr <- function(x, y, x_test, kernel) {
  k <- kernel_matrix(x, kernel = kernel, n_threads = threads)
  k_test <- kernel_matrix(x_test, x, kernel = kernel, n_threads = threads)
  row_means <- rowMeans(k)
  grand <- mean(row_means)
  e <- eigen(k - outer(row_means, row_means, "+") + grand, symmetric = TRUE)
  rm(k)
  values <- pmax(e$values, 0)
  rotated <- drop(crossprod(e$vectors, y - mean(y)))
  n <- length(y)
  grid <- 10^seq(-8, 2, by = 0.25)
  gcv <- vapply(grid, function(l) {
    shrink <- values / (values + l)
    n * sum((rotated * (1 - shrink))^2) / (n - 1 - sum(shrink))^2
  }, 0)
  lambda <- grid[which.min(gcv)]
  alpha <- e$vectors %*% (rotated / (values + lambda))
  kc_test <- k_test - outer(rowMeans(k_test), row_means, "+") + grand
  list(prediction = drop(mean(y) + kc_test %*% alpha), lambda = lambda)
}

rows <- list()
for (name in names(datasets)) {
  d <- datasets[[name]]
  x <- d$x[d$train, ]
  y <- d$y[d$train]
  x_test <- d$x[d$test, ]
  for (kernel in c("gaussian", "matern")) {
    fits <- list()
    for (method in c("rff", "fastfood")) {
      build <- get(method, envir = asNamespace("kitchen"))
      t <- seconds({
        fit <- krr_fit(x, y, build(x, n_features, kernel = kernel, scale = "minmax", seed = 1),
                       sigma = "auto", n_threads = threads, verbose = FALSE)
        yhat <- predict(fit, x_test, n_threads = threads)
      })
      fits[[method]] <- fit
      rows[[length(rows) + 1]] <- data.frame(dataset = name, kernel = kernel, method = method,
                                             sigma = fit$map$kernel$sigma, lambda = fit$lambda,
                                             rmse = rmse(yhat, d$y[d$test]), seconds = t)
    }
    # Exact: the bandwidth rff chose, in the same min-max units; its own lambda.
    map <- fits$rff$map
    t <- seconds(exact <- exact_krr(scale(x, map$center, map$scale), y,
                                    scale(x_test, map$center, map$scale), map$kernel))
    rows[[length(rows) + 1]] <- data.frame(dataset = name, kernel = kernel, method = "exact",
                                           sigma = map$kernel$sigma, lambda = exact$lambda,
                                           rmse = rmse(exact$prediction, d$y[d$test]), seconds = t)
    message(sprintf("Table 3, %s, %s done", name, kernel))
  }
}
table3 <- do.call(rbind, rows)

published_for <- function(dataset, kernel, method) {
  values <- table3_published[[sub(" .*", "", dataset)]]
  key <- paste(method, kernel, sep = "_")
  if (key %in% names(values)) sprintf("%.3f", values[[key]]) else "-"
}
table3_shown <- data.frame(
  dataset = table3$dataset, kernel = table3$kernel, method = table3$method,
  sigma = sprintf("%.3g", table3$sigma), lambda = sprintf("%.3g", table3$lambda),
  `test RMSE` = sprintf("%.3f", table3$rmse), `time (s)` = sprintf("%.1f", table3$seconds),
  `published RMSE` = mapply(published_for, table3$dataset, table3$kernel, table3$method),
  check.names = FALSE)
sizes <- vapply(datasets, function(d) sprintf("%d / %d", length(d$train), length(d$test)), "")
total_minutes <- (proc.time()[["elapsed"]] - started_script) / 60

write_result(c(
  "# Le, Sarlos & Smola (2013), Fastfood, Tables 2 and 3, with kitchen", "",
  machine_description(), "",
  sprintf("Command: `Rscript bench/paper-fastfood.R%s`; the whole script took %.0f min.",
          if (quick) " --quick" else "", total_minutes), "",
  "## Table 2: features of one input vector", "",
  "`predict(map, x, n_threads = 1)` on one row (R call and result allocation included),",
  "gaussian kernel, `type = \"cos_phase\"` so both maps hold n frequencies; median of 31",
  "timings for fastfood and 7 for rff, each timing at least 50 ms of repeated calls",
  "(`median_time()`). rff multiplies by its dense d x n frequency matrix (for a few rows,",
  "kitchen's fused multiply-add loop down each stored column; 1 thread); fastfood applies 2 n / d fast Walsh-Hadamard",
  "transforms. Memory: `object.size()` of each map. Published: Eigen (RKS) vs Spiral",
  "(Fastfood) on 2013 hardware. See bench/results/fastfood.md for why single-row times",
  "depend on page faults on this virtual machine.", timing_note(), "",
  markdown_table(table2_shown), "",
  "![time per input vector](paper-fastfood-time.png)", "",
  "## Table 3: test RMSE", "",
  sprintf("Splits at random with seed 2007 (training / test rows): %s.",
          paste(sprintf("%s %s", names(sizes), sizes), collapse = ", ")),
  "Parkinsons: response total_UPDRS, `subject#` and `motor_UPDRS` dropped. Wine: no header,",
  sprintf("last column = quality. rff and fastfood: D = %d cos_sin features (the paper's number", n_features),
  "of basis functions is lost in our copy of the text), inputs min-max scaled, seed 1;",
  "sigma and lambda by the package's GCV (`krr_fit(sigma = \"auto\")`: 1/4 .. 4 x the",
  "median-distance heuristic, 50 lambdas) on training rows only. Matern: nu = 1.5 (kitchen's",
  "default; the paper does not say). Exact: `kernel_matrix()` on the same scaled inputs with",
  "the sigma rff chose, ridge with unpenalised intercept (doubly centred kernel matrix),",
  "lambda by GCV over 10^(-8..2) from one eigendecomposition; time includes it all.",
  "Published RMSEs are copied from the paper's Table 3 (Gaussian process regression); its",
  "Wine row does not say which wine, and its Parkinsons figures (about 0.05) are evidently on",
  "another scale of the response than total_UPDRS in points (for which we get about 2 to 8),",
  "so compare methods within a row, not absolute values. Note also that GCV picks a small",
  "lambda on CPU for every method (see bench/results/paper-rahimi-recht.md, where 5-fold",
  "CV does better).", timing_note(), "",
  markdown_table(table3_shown)
), "paper-fastfood.md")
