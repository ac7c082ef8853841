# Benchmark of rff() features against scikit-learn's RBFSampler, for the
# targets of the rff issue. Run from the repository root: Rscript bench/rff.R
# Results go to bench/results/rff.md.
#
# Needs Debian's python3-sklearn and libopenblas0-pthread (installed here if
# missing and we are root). R runs in child processes, once with OpenBLAS and
# once with the reference BLAS forced by LD_PRELOAD; numpy uses the system's
# BLAS (OpenBLAS once installed). All in one run, 2 threads everywhere.

settings <- data.frame(n = c(100000, 20000), d = c(64, 1024), features = c(2048, 4096))

measure_r <- function() {
  library(kitchen)
  source(file.path("bench", "common.R"))
  set.seed(1)
  rows <- list()
  for (i in seq_len(nrow(settings))) {
    s <- settings[i, ]
    x <- matrix(rnorm(s$n * s$d), s$n, s$d)
    for (type in c("cos_sin", "cos_phase")) {
      map <- rff(s$d, s$features, sigma = sqrt(s$d), type = type, seed = 1)
      t <- median_time(function() predict(map, x, n_threads = 2), repeats = 5, min_seconds = 0)
      rows[[length(rows) + 1]] <- data.frame(setting = i, type = type, seconds = t)
    }
  }
  map <- rff(64, 2048, sigma = 8, seed = 1)
  one <- matrix(rnorm(64), 1, 64)
  t1 <- median_time(function() predict(map, one, n_threads = 1), repeats = 21)
  rows[[length(rows) + 1]] <- data.frame(setting = 0, type = "one row", seconds = t1)
  utils::write.csv(do.call(rbind, rows), stdout(), row.names = FALSE)
}

if ("--measure" %in% commandArgs(TRUE)) {
  measure_r()
  quit(save = "no")
}

source(file.path("bench", "common.R"))
# A benchmark never installs system packages: it says what it needs.
if (system2("/usr/bin/python3", c("-c", shQuote("import sklearn")), stdout = FALSE, stderr = FALSE) != 0) {
  stop("bench/rff.R compares with scikit-learn: install python3-sklearn (Debian) first.")
}

child_r <- function(env) {
  out <- system2(file.path(R.home("bin"), "Rscript"), c("bench/rff.R", "--measure"),
                 stdout = TRUE, env = env)
  utils::read.csv(text = out)
}
openblas <- child_r("OPENBLAS_NUM_THREADS=2")
reference <- child_r("LD_PRELOAD=/usr/lib/x86_64-linux-gnu/blas/libblas.so.3")

python <- "
import sys, time, numpy as np
from sklearn.kernel_approximation import RBFSampler
n, d, D = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
x = np.random.default_rng(1).standard_normal((n, d))
s = RBFSampler(gamma=1.0 / (2 * d), n_components=D, random_state=1).fit(x)
s.transform(x)
times = []
for r in range(5):
    t0 = time.perf_counter(); z = s.transform(x); times.append(time.perf_counter() - t0)
    del z
print(sorted(times)[2])
"
sklearn <- vapply(seq_len(nrow(settings)), function(i) {
  s <- settings[i, ]
  out <- system2("/usr/bin/python3", c("-c", shQuote(python), sprintf("%d", as.integer(c(s$n, s$d, s$features)))),
                 stdout = TRUE, env = c("OPENBLAS_NUM_THREADS=2", "OMP_NUM_THREADS=2"))
  as.numeric(utils::tail(out, 1))
}, numeric(1))

lines <- c("| n | d | features | scikit-learn RBFSampler (s) | kitchen cos_sin, OpenBLAS (s) | speed-up | kitchen cos_phase, OpenBLAS (s) | speed-up | kitchen cos_sin, reference BLAS (s) | kitchen cos_phase, reference BLAS (s) |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
get <- function(d, i, type) d$seconds[d$setting == i & d$type == type]
for (i in seq_len(nrow(settings))) {
  s <- settings[i, ]
  o_cs <- get(openblas, i, "cos_sin"); o_cp <- get(openblas, i, "cos_phase")
  lines <- c(lines, sprintf("| %d | %d | %d | %.3f | %.3f | %.1fx | %.3f | %.1fx | %.3f | %.3f |",
    s$n, s$d, s$features, sklearn[i], o_cs, sklearn[i] / o_cs, o_cp, sklearn[i] / o_cp,
    get(reference, i, "cos_sin"), get(reference, i, "cos_phase")))
}
write_result(c(
  "# rff() feature benchmark", "",
  machine_description(), "",
  "Seconds for `predict(map, x, n_threads = 2)` (gaussian kernel, result allocation",
  "included), median of 5; scikit-learn 'RBFSampler.transform' (cos_phase features)",
  "median of 5 with OPENBLAS_NUM_THREADS=2, numpy on the system BLAS (OpenBLAS).",
  "kitchen runs in child R processes: OpenBLAS (system default) and the reference",
  "BLAS forced with LD_PRELOAD.", "",
  lines, "",
  sprintf("One row through predict() at d = 64, 2048 features (cos_sin, 1 thread): %.1f us (OpenBLAS), %.1f us (reference BLAS).",
          1e6 * get(openblas, 0, "one row"), 1e6 * get(reference, 0, "one row"))
), "rff.md")
