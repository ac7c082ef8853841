# Benchmark of fwht() through R, for the targets of the foundation issue,
# and of its C++ core alone (bench/cpp/fwht_threads.cpp) for 1 and 2 threads.
# Run from the repository root: Rscript bench/fwht.R
# Results go to bench/results/fwht.md.
#
# Each R setting is measured in two child R processes started side by side
# in this run: one with glibc's default malloc, one with malloc told to keep
# freed memory (MALLOC_TOP_PAD_, MALLOC_TRIM_THRESHOLD_). On this VM a page
# fault is expensive, and with the defaults every fresh R result of a few MB
# may be faulted in anew. `copy` is the time R takes for x + 0 on the same
# matrix: the floor for any function returning a new matrix of that size.
# Every call allocates a 16 MB result, so R's garbage collector runs every
# few calls; its share (gc.time()) is reported beside each timing.

measure <- function() {
  library(kitchen)
  source(file.path("bench", "common.R"))
  set.seed(1)
  gc.time(TRUE)
  with_simd <- function(level, f) function() {
    old <- options(kitchen.simd = level)
    on.exit(options(old))
    f()
  }
  # Median microseconds per column of f() (many calls per timing), and the
  # mean time per column R's garbage collector took over those calls.
  per_col <- function(f, cols, repeats = 11) {
    calls <- 0
    counted <- function() {
      calls <<- calls + 1
      f()
    }
    gc_start <- gc.time()[[3]]
    total <- median_time(counted, repeats = repeats)
    c(total = 1e6 * total / cols, gc = 1e6 * (gc.time()[[3]] - gc_start) / calls / cols)
  }
  # 16 MB matrices (8 columns at 2^20) so per-call costs are amortised over
  # many columns while glibc can still recycle the memory of earlier results.
  sizes <- c(2^10, 2^12, 2^16, 2^20)
  rows <- lapply(sizes, function(n) {
    cols <- max(8, 2^21 / n)
    x <- matrix(rnorm(n * cols), n, cols)
    one <- per_col(function() fwht(x, n_threads = 1), cols)
    two <- per_col(function() fwht(x, n_threads = 2), cols)
    data.frame(
      n = n, columns = cols,
      auto_1t = one[["total"]], gc_1t = one[["gc"]],
      auto_2t = two[["total"]], gc_2t = two[["gc"]],
      avx2_1t = per_col(with_simd("avx2", function() fwht(x, n_threads = 1)), cols)[["total"]],
      scalar_1t = per_col(with_simd("scalar", function() fwht(x, n_threads = 1)), cols)[["total"]],
      copy = per_col(function() x + 0, cols)[["total"]])
  })
  v <- rnorm(1024)
  single <- data.frame(n = 1024, columns = 1,
                       auto_1t = per_col(function() fwht(v), 1, repeats = 21)[["total"]],
                       gc_1t = NA, auto_2t = NA, gc_2t = NA, avx2_1t = NA, scalar_1t = NA,
                       copy = per_col(function() v + 0, 1, repeats = 21)[["total"]])
  utils::write.csv(rbind(do.call(rbind, rows), single), stdout(), row.names = FALSE)
}

if ("--measure" %in% commandArgs(TRUE)) {
  measure()
  quit(save = "no")
}

source(file.path("bench", "common.R"))
child <- function(env) {
  out <- system2(file.path(R.home("bin"), "Rscript"), c("bench/fwht.R", "--measure"),
                 stdout = TRUE, env = env)
  utils::read.csv(text = out)
}
default_malloc <- child(character())
kept_malloc <- child(c("MALLOC_TOP_PAD_=268435456", "MALLOC_TRIM_THRESHOLD_=536870912"))

core <- utils::read.csv(text = system2(compile_cpp("bench/cpp/fwht_threads.cpp"), stdout = TRUE))

targets <- c(0.9, 4.4, 100, 2600, 10)
table_lines <- function(d) {
  label <- ifelse(d$columns == 1, "one call, length 1024", sprintf("2^%d x %d", log2(d$n), d$columns))
  c(paste("| x | target (us) | auto, 1 thread | of which R's gc | auto, 2 threads | of which R's gc |",
          "2-thread speed-up | same without R's gc | AVX2, 1 thread | scalar, 1 thread | x + 0 (R copy) |"),
    paste(paste(rep("| ---", 11), collapse = " "), "|"),
    sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", label,
            three_digits(targets), three_digits(d$auto_1t), three_digits(d$gc_1t),
            three_digits(d$auto_2t), three_digits(d$gc_2t), three_digits(d$auto_1t / d$auto_2t),
            three_digits((d$auto_1t - d$gc_1t) / (d$auto_2t - d$gc_2t)),
            three_digits(d$avx2_1t), three_digits(d$scalar_1t), three_digits(d$copy)))
}
core_lines <- c(
  "| n | columns | workload | 1 thread (us per column) | 2 threads | 2-thread speed-up |",
  "| --- | --- | --- | --- | --- | --- |",
  sprintf("| 2^%d | %d | %s | %s | %s | %s |", core$log2_n, core$columns, core$workload,
          three_digits(core$us_per_column_1t), three_digits(core$us_per_column_2t),
          three_digits(core$speedup)))

library(kitchen)
write_result(c(
  "# fwht() benchmark", "",
  machine_description(), "",
  "Microseconds per column through R (`fwht(x)`, result allocation included; one",
  "call for the last row), median of 11 timings (21 for the single call), each",
  "timing at least 50 ms of repeated calls. `auto` is the best SIMD level of the CPU.",
  "Every call returns a new 16 MB matrix, so R's garbage collector runs every few",
  "calls; \"of which R's gc\" is its mean time per column over those calls",
  "(`gc.time()`), and the speed-up without it compares the remaining times.", "",
  "## glibc malloc with default settings", "",
  table_lines(default_malloc), "",
  "## glibc malloc keeping freed memory (MALLOC_TOP_PAD_=256MB, MALLOC_TRIM_THRESHOLD_=512MB)", "",
  table_lines(kept_malloc), "",
  "## The C++ core alone (bench/cpp/fwht_threads.cpp)", "",
  "`fwht_checked()` per column as the R glue calls it, from a 16 MB matrix into",
  "another, both faulted in beforehand; each thread takes a contiguous share of",
  "the columns. `x + 0` is a plain loop over the same shares, as R's `x + 0`:",
  "the bytes any out-of-place pass moves, so its speed-up is what the memory",
  "system gives a second thread. `in cache` has each thread transform a private",
  "256 KB block over and over (one 8 MB column at 2^20): the compute alone.",
  "Median of 11 timings of at least 100 ms each.", "",
  core_lines
), "fwht.md")
