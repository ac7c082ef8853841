# The README example typed at an interactive R console: R at a terminal (a
# pseudo-terminal made by script(1)), interactive() TRUE, so krr_fit()'s
# default verbose = interactive() draws its progress bars for real.

# `code` (lines of R) typed at an interactive R console, progress bars
# shown at once; what the terminal showed, with the exit status attribute.
at_console <- function(code) {
  skip_on_os("windows")
  script <- Sys.which("script")
  skip_if(!nzchar(script), "script(1) is not available")
  skip_if(nzchar(Sys.getenv("KITCHEN_SANITIZER")), "under the sanitizer")
  input <- tempfile(fileext = ".R")
  on.exit(unlink(input))
  writeLines(c("options(cli.progress_show_after = 0)", "cat('interactive:', interactive(), '\\n')",
               code, "cat('example finished\\n')"), input)
  r <- file.path(R.home("bin"), "R")
  command <- sprintf("%s --interactive --no-save --no-restore --quiet < %s", shQuote(r), shQuote(input))
  system2(script, c("-q", "-e", "-c", shQuote(command), "/dev/null"), stdout = TRUE, stderr = TRUE,
          env = c(paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)),
                  "KITCHEN_NUM_THREADS=2", "TERM=xterm"))
}

expect_ran_at_console <- function(out) {
  text <- paste(out, collapse = "\n")
  expect_match(text, "interactive: TRUE", fixed = TRUE)
  expect_false(grepl("Error", text, fixed = TRUE), label = paste("no error in:\n", text))
  expect_match(text, "example finished", fixed = TRUE)
  expect_null(attr(out, "status"))
}

test_that("the README example runs without error at an interactive console", {
  example <- system.file("scripts", "readme-example.R", package = "kitchen")
  expect_true(nzchar(example))
  expect_ran_at_console(at_console(readLines(example)))
})

test_that("a chunked logistic fit with CV runs at an interactive console (its progress bars live)", {
  # R/krr_logistic_chunked.R: the statistics pass, the read that keeps the
  # features, the CV path, each with its progress bar under verbose = interactive().
  expect_ran_at_console(at_console(c(
    "library(kitchen)",
    "set.seed(1); x <- matrix(rnorm(600 * 3), 600); y <- factor(x[, 1] + x[, 2]^2 > 1)",
    "chunks <- chunked(lapply(1:6, function(i) list(x = x[(i - 1) * 100 + 1:100, ], y = y[(i - 1) * 100 + 1:100])))",
    "fit <- krr_fit(chunks, rff(x, 200, seed = 1), loss = 'logistic')",
    "print(fit)")))
})

test_that("a classifier choosing sigma and lambda by CV runs at an interactive console (its step bars live)", {
  # R/progress.R: bars over the bandwidth candidates, CV folds and
  # calibration folds, between and around the passes' own bars.
  expect_ran_at_console(at_console(c(
    "library(kitchen)",
    "set.seed(1); x <- matrix(rnorm(600 * 3), 600); y <- factor(x[, 1] + x[, 2]^2 > 1)",
    "fit <- krr_fit(x, y, rff(x, 200, seed = 1), sigma = c(0.5, 1, 2), lambda = 'cv', block_size = 100)",
    "print(fit)")))
})

test_that("the README example and inst/scripts/readme-example.R are the same code", {
  readme <- test_path("..", "..", "README.md")
  skip_if(!file.exists(readme), "README.md is not in the installed tests")
  lines <- readLines(readme)
  start <- which(lines == "```r")[1]
  end <- which(lines == "```" & seq_along(lines) > start)[1]
  expect_identical(lines[(start + 1):(end - 1)],
                   readLines(system.file("scripts", "readme-example.R", package = "kitchen")))
})
