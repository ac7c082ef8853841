# Progress of a fit's long steps between its passes over rows (which have
# bars of their own): CV folds, bandwidth candidates, calibration folds; at
# D = 4096 each fold's reduction takes seconds, and a verbose fit showed
# nothing for a minute. Shown when the call is verbose (`backend$progress`,
# set by krr_fit()), and by cli only once a bar has lived two seconds, so
# quick fits stay quiet.

# A function that advances a bar of `total` steps labelled `label` by one
# step (it does nothing when the call is not verbose). The bar ends with
# the function `frame`, by default the caller.
progress_ticker <- function(backend, label, total, frame = parent.frame()) {
  if (!isTRUE(backend$progress) || total < 1) return(function() invisible())
  bar <- cli::cli_progress_bar(label, total = total, clear = TRUE, .envir = frame)
  function() cli::cli_progress_update(id = bar, .envir = frame)
}

# backend_settings() of a call that shows progress when `verbose`.
with_progress <- function(backend, verbose) {
  backend$progress <- verbose
  backend
}
