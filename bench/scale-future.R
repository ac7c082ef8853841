# Out-of-core and distributed scale runs of issue 7 (chunked data, futures).
#
# 1. n = 20,000,000 rows generated chunk by chunk by a function source (40
#    chunks of 500,000 rows, d = 10), gaussian rff with D = 512, lambda
#    fixed: time and peak RSS (VmHWM) of the main process (target: under
#    1 GB) and of the workers, sequential (2 threads) and with
#    plan(multisession, workers = 2) (1 thread each).
# 2. Forest CoverType read from 12 RDS chunk files on disk, rff D = 1000,
#    sequential and 2 workers: test error and time.
#
# Run from the repository root: Rscript bench/scale-future.R [n_rows]
# (default 2e7). Each fit runs in its own child R process. Results go to
# bench/results/scale-future.md.

args <- commandArgs(TRUE)
d <- 10; n_features <- 512; chunk_rows <- 5e5; lambda <- 1e-4

peak_mb <- function() {
  status <- readLines("/proc/self/status")
  as.numeric(gsub("[^0-9]", "", grep("^VmHWM", status, value = TRUE))) / 1024
}

# The workers' peaks: two futures at once land on the two workers.
worker_peaks <- function() {
  fs <- lapply(1:2, function(k) future::future({
    Sys.sleep(1)
    status <- readLines("/proc/self/status")
    as.numeric(gsub("[^0-9]", "", grep("^VmHWM", status, value = TRUE))) / 1024
  }))
  vapply(fs, future::value, 0)
}

if (length(args) && args[1] == "--synthetic") {
  suppressPackageStartupMessages(library(kitchen))
  n <- as.numeric(args[2]); mode <- args[3]
  n_chunks <- ceiling(n / chunk_rows)
  truth <- function(x) sin(2 * x[, 1]) * cos(x[, 2]) + x[, 3]^2 / 4
  source <- chunked(function(i) {
    if (i > n_chunks) return(NULL)
    set.seed(i)  # chunk i is the same wherever and whenever it is read
    x <- matrix(stats::runif(chunk_rows * d, -2, 2), chunk_rows, d)
    list(x = x, y = truth(x) + stats::rnorm(chunk_rows, sd = 0.1))
  })
  map <- rff(d, n_features, sigma = 5, seed = 1)
  if (mode == "multisession") future::plan(future::multisession, workers = 2)
  seconds <- system.time(fit <- krr_fit(source, map, lambda = lambda, verbose = FALSE,
                                        n_threads = if (mode == "sequential") 2))[["elapsed"]]
  workers <- if (mode == "multisession") worker_peaks() else c(NA, NA)
  set.seed(0)
  held_out <- matrix(stats::runif(1e5 * d, -2, 2), 1e5, d)
  rmse <- sqrt(mean((predict(fit, held_out, n_threads = 2) - truth(held_out))^2))
  cat("RESULT", seconds, peak_mb(), workers, rmse, sum(abs(fit$coefficients)), "\n")
  quit(save = "no")
}

if (length(args) && args[1] == "--covtype") {
  suppressPackageStartupMessages(library(kitchen))
  mode <- args[2]; dir <- args[3]
  paths <- file.path(dir, sprintf("covtype-%02d.rds", 1:12))
  test <- readRDS(file.path(dir, "covtype-test.rds"))
  data <- chunked(paths, y = "cover")
  if (mode == "multisession") future::plan(future::multisession, workers = 2)
  started <- proc.time()[["elapsed"]]
  first <- read_chunk(data, 1)$x
  map <- rff(first, 1000, scale = "minmax", seed = 1)
  map <- rff(first, 1000, scale = "minmax", sigma = 0.25 * map$kernel$sigma, seed = 1)
  fit <- krr_fit(data, map, verbose = FALSE, n_threads = if (mode == "sequential") 2)
  error <- mean(predict(fit, test[names(test) != "cover"], type = "class", n_threads = 2) != test$cover)
  seconds <- proc.time()[["elapsed"]] - started
  workers <- if (mode == "multisession") worker_peaks() else c(NA, NA)
  cat("RESULT", seconds, peak_mb(), workers, error, fit$lambda, sum(abs(fit$coefficients)), "\n")
  quit(save = "no")
}

source(file.path("bench", "common.R"))
n <- if (length(args)) as.numeric(args[1]) else 2e7
child <- function(...) {
  out <- system2(file.path(R.home("bin"), "Rscript"), c("bench/scale-future.R", ...),
                 stdout = TRUE)
  line <- grep("^RESULT", out, value = TRUE)
  if (!length(line)) stop("child failed:\n", paste(out, collapse = "\n"))
  as.numeric(strsplit(trimws(sub("^RESULT", "", line)), " +")[[1]])
}
mb <- function(v) if (is.na(v)) "-" else sprintf("%.0f MB", v)
# A child's engine, and its workers' peak RSS (r[3], r[4]; NA when sequential).
engine_label <- function(mode) {
  if (mode == "sequential") "sequential, 2 threads" else "plan(multisession, workers = 2), 1 thread each"
}
workers_mb <- function(r) if (is.na(r[3])) "-" else paste(mb(r[3]), mb(r[4]), sep = ", ")

