# Nystroem features (issue 20 targets). Run from the repository root:
#   nice -n 10 Rscript bench/nystrom.R accuracy                 # parts 1 and 2 -> nystrom.md
#   nice -n 10 Rscript bench/nystrom.R speed [n] [M] [repeats] [modes]  # part 3 -> nystrom-speed[-modes].md
#   (speed defaults: n = 100000, M = 2048, 3 repeats, modes "transform,end_to_end";
#   one mode alone writes nystrom-speed-MODE.md; KITCHEN_BENCH_LANGS=R runs
#   kitchen alone, for sizes where scikit-learn would take hours)
#   nice -n 10 Rscript bench/nystrom.R falkon [n] [M...]          # part 4 -> nystrom-falkon.md
#   nice -n 10 Rscript bench/nystrom.R root [M...]                # part 5 -> nystrom-root.md
#   (falkon defaults: n = 50000, M = 2000 and 4000; one M alone writes
#   nystrom-falkon-M<M>.md; KITCHEN_BENCH_SOLVERS=falkon skips the direct
#   solve, for sizes where it would take hours)
# 1. Kernel approximation: relative Frobenius error of Z Z' against the exact
#    Gaussian kernel matrix, 800 standard normal points, d = 16, mean over 10
#    seeds: Nystroem with 200 centers (each rule) against rff with 200
#    features. Target: uniform Nystroem at most 0.5 x rff.
# 2. Friedman #1 (d = 10, noise sd 1), 10,000 training and 10,000 test rows:
#    krr_fit() on Nystroem(500) with each center rule against rff(500), same
#    bandwidth (the median heuristic), lambda by GCV; 3 seeds. Target:
#    Nystroem at least as accurate as rff.
# 3. Speed against scikit-learn's Nystroem (rbf, same gamma, same size),
#    d = 64, M = 2048, each method in its own process (for its own peak
#    memory, VmHWM), one after the other in one run: the feature transform,
#    and Nystroem + ridge end to end (fit at a fixed penalty, then predict).
#    Targets: features 2x faster, end to end 1.5x faster with at most 25% of
#    the peak memory.
source("bench/common.R")
library(kitchen)

args <- commandArgs(trailingOnly = TRUE)
part <- if (length(args)) args[1] else "accuracy"
started <- proc.time()[["elapsed"]]
out <- c("# Nystroem features", "", machine_description(),
         "scikit-learn: Debian python3-sklearn with /usr/bin/python3 (numpy on the same reference BLAS)", "",
         sprintf("Command: `%sRscript bench/nystrom.R %s`.", nice_prefix(), paste(args, collapse = " ")), "")
