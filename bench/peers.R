# kitchen against what R and Python users already use for kernel ridge
# regression: kernlab's gausspr() (exact Gaussian process regression, the
# same estimator as kernel ridge regression), scikit-learn's RBFSampler +
# Ridge, Nystroem + Ridge and KernelRidge (exact), next to kitchen's rff /
# fastfood + krr_fit() and exact KRR through kernel_matrix(). Test error,
# time and peak memory at growing n, up to where the exact methods no
# longer fit in memory and beyond. Run from the repository root:
#   Rscript bench/peers.R            # n = 2k, 8k, 16k, 100k, 1M (about 15 min)
#   Rscript bench/peers.R --quick    # n = 2k, 8k, 100k
# (or KITCHEN_BENCH_QUICK=1). Results: bench/results/peers.md, peers.png.
#
# Problem: Friedman's regression function #1 (10 inputs, 5 of them used),
# x uniform on [-1, 1]^10, noise sd 1, 10000 test rows; the same data for
# every method (written to a file the child reads). One kernel for all:
# gaussian, with sigma and lambda chosen once by kitchen's GCV on the
# n = 2000 training set (rff, 1024 features; lambda >= 1e-3, as kernlab
# refuses less) and lambda then grown with n
# (all these estimators minimise a sum of squares over rows, so the same
# per-row penalty is lambda proportional to n). Peers get no tuning of
# their own (grid searches would multiply their times).
#
# Every fit runs in its own process (Rscript / python3), which reads the
# data, fits, predicts and prints its test RMSE, seconds (fit + predict,
# data loading excluded) and peak resident memory (VmHWM from
# /proc/self/status, data included), so that each peak is its own.

n_test <- 10000
n_features <- 1024
data_dims <- 10

# --- Child processes (R) -------------------------------------------------------

read_problem <- function(file) {
  con <- file(file, "rb")
  on.exit(close(con))
  n <- readBin(con, "integer", 1)
  list(x = matrix(readBin(con, "double", n * data_dims), n, data_dims),
       y = readBin(con, "double", n),
       x_test = matrix(readBin(con, "double", n_test * data_dims), n_test, data_dims),
       y_test = readBin(con, "double", n_test))
}

child <- function(method, file, sigma, lambda) {
  p <- read_problem(file)
  if (grepl("kitchen", method)) library(kitchen)
  if (method == "kernlab gausspr") suppressPackageStartupMessages(library(kernlab))
  started <- proc.time()[["elapsed"]]
  yhat <- switch(method,
    "kitchen rff" = , "kitchen fastfood" = {
      build <- if (method == "kitchen rff") rff else fastfood
      map <- build(p$x, n_features, sigma = sigma, scale = "none", seed = 1)
      predict(krr_fit(p$x, p$y, map, lambda = lambda, n_threads = 2, verbose = FALSE),
              p$x_test, n_threads = 2)
    },
    "kitchen exact" = {
      # (K + lambda I) alpha = y - mean(y): Cholesky, then kernel_matrix for the test rows.
      kernel <- kernel_gaussian(sigma)
      k <- kernel_matrix(p$x, kernel = kernel, n_threads = 2)
      diag(k) <- diag(k) + lambda
      factor <- chol(k)
      rm(k)
      alpha <- backsolve(factor, backsolve(factor, p$y - mean(p$y), transpose = TRUE))
      rm(factor)
      drop(mean(p$y) + kernel_matrix(p$x_test, p$x, kernel = kernel, n_threads = 2) %*% alpha)
    },
    "kernlab gausspr" = {
      # rbfdot's sigma is the inverse width: exp(-sigma ||x - y||^2).
      fit <- gausspr(p$x, p$y, kernel = "rbfdot", kpar = list(sigma = 1 / (2 * sigma^2)),
                     var = lambda, scaled = FALSE, type = "regression")
      drop(predict(fit, p$x_test))
    })
  seconds <- proc.time()[["elapsed"]] - started
  source(file.path("bench", "common.R"))
  cat(sqrt(mean((yhat - p$y_test)^2)), seconds, peak_memory_mb(), "\n")
}

