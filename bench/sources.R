# Chunked data from every kind of source kitchen reads, side by side: the
# same 4 chunks of rows x 11 columns (10 predictors and the response) as
# CSV files (read with read.csv() and with data.table::fread()), RDS files,
# Parquet files (nanoparquet), and an SQLite table (one query streamed with
# dbFetch(), and one query per chunk). For each source: the time of one
# pass that reads every chunk, and of krr_fit() end to end (read,
# featurise, Z'Z, GCV), with the in-memory fit for reference. Sources
# alternate within each repeat; medians of the repeats. The issue's size is
# 4 chunks of 250,000 rows; --quick uses 4 chunks of 50,000, --rows=N
# chunks of N rows. Run from the repository root:
#   Rscript bench/sources.R [--quick | --rows=N]
# Results go to bench/results/sources.md (sources-quick.md, sources-N.md).

suppressPackageStartupMessages(library(kitchen))
source(file.path("bench", "common.R"))
quick <- "--quick" %in% commandArgs(TRUE) || nzchar(Sys.getenv("KITCHEN_BENCH_QUICK"))
rows_arg <- sub("^--rows=", "", grep("^--rows=", commandArgs(TRUE), value = TRUE))
rows <- if (length(rows_arg)) as.numeric(rows_arg) else if (quick) 50000 else 250000
n_chunks <- 4; d <- 10; n_features <- 256; repeats <- 3
for (p in c("data.table", "nanoparquet", "RSQLite")) stopifnot(requireNamespace(p, quietly = TRUE))

dir <- tempfile("sources-bench")
dir.create(dir)
db_path <- file.path(dir, "rows.sqlite")
con <- DBI::dbConnect(RSQLite::SQLite(), db_path)
set.seed(1)
frames <- lapply(seq_len(n_chunks), function(i) {
  x <- matrix(stats::runif(rows * d, -2, 2), rows, d, dimnames = list(NULL, sprintf("x%d", 1:d)))
  frame <- data.frame(x, y = sin(2 * x[, 1]) * cos(x[, 2]) + stats::rnorm(rows, sd = 0.1))
  utils::write.csv(frame, file.path(dir, sprintf("chunk-%d.csv", i)), row.names = FALSE)
  saveRDS(frame, file.path(dir, sprintf("chunk-%d.rds", i)))
  nanoparquet::write_parquet(frame, file.path(dir, sprintf("chunk-%d.parquet", i)))
  DBI::dbWriteTable(con, "rows", frame, append = TRUE)
  frame
})
DBI::dbDisconnect(con)
x <- as.matrix(do.call(rbind, lapply(frames, function(f) f[1:d])))
y <- unlist(lapply(frames, `[[`, "y"))
rm(frames)
connect <- function() DBI::dbConnect(RSQLite::SQLite(), db_path)
columns <- paste(c(sprintf("x%d", 1:d), "y"), collapse = ", ")
sources <- list(
  "CSV, read.csv()" = chunked(file.path(dir, sprintf("chunk-%d.csv", 1:n_chunks)), y = "y"),
  "CSV, data.table::fread()" = chunked(file.path(dir, sprintf("chunk-%d.csv", 1:n_chunks)), y = "y"),
  "RDS" = chunked(file.path(dir, sprintf("chunk-%d.rds", 1:n_chunks)), y = "y"),
  "Parquet (nanoparquet)" = chunked_parquet(dir, y = "y"),
  "SQLite, one query (dbFetch)" = chunked_db(connect, sprintf("SELECT %s FROM rows ORDER BY rowid", columns),
                                             chunk_size = rows, y = "y"),
  "SQLite, a query per chunk" = chunked_db(connect, sprintf(
    "SELECT %s FROM rows WHERE rowid BETWEEN %.0f AND %.0f ORDER BY rowid", columns,
    (seq_len(n_chunks) - 1) * rows + 1, seq_len(n_chunks) * rows), y = "y"))
