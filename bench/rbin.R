# Benchmark of rbin() on Forest CoverType (Rahimi & Recht 2007, Table 1:
# binning + ridge, P = 50, 2.2% test error in 25 min). Run from the
# repository root: Rscript bench/rbin.R. Results go to bench/results/rbin.md.
#
# 1. Speed: building the map on the 522910 training rows and computing the
#    features of all 581012 rows, 2 threads (median of 5 runs), and the
#    memory of the map.
# 2. The whole call krr_fit(x, y, rbin(x, 50), lambda = "cv", sigma = "auto")
#    on the training rows (map, bandwidth and lambda choice, final fit),
#    its test error on the 58102 held-out rows (class 2 against the rest).
# 3. The same fit on the training rows in 10 chunk files (RDS), on
#    plan(multisession, workers = 2), at the bandwidth chosen in 2: map from
#    the chunks, lambda by CV with chunks as folds; time and peak memory of
#    the main process (a fresh R process: bench/rbin-chunked.R).
# 4. predict() of one row with the fit of 2 (median of 40 batches of 50 calls).
# 5. The whole call of 2 with rbin(x, 50, scale = "minmax"): the scaling,
#    not the bandwidth or lambda choice, is what holds the error of 2 at 4%
#    (RBIN_BENCH_MINMAX=0 skips it).

source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(kitchen))
# RBIN_BENCH_ROWS=20000 checks the script end to end on a sample of the
# training rows (results to rbin-sample.md).
sample_rows <- as.integer(Sys.getenv("RBIN_BENCH_ROWS", "0"))
covtype <- covtype_split(sample_rows)
x <- covtype$x
y <- covtype$y
train <- covtype$train
test <- covtype$test
x_train <- x[train, ]
n_grids <- 50
load_before <- utils::read.table("/proc/loadavg")[[1]]

# Progress on stderr, so a run cut short still tells what it measured.
note <- function(...) message(format(Sys.time(), "%H:%M:%S "), sprintf(...))
cpu <- function() { t <- proc.time(); t[["user.self"]] + t[["sys.self"]] }

timing <- function(f) {
  t <- vapply(1:5, function(i) system.time(f())[["elapsed"]], 0)
  stats::median(t)
}
loadavg <- function() utils::read.table("/proc/loadavg")[[1]]
# 2. The whole call, as a user writes it (5: with scale = "minmax").
whole_call_run <- function(scale) {
  load_start <- loadavg()
  began <- proc.time()[["elapsed"]]
  cpu_began <- cpu()
  fit <- krr_fit(x_train, y[train], rbin(x_train, n_grids, scale = scale, n_threads = 2),
                 lambda = "cv", sigma = "auto", n_threads = 2, verbose = FALSE)
  whole <- proc.time()[["elapsed"]] - began
  whole_cpu <- cpu() - cpu_began
  error <- mean(predict(fit, x[test, ], type = "class", n_threads = 2) != y[test])
  note("whole call (%s) %.0f s elapsed, %.0f s CPU, load %.1f to %.1f, test error %.2f%%, sigma %.3g, lambda %.3g",
       scale, whole, whole_cpu, load_start, loadavg(), 100 * error, fit$map$kernel$sigma, fit$lambda)
  print(fit$sigma_path)
  print(fit$path)
  list(fit = fit, whole = whole, whole_cpu = whole_cpu, error = error, load = c(load_start, loadavg()))
}
run <- whole_call_run("standard")
fit <- run$fit
whole <- run$whole
whole_cpu <- run$whole_cpu
error <- run$error
path <- fit$sigma_path
# No lambda close to fold 1's best: the path is fold 1's (binned_lambda_choice()).
fold1_only <- identical(min(fit$path$cv), min(path$score))
whole_call <- c(
  sprintf("`krr_fit(x, y, rbin(x, 50), lambda = \"cv\", sigma = \"auto\")` on the %d training rows: **%.0f s** elapsed (target: at most 180 s; %.0f s of CPU time on 2 threads; load average %.1f at its start, %.1f at its end), test error **%.2f%%** (target: at most 3.6%%).",
          length(train), whole, whole_cpu, run$load[1], run$load[2], 100 * error),
  "",
  sprintf("rbin()'s median-distance bandwidth (standard scaling): %.3g. Chosen: sigma = %.3g, lambda = %.3g (%s occupied bins); final CG: %d iterations, relative residual %.1e.",
          max(path$sigma[path$sigma == max(path$sigma)]), fit$map$kernel$sigma, fit$lambda,
          format(fit$map$n_features, big.mark = ","), fit$solver$iterations[1], fit$solver$residual[1]),
  "",
  "Bandwidths screened (held-out MSE of fold 1 on the +1/-1 codes, best lambda of each):", "",
  markdown_table(data.frame(sigma = three_digits(path$sigma), lambda = three_digits(path$lambda),
                            score = formatC(path$score, digits = 4, format = "f"))),
  "",
  if (fold1_only) "Lambda at the chosen bandwidth: no other lambda within two standard errors of fold 1's best, so fold 1's path (held-out MSE of fold 1):" else
    "5-fold CV over the lambdas within two standard errors of fold 1's best, at the chosen bandwidth:", "",
  markdown_table(data.frame(lambda = three_digits(fit$path$lambda),
                            cv = formatC(fit$path$cv, digits = 4, format = "f"))))