arguments <- commandArgs(TRUE)
if (length(arguments) && arguments[1] == "--child") {
  child(arguments[2], arguments[3], as.numeric(arguments[4]), as.numeric(arguments[5]))
  quit(save = "no")
}

# --- Child processes (Python) ------------------------------------------------------

python_child <- '
import sys, time, numpy as np
method, file, sigma, lam, D, d, n_test = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
from sklearn.kernel_approximation import RBFSampler, Nystroem
from sklearn.linear_model import Ridge
from sklearn.kernel_ridge import KernelRidge
with open(file, "rb") as f:
    n = int(np.fromfile(f, dtype=np.int32, count=1)[0])
    x = np.fromfile(f, dtype=np.float64, count=n * d).reshape((d, n)).T.copy()
    y = np.fromfile(f, dtype=np.float64, count=n)
    xt = np.fromfile(f, dtype=np.float64, count=n_test * d).reshape((d, n_test)).T.copy()
    yt = np.fromfile(f, dtype=np.float64, count=n_test)
gamma = 1.0 / (2 * sigma ** 2)
t0 = time.perf_counter()
if method == "KernelRidge":
    # no intercept in KernelRidge: centre y as kitchen exact does
    m = KernelRidge(alpha=lam, kernel="rbf", gamma=gamma).fit(x, y - y.mean())
    yhat = y.mean() + m.predict(xt)
else:
    mapper = (RBFSampler if method == "RBFSampler" else Nystroem)(gamma=gamma, n_components=D, random_state=1)
    z = mapper.fit_transform(x)
    m = Ridge(alpha=lam, solver="cholesky").fit(z, y)
    yhat = m.predict(mapper.transform(xt))
seconds = time.perf_counter() - t0
peak = [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]
print(np.sqrt(np.mean((yhat - yt) ** 2)), seconds, int(peak) / 1024)
'

# --- Parent -------------------------------------------------------------------------

quick <- "--quick" %in% arguments || nzchar(Sys.getenv("KITCHEN_BENCH_QUICK"))
source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))
started_script <- proc.time()[["elapsed"]]
sizes <- if (quick) c(2000, 8000, 1e5) else c(2000, 8000, 16000, 1e5, 1e6)
budget_gb <- 12  # half the machine's RAM, which is shared

# Friedman #1 on [-1, 1]^10 (the function takes inputs in [0, 1]).
friedman <- function(n) {
  x <- matrix(stats::runif(n * data_dims, -1, 1), n, data_dims)
  u <- (x + 1) / 2
  y <- 10 * sin(pi * u[, 1] * u[, 2]) + 20 * (u[, 3] - 0.5)^2 + 10 * u[, 4] + 5 * u[, 5] +
    stats::rnorm(n)
  list(x = x, y = y)
}
set.seed(8)
test <- friedman(n_test)
write_problem <- function(train, file) {
  con <- file(file, "wb")
  on.exit(close(con))
  writeBin(nrow(train$x), con)
  writeBin(as.vector(train$x), con)
  writeBin(train$y, con)
  writeBin(as.vector(test$x), con)
  writeBin(test$y, con)
}

# sigma and the per-row lambda, by kitchen's GCV on the n = 2000 training set.
set.seed(1)
tuning <- friedman(2000)
# kernlab refuses var <= 1e-3, so the lambda candidates start there.
tuned <- krr_fit(tuning$x, tuning$y, rff(tuning$x, n_features, scale = "none", seed = 1),
                 sigma = "auto", lambda = 10^seq(-3, 2, by = 0.25), n_threads = 2,
                 verbose = FALSE)
sigma <- tuned$map$kernel$sigma
lambda_per_row <- tuned$lambda / 2000

