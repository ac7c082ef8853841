# Bandwidth search at moderate n (issue 22): krr_fit(x, y, rff(x, 4096),
# sigma = "auto") with the default 5-fold CV over lambda, against kernlab's
# ksvm(x, y) with its defaults, on the UCI letter recognition data
# (mlbench::LetterRecognition: the first 16,000 rows to train, the other
# 4,000 to test). Each fit runs in its own process; the methods alternate
# within each repeat and the medians are reported. With a second library
# (KITCHEN_BASE_LIB, e.g. a build of main), that build's kitchen runs side
# by side as a third method, and the chosen (sigma, lambda) of both builds
# are compared. Each kitchen run also reports where its time went (passes
# over the rows, each fold's reduction and path, the final reduction).
# Run from the repository root:
#   KITCHEN_BASE_LIB=/path/to/lib nice -n 10 Rscript bench/bandwidth-search.R [repeats]
# or in streams sharing one file of runs (the base build's full search is
# the slow one), then the report:
#   KITCHEN_BENCH_RUNS=runs.rds KITCHEN_BENCH_METHODS=base ... Rscript bench/bandwidth-search.R 1 &
#   KITCHEN_BENCH_RUNS=runs.rds KITCHEN_BENCH_METHODS=ksvm,this ... Rscript bench/bandwidth-search.R 2
#   KITCHEN_BENCH_RUNS=runs.rds ... Rscript bench/bandwidth-search.R --report
# Results go to bench/results/bandwidth-search.md.

# KITCHEN_BENCH_D: the number of rff features (4096, the issue's; smaller
# for a run that completes on a loaded machine).
n_features <- as.integer(Sys.getenv("KITCHEN_BENCH_D", "4096"))

method_child <- function(method, lib) {
  data("LetterRecognition", package = "mlbench", envir = environment())
  x <- as.matrix(LetterRecognition[, -1])
  y <- LetterRecognition$lettr
  train <- 1:16000
  test <- 16001:20000
  if (method == "ksvm") {
    suppressPackageStartupMessages(library(kernlab))
    set.seed(1)  # sigest() samples rows
    cpu <- proc.time()
    fit <- ksvm(x[train, ], y[train])
    cpu <- proc.time() - cpu
    accuracy <- mean(predict(fit, x[test, ]) == y[test])
    return(c(seconds = cpu[["elapsed"]], cpu = cpu[["user.self"]] + cpu[["sys.self"]],
             accuracy = accuracy, sigma = kpar(kernelf(fit))$sigma, lambda = NA))
  }
  library(kitchen, lib.loc = lib)
  ns <- asNamespace("kitchen")
  # Seconds spent in each internal step: wrapped in the namespace.
  timers <- new.env()
  # A step's timer sums the functions named for it that the build has (the
  # folds' quadratic forms moved to fold_quadratic_forms_cpp(); older builds
  # time every gram_quadratic_forms_cpp() call there).
  wrap <- function(step, name) {
    if (!exists(name, envir = ns, inherits = FALSE)) return()
    f <- get(name, envir = ns)
    if (is.null(timers[[step]])) timers[[step]] <- c(0, 0, 0)
    unlockBinding(name, ns)
    # elapsed seconds, calls, and CPU seconds of the process (all threads:
    # less sensitive than elapsed time to other jobs on a loaded machine)
    assign(name, function(...) {
      began <- proc.time()
      on.exit({
        spent <- proc.time() - began
        timers[[step]] <- timers[[step]] +
          c(spent[["elapsed"]], 1, spent[["user.self"]] + spent[["sys.self"]])
      })
      f(...)
    }, envir = ns)
  }
  fold_quadratic <- if (exists("fold_quadratic_forms_cpp", envir = ns, inherits = FALSE)) {
    "fold_quadratic_forms_cpp"
  } else {
    "gram_quadratic_forms_cpp"
  }
  steps <- c(pass = "krr_statistics", fold_path = "ridge_path_fold_coefficients_cpp",
             fold_quadratic = fold_quadratic, final_reduction = "ridge_gcv_path_cpp",
             calibration = "class_calibration", fitted = "predict_rows")
  for (s in names(steps)) wrap(s, steps[[s]])
  set.seed(1)
  cpu <- proc.time()
  fit <- krr_fit(x[train, ], y[train], rff(x[train, ], n_features, seed = 1), sigma = "auto",
                 verbose = FALSE)
  cpu <- proc.time() - cpu
  accuracy <- mean(predict(fit, x[test, ], type = "class") == y[test])
  parts <- vapply(names(steps), function(s) if (is.null(timers[[s]])) NA else timers[[s]][1], 0)
  calls <- vapply(names(steps), function(s) if (is.null(timers[[s]])) NA else timers[[s]][2], 0)
  cpus <- vapply(names(steps), function(s) if (is.null(timers[[s]])) NA else timers[[s]][3], 0)
  cat("sigma_path:", paste(capture.output(print(fit$sigma_path)), collapse = "\n"), "\n",
      file = stderr())
  c(seconds = cpu[["elapsed"]], cpu = cpu[["user.self"]] + cpu[["sys.self"]] +
      cpu[["user.child"]] + cpu[["sys.child"]],
    accuracy = accuracy, sigma = fit$map$kernel$sigma, lambda = fit$lambda,
    threads = kitchen_threads(), stats::setNames(parts, paste0("t_", names(steps))),
    stats::setNames(calls, paste0("n_", names(steps))),
    stats::setNames(cpus, paste0("c_", names(steps))))
}

