# Exact kernel matrices on wide inputs: kernel_matrix(x) (Gaussian kernel)
# against kernlab's kernelMatrix(rbfdot), and, with a second library
# (KITCHEN_BASE_LIB, e.g. a build of main), that build's kernel_matrix()
# side by side. Each method runs in its own process per repeat, the
# methods alternating; seconds are medians over the repeats. Run from the
# repository root:
#   KITCHEN_BASE_LIB=/path/to/lib Rscript bench/kernel-matrix.R [repeats]
# Results go to bench/results/kernel-matrix.md.

shapes <- list(c(4000, 100), c(2000, 1000), c(1000, 4000), c(4000, 10))

method_child <- function(method, lib, n, d, n_threads) {
  set.seed(1)
  x <- matrix(rnorm(n * d), n, d)
  if (method == "kernlab") {
    suppressPackageStartupMessages(library(kernlab))
    seconds <- system.time(k <- kernelMatrix(rbfdot(sigma = 1 / (2 * d)), x))[["elapsed"]]
    return(c(seconds = seconds, checksum = sum(k@.Data)))
  }
  library(kitchen, lib.loc = lib)
  seconds <- system.time(
    k <- kernel_matrix(x, kernel = kernel_gaussian(sqrt(d)), n_threads = n_threads)
  )[["elapsed"]]
  c(seconds = seconds, checksum = sum(k))
}

run_child <- function(method, lib, n, d, n_threads) {
  script <- tempfile(fileext = ".R")
  result <- tempfile(fileext = ".rds")
  on.exit(unlink(c(script, result)))
  code <- sprintf("f <- %s\nsaveRDS(f(%s, %s, %d, %d, %d), %s)",
                  paste(deparse(method_child), collapse = "\n"), deparse(method),
                  deparse(lib), n, d, n_threads, deparse(result))
  writeLines(code, script)
  status <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", script))
  if (status != 0) stop("child failed: ", method)
  readRDS(result)
}

args <- commandArgs(trailingOnly = TRUE)
repeats <- if (length(args)) as.integer(args[1]) else 3L
this_lib <- Sys.getenv("KITCHEN_THIS_LIB", .libPaths()[1])
base_lib <- Sys.getenv("KITCHEN_BASE_LIB", "")
methods <- list(this_1 = list("kitchen", this_lib, 1L), this_2 = list("kitchen", this_lib, 2L))
if (nzchar(base_lib)) {
  methods$base_1 <- list("kitchen", base_lib, 1L)
  methods$base_2 <- list("kitchen", base_lib, 2L)
}
methods$kernlab <- list("kernlab", "", 1L)

load_before <- readLines("/proc/loadavg")
rows <- list()
for (shape in shapes) {
  times <- matrix(NA_real_, repeats, length(methods), dimnames = list(NULL, names(methods)))
  sums <- setNames(numeric(length(methods)), names(methods))
  for (r in seq_len(repeats)) {
    for (m in names(methods)) {
      out <- run_child(methods[[m]][[1]], methods[[m]][[2]], shape[1], shape[2],
                       methods[[m]][[3]])
      times[r, m] <- out[["seconds"]]
      sums[m] <- out[["checksum"]]
    }
  }
  rows[[length(rows) + 1]] <- data.frame(n = shape[1], d = shape[2],
                                         t(apply(times, 2, median)), check.names = FALSE,
                                         checksums_agree = diff(range(sums)) <= 1e-9 * abs(sums[1]))
  print(rows[[length(rows)]])
}
table <- do.call(rbind, rows)
load_after <- readLines("/proc/loadavg")

header <- paste("|", paste(names(table), collapse = " | "), "|")
lines <- c(
  "# Exact kernel matrices on wide inputs (bench/kernel-matrix.R)", "",
  sprintf("date: %s UTC", format(Sys.time(), tz = "UTC", "%Y-%m-%d %H:%M")),
  sprintf("machine: %s, %d cores; R: %s; BLAS: %s", sub(".*: ", "",
          grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
          parallel::detectCores(), R.version.string, extSoftVersion()[["BLAS"]]),
  sprintf("load average before / after: %s / %s", load_before, load_after),
  sprintf("repeats: %d (medians of seconds); this = %s, base = %s", repeats, this_lib,
          if (nzchar(base_lib)) base_lib else "-"), "",
  "Seconds for the n x n Gaussian kernel matrix of n rows of d standard normal columns",
  "(`kernel_matrix(x, kernel = kernel_gaussian(sqrt(d)), n_threads = 1 or 2)`, kernlab's",
  "`kernelMatrix(rbfdot(1 / (2 d)), x)` on the reference BLAS). `checksums_agree`: the sums",
  "of all methods' matrices agree to 1e-9 relative.", "",
  header, paste("|", paste(rep("---", ncol(table)), collapse = " | "), "|"),
  vapply(seq_len(nrow(table)), function(i) {
    cells <- vapply(table[i, ], function(v) if (is.numeric(v)) format(v, digits = 3) else
      as.character(v), "")
    paste("|", paste(cells, collapse = " | "), "|")
  }, ""))
dir.create("bench/results", showWarnings = FALSE)
writeLines(lines, "bench/results/kernel-matrix.md")
cat(lines, sep = "\n")
