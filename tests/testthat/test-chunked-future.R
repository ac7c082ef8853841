# Chunks processed as futures. Helpers chunk_toy(), as_chunks(),
# write_chunks() come from test-chunked.R's file: redefined here so that
# this file runs alone.
future_toy <- function(n = 480, d = 3, seed = 1) {
  set.seed(seed)
  x <- matrix(runif(n * d, -2, 2), n, d, dimnames = list(NULL, paste0("v", seq_len(d))))
  y <- sin(2 * x[, 1]) + x[, 2]^2 / 2 + rnorm(n, sd = 0.1)
  cls <- factor(ifelse(x[, 1] > 0.5, "a", ifelse(x[, 2] > 0, "b", "c")), levels = c("c", "a", "b"))
  list(x = x, y = y, cls = cls, split = rep(1:5, c(100, 80, 120, 90, 90)))
}

future_chunks <- function(toy, response = "y") {
  lapply(split(seq_len(nrow(toy$x)), toy$split), function(rows) {
    list(x = toy$x[rows, , drop = FALSE], y = toy[[response]][rows])
  })
}

relative_error <- function(a, b) max(abs(a - b)) / max(abs(b))

# Fits of every kind on one plan: list, function and file sources, GCV,
# CV, classification, predictions; compared with the in-memory fits.
check_plan_fits <- function(toy, map, paths) {
  chunks <- future_chunks(toy)
  memory <- krr_fit(toy$x, toy$y, map, lambda = "gcv", n_threads = 1)
  fits <- list(
    list = krr_fit(chunked(chunks), map, lambda = "gcv", verbose = FALSE, parallel = "future"),
    "function" = krr_fit(chunked(function(i) if (i <= length(chunks)) chunks[[i]]), map,
                         lambda = "gcv", verbose = FALSE, parallel = "future"),
    rds = krr_fit(chunked(paths, y = "resp"), map, lambda = "gcv", verbose = FALSE,
                  parallel = "future"))
  for (kind in names(fits)) {
    expect_lt(relative_error(fits[[kind]]$coefficients, memory$coefficients), 1e-10)
    expect_equal(fits[[kind]]$intercept, memory$intercept, tolerance = 1e-10)
    expect_identical(fits[[kind]]$lambda, memory$lambda)
    expect_equal(fits[[kind]]$n, nrow(toy$x))
  }
  folds <- (toy$split - 1) %% 2 + 1
  cv <- krr_fit(chunked(chunks), map, lambda = "cv", n_folds = 2, verbose = FALSE,
                parallel = "future")
  cv_memory <- krr_fit(toy$x, toy$y, map, lambda = "cv", folds = folds, n_threads = 1)
  expect_equal(cv$path, cv_memory$path, tolerance = 1e-10)

  classes <- krr_fit(chunked(future_chunks(toy, "cls")), map, lambda = "gcv", verbose = FALSE,
                     parallel = "future")
  classes_memory <- krr_fit(toy$x, toy$cls, map, lambda = "gcv", n_threads = 1)
  expect_lt(relative_error(classes$coefficients, classes_memory$coefficients), 1e-10)
  expect_identical(classes$response, classes_memory$response)
  # the class calibration of a CV fit: rows scored in the workers as here
  calibrated <- lapply(c("future", "none"), function(parallel) {
    krr_fit(chunked(future_chunks(toy, "cls")), map, lambda = "cv", n_folds = 2,
            verbose = FALSE, parallel = parallel)$calibration
  })
  expect_false(is.null(calibrated[[1]]))
  expect_equal(calibrated[[1]], calibrated[[2]], tolerance = 1e-10)
  # (without CV the chunked fit has no probabilities: classes by the largest score)
  expect_identical(predict(classes, chunked(chunks), type = "class", parallel = "future"),
                   largest_score_class(classes_memory, toy$x))
  expect_equal(predict(memory, chunked(chunks), parallel = "future"), predict(memory, toy$x),
               tolerance = 1e-12)
  fits$list
}

