# Peak memory of a logistic fit against the least-squares fit with the same
# map, data and folds (issue 19: "memory as the least-squares fit").
#
# bench/logistic.R's "peak MB" is R's heap high-water mark, garbage that the
# collector has not yet reclaimed included, and blind to C++ buffers (the
# gathered rows, the Gram matrices). Here each fit runs alone in a fresh R
# process: the data, design and map are built first, R collects its garbage,
# the kernel's peak-RSS mark is reset (`5` into /proc/self/clear_refs), and
# after the fit the process's peak resident memory (VmHWM) less its resident
# memory just before the fit is the fit's peak, whatever allocated it.
# Both include garbage that R has not yet collected (R's heap grows until
# its collector runs): what a user's machine sees. glibc runs with a fixed
# mmap threshold of 64 KB and no trim threshold (MALLOC_MMAP_THRESHOLD_,
# MALLOC_TRIM_THRESHOLD_): otherwise memory freed before the fit (loading
# the data) stays resident and is reused unseen (least squares on 5000
# CoverType rows showed 1.8 MB).
#
# Run from the repository root (Linux only):
#   Rscript bench/logistic-memory.R
#   KITCHEN_BENCH_SETS, KITCHEN_BENCH_D, KITCHEN_BENCH_COVTYPE_D,
#   KITCHEN_BENCH_COVTYPE_TRAIN as for bench/logistic.R; KITCHEN_BENCH_REPEATS
#   the processes per fit (default 3; the median is reported);
#   KITCHEN_BENCH_OUTPUT=name writes bench/results/name.md instead of
#   logistic-memory.md.

source(file.path("bench", "logistic.R"))  # class_sets(), model_design(); its main part does not run
output <- Sys.getenv("KITCHEN_BENCH_OUTPUT", "logistic-memory")

status_kb <- function(field) {
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", line))
}

# One fit in this process: MB of peak RSS above the RSS before the fit.
child <- function(set_name, loss) {
  set <- class_sets()[[set_name]]
  design <- model_design(set)
  colnames(design$train) <- make.unique(colnames(design$train))
  y_train <- set$frame[set$train, set$response]
  map <- rff(design$train, if (set$name == "CoverType") covtype_d else small_d, seed = 1)
  folds <- local({ set.seed(11); sample(rep_len(1:5, length(set$train))) })
  rm(set)
  invisible(gc(full = TRUE))
  cat("5", file = "/proc/self/clear_refs")
  before <- status_kb("VmRSS")
  started <- proc.time()[["elapsed"]]
  fit <- krr_fit(design$train, y_train, map, loss = loss, folds = folds, n_threads = 2,
                 verbose = FALSE)
  seconds <- proc.time()[["elapsed"]] - started
  cat(sprintf("RESULT %s %.1f %.3f %g\n", loss, (status_kb("VmHWM") - before) / 1024, seconds,
              fit$lambda))
}

args <- commandArgs(trailingOnly = TRUE)
if (length(args) == 3 && args[1] == "child") {
  child(args[2], args[3])
} else if (sys.nframe() == 0L) {
  one <- function(set_name, loss) {
    out <- system2(file.path(R.home("bin"), "Rscript"),
                   c("bench/logistic-memory.R", "child", set_name, loss), stdout = TRUE,
                   env = c("MALLOC_MMAP_THRESHOLD_=65536", "MALLOC_TRIM_THRESHOLD_=0"))
    fields <- strsplit(grep("^RESULT", out, value = TRUE), " ")[[1]]
    as.numeric(fields[3:5])
  }
  load_before <- readLines("/proc/loadavg")
  rows <- list()
  for (set_name in chosen_sets) {
    runs <- lapply(seq_len(repeats), function(r) {  # interleaved, as in bench/logistic.R
      list(squared = one(set_name, "squared"), logistic = one(set_name, "logistic"))
    })
    med <- function(loss, i) stats::median(vapply(runs, function(r) r[[loss]][i], 0))
    rows[[set_name]] <- sprintf("| %s | %s | %.1f | %.1f | %.2f | %.3f | %.3f |", set_name,
                                if (set_name == "CoverType") covtype_d else small_d,
                                med("squared", 1), med("logistic", 1),
                                med("logistic", 1) / med("squared", 1), med("squared", 2),
                                med("logistic", 2))
    message(rows[[set_name]])
  }
  write_result(c("# Peak memory of logistic and least-squares fits", "",
                 sprintf("Command: `KITCHEN_BENCH_D=%d KITCHEN_BENCH_COVTYPE_D=%d KITCHEN_BENCH_COVTYPE_TRAIN=%d KITCHEN_BENCH_REPEATS=%d KITCHEN_BENCH_SETS=%s Rscript bench/logistic-memory.R`",
                         small_d, covtype_d, covtype_train, repeats, paste(chosen_sets, collapse = ",")), "",
                 machine_description(),
                 sprintf("load average before / after: %s / %s", load_before, readLines("/proc/loadavg")), "",
                 "Each fit alone in a fresh R process (same map, folds and data as bench/logistic.R, 2 threads);",
                 "peak MB: the process's peak resident memory during the fit (VmHWM, reset just before it)",
                 "less its resident memory before the fit: R's heap (garbage not yet collected included) and",
                 "C++ buffers alike, glibc's mmap threshold fixed at 64 KB and no trim threshold. Medians of",
                 "the processes; seconds are the same processes' fit times (under those settings).", "",
                 "| data | D | least squares peak MB | logistic peak MB | logistic / LS | LS s | logistic s |",
                 "|---|---|---|---|---|---|---|", unlist(rows)), paste0(output, ".md"))
}