# 5. The same call with min-max scaling.
minmax_lines <- NULL
if (Sys.getenv("RBIN_BENCH_MINMAX", "1") != "0") {
  mm <- whole_call_run("minmax")
  minmax_lines <- c(
    sprintf("`krr_fit(x, y, rbin(x, 50, scale = \"minmax\"), lambda = \"cv\", sigma = \"auto\")`: **%.0f s** elapsed (%.0f s of CPU time; load average %.1f at its start, %.1f at its end), test error **%.2f%%**; chosen sigma = %.3g, lambda = %.3g (%s occupied bins).",
            mm$whole, mm$whole_cpu, mm$load[1], mm$load[2], 100 * mm$error, mm$fit$map$kernel$sigma,
            mm$fit$lambda, format(mm$fit$map$n_features, big.mark = ",")),
    "", "Bandwidths screened:", "",
    markdown_table(data.frame(sigma = three_digits(mm$fit$sigma_path$sigma),
                              lambda = three_digits(mm$fit$sigma_path$lambda),
                              score = formatC(mm$fit$sigma_path$score, digits = 4, format = "f"))))
  rm(mm)
  gc()
}

# 4. One row.
row <- x[test[1], , drop = FALSE]
invisible(predict(fit, row))
per_call <- function(f, n) {
  t0 <- proc.time()[["elapsed"]]
  for (i in seq_len(n)) f()
  (proc.time()[["elapsed"]] - t0) / n
}
# proc.time() ticks in milliseconds: medians of 40 batches of 50 calls.
one_row <- replicate(40, per_call(function() predict(fit, row), 50))
fit_row <- mean(one_row)
map_row <- per_call(function() predict(fit$map, row), 20)
cpu_began <- cpu()
for (i in 1:2000) predict(fit, row)
fit_row_cpu <- (cpu() - cpu_began) / 2000
note("one row: median %.0f us elapsed, %.0f us CPU", 1e6 * stats::median(one_row), 1e6 * fit_row_cpu)

# 3. Chunked.
chunk_dir <- file.path(tempdir(), "covtype-chunks")
dir.create(chunk_dir, showWarnings = FALSE)
pieces <- split(seq_along(train), rep(1:10, length.out = length(train)))
for (k in 1:10) {
  rows <- train[sort(pieces[[k]])]
  frame <- as.data.frame(as.matrix(x[rows, ]))
  frame$y <- y[rows]
  saveRDS(frame, file.path(chunk_dir, sprintf("chunk-%02d.rds", k)))
}
out_file <- file.path(tempdir(), "rbin-chunked.rds")
status <- system2(file.path(R.home("bin"), "Rscript"),
                  c(file.path("bench", "rbin-chunked.R"), chunk_dir, format(fit$map$kernel$sigma, digits = 17), out_file))
