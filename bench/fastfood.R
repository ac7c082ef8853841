# Benchmark of fastfood() against rff() at the settings of Table 2 of Le,
# Sarlos and Smola (2013), plus a batched run. Run from the repository root:
# Rscript bench/fastfood.R. Results go to bench/results/fastfood.md.
#
# Measurements run in child R processes: once with glibc's default malloc and
# once keeping freed memory (MALLOC_TOP_PAD_ etc.), because on this machine
# every page of a fresh result costs a slow page fault, and a one-row call is
# short enough for that to show (see bench/results/fwht.md).

paper <- data.frame(d = c(1024, 4096, 8192), n = c(16384, 32768, 65536),
                    speedup = c(24, 89, 199), memory = c(256, 1024, 2048),
                    target = c(72, 270, 600))
# Freed memory stays with the process (no mmap, no trimming below 4 GB), so a
# new result reuses pages that are already mapped.
keep_memory <- c("MALLOC_TOP_PAD_=268435456", "MALLOC_TRIM_THRESHOLD_=4294967296",
                 "MALLOC_MMAP_MAX_=0")

# One row through predict() (R call included), both maps at equal numbers of
# frequencies (cos_phase: n_features = n), and the maps' sizes.
measure_paper <- function(with_rff) {
  rows <- list()
  for (i in seq_len(nrow(paper))) {
    s <- paper[i, ]
    one <- matrix(stats::rnorm(s$d), 1, s$d)
    ff <- fastfood(s$d, s$n, sigma = sqrt(s$d), type = "cos_phase", seed = 1)
    t_ff <- median_time(function() predict(ff, one, n_threads = 1), repeats = 31)
    t_alloc <- median_time(function() numeric(s$n), repeats = 31)
    t_rf <- NA
    size_rf <- NA
    if (with_rff) {
      rf <- rff(s$d, s$n, sigma = sqrt(s$d), type = "cos_phase", seed = 1)
      t_rf <- median_time(function() predict(rf, one, n_threads = 1), repeats = 7)
      size_rf <- as.numeric(utils::object.size(rf))
      rm(rf)
      gc()
    }
    rows[[i]] <- data.frame(what = "paper", d = s$d, n = s$n, type = "cos_phase",
                            fastfood = t_ff, rff = t_rf, alloc = t_alloc,
                            size_fastfood = as.numeric(utils::object.size(ff)),
                            size_rff = size_rf)
  }
  do.call(rbind, rows)
}

# 10000 rows, d = 1024, 16384 features, 2 threads, both feature types.
measure_batch <- function() {
  x <- matrix(stats::rnorm(10000 * 1024), 10000, 1024)
  rows <- list()
  for (type in c("cos_phase", "cos_sin")) {
    ff <- fastfood(1024, 16384, sigma = 32, type = type, seed = 1)
    rf <- rff(1024, 16384, sigma = 32, type = type, seed = 1)
    time_batch <- function(map) {
      median_time(function() {
        z <- predict(map, x, n_threads = 2)
        rm(z)
      }, repeats = 5, min_seconds = 0)
    }
    rows[[type]] <- data.frame(what = "batch", d = 1024, n = 16384, type = type,
                               fastfood = time_batch(ff), rff = time_batch(rf), alloc = NA,
                               size_fastfood = NA, size_rff = NA)
  }
  do.call(rbind, rows)
}

if (length(commandArgs(TRUE)) && commandArgs(TRUE)[1] == "--measure") {
  library(kitchen)
  source(file.path("bench", "common.R"))
  set.seed(1)
  out <- rbind(measure_paper(with_rff = identical(commandArgs(TRUE)[2], "default")),
               measure_batch())
  utils::write.csv(out, stdout(), row.names = FALSE)
  quit(save = "no")
}