readers <- c("CSV, read.csv()" = "read.csv", "CSV, data.table::fread()" = "fread")
map <- rff(d, n_features, sigma = 3, seed = 1)

# One pass reading every chunk, as a fit does (kitchen's internal reader:
# read_chunk() would send a streamed query again for every chunk).
read_pass <- function(data) {
  i <- 1
  while (!is.null(kitchen:::chunk_read(data, i))) i <- i + 1
  kitchen:::close_chunk_source(data)
}
time_source <- function(name) {
  reader <- unname(readers[name])  # NA for the other sources
  if (!is.na(reader)) {
    options(kitchen.csv_reader = reader)
    on.exit(options(kitchen.csv_reader = NULL))
  }
  if (name == "in memory") {
    fit_time <- system.time(fit <- krr_fit(x, y, map, lambda = "gcv", n_threads = 2,
                                           verbose = FALSE))[["elapsed"]]
    return(list(read = NA_real_, total = fit_time, fit = fit))
  }
  read <- system.time(read_pass(sources[[name]]))[["elapsed"]]
  total <- system.time(fit <- krr_fit(sources[[name]], map, lambda = "gcv", n_threads = 2,
                                      verbose = FALSE))[["elapsed"]]
  list(read = read, total = total, fit = fit)
}
names_all <- c("in memory", names(sources))
runs <- setNames(rep(list(list()), length(names_all)), names_all)
for (r in seq_len(repeats)) {
  for (name in names_all) runs[[name]][[r]] <- time_source(name)
}
median_of <- function(name, what) stats::median(vapply(runs[[name]], `[[`, 0, what))
reference <- runs[["in memory"]][[1]]$fit$coefficients
relative <- function(name) {
  max(abs(runs[[name]][[1]]$fit$coefficients - reference)) / max(abs(reference))
}
megabytes <- function(pattern) {
  sum(file.size(list.files(dir, pattern = pattern, full.names = TRUE))) / 1e6
}
sizes <- c("CSV, read.csv()" = megabytes("\\.csv$"), "CSV, data.table::fread()" = megabytes("\\.csv$"),
           "RDS" = megabytes("\\.rds$"), "Parquet (nanoparquet)" = megabytes("\\.parquet$"),
           "SQLite, one query (dbFetch)" = megabytes("\\.sqlite$"),
           "SQLite, a query per chunk" = megabytes("\\.sqlite$"))
unlink(dir, recursive = TRUE)
load_average <- tryCatch(readLines("/proc/loadavg"), error = function(e) "unknown")

row_of <- function(name) {
  sprintf("| %s | %s | %s | %.2f | %.2f | %s |", name,
          if (name == "in memory") "-" else sprintf("%.0f", sizes[[name]]),
          if (name == "in memory") "-" else sprintf("%.2f", median_of(name, "read")),
          median_of(name, "total"), median_of(name, "total") / median_of("in memory", "total"),
          if (name == "in memory") "-" else sprintf("%.1e", relative(name)))
}
write_result(c(
  "# Chunked data from every source: read and fit times", "",
  machine_description(),
  sprintf("load average at the end of the run: %s", load_average), "",
  sprintf("%d chunks of %s rows x %d columns; rff D = %d, lambda by GCV, 2 threads; median of %d repeats, sources alternating. \"read\" is one pass reading every chunk; \"fit\" is krr_fit() end to end (one pass: read, featurise, Z'Z; then GCV).",
          n_chunks, format(rows, big.mark = ","), d + 1, n_features, repeats), "",
  "| source | size on disk (MB) | read (s) | fit (s) | fit / in memory | coefficients vs in memory (relative) |",
  "| --- | --- | --- | --- | --- | --- |",
  vapply(names_all, row_of, "")),
  if (length(rows_arg)) sprintf("sources-%s.md", rows_arg) else if (quick) "sources-quick.md" else "sources.md")
