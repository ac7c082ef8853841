# The rbin column of the defaults suite alone (bench/defaults.R, quick
# mode's data sets: CoverType on 20,000 training rows): `krr_fit(y ~ .,
# train, features = "rbin")` with nothing else set, `set.seed(1)` before
# each fit, the same splits. To compare two builds side by side:
#   R_LIBS=<library> nice -n 10 Rscript bench/defaults-rbin.R
Sys.setenv(KITCHEN_BENCH_QUICK = "1")
source(file.path("bench", "defaults.R"))
sets <- load_datasets()
load0 <- readLines("/proc/loadavg")
out <- do.call(rbind, lapply(sets, function(set) {
  run_method(set, "kitchen rbin (100 grids)", function(s) fit_kitchen(s, "rbin"))
}))
print(out, digits = 3, row.names = FALSE)
cat(sprintf("kitchen at %s; load before / after: %s / %s; total %.0f s\n",
            find.package("kitchen"), load0, readLines("/proc/loadavg"), sum(out$seconds)))