test_that("plan(sequential), multisession and cluster give the same fits as in memory", {
  skip_if_not_installed("future")
  toy <- future_toy()
  map <- rff(toy$x, 48, sigma = 1, seed = 2)
  dir <- tempfile("future-chunks")
  dir.create(dir)
  paths <- file.path(dir, sprintf("chunk%d.rds", 1:5))
  for (i in 1:5) {
    saveRDS(data.frame(toy$x[toy$split == i, ], resp = toy$y[toy$split == i]), paths[i])
  }
  oplan <- future::plan(future::sequential)
  on.exit(future::plan(oplan), add = TRUE)
  sequential <- check_plan_fits(toy, map, paths)
  # Workers are new R processes: they must find this kitchen (under R CMD
  # check, in a temporary library), hence rscript_libs.
  future::plan(future::multisession, workers = 2, rscript_libs = .libPaths())
  multisession <- check_plan_fits(toy, map, paths)
  expect_lt(relative_error(multisession$coefficients, sequential$coefficients), 1e-10)
  # "auto" uses the plan: the same fit again.
  auto <- krr_fit(chunked(future_chunks(toy)), map, lambda = "gcv", verbose = FALSE)
  expect_lt(relative_error(auto$coefficients, sequential$coefficients), 1e-10)
  # The backends are this process's, passed to the workers with each task:
  # under a SIMD cap set here only, the workers' features and sums are made
  # as this process makes them, to the last bit.
  if (kitchen_simd()$cpu != "scalar") {
    old <- options(kitchen.simd = "scalar")
    here <- krr_fit(chunked(future_chunks(toy)), map, lambda = 0.1, verbose = FALSE,
                    parallel = "none")
    there <- krr_fit(chunked(future_chunks(toy)), map, lambda = 0.1, verbose = FALSE,
                     parallel = "future")
    predicted <- predict(here, chunked(future_chunks(toy)), parallel = "future")
    expected <- predict(here, toy$x, n_threads = 1)
    options(old)
    expect_identical(there$coefficients, here$coefficients)
    expect_identical(predicted, expected)
  }
  future::plan(future::sequential)  # stops the multisession workers

  # Two new workers, once the two above are stopped: never more than 2.
  future::plan(future::cluster, workers = 2, rscript_libs = .libPaths())
  cluster <- check_plan_fits(toy, map, paths)
  expect_lt(relative_error(cluster$coefficients, sequential$coefficients), 1e-10)
  future::plan(future::sequential)
})

test_that("a chunk failing in a worker stops the fit with an error naming it", {
  skip_if_not_installed("future")
  toy <- future_toy(seed = 3)
  map <- rff(toy$x, 16, sigma = 1, seed = 4)
  chunks <- future_chunks(toy)
  oplan <- future::plan(future::multisession, workers = 2, rscript_libs = .libPaths())
  on.exit(future::plan(oplan), add = TRUE)
  fit_error <- function(source) {
    expect_error(krr_fit(source, map, verbose = FALSE), class = "kitchen_error_argument")
  }

  failing <- chunked(function(i) {
    if (i == 4) stop("connection lost")
    if (i <= length(chunks)) chunks[[i]]
  })
  err <- fit_error(failing)
  expect_match(conditionMessage(err), "Chunk 4 could not be read")
  expect_match(conditionMessage(err), "connection lost")

  with_na <- chunks
  with_na[[3]]$x[2, 1] <- NA
  err <- fit_error(chunked(with_na))
  expect_match(conditionMessage(err), "Chunk 3 holds bad data")
  expect_match(conditionMessage(err), "NA")

  kind_differs <- future_chunks(toy, "cls")
  kind_differs[[5]]$y <- as.character(kind_differs[[5]]$y)
  expect_match(conditionMessage(fit_error(chunked(kind_differs))), "Chunk 5.*same kind")

  expect_error(predict(krr_fit(toy$x, toy$y, map, lambda = 1, n_threads = 1), chunked(with_na)),
               "Chunk 3 could not be predicted", class = "kitchen_error_argument")
  # The workers are still usable after the failures.
  fit <- krr_fit(chunked(chunks), map, lambda = 1, verbose = FALSE)
  expect_lt(relative_error(fit$coefficients,
                           krr_fit(toy$x, toy$y, map, lambda = 1, n_threads = 1)$coefficients),
            1e-10)
})

