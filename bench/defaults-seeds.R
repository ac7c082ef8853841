# The spread of the default fit's test error over map seeds 1-5 on the
# suite's fixed split (bench/defaults.R's data sets), to tell a data set's
# miss from one map's luck (issue 17). Results in bench/results/defaults.md.
#   Rscript bench/defaults-seeds.R "mtcars,BostonHousing" 1000
suppressMessages(source("bench/defaults.R"))
args <- commandArgs(TRUE)
all_sets <- load_datasets(); names(all_sets) <- vapply(all_sets, `[[`, "", "name")
D <- as.numeric(args[2])
for (nm in strsplit(args[1], ",")[[1]]) {
  set <- all_sets[[nm]]
  e <- vapply(1:5, function(s) test_error(set, fit_kitchen(set, "rff", D, seed = s)), 0)
  cat(sprintf("%s rff D=%d map seeds 1-5: %s (mean %.4f, sd %.4f)\n", nm, D, paste(sprintf("%.4f", e), collapse = " "), mean(e), sd(e)))
}