synthetic <- lapply(c(sequential = "sequential", multisession = "multisession"),
                    function(mode) child("--synthetic", format(n, scientific = FALSE), mode))
same <- abs(synthetic[[1]][6] - synthetic[[2]][6]) / synthetic[[1]][6]
lines <- c("| engine | rows | D | fit time | peak RSS, main process | peak RSS, workers | RMSE against the noiseless truth (1e5 new rows) |",
           "| --- | --- | --- | --- | --- | --- | --- |")
for (mode in names(synthetic)) {
  r <- synthetic[[mode]]
  lines <- c(lines, sprintf("| %s | %s | %d | %.1f s | %s | %s | %.4f |", engine_label(mode),
                            format(n, big.mark = ",", scientific = FALSE), n_features, r[1], mb(r[2]),
                            workers_mb(r), r[5]))
}

# CoverType as 12 RDS chunk files of training rows, and the test rows.
covtype <- covtype_split()
dir <- tempfile("covtype-chunks")
dir.create(dir)
frame <- function(rows) {
  out <- as.data.frame(covtype$x[rows, ])
  out$cover <- covtype$y[rows]
  out
}
groups <- split(covtype$train, cut(seq_along(covtype$train), 12, labels = FALSE))
for (i in 1:12) saveRDS(frame(groups[[i]]), file.path(dir, sprintf("covtype-%02d.rds", i)))
saveRDS(frame(covtype$test), file.path(dir, "covtype-test.rds"))
rm(covtype)
cover <- lapply(c(sequential = "sequential", multisession = "multisession"),
                function(mode) child("--covtype", mode, dir))
unlink(dir, recursive = TRUE)
cover_lines <- c("| engine | test error | lambda (GCV) | time (map + fit + predict) | peak RSS, main process | peak RSS, workers |",
                 "| --- | --- | --- | --- | --- | --- |")
for (mode in names(cover)) {
  r <- cover[[mode]]
  cover_lines <- c(cover_lines, sprintf("| %s | %.2f%% | %.3g | %.0f s | %s | %s |", engine_label(mode),
                                        100 * r[5], r[6], r[1], mb(r[2]), workers_mb(r)))
}
cover_same <- abs(cover[[1]][7] - cover[[2]][7]) / cover[[1]][7]

write_result(c("# Chunked fits, sequential and on 2 future workers", "", machine_description(),
               sprintf("future %s", utils::packageVersion("future")), "",
               sprintf("Command: `Rscript bench/scale-future.R%s`. Each fit runs in a fresh child R process; peak RSS is VmHWM from /proc/<pid>/status of the main process and of each worker. The machine (2 cores) is shared with other jobs: times are single runs and noisy. Generating the chunks (R code, one thread in each process) is part of the fit time.",
                       if (n != 2e7) paste0(" ", format(n, scientific = FALSE)) else ""), "",
               sprintf("## %s rows generated chunk by chunk", format(n, big.mark = ",", scientific = FALSE)), "",
               sprintf("A function source makes chunk i (500,000 rows, d = 10, uniform on [-2, 2], y = sin(2 x1) cos(x2) + x3^2 / 4 + N(0, 0.1^2)) from set.seed(i); gaussian rff, sigma = 5, D = %d, lambda = %g fixed. No process ever holds more than a chunk of rows. Sum of |coefficients|, relative difference between the two engines: %.1e.", n_features, lambda, same), "",
               lines,
               if (n < 2e7) c("", sprintf("Only %s rows here (about %.0f s per engine at this size on the busy machine); the full 20,000,000-row run is `Rscript bench/scale-future.R`.", format(n, big.mark = ",", scientific = FALSE), max(synthetic[[1]][1], synthetic[[2]][1]))),
               "",
               "## Forest CoverType from 12 RDS chunk files", "",
               sprintf("522,910 training rows written as 12 RDS files (data frames with the 54 columns and the class), read by `chunked(paths, y = \"cover\")`; the map (rff, D = 1000, minmax scaling, sigma = 0.25 x the median distance of chunk 1) is built on chunk 1; lambda by GCV; test error on the 58,102 test rows (seed 2007 split of bench/common.R). Sum of |coefficients|, relative difference between the two engines: %.1e.", cover_same), "",
               cover_lines), "scale-future.md")
