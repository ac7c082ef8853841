# Issue 24's chunked target with the bandwidth chosen from the chunks:
# CoverType's training rows in 10 RDS chunk files, on
# plan(multisession, workers = 2), the whole call
#   krr_fit(<chunked>, rbin(<chunked>, 50, ...), lambda = "cv", sigma = "auto")
# against the same call in memory on the same rows in chunk order, with the
# chunks' folds (chunk i in fold (i - 1) %% 5 + 1), so that the two fits
# should be the same. Both maps get the median-distance bandwidth of the
# in-memory map, so that their random draws are the same too. The chunked
# call runs in a fresh R process (its peak memory is its own). Run from the
# repository root: Rscript bench/rbin-chunked-search.R; results to
# bench/results/rbin-chunked-search.md. RBIN_BENCH_ROWS=20000 runs it on a
# sample of the training rows (results to rbin-chunked-search-sample.md).
source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))
args <- commandArgs(trailingOnly = TRUE)
note <- function(...) message(format(Sys.time(), "%H:%M:%S "), sprintf(...))
n_grids <- 50

if (length(args) && args[1] == "child") {
  # The chunked call: chunk directory, sigma, output file.
  suppressPackageStartupMessages(library(future))
  paths <- sort(list.files(args[2], pattern = "\\.rds$", full.names = TRUE))
  plan(multisession, workers = 2)
  data <- chunked(paths, y = "y")
  began <- proc.time()[["elapsed"]]
  map <- rbin(data, n_grids, sigma = as.numeric(args[3]), scale = "minmax", seed = 1, n_threads = 2)
  map_seconds <- proc.time()[["elapsed"]] - began
  fit <- krr_fit(data, map, lambda = "cv", sigma = "auto", n_threads = 2, verbose = FALSE)
  seconds <- proc.time()[["elapsed"]] - began
  plan(sequential)
  saveRDS(list(fit = fit, seconds = seconds, map_seconds = map_seconds,
               peak_mb = peak_memory_mb()), args[4])
  quit(save = "no")
}

sample_rows <- as.integer(Sys.getenv("RBIN_BENCH_ROWS", "0"))
covtype <- covtype_split(sample_rows)
train <- covtype$train
test <- covtype$test
pieces <- split(seq_along(train), rep(1:10, length.out = length(train)))
ordered <- unlist(lapply(pieces, function(p) train[sort(p)]))  # the chunks' rows, in chunk order
x <- as.matrix(covtype$x[ordered, ])
y <- covtype$y[ordered]
folds <- rep((seq_len(10) - 1) %% 5 + 1, lengths(pieces))
chunk_dir <- file.path(tempdir(), "covtype-chunks")
dir.create(chunk_dir, showWarnings = FALSE)
at <- c(0, cumsum(lengths(pieces)))
for (k in 1:10) {
  rows <- (at[k] + 1):at[k + 1]
  frame <- as.data.frame(x[rows, ])
  frame$y <- y[rows]
  saveRDS(frame, file.path(chunk_dir, sprintf("chunk-%02d.rds", k)))
}
sigma0 <- rbin(x, n_grids, scale = "minmax", seed = 1, n_threads = 2)$kernel$sigma
x_test <- as.matrix(covtype$x[test, ])
load_before <- utils::read.table("/proc/loadavg")[[1]]

# In memory, the same call on the same rows and folds.
began <- proc.time()[["elapsed"]]
map <- rbin(x, n_grids, sigma = sigma0, scale = "minmax", seed = 1, n_threads = 2)
memory_fit <- krr_fit(x, y, map, lambda = "cv", sigma = "auto", folds = folds, n_threads = 2,
                      verbose = FALSE)
memory_seconds <- proc.time()[["elapsed"]] - began
memory_error <- misclassified(predict(memory_fit, x_test, type = "class", n_threads = 2),
                              covtype$y[test])
note("in memory: %.0f s, test error %.2f%%", memory_seconds, 100 * memory_error)
rm(map)

out_file <- file.path(tempdir(), "rbin-chunked-search.rds")
status <- system2(file.path(R.home("bin"), "Rscript"),
                  c(file.path("bench", "rbin-chunked-search.R"), "child", chunk_dir,
                    format(sigma0, digits = 17), out_file))
if (status != 0) stop("the chunked child process failed")
child <- readRDS(out_file)
chunked_fit <- child$fit
chunked_error <- misclassified(predict(chunked_fit, x_test, type = "class", n_threads = 2),
                               covtype$y[test])
note("chunked: %.0f s, peak %.0f MB, test error %.2f%%", child$seconds, child$peak_mb,
     100 * chunked_error)
load_after <- utils::read.table("/proc/loadavg")[[1]]

difference <- max(abs(coef(chunked_fit) - coef(memory_fit))) / max(abs(coef(memory_fit)))
path_table <- function(fit) {
  markdown_table(data.frame(sigma = three_digits(fit$sigma_path$sigma),
                            lambda = three_digits(fit$sigma_path$lambda),
                            score = formatC(fit$sigma_path$score, digits = 4, format = "f")))
}
lines <- c(
  "# rbin on chunked CoverType: the bandwidth chosen from the chunks", "",
  machine_description(), "",
  sprintf("%d training rows in 10 RDS chunk files (rows dealt round-robin), %d test rows; rbin P = %d, min-max scaling, map seed 1, sigma0 = %.4g (the median-distance bandwidth of the in-memory map), lambda = \"cv\", sigma = \"auto\", 5 folds of whole chunks; 2 threads. Load average %.1f before, %.1f after.",
          nrow(x), length(test), n_grids, sigma0, load_before, load_after), "",
  "| | in memory (same rows, order and folds) | chunked, plan(multisession, workers = 2) |",
  "| --- | --- | --- |",
  sprintf("| whole call (s) | %.0f | %.0f (map from the chunks: %.0f) |", memory_seconds,
          child$seconds, child$map_seconds),
  sprintf("| chosen sigma, lambda | %.4g, %.4g | %.4g, %.4g |", memory_fit$map$kernel$sigma,
          memory_fit$lambda, chunked_fit$map$kernel$sigma, chunked_fit$lambda),
  sprintf("| occupied bins | %s | %s |", format(memory_fit$map$n_features, big.mark = ","),
          format(chunked_fit$map$n_features, big.mark = ",")),
  sprintf("| test error | %.3f%% | %.3f%% |", 100 * memory_error, 100 * chunked_error),
  sprintf("| peak memory of the process (MB, VmHWM) | (holds all of CoverType) | %.0f |",
          child$peak_mb), "",
  sprintf("Largest coefficient difference, relative to the largest coefficient: %.2g. The training rows alone are %.0f MB as doubles.",
          difference, nrow(x) * ncol(x) * 8 / 2^20), "",
  "Bandwidth screen, in memory:", "", path_table(memory_fit), "",
  "Bandwidth screen, chunked:", "", path_table(chunked_fit))
write_result(lines, if (sample_rows > 0) "rbin-chunked-search-sample.md" else "rbin-chunked-search.md")