# The first python3 that has scikit-learn (Debian's, or the one on the PATH).
pythons <- unique(c("/usr/bin/python3", unname(Sys.which("python3"))))
pythons <- pythons[nzchar(pythons) & file.exists(pythons)]
has_sklearn <- vapply(pythons, function(p) {
  system2(p, c("-c", shQuote("import sklearn")), stdout = FALSE, stderr = FALSE) == 0
}, TRUE)
python <- pythons[has_sklearn][1]
have_python <- !is.na(python)
have_kernlab <- requireNamespace("kernlab", quietly = TRUE)
methods <- data.frame(
  method = c("kitchen rff", "kitchen fastfood", "kitchen exact", "kernlab gausspr",
             "sklearn RBFSampler + Ridge", "sklearn Nystroem + Ridge", "sklearn KernelRidge"),
  python = c(NA, NA, NA, NA, "RBFSampler", "Nystroem", "KernelRidge"),
  exact = c(FALSE, FALSE, TRUE, TRUE, FALSE, FALSE, TRUE))
unavailable <- c(if (!have_kernlab) "kernlab gausspr",
                 if (!have_python) grep("sklearn", methods$method, value = TRUE))
for (m in unavailable) message("skipping ", m, ": not installed")

# Rough memory needs in GB, to skip what would not fit instead of swapping:
# exact methods hold the n x n kernel matrix and a factor or copy of it
# (kernlab several), plus the test kernel rows; sklearn's feature maps hold
# dense n x D matrices (the projection and the features).
needed_gb <- function(method, n) {
  copies <- switch(method, "kernlab gausspr" = 4, "sklearn KernelRidge" = 3, 2)
  if (method %in% methods$method[methods$exact]) return((copies * n^2 + n_test * n) * 8 / 1e9)
  if (grepl("sklearn", method)) return(2.5 * n * n_features * 8 / 1e9)
  (n * data_dims + 4096 * n_features + 2 * n_features^2) * 8 / 1e9  # kitchen: blocks and Z'Z
}

threads_env <- c("OPENBLAS_NUM_THREADS=2", "OMP_NUM_THREADS=2", "MKL_NUM_THREADS=2")
run_child <- function(method, file, lambda) {
  python_method <- methods$python[methods$method == method]
  out <- if (is.na(python_method)) {
    system2(file.path(R.home("bin"), "Rscript"),
            c("bench/peers.R", "--child", shQuote(method), file, sigma, lambda),
            stdout = TRUE, env = threads_env)
  } else {
    system2(python, c("-c", shQuote(python_child), python_method, file, sigma, lambda, n_features,
                         data_dims, n_test), stdout = TRUE, env = threads_env)
  }
  values <- suppressWarnings(as.numeric(strsplit(trimws(utils::tail(out, 1)), " +")[[1]]))
  if (length(values) != 3 || anyNA(values)) stop("child failed: ", paste(out, collapse = "\n"))
  values
}

rows <- list()
file <- tempfile(fileext = ".bin")
for (n in sizes) {
  set.seed(n)
  write_problem(friedman(n), file)
  lambda <- lambda_per_row * n
  for (method in setdiff(methods$method, unavailable)) {
    need <- needed_gb(method, n)
    row <- data.frame(n = n, method = method, rmse = NA, seconds = NA, peak_mb = NA, note = "")
    if (need > budget_gb) {
      row$note <- sprintf("skipped: would need about %.0f GB", need)
    } else {
      result <- tryCatch(run_child(method, file, lambda), error = function(e) conditionMessage(e))
      if (is.character(result)) {
        row$note <- paste("failed:", gsub("\\s+", " ", substr(result, 1, 120)))
      } else {
        row[c("rmse", "seconds", "peak_mb")] <- as.list(result)
      }
    }
    message(sprintf("n = %g, %s: %s", n, method,
                    if (nzchar(row$note)) row$note else sprintf("RMSE %.3f, %.1f s, %.0f MB", row$rmse, row$seconds, row$peak_mb)))
    rows[[length(rows) + 1]] <- row
  }
}
unlink(file)
results <- do.call(rbind, rows)