args <- commandArgs(TRUE)
if (length(args) && args[1] == "--child") {
  out <- method_child(args[2], args[3])
  cat(sprintf("result %s %.17g\n", names(out), out), sep = "")
  quit(save = "no")
}

source(file.path("bench", "common.R"))
`%||%` <- function(a, b) if (is.null(a)) b else a
# KITCHEN_BENCH_RUNS: a file each run's results are appended to (so that
# several drivers, e.g. the slow base build in a stream of its own, can
# share one report); KITCHEN_BENCH_METHODS: which of ksvm, this, base to run;
# "--report" only writes the report from that file.
repeats <- if (length(args) && args[1] != "--report") as.integer(args[1]) else 3L
libs <- c(this = .libPaths()[1])
base <- Sys.getenv("KITCHEN_BASE_LIB")
if (nzchar(base)) libs <- c(libs, base = base)
this_lib <- Sys.getenv("KITCHEN_THIS_LIB")
if (nzchar(this_lib)) libs[["this"]] <- this_lib
# The report names this build's version (bench/common.R machine_description()).
.libPaths(c(libs[["this"]], .libPaths()))
methods <- c(list(ksvm = c("ksvm", "")),
             lapply(libs, function(l) c("kitchen", l)))
names(methods)[-1] <- paste0("kitchen (", names(libs), ")")
chosen <- strsplit(Sys.getenv("KITCHEN_BENCH_METHODS", "ksvm,this,base"), ",")[[1]]
run_methods <- names(methods)[sub("^kitchen \\((.*)\\)$", "\\1", names(methods)) %in% chosen]
runs_file <- Sys.getenv("KITCHEN_BENCH_RUNS", tempfile(fileext = ".rds"))
load_average <- function() readLines("/proc/loadavg")
rscript <- file.path(R.home("bin"), "Rscript")
if (!(length(args) && args[1] == "--report")) {
  for (r in seq_len(repeats)) {
    for (m in run_methods) {
      before <- load_average()
      out <- system2(rscript, c("bench/bandwidth-search.R", "--child", methods[[m]]),
                     stdout = TRUE, stderr = "")
      vals <- grep("^result ", out, value = TRUE)
      v <- as.numeric(sub("^result \\S+ ", "", vals))
      names(v) <- sub("^result (\\S+) .*", "\\1", vals)
      run <- c(list(method = m, finished = format(Sys.time()), load_before = before,
                    load_after = load_average()), as.list(v))
      runs <- if (file.exists(runs_file)) readRDS(runs_file) else list()
      saveRDS(c(runs, list(run)), runs_file)
      cat(sprintf("%s: %.1f s elapsed, %.1f s CPU, accuracy %.4f; load %s -> %s\n", m,
                  v[["seconds"]], v[["cpu"]], v[["accuracy"]], before, load_average()))
    }
  }
}
runs <- readRDS(runs_file)
loads <- vapply(runs, function(r) sprintf("%s: %s -> %s", r$method, r$load_before, r$load_after), "")
methods <- methods[names(methods) %in% vapply(runs, `[[`, "", "method")]
fields <- setdiff(unique(unlist(lapply(runs, names))), c("load_before", "load_after"))
table <- do.call(rbind, lapply(runs, function(x) {
  as.data.frame(lapply(stats::setNames(fields, fields), function(f) x[[f]] %||% NA))
}))
cols <- function(m, f) table[table$method == m, f]
row <- function(m) {
  sprintf("| %s | %d | %.1f | %.1f | %.4f | %.4g | %s |", m, sum(table$method == m),
          stats::median(cols(m, "seconds")), stats::median(cols(m, "cpu")),
          stats::median(cols(m, "accuracy")), cols(m, "sigma")[1],
          if (m == "ksvm") "C = 1 (default)" else sprintf("%.4g", cols(m, "lambda")[1]))
}
parts <- grep("^t_", names(table), value = TRUE)
part_row <- function(m) {
  sub <- table[table$method == m, ]
  med <- function(p) if (is.null(sub[[p]])) NA_real_ else stats::median(sub[[p]])
  sprintf("| %s | %s |", m, paste(sprintf("%.1f / %.1f (%d)", vapply(parts, med, 0),
                                           vapply(sub("^t_", "c_", parts), med, 0),
                                           as.integer(vapply(sub("^t_", "n_", parts), med, 0))),
                                   collapse = " | "))
}
kitchen_methods <- grep("^kitchen", names(methods), value = TRUE)
lines <- c(
  "# Bandwidth search at moderate n (issue 22)", "",
  machine_description(),
  "load average (/proc/loadavg) before and after each run:", "", paste("-", loads),
  "", "UCI letter recognition (mlbench::LetterRecognition): 16,000 training rows, 16 columns, 26 classes; test accuracy on the other 4,000 rows.",
  paste0(sprintf("kitchen: `krr_fit(x, y, rff(x, %d, seed = 1), sigma = \"auto\")`", n_features), " (5-fold CV over lambda, 5 bandwidth candidates); kernlab: `ksvm(x, y)` (defaults: C-svc, rbfdot with sigest(), C = 1)."),
  "Each fit in its own process; seconds are medians over runs (elapsed, and CPU time user + system of all threads).",
  "", "| method | runs | seconds (median) | CPU seconds (median) | test accuracy | sigma | lambda |",
  "| --- | --- | --- | --- | --- | --- | --- |",
  vapply(names(methods), row, ""),
  "", "Where kitchen's time goes (median elapsed / CPU seconds, and number of calls): passes over the rows (`krr_statistics`), CV folds' reductions and lambda paths (`ridge_path_fold_coefficients_cpp`), their quadratic forms (`fold_quadratic_forms_cpp`; builds without it: every `gram_quadratic_forms_cpp` call), the final reduction (`ridge_gcv_path_cpp`), class calibration, fitted values.",
  "", paste("| build |", paste(sub("^t_", "", parts), collapse = " | "), "|"),
  paste0("| --- |", strrep(" --- |", length(parts))),
  vapply(kitchen_methods, part_row, ""),
  "", "All runs:", "", "```", utils::capture.output(print(table[, c("method", "finished", "seconds", "cpu", "accuracy", "sigma", "lambda")], row.names = FALSE)), "```")
write_result(lines, Sys.getenv("KITCHEN_BENCH_OUT", "bandwidth-search.md"))