if (part == "accuracy") {

# 1. Kernel approximation
n <- 800
d <- 16
set.seed(2001)
x <- matrix(rnorm(n * d), n, d)
kernel <- kernel_gaussian(sqrt(d))
exact <- kernel_matrix(x, kernel = kernel)
relative_error <- function(z) norm(tcrossprod(z) - exact, "F") / norm(exact, "F")
seeds <- 1:10
errors <- list(
  rff = sapply(seeds, function(s) relative_error(predict(rff(x, 200, kernel = kernel, scale = "none", seed = s), x))),
  "rff orthogonal" = sapply(seeds, function(s) relative_error(predict(rff(x, 200, kernel = kernel, scale = "none", seed = s, orthogonal = TRUE), x))))
for (rule in c("uniform", "kmeans", "leverage")) {
  errors[[paste("Nystroem", rule)]] <- sapply(seeds, function(s) {
    relative_error(predict(nystrom(x, 200, kernel = kernel, centers = rule, scale = "none", seed = s), x))
  })
}
out <- c(out, "## Kernel approximation", "",
         sprintf("%d standard normal points, d = %d, Gaussian kernel with sigma = sqrt(d); 200 features (rff: 100 frequencies, cos_sin) or 200 centers; relative Frobenius error, mean (sd) over %d seeds.", n, d, length(seeds)),
         "Target: Nystroem uniform at most 0.5 x rff.", "",
         "| map | error | ratio to rff |", "| --- | --- | --- |",
         sprintf("| %s | %.4f (%.4f) | %.3f |", names(errors), sapply(errors, mean), sapply(errors, sd),
                 sapply(errors, mean) / mean(errors$rff)), "")

# 2. Friedman #1
friedman <- function(n, seed) {
  set.seed(seed)
  x <- matrix(runif(n * 10), n, 10)
  y <- 10 * sin(pi * x[, 1] * x[, 2]) + 20 * (x[, 3] - 0.5)^2 + 10 * x[, 4] + 5 * x[, 5] + rnorm(n)
  list(x = x, y = y)
}
rmse <- function(a, b) sqrt(mean((a - b)^2))
results <- list()
for (seed in 1:3) {
  train <- friedman(10000, seed)
  test <- friedman(10000, 100 + seed)
  fits <- list(rff = function() krr_fit(train$x, train$y, features = "rff", n_features = 500, seed = seed, lambda = "gcv"),
               "rff orthogonal" = function() krr_fit(train$x, train$y, features = "rff", n_features = 500, seed = seed, lambda = "gcv", orthogonal = TRUE))
  for (rule in c("uniform", "kmeans", "leverage")) {
    local({
      r <- rule
      fits[[paste("Nystroem", r)]] <<- function() krr_fit(train$x, train$y, features = "nystrom", n_centers = 500,
                                                          centers = r, seed = seed, lambda = "gcv")
    })
  }
  for (name in names(fits)) {
    t0 <- proc.time()[["elapsed"]]
    fit <- fits[[name]]()
    results[[name]] <- rbind(results[[name]], c(rmse(predict(fit, test$x), test$y), proc.time()[["elapsed"]] - t0))
  }
}
out <- c(out, "## Friedman #1", "",
         "10,000 training and 10,000 test rows (x uniform on [0, 1]^10, noise sd 1: the best test RMSE is 1); 500 features or centers; gaussian kernel with the median-distance bandwidth; lambda by GCV. Mean test RMSE over 3 seeds (data and map); time in seconds (map + fit + GCV), median.",
         "Target: every Nystroem rule at least as accurate as rff.", "",
         "| map | test RMSE | (sd) | time (s) |", "| --- | --- | --- | --- |",
         sprintf("| %s | %.4f | %.4f | %.1f |", names(results), sapply(results, function(r) mean(r[, 1])),
                 sapply(results, function(r) sd(r[, 1])), sapply(results, function(r) median(r[, 2]))), "")

out <- c(out, sprintf("load average at the end: %s", readLines("/proc/loadavg")),
         sprintf("Whole script: %.0f s.", proc.time()[["elapsed"]] - started))
write_result(out, "nystrom.md")
} else if (part == "root") {
# 5. K_CC^(-1/2) for a map with M centers (Friedman #1 inputs, d = 10,
#    median-heuristic bandwidth, uniform centers): kitchen's path (tridiagonal
#    reduction, MRRR, SIMD product) against R's eigen() (option
#    kitchen.tridiagonal = "lapack"), alternating, one run each, in this
#    process; and how far apart the two are.
m_list <- if (length(args) > 1) as.integer(args[-1]) else c(1000L, 2048L)
set.seed(17)
x <- matrix(runif(max(m_list) * 10), max(m_list), 10)
rows <- character(0)
for (m in m_list) {
  map <- nystrom(x[seq_len(m), ], m, seed = 1)
  k_cc <- kernel_matrix(map$centers, kernel = map$kernel)
  timed <- function(option) {
    old <- options(kitchen.tridiagonal = option)
    on.exit(options(old))
    gc()
    t0 <- proc.time()
    root <- kitchen:::inverse_square_root(k_cc)
    t1 <- proc.time()
    list(root = root, wall = (t1 - t0)[["elapsed"]], cpu = sum((t1 - t0)[c(1, 2)]))
  }
  own <- timed("auto")
  ref <- timed("lapack")
  k_test <- kernel_matrix(x[sample(nrow(x), min(nrow(x), 500)), ], map$centers, kernel = map$kernel)
  gap <- max(abs(tcrossprod(k_test %*% own$root$matrix) - tcrossprod(k_test %*% ref$root$matrix)))
  rows <- c(rows, sprintf("| %d | %d | %d | %.1f | %.1f | %.1f | %.1f | %.2f | %.1e |", m, own$root$rank,
                          ref$root$rank, own$wall, own$cpu, ref$wall, ref$cpu, ref$wall / own$wall, gap))
}
out <- c(out, "## K_CC^(-1/2): kitchen against eigen()", "",
         "K_CC of M uniform centers of Friedman #1 inputs (d = 10, standard scaling, median-heuristic bandwidth); kitchen: tridiagonal reduction on threads, LAPACK dstemr on the kept eigenpairs, SIMD product (src/inverse_root.cpp); eigen(): R's eigen(symmetric = TRUE) (LAPACK dsyevr on R's BLAS) and tcrossprod, the path before. One run each, kitchen first, same process. Seconds: wall and CPU (user + system, all threads). gap = max |Z Z' difference| on 500 rows (kernel values at most 1).",
         sprintf("load average at the end: %s", readLines("/proc/loadavg")), "",
         "| M | rank (kitchen) | rank (eigen) | kitchen wall | kitchen CPU | eigen() wall | eigen() CPU | eigen / kitchen wall | gap |",
         "| --- | --- | --- | --- | --- | --- | --- | --- | --- |", rows, "",
         sprintf("Whole script: %.0f s.", proc.time()[["elapsed"]] - started))
write_result(out, "nystrom-root.md")
} else if (part == "falkon") {
# 4. FALKON against the direct solve: krr_fit(solver = "falkon") and the
#    default solver on the same Nystroem map and lambda, each in its own
#    process (peak RSS = VmHWM, data and map included), Friedman #1 with n
#    training rows and 10,000 test rows, gaussian kernel with the median
#    heuristic, uniform centers, lambda = 1e-4 n.
n_fit <- if (length(args) > 1) as.integer(args[2]) else 50000L
m_list <- if (length(args) > 2) as.integer(args[-(1:2)]) else c(2000L, 4000L)
dir <- tempfile("falkon-bench")
dir.create(dir)
set.seed(17)
friedman <- function(n) {
  x <- matrix(runif(n * 10), n, 10)
  list(x = x, y = 10 * sin(pi * x[, 1] * x[, 2]) + 20 * (x[, 3] - 0.5)^2 + 10 * x[, 4] + 5 * x[, 5] + rnorm(n))
}
train <- friedman(n_fit)
test <- friedman(10000)
lambda <- 1e-4 * n_fit
solvers <- strsplit(Sys.getenv("KITCHEN_BENCH_SOLVERS", "direct,falkon"), ",")[[1]]
child <- '
library(kitchen); args <- commandArgs(TRUE); b <- readRDS(args[1])
hwm <- function() as.numeric(gsub("[^0-9]", "", grep("VmHWM", readLines("/proc/self/status"), value = TRUE))) / 1024
if (args[2] == "map") {
  t0 <- proc.time()[["elapsed"]]
  map <- nystrom(b$train$x, b$m, seed = 1)
  t1 <- proc.time()[["elapsed"]]
  b$map <- map
  saveRDS(b, args[1], compress = FALSE)  # 800 MB of K_CC^(-1/2) at M = 10,000
  saveRDS(list(time = t1 - t0, hwm = hwm(), rank = map$rank), args[3])
} else {
  t0 <- proc.time()[["elapsed"]]
  fit <- krr_fit(b$train$x, b$train$y, b$map, lambda = b$lambda, solver = args[2], verbose = FALSE)
  t1 <- proc.time()[["elapsed"]]
  p <- predict(fit, b$test$x)
  saveRDS(list(time = t1 - t0, hwm = hwm(), pred = p, iterations = fit$solver$iterations), args[3])
}'
writeLines(child, file.path(dir, "child.R"))
run_child <- function(bundle, what) {
  result <- file.path(dir, paste0(what, ".rds"))
  system2("Rscript", c(file.path(dir, "child.R"), bundle, what, result))
  readRDS(result)
}
none <- list(time = NA_real_, hwm = NA_real_, pred = rep(NA_real_, nrow(test$x)), iterations = NA_integer_)
rows <- character(0)
for (m in m_list) {
  # The map in its own process too: its time and peak memory (K_CC^(-1/2)).
  bundle <- file.path(dir, "bundle.rds")
  saveRDS(list(train = train, test = test, m = m, lambda = lambda), bundle)
  built <- run_child(bundle, "map")
  res <- lapply(c("direct", "falkon"), function(solver) {
    if (solver %in% solvers) run_child(bundle, solver) else none
  })
  rmse <- sapply(res, function(r) sqrt(mean((r$pred - test$y)^2)))
  gap <- max(abs(res[[2]]$pred - res[[1]]$pred)) / sd(res[[1]]$pred)
  rows <- c(rows, sprintf("| %d | %.1f | %.0f | %d | %.1f | %.0f | %.4f | %.1f | %.0f | %d | %.4f | %.2e | %.2f |",
                          m, built$time, built$hwm, built$rank, res[[1]]$time, res[[1]]$hwm, rmse[1],
                          res[[2]]$time, res[[2]]$hwm, res[[2]]$iterations, rmse[2], gap,
                          res[[1]]$time / res[[2]]$time))
}
out <- c(out, "## FALKON against the direct solve", "",
         sprintf("Friedman #1, n = %d training rows (d = 10), 10,000 test rows (noise sd 1: the best RMSE is 1); nystrom(x, M) with uniform centers and the median-heuristic bandwidth, standard scaling; lambda = 1e-4 n = %g; krr_fit(solver = \"direct\") and krr_fit(solver = \"falkon\") (tol = 1e-6) on the same map. The map, each fit and its predictions run in their own Rscript process, one after the other (solvers run: %s). Times in seconds: map = nystrom() (centers, K_CC and K_CC^(-1/2)); fit = krr_fit() alone. Peak RSS = VmHWM of each process in MB (data and map included); rank = the map's rank (eigenvalues of K_CC kept); gap = max |prediction difference| / sd(predictions).", n_fit, lambda, paste(solvers, collapse = " and ")),
         sprintf("load average at the end: %s", readLines("/proc/loadavg")), "",
         "| M | map (s) | map peak MB | rank | direct fit (s) | direct peak MB | direct test RMSE | FALKON fit (s) | FALKON peak MB | iterations | FALKON test RMSE | gap | direct / FALKON time |",
         "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |", rows, "",
         sprintf("Whole script: %.0f s.", proc.time()[["elapsed"]] - started))
write_result(out, if (length(m_list) == 1) sprintf("nystrom-falkon-M%d.md", m_list) else "nystrom-falkon.md")
} else {
# 3. Speed against scikit-learn, each run in its own process.
n_speed <- if (length(args) > 1) as.integer(args[2]) else 100000L
m_speed <- if (length(args) > 2) as.integer(args[3]) else 2048L
repeats <- if (length(args) > 3) as.integer(args[4]) else 3L
modes <- if (length(args) > 4) strsplit(args[5], ",")[[1]] else c("transform", "end_to_end")
dir <- tempfile("nystrom-bench")
dir.create(dir)
set.seed(3)
d_speed <- 64
xs <- matrix(rnorm(n_speed * d_speed), n_speed, d_speed)
ys <- sin(xs[, 1]) + xs[, 2] * xs[, 3] + rnorm(n_speed, sd = 0.1)
sigma <- sqrt(d_speed)  # gaussian kernel exp(-||r||^2 / (2 sigma^2)); sklearn gamma = 1 / (2 sigma^2)
penalty <- 1e-3         # both minimise ||y - Z w||^2 + penalty ||w||^2 (sklearn Ridge alpha)
write.csv(data.frame(y = ys, xs), file.path(dir, "data.csv"), row.names = FALSE)
saveRDS(list(x = xs, y = ys), file.path(dir, "data.rds"))

r_child <- sprintf('
library(kitchen); data <- readRDS("%s"); x <- data$x; y <- data$y; mode <- "MODE"
t0 <- proc.time()[["elapsed"]]
if (mode == "transform") {
  map <- nystrom(x, %d, sigma = %g, scale = "none", seed = 1)
  t1 <- proc.time()[["elapsed"]]
  z <- predict(map, x)
} else {
  map <- nystrom(x, %d, sigma = %g, scale = "none", seed = 1)
  t1 <- t0
  fit <- krr_fit(x, y, features = map, lambda = %g, verbose = FALSE)
  z <- predict(fit, x)
}
t2 <- proc.time()[["elapsed"]]
hwm <- as.numeric(gsub("[^0-9]", "", grep("VmHWM", readLines("/proc/self/status"), value = TRUE))) / 1024
cat(sprintf("%%.3f %%.3f %%.0f\\n", t1 - t0, t2 - t1, hwm))',
  file.path(dir, "data.rds"), m_speed, sigma, m_speed, sigma, penalty)
py_child <- sprintf('
import sys, time, numpy as np
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import Ridge
data = np.loadtxt("%s", delimiter=",", skiprows=1)
y, x = data[:, 0], np.ascontiguousarray(data[:, 1:])
mode = sys.argv[1]
t0 = time.time()
ny = Nystroem(kernel="rbf", gamma=%.17g, n_components=%d, random_state=1).fit(x)
t1 = time.time()
if mode == "transform":
    z = ny.transform(x)
else:
    t1 = t0
    ridge = Ridge(alpha=%.17g).fit(ny.transform(x), y)
    p = ridge.predict(ny.transform(x))
t2 = time.time()
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]
print("%%.3f %%.3f %%.0f" %% (t1 - t0, t2 - t1, int(hwm) / 1024))',
  file.path(dir, "data.csv"), 1 / (2 * sigma^2), m_speed, penalty)
