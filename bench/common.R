# Shared helpers for the benchmarks: timing and a description of the machine.

# Median over `repeats` timings of the seconds per call of f(). Each timing
# runs f() often enough to last at least `min_seconds`, since R's clock only
# resolves milliseconds.
median_time <- function(f, repeats = 9, min_seconds = 0.05) {
  elapsed <- function(inner) {
    start <- proc.time()[["elapsed"]]
    for (k in seq_len(inner)) f()
    proc.time()[["elapsed"]] - start
  }
  first <- elapsed(1)  # also warms up: loads code, faults in pages
  inner <- max(1, ceiling(min_seconds / max(first, 1e-4)))
  while ((t <- elapsed(inner)) < min_seconds) inner <- inner * 2
  times <- c(t / inner, vapply(seq_len(repeats - 1), function(i) elapsed(inner) / inner, 0))
  stats::median(times)
}

# Side-by-side runs of two builds: `run(lib, case)` (a numeric vector) for
# each case, `repeats` times per build, builds alternating so that both see
# the same load; `row(case, a, b)` turns the two builds' medians (one per
# element of run()'s vector) and all of build B's results into a table row,
# printed as it comes. Returns the rows.
alternating_rows <- function(libs, cases, run, repeats, row) {
  vapply(cases, function(case) {
    a <- b <- NULL
    for (r in seq_len(repeats)) {
      a <- rbind(a, run(libs[1], case))
      b <- rbind(b, run(libs[2], case))
    }
    line <- row(case, apply(a, 2, stats::median), apply(b, 2, stats::median), b)
    cat(line, "\n")
    line
  }, "")
}

machine_description <- function() {
  cpu <- tryCatch({
    info <- readLines("/proc/cpuinfo")
    sub(".*:\\s*", "", grep("^model name", info, value = TRUE)[1])
  }, error = function(e) "unknown CPU")
  blas <- tryCatch(sessionInfo()$BLAS, error = function(e) "unknown")
  c(sprintf("date: %s", format(Sys.time(), "%Y-%m-%d %H:%M %Z")),
    sprintf("machine: %s, %d cores, %s", cpu, parallel::detectCores(), R.version$platform),
    sprintf("R: %s; BLAS: %s", R.version.string, blas),
    sprintf("kitchen %s; SIMD: CPU %s, used %s",
            utils::packageVersion("kitchen"), kitchen::kitchen_simd()$cpu,
            kitchen::kitchen_simd()$used))
}

write_result <- function(lines, name) {
  dir.create(file.path("bench", "results"), showWarnings = FALSE, recursive = TRUE)
  path <- file.path("bench", "results", name)
  writeLines(lines, path)
  cat(lines, sep = "\n")
  cat("\nwritten to", path, "\n")
}

# Forest CoverType from ../shared/data with the split of Rahimi & Recht's
# sizes (522910 training, 58102 test rows), fixed by seed 2007.
# `sample_rows` > 0 keeps that many of the training and of the test rows
# (the first ones), to check a script end to end.
covtype_split <- function(sample_rows = 0) {
  env <- new.env()
  load(shared_data("covtype.RData"), envir = env)
  split <- split_rows(nrow(env$covtype.libsvm$X), 522910)
  if (sample_rows > 0) {
    split$train <- split$train[seq_len(sample_rows)]
    split$test <- split$test[seq_len(min(length(split$test), sample_rows))]
  }
  list(x = env$covtype.libsvm$X, y = factor(env$covtype.libsvm$y),
       train = split$train, test = split$test)
}

# --- Data sets of the papers (../shared/data, see its README) ---------------

shared_data <- function(file) file.path("..", "shared", "data", file)

# Forest CoverType with its 7 classes, in Blackard and Dean's split: the
# first 11,340 rows of the UCI file (1,620 of each class) to train, the
# next 3,780 (540 of each) to test. ../shared holds only the binary set
# (class 2 against the rest) and no current package ships the 7-class one;
# DAAGxtras did (covtrain, covtest) and its last version, 0.8-4, is in the
# CRAN archive. It is fetched once from the configured CRAN repository's
# archive into R's user cache directory. Columns that are constant on the
# training rows (two soil types) are dropped.
load_covtype7 <- function() {
  cache <- file.path(tools::R_user_dir("kitchen", "cache"), "DAAGxtras")
  data_dir <- file.path(cache, "DAAGxtras", "data")
  if (!file.exists(file.path(data_dir, "covtrain.rda"))) {
    dir.create(cache, recursive = TRUE, showWarnings = FALSE)
    archive <- file.path(cache, "DAAGxtras_0.8-4.tar.gz")
    utils::download.file(paste0(getOption("repos")[["CRAN"]],
                                "/src/contrib/Archive/DAAGxtras/DAAGxtras_0.8-4.tar.gz"),
                         archive, quiet = TRUE, mode = "wb")
    utils::untar(archive, files = paste0("DAAGxtras/data/", c("covtrain", "covtest"), ".rda"),
                 exdir = cache)
  }
  read <- function(name) {
    env <- new.env()
    load(file.path(data_dir, paste0(name, ".rda")), envir = env)
    env[[name]]
  }
  train <- read("covtrain")
  test <- read("covtest")
  frame <- rbind(train, test)
  frame$V55 <- factor(frame$V55)
  varying <- vapply(train[1:54], function(col) length(unique(col)) > 1, TRUE)
  frame <- frame[c(names(train)[1:54][varying], "V55")]
  list(frame = frame, train = seq_len(nrow(train)), test = nrow(train) + seq_len(nrow(test)))
}

