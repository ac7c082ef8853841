# Cost of sample weights in krr_fit(): the fit of bench/krr.R (n = 1e5,
# d = 64, D = 2048, fixed lambda, 2 threads) with and without weights, and
# (when a library with an earlier kitchen is given) the same fit with that
# kitchen, side by side. Each fit runs in its own process; the settings are
# interleaved, 5 runs each, medians reported.
#   Rscript bench/weights.R [--before=/path/to/library]
# Results go to bench/results/weights.md.

n <- 100000; d <- 64; n_features <- 2048; lambda <- 1

if ("--fit" %in% commandArgs(TRUE)) {
  library(kitchen)
  set.seed(1)
  x <- matrix(rnorm(n * d), n, d)
  y <- sin(x[, 1]) + rnorm(n, sd = 0.1)
  w <- if ("--weights" %in% commandArgs(TRUE)) runif(n, 0.5, 2)
  map <- rff(d, n_features, sigma = sqrt(d), seed = 1)
  args <- list(x, y, map, lambda = lambda, n_threads = 2, verbose = FALSE)
  if (!is.null(w)) args$weights <- w
  cat(system.time(do.call(krr_fit, args))[["elapsed"]], "\n")
  quit(save = "no")
}

source(file.path("bench", "common.R"))
before <- sub("^--before=", "", grep("^--before=", commandArgs(TRUE), value = TRUE))
rscript <- file.path(R.home("bin"), "Rscript")
libs <- paste(.libPaths(), collapse = ":")
settings <- list("no weights" = c("--fit"), "weights" = c("--fit", "--weights"))
env <- list("no weights" = paste0("R_LIBS=", libs), "weights" = paste0("R_LIBS=", libs))
if (length(before)) {
  settings[["no weights, kitchen before this change"]] <- "--fit"
  env[["no weights, kitchen before this change"]] <- paste0("R_LIBS=", before, ":", libs)
}
times <- matrix(NA_real_, 5, length(settings), dimnames = list(NULL, names(settings)))
for (r in 1:5) for (s in names(settings)) {
  out <- system2(rscript, c("bench/weights.R", settings[[s]]), stdout = TRUE, env = env[[s]])
  times[r, s] <- as.numeric(utils::tail(out, 1))
}
medians <- apply(times, 2, stats::median)
table <- data.frame(setting = names(medians), "median s" = three_digits(medians),
                    "runs (s)" = apply(times, 2, function(t) paste(three_digits(t), collapse = ", ")),
                    "ratio to no weights" = three_digits(medians / medians[["no weights"]]),
                    check.names = FALSE)
write_result(c("# Sample weights in krr_fit()", "", machine_description(),
               sprintf("load average at the end: %s", paste(readLines("/proc/loadavg"), collapse = "")),
               "", sprintf("n = %d, d = %d, D = %d, fixed lambda, 2 threads; 5 interleaved runs per setting, each in its own process.",
                           n, d, n_features), "",
               markdown_table(table)), "weights.md")
