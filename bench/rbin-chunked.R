# Child process of bench/rbin.R: the chunked CoverType fit, in a fresh R
# process so that its peak memory is the fit's own (the parent holds the
# whole data set). Arguments: the directory of chunk files, sigma, and the
# file to write the results to.
args <- commandArgs(trailingOnly = TRUE)
source(file.path("bench", "common.R"))
suppressPackageStartupMessages({ library(kitchen); library(future) })
paths <- sort(list.files(args[1], pattern = "\\.rds$", full.names = TRUE))
sigma <- as.numeric(args[2])
plan(multisession, workers = 2)
data <- chunked(paths, y = "y")
began <- proc.time()[["elapsed"]]
map <- rbin(data, 50, sigma = sigma, seed = 1, n_threads = 2)
map_seconds <- proc.time()[["elapsed"]] - began
fit <- krr_fit(data, map, lambda = "cv", n_threads = 2, verbose = FALSE)
seconds <- proc.time()[["elapsed"]] - began
plan(sequential)
saveRDS(list(fit = fit, seconds = seconds, map_seconds = map_seconds, peak_mb = peak_memory_mb()),
        args[3])