# A fixed random split into n_train training rows and the rest as test rows
# (or n_test of them), drawn with `seed` so that every script and every
# method sees the same rows.
split_rows <- function(n, n_train, n_test = n - n_train, seed = 2007) {
  set.seed(seed)
  rows <- sample(n)
  list(train = rows[seq_len(n_train)], test = rows[n_train + seq_len(n_test)])
}

# A regression data set as list(x = numeric matrix, y = numeric vector).
regression_data <- function(frame, response) {
  list(x = as.matrix(frame[names(frame) != response]), y = frame[[response]])
}

# CPU activity (Delve cpu_act), as shipped with kitchen; response `usr`.
load_cpu <- function() {
  env <- new.env()
  utils::data(cpu_act, package = "kitchen", envir = env)
  regression_data(env$cpu_act, "usr")
}

# Census house_16H (16 features): "Census" in Rahimi & Recht, who used a
# 119-feature version of the same census data.
load_census <- function() {
  regression_data(utils::read.delim(gzfile(shared_data("house_16H.tsv.gz"))), "target")
}

# Parkinsons telemonitoring, response total_UPDRS; the subject id and the
# other UPDRS score (nearly a copy of the response) are dropped.
load_parkinsons <- function() {
  frame <- utils::read.csv(gzfile(shared_data("parkinsons_updrs.csv.gz")), check.names = FALSE)
  frame <- frame[!names(frame) %in% c("subject#", "motor_UPDRS")]
  regression_data(frame, "total_UPDRS")
}

# Wine quality, "red" or "white": no header, the last column is the quality.
load_wine <- function(colour = "white") {
  frame <- utils::read.csv(gzfile(shared_data(sprintf("winequality_%s.csv.gz", colour))),
                           header = FALSE)
  names(frame)[ncol(frame)] <- "quality"
  regression_data(frame, "quality")
}

# --- Error measures -----------------------------------------------------------

# Rahimi & Recht's regression error: ||yhat - y|| / ||y||.
relative_error <- function(yhat, y) sqrt(sum((yhat - y)^2)) / sqrt(sum(y^2))

# Le, Sarlos & Smola's Table 3 measure, in the response's units.
rmse <- function(yhat, y) sqrt(mean((yhat - y)^2))

# Share of misclassified test points.
misclassified <- function(yhat, y) mean(as.character(yhat) != as.character(y))

# --- Processes and output -----------------------------------------------------

# Peak resident memory (VmHWM) of the calling process in MB, from /proc.
peak_memory_mb <- function() {
  line <- grep("^VmHWM:", readLines("/proc/self/status"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", line)) / 1024
}

# Elapsed seconds of expr (evaluated in the caller).
seconds <- function(expr) system.time(expr)[["elapsed"]]

# A markdown table from a data frame (columns formatted beforehand).
markdown_table <- function(frame) {
  c(paste("|", paste(names(frame), collapse = " | "), "|"),
    paste("|", paste(rep("---", ncol(frame)), collapse = " | "), "|"),
    apply(frame, 1, function(row) paste("|", paste(row, collapse = " | "), "|")))
}

# Three significant digits for a table cell; NA as an empty cell.
three_digits <- function(v) ifelse(is.na(v), "", formatC(v, digits = 3, format = "fg"))

# Compiles a standalone harness from bench/cpp the way R compiles packages
# (R's C++17 compiler and flags; the SIMD code is chosen at run time) and
# returns the binary's path. `libs` go after the source (link flags).
compile_cpp <- function(source, libs = character()) {
  r_config <- function(name) {
    system2(file.path(R.home("bin"), "R"), c("CMD", "config", name), stdout = TRUE)
  }
  binary <- file.path(tempdir(), tools::file_path_sans_ext(basename(source)))
  status <- system(paste(r_config("CXX17"), r_config("CXX17FLAGS"), "-pthread -I inst/include",
                         source, "-o", binary, paste(libs, collapse = " ")))
  if (status != 0) stop("could not compile ", source)
  binary
}

# The standard note on the noise of timings on this shared machine.
timing_note <- function() {
  paste("Timings are wall-clock seconds on a 2-core virtual machine shared with other",
        "engineers' builds and tests, so they are noisy (single figures can be off by 2x).")
}

# "nice -n N " when this process runs niced, for the command line a report
# quotes (so that it says how it really ran).
nice_prefix <- function() {
  niceness <- tools::psnice()
  if (!is.na(niceness) && niceness > 0) sprintf("nice -n %d ", niceness) else ""
}

# Opens a PNG in bench/results/ for base graphics; close it with dev.off().
result_png <- function(name, width = 900, height = 600) {
  dir.create(file.path("bench", "results"), showWarnings = FALSE, recursive = TRUE)
  grDevices::png(file.path("bench", "results", name), width = width, height = height, res = 110)
}
