#' Number of threads used by kitchen
#'
#' Every function of kitchen that works in parallel takes an `n_threads`
#' argument. When it is `NULL` the number is taken, in this order, from the
#' option `kitchen.threads`, the environment variable `KITCHEN_NUM_THREADS`,
#' and finally [RcppParallel::defaultNumThreads()]. A request for more threads
#' than [RcppParallel::defaultNumThreads()] allows is capped there. Results
#' never depend on the number of threads.
#'
#' @param n_threads Number of threads: a whole number >= 1, or `NULL` for the
#'   default (see [kitchen_threads()]). Results do not depend on it.
#' @return The number of threads that would be used, an integer.
#' @export
#' @examples
#' kitchen_threads()
#' kitchen_threads(2)
#' old <- options(kitchen.threads = 1)
#' kitchen_threads()
#' options(old)
kitchen_threads <- function(n_threads = NULL) {
  resolve_threads(n_threads)
}

# The thread pool refuses (with a warning on stderr) more workers than it
# was set up with, so requests are capped at that number.
resolve_threads <- function(n_threads, call = rlang::caller_env()) {
  available <- defaultNumThreads()
  arg <- "n_threads"
  if (is.null(n_threads)) {
    n_threads <- getOption("kitchen.threads")
    arg <- "options(kitchen.threads)"
  }
  if (is.null(n_threads)) {
    env <- env_value_cpp("KITCHEN_NUM_THREADS", "")  # Sys.getenv() costs a microsecond
    if (!nzchar(env)) return(available)
    n_threads <- suppressWarnings(as.numeric(env))
    arg <- "KITCHEN_NUM_THREADS"
  }
  check_count(n_threads, arg = arg, call = call)
  as.integer(min(n_threads, available))  # min() first: 1e10 is no integer
}
