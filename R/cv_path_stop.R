# When a CV path over candidate lambdas (largest first) may stop after
# candidate `l`: once the CV loss has risen for `patience` candidates past
# its minimum, or already at the first candidate past it where every fold's
# held-out loss (`fold_losses`, one row per candidate, one column per fold)
# is above its loss at the minimum: no fold then points further along the
# path. On 7-class CoverType (D = 2048) the second candidate past the
# minimum took 14% of the logistic fit (the smallest lambdas need the most
# passes); bench/results/logistic.md.
cv_path_done <- function(l, cv, fold_losses, patience) {
  best <- best_candidate(cv[seq_len(l)])
  if (l - best >= patience) return(TRUE)
  l > best && all(fold_losses[l, ] > fold_losses[best, ])
}
