# Seconds per call of the binned ridge solver's C++ CG (binned_cg_cpp, 10
# iterations) on a synthetic system of CoverType's size under rbin with 50
# grids: 418,000 rows, 8.5 million bins, 7 right-hand sides (one per
# class). KLIBS=lib1,lib2,... compares builds side by side, alternating, 3
# repeats each; K=k sets the number of right-hand sides. Prints the table
# (figures of 2026-12-02: bench/results/ard-covtype-rbin.md).
source(file.path("bench", "common.R"))
libs <- strsplit(Sys.getenv("KLIBS"), ",")[[1]]
if (!length(libs)) libs <- dirname(find.package("kitchen"))
set.seed(1)
n <- 418000L; n_grids <- 50L; per_grid <- 170000L; k <- as.integer(Sys.getenv("K", "7"))
cols <- matrix(0L, n, n_grids)
for (g in seq_len(n_grids)) {
  cols[, g] <- (g - 1L) * per_grid + sample.int(per_grid, n, replace = TRUE) - 1L
}
n_col <- n_grids * per_grid
value <- 1 / sqrt(n_grids)
counts <- tabulate(cols + 1L, n_col)
b <- matrix(rnorm(n_col * k), n_col, k)
start <- matrix(0, n_col, k)
rows <- rep(1, n)
.libPaths(c(libs[1], .libPaths()))  # for machine_description()
cat(machine_description(), sep = "\n")
unloadNamespace("kitchen")  # each build is loaded in turn below
times <- list()
for (r in 1:3) for (lib in libs) {
  solve <- get("binned_cg_cpp", asNamespace(loadNamespace("kitchen", lib.loc = lib)))
  sec <- system.time(out <- solve(cols, rows, counts * value / n, counts * value^2, b, start,
                                  0.2, value, 1e-30, 10L, 2L))[["elapsed"]]
  times[[length(times) + 1]] <- data.frame(build = lib, repeat_ = r, seconds = sec,
                                           iterations = out$iterations[1])
  unloadNamespace("kitchen")
}
times <- do.call(rbind, times)
print(times)
print(aggregate(seconds ~ build, times, stats::median))
