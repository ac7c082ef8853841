# The README example typed at an interactive R console: R at a terminal (a
# pseudo-terminal made by script(1)), interactive() TRUE, so krr_fit()'s
# default verbose = interactive() draws its progress bars for real.

test_that("the README example runs without error at an interactive console", {
  skip_on_os("windows")
  script <- Sys.which("script")
  skip_if(!nzchar(script), "script(1) is not available")
  skip_if(nzchar(Sys.getenv("KITCHEN_SANITIZER")), "under the sanitizer")
  example <- system.file("scripts", "readme-example.R", package = "kitchen")
  expect_true(nzchar(example))
  input <- tempfile(fileext = ".R")
  on.exit(unlink(input))
  writeLines(c("options(cli.progress_show_after = 0)", "cat('interactive:', interactive(), '\\n')",
               readLines(example), "cat('README example finished\\n')"), input)
  r <- file.path(R.home("bin"), "R")
  command <- sprintf("%s --interactive --no-save --no-restore --quiet < %s", shQuote(r), shQuote(input))
  out <- system2(script, c("-q", "-e", "-c", shQuote(command), "/dev/null"), stdout = TRUE, stderr = TRUE,
                 env = c(paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)),
                         "KITCHEN_NUM_THREADS=2", "TERM=xterm"))
  text <- paste(out, collapse = "\n")
  expect_match(text, "interactive: TRUE", fixed = TRUE)
  expect_false(grepl("Error", text, fixed = TRUE), label = paste("no error in:\n", text))
  expect_match(text, "README example finished", fixed = TRUE)
  expect_null(attr(out, "status"))
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
