# What R code prints in a fresh Rscript child that finds the kitchen being
# tested (under R CMD check, in its own library): a user's session, not the
# tests' environment inside the namespace. Its arguments are statements,
# joined with "; ". (system2() ignores env on Windows: callers skip there.)
child_output <- function(...) {
  code <- paste(..., sep = "; ")
  system2(file.path(R.home("bin"), "Rscript"), c("-e", shQuote(code)), stdout = TRUE,
          env = paste0("R_LIBS=", shQuote(paste(.libPaths(), collapse = .Platform$path.sep))))
}
