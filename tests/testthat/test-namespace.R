# Loading kitchen does not load Matrix (with lattice and grid): a session
# holding Matrix's namespace spends several times longer in every full
# garbage collection. Only rbin features, which are dgCMatrix objects, load it.

test_that("library(kitchen) leaves Matrix unloaded until rbin features need it", {
  skip_on_os("windows")  # system2() ignores env there: the child could load another kitchen
  code <- paste(
    "library(kitchen)",
    "cat(isNamespaceLoaded('Matrix'), '')",
    "y <- fwht(matrix(1, 4, 2)); m <- rff(2, 8, sigma = 1, seed = 1); z <- predict(m, diag(2))",
    "cat(isNamespaceLoaded('Matrix'), '')",
    "map <- rbin(matrix(c(0.1, 0.5, 0.9, 0.3), 2), n_grids = 3, seed = 1)",
    "z <- predict(map, matrix(c(0.1, 0.5, 0.9, 0.3), 2))",
    "cat(isNamespaceLoaded('Matrix'), class(z), format(sum(z^2)))",
    sep = "; ")
  out <- system2(file.path(R.home("bin"), "Rscript"), c("-e", shQuote(code)), stdout = TRUE,
                 # the child must find the kitchen being tested (under R CMD check, in its own library)
                 env = paste0("R_LIBS=", shQuote(paste(.libPaths(), collapse = .Platform$path.sep))))
  # Each row of rbin features has one entry 1/sqrt(n_grids) per grid: squares sum to the rows.
  expect_equal(out, "FALSE FALSE TRUE dgCMatrix 2")
})
