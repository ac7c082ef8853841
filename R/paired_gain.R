# Whether per-row gains (the other candidate's losses minus this one's, on
# the same held-out rows) are positive by more than `n_se` standard errors
# of their mean: the paired rule of ARD's held-out check (R/ard.R), of
# rbin's check of per-column bandwidths and of the binned lambda choice
# (R/krr_binned_search.R). A narrow win on a few hundred rows is noise.
# FALSE when the comparison is undefined (one row, non-finite losses).
clearly_better <- function(gain, n_se = 1) {
  isTRUE(mean(gain) > n_se * stats::sd(gain) / sqrt(length(gain)))
}