writeLines(r_child, file.path(dir, "child.R"))
writeLines(py_child, file.path(dir, "child.py"))
run <- function(lang, mode) {
  cmd <- if (lang == "R") c("Rscript", file.path(dir, "child.R"), mode) else c("/usr/bin/python3", file.path(dir, "child.py"), mode)
  if (lang == "R") writeLines(sub("MODE", mode, r_child, fixed = TRUE), file.path(dir, "child.R"))
  line <- system2(cmd[1], cmd[-1], stdout = TRUE, env = "OMP_NUM_THREADS=2")
  as.numeric(strsplit(tail(line, 1), " ")[[1]])
}
langs <- strsplit(Sys.getenv("KITCHEN_BENCH_LANGS", "R,python"), ",")[[1]]
speed <- NULL
for (mode in modes) {
  for (rep in seq_len(repeats)) {  # interleaved, medians reported
    for (lang in langs) speed <- rbind(speed, data.frame(mode, rep, lang, t(run(lang, mode))))
  }
}
names(speed)[4:6] <- c("setup", "time", "peak_mb")
med <- aggregate(cbind(setup, time, peak_mb) ~ mode + lang, speed, median)
get <- function(mode, lang, col) {
  value <- med[med$mode == mode & med$lang == lang, col]
  if (length(value)) value else NA_real_
}
load <- readLines("/proc/loadavg")
out <- c(out, "## Speed against scikit-learn", "",
         sprintf("n = %d, d = %d, M = %d centers, gaussian kernel (sklearn rbf, same gamma), each run in its own process (kitchen: Rscript; sklearn: /usr/bin/python3), R and Python interleaved (run here: %s), %d runs each, medians. transform: time of the features of the n rows (after fitting the map: 'setup' = choosing centers and K_CC^(-1/2)). end to end: map + ridge fit at a fixed penalty + predictions on the n rows; peak RSS = VmHWM (data included).",
                 n_speed, d_speed, m_speed, paste(langs, collapse = " and "), repeats),
         sprintf("load average at the end: %s", load), "",
         "| task | kitchen (s) | sklearn (s) | sklearn / kitchen | kitchen peak MB | sklearn peak MB | memory ratio |",
         "| --- | --- | --- | --- | --- | --- | --- |",
         sprintf("| features (transform) | %.2f | %.2f | %.2f | %.0f | %.0f | %.2f |",
                 get("transform", "R", "time"), get("transform", "python", "time"),
                 get("transform", "python", "time") / get("transform", "R", "time"),
                 get("transform", "R", "peak_mb"), get("transform", "python", "peak_mb"),
                 get("transform", "R", "peak_mb") / get("transform", "python", "peak_mb")),
         sprintf("| map setup (centers, K_CC^(-1/2)) | %.2f | %.2f | %.2f | | | |",
                 get("transform", "R", "setup"), get("transform", "python", "setup"),
                 get("transform", "python", "setup") / get("transform", "R", "setup")),
         sprintf("| Nystroem + ridge end to end | %.2f | %.2f | %.2f | %.0f | %.0f | %.2f |",
                 get("end_to_end", "R", "time"), get("end_to_end", "python", "time"),
                 get("end_to_end", "python", "time") / get("end_to_end", "R", "time"),
                 get("end_to_end", "R", "peak_mb"), get("end_to_end", "python", "peak_mb"),
                 get("end_to_end", "R", "peak_mb") / get("end_to_end", "python", "peak_mb")),
         "", sprintf("Whole script: %.0f s.", proc.time()[["elapsed"]] - started))
write_result(out, if (length(modes) == 2) "nystrom-speed.md" else sprintf("nystrom-speed-%s.md", modes))
}
