# Benchmark of krr_fit() end to end (features + Z'Z + solve) against
# scikit-learn's RBFSampler + Ridge(solver = "cholesky"), for the targets of
# the krr_fit issue. Run from the repository root: Rscript bench/krr.R
# Results go to bench/results/krr.md. Each fit runs in its own process so
# its peak resident memory (getrusage of the child) is its own.

n <- 100000; d <- 64; n_features <- 2048; lambda <- 1

fit_r <- function() {
  library(kitchen)
  set.seed(1)
  x <- matrix(rnorm(n * d), n, d)
  y <- sin(x[, 1]) + rnorm(n, sd = 0.1)
  map <- rff(d, n_features, sigma = sqrt(d), seed = 1)
  gcv <- "--gcv" %in% commandArgs(TRUE)
  t <- system.time(fit <- krr_fit(x, y, map, lambda = if (gcv) "gcv" else lambda,
                                  n_threads = 2, verbose = FALSE))[["elapsed"]]
  cat(t, "\n")
}

if ("--fit" %in% commandArgs(TRUE)) {
  fit_r()
  quit(save = "no")
}

source(file.path("bench", "common.R"))
python <- sprintf("
import time, numpy as np
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import Ridge
rng = np.random.default_rng(1)
x = rng.standard_normal((%d, %d)); y = np.sin(x[:, 0]) + 0.1 * rng.standard_normal(%d)
t0 = time.perf_counter()
z = RBFSampler(gamma=1.0 / (2 * %d), n_components=%d, random_state=1).fit_transform(x)
Ridge(alpha=%g, solver='cholesky').fit(z, y)
print(time.perf_counter() - t0)
", n, d, n, d, n_features, lambda)

# Elapsed seconds printed by the child and its peak RSS in MB (GNU time),
# medians over 3 runs (the runs of all settings are interleaved below, so
# a noisy moment on this shared machine does not hit one setting only).
run <- function(command, args, env = character()) {
  log <- tempfile()
  out <- system2("/usr/bin/time", c("-f", "%M", "-o", log, command, args), stdout = TRUE,
                 env = env)
  c(seconds = as.numeric(utils::tail(out, 1)), peak_mb = as.numeric(readLines(log)) / 1024)
}
rscript <- file.path(R.home("bin"), "Rscript")
reference <- "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"
settings <- list(
  "scikit-learn RBFSampler + Ridge(cholesky), OpenBLAS" =
    list("/usr/bin/python3", c("-c", shQuote(python)), c("OPENBLAS_NUM_THREADS=2")),
  "kitchen rff + krr_fit, fixed lambda, OpenBLAS" =
    list(rscript, c("bench/krr.R", "--fit"), "OPENBLAS_NUM_THREADS=2"),
  "kitchen rff + krr_fit, GCV over 50 lambdas, OpenBLAS" =
    list(rscript, c("bench/krr.R", "--fit", "--gcv"), "OPENBLAS_NUM_THREADS=2"),
  "kitchen rff + krr_fit, fixed lambda, reference BLAS" =
    list(rscript, c("bench/krr.R", "--fit"), reference),
  "kitchen rff + krr_fit, GCV over 50 lambdas, reference BLAS" =
    list(rscript, c("bench/krr.R", "--fit", "--gcv"), reference))
runs <- lapply(1:3, function(r) t(vapply(settings, function(s) run(s[[1]], s[[2]], s[[3]]), numeric(2))))
results <- apply(simplify2array(runs), c(1, 2), stats::median)
ratio <- results[1, 1] / results[2, 1]
lines <- c("| fit | seconds (median of 3) | peak RSS (MB) |", "| --- | --- | --- |",
           sprintf("| %s | %.2f | %.0f |", rownames(results), results[, 1], results[, 2]), "",
           sprintf("scikit-learn / kitchen (fixed lambda, OpenBLAS): %.2fx faster; peak RSS %.0f%% of scikit-learn's; GCV adds %.1f%% (OpenBLAS) and %.1f%% (reference BLAS).",
                   ratio, 100 * results[2, 2] / results[1, 2], 100 * (results[3, 1] / results[2, 1] - 1),
                   100 * (results[5, 1] / results[4, 1] - 1)),
           "Z'Z runs on kitchen's AVX-512 kernels in every kitchen row (the default on this CPU, whatever the BLAS); the BLAS still takes the random Fourier projection.")
write_result(c(
  "# krr_fit() benchmark", "",
  machine_description(), "",
  sprintf("n = %d, d = %d, %d features (gaussian rff, cos_sin), lambda = %g, 2 threads;", n, d, n_features, lambda),
  "time from data in memory to fitted coefficients (features + Z'Z + solve), one",
  "process per fit, peak RSS of that process from GNU time (includes the data).", "",
  lines
), "krr.md")
