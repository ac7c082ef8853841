# Memory for the dense fit's square matrices, checked before its passes
# over the data. check_gram_size() (R/krr.R) caps one Z'Z at 2^31 - 1
# entries, but a fit holds several: with lambda by CV each fold keeps its
# own Z'Z beside the whole one and the reduction works on copies. An
# at-scale tour saw 7.2 of them at D = 12,000 (8.3 GB), and at D = 20,000
# the fit stopped after a minute with "std::bad_alloc", naming no argument.

# The number of D x D (dual path: n x n) matrices a least-squares fit holds
# at its peak, a lower bound measured by bench/fit-memory.R at D = 4000
# (given lambda or GCV 3.1; GCV over four bandwidths 6.2; 5-fold CV 7.6; CV
# over four bandwidths, whose `bandwidth_finalists` (two) finalists'
# statistics are kept together, 12.7). `n_folds`: the folds whose
# statistics the pass gathers (CV's, or a
# classifier's calibration folds), NULL for none; without CV every
# bandwidth candidate's statistics are kept (R/krr_bandwidth_search.R).
square_matrices_held <- function(n_folds, n_candidates) {
  if (is.null(n_folds)) return(n_candidates + 2)
  if (n_candidates > 1) bandwidth_finalists * (n_folds + 1) else n_folds + 2
}

# What a dense least-squares fit will hold: `count` square matrices of
# `size` (the features, or the rows on the dual path, which also keeps each
# candidate's n x D features and their centred copy), and the argument
# that sets the number of features (`arg`: n_features, n_centers for a
# Nystroem map built by name, or features for a given map).
fit_memory_need <- function(map, features, n_rows, dual, n_folds, n_candidates,
                            regression) {
  count <- square_matrices_held(n_folds, n_candidates)
  size <- if (dual) n_rows else map$n_features
  kept <- if (is.null(n_folds)) n_candidates else min(n_candidates, bandwidth_finalists)
  list(count = count, size = size, dual = dual, n_features = map$n_features, n_rows = n_rows,
       entries = count * as.double(size)^2 +
         if (dual) 2 * kept * as.double(n_rows) * map$n_features else 0,
       arg = if (!is.character(features)) "features" else
         if (identical(features, "nystrom")) "n_centers" else "n_features",
       gcv_helps = regression && !is.null(n_folds))
}

# Refuses a fit whose needs (fit_memory_need()) pass the memory the system
# has left, when it says (available_memory()); options(kitchen.memory_check
# = FALSE) skips the check.
check_fit_memory <- function(need, call = rlang::caller_env(), available = available_memory()) {
  if (isFALSE(getOption("kitchen.memory_check", TRUE))) return(invisible())
  needed <- 8 * need$entries
  if (is.na(available) || needed <= available) return(invisible())
  shown <- format_count(need$size)
  held <- sprintf("%d matrices of %s x %s%s", as.integer(need$count), shown, shown,
                  if (need$dual) sprintf(" and the %s rows' features", format_count(need$n_rows)) else "")
  abort_arg(c("{.arg {need$arg}} is {format_count(need$n_features)}: the fit would hold {held} ({format(needed / 1e9, digits = 3)} GB), more than the {format(available / 1e9, digits = 3)} GB of memory this system has available.",
              i = memory_advice(need),
              i = "{.code options(kitchen.memory_check = FALSE)} skips this check."),
            call = call)
}

memory_advice <- function(need) {
  paste0("Use fewer features or {.fn rbin}, whose fits never form Z'Z",
         if (need$gcv_helps) paste0("; {.code lambda = \"gcv\"} or a given {.arg lambda} ",
                                    "holds 3 matrices rather than {.arg n_folds} + 2") else "",
         ".")
}

# Bytes this process can still allocate without swapping, where the system
# says: Linux's MemAvailable, capped by a cgroup (v2) limit less what the
# group uses beyond its reclaimable page cache (inactive_file, as container
# tools count a working set); NA elsewhere (no check).
available_memory <- function() {
  meminfo <- read_first_lines("/proc/meminfo", 10L)
  line <- grep("^MemAvailable:", meminfo, value = TRUE)
  if (length(line) != 1L) return(NA_real_)
  available <- 1024 * as.double(gsub("[^0-9]", "", line))
  limit <- suppressWarnings(as.double(read_first_lines("/sys/fs/cgroup/memory.max", 1L)))
  used <- suppressWarnings(as.double(read_first_lines("/sys/fs/cgroup/memory.current", 1L)))
  if (length(limit) == 1L && length(used) == 1L && is.finite(limit) && is.finite(used)) {
    stat <- read_first_lines("/sys/fs/cgroup/memory.stat", 100L)
    cache <- suppressWarnings(as.double(sub("^inactive_file ", "",
                                            grep("^inactive_file ", stat, value = TRUE))))
    if (length(cache) == 1L && is.finite(cache)) used <- used - cache
    available <- min(available, limit - used)
  }
  if (is.finite(available)) available else NA_real_
}

read_first_lines <- function(path, n) {
  if (!file.exists(path)) return(character())
  tryCatch(readLines(path, n = n, warn = FALSE), error = function(e) character())
}

# Allocation failures inside a fit (C++'s std::bad_alloc, R's "cannot
# allocate vector") are raised again with what sets the size of its
# matrices (`need`: fit_memory_need()); other errors go on unchanged, from
# where they were raised.
with_memory_hint <- function(code, need, call = rlang::caller_env()) {
  withCallingHandlers(code, error = function(e) {
    if (!grepl("std::bad_alloc|cannot allocate vector of size", conditionMessage(e))) return()
    abort_arg(c("The fit ran out of memory with {.arg {need$arg}} = {format_count(need$n_features)}.",
                i = memory_advice(need)), parent = e, call = call)
  })
}