source(file.path("bench", "common.R"))
child <- function(mode, env = character()) {
  out <- system2(file.path(R.home("bin"), "Rscript"), c("bench/fastfood.R", "--measure", mode),
                 stdout = TRUE, env = env)
  utils::read.csv(text = out)
}
default <- child("default")
kept <- child("kept", keep_memory)

us <- function(s) sprintf("%.0f", 1e6 * s)
lines <- c(
  "| d | frequencies | rff (ms) | fastfood (us) | speed-up | paper | target | fastfood, memory kept (us) | speed-up | rff map (MB) | fastfood map (KB) | memory ratio | paper | result allocation alone: default / kept (us) |",
  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for (i in seq_len(nrow(paper))) {
  s <- paper[i, ]
  a <- default[default$what == "paper" & default$d == s$d, ]
  k <- kept[kept$what == "paper" & kept$d == s$d, ]
  lines <- c(lines, sprintf(
    "| %d | %d | %.1f | %s | %.0fx | %dx | %dx | %s | %.0fx | %.0f | %.0f | %.0fx | %dx | %s / %s |",
    s$d, s$n, 1e3 * a$rff, us(a$fastfood), a$rff / a$fastfood, s$speedup, s$target,
    us(k$fastfood), a$rff / k$fastfood, a$size_rff / 2^20, a$size_fastfood / 2^10,
    a$size_rff / a$size_fastfood, s$memory, us(a$alloc), us(k$alloc)))
}
batch <- default[default$what == "batch", ]
batch_kept <- kept[kept$what == "batch", ]
batch_lines <- c(
  "| type | rff (s) | fastfood (s) | speed-up | rff, memory kept (s) | fastfood, memory kept (s) | speed-up | target |",
  "| --- | --- | --- | --- | --- | --- | --- | --- |",
  sprintf("| %s | %.2f | %.2f | %.1fx | %.2f | %.2f | %.1fx | 4x |", batch$type, batch$rff,
          batch$fastfood, batch$rff / batch$fastfood, batch_kept$rff, batch_kept$fastfood,
          batch_kept$rff / batch_kept$fastfood))
one <- c(default$fastfood[default$what == "paper" & default$d == 1024],
         kept$fastfood[kept$what == "paper" & kept$d == 1024])

write_result(c(
  "# fastfood() benchmark", "",
  machine_description(), "",
  "## One input vector (the paper's Table 2)", "",
  "Time for `predict(map, x, n_threads = 1)` on one row (R call and result allocation",
  "included), gaussian kernel, `type = \"cos_phase\"` so that both maps use n_features",
  "frequencies; median of 31 timings for fastfood, 7 for rff, each timing at least",
  "50 ms of repeated calls. rff multiplies by its dense d x n frequency matrix",
  "(kitchen's fused multiply-add loops for a few rows, its SIMD micro-kernels for",
  "batches); fastfood applies 2 n/d fast Walsh-Hadamard transforms of length d. \"Memory",
  "kept\": a child process with MALLOC_TOP_PAD_, MALLOC_TRIM_THRESHOLD_ and",
  "MALLOC_MMAP_MAX_ set, so the result vector reuses memory instead of faulting in",
  "fresh pages, each fault being slow on this virtual machine (the last column",
  "times `numeric(n)` alone in both settings). Map sizes by `object.size()`.",
  "Paper: Eigen vs Spiral, 2013 hardware. The machine may be shared with other",
  "engineers' work, so single figures can be off by 2x or more.", "",
  lines, "",
  sprintf("One row at d = 1024, 16384 features (target at most 150 us): %s us with the default malloc, %s us with memory kept.",
          us(one[1]), us(one[2])), "",
  "## Batched: 10000 rows, d = 1024, 16384 features, 2 threads", "",
  "Seconds for `predict(map, x, n_threads = 2)` (1.3 GB result), median of 5. With",
  "the default malloc each call maps a fresh 1.3 GB result and faults in its pages",
  "(about 1 to 3 s here for either map); with memory kept the pages are reused.", "",
  batch_lines
), "fastfood.md")
