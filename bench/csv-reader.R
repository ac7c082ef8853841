# Chunked CSV files end to end (read, featurise, Z'Z, GCV) with kitchen's
# two CSV readers side by side: data.table::fread() (the default when
# data.table is installed) and utils::read.csv(). The issue's case is 4
# chunks of 250,000 rows x 11 columns (10 predictors and the response);
# --quick uses 4 chunks of 50,000. Readers alternate within each repeat;
# the median of the repeats is reported, with the largest coefficient
# difference between the two fits. Run from the repository root:
#   Rscript bench/csv-reader.R [--quick]
# Results go to bench/results/csv-reader.md.

suppressPackageStartupMessages(library(kitchen))
source(file.path("bench", "common.R"))
quick <- "--quick" %in% commandArgs(TRUE) || nzchar(Sys.getenv("KITCHEN_BENCH_QUICK"))
rows <- if (quick) 50000 else 250000
n_chunks <- 4; d <- 10; n_features <- 256; repeats <- 3
stopifnot(requireNamespace("data.table", quietly = TRUE))

dir <- tempfile("csv-bench")
dir.create(dir)
set.seed(1)
paths <- vapply(seq_len(n_chunks), function(i) {
  x <- matrix(stats::runif(rows * d, -2, 2), rows, d, dimnames = list(NULL, sprintf("x%d", 1:d)))
  frame <- data.frame(x, y = sin(2 * x[, 1]) * cos(x[, 2]) + stats::rnorm(rows, sd = 0.1))
  path <- file.path(dir, sprintf("chunk-%d.csv", i))
  utils::write.csv(frame, path, row.names = FALSE)
  path
}, "")
data <- chunked(paths, y = "y")
map <- rff(d, n_features, sigma = 3, seed = 1)

fit_with <- function(reader) {
  options(kitchen.csv_reader = reader)
  on.exit(options(kitchen.csv_reader = NULL))
  read <- system.time(for (i in seq_len(n_chunks)) read_chunk(data, i))[["elapsed"]]
  total <- system.time(fit <- krr_fit(data, map, n_threads = 2, verbose = FALSE))[["elapsed"]]
  list(read = read, total = total, fit = fit)
}
runs <- list(fread = list(), read.csv = list())
for (r in seq_len(repeats)) {
  for (reader in names(runs)) runs[[reader]][[r]] <- fit_with(reader)
}
median_of <- function(reader, what) stats::median(vapply(runs[[reader]], `[[`, 0, what))
difference <- max(abs(runs$fread[[1]]$fit$coefficients - runs$read.csv[[1]]$fit$coefficients))
megabytes <- sum(file.size(paths)) / 1e6
unlink(dir, recursive = TRUE)

cells <- function(reader) {
  sprintf("| %s | %.2f | %.2f |", reader, median_of(reader, "read"), median_of(reader, "total"))
}
write_result(c(
  "# Chunked CSV: data.table::fread() against read.csv()", "",
  machine_description(), "",
  sprintf("%d chunks of %s rows x %d columns (CSV, %.0f MB in all); rff D = %d, lambda by GCV, 2 threads; median of %d repeats, readers alternating.",
          n_chunks, format(rows, big.mark = ","), d + 1,
          megabytes, n_features, repeats), "",
  "| reader | reading the 4 chunks (s) | krr_fit() end to end (s) |",
  "| --- | --- | --- |",
  cells("fread"), cells("read.csv"), "",
  sprintf("read.csv / fread: %.1f x (reading), %.1f x (end to end); largest coefficient difference between the two fits: %.1e.",
          median_of("read.csv", "read") / median_of("fread", "read"),
          median_of("read.csv", "total") / median_of("fread", "total"), difference)),
  if (quick) "csv-reader-quick.md" else "csv-reader.md")
