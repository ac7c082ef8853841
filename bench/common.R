# Shared helpers for the benchmarks: timing and a description of the machine.

# Median over `repeats` timings of the seconds per call of f(). Each timing
# runs f() often enough to last at least `min_seconds`, since R's clock only
# resolves milliseconds.
median_time <- function(f, repeats = 9, min_seconds = 0.05) {
  elapsed <- function(inner) {
    start <- proc.time()[["elapsed"]]
    for (k in seq_len(inner)) f()
    proc.time()[["elapsed"]] - start
  }
  first <- elapsed(1)  # also warms up: loads code, faults in pages
  inner <- max(1, ceiling(min_seconds / max(first, 1e-4)))
  while ((t <- elapsed(inner)) < min_seconds) inner <- inner * 2
  times <- c(t / inner, vapply(seq_len(repeats - 1), function(i) elapsed(inner) / inner, 0))
  stats::median(times)
}

machine_description <- function() {
  cpu <- tryCatch({
    info <- readLines("/proc/cpuinfo")
    sub(".*:\\s*", "", grep("^model name", info, value = TRUE)[1])
  }, error = function(e) "unknown CPU")
  blas <- tryCatch(sessionInfo()$BLAS, error = function(e) "unknown")
  c(sprintf("date: %s", format(Sys.time(), "%Y-%m-%d %H:%M %Z")),
    sprintf("machine: %s, %d cores, %s", cpu, parallel::detectCores(), R.version$platform),
    sprintf("R: %s; BLAS: %s", R.version.string, blas),
    sprintf("kitchen %s; SIMD: CPU %s, used %s",
            utils::packageVersion("kitchen"), kitchen::kitchen_simd()$cpu,
            kitchen::kitchen_simd()$used))
}

write_result <- function(lines, name) {
  dir.create(file.path("bench", "results"), showWarnings = FALSE, recursive = TRUE)
  path <- file.path("bench", "results", name)
  writeLines(lines, path)
  cat(lines, sep = "\n")
  cat("\nwritten to", path, "\n")
}

# Forest CoverType from ../shared/data with the split of Rahimi & Recht's
# sizes (522910 training, 58102 test rows), fixed by seed 2007.
covtype_split <- function() {
  env <- new.env()
  load(file.path("..", "shared", "data", "covtype.RData"), envir = env)
  set.seed(2007)
  rows <- sample(nrow(env$covtype.libsvm$X))
  list(x = env$covtype.libsvm$X, y = factor(env$covtype.libsvm$y),
       train = rows[1:522910], test = rows[522911:581012])
}
