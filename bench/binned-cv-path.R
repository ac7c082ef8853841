# Seconds per fold-1 CV path of a binned fit (binned_cv_path(), as one
# screen of the bandwidth search runs it) on a synthetic system of
# CoverType's size under rbin with 50 grids: 418,000 rows, 8.5 million bins,
# 7 classes, fold 1 of 5 held out, 4 lambdas of 10 CG iterations each (a
# step screen's later lambdas take 5-20). What it measures beyond
# bench/binned-cg.R: the work around the solves (right-hand sides, the
# solver's fresh memory, fitted values, scores). KLIBS=lib1,lib2,...
# compares builds side by side, alternating, 3 repeats each. Prints the
# table and each build's CV errors (figures of 2026-12-02:
# bench/results/ard-covtype-rbin.md).
source(file.path("bench", "common.R"))
libs <- strsplit(Sys.getenv("KLIBS"), ",")[[1]]
if (!length(libs)) libs <- dirname(find.package("kitchen"))
set.seed(1)
n <- 418000L; n_grids <- 50L; per_grid <- 170000L; k <- 7L
cols <- matrix(0L, n, n_grids)
for (g in seq_len(n_grids)) {
  cols[, g] <- (g - 1L) * per_grid + sample.int(per_grid, n, replace = TRUE) - 1L
}
n_col <- n_grids * per_grid
value <- 1 / sqrt(n_grids)
classes <- sample.int(k, n, replace = TRUE)
y <- 2 * outer(classes, seq_len(k), "==") - 1
folds <- sample.int(5L, n, replace = TRUE)
.libPaths(c(libs[1], .libPaths()))  # for machine_description()
cat(machine_description(), sep = "\n")
unloadNamespace("kitchen")  # each build is loaded in turn below
times <- list()
for (r in 1:3) for (lib in libs) {
  kitchen <- asNamespace(loadNamespace("kitchen", lib.loc = lib))
  ops <- kitchen$binned_ops(cols, value, n_col, list(n_threads = 2L))
  sec <- system.time({
    path <- kitchen$binned_cv_path(ops, y, folds, value, n_col, c(10, 3, 1, 0.3), 1e-30, 10L,
                                   FALSE, rep(1, n), patience = Inf, use_folds = 1L, cv_iter = 10,
                                   classify = TRUE)
  })[["elapsed"]]
  times[[length(times) + 1]] <- data.frame(build = lib, repeat_ = r, seconds = sec,
                                           cv = paste(format(path$cv, digits = 6), collapse = " "))
  rm(kitchen, ops, path)
  unloadNamespace("kitchen")
}
times <- do.call(rbind, times)
print(times)
print(aggregate(seconds ~ build, times, stats::median))
