# Latency of small calls (issue 22's targets): predict() of 1 and 10 rows
# with an rff map (d = 64, 1024 features), predict() of 1 row from a fit on
# that map, and fwht() of one length-1024 vector; and (issue 24's) predict()
# of 1 row from a fit on a large rbin map (50 grids, about a million bins);
# medians, 1 thread.
# Run from the repository root:
#   Rscript bench/latency.R [library of a build to compare with]
# With a second library (for example main before a change, installed with
# R CMD INSTALL -l), each build is timed in its own child process, the two
# alternating over 3 rounds; the median of the rounds is reported.
# Each build is also timed with the heap kept (children started with
# MALLOC_TRIM_THRESHOLD_=268435456): by default glibc gives the top of the
# heap back to the system when R's collector frees the previous results,
# and each fresh result then pays page faults (about 2 per 8 KB on these
# VMs), a cost that depends on the process's heap, not on kitchen.
# Results go to bench/results/latency.md.

source(file.path("bench", "common.R"))

# Medians per call of the wall time and of the process's CPU time (user +
# system), from the same timings: under the shared machine's load the wall
# time also counts waiting for a core, the CPU time does not (it still
# counts page faults, in system time).
median_times <- function(f, repeats = 15, min_seconds = 0.1) {
  timing <- function(inner) {
    start <- proc.time()
    for (k in seq_len(inner)) f()
    used <- proc.time() - start
    c(wall = used[["elapsed"]], cpu = used[["user.self"]] + used[["sys.self"]]) / inner
  }
  inner <- max(1, ceiling(min_seconds / max(timing(1)[["wall"]], 1e-4)))
  while (timing(inner)[["wall"]] * inner < min_seconds) inner <- inner * 2
  times <- vapply(seq_len(repeats), function(i) timing(inner), numeric(2))
  apply(times, 1, stats::median)
}

time_calls <- function() {
  suppressPackageStartupMessages(library(kitchen))
  set.seed(1)
  d <- 64
  x <- matrix(rnorm(2000 * d), 2000, d)
  y <- sin(x[, 1]) + rnorm(2000, sd = 0.1)
  map <- rff(x, 1024, sigma = 8, scale = "standard", clip = TRUE, seed = 1)
  fit <- krr_fit(x, y, map, lambda = 1, n_threads = 1L, verbose = FALSE)
  one <- x[1, , drop = FALSE]
  ten <- x[1:10, , drop = FALSE]
  v <- rnorm(1024)
  # Many small cells: each of the 50 grids holds about one bin per row.
  xb <- matrix(runif(20000 * 16), 20000, 16)
  binned_fit <- krr_fit(xb, sin(4 * xb[, 1]) + rnorm(20000, sd = 0.1),
                        rbin(xb, 50, sigma = 0.5, seed = 1, n_threads = 1L),
                        lambda = 1, n_threads = 1L, verbose = FALSE)
  binned_one <- xb[1, , drop = FALSE]
  us <- function(f) 1e6 * median_times(f)
  out <- rbind(rff_1 = us(function() predict(map, one, n_threads = 1L)),
               rff_10 = us(function() predict(map, ten, n_threads = 1L)),
               krr_1 = us(function() predict(fit, one, n_threads = 1L)),
               fwht_1024 = us(function() fwht(v, n_threads = 1L)),
               rbin_1 = us(function() predict(binned_fit, binned_one, n_threads = 1L)))
  c(out[, "wall"], out[, "cpu"])
}

if ("--child" %in% commandArgs(TRUE)) {
  cat(paste(time_calls(), collapse = " "), "\n")
  quit(save = "no")
}

targets <- c(rff_1 = 20, rff_10 = 35, krr_1 = 30, fwht_1024 = 5, rbin_1 = 50)
labels <- c(rff_1 = "predict(rff map, 1 row)", rff_10 = "predict(rff map, 10 rows)",
            krr_1 = "predict(krr fit, 1 row)", fwht_1024 = "fwht(length 1024)",
            rbin_1 = "predict(krr fit on an rbin map, 1 row)")
args <- commandArgs(TRUE)
libraries <- c(this = Sys.getenv("R_LIBS"), base = if (length(args)) args[1])
kept_heap <- "MALLOC_TRIM_THRESHOLD_=268435456"
child <- function(lib, env = character()) {
  out <- system2(file.path(R.home("bin"), "Rscript"), c("bench/latency.R", "--child"),
                 stdout = TRUE, env = c(if (nzchar(lib)) sprintf("R_LIBS=%s", lib), env))
  as.numeric(strsplit(trimws(utils::tail(out, 1)), " ")[[1]])
}
load_before <- readLines("/proc/loadavg")
rounds <- lapply(1:3, function(r) vapply(libraries, child, numeric(2 * length(targets))))
kept_rounds <- lapply(1:3, function(r) vapply(libraries, child, numeric(2 * length(targets)),
                                              env = kept_heap))
medians <- function(rounds) apply(simplify2array(rounds), c(1, 2), stats::median)
both_us <- medians(rounds)
median_us <- both_us[seq_along(targets), , drop = FALSE]
cpu_us <- both_us[length(targets) + seq_along(targets), , drop = FALSE]
kept_us <- medians(kept_rounds)[seq_along(targets), , drop = FALSE]
rownames(median_us) <- rownames(cpu_us) <- rownames(kept_us) <- names(targets)
load_after <- readLines("/proc/loadavg")

columns <- if (ncol(median_us) > 1) {
  "| call | this build (us) | base build (us) | base / this | CPU this / base (us) | heap kept: this / base (us) | target (us) |"
} else {
  "| call | median (us) | CPU (us) | heap kept (us) | target (us) |"
}
rows <- vapply(names(targets), function(k) {
  if (ncol(median_us) > 1) {
    sprintf("| %s | %.1f | %.1f | %.2f | %.1f / %.1f | %.1f / %.1f | %g (%s) |", labels[[k]],
            median_us[k, 1], median_us[k, 2], median_us[k, 2] / median_us[k, 1], cpu_us[k, 1],
            cpu_us[k, 2], kept_us[k, 1], kept_us[k, 2], targets[[k]],
            if (median_us[k, 1] <= targets[[k]]) "met" else "missed")
  } else {
    sprintf("| %s | %.1f | %.1f | %.1f | %g (%s) |", labels[[k]], median_us[k, 1], cpu_us[k, 1],
            kept_us[k, 1], targets[[k]], if (median_us[k, 1] <= targets[[k]]) "met" else "missed")
  }
}, "")
write_result(c(
  "# Latency of small calls", "",
  machine_description(),
  sprintf("load average before / after: %s / %s", load_before, load_after), "",
  "rff map: d = 64, 1024 features (cos_sin), standard scaling, clipping on; krr fit on that map",
  "(2000 rows, lambda = 1). rbin map: 50 grids on 20,000 uniform rows of 16 columns, sigma = 0.5",
  sprintf("(%s bins), krr fit with lambda = 1. n_threads = 1. Median over 15 timings of at least 0.1 s each,",
          "1,000,000"),
  "each build in its own process, the builds alternating over 3 rounds (median of rounds).",
  "Targets are judged on the wall time; the CPU time (user + system of the process, same timings)",
  "leaves out waiting for a core under load. Heap kept: the same children started with",
  sprintf("%s (glibc keeps the top of the heap: no page faults on fresh results).", kept_heap),
  if (ncol(median_us) > 1) sprintf("base build: %s", libraries[["base"]]), "",
  columns, if (ncol(median_us) > 1) "| --- | --- | --- | --- | --- | --- | --- |" else "| --- | --- | --- | --- | --- |",
  rows
), "latency.md")
