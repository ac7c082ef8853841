# The columns of one categorical variable in one-hot coding share one
# bandwidth in krr_fit(sigma = "ard"), learned and left out together: a
# bandwidth per category lets some categories be nearer each other than
# others, and the search, on a subsample, sees too few rows of the rare
# categories to learn their bandwidths apart. On CoverType (4 wilderness
# and 40 soil columns, 522,910 training rows; bench/results/ard-covtype*.md)
# rff with 5000 features gave 8.70% test error (9.17% before, on another
# machine), and rbin (50 grids, the pruning chosen by the binned fit:
# binned_ard_starts(), R/ard.R; one search, where three are averaged
# since: ard_search_count()) 2.16-2.88% on map seeds 1-5 (2.16-2.31% on
# seeds 1-3, against 2.19-2.88% before), where the weights of a 43-minute
# greedy search outside the package (bench/covtype-weights.R) give
# 2.10-2.16%.
#
# Only one-hot blocks: adjacent columns of 0s and 1s in which every row has
# exactly one 1. Not a factor's treatment dummies (their base level all
# zeros): without the model's terms, a test that allows all-zero rows would
# also group rare binary columns that never meet, such as a document
# matrix's words; and on ames (40 factors, the formula fits of
# bench/defaults.R --quick) sharing the dummies' bandwidths by term gained
# nothing clear (test error 0.298 -> 0.299, 0.273 -> 0.293, 0.307 -> 0.302,
# 0.285 -> 0.274 for rff and fastfood at D = 300 and 1000; rbin unchanged).
# Returns each column's group, 1..G, in column order.
one_hot_groups <- function(x) {
  d <- ncol(x)
  column <- function(j) as.numeric(x[, j])
  binary <- vapply(seq_len(d), function(j) {
    v <- column(j)
    all(v == 0 | v == 1)
  }, TRUE)
  groups <- integer(d)
  group <- 0L
  j <- 1L
  while (j <= d) {
    run <- j
    if (binary[j]) {
      # the longest run from j of 0/1 columns with no row holding two 1s
      total <- column(j)
      k <- j + 1L
      while (k <= d && binary[k]) {
        extended <- total + column(k)
        if (any(extended > 1)) break
        total <- extended
        run <- c(run, k)
        k <- k + 1L
      }
      # Not one-hot: column j alone, as a one-hot block may still start
      # inside the run (if j's 1s fall in the rows of its later columns).
      if (!all(total == 1)) run <- j
    }
    group <- group + 1L
    groups[run] <- group
    j <- max(run) + 1L
  }
  groups
}

# For summary(): how many columns share a bandwidth as groups, or NULL.
one_hot_summary <- function(groups) {
  sizes <- tabulate(groups)
  shared <- sizes[sizes > 1]
  if (!length(shared)) return(NULL)
  sprintf("; %d one-hot columns share %d bandwidth%s (one per variable)", sum(shared), length(shared),
          if (length(shared) == 1) "" else "s")
}

# For summary(): the steps on single groups' bandwidths after the binned
# screen (group_steps(), R/krr_binned_search.R), or NULL.
group_steps_summary <- function(steps) {
  if (is.null(steps)) return(NULL)
  taken <- which(steps$taken)
  sprintf("; then %d of %d steps on one group's bandwidths (halved or doubled) taken%s",
          length(taken), nrow(steps),
          if (length(taken)) sprintf(", fold-1 error %s", format(steps$error[max(taken)], digits = 3)) else "")
}
