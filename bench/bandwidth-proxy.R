# Does the proxy screen of sigma = "auto" (large rff maps: R/krr_bandwidth_search.R)
# choose what the fold-1 screen of the full map chose? For each data set,
# `krr_fit(x, y, rff(x, D, seed = 1), sigma = "auto")` (lambda by 5-fold CV) is
# fitted by two builds in turn, each in its own process (KITCHEN_THIS_LIB,
# KITCHEN_BASE_LIB), on the suite's fixed splits (bench/common.R, seed 2007):
# chosen sigma and lambda, test error and seconds. D: KITCHEN_BENCH_D (2048);
# KITCHEN_BENCH_MAP=fastfood for Fastfood maps (rff by default).
# Run from the repository root: Rscript bench/bandwidth-proxy.R
args <- commandArgs(TRUE)
source(file.path("bench", "common.R"))
sets <- list(
  census = function() { d <- load_census(); c(d, split_rows(nrow(d$x), 18186)) },
  cpu = function() { d <- load_cpu(); c(d, split_rows(nrow(d$x), 6554)) },
  parkinsons = function() { d <- load_parkinsons(); c(d, split_rows(nrow(d$x), 4700)) },
  letter = function() {
    e <- new.env()
    utils::data("LetterRecognition", package = "mlbench", envir = e)
    list(x = as.matrix(e$LetterRecognition[, -1]), y = e$LetterRecognition$lettr,
         train = 1:16000, test = 16001:20000)
  })
n_features <- as.integer(Sys.getenv("KITCHEN_BENCH_D", "2048"))
map_kind <- Sys.getenv("KITCHEN_BENCH_MAP", "rff")
if (length(args) && args[1] == "--child") {
  suppressPackageStartupMessages(library(kitchen, lib.loc = args[2]))
  d <- sets[[args[3]]]()
  x <- d$x[d$train, , drop = FALSE]
  began <- proc.time()[["elapsed"]]
  map <- if (map_kind == "fastfood") fastfood(x, n_features, seed = 1) else rff(x, n_features, seed = 1)
  fit <- krr_fit(x, d$y[d$train], map, sigma = "auto", n_threads = 2, verbose = FALSE)
  seconds <- proc.time()[["elapsed"]] - began
  pred <- predict(fit, d$x[d$test, , drop = FALSE], type = if (is.factor(d$y)) "class" else "response")
  error <- if (is.factor(d$y)) mean(pred != d$y[d$test]) else
    sqrt(mean((pred - d$y[d$test])^2)) / stats::sd(d$y[d$test])
  cat(sprintf("result %s %.17g %.17g %.6f %.2f\n", args[3], fit$map$kernel$sigma, fit$lambda, error,
              seconds))
  quit(save = "no")
}
libs <- c(this = Sys.getenv("KITCHEN_THIS_LIB"), base = Sys.getenv("KITCHEN_BASE_LIB"))
if (!all(nzchar(libs))) stop("Set KITCHEN_THIS_LIB and KITCHEN_BASE_LIB.")
chosen <- if (nzchar(Sys.getenv("KITCHEN_BENCH_SETS"))) strsplit(Sys.getenv("KITCHEN_BENCH_SETS"), ",")[[1]] else names(sets)
load_before <- readLines("/proc/loadavg")
rows <- list()
for (set in chosen) {
  for (build in names(libs)) {
    out <- system2(file.path(R.home("bin"), "Rscript"),
                   c("bench/bandwidth-proxy.R", "--child", libs[[build]], set), stdout = TRUE)
    v <- strsplit(grep("^result ", out, value = TRUE), " ")[[1]]
    rows[[length(rows) + 1]] <- sprintf("| %s | %s | %.4g | %.4g | %s | %s |", set, build,
                                        as.numeric(v[3]), as.numeric(v[4]), v[5], v[6])
    cat(rows[[length(rows)]], "\n")
  }
}
suppressPackageStartupMessages(library(kitchen, lib.loc = libs[["this"]]))
write_result(c("# sigma = \"auto\" with the proxy screen against the fold-1 screen (bench/bandwidth-proxy.R)", "",
               machine_description(),
               sprintf("load average before / after: %s / %s", load_before, readLines("/proc/loadavg")),
               sprintf("%s maps, D = %d; this = %s, base = %s", map_kind, n_features, libs[["this"]],
                       libs[["base"]]), "",
               "| data | build | sigma | lambda | test error | seconds |",
               "| --- | --- | --- | --- | --- | --- |", unlist(rows)),
             if (map_kind == "rff") "bandwidth-proxy.md" else sprintf("bandwidth-proxy-%s.md", map_kind))