chunked_result <- readRDS(out_file)
note("chunked: %.0f s, peak %.0f MB", chunked_result$seconds, chunked_result$peak_mb)
chunked_fit <- chunked_result$fit
chunked_error <- mean(predict(chunked_fit, x[test, ], type = "class", n_threads = 2) != y[test])
chunked_lines <- c(
  sprintf("10 RDS chunk files of the training rows, `plan(multisession, workers = 2)`, sigma = %.3g (chosen in memory above; the map's random draws differ from the in-memory one, seed 1): rbin() from the chunks %.0f s, then `krr_fit(<chunked>, map, lambda = \"cv\")` (chunks as folds); whole: **%.0f s**, test error %.2f%% (lambda %.3g, %s occupied bins), peak memory of the main process **%.0f MB** (VmHWM; the training rows alone are %.0f MB as doubles).",
          fit$map$kernel$sigma, chunked_result$map_seconds, chunked_result$seconds,
          100 * chunked_error, chunked_fit$lambda, format(chunked_fit$map$n_features, big.mark = ","),
          chunked_result$peak_mb, length(train) * ncol(x) * 8 / 2^20))

# 1. Speed of the map (last: the targets above matter more when a run is cut short).
# Speed at sigma = 0.25 with min-max scaling (the best fixed setting found before).
build <- function() rbin(x_train, n_grids, sigma = 0.25, scale = "minmax", seed = 1, n_threads = 2)
t_build <- timing(build)
map <- build()
t_features <- timing(function() predict(map, x, n_threads = 2))
z <- predict(map, x, n_threads = 2)
speed <- c(
  "| step | seconds |",
  "| --- | --- |",
  sprintf("| rbin(): build the map on 522910 rows (P = %d, sigma = 0.25, min-max scaling) | %.2f |", n_grids, t_build),
  sprintf("| predict(): features of all 581012 rows (dgCMatrix, %s non-zeros) | %.2f |",
          format(length(z@x), big.mark = ","), t_features),
  "",
  sprintf("Map: %s occupied bins, %s in memory (8 bytes a bin); the feature matrix of all rows takes %s.",
          format(map$n_features, big.mark = ","), format(utils::object.size(map), units = "MB"),
          format(utils::object.size(z), units = "MB")))
rm(z, map)
gc()
note("map build %.2f s, features %.2f s", t_build, t_features)

load_after <- utils::read.table("/proc/loadavg")[[1]]
write_result(c("# rbin() on Forest CoverType", "", machine_description(), "",
               sprintf("Command: `%sRscript bench/rbin.R` (2 threads). Split: 522910 training / 58102 test rows, fixed seed 2007; class 2 against the rest.",
                       nice_prefix()),
               sprintf("Load average (1 min) at start %.1f, at end %.1f: %s", load_before, load_after, timing_note()), "",
               "## Speed of the map (median of 5 runs)", "", speed, "",
               "## The whole call: map, sigma and lambda by CV, fit", "", whole_call, "",
               if (!is.null(minmax_lines)) c("## The same call with min-max scaling", "", minmax_lines, ""),
               "## Chunked", "", chunked_lines, "",
               "## One row", "",
               sprintf("`predict(fit, one_row)` with the fit above (%s bins): median %.0f us over 40 batches of 50 calls (mean %.0f us elapsed, %.0f us of CPU time; target: at most 50 us). `predict(fit$map, one_row)` (the feature row as a dgCMatrix, whose column pointers span all bins): %.1f ms.",
                       format(fit$map$n_features, big.mark = ","), 1e6 * stats::median(one_row),
                       1e6 * fit_row, 1e6 * fit_row_cpu, 1e3 * map_row)),
             if (sample_rows > 0) "rbin-sample.md" else "rbin.md")
