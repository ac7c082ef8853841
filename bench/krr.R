# krr_fit() end to end (features + Z'Z + solve) against scikit-learn's
# RBFSampler + Ridge(solver = "cholesky"), and the features alone, side by
# side in one run; with a second library, the same fit with another build of
# kitchen (for example main before a change) in the same run. The cost of
# memory touched for the first time is measured in the same run: it decides
# much of an end-to-end figure on a machine where fresh pages are slow.
# Run from the repository root:
#   nice -n 10 Rscript bench/krr.R [library of a build to compare with]
# Results go to bench/results/krr.md. Each fit runs in its own process, so
# its peak resident memory (GNU time) is its own; the settings alternate
# over 3 rounds and the medians are reported.

# Options: --n=ROWS (default 1e5), --rounds=R (default 3), --no-sklearn
# (scikit-learn's Ridge on the reference BLAS takes minutes at n = 1e5).
option <- function(name, default) {
  hit <- grep(sprintf("^--%s=", name), commandArgs(TRUE), value = TRUE)
  if (length(hit)) as.numeric(sub(".*=", "", hit[1])) else default
}
n <- option("n", 100000); d <- 64; n_features <- 2048; lambda <- 1
rounds <- option("rounds", 3)

# Child: seconds for the fit, then for the features alone, twice: the
# second result lands in memory the process has used and given back.
fit_r <- function() {
  suppressPackageStartupMessages(library(kitchen))
  set.seed(1)
  x <- matrix(rnorm(n * d), n, d)
  y <- sin(x[, 1]) + rnorm(n, sd = 0.1)
  map <- rff(d, n_features, sigma = sqrt(d), seed = 1)
  fit <- system.time(krr_fit(x, y, map, lambda = lambda, n_threads = 2,
                             verbose = FALSE))[["elapsed"]]
  features <- system.time(z <- predict(map, x, n_threads = 2))[["elapsed"]]
  rm(z); invisible(gc())
  again <- system.time(z <- predict(map, x, n_threads = 2))[["elapsed"]]
  cat(fit, features, again, "\n")
}

# Child: the features alone, twice, as the first large result of a new
# process (as RBFSampler's are in python_features below).
features_r <- function() {
  suppressPackageStartupMessages(library(kitchen))
  set.seed(1)
  x <- matrix(rnorm(n * d), n, d)
  map <- rff(d, n_features, sigma = sqrt(d), seed = 1)
  first <- system.time(z <- predict(map, x, n_threads = 2))[["elapsed"]]
  rm(z); invisible(gc())
  again <- system.time(z <- predict(map, x, n_threads = 2))[["elapsed"]]
  cat(NA, first, again, "\n")
}

# Child: seconds to allocate and fill 0.8 GB, and to rewrite it.
first_touch <- function() {
  fresh <- system.time(a <- rep(1, 1e8))[["elapsed"]]
  again <- system.time(a[] <- 2)[["elapsed"]]
  cat(fresh, again, NA, "\n")
}

