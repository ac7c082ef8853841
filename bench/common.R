# Shared helpers for the benchmarks: timing and a description of the machine.

# Median over `repeats` of the seconds per call of f(), each timing running
# f() `inner` times so short calls are measured above the clock's resolution.
median_time <- function(f, repeats = 9, inner = 1) {
  f()  # warm up: load code, fault in pages, fill caches
  times <- vapply(seq_len(repeats), function(i) {
    start <- proc.time()[["elapsed"]]
    for (k in seq_len(inner)) f()
    (proc.time()[["elapsed"]] - start) / inner
  }, numeric(1))
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
