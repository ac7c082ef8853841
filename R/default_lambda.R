# The default lambda choice of chunked data. K-fold CV is the default (see
# "What the defaults do" in ?krr_fit), but chunked data assign whole chunks
# to folds, so CV needs at least n_folds chunks: with fewer, or with a
# function source whose number of chunks only reading tells, the default
# falls back to GCV (a message says so once per session).
chunked_default_lambda <- function(data, n_folds) {
  count <- n_chunks(data)
  if (!is.na(count) && count >= n_folds) return("cv")
  cli::cli_inform(c(
    "i" = "Choosing lambda by GCV: 5-fold CV assigns whole chunks to folds and needs at least {n_folds} chunks{if (is.na(count)) ' known in advance' else paste0(', not ', count)}.",
    " " = "Give {.arg lambda} to choose."),
    .frequency = "once", .frequency_id = "kitchen_chunked_default_lambda")
  "gcv"
}

# lambda = "gcv" where there is no GCV (rbin maps: no eigendecomposition;
# the logistic loss: no closed-form leave-one-out): K-fold CV chooses
# instead, and a message says so once per session.
note_cv_for_gcv <- function(lambda, binned, logistic, n_folds) {
  if (!identical(lambda, "gcv") || !(binned || logistic)) return(invisible())
  cli::cli_inform(c(
    "i" = "{.code lambda = \"gcv\"}: {if (logistic) 'the logistic loss' else 'an rbin() map'} has no GCV; lambda is chosen by {n_folds}-fold CV."),
    .frequency = "once", .frequency_id = "kitchen_cv_for_gcv")
}
