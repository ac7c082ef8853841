# A chunked fit of many small chunks against the same rows in memory, for
# two builds of kitchen side by side (issue 22: a chunk must not cost a fresh
# D x D matrix). Usage, from the repository root:
#   Rscript bench/chunked-many.R <library of build A> <library of build B> [repeats]
# Each fit runs in a fresh Rscript child, builds alternating; the table gives
# medians. Results: bench/results/chunked-many.md.

args <- commandArgs(TRUE)
if (length(args) >= 1 && args[1] == "--fit") {
  suppressPackageStartupMessages(library(kitchen))
  n_features <- as.integer(args[2]); n_chunks <- as.integer(args[3]); rows <- as.integer(args[4])
  set.seed(1)
  d <- 10
  chunks <- lapply(seq_len(n_chunks), function(i) {
    x <- matrix(stats::runif(rows * d, -2, 2), rows, d)
    list(x = x, y = sin(2 * x[, 1]) + stats::rnorm(rows, sd = 0.1))
  })
  map <- rff(d, n_features, sigma = 3, seed = 1)
  chunked_s <- system.time(fit <- krr_fit(chunked(chunks), map, lambda = 0.01, n_threads = 2,
                                          verbose = FALSE))[["elapsed"]]
  x <- do.call(rbind, lapply(chunks, `[[`, "x"))
  y <- unlist(lapply(chunks, `[[`, "y"))
  memory_s <- system.time(memory <- krr_fit(x, y, map, lambda = 0.01, n_threads = 2))[["elapsed"]]
  cat(chunked_s, memory_s, max(abs(coef(fit) - coef(memory))), "\n")
  quit(save = "no")
}

source(file.path("bench", "common.R"))
libs <- args[1:2]
.libPaths(c(libs[2], .libPaths()))  # machine_description() names build B
repeats <- if (length(args) >= 3) as.integer(args[3]) else 3L
cases <- list(c(4096, 100, 500), c(2048, 100, 500), c(4096, 10, 5000))
run <- function(lib, case) {
  out <- system2(file.path(R.home("bin"), "Rscript"), c("bench/chunked-many.R", "--fit", case),
                 stdout = TRUE, env = paste0("R_LIBS=", lib))
  as.numeric(strsplit(trimws(utils::tail(out, 1)), " ")[[1]])
}
rows <- alternating_rows(libs, cases, run, repeats, function(case, a, b, all_b) {
  sprintf("| %d | %d x %d | %.2f | %.2f | %.2f | %.2f | %.2g |", case[1], case[2], case[3],
          a[1], b[1], a[2], b[2], max(all_b[, 3]))
})
write_result(c("# Many chunks against the same rows in memory (bench/chunked-many.R)", "",
               machine_description(), "",
               sprintf("Command: `Rscript bench/chunked-many.R %s %s %d` (A: before, B: after).",
                       libs[1], libs[2], repeats),
               "rff map given (d = 10, sigma = 3), fixed lambda 0.01, 2 threads, sequential engine;",
               sprintf("medians of %d runs per build, builds alternating, each fit in a fresh Rscript child.", repeats), "",
               "| D | chunks x rows | chunked A (s) | chunked B (s) | in memory A (s) | in memory B (s) | B: max coef difference chunked vs memory |",
               "| --- | --- | --- | --- | --- | --- | --- |", rows), "chunked-many.md")
