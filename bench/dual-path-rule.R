# Where the dual path of a least-squares fit (R/krr_dual.R) stops paying:
# the default fit (lambda by 5-fold CV, a given rff map) on the primal and
# the dual path, forced by options(kitchen.dual), at n / D = 1/4, 1/3, 0.4
# and 1/2 for D = 1000 and 2000 (synthetic rows, 8 columns), the two paths
# alternating, medians of `repeats` runs each. The rule of "auto" is
# 3n <= D (and n <= 1000).
#   Rscript bench/dual-path-rule.R [repeats]     # about 3 min at 2 repeats
source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))
args <- commandArgs(TRUE)
repeats <- if (length(args)) as.integer(args[1]) else 2
fit_seconds <- function(n, n_features, dual) {
  old <- options(kitchen.dual = dual)
  on.exit(options(old))
  set.seed(n)
  x <- matrix(stats::rnorm(n * 8), n)
  y <- sin(x[, 1]) + stats::rnorm(n, sd = 0.3)
  map <- rff(x, n_features, seed = 1)
  seconds(krr_fit(x, y, map, n_threads = 2, verbose = FALSE))
}
load_before <- readLines("/proc/loadavg")
sizes <- list(c(250, 1000), c(333, 1000), c(400, 1000), c(500, 1000),
              c(500, 2000), c(667, 2000), c(800, 2000), c(1000, 2000))
rows <- lapply(sizes, function(s) {
  times <- replicate(repeats, c(primal = fit_seconds(s[1], s[2], FALSE),
                                dual = fit_seconds(s[1], s[2], TRUE)))
  primal <- stats::median(times["primal", ])
  dual <- stats::median(times["dual", ])
  data.frame(n = s[1], D = s[2], `n / D` = round(s[1] / s[2], 2), `primal s` = three_digits(primal),
             `dual s` = three_digits(dual), `dual / primal` = three_digits(dual / primal),
             `auto takes` = if (3 * s[1] <= s[2]) "dual" else "primal", check.names = FALSE)
})
write_result(c(
  "# The dual path's rule: primal against dual least-squares fits (bench/dual-path-rule.R)", "",
  machine_description(),
  sprintf("load average before / after: %s / %s; %d runs of each path per size, alternating",
          load_before, readLines("/proc/loadavg"), repeats), "",
  paste("`krr_fit(x, y, rff(x, D, seed = 1), n_threads = 2)` (lambda by 5-fold CV) on n synthetic",
        "rows of 8 columns, primal and dual path forced by `options(kitchen.dual)`; seconds are",
        "medians of the runs."), "",
  markdown_table(do.call(rbind, rows))), "dual-path-rule.md")
