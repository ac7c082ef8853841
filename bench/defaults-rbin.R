# The rbin column of the defaults suite alone (bench/defaults.R, quick
# mode's data sets: CoverType on 20,000 training rows): `krr_fit(y ~ .,
# train, features = "rbin")` with nothing else set, `set.seed(1)` before
# each fit, the same splits. To compare two builds side by side:
#   R_LIBS=<library> nice -n 10 Rscript bench/defaults-rbin.R
# SEEDS=1:5 repeats each fit with set.seed(s) before it (the map's draws),
# and adds a table of the errors by seed with their mean.
Sys.setenv(KITCHEN_BENCH_QUICK = "1")
source(file.path("bench", "defaults.R"))
sets <- load_datasets()
seeds <- eval(parse(text = Sys.getenv("SEEDS", "1")))
load0 <- readLines("/proc/loadavg")
out <- do.call(rbind, lapply(seeds, function(seed) do.call(rbind, lapply(sets, function(set) {
  cbind(run_method(set, "kitchen rbin (100 grids)", function(s) fit_kitchen(s, "rbin", seed = seed)),
        seed = seed)
}))))
print(out, digits = 3, row.names = FALSE)
if (length(seeds) > 1) {
  by_seed <- stats::reshape(out[, c("data", "seed", "error")], idvar = "data", timevar = "seed",
                            direction = "wide")
  by_seed$mean <- rowMeans(by_seed[, -1])
  by_seed$sd <- apply(by_seed[, grep("^error", names(by_seed))], 1, stats::sd)
  print(by_seed, digits = 4, row.names = FALSE)
}
cat(sprintf("kitchen at %s; load before / after: %s / %s; total %.0f s\n",
            find.package("kitchen"), load0, readLines("/proc/loadavg"), sum(out$seconds)))
