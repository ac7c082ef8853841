# Memory for the dense fit's square matrices, checked before any pass over
# the data. check_gram_size() (R/krr.R) caps one Z'Z at 2^31 - 1 entries,
# but a fit holds several: with lambda by CV each fold keeps its own Z'Z
# beside the whole one and the reduction works on copies. An at-scale tour
# saw 7.2 of them at D = 12,000 (8.3 GB), and at D = 20,000 the fit stopped
# after a minute with "std::bad_alloc", naming no argument.

# The number of D x D (dual path: n x n) matrices a least-squares fit holds
# at its peak, a lower bound measured with /usr/bin/time at D = 4000 (given
# lambda or GCV 3.1; 5-fold CV 7.5; CV over four bandwidths, whose two
# finalists' statistics are kept together, 12.5). Without CV every
# bandwidth candidate's Z'Z is kept (R/krr_bandwidth_search.R).
square_matrices_held <- function(n_folds, n_candidates) {
  if (is.null(n_folds)) return(n_candidates + 2)
  if (n_candidates > 1) 2 * (n_folds + 1) else n_folds + 2
}

# Refuses a fit whose square matrices (`size` x `size`, `count` of them)
# would not fit in the memory the system has left, when it says
# (available_memory()), naming the argument that sets their size (`arg`,
# which gives `size` `noun`: features, or rows on the dual path).
check_fit_memory <- function(size, count, arg, noun, call = rlang::caller_env(),
                             available = available_memory()) {
  needed <- count * 8 * as.double(size)^2
  if (is.na(available) || needed <= available) return(invisible())
  shown <- format_count(size)
  abort_arg(c("{.arg {arg}} gives {shown} {noun}: the fit would hold {count} matrices of {shown} x {shown} ({format(needed / 1e9, digits = 3)} GB), more than the {format(available / 1e9, digits = 3)} GB of memory this system has available.",
              i = memory_advice),
            call = call)
}

memory_advice <- "Use fewer features, a given {.arg lambda} or {.code lambda = \"gcv\"} (3 matrices rather than {.arg n_folds} + 2), or {.fn rbin}, whose fits never form Z'Z."

# Bytes this process can still allocate without swapping, where the system
# says: Linux's MemAvailable, capped by a cgroup (v2) limit less what the
# group uses; NA elsewhere (no check).
available_memory <- function() {
  meminfo <- read_first_lines("/proc/meminfo", 10L)
  line <- grep("^MemAvailable:", meminfo, value = TRUE)
  if (length(line) != 1L) return(NA_real_)
  available <- 1024 * as.double(gsub("[^0-9]", "", line))
  limit <- suppressWarnings(as.double(read_first_lines("/sys/fs/cgroup/memory.max", 1L)))
  used <- suppressWarnings(as.double(read_first_lines("/sys/fs/cgroup/memory.current", 1L)))
  if (length(limit) == 1L && length(used) == 1L && is.finite(limit) && is.finite(used)) {
    available <- min(available, limit - used)
  }
  if (is.finite(available)) available else NA_real_
}

read_first_lines <- function(path, n) {
  if (!file.exists(path)) return(character())
  tryCatch(readLines(path, n = n, warn = FALSE), error = function(e) character())
}

# Allocation failures inside a fit (C++'s std::bad_alloc, R's "cannot
# allocate vector") with what sets the size of its matrices; other errors
# pass unchanged. `arg`, `size`, `noun`: as for check_fit_memory().
with_memory_hint <- function(code, size, arg, noun, call = rlang::caller_env()) {
  tryCatch(code, error = function(e) {
    if (!grepl("std::bad_alloc|cannot allocate vector of size", conditionMessage(e))) stop(e)
    abort_arg(c("The fit ran out of memory with {.arg {arg}} giving {format_count(size)} {noun}.",
                i = memory_advice), parent = e, call = call)
  })
}
