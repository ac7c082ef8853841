# krr_fit() with many classes, for two builds of kitchen side by side: the
# UCI letter data (mlbench::LetterRecognition, the first 16,000 rows, 26
# classes), rff maps, lambda fixed or by 5-fold CV. Each class is a column
# of Z'y, summed over every row in each pass over the data. Usage, from the
# repository root:
#   Rscript bench/many-classes.R <library of build A> <library of build B> [repeats]
# Each fit runs in a fresh Rscript child, builds alternating; the table
# gives medians of the fit's elapsed seconds and checks that both builds
# chose the same lambda and agree on a digest of the coefficients (printed
# to 7 significant digits: a change in the last bits does not show).
# Results: bench/results/many-classes.md.

args <- commandArgs(TRUE)
if (length(args) >= 1 && args[1] == "--fit") {
  suppressPackageStartupMessages(library(kitchen))
  n_features <- as.integer(args[2]); lambda <- args[3]
  data("LetterRecognition", package = "mlbench", envir = environment())
  x <- as.matrix(LetterRecognition[1:16000, -1])
  y <- LetterRecognition$lettr[1:16000]
  map <- rff(x, n_features, sigma = 2.7, seed = 1)
  lambda <- if (lambda == "cv") "cv" else as.numeric(lambda)
  seconds <- system.time(fit <- krr_fit(x, y, map, lambda = lambda, n_threads = 2L))[["elapsed"]]
  # a digest of the coefficients, to compare builds (7 significant digits)
  cat(seconds, fit$lambda, sum(fit$coefficients * seq_along(fit$coefficients)), "\n")
  quit(save = "no")
}

source(file.path("bench", "common.R"))
libs <- args[1:2]
.libPaths(c(libs[2], .libPaths()))  # machine_description() names build B
repeats <- if (length(args) >= 3) as.integer(args[3]) else 3L
cases <- list(c(1024, "0.01"), c(1024, "cv"), c(4096, "0.01"), c(4096, "cv"))
run <- function(lib, case) {
  out <- system2(file.path(R.home("bin"), "Rscript"), c("bench/many-classes.R", "--fit", case),
                 stdout = TRUE, env = paste0("R_LIBS=", lib))
  as.numeric(strsplit(trimws(utils::tail(out, 1)), " ")[[1]])
}
rows <- alternating_rows(libs, cases, run, repeats, function(case, a, b, all_b) {
  sprintf("| %s | %s | %.2f | %.2f | %.2f | %s |", case[1], case[2], a[1], b[1], a[1] / b[1],
          if (identical(a[2:3], b[2:3])) "same" else sprintf("differ (%g / %g)", a[2], b[2]))
})
write_result(c("# krr_fit() with 26 classes (bench/many-classes.R)", "",
               machine_description(), "",
               sprintf("Command: `Rscript bench/many-classes.R %s %s %d` (A: before, B: after).",
                       libs[1], libs[2], repeats),
               "UCI letter, 16,000 rows x 16 columns, 26 classes; `krr_fit(x, y, rff(x, D, sigma = 2.7, seed = 1), lambda, n_threads = 2)`;",
               sprintf("seconds: the fit's elapsed time in a fresh child, median over %d children per build, builds alternating.", repeats),
               "Lambda and coefficients: the same lambda and coefficient digest (7 significant digits) in both builds' runs, or not.", "",
               "| D | lambda | fit A (s) | fit B (s) | A / B | lambda and coefficients |",
               "| --- | --- | --- | --- | --- | --- |", rows), "many-classes.md")