# --- Plot and report --------------------------------------------------------------

result_png("peers.png", width = 1200, height = 550)
par(mfrow = c(1, 2), mar = c(4.5, 4.5, 3, 1))
shown_methods <- unique(results$method)
colours <- stats::setNames(grDevices::hcl.colors(length(shown_methods), "Dark 3"), shown_methods)
for (what in c("seconds", "peak_mb")) {
  ok <- !is.na(results[[what]])
  plot(NULL, xlim = range(sizes), ylim = range(results[[what]][ok]), log = "xy",
       xlab = "training rows n", ylab = if (what == "seconds") "seconds (fit + predict)" else "peak RSS (MB)",
       main = if (what == "seconds") "Time against n" else "Peak memory against n")
  for (m in shown_methods) {
    s <- results[results$method == m & ok, ]
    lines(s$n, s[[what]], type = "b", pch = 19, col = colours[[m]], lty = if (grepl("kitchen", m)) 1 else 2)
  }
  if (what == "seconds") legend("topleft", shown_methods, col = colours, lty = ifelse(grepl("kitchen", shown_methods), 1, 2),
                                pch = 19, cex = 0.8, bg = "white")
}
invisible(dev.off())

shown <- data.frame(
  n = format(results$n, big.mark = ",", scientific = FALSE), method = results$method,
  `test RMSE` = ifelse(is.na(results$rmse), "-", sprintf("%.3f", results$rmse)),
  `time (s)` = ifelse(is.na(results$seconds), "-", sprintf("%.1f", results$seconds)),
  `peak RSS (MB)` = ifelse(is.na(results$peak_mb), "-", sprintf("%.0f", results$peak_mb)),
  note = results$note, check.names = FALSE)
versions <- c(
  sprintf("kernlab %s", if (have_kernlab) as.character(utils::packageVersion("kernlab")) else "not installed"),
  if (have_python) paste("scikit-learn", system2(python, c("-c", shQuote("import sklearn; print(sklearn.__version__)")), stdout = TRUE))
  else "scikit-learn: not available")
total_minutes <- (proc.time()[["elapsed"]] - started_script) / 60

write_result(c(
  "# kitchen against kernlab and scikit-learn", "",
  machine_description(), paste(versions, collapse = "; "), "",
  sprintf("Command: `Rscript bench/peers.R%s`; the whole script took %.0f min.",
          if (quick) " --quick" else "", total_minutes), "",
  sprintf("Friedman #1 regression (d = %d, x uniform on [-1, 1], noise sd 1, so the best possible test RMSE is about 1), %d test rows.",
          data_dims, n_test),
  sprintf("Gaussian kernel, sigma = %.3g and lambda = %.3g x n, chosen once by kitchen's GCV (rff, 1024 features; sigma among 1/4 .. 4 x the median distance, lambda among 10^(-3 .. 2), as kernlab refuses var <= 1e-3) on the n = 2000 training set; every method uses them (kernlab: rbfdot sigma = 1 / (2 sigma^2), var = lambda; sklearn: gamma = 1 / (2 sigma^2), alpha = lambda).",
          sigma, lambda_per_row),
  sprintf("Approximate methods use %d features (kitchen rff / fastfood: cos_sin; RBFSampler: cos with phases; Nystroem: %d landmark rows). Exact methods: kitchen `kernel_matrix()` + Cholesky, kernlab `gausspr()`, sklearn `KernelRidge`.",
          n_features, n_features),
  "Each fit runs in its own process with OPENBLAS_NUM_THREADS=2; time is fit + test predictions (not data loading); peak RSS is the process's VmHWM (R or Python itself and the data included).",
  sprintf("Methods whose rough memory estimate exceeds %d GB (half this shared machine's RAM) are skipped, not run.", budget_gb),
  timing_note(), "",
  markdown_table(shown), "",
  "![time and memory against n](peers.png)"
), "peers.md")