test_that("futures run in this process under plan(sequential), in the same order", {
  skip_if_not_installed("future")
  toy <- future_toy(seed = 5)
  map <- rff(toy$x, 16, sigma = 1, seed = 6)
  chunks <- future_chunks(toy)
  oplan <- future::plan(future::sequential)
  on.exit(future::plan(oplan), add = TRUE)
  # A function source is read past its end at most by the window (1 here).
  asked <- integer()
  source <- chunked(function(i) {
    asked <<- c(asked, i)
    if (i <= length(chunks)) chunks[[i]]
  })
  # Under sequential futures the function runs here, so `asked` is seen.
  fit <- krr_fit(source, map, lambda = 0.5, verbose = FALSE, parallel = "future")
  expect_equal(asked, 1:6)
  plain <- krr_fit(source, map, lambda = 0.5, verbose = FALSE, parallel = "none")
  expect_identical(fit$coefficients, plain$coefficients)
  # Same columns in another order, with a map without names: matched to
  # chunk 1's order, as without futures.
  shuffled <- chunks
  shuffled[[2]]$x <- shuffled[[2]]$x[, 3:1]
  unnamed <- rff(unname(toy$x), 16, sigma = 1, seed = 6)
  expect_identical(
    krr_fit(chunked(shuffled), unnamed, lambda = 0.5, verbose = FALSE, parallel = "future")$coefficients,
    krr_fit(chunked(shuffled), unnamed, lambda = 0.5, verbose = FALSE, parallel = "none")$coefficients)
  expect_error(krr_fit(chunked(chunks), map, parallel = "threads"), "parallel",
               class = "kitchen_error_argument")
})

test_that("an interrupt under a multisession plan returns at once and leaves the plan usable", {
  skip_if_not_installed("processx")
  skip_if_not_installed("future")
  skip_on_os("windows")  # no SIGINT to send
  skip_if(nzchar(Sys.getenv("KITCHEN_SANITIZER")), "under the sanitizer")
  # Slow chunks keep futures pending at the signal. An interrupted value()
  # once left the workers mid-message: the exit handler's value() then
  # waited for ever, and the plan failed the next call.
  code <- paste(
    "library(kitchen); future::plan(future::multisession, workers = 2);",
    "set.seed(1); x <- matrix(runif(4000 * 3), 4000); y <- sin(3 * x[, 1]);",
    "map <- rff(x, 50, sigma = 1, seed = 1);",
    "slow <- chunked(function(i) if (i <= 20) { Sys.sleep(0.5); r <- seq(i, 4000, by = 20); list(x = x[r, ], y = y[r]) });",
    "fast <- chunked(function(i) if (i <= 4) { r <- seq(i, 4000, by = 4); list(x = x[r, ], y = y[r]) });",
    "cat('ready\\n');",
    "tryCatch(krr_fit(slow, map, lambda = 1, verbose = FALSE), interrupt = function(cnd) cat('interrupted\\n'));",
    "fit <- krr_fit(fast, map, lambda = 1, verbose = FALSE);",
    "cat('after', isTRUE(all.equal(coef(fit), coef(krr_fit(x, y, map, lambda = 1)))), '\\n')")
  child <- processx::process$new(
    file.path(R.home("bin"), "Rscript"), c("-e", code), stdout = "|", stderr = "|",
    env = c("current", R_LIBS = paste(.libPaths(), collapse = .Platform$path.sep)))
  on.exit(if (child$is_alive()) child$kill())
  output <- ""
  read_until <- function(pattern, seconds) {
    deadline <- Sys.time() + seconds
    while (!grepl(pattern, output) && Sys.time() < deadline && child$is_alive()) {
      child$poll_io(100)
      output <<- paste0(output, child$read_output())
      child$read_error()
    }
    grepl(pattern, output)
  }
  expect_true(read_until("ready", 60))
  Sys.sleep(2)  # the slow fit's futures are running
  signalled <- Sys.time()
  child$signal(2L)  # SIGINT
  expect_true(read_until("interrupted", 30))
  expect_lt(as.numeric(difftime(Sys.time(), signalled, units = "secs")), 10)
  expect_true(read_until("after (TRUE|FALSE)", 60))
  expect_match(output, "after TRUE")
})
