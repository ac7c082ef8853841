# Where the time of the whole rbin call on CoverType goes: every conjugate-
# gradient solve (columns, rows, lambda, tolerance, iterations, seconds) and
# every rebuild of the bins for a bandwidth candidate, by wrapping the
# internal functions. Argument: the scaling of rbin(). KLIB=<library> picks
# the build (to compare two side by side); MAPSEED=s gives the map's seed.
source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen, lib.loc = c(if (nzchar(Sys.getenv("KLIB"))) Sys.getenv("KLIB"), .libPaths())))
covtype <- covtype_split()
x <- covtype$x; y <- covtype$y; train <- covtype$train; test <- covtype$test
args <- commandArgs(TRUE)
scale <- if (length(args)) args[1] else "standard"
log <- new.env(); log$rows <- list()
ns <- asNamespace("kitchen")
orig_cg <- get("binned_cg_cpp", ns)
wrapped <- function(cols, rows, zbar, diagonal, b, start, lambda, value, tol, max_iter, n_threads) {
  t0 <- proc.time()[[3]]
  out <- orig_cg(cols, rows, zbar, diagonal, b, start, lambda, value, tol, max_iter, n_threads)
  log$rows[[length(log$rows) + 1]] <- data.frame(n_col = length(zbar), rows = sum(rows), lambda = lambda,
    tol = tol, iters = out$iterations, resid = out$residual, sec = proc.time()[[3]] - t0)
  out
}
unlockBinding("binned_cg_cpp", ns); assign("binned_cg_cpp", wrapped, ns)
orig_bw <- get("rbin_with_bandwidth", ns)
unlockBinding("rbin_with_bandwidth", ns)
assign("rbin_with_bandwidth", function(...) { t0 <- proc.time()[[3]]; m <- orig_bw(...);
  log$rows[[length(log$rows) + 1]] <- data.frame(n_col = m$n_features, rows = NA, lambda = m$kernel$sigma,
    tol = NA, iters = -1L, resid = NA, sec = proc.time()[[3]] - t0); m }, ns)
x_train <- x[train, ]
load0 <- utils::read.table("/proc/loadavg")[[1]]
t0 <- proc.time()
map_seed <- if (nzchar(Sys.getenv("MAPSEED"))) as.integer(Sys.getenv("MAPSEED"))
fit <- krr_fit(x_train, y[train], rbin(x_train, 50, scale = scale, n_threads = 2, seed = map_seed),
               lambda = "cv", sigma = "auto", n_threads = 2, verbose = FALSE)
el <- proc.time() - t0
err <- mean(predict(fit, x[test, ], type = "class", n_threads = 2) != y[test])
prof <- do.call(rbind, log$rows)
print(prof, digits = 4)
cat(sprintf("whole %.0f s elapsed, %.0f s CPU; load %.1f -> %.1f; test error %.2f%%; sigma %.3g lambda %.3g\n",
            el[[3]], el[[1]] + el[[2]], load0, utils::read.table("/proc/loadavg")[[1]], 100 * err,
            fit$map$kernel$sigma, fit$lambda))
cat(sprintf("CG total %.0f s in %d iterations; map builds %.0f s\n", sum(prof$sec[prof$iters >= 0]),
            sum(prof$iters[prof$iters >= 0]), sum(prof$sec[prof$iters < 0])))
print(fit$sigma_path); print(fit$path)