if ("--fit" %in% commandArgs(TRUE)) {
  fit_r()
  quit(save = "no")
}
if ("--features" %in% commandArgs(TRUE)) {
  features_r()
  quit(save = "no")
}
if ("--touch" %in% commandArgs(TRUE)) {
  first_touch()
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
fit = time.perf_counter() - t0
features = []
for repeat in range(2):
    del z
    t0 = time.perf_counter()
    z = RBFSampler(gamma=1.0 / (2 * %d), n_components=%d, random_state=1).fit_transform(x)
    features.append(time.perf_counter() - t0)
print(fit, features[0], features[1])
", n, d, n, d, n_features, lambda, d, n_features)
# RBFSampler's features as the first large array of a new process, as
# kitchen's first predict() is (its fit makes no n x D matrix).
python_features <- sprintf("
import time, numpy as np
from sklearn.kernel_approximation import RBFSampler
rng = np.random.default_rng(1)
x = rng.standard_normal((%d, %d))
features = []
for repeat in range(2):
    z = None
    t0 = time.perf_counter()
    z = RBFSampler(gamma=1.0 / (2 * %d), n_components=%d, random_state=1).fit_transform(x)
    features.append(time.perf_counter() - t0)
print('nan', features[0], features[1])
", n, d, d, n_features)

# The child's three printed figures and its peak RSS in MB (GNU time).
run <- function(command, args, env = character()) {
  log <- tempfile()
  out <- system2("/usr/bin/time", c("-f", "%M", "-o", log, command, args), stdout = TRUE,
                 env = env)
  figures <- as.numeric(strsplit(trimws(utils::tail(out, 1)), " +")[[1]])
  c(first = figures[1], second = figures[2], third = figures[3],
    peak_mb = as.numeric(readLines(log)) / 1024)
}
rscript <- file.path(R.home("bin"), "Rscript")
args <- grep("^--", commandArgs(TRUE), value = TRUE, invert = TRUE)
this_lib <- Sys.getenv("R_LIBS")
settings <- list(
  "scikit-learn RBFSampler + Ridge(cholesky)" =
    list("/usr/bin/python3", c("-c", shQuote(python)), "OPENBLAS_NUM_THREADS=2"),
  "scikit-learn RBFSampler alone, new process" =
    list("/usr/bin/python3", c("-c", shQuote(python_features)), "OPENBLAS_NUM_THREADS=2"),
  "kitchen rff + krr_fit (this build)" =
    list(rscript, c("bench/krr.R", "--fit", sprintf("--n=%d", n)),
         if (nzchar(this_lib)) sprintf("R_LIBS=%s", this_lib) else character()))
settings[["kitchen predict() alone, new process (this build)"]] <-
  list(rscript, c("bench/krr.R", "--features", sprintf("--n=%d", n)),
       if (nzchar(this_lib)) sprintf("R_LIBS=%s", this_lib) else character())
if ("--no-sklearn" %in% commandArgs(TRUE)) settings[1:2] <- NULL
if (length(args)) {
  settings[["kitchen rff + krr_fit (base build)"]] <-
    list(rscript, c("bench/krr.R", "--fit", sprintf("--n=%d", n)), sprintf("R_LIBS=%s", args[1]))
}
settings[["first touch: R allocates and fills 0.8 GB / rewrites it"]] <-
  list(rscript, c("bench/krr.R", "--touch"), character())

load_before <- readLines("/proc/loadavg")
# The order is shuffled each round: a child that follows one which freed
# gigabytes finds memory the host has backed already, and is faster for it.
set.seed(20261130)
runs <- lapply(seq_len(rounds), function(r) {
  order <- sample(seq_along(settings))
  timed <- lapply(settings[order], function(s) run(s[[1]], s[[2]], s[[3]]))
  t(vapply(timed[names(settings)], identity, numeric(4)))
})
results <- apply(simplify2array(runs), c(1, 2), stats::median)
load_after <- readLines("/proc/loadavg")
sk <- if (!"--no-sklearn" %in% commandArgs(TRUE)) results[1, ]
sk_alone <- if (!"--no-sklearn" %in% commandArgs(TRUE)) results[2, ]
this <- results["kitchen rff + krr_fit (this build)", ]
base <- if (length(args)) results["kitchen rff + krr_fit (base build)", ]
alone <- results["kitchen predict() alone, new process (this build)", ]
touch <- results[nrow(results), ]
lines <- c(
  "| run | fit, end to end (s) | features alone (s) | features again (s) | peak RSS (MB) |",
  "| --- | --- | --- | --- | --- |",
  sprintf("| %s | %s | %.2f | %.2f | %.0f |", rownames(results)[-nrow(results)],
          ifelse(is.na(results[-nrow(results), 1]), "-", sprintf("%.2f", results[-nrow(results), 1])),
          results[-nrow(results), 2], results[-nrow(results), 3], results[-nrow(results), 4]),
  "",
  if (!is.null(sk)) sprintf("scikit-learn / kitchen: fit %.2fx, features %.2fx, features again %.2fx (targets: at least 2x each).",
                            sk[1] / this[1], sk[2] / this[2], sk[3] / this[3]),
  if (!is.null(sk)) sprintf("Each side's features alone in a new process: first %.2fx, again %.2fx.",
                            sk_alone[2] / alone[2], sk_alone[3] / alone[3]),
  if (!is.null(base)) sprintf("base build / this build: fit %.2fx, features %.2fx, features again %.2fx (target: at least 1x).",
                              base[1] / this[1], base[2] / this[2], base[3] / this[3]),
  sprintf("First-touch memory in the same run: allocating and filling 0.8 GB took %.2f s (%.2f GB/s); rewriting it %.2f s (%.1f GB/s).",
          touch[1], 0.8 / touch[1], touch[2], 0.8 / touch[2]))
write_result(c(
  "# krr_fit() benchmark", "",
  machine_description(),
  sprintf("load average before / after: %s / %s", load_before, load_after), "",
  sprintf("n = %d, d = %d, %d features (gaussian rff, cos_sin), lambda = %g, 2 threads;", n, d, n_features, lambda),
  "time from data in memory to fitted coefficients (features + Z'Z + solve), then the",
  "features alone, twice (predict(map, x); RBFSampler.fit_transform; the result freed in",
  "between, so the second lands in memory the process has used: scikit-learn's first already",
  "does, after its fit's own feature matrix, kitchen's does not), one process per setting,",
  sprintf("medians over %d rounds, in a new random order each round; peak RSS of that process from GNU time (includes", rounds),
  "the data). scikit-learn is Debian's python3-sklearn; numpy runs on the same system BLAS.",
  if (length(args)) sprintf("base build: %s", args[1]), "",
  lines
), if (n == 100000) "krr.md" else sprintf("krr-n%d.md", n))
